package concbench

import java.io.{FileDescriptor, FileOutputStream, PrintStream}
import scala.collection.mutable

/** Bad usage: one line on stderr, exit status 2, nothing on stdout. */
final class UsageError(message: String) extends Exception(message)

/** One timed iteration: the kernel's time, its result string, the metrics it produced (Int, Long or Double). */
final case class Outcome(ns: Long, result: String, metrics: Seq[(String, Any)])

/** A benchmark with its parameters checked, ready to run iterations. */
trait Bench {
  def iterate(): Outcome
}

/** The protocol's command line: <benchmark> --model M --param P --iterations K [--workers W] [--option k=v]... */
final class Args(val benchmark: String, val model: String, val param: String, val iterations: Int, val workers: Int,
                 val options: Map[String, String]) {
  def option(key: String, default: String): String = options.getOrElse(key, default)
}

object Args {
  def parse(argv: Array[String]): Args = {
    if (argv.isEmpty)
      throw new UsageError("usage: <benchmark> --model <model> --param <value> --iterations <k> [--workers <w>] [--option key=value]...")
    if (argv(0).startsWith("-")) throw new UsageError("the first argument must be the benchmark, got '" + argv(0) + "'")
    var model: String = null
    var param: String = null
    var iterations: String = null
    var workers: String = null
    val options = mutable.LinkedHashMap[String, String]()
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
          options(value.substring(0, eq)) = value.substring(eq + 1)
      }
      i += 2
    }
    if (model == null) throw new UsageError("missing --model")
    if (param == null) throw new UsageError("missing --param")
    if (iterations == null) throw new UsageError("missing --iterations")
    val w = if (workers == null) Runtime.getRuntime.availableProcessors else positive("--workers", workers)
    new Args(argv(0), model, param, positive("--iterations", iterations), w, options.toMap)
  }

  /** A decimal integer ≥ 0 that fits in an Int. */
  def nonNegative(what: String, text: String): Int = {
    if (text.isEmpty || text.length > 10 || !text.forall(c => c >= '0' && c <= '9'))
      throw new UsageError("malformed " + what + ": '" + text + "'")
    val v = text.toLong
    if (v > Int.MaxValue) throw new UsageError(what + " is too large: '" + text + "'")
    v.toInt
  }

  /** A decimal integer ≥ 1 that fits in an Int. */
  def positive(what: String, text: String): Int = {
    val v = nonNegative(what, text)
    if (v < 1) throw new UsageError(what + " must be at least 1, got '" + text + "'")
    v
  }
}

/**
 * concbench-scala: the protocol driver. The whole command line is checked before anything is printed;
 * then hello, one line per timed iteration, and the metrics of the last iteration. System.out (and so
 * Scala's Console) is pointed at stderr, so that only protocol lines reach stdout.
 */
object Main {
  /** Models, and for each the benchmarks it serves with their shapes, faithful first (as in impl.toml). */
  val models: Map[String, Map[String, Seq[String]]] = Map(
    "actors" -> Map("big" -> Seq("actor"), "chameneos" -> Seq("message"), "fannkuch" -> Seq("pull", "actor-per-task")),
    "threads" -> Map("chameneos" -> Seq("rendezvous"), "fannkuch" -> Seq("counter")))
  val optionKeys: Seq[(String, Seq[String])] = Seq(
    "big" -> Seq("shape", "pings", "hood"),
    "chameneos" -> Seq("shape", "variant", "meetings"),
    "fannkuch" -> Seq("shape", "chunks"))

  def main(argv: Array[String]): Unit = {
    val out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8")
    System.setOut(System.err)
    Console.setOut(System.err)
    var args: Args = null
    var bench: Bench = null
    try {
      args = Args.parse(argv)
      bench = create(args)
    } catch {
      case e: UsageError =>
        System.err.println("concbench-scala: " + e.getMessage)
        System.err.flush()
        Runtime.getRuntime.halt(2)
    }
    out.println("{\"hello\": {\"protocol\": 1, \"language\": \"scala\", \"runtime\": " + quote(runtime) +
      ", \"model\": " + quote(args.model) + "}}")
    out.flush()
    var last: Seq[(String, Any)] = Nil
    try {
      var i = 0
      while (i < args.iterations) {
        val o = bench.iterate()
        out.println("{\"iteration\": " + i + ", \"ns\": " + o.ns + ", \"result\": " + quote(o.result) + "}")
        out.flush()
        last = o.metrics
        i += 1
      }
    } catch {
      case t: Throwable =>
        System.err.println("concbench-scala: " + args.benchmark + " failed: " + t)
        System.err.flush()
        out.flush()
        Runtime.getRuntime.halt(1)
    }
    if (args.model == "actors") last = last ++ ActorPool.metrics()
    if (last.nonEmpty) out.println("{\"metrics\": " + metricsJson(last) + "}")
    out.flush()
    System.err.flush()
    Runtime.getRuntime.halt(0)
  }

  def create(a: Args): Bench = {
    val keys = optionKeys.toMap.getOrElse(a.benchmark,
      throw new UsageError("unknown benchmark '" + a.benchmark + "' (known: " + optionKeys.map(_._1).mkString(", ") + ")"))
    val served = models.getOrElse(a.model,
      throw new UsageError("unknown model '" + a.model + "' (known: " + models.keys.toSeq.sorted.mkString(", ") + ")"))
    val shapes = served.getOrElse(a.benchmark, throw new UsageError("model '" + a.model + "' does not serve " + a.benchmark))
    for (key <- a.options.keys if !keys.contains(key))
      throw new UsageError("unknown option '" + key + "' for " + a.benchmark + " (known: " + keys.mkString(", ") + ")")
    val shape = a.option("shape", shapes.head)
    if (!shapes.contains(shape))
      throw new UsageError("unknown shape '" + shape + "' for " + a.benchmark + " in model " + a.model +
        " (known: " + shapes.mkString(", ") + ")")
    a.benchmark match {
      case "big" => Big.create(a)
      case "chameneos" => Chameneos.create(a, shape)
      case _ => Fannkuch.create(a, shape)
    }
  }

  def runtime: String =
    "Scala " + scala.util.Properties.versionNumberString + " with scala.actors on " +
      System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", "?") +
      ", availableProcessors=" + Runtime.getRuntime.availableProcessors

  def metricsJson(m: Seq[(String, Any)]): String =
    m.map { case (k, v) =>
      val text = v match {
        case d: Double => if (d.isNaN || d.isInfinite) "0" else d.toString
        case x => x.toString
      }
      quote(k) + ": " + text
    }.mkString("{", ", ", "}")

  def quote(s: String): String = {
    val sb = new StringBuilder("\"")
    for (c <- s) {
      if (c == '"' || c == '\\') sb.append('\\').append(c)
      else if (c < 0x20) sb.append("\\u%04x".format(c.toInt))
      else sb.append(c)
    }
    sb.append('"').toString
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
