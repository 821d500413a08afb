package concbench

import java.io.{FileDescriptor, FileOutputStream, PrintStream}
import java.util.regex.Pattern
import scala.collection.mutable

/** Bad usage: one line on stderr, exit status 2, nothing on stdout. */
final class UsageError(message: String) extends Exception(message)

/** One timed iteration: the kernel's time, its result string, the metrics it produced (Int, Long or Double). */
final case class Outcome(ns: Long, result: String, metrics: Seq[(String, Any)])

/** A benchmark with its parameters checked, ready to run iterations. */
trait Bench {
  def iterate(): Outcome
}

/**
 * The domain of an option or of --param: exactly one of int bounds, a list of values, a pattern; a default
 * (documentation only) and, where an option's int bound is narrower than its benchmark declares, the reason.
 */
sealed abstract class Domain {
  def default: Option[String]

  /** None when the text lies inside the domain, else what is wrong with it. */
  def reject(text: String): Option[String]

  def json: Json.Obj
}

object Domain {
  private val Decimal = Pattern.compile("-?[0-9]+")

  /** A decimal integer (optional '-', ASCII digits only) that fits a Long, else None. */
  def parseInteger(text: String): Option[Long] =
    if (!Decimal.matcher(text).matches()) None
    else try Some(text.toLong) catch { case _: NumberFormatException => None }

  final case class Ints(min: Option[Long], max: Option[Long], default: Option[String], reason: Option[String] = None)
      extends Domain {
    /** The same bounds, narrower than the benchmark's declaration (benchmarks/<id>.toml) for this reason. */
    def because(why: String): Ints = copy(reason = Some(why))

    def reject(text: String): Option[String] =
      if (!Decimal.matcher(text).matches()) Some("'" + text + "' is not a decimal integer")
      else parseInteger(text) match {
        case None => Some("'" + text + "' is out of range")
        case Some(v) if min.exists(v < _) => Some("'" + text + "' is below the minimum " + min.get)
        case Some(v) if max.exists(v > _) => Some("'" + text + "' is above the maximum " + max.get)
        case _ => None
      }

    def json: Json.Obj =
      Json.Obj(Seq("int" -> Json.Obj(min.map("min" -> _).toSeq ++ max.map("max" -> _).toSeq: _*)) ++
        default.map("default" -> _).toSeq ++ reason.map("reason" -> _).toSeq: _*)
  }

  final case class Values(values: Seq[String], default: Option[String]) extends Domain {
    def reject(text: String): Option[String] =
      if (values.contains(text)) None else Some("'" + text + "' is not one of " + values.mkString(", "))

    def json: Json.Obj = Json.Obj(Seq("values" -> values) ++ default.map("default" -> _).toSeq: _*)
  }

  final case class Matching(regex: String, default: Option[String]) extends Domain {
    private val pattern = Pattern.compile(regex)

    def reject(text: String): Option[String] =
      if (pattern.matcher(text).matches()) None else Some("'" + text + "' does not match " + regex)

    def json: Json.Obj = Json.Obj(Seq("pattern" -> regex) ++ default.map("default" -> _).toSeq: _*)
  }

  def ints(min: Long, max: Long, default: String = null): Ints = Ints(Some(min), Some(max), Option(default))
  def values(default: String, values: String*): Domain = Values(values, Option(default))
}

/** A command line checked against the table; options hold every key of the model, defaults filled in. */
final class Request(val benchmark: String, val model: String, val shape: String, val param: String,
                    val iterations: Int, val workers: Int, val options: Map[String, String]) {
  /** --param as a number (its domain is an int domain, already checked). */
  def paramInt: Long = param.toLong

  def option(key: String): String = options(key)

  /** An int option (already checked against its int domain). */
  def intOption(key: String): Long = options(key).toLong
}

/** What one model serves of one benchmark: its shapes (faithful first) and its options. */
final case class Served(shapes: Seq[String], options: Seq[(String, Domain)])

/** A benchmark: the domain of --param, how to create it from a checked request, and what each model serves. */
final case class Benchmark(param: Domain, create: Request => Bench, models: Seq[(String, Served)])

/**
 * concbench-scala: the protocol driver. `describe` prints the table below as one JSON line. Any other
 * command line is checked completely against the same table before anything is printed (any problem:
 * one line on stderr, exit 2, nothing on stdout); then hello, one line per timed iteration, and the
 * metrics of the last iteration. System.out (and so Scala's Console) is pointed at stderr, so that only
 * protocol lines reach stdout.
 */
object Main {
  val Language = "scala"
  val IntMax: Long = Int.MaxValue
  /** The reason of a bound at Int.MaxValue: the kernel holds the value in an Int. */
  val AnInt = "a Scala Int"

  // ---- The table: what this binary serves. `describe` prints it; the argument checks read it.

  /** Models with their one-line descriptions. */
  val models: Seq[(String, String)] = Seq(
    "actors" -> ("scala.actors (not Akka), the thesis's actor programs: an actor per worker plus a sink (big), an actor " +
      "per creature plus the meeting place (chameneos), worker actors pulling fannkuch chunks from a manager or one actor per chunk"),
    "threads" -> ("Java threads from Scala, the thesis's thread programs: one thread per creature with a synchronized " +
      "meeting place and wait/notify, a compare-and-set one whose waiter spins, then parks, or creatures as tasks on dispatcher threads (chameneos), one thread per processor taking chunks from an atomic counter (fannkuch)"))

  val benchmarks: Seq[(String, Benchmark)] = {
    val big = Seq("pings" -> Domain.ints(0, IntMax, "16000").because(AnInt),
      "hood" -> Domain.ints(1, IntMax, "1000").because(AnInt))
    // --param: C (encore, 2..MaxCreatures, checked in Chameneos.create) or n (redux, 0..); the union here.
    val chameneos = Seq("variant" -> Domain.values("encore", "encore", "redux"),
      "meetings" -> Domain.ints(1, IntMax, "8000000").because(AnInt))
    val fannkuchActors = Seq("chunks" -> Domain.ints(1, Fannkuch.MaxChunks, "150").because(
      "actor-per-task starts one actor per task, up to min(chunks, n!) of them"))
    val fannkuchThreads = Seq("chunks" -> Domain.ints(1, IntMax, "150").because(AnInt))
    Seq(
      "big" -> Benchmark(Domain.ints(1, Big.MaxWorkers), Big.create,
        Seq("actors" -> Served(Seq("actor"), big))),
      "chameneos" -> Benchmark(Domain.ints(0, IntMax), Chameneos.create,
        Seq("actors" -> Served(Seq("message"), chameneos), "threads" -> Served(Seq("rendezvous", "exchange", "best-dispatch"), chameneos))),
      "fannkuch" -> Benchmark(Domain.ints(3, Fannkuch.MaxN), Fannkuch.create,
        Seq("actors" -> Served(Seq("pull", "actor-per-task"), fannkuchActors), "threads" -> Served(Seq("counter"), fannkuchThreads))))
  }

  /** The describe line's object, built from the table. */
  def describe: Json.Obj = Json.Obj("describe" -> Json.Obj(
    "protocol" -> 1,
    "language" -> Language,
    "models" -> Json.Obj(models: _*),
    "benchmarks" -> Json.Obj(benchmarks.map { case (id, b) =>
      id -> Json.Obj(
        "param" -> b.param.json,
        "models" -> Json.Obj(b.models.map { case (model, s) =>
          model -> Json.Obj("shapes" -> s.shapes, "options" -> Json.Obj(s.options.map { case (k, d) => k -> d.json }: _*))
        }: _*))
    }: _*)))

  // ---- The command line: <benchmark> --model M --param P --iterations K [--workers W] [--option k=v]...

  /** --iterations and --workers: a decimal integer from 1 to Int.MaxValue. */
  def count(flag: String, text: String): Int = Domain.parseInteger(text) match {
    case Some(v) if v >= 1 && v <= IntMax => v.toInt
    case _ => throw new UsageError(flag + " wants an integer from 1 to " + IntMax + ", got '" + text + "'")
  }

  def parse(argv: Array[String]): Request = {
    if (argv.isEmpty)
      throw new UsageError("usage: describe | <benchmark> --model <model> --param <value> --iterations <k> [--workers <w>] [--option key=value]...")
    val benchmark = argv(0)
    var model: String = null
    var param: String = null
    var iterations: String = null
    var workers: String = null
    val given = mutable.LinkedHashMap[String, String]()
    var i = 1
    while (i < argv.length) {
      val flag = argv(i)
      if (!Set("--model", "--param", "--iterations", "--workers", "--option").contains(flag))
        throw new UsageError("unknown argument '" + flag + "'")
      if (i + 1 >= argv.length) throw new UsageError(flag + " needs a value")
      val value = argv(i + 1)
      flag match {
        case "--model" => model = value
        case "--param" => param = value
        case "--iterations" => iterations = value
        case "--workers" => workers = value
        case _ =>
          val eq = value.indexOf('=')
          if (eq <= 0) throw new UsageError("--option wants key=value, got '" + value + "'")
          given(value.substring(0, eq)) = value.substring(eq + 1)
      }
      i += 2
    }
    val b = benchmarks.toMap.getOrElse(benchmark,
      throw new UsageError("unknown benchmark '" + benchmark + "' (known: " + benchmarks.map(_._1).mkString(", ") + ")"))
    if (model == null) throw new UsageError("missing --model")
    val served = b.models.toMap.getOrElse(model,
      throw new UsageError("unknown model '" + model + "' for " + benchmark + " (known: " + b.models.map(_._1).mkString(", ") + ")"))
    val shape = given.getOrElse("shape", served.shapes.head)
    if (!served.shapes.contains(shape))
      throw new UsageError("unknown shape '" + shape + "' for " + benchmark + " in model " + model +
        " (known: " + served.shapes.mkString(", ") + ")")
    val domains = served.options.toMap
    for ((key, value) <- given if key != "shape") {
      val d = domains.getOrElse(key, throw new UsageError("unknown option '" + key + "' for " + benchmark + " in model " +
        model + " (known: " + served.options.map(_._1).mkString(", ") + ")"))
      for (why <- d.reject(value)) throw new UsageError("option " + key + ": " + why)
    }
    val options = served.options.map { case (k, d) => k -> given.getOrElse(k, d.default.orNull) }.toMap
    if (param == null) throw new UsageError("missing --param")
    for (why <- b.param.reject(param)) throw new UsageError("--param: " + why)
    if (iterations == null) throw new UsageError("missing --iterations")
    val k = count("--iterations", iterations)
    val w = if (workers == null) Runtime.getRuntime.availableProcessors else count("--workers", workers)
    new Request(benchmark, model, shape, param, k, w, options)
  }

  def main(argv: Array[String]): Unit = {
    val out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8")
    System.setOut(System.err)
    Console.setOut(System.err)
    if (argv.length == 1 && argv(0) == "describe") {
      out.println(Json.write(describe))
      out.flush()
      Runtime.getRuntime.halt(0)
    }
    var request: Request = null
    var bench: Bench = null
    try {
      request = parse(argv)
      bench = benchmarks.toMap.apply(request.benchmark).create(request)
    } catch {
      case e: UsageError =>
        // One line, whatever the culprit holds.
        System.err.println("concbench-scala: " + e.getMessage.replace("\r", "\\r").replace("\n", "\\n"))
        System.err.flush()
        Runtime.getRuntime.halt(2)
    }
    out.println(Json.write(Json.Obj("hello" -> Json.Obj("protocol" -> 1, "language" -> Language, "runtime" -> runtime,
      "model" -> request.model))))
    out.flush()
    var last: Seq[(String, Any)] = Nil
    try {
      var i = 0
      while (i < request.iterations) {
        val o = bench.iterate()
        out.println(Json.write(Json.Obj("iteration" -> i, "ns" -> o.ns, "result" -> o.result)))
        out.flush()
        last = o.metrics
        i += 1
      }
    } catch {
      case t: Throwable =>
        System.err.println("concbench-scala: " + request.benchmark + " failed: " + t)
        System.err.flush()
        out.flush()
        Runtime.getRuntime.halt(1)
    }
    if (request.model == "actors") last = last ++ ActorPool.metrics()
    // A metric that cannot be computed (NaN, infinite) is left out, never written as null (docs/describe.md).
    last = last.filter { case (_, d: Double) => !d.isNaN && !d.isInfinite; case _ => true }
    if (last.nonEmpty) out.println(Json.write(Json.Obj("metrics" -> Json.Obj(last: _*))))
    out.flush()
    System.err.flush()
    Runtime.getRuntime.halt(0)
  }

  def runtime: String =
    "Scala " + scala.util.Properties.versionNumberString + " with scala.actors on " +
      System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", "?") +
      ", availableProcessors=" + Runtime.getRuntime.availableProcessors
}

/**
 * A small JSON writer (Scala 2.11's library has no supported one): Obj is an object (its fields in order),
 * a Seq an array; strings, Int/Long/Double, Boolean and null.
 */
object Json {
  final case class Obj(fields: (String, Any)*)

  def write(value: Any): String = {
    val sb = new StringBuilder
    write(sb, value)
    sb.toString
  }

  def write(sb: StringBuilder, v: Any): Unit = v match {
    case null => sb.append("null")
    case s: String => quote(sb, s)
    case d: Double => sb.append(if (d.isNaN || d.isInfinite) "null" else d.toString)
    case f: Float => write(sb, f.toDouble)
    case n: Int => sb.append(n)
    case n: Long => sb.append(n)
    case b: Boolean => sb.append(b)
    case o: Obj =>
      sb.append('{')
      var first = true
      for ((k, x) <- o.fields) {
        if (!first) sb.append(", ")
        first = false
        quote(sb, k)
        sb.append(": ")
        write(sb, x)
      }
      sb.append('}')
    case s: Seq[_] =>
      sb.append('[')
      var first = true
      for (x <- s) {
        if (!first) sb.append(", ")
        first = false
        write(sb, x)
      }
      sb.append(']')
    case other => throw new IllegalArgumentException("no JSON form for " + other.getClass)
  }

  /** A JSON string: quotes, backslashes and control characters escaped, non-ASCII as \\uXXXX (so lone surrogates stay valid). */
  def quote(sb: StringBuilder, s: String): Unit = {
    sb.append('"')
    for (c <- s) c match {
      case '"' => sb.append("\\\"")
      case '\\' => sb.append("\\\\")
      case '\n' => sb.append("\\n")
      case '\r' => sb.append("\\r")
      case '\t' => sb.append("\\t")
      case '\b' => sb.append("\\b")
      case '\f' => sb.append("\\f")
      case _ =>
        if (c < 0x20 || c >= 0x7f) sb.append("\\u%04x".format(c.toInt))
        else sb.append(c)
    }
    sb.append('"')
  }
}

/**
 * What the scala.actors scheduler really used: the width of its pool (ForkJoinScheduler's initCoreSize,
 * which ThreadPoolConfig sets to max(4, 2 * availableProcessors) unless -Dactors.corePoolSize says
 * otherwise) and the most pool threads seen alive at the end of an iteration (a snapshot taken after the
 * timer stops, before the actors are stopped).
 */
object ActorPool {
  @volatile private var width = -1
  @volatile private var peak = 0

  def snapshot(): Unit = {
    scala.actors.Scheduler.impl match {
      case f: scala.actors.scheduler.ForkJoinScheduler => width = f.initCoreSize
      case _ =>
    }
    import scala.collection.JavaConverters._
    val alive = Thread.getAllStackTraces.keySet.asScala.count(_.getName.startsWith("ForkJoinPool"))
    if (alive > peak) peak = alive
  }

  def metrics(): Seq[(String, Any)] = Seq("scheduler_parallelism" -> width, "scheduler_threads" -> peak)
}
