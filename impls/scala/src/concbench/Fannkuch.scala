package concbench

import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicInteger
import scala.actors.Actor

/**
 * fannkuch-redux over n! permutation indexes cut into K requested chunks (fannkuch.md).
 * Shapes:
 *  threads/counter        the thesis's Scala program: --workers Java threads (the JVM's available
 *                         processors unless told) each take the next task number from an AtomicInteger
 *                         until none is left, keeping a local max and checksum; joined and combined;
 *  actors/pull            the same structure with scala.actors: a manager actor and --workers worker
 *                         actors; each worker asks the manager for a task, computes it, sends the result
 *                         back with the next request, until the manager answers Done;
 *  actors/actor-per-task  Encore's structure: one worker actor per task sending its (max, checksum) to a
 *                         manager actor with `!`.
 * Every shape uses the same chunk routine.
 */
object Fannkuch {
  final class Plan(val n: Int, requested: Int) {
    val total: Long = (2 to n).foldLeft(1L)(_ * _)
    val chunk: Long = (total + requested - 1) / requested
    val tasks: Int = ((total + chunk - 1) / chunk).toInt
    def task(t: Int): (Int, Long) = {
      val lo = t * chunk
      run(n, lo, math.min(total, lo + chunk))
    }
  }

  /** Max flips and checksum over the indexes [start, end). */
  def run(n: Int, start: Long, end: Long): (Int, Long) = {
    val p = new Array[Int](n)
    val q = new Array[Int](n)
    val count = new Array[Int](n)
    val fact = new Array[Long](n + 1)
    fact(0) = 1
    var i = 1
    while (i <= n) { fact(i) = fact(i - 1) * i; i += 1 }
    i = 0
    while (i < n) { p(i) = i; i += 1 }
    var idx = start
    var k = n - 1
    while (k >= 1) {
      val d = (idx / fact(k)).toInt
      idx %= fact(k)
      count(k) = d
      if (d > 0) { // rotate p[0..k] left by d
        i = 0
        while (i <= k) { q(i) = p(i); i += 1 }
        i = 0
        while (i <= k) { p(i) = q((i + d) % (k + 1)); i += 1 }
      }
      k -= 1
    }
    var max = 0
    var checksum = 0L
    var at = start
    var going = true
    while (going) {
      var first = p(0)
      if (first != 0) {
        i = 0
        while (i < n) { q(i) = p(i); i += 1 }
        var flips = 0
        while (first != 0) {
          var lo = 0
          var hi = first
          while (lo < hi) {
            val t = q(lo); q(lo) = q(hi); q(hi) = t
            lo += 1; hi -= 1
          }
          flips += 1
          first = q(0)
        }
        if (flips > max) max = flips
        checksum += (if ((at & 1) == 0) flips else -flips)
      }
      at += 1
      if (at >= end) going = false
      else { // Mazurov's step to the next permutation
        var f = p(1)
        p(1) = p(0)
        p(0) = f
        var j = 1
        count(j) += 1
        while (count(j) > j) {
          count(j) = 0
          j += 1
          val nxt = p(1)
          p(0) = nxt
          var s = 1
          while (s < j) { p(s) = p(s + 1); s += 1 }
          p(j) = f
          f = nxt
          count(j) += 1
        }
      }
    }
    (max, checksum)
  }

  /** --param n from 3 to MaxN (n! and every index fit a Long far beyond; 12 is the largest size measured). */
  val MaxN: Long = 12
  /** The most chunks the actors model admits: tasks <= chunks, and actor-per-task starts one actor per task. */
  val MaxChunks: Long = 100000

  def create(r: Request): Bench = bench(r.shape, r.paramInt.toInt, r.intOption("chunks").toInt, r.workers)

  def bench(shape: String, n: Int, chunks: Int, workers: Int): Bench = {
    val plan = new Plan(n, chunks)
    new Bench {
      def iterate(): Outcome = {
        val t0 = System.nanoTime
        val (max, checksum) = shape match {
          case "counter" => counter(plan, workers)
          case "pull" => pull(plan, workers)
          case _ => perTask(plan)
        }
        val ns = System.nanoTime - t0
        if (shape != "counter") ActorPool.snapshot()
        Outcome(ns, "maxflips=" + max + " checksum=" + checksum, Seq("tasks" -> plan.tasks))
      }
    }
  }

  def counter(plan: Plan, workers: Int): (Int, Long) = {
    val next = new AtomicInteger(0)
    val maxes = new Array[Int](workers)
    val sums = new Array[Long](workers)
    val threads = Array.tabulate(workers) { w =>
      new Thread(new Runnable {
        def run(): Unit = {
          var mx = 0
          var cs = 0L
          var t = next.getAndIncrement()
          while (t < plan.tasks) {
            val (m, c) = plan.task(t)
            if (m > mx) mx = m
            cs += c
            t = next.getAndIncrement()
          }
          maxes(w) = mx
          sums(w) = cs
        }
      }, "fannkuch-" + w)
    }
    threads.foreach(_.start())
    threads.foreach(_.join())
    (maxes.max, sums.sum)
  }

  final case class Want(worker: Actor)
  final case class Result(worker: Actor, max: Int, checksum: Long)
  final case class Task(t: Int)
  case object Done

  /** The manager: hands out task numbers on request (pull) and combines the results. */
  final class Manager(plan: Plan, expected: Int, finished: CountDownLatch) extends Actor {
    private var next = 0
    private var received = 0
    var max = 0
    var checksum = 0L

    private def give(worker: Actor): Unit =
      if (next < plan.tasks) { worker ! Task(next); next += 1 } else worker ! Done

    def act(): Unit = loop {
      react {
        case Want(worker) => give(worker)
        case Result(worker, m, c) =>
          if (m > max) max = m
          checksum += c
          received += 1
          if (worker != null) give(worker)
          if (received == expected) { finished.countDown(); exit() }
      }
    }
  }

  final class Puller(plan: Plan, manager: Manager) extends Actor {
    def act(): Unit = {
      manager ! Want(this)
      loop {
        react {
          case Task(t) =>
            val (m, c) = plan.task(t)
            manager ! Result(this, m, c)
          case Done => exit()
        }
      }
    }
  }

  def pull(plan: Plan, workers: Int): (Int, Long) = {
    val finished = new CountDownLatch(1)
    val manager = new Manager(plan, plan.tasks, finished)
    manager.start()
    for (_ <- 0 until workers) new Puller(plan, manager).start()
    finished.await()
    (manager.max, manager.checksum)
  }

  final class OneTask(plan: Plan, t: Int, manager: Manager) extends Actor {
    def act(): Unit = {
      val (m, c) = plan.task(t)
      manager ! Result(null, m, c)
    }
  }

  def perTask(plan: Plan): (Int, Long) = {
    val finished = new CountDownLatch(1)
    val manager = new Manager(plan, plan.tasks, finished)
    manager.start()
    for (t <- 0 until plan.tasks) new OneTask(plan, t, manager).start()
    finished.await()
    (manager.max, manager.checksum)
  }
}
