package concbench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * chameneos, shape "rendezvous": one Java thread per creature, all calling the meeting place's
 * synchronized meet(). The first arrival records itself as the waiting creature and wait()s on the
 * place's monitor until a partner has filled in its answer; the partner completes the meeting
 * (complement colour, meeting count) and notify()s. Once the meetings are used up every call returns
 * "stop". Creatures count their own meetings. variant=encore runs one game of C creatures behind a
 * start latch (every creature arrives at the latch before any meets); variant=redux runs game A (3
 * creatures) and then game B (10 creatures), each with n meetings and no latch.
 */
final class Chameneos implements Main.Bench {
    static final int[] TEN = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};   // blue=0, red=1, yellow=2

    static int complement(int a, int b) {
        return a == b ? a : 3 - a - b;
    }

    private final boolean redux;
    private final int creatures;
    private final int meetings;

    /** variant=encore: the creature count C must lie in [2, MAX_CREATURES] (one thread per creature). */
    static final int MAX_CREATURES = 100_000;

    Chameneos(boolean redux, int creatures, int meetings) {
        this.redux = redux;
        this.creatures = creatures;
        this.meetings = meetings;
    }

    static Chameneos create(Main.Request r) throws Main.UsageError {
        if (r.option("variant").equals("redux")) {
            return new Chameneos(true, 0, (int) r.paramInt());    // n meetings per game; option meetings is ignored
        }
        long c = r.paramInt();
        if (c < 2 || c > MAX_CREATURES) {
            throw new Main.UsageError("--param: variant=encore needs C from 2 to " + MAX_CREATURES + ", got '" + r.param + "'");
        }
        return new Chameneos(false, (int) c, (int) r.intOption("meetings"));
    }

    static final class Creature implements Runnable {
        final int id;
        final Place place;
        final CountDownLatch gate;
        int colour;
        int count;
        int selfMeetings;
        // Written by the partner inside the place's monitor, read by this creature after meet() returns.
        boolean met;
        int partnerId;
        int newColour;

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

    static final class Place {
        private int left;
        int meetings;
        private Creature waiting;

        Place(int left) {
            this.left = left;
        }

        /** One request: true after a meeting (the answer is in c's fields), false when refused (stop). */
        synchronized boolean meet(Creature c) throws InterruptedException {
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

    /** The outcome of one game, read after every creature thread has been joined. */
    static final class Game {
        int placeMeetings;
        long creatureMeetings;
        long selfMeetings;
        int colourSum;
        int[] counts;
    }

    /** Runs one game; the caller times it. */
    static Game play(int c, int m, boolean gated) throws InterruptedException {
        Place place = new Place(m);
        CountDownLatch gate = gated ? new CountDownLatch(c) : null;
        Creature[] cs = new Creature[c];
        Thread[] threads = new Thread[c];
        for (int i = 0; i < c; i++) {
            cs[i] = new Creature(i, TEN[i % 10], place, gate);
            threads[i] = new Thread(cs[i], "creature-" + i);
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        Game g = new Game();
        g.placeMeetings = place.meetings;
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
            Game g = play(creatures, meetings, true);
            long ns = System.nanoTime() - t0;
            fairness(metrics, g, meetings, "");
            metrics.put("self_meetings", g.selfMeetings);
            return new Main.Outcome(ns, "meetings=" + g.placeMeetings + " creature_meetings=" + g.creatureMeetings, metrics);
        }
        long t0 = System.nanoTime();
        Game a = play(3, meetings, false);
        Game b = play(10, meetings, false);
        long ns = System.nanoTime() - t0;
        metrics.put("self_meetings", a.selfMeetings + b.selfMeetings);
        fairness(metrics, a, meetings, "_3");
        fairness(metrics, b, meetings, "_10");
        return new Main.Outcome(ns, "meetings3=" + a.placeMeetings + " creature_meetings3=" + a.creatureMeetings
                + " meetings10=" + b.placeMeetings + " creature_meetings10=" + b.creatureMeetings, metrics);
    }
}
