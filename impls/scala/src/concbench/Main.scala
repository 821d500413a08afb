package concbench

import java.{util => ju}

/**
 * concbench-scala: Scala's table, what this binary serves. The protocol (describe, the argument checks, hello,
 * iterations, metrics) is the JVM languages' one driver, impls/jvm/src/concbench/Driver.java, compiled into this
 * build. System.out and Scala's Console are pointed at stderr, so that only protocol lines reach stdout.
 */
object Main extends Driver {
  val IntMax: Long = Int.MaxValue
  /** The reason of a bound at Int.MaxValue: the kernel holds the value in an Int. */
  val AnInt = "a Scala Int"

  /** Models with their one-line descriptions. */
  private val Models = javaMap(Seq(
    "actors" -> ("scala.actors (not Akka), the thesis's actor programs: an actor per worker plus a sink (big), an actor " +
      "per creature plus the meeting place (chameneos), worker actors pulling fannkuch chunks from a manager or one actor per chunk"),
    "threads" -> ("Java threads from Scala, the thesis's thread programs: one thread per creature with a synchronized " +
      "meeting place and wait/notify, a compare-and-set one whose waiter spins, then parks, or creatures as tasks on dispatcher threads (chameneos), one thread per processor taking chunks from an atomic counter (fannkuch)")))

  private def ints(min: Long, max: Long, default: String = null): Domain = Driver.Domain.ints(min, max, default)

  /** A benchmark: the domain of --param, how to create it, and per model its shapes and options. */
  private def benchmark(param: Domain, make: Request => Bench,
                        models: (String, Seq[String], Seq[(String, Domain)])*): Driver.Benchmark = {
    val b = new Driver.Benchmark(param, new Driver.Factory { def create(r: Request): Bench = make(r) })
    for ((model, shapes, options) <- models) b.serve(model, ju.Arrays.asList(shapes: _*), javaMap(options))
    b
  }

  private val Benchmarks = {
    val big = Seq("pings" -> ints(0, IntMax, "16000").because(AnInt),
      "hood" -> ints(1, IntMax, "1000").because(AnInt))
    // --param: C (encore, 2..MaxCreatures, checked in Chameneos.create) or n (redux, 0..); the union here.
    val chameneos = Seq("variant" -> Driver.Domain.values("encore", "encore", "redux"),
      "meetings" -> ints(1, IntMax, "8000000").because(AnInt))
    val fannkuchActors = Seq("chunks" -> ints(1, Fannkuch.MaxChunks, "150").because(
      "actor-per-task starts one actor per task, up to min(chunks, n!) of them"))
    val fannkuchThreads = Seq("chunks" -> ints(1, IntMax, "150").because(AnInt))
    javaMap(Seq(
      "big" -> benchmark(ints(1, Big.MaxWorkers), Big.create, ("actors", Seq("actor"), big)),
      "chameneos" -> benchmark(ints(0, IntMax), Chameneos.create, ("actors", Seq("message"), chameneos),
        ("threads", Seq("rendezvous", "exchange", "best-dispatch"), chameneos)),
      "fannkuch" -> benchmark(ints(3, Fannkuch.MaxN), Fannkuch.create, ("actors", Seq("pull", "actor-per-task"), fannkuchActors),
        ("threads", Seq("counter"), fannkuchThreads))))
  }

  protected def language(): String = "scala"

  protected def models(): ju.Map[String, String] = Models

  protected def benchmarks(): ju.Map[String, Driver.Benchmark] = Benchmarks

  protected def runtime(): String =
    "Scala " + scala.util.Properties.versionNumberString + " with scala.actors on " +
      System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", "?") +
      ", availableProcessors=" + Runtime.getRuntime.availableProcessors

  override protected def runtimeMetrics(request: Request): ju.Map[String, Number] =
    if (request.model == "actors") Outcome.metrics(ActorPool.metrics()) else ju.Collections.emptyMap[String, Number]()

  def main(argv: Array[String]): Unit = {
    Console.setOut(System.err)
    run(argv)
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
