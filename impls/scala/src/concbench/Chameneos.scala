package concbench

import java.util.concurrent.ArrayBlockingQueue
import java.util.concurrent.CountDownLatch
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.locks.LockSupport
import scala.actors.Actor
import scala.collection.mutable.ArrayBuffer

/**
 * chameneos in two forms.
 *
 * Shape "message" (model actors): one scala.actors actor per creature and one for the meeting place,
 * all sends with `!` (the thesis's pseudo-code): a creature sends Request(self, id, colour); the place
 * pairs two requests, sends Meet(partner id, new colour) to the requester and then to the waiting
 * creature, and refuses every request after the M-th meeting with Stop; the creature then reports
 * (meetings, self-meetings, colour) and ends. variant=encore: the place holds the requests until it
 * has all C first ones (the start gate), then handles them in arrival order. variant=redux: game A
 * (3 creatures) then game B (10 creatures), no gate.
 *
 * Shape "rendezvous" (model threads): one java.lang.Thread per creature calling the meeting place's
 * `synchronized` meet; the first arrival wait()s on the place's monitor until its partner has written
 * the answer into it and notify()d. variant=encore starts behind a latch that every creature reaches
 * before any meets.
 *
 * Shape "exchange" (model threads; not a study's program but an improved version, issue 26): the same creature threads, the
 * place one AtomicLong (meetings left, and the waiting creature) changed by compare-and-set; the first
 * arrival spins briefly on its own volatile answer where another CPU can run its partner, then parks, and
 * the partner unparks it only when it found it parked.
 *
 * Shape "best-dispatch" (model threads; not a study's program, issue 26): creatures are tasks, not threads
 * (the technique of the Benchmarks Game's Java and Scala programs, written here from it). As many dispatcher
 * threads as creatures take ready creatures from one queue, whichever comes, and bring each to a place of
 * one AtomicLong, as exchange's; a first arrival does not wait but stays in the word while its thread
 * takes the next creature, and the arrival that finds it completes the meeting for both and queues both
 * again. No meeting waits for a particular thread to be scheduled, so nothing spins or parks per meeting
 * where the cores are few or stall (a VM's).
 */
object Chameneos {
  val TEN: Array[Int] = Array(0, 1, 2, 1, 2, 0, 1, 2, 1, 0) // blue=0, red=1, yellow=2

  def complement(a: Int, b: Int): Int = if (a == b) a else 3 - a - b

  /** The outcome of one game: the place's count, and what the creatures reported. */
  final class Game(val placeMeetings: Int, val counts: Array[Int], val selfMeetings: Long, val colourSum: Int) {
    def creatureMeetings: Long = counts.foldLeft(0L)(_ + _)
  }

  /** What a creature of the threads model counts for its game's outcome. */
  trait Tally {
    def count: Int
    def selfMeetings: Int
    def colour: Int
  }

  object Game {
    def of(placeMeetings: Int, creatures: Array[_ <: Tally]): Game =
      new Game(placeMeetings, creatures.map(_.count), creatures.map(_.selfMeetings.toLong).sum, creatures.map(_.colour).sum)
  }

  /** variant=encore: the creature count C must lie in [2, MaxCreatures] (a thread or an actor per creature). */
  val MaxCreatures: Long = 100000

  def create(r: Request): Bench =
    if (r.option("variant") == "redux") bench(r.shape, redux = true, 0, r.paramInt.toInt) // option meetings is ignored
    else {
      val c = r.paramInt
      if (c < 2 || c > MaxCreatures)
        throw new UsageError("--param: variant=encore needs C from 2 to " + MaxCreatures + ", got '" + r.param + "'")
      bench(r.shape, redux = false, c.toInt, r.intOption("meetings").toInt)
    }

  /** Encore: one game of c creatures and m meetings behind the start gate. Redux: m meetings with 3, then with 10. */
  def bench(shape: String, redux: Boolean, c: Int, m: Int): Bench = {
    val play: (Int, Int, Boolean) => Game = shape match {
      case "message" => Message.play
      case "exchange" => Rendezvous.play(exchange = true)
      case "best-dispatch" => Dispatch.play
      case _ => Rendezvous.play(exchange = false)
    }
    new Bench {
      def iterate(): Outcome =
        if (!redux) {
          val t0 = System.nanoTime
          val g = play(c, m, true)
          val ns = System.nanoTime - t0
          if (shape == "message") ActorPool.snapshot()
          Outcome(ns, "meetings=" + g.placeMeetings + " creature_meetings=" + g.creatureMeetings,
            fairness(g, m, "") :+ ("self_meetings" -> g.selfMeetings))
        } else {
          val t0 = System.nanoTime
          val ga = play(3, m, false)
          val gb = play(10, m, false)
          val ns = System.nanoTime - t0
          if (shape == "message") ActorPool.snapshot()
          Outcome(ns, "meetings3=" + ga.placeMeetings + " creature_meetings3=" + ga.creatureMeetings +
            " meetings10=" + gb.placeMeetings + " creature_meetings10=" + gb.creatureMeetings,
            Seq("self_meetings" -> (ga.selfMeetings + gb.selfMeetings)) ++ fairness(ga, m, "_3") ++ fairness(gb, m, "_10"))
        }
    }
  }

  /** The metrics of one game (chameneos.md, Extra metrics); for redux suffixed with _3 and _10. */
  def fairness(g: Game, m: Int, suffix: String): Seq[(String, Any)] = {
    val c = g.counts.length
    val mean = 2.0 * m / c
    val std = math.sqrt(g.counts.map(k => (k - mean) * (k - mean)).sum / c)
    // No meetings: no coefficient of variation, so none is reported (docs/describe.md).
    Seq("fairness_std" + suffix -> std) ++ (if (mean > 0) Seq("cv" + suffix -> std / mean) else Nil) ++
      Seq("min_meetings" + suffix -> g.counts.min, "max_meetings" + suffix -> g.counts.max,
        "colour_sum_mod3" + suffix -> g.colourSum % 3)
  }

  object Message {
    final case class Request(creature: Creature, id: Int, colour: Int)
    final case class Meet(partner: Int, colour: Int)
    case object Stop
    final case class Report(meetings: Int, selfMeetings: Int, colour: Int)

    final class Creature(id: Int, private var colour: Int, place: Place) extends Actor {
      private var count = 0
      private var selfMeet = 0
      def act(): Unit = {
        place ! Request(this, id, colour)
        loop {
          react {
            case Meet(partner, c) =>
              count += 1
              if (partner == id) selfMeet += 1
              colour = c
              place ! Request(this, id, colour)
            case Stop =>
              place ! Report(count, selfMeet, colour)
              exit()
          }
        }
      }
    }

    final class Place(creatures: Int, limit: Int, gated: Boolean, done: CountDownLatch) extends Actor {
      var meetings = 0
      private var waiting: Request = null
      private var open = !gated
      private val held = new ArrayBuffer[Request]
      private var reports = 0
      val counts = new ArrayBuffer[Int]
      var selfMeetings = 0L
      var colourSum = 0

      private def request(r: Request): Unit =
        if (meetings == limit) r.creature ! Stop
        else if (waiting == null) waiting = r
        else {
          val w = waiting
          waiting = null
          meetings += 1
          val nc = complement(r.colour, w.colour)
          r.creature ! Meet(w.id, nc)
          w.creature ! Meet(r.id, nc)
        }

      def act(): Unit = loop {
        react {
          case r: Request =>
            if (open) request(r)
            else {
              held += r
              if (held.size == creatures) { open = true; held.foreach(request); held.clear() }
            }
          case Report(k, s, c) =>
            counts += k
            selfMeetings += s
            colourSum += c
            reports += 1
            if (reports == creatures) { done.countDown(); exit() }
        }
      }
    }

    def play(c: Int, m: Int, gated: Boolean): Game = {
      val done = new CountDownLatch(1)
      val place = new Place(c, m, gated, done)
      place.start()
      var i = 0
      while (i < c) { new Creature(i, TEN(i % 10), place).start(); i += 1 }
      done.await()
      new Game(place.meetings, place.counts.toArray, place.selfMeetings, place.colourSum)
    }
  }

  /** The word of the exchange and dispatch places: meetings left (high half) and the staying creature's id + 1
   * (low half), changed by compare-and-set only. A creature staying is always met while meetings are left, so
   * none stays once none are. */
  final class Word(total: Int) {
    private val state = new AtomicLong(total.toLong << 32)

    def meetings: Int = total - (state.get >>> 32).toInt

    /** Word.Refused (no meeting left), Word.Staying (to be met), or the id of the creature it met. */
    @annotation.tailrec
    def arrive(id: Int): Int = {
      val s = state.get
      val left = s >>> 32
      val staying = s.toInt - 1
      if (staying < 0) {
        if (left == 0) Word.Refused
        else if (state.compareAndSet(s, (left << 32) | (id + 1))) Word.Staying
        else arrive(id)
      } else if (state.compareAndSet(s, (left - 1) << 32)) staying
      else arrive(id)
    }
  }

  object Word {
    final val Refused = -2
    final val Staying = -1
  }

  object Dispatch {
    /** A creature as a task: its colour and counts, changed only by the thread that completes its meeting. */
    final class Creature(val id: Int, var colour: Int) extends Tally {
      var count = 0
      var selfMeetings = 0

      def met(partner: Int, nc: Int): Unit = {
        count += 1
        if (partner == id) selfMeetings += 1
        colour = nc
      }
    }

    /** The creatures' queue, the place's Word and the dispatcher threads of one game. */
    final class Dispatcher(creatures: Array[Creature], total: Int) {
      private val word = new Word(total)
      private val ready = new ArrayBlockingQueue[Creature](creatures.length)
      private val refused = new CountDownLatch(creatures.length)

      /** The place's meetings. Every creature is ready before a dispatcher starts: the encore gate holds. */
      def play(): Int = {
        creatures.foreach(ready.add)
        val threads = Array.tabulate(creatures.length)(i => new Thread(new Runnable { def run(): Unit = dispatch() }, "dispatcher-" + i))
        threads.foreach(_.start())
        refused.await() // every creature came back once no meeting was left
        threads.foreach(_.interrupt())
        threads.foreach(_.join())
        word.meetings
      }

      private def dispatch(): Unit =
        try { while (true) arrive(ready.take()) } catch { case _: InterruptedException => } // the game is over

      /** One creature at the place: it stays there (in the word), meets the one staying, or is refused. */
      private def arrive(c: Creature): Unit = word.arrive(c.id) match {
        case Word.Refused => refused.countDown()
        case Word.Staying =>
        case met =>
          val w = creatures(met)
          val nc = complement(c.colour, w.colour)
          w.met(c.id, nc)
          c.met(w.id, nc)
          ready.add(w) // the queue publishes what this thread wrote to both
          ready.add(c)
      }
    }

    def play(c: Int, m: Int, gated: Boolean): Game = {
      val creatures = Array.tabulate(c)(i => new Creature(i, TEN(i % 10)))
      val meetings = new Dispatcher(creatures, m).play()
      Game.of(meetings, creatures)
    }
  }

  object Rendezvous {
    final class Creature(val id: Int, var colour: Int, gate: CountDownLatch) extends Runnable with Tally {
      var place: Place = null
      var count = 0
      var selfMeetings = 0
      // Written by the partner inside the place's monitor (in the exchange place, before the volatile
      // `answered`), read by this creature after meet returns.
      var met = false
      var partner = 0
      var newColour = 0
      // The exchange place: the partner's answer, whether this creature parked, and its thread to unpark.
      @volatile var answered = false
      @volatile var parked = false
      var thread: Thread = null

      def run(): Unit = {
        if (gate != null) { gate.countDown(); gate.await() }
        while (place.meet(this)) {
          count += 1
          if (partner == id) selfMeetings += 1
          colour = newColour
        }
      }
    }

    /** The meeting place: one request, true after a meeting (the answer is in c's fields), false when refused. */
    trait Place {
      def meet(c: Creature): Boolean
      def meetings: Int
    }

    /** rendezvous: the place's monitor, the first arrival waiting on it. */
    final class MonitorPlace(private var left: Int) extends Place {
      var meetings = 0
      private var waiting: Creature = null

      def meet(c: Creature): Boolean = synchronized {
        if (left == 0) false
        else if (waiting == null) {
          waiting = c
          c.met = false
          while (!c.met) wait()
          true
        } else {
          val w = waiting
          waiting = null
          left -= 1
          meetings += 1
          val nc = complement(c.colour, w.colour)
          c.partner = w.id
          c.newColour = nc
          w.partner = c.id
          w.newColour = nc
          w.met = true
          notify()
          true
        }
      }
    }

    /** Spins before parking, where another CPU can run the partner meanwhile (on one CPU, none). */
    val Spins: Int = if (Runtime.getRuntime.availableProcessors > 1) 2000 else 0

    /** exchange: the place is one Word; the first arrival waits on its own answer. */
    final class ExchangePlace(total: Int, creatures: Array[Creature]) extends Place {
      private val word = new Word(total)

      def meetings: Int = word.meetings

      def meet(c: Creature): Boolean = word.arrive(c.id) match {
        case Word.Refused => false
        case Word.Staying => await(c); true
        case met =>
          val w = creatures(met)
          val nc = complement(c.colour, w.colour)
          c.partner = w.id
          c.newColour = nc
          w.partner = c.id
          w.newColour = nc
          w.answered = true // the volatile write publishes w's fields
          if (w.parked) LockSupport.unpark(w.thread)
          true
      }

      /** The first arrival's wait: spin, then park until answered. */
      private def await(c: Creature): Unit = {
        var i = 0
        while (i < Spins && !c.answered) { Thread.onSpinWait(); i += 1 }
        if (!c.answered) {
          c.parked = true // then `answered` is read again: a partner that saw parked false has set it
          while (!c.answered) LockSupport.park(c)
          c.parked = false
        }
        c.answered = false
      }
    }

    def play(exchange: Boolean)(c: Int, m: Int, gated: Boolean): Game = {
      val gate = if (gated) new CountDownLatch(c) else null
      val creatures = Array.tabulate(c)(i => new Creature(i, TEN(i % 10), gate))
      val place = if (exchange) new ExchangePlace(m, creatures) else new MonitorPlace(m)
      val threads = creatures.map { cr => cr.place = place; cr.thread = new Thread(cr, "creature-" + cr.id); cr.thread }
      threads.foreach(_.start())
      threads.foreach(_.join())
      Game.of(place.meetings, creatures)
    }
  }
}
