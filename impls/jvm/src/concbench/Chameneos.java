package concbench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * chameneos, shape "rendezvous": one Java thread per creature, all calling the meeting place's
 * synchronized meet(). The first arrival records itself as the waiting creature and wait()s on the
 * place's monitor until a partner has filled in its answer; the partner completes the meeting
 * (complement colour, meeting count) and notify()s. Once the meetings are used up every call returns
 * "stop". Creatures count their own meetings. variant=encore runs one game of C creatures behind a
 * start latch (every creature arrives at the latch before any meets); variant=redux runs game A (3
 * creatures) and then game B (10 creatures), each with n meetings and no latch.
 *
 * Shape "exchange" (not a study's program; an improved version, issue 26): the same creature threads, the place one
 * AtomicLong (meetings left, and the waiting creature) changed by compare-and-set, so no monitor is held;
 * the first arrival spins briefly on its own volatile answer where another CPU can run its partner, then
 * parks, and the partner unparks it only when it found it parked.
 *
 * Shape "best-dispatch" (not a study's program; issue 26): creatures are tasks, not threads (the technique
 * of the Benchmarks Game's Java program, written here from it). As many dispatcher threads as creatures
 * take ready creatures from one queue, whichever comes, and bring each to a place of one AtomicLong, as
 * exchange's; but a first arrival does not wait: it stays in the word, and its thread takes the
 * next creature. The arrival that finds it completes the meeting for both and queues both again, so no
 * meeting waits for a particular thread to be scheduled: where the cores are few or stall (a VM's),
 * nothing spins and nothing parks per meeting. (One dispatcher per core measured slower on two cores:
 * the two contend on the queue and the place without ever blocking.)
 */
final class Chameneos implements Driver.Bench {
    static final int[] TEN = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};   // blue=0, red=1, yellow=2

    static int complement(int a, int b) {
        return a == b ? a : 3 - a - b;
    }

    /** The shapes this model serves, the faithful one first (Main serves them in this order). */
    enum Shape {
        RENDEZVOUS("rendezvous"), EXCHANGE("exchange"), DISPATCH("best-dispatch");

        final String label;

        Shape(String label) {
            this.label = label;
        }

        static Shape named(String label) {
            for (Shape shape : values()) if (shape.label.equals(label)) return shape;
            throw new IllegalArgumentException(label);
        }

        static List<String> labels() {
            return Arrays.stream(values()).map(shape -> shape.label).toList();
        }
    }

    private final boolean redux;
    private final int creatures;
    private final int meetings;
    private final Shape shape;

    /** variant=encore: the creature count C must lie in [2, MAX_CREATURES] (one thread per creature). */
    static final int MAX_CREATURES = 100_000;

    Chameneos(boolean redux, int creatures, int meetings) {
        this(redux, creatures, meetings, Shape.RENDEZVOUS);
    }

    Chameneos(boolean redux, int creatures, int meetings, Shape shape) {
        this.redux = redux;
        this.creatures = creatures;
        this.meetings = meetings;
        this.shape = shape;
    }

    static Chameneos create(Driver.Request r) throws Driver.UsageError {
        Shape shape = Shape.named(r.shape);
        if (r.option("variant").equals("redux")) {
            return new Chameneos(true, 0, (int) r.paramInt(), shape);    // n meetings per game; option meetings is ignored
        }
        long c = r.paramInt();
        if (c < 2 || c > MAX_CREATURES) {
            throw new Driver.UsageError("--param: variant=encore needs C from 2 to " + MAX_CREATURES + ", got '" + r.param + "'");
        }
        return new Chameneos(false, (int) c, (int) r.intOption("meetings"), shape);
    }

    static final class Creature implements Runnable {
        final int id;
        final Place place;
        final CountDownLatch gate;
        int colour;
        int count;
        int selfMeetings;
        // Written by the partner inside the place's monitor (in the exchange place, before the volatile
        // `answered`), read by this creature after meet() returns.
        boolean met;
        int partnerId;
        int newColour;
        // The exchange place: the partner's answer, whether this creature parked, and its thread to unpark.
        volatile boolean answered;
        volatile boolean parked;
        Thread thread;

        Creature(int id, int colour, Place place, CountDownLatch gate) {
            this.id = id;
            this.colour = colour;
            this.place = place;
            this.gate = gate;
        }

        /** A meeting with `partner`, both taking colour `nc` (best-dispatch: the creature is a task). */
        void met(int partner, int nc) {
            count++;
            if (partner == id) selfMeetings++;
            colour = nc;
        }

        @Override
        public void run() {
            try {
                if (gate != null) {
                    gate.countDown();
                    gate.await();
                }
                while (place.meet(this)) {
                    count++;
                    if (partnerId == id) selfMeetings++;
                    colour = newColour;
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The meeting place: one request, true after a meeting (the answer is in c's fields), false when refused. */
    interface Place {
        boolean meet(Creature c) throws InterruptedException;

        int meetings();
    }

    /** rendezvous: the place's monitor, the first arrival waiting on it. */
    static final class MonitorPlace implements Place {
        private int left;
        int meetings;
        private Creature waiting;

        MonitorPlace(int left) {
            this.left = left;
        }

        @Override
        public int meetings() {
            return meetings;
        }

        @Override
        public synchronized boolean meet(Creature c) throws InterruptedException {
            if (left == 0) return false;
            if (waiting == null) {
                waiting = c;
                c.met = false;
                while (!c.met) wait();
                return true;
            }
            Creature w = waiting;
            waiting = null;
            left--;
            meetings++;
            int nc = complement(c.colour, w.colour);
            c.partnerId = w.id;
            c.newColour = nc;
            w.partnerId = c.id;
            w.newColour = nc;
            w.met = true;
            notify();
            return true;
        }
    }

    /**
     * The word of the exchange and dispatch places: meetings left (high half) and the staying creature's
     * id + 1 (low half), changed by compare-and-set only. A creature staying is always met while meetings are
     * left, so none stays once none are.
     */
    static final class Word {
        static final int REFUSED = -2;   // what arrive() returns: no meeting is left
        static final int STAYING = -1;   // ... the creature stays, to be met; else the id of the one it met

        private final int total;
        private final AtomicLong state;

        Word(int meetings) {
            total = meetings;
            state = new AtomicLong((long) meetings << 32);
        }

        int meetings() {
            return total - (int) (state.get() >>> 32);
        }

        int arrive(int id) {
            while (true) {
                long s = state.get();
                long left = s >>> 32;
                int staying = (int) s - 1;
                if (staying < 0) {
                    if (left == 0) return REFUSED;
                    if (state.compareAndSet(s, (left << 32) | (id + 1))) return STAYING;
                } else if (state.compareAndSet(s, (left - 1) << 32)) {
                    return staying;
                }
            }
        }
    }

    /** exchange: the place is one Word; the first arrival waits on its own answer. */
    static final class ExchangePlace implements Place {
        /** Spins before parking, where another CPU can run the partner meanwhile (on one CPU, none). */
        static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 2000 : 0;

        private final Word word;
        private final Creature[] creatures;

        ExchangePlace(int left, Creature[] creatures) {
            word = new Word(left);
            this.creatures = creatures;
        }

        @Override
        public int meetings() {
            return word.meetings();
        }

        @Override
        public boolean meet(Creature c) {
            int met = word.arrive(c.id);
            if (met == Word.REFUSED) return false;
            if (met == Word.STAYING) {
                await(c);
                return true;
            }
            Creature w = creatures[met];
            int nc = complement(c.colour, w.colour);
            c.partnerId = w.id;
            c.newColour = nc;
            w.partnerId = c.id;
            w.newColour = nc;
            w.answered = true;   // the volatile write publishes w's fields
            if (w.parked) LockSupport.unpark(w.thread);
            return true;
        }

        /** The first arrival's wait: spin, then park until met. */
        private static void await(Creature c) {
            for (int i = 0; i < SPINS && !c.answered; i++) Thread.onSpinWait();
            if (!c.answered) {
                c.parked = true;             // then `answered` is read again: a partner that saw parked false has set it
                while (!c.answered) LockSupport.park(c);
                c.parked = false;
            }
            c.answered = false;
        }
    }

    /** The outcome of one game, read after every creature thread (or dispatcher) has been joined. */
    static final class Game {
        int placeMeetings;
        long creatureMeetings;
        long selfMeetings;
        int colourSum;
        int[] counts;

        static Game of(Creature[] cs, int placeMeetings) {
            Game g = new Game();
            g.placeMeetings = placeMeetings;
            g.counts = new int[cs.length];
            for (int i = 0; i < cs.length; i++) {
                g.counts[i] = cs[i].count;
                g.creatureMeetings += cs[i].count;
                g.selfMeetings += cs[i].selfMeetings;
                g.colourSum += cs[i].colour;
            }
            return g;
        }
    }

    /** best-dispatch: the creatures' queue, the place's Word and the dispatcher threads. */
    static final class Dispatch {
        private final Creature[] creatures;
        private final Word word;
        private final ArrayBlockingQueue<Creature> ready;
        private final CountDownLatch refused;

        Dispatch(Creature[] creatures, int m) {
            this.creatures = creatures;
            word = new Word(m);
            ready = new ArrayBlockingQueue<>(creatures.length);
            refused = new CountDownLatch(creatures.length);
        }

        /** Plays the game and returns the place's meetings. Every creature is ready before a dispatcher starts,
         * so the encore gate holds as it does for threads. */
        int play() throws InterruptedException {
            for (Creature c : creatures) ready.add(c);
            Thread[] threads = new Thread[creatures.length];
            for (int i = 0; i < threads.length; i++) {
                threads[i] = new Thread(this::dispatch, "dispatcher-" + i);
                threads[i].start();
            }
            refused.await();   // every creature came back once no meeting was left
            for (Thread t : threads) t.interrupt();
            for (Thread t : threads) t.join();
            return word.meetings();
        }

        private void dispatch() {
            try {
                while (true) arrive(ready.take());
            } catch (InterruptedException e) {
                // the game is over
            }
        }

        /** One creature at the place: it stays there (in the word), meets the one staying, or is refused. */
        private void arrive(Creature c) {
            int met = word.arrive(c.id);
            if (met == Word.REFUSED) {
                refused.countDown();
            } else if (met != Word.STAYING) {
                Creature w = creatures[met];
                int nc = complement(c.colour, w.colour);
                w.met(c.id, nc);
                c.met(w.id, nc);
                ready.add(w);   // the queue publishes what this thread wrote to both
                ready.add(c);
            }
        }
    }

    static Game dispatched(int c, int m) throws InterruptedException {
        Creature[] cs = new Creature[c];
        for (int i = 0; i < c; i++) cs[i] = new Creature(i, TEN[i % 10], null, null);
        return Game.of(cs, new Dispatch(cs, m).play());
    }

    /** Runs one game; the caller times it. */
    static Game play(int c, int m, boolean gated, Shape shape) throws InterruptedException {
        if (shape == Shape.DISPATCH) return dispatched(c, m);
        boolean exchange = shape == Shape.EXCHANGE;
        Creature[] cs = new Creature[c];
        Place place = exchange ? new ExchangePlace(m, cs) : new MonitorPlace(m);
        CountDownLatch gate = gated ? new CountDownLatch(c) : null;
        Thread[] threads = new Thread[c];
        for (int i = 0; i < c; i++) {
            cs[i] = new Creature(i, TEN[i % 10], place, gate);
            threads[i] = new Thread(cs[i], "creature-" + i);
            cs[i].thread = threads[i];
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        return Game.of(cs, place.meetings());
    }

    /** The fairness metrics of one game (chameneos.md, Extra metrics), names suffixed with _3 and _10 for redux. */
    static void fairness(Map<String, Number> out, Game g, long m, String suffix) {
        int c = g.counts.length;
        double mean = 2.0 * m / c;
        double sq = 0;
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (int k : g.counts) {
            sq += (k - mean) * (k - mean);
            min = Math.min(min, k);
            max = Math.max(max, k);
        }
        double std = Math.sqrt(sq / c);
        out.put("fairness_std" + suffix, std);
        if (mean > 0) {   // no meetings: no coefficient of variation, so none is reported (docs/describe.md)
            out.put("cv" + suffix, std / mean);
        }
        out.put("min_meetings" + suffix, min);
        out.put("max_meetings" + suffix, max);
        out.put("colour_sum_mod3" + suffix, g.colourSum % 3);
    }

    @Override
    public Driver.Outcome iterate() throws Exception {
        Map<String, Number> metrics = new LinkedHashMap<>();
        if (!redux) {
            long t0 = System.nanoTime();
            Game g = play(creatures, meetings, true, shape);
            long ns = System.nanoTime() - t0;
            fairness(metrics, g, meetings, "");
            metrics.put("self_meetings", g.selfMeetings);
            return new Driver.Outcome(ns, "meetings=" + g.placeMeetings + " creature_meetings=" + g.creatureMeetings, metrics);
        }
        long t0 = System.nanoTime();
        Game a = play(3, meetings, false, shape);
        Game b = play(10, meetings, false, shape);
        long ns = System.nanoTime() - t0;
        metrics.put("self_meetings", a.selfMeetings + b.selfMeetings);
        fairness(metrics, a, meetings, "_3");
        fairness(metrics, b, meetings, "_10");
        return new Driver.Outcome(ns, "meetings3=" + a.placeMeetings + " creature_meetings3=" + a.creatureMeetings
                + " meetings10=" + b.placeMeetings + " creature_meetings10=" + b.creatureMeetings, metrics);
    }
}
