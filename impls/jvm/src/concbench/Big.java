package concbench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * big, shape "pool": a small actor runtime over a fixed pool of --workers Java threads
 * (Executors.newFixedThreadPool). Every worker and the sink is an actor with its own unbounded
 * mailbox (a growable ring of ints guarded by the actor's monitor) and a "scheduled" flag. A send
 * appends to the mailbox and, if the actor was not scheduled, marks it and submits it to the pool.
 * A turn takes at most 100 messages (Encore's batch size) out of the mailbox and handles them; if
 * more are left the actor resubmits itself at the back of the pool's queue, else it clears the flag.
 *
 * Messages are ints: ping(from) = 2*from, pong(from) = 2*from + 1, pong(START) = -1.
 * Neighbour tables: one immutable table per neighbourhood, shared by its workers (big.md pitfall 5).
 */
final class Big implements Driver.Bench {
    static final int START = -1;
    static final int BATCH = 100;

    private final int n;
    private final int pings;
    private final int hood;
    private final int poolWidth;

    /** The most workers --param admits (every worker holds a 100-message batch buffer and a mailbox). */
    static final int MAX_WORKERS = 100_000;

    Big(int n, int pings, int hood, int poolWidth) {
        this.n = n;
        this.pings = pings;
        this.hood = hood;
        this.poolWidth = poolWidth;
    }

    static Big create(Driver.Request r) {
        return new Big((int) r.paramInt(), (int) r.intOption("pings"), (int) r.intOption("hood"), r.workers);
    }

    /** An actor: a mailbox of ints, a scheduled flag, and a handler run by the pool up to BATCH messages per turn. */
    abstract static class Actor implements Runnable {
        final ExecutorService pool;
        final Failure failure;
        private int[] ring = new int[16];
        private int head;
        private int size;
        private boolean scheduled;
        private final int[] batch = new int[BATCH];

        Actor(ExecutorService pool, Failure failure) {
            this.pool = pool;
            this.failure = failure;
        }

        final void send(int message) {
            boolean submit;
            synchronized (this) {
                if (size == ring.length) grow();
                ring[(head + size) & (ring.length - 1)] = message;
                size++;
                submit = !scheduled;
                if (submit) scheduled = true;
            }
            if (submit) pool.execute(this);
        }

        private void grow() {
            int[] bigger = new int[ring.length * 2];
            for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
            ring = bigger;
            head = 0;
        }

        @Override
        public final void run() {
            int taken;
            synchronized (this) {
                taken = Math.min(size, BATCH);
                for (int i = 0; i < taken; i++) {
                    batch[i] = ring[head];
                    head = (head + 1) & (ring.length - 1);
                }
                size -= taken;
            }
            try {
                for (int i = 0; i < taken; i++) receive(batch[i]);
            } catch (Throwable t) {
                failure.fail(t);
                return;
            }
            synchronized (this) {
                if (size == 0) {
                    scheduled = false;
                    return;
                }
            }
            pool.execute(this);
        }

        abstract void receive(int message);
    }

    /** Completion of an iteration: the sink's signal, or the first failure of a handler. */
    static final class Failure {
        final CountDownLatch done = new CountDownLatch(1);
        volatile Throwable error;

        void fail(Throwable t) {
            if (error == null) error = t;
            done.countDown();
        }
    }

    static final class Sink extends Actor {
        private final int workers;
        private int exits;

        Sink(ExecutorService pool, Failure failure, int workers) {
            super(pool, failure);
            this.workers = workers;
        }

        @Override
        void receive(int message) {
            exits++;
            if (exits == workers) failure.done.countDown();
        }
    }

    static final class Worker extends Actor {
        final int j;
        final int pings;
        final Sink sink;
        Worker[] table;
        int rng;
        int expected = START;
        int sent;
        long pingsRecv;
        long pongsRecv;

        Worker(ExecutorService pool, Failure failure, int w, int j, int pings, Sink sink) {
            super(pool, failure);
            this.j = j;
            this.pings = pings;
            this.sink = sink;
            this.rng = w;            // LCG32 seeded with the worker number
        }

        @Override
        void receive(int message) {
            if (message < 0 || (message & 1) == 1) {
                int from = message < 0 ? START : message >>> 1;
                if (from != expected) throw new IllegalStateException("WrongPinger: worker expected " + expected + ", got a pong from " + from);
                if (from != START) pongsRecv++;
                if (sent == pings) {
                    sink.send(0);
                } else {
                    rng = 1664525 * rng + 1013904223;          // mod 2^32 by int wrap-around
                    int t = Integer.remainderUnsigned(rng, table.length);
                    expected = t;
                    sent++;
                    table[t].send(j << 1);
                }
            } else {
                pingsRecv++;
                table[message >>> 1].send((j << 1) | 1);
            }
        }
    }

    @Override
    public Driver.Outcome iterate() throws Exception {
        Failure failure = new Failure();
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(poolWidth);
        Sink sink = new Sink(pool, failure, n);
        Worker[] workers = new Worker[n];
        for (int w = 0; w < n; w++) workers[w] = new Worker(pool, failure, w, w % hood, pings, sink);
        for (int g = 0; g * (long) hood < n; g++) {
            int lo = g * hood;
            int hi = (int) Math.min(n, (long) lo + hood);
            Worker[] table = new Worker[hi - lo];
            System.arraycopy(workers, lo, table, 0, hi - lo);
            for (int w = lo; w < hi; w++) workers[w].table = table;
        }
        for (int w = 0; w < n; w++) workers[w].send(START);
        failure.done.await();
        long ns = System.nanoTime() - t0;
        if (failure.error != null) {
            pool.shutdownNow();
            throw new IllegalStateException("a handler failed", failure.error);
        }
        long messages = 0;
        long checksum = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int w = 0; w < n; w++) {
            Worker k = workers[w];
            messages += k.pingsRecv + k.pongsRecv;
            checksum += k.pingsRecv * (w + 1L);               // wraps mod 2^64
            min = Math.min(min, k.pingsRecv);
            max = Math.max(max, k.pingsRecv);
        }
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("min_recv", min);
        metrics.put("max_recv", max);
        return new Driver.Outcome(ns, "messages=" + messages + " checksum=" + Long.toUnsignedString(checksum), metrics);
    }
}
