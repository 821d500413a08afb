package concbench;

import java.util.LinkedHashMap;
import java.util.Map;
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
 * Shape "best-exchange" (not a study's program; issue 26): the same creature threads, the place one
 * AtomicLong (meetings left, and the waiting creature) changed by compare-and-set, so no monitor is held;
 * the first arrival spins briefly on its own volatile answer where another CPU can run its partner, then
 * parks, and the partner unparks it only when it found it parked.
 */
final class Chameneos implements Main.Bench {
    static final int[] TEN = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};   // blue=0, red=1, yellow=2

    static int complement(int a, int b) {
        return a == b ? a : 3 - a - b;
    }

    private final boolean redux;
    private final int creatures;
    private final int meetings;
    private final boolean exchange;

    /** variant=encore: the creature count C must lie in [2, MAX_CREATURES] (one thread per creature). */
    static final int MAX_CREATURES = 100_000;

    Chameneos(boolean redux, int creatures, int meetings) {
        this(redux, creatures, meetings, false);
    }

    Chameneos(boolean redux, int creatures, int meetings, boolean exchange) {
        this.redux = redux;
        this.creatures = creatures;
        this.meetings = meetings;
        this.exchange = exchange;
    }

    static Chameneos create(Main.Request r) throws Main.UsageError {
        boolean exchange = r.shape.equals("best-exchange");
        if (r.option("variant").equals("redux")) {
            return new Chameneos(true, 0, (int) r.paramInt(), exchange);    // n meetings per game; option meetings is ignored
        }
        long c = r.paramInt();
        if (c < 2 || c > MAX_CREATURES) {
            throw new Main.UsageError("--param: variant=encore needs C from 2 to " + MAX_CREATURES + ", got '" + r.param + "'");
        }
        return new Chameneos(false, (int) c, (int) r.intOption("meetings"), exchange);
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

    /** best-exchange: the place is one word, meetings left (high half) and the waiting creature's id + 1 (low half). */
    static final class ExchangePlace implements Place {
        /** Spins before parking, where another CPU can run the partner meanwhile (on one CPU, none). */
        static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 2000 : 0;

        private final int total;
        private final AtomicLong state;
        private final Creature[] creatures;

        ExchangePlace(int left, Creature[] creatures) {
            total = left;
            state = new AtomicLong((long) left << 32);
            this.creatures = creatures;
        }

        @Override
        public int meetings() {
            return total - (int) (state.get() >>> 32);
        }

        @Override
        public boolean meet(Creature c) {
            while (true) {
                long s = state.get();
                long left = s >>> 32;
                int waiter = (int) s - 1;
                // A waiter is always met while meetings are left, so none waits once none are.
                if (waiter < 0) {
                    if (left == 0) return false;
                    if (state.compareAndSet(s, (left << 32) | (c.id + 1))) {
                        await(c);
                        return true;
                    }
                } else if (state.compareAndSet(s, (left - 1) << 32)) {
                    Creature w = creatures[waiter];
                    int nc = complement(c.colour, w.colour);
                    c.partnerId = w.id;
                    c.newColour = nc;
                    w.partnerId = c.id;
                    w.newColour = nc;
                    w.answered = true;   // the volatile write publishes w's fields
                    if (w.parked) LockSupport.unpark(w.thread);
                    return true;
                }
            }
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

    /** The outcome of one game, read after every creature thread has been joined. */
    static final class Game {
        int placeMeetings;
        long creatureMeetings;
        long selfMeetings;
        int colourSum;
        int[] counts;
    }

    /** Runs one game; the caller times it. */
    static Game play(int c, int m, boolean gated, boolean exchange) throws InterruptedException {
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
        Game g = new Game();
        g.placeMeetings = place.meetings();
        g.counts = new int[c];
        for (int i = 0; i < c; i++) {
            g.counts[i] = cs[i].count;
            g.creatureMeetings += cs[i].count;
            g.selfMeetings += cs[i].selfMeetings;
            g.colourSum += cs[i].colour;
        }
        return g;
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
        out.put("cv" + suffix, mean == 0 ? 0.0 : std / mean);
        out.put("min_meetings" + suffix, min);
        out.put("max_meetings" + suffix, max);
        out.put("colour_sum_mod3" + suffix, g.colourSum % 3);
    }

    @Override
    public Main.Outcome iterate() throws Exception {
        Map<String, Number> metrics = new LinkedHashMap<>();
        if (!redux) {
            long t0 = System.nanoTime();
            Game g = play(creatures, meetings, true, exchange);
            long ns = System.nanoTime() - t0;
            fairness(metrics, g, meetings, "");
            metrics.put("self_meetings", g.selfMeetings);
            return new Main.Outcome(ns, "meetings=" + g.placeMeetings + " creature_meetings=" + g.creatureMeetings, metrics);
        }
        long t0 = System.nanoTime();
        Game a = play(3, meetings, false, exchange);
        Game b = play(10, meetings, false, exchange);
        long ns = System.nanoTime() - t0;
        metrics.put("self_meetings", a.selfMeetings + b.selfMeetings);
        fairness(metrics, a, meetings, "_3");
        fairness(metrics, b, meetings, "_10");
        return new Main.Outcome(ns, "meetings3=" + a.placeMeetings + " creature_meetings3=" + a.creatureMeetings
                + " meetings10=" + b.placeMeetings + " creature_meetings10=" + b.creatureMeetings, metrics);
    }
}
