package concbench

/**
 * Unit tests of the kernels (run by `make test`). Expected values are computed here, independently of the
 * kernels: fannkuch by brute force over every index (perm(i) decoded on its own, no Mazurov step),
 * chameneos by its closed forms (M place meetings, 2M creature meetings, no self-meetings, the colour sum
 * mod 3 is invariant), big by drawing every worker's targets directly (big.md: messages = 2NP and the
 * checksum of the pings received). Every model and shape is run through its Bench at several small sizes
 * and worker counts. Prints "N passed, M failed"; exits 1 on any failure.
 */
object KernelsTest {
  private var passed = 0
  private var failed = 0

  def check(ok: Boolean, label: => String): Unit =
    if (ok) passed += 1
    else {
      failed += 1
      println("FAIL: " + label)
    }

  def equal(got: Any, want: Any, label: String): Unit = check(got == want, label + ": got " + got + ", want " + want)

  def metric(o: Outcome, name: String): Any = Option(o.metrics.get(name)).getOrElse("missing")

  // ---- fannkuch ------------------------------------------------------------------------------

  def factorial(n: Int): Long = (1 to n).foldLeft(1L)(_ * _)

  /** perm(i) exactly as fannkuch.md defines it: p = identity, then rotate p[0..k] left by i div k! for k = n-1..1. */
  def perm(n: Int, index: Long): Vector[Int] = {
    var p = (0 until n).toVector
    var i = index
    for (k <- n - 1 to 1 by -1) {
      val d = (i / factorial(k)).toInt
      i %= factorial(k)
      val (head, tail) = p.splitAt(k + 1)
      p = head.drop(d) ++ head.take(d) ++ tail
    }
    p
  }

  def flips(perm: Vector[Int]): Int = {
    var q = perm
    var f = 0
    while (q(0) != 0) {
      val (head, tail) = q.splitAt(q(0) + 1)
      q = head.reverse ++ tail
      f += 1
    }
    f
  }

  /** (maxflips, checksum) over all n! indexes, one at a time. */
  def bruteForce(n: Int): (Int, Long) = {
    var max = 0
    var sum = 0L
    var i = 0L
    while (i < factorial(n)) {
      val f = flips(perm(n, i))
      max = math.max(max, f)
      sum += (if (i % 2 == 0) f else -f)
      i += 1
    }
    (max, sum)
  }

  def fannkuch(): Unit = {
    // The test's own decoding and flip count against fannkuch.md's examples.
    val listing = Seq("1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231", "2431", "3412")
    for ((want, i) <- listing.zipWithIndex) equal(perm(4, i).map(_ + 1).mkString, want, "perm(4, " + i + ")")
    equal(perm(4, 23).map(_ + 1).mkString, "4213", "perm(4, 23)")
    equal(flips(Vector(3, 1, 0, 4, 2)), 5, "flips {4,2,1,5,3}")

    for (n <- 3 to 8) {
      val (wantMax, wantSum) = bruteForce(n)
      val total = factorial(n)
      // The chunk routine over arbitrary ranges, combined, against the brute force.
      for (chunk <- Seq(1L, 5L, 7L, total / 3 + 1, total)) {
        val parts = (0L until total by chunk).map(lo => Fannkuch.run(n, lo, math.min(total, lo + chunk)))
        equal((parts.map(_._1).max, parts.map(_._2).sum), (wantMax, wantSum), "fannkuch chunk routine n=" + n + " chunk=" + chunk)
      }
      // Every model and shape, through its Bench.
      for (shape <- Seq("pull", "actor-per-task", "counter");
           k <- Seq(1, n, 150, math.min(total + 3, Fannkuch.MaxChunks).toInt);
           w <- Seq(1, 3)) {
        val label = "fannkuch " + shape + " n=" + n + " chunks=" + k + " workers=" + w
        val o = Fannkuch.bench(shape, n, k, w).iterate()
        equal(o.result, "maxflips=" + wantMax + " checksum=" + wantSum, label)
        val chunk = (total + k - 1) / k
        equal(metric(o, "tasks").toString, ((total + chunk - 1) / chunk).toString, label + " tasks")
      }
    }
  }

  // ---- chameneos -----------------------------------------------------------------------------

  /** chameneos.md's standard ten creatures' colours, blue=0 red=1 yellow=2; creature i starts with TEN(i mod 10). */
  val TEN = Vector(0, 1, 2, 1, 2, 0, 1, 2, 1, 0)

  def initialColourSumMod3(c: Int): Int = (0 until c).map(i => TEN(i % 10)).sum % 3

  def chameneos(): Unit = {
    // complement as chameneos.md's table spells it.
    val table = Seq((0, 0, 0), (0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 1, 1), (1, 2, 0), (2, 0, 1), (2, 1, 0), (2, 2, 2))
    for ((a, b, c) <- table) equal(Chameneos.complement(a, b), c, "complement(" + a + ", " + b + ")")

    for (shape <- Seq("message", "rendezvous", "exchange", "best-dispatch")) {
      for (c <- Seq(2, 3, 7, 10, 70, 800); m <- Seq(0, 1, 7, 2000) if c != 800 || m == 2000) {
        val label = "chameneos " + shape + " encore C=" + c + " M=" + m
        val o = Chameneos.bench(shape, redux = false, c, m).iterate()
        equal(o.result, "meetings=" + m + " creature_meetings=" + 2L * m, label)
        equal(metric(o, "self_meetings").toString, "0", label + " self_meetings")
        equal(metric(o, "colour_sum_mod3").toString, initialColourSumMod3(c).toString, label + " colour_sum_mod3")
        val (lo, hi) = (metric(o, "min_meetings").toString.toLong, metric(o, "max_meetings").toString.toLong)
        check(0 <= lo && lo <= hi && hi <= m, label + " min/max meetings " + lo + "/" + hi)
      }
      for (n <- Seq(0, 1, 5, 3000)) {
        val label = "chameneos " + shape + " redux n=" + n
        val o = Chameneos.bench(shape, redux = true, 0, n).iterate()
        equal(o.result, "meetings3=" + n + " creature_meetings3=" + 2L * n + " meetings10=" + n + " creature_meetings10=" + 2L * n, label)
        equal(metric(o, "self_meetings").toString, "0", label + " self_meetings")
        equal(metric(o, "colour_sum_mod3_3").toString, initialColourSumMod3(3).toString, label + " colour_sum_mod3_3")
        equal(metric(o, "colour_sum_mod3_10").toString, initialColourSumMod3(10).toString, label + " colour_sum_mod3_10")
      }
    }
  }

  // ---- big -----------------------------------------------------------------------------------

  /** big.md's closed form: each worker's P targets drawn directly from its LCG32; the result, min and max received. */
  def bigExpected(n: Int, p: Int, h: Int): (String, Long, Long) = {
    val recv = new Array[Long](n)
    for (w <- 0 until n) {
      val g = w / h
      val size = math.min(n, (g + 1) * h) - g * h
      var state = w.toLong
      for (_ <- 0 until p) {
        state = (1664525L * state + 1013904223L) % (1L << 32)
        recv(g * h + (state % size).toInt) += 1
      }
    }
    val checksum = recv.zipWithIndex.map { case (r, w) => r * (w + 1) }.sum
    ("messages=" + 2L * n * p + " checksum=" + java.lang.Long.toUnsignedString(checksum), recv.min, recv.max)
  }

  def big(): Unit =
    for ((n, p, h) <- Seq((1, 0, 1), (1, 5, 1), (5, 0, 2), (7, 13, 3), (20, 200, 1000), (50, 100, 20), (64, 50, 16))) {
      val (result, min, max) = bigExpected(n, p, h)
      val label = "big actor N=" + n + " P=" + p + " H=" + h
      val o = Big.run(n, p, h)
      equal(o.result, result, label)
      equal(metric(o, "min_recv").toString, min.toString, label + " min_recv")
      equal(metric(o, "max_recv").toString, max.toString, label + " max_recv")
    }

  // ---- the front end: Scala's pairs and bounds as the JVM driver (Driver.java, tested in impls/jvm) takes them

  def frontEnd(): Unit = {
    val o = Outcome(7L, "r", Seq("a" -> 1, "b" -> 2L, "c" -> 0.5))
    equal(Driver.Json.write(o.metrics), "{\"a\": 1, \"b\": 2, \"c\": 0.5}", "metrics in their order, as numbers")
    val d = Driver.Domain.ints(1L, 5L, "2")
    equal(Driver.Json.write(d.json), "{\"int\": {\"min\": 1, \"max\": 5}, \"default\": \"2\"}", "domain without a reason")
    equal(Driver.Json.write(d.because("why").json), "{\"int\": {\"min\": 1, \"max\": 5}, \"default\": \"2\", \"reason\": \"why\"}",
      "domain with a reason")
  }

  def main(args: Array[String]): Unit = {
    try {
      frontEnd()
      fannkuch()
      chameneos()
      big()
    } catch {
      case t: Throwable =>
        failed += 1
        println("FAIL: exception " + t)
        t.printStackTrace(System.out)
    }
    println(passed + " passed, " + failed + " failed")
    Console.flush()
    System.out.flush()
    Runtime.getRuntime.halt(if (failed == 0) 0 else 1)
  }
}
