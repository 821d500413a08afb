package concbench

import java.util.concurrent.CountDownLatch
import scala.actors.Actor

/**
 * big with scala.actors, in the manner of the Savina Scala program the thesis adapted: one actor per
 * worker and one sink actor, every send fire-and-forget with `!`, handlers written as `loop { react }`
 * on the default scheduler. Ping and Pong carry the sender's local id; a worker answers a ping through
 * its neighbourhood's table. Neighbour tables: one immutable array per neighbourhood shared by its
 * workers (big.md pitfall 5). The sink counts Exit messages and opens a latch for the timer when it has
 * all N. After that the counters are read directly (the system is quiescent) and the actors are stopped.
 */
object Big {
  val START: Int = -1

  final case class Ping(from: Int)
  final case class Pong(from: Int)
  case object Exit
  case object Stop

  final class Done {
    val latch = new CountDownLatch(1)
    @volatile var error: String = null
    def fail(why: String): Unit = { if (error == null) error = why; latch.countDown() }
  }

  final class Sink(workers: Int, done: Done) extends Actor {
    private var exits = 0
    def act(): Unit = loop {
      react {
        case Exit =>
          exits += 1
          if (exits == workers) done.latch.countDown()
        case Stop => exit()
      }
    }
  }

  final class Worker(w: Int, j: Int, pings: Int, sink: Sink, done: Done) extends Actor {
    var table: Array[Worker] = null
    private var rng: Int = w // LCG32 seeded with the worker number
    private var expected = START
    private var sent = 0
    var pingsRecv = 0L
    var pongsRecv = 0L

    def act(): Unit = loop {
      react {
        case Ping(from) =>
          pingsRecv += 1
          table(from) ! Pong(j)
        case Pong(from) =>
          if (from != expected) done.fail("WrongPinger: worker " + w + " expected " + expected + ", got " + from)
          else {
            if (from != START) pongsRecv += 1
            if (sent == pings) sink ! Exit
            else {
              rng = 1664525 * rng + 1013904223 // mod 2^32 by Int wrap-around
              val t = Integer.remainderUnsigned(rng, table.length)
              expected = t
              sent += 1
              table(t) ! Ping(j)
            }
          }
        case Stop => exit()
      }
    }
  }

  /** The most workers --param admits. */
  val MaxWorkers: Long = 100000

  def create(r: Request): Bench = {
    val n = r.paramInt.toInt
    val pings = r.intOption("pings").toInt
    val hood = r.intOption("hood").toInt
    new Bench {
      def iterate(): Outcome = run(n, pings, hood)
    }
  }

  def run(n: Int, pings: Int, hood: Int): Outcome = {
    val done = new Done
    val t0 = System.nanoTime
    val sink = new Sink(n, done)
    val workers = Array.tabulate(n)(w => new Worker(w, w % hood, pings, sink, done))
    var lo = 0
    while (lo < n) {
      val hi = math.min(n.toLong, lo.toLong + hood).toInt
      val table = java.util.Arrays.copyOfRange(workers, lo, hi)
      var w = lo
      while (w < hi) { workers(w).table = table; w += 1 }
      lo = hi
    }
    sink.start()
    workers.foreach(_.start())
    workers.foreach(_ ! Pong(START))
    done.latch.await()
    val ns = System.nanoTime - t0
    ActorPool.snapshot()
    if (done.error != null) throw new IllegalStateException(done.error)
    var messages = 0L
    var checksum = 0L
    var min = Long.MaxValue
    var max = Long.MinValue
    for (w <- 0 until n) {
      val k = workers(w)
      messages += k.pingsRecv + k.pongsRecv
      checksum += k.pingsRecv * (w + 1L) // wraps mod 2^64
      min = math.min(min, k.pingsRecv)
      max = math.max(max, k.pingsRecv)
    }
    workers.foreach(_ ! Stop)
    sink ! Stop
    Outcome(ns, "messages=" + messages + " checksum=" + java.lang.Long.toUnsignedString(checksum),
      Seq("min_recv" -> min, "max_recv" -> max))
  }
}
