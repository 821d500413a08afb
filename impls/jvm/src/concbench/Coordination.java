package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The SCOOP/Qs paper's coordination benchmarks (seed 001) in the `threads` model: mutex, prodcons,
 * condition and threadring, each with one plain Java thread per entity. Waiting always blocks (monitor
 * wait, Condition.await, LockSupport.park, SynchronousQueue.take); nothing polls. Creating, starting and
 * joining the threads is inside the timed region; threadring's teardown of the ring is not.
 */
final class Coordination {
    private Coordination() {
    }

    /** Workers per group (n) admitted: prodcons and condition start 2n OS threads. */
    static final int MAX_N = 10_000;
    /** Ring sizes admitted: every shape starts R OS threads. */
    static final int MAX_RING = 10_000;

    /** The first error of any entity; rethrown by the kernel after the join. */
    static final class Errors {
        volatile Throwable first;

        void record(Throwable t) {
            if (first == null) first = t;
        }

        void rethrow() throws Exception {
            Throwable t = first;
            if (t != null) throw new IllegalStateException("an entity failed", t);
        }
    }

    /** Starts one thread per body, then joins them all; the first error of any body is rethrown. */
    static void runAll(Runnable[] bodies) throws Exception {
        Errors errors = new Errors();
        Thread[] threads = new Thread[bodies.length];
        for (int i = 0; i < bodies.length; i++) {
            Runnable body = bodies[i];
            threads[i] = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    errors.record(t);
                }
            }, "entity-" + i);
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join();
        errors.rethrow();
    }

    /** An unchecked wrapper, so that worker bodies can be plain Runnables. */
    static void uninterrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
    }

    // ---- mutex ---------------------------------------------------------------------------------

    /**
     * mutex: n threads each increment one shared counter m times, one lock acquisition per increment.
     * Shape "lock": a synchronized method; shape "reentrant-lock": java.util.concurrent's ReentrantLock
     * (non-fair, its default). The final value is read under the same lock after the join.
     */
    static final class Mutex implements Driver.Bench {
        private final boolean reentrant;
        private final int n;
        private final long m;

        Mutex(String shape, int n, long m) {
            this.reentrant = shape.equals("reentrant-lock");
            this.n = n;
            this.m = m;
        }

        static Mutex create(Driver.Request r) {
            return new Mutex(r.shape, (int) r.intOption("n"), r.paramInt());
        }

        static final class Monitor {
            private long c;

            synchronized void incr() {
                c++;
            }

            synchronized long value() {
                return c;
            }
        }

        static final class Locked {
            private final ReentrantLock lock = new ReentrantLock();
            private long c;

            void incr() {
                lock.lock();
                try {
                    c++;
                } finally {
                    lock.unlock();
                }
            }

            long value() {
                lock.lock();
                try {
                    return c;
                } finally {
                    lock.unlock();
                }
            }
        }

        @Override
        public Driver.Outcome iterate() throws Exception {
            Runnable[] workers = new Runnable[n];
            long value;
            long t0 = System.nanoTime();
            if (reentrant) {
                Locked counter = new Locked();
                for (int w = 0; w < n; w++) workers[w] = () -> {
                    for (long k = 0; k < m; k++) counter.incr();
                };
                runAll(workers);
                value = counter.value();
            } else {
                Monitor counter = new Monitor();
                for (int w = 0; w < n; w++) workers[w] = () -> {
                    for (long k = 0; k < m; k++) counter.incr();
                };
                runAll(workers);
                value = counter.value();
            }
            long ns = System.nanoTime() - t0;
            return new Driver.Outcome(ns, "count=" + value, Map.of());
        }
    }

    // ---- prodcons ------------------------------------------------------------------------------

    /** A growable FIFO ring of longs (no boxing); the caller guards it. */
    static final class LongQueue {
        private long[] ring = new long[64];
        private int head;
        private int size;

        boolean isEmpty() {
            return size == 0;
        }

        int size() {
            return size;
        }

        void put(long v) {
            if (size == ring.length) {
                long[] bigger = new long[ring.length * 2];
                for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
                ring = bigger;
                head = 0;
            }
            ring[(head + size) & (ring.length - 1)] = v;
            size++;
        }

        long take() {
            long v = ring[head];
            head = (head + 1) & (ring.length - 1);
            size--;
            return v;
        }
    }

    /**
     * prodcons: n producers and n consumers on one unbounded FIFO guarded by a ReentrantLock and one
     * Condition (the C++ mutex and condition_variable). Shape "paper": a put signals only when the queue
     * goes from empty to one item, and a consumer that leaves items behind signals one more waiter (chained
     * wake-ups). Shape "notify-each": a signal after every put. Consumers wait while the queue is empty.
     */
    static final class ProdCons implements Driver.Bench {
        private final boolean paper;
        private final int n;
        private final long m;

        ProdCons(String shape, int n, long m) {
            this.paper = shape.equals("paper");
            this.n = n;
            this.m = m;
        }

        static ProdCons create(Driver.Request r) {
            return new ProdCons(r.shape, (int) r.intOption("n"), r.paramInt());
        }

        static final class Shared {
            final ReentrantLock lock = new ReentrantLock();
            final Condition notEmpty = lock.newCondition();
            final LongQueue q = new LongQueue();
            final boolean paper;

            Shared(boolean paper) {
                this.paper = paper;
            }

            void put(long v) {
                lock.lock();
                try {
                    q.put(v);
                    if (!paper || q.size() == 1) notEmpty.signal();
                } finally {
                    lock.unlock();
                }
            }

            long take() throws InterruptedException {
                lock.lock();
                try {
                    while (q.isEmpty()) notEmpty.await();
                    long v = q.take();
                    if (paper && !q.isEmpty()) notEmpty.signal();
                    return v;
                } finally {
                    lock.unlock();
                }
            }
        }

        @Override
        public Driver.Outcome iterate() throws Exception {
            long[] sums = new long[n];
            long[] counts = new long[n];
            Runnable[] entities = new Runnable[2 * n];
            long t0 = System.nanoTime();
            Shared shared = new Shared(paper);
            // Consumers first, then producers; all 2n are started before any is joined.
            for (int c = 0; c < n; c++) {
                int id = c;
                entities[c] = () -> {
                    long sum = 0;
                    long cnt = 0;
                    try {
                        for (long k = 0; k < m; k++) {
                            sum += shared.take();
                            cnt++;
                        }
                    } catch (InterruptedException e) {
                        uninterrupted(e);
                    }
                    sums[id] = sum;
                    counts[id] = cnt;
                };
            }
            for (int p = 0; p < n; p++) {
                long base = p * m;
                entities[n + p] = () -> {
                    for (long k = 0; k < m; k++) shared.put(base + k + 1);
                };
            }
            runAll(entities);   // Thread.join orders the consumers' writes to sums and counts before the reads
            long consumed = 0;
            long sum = 0;
            for (int c = 0; c < n; c++) {
                consumed += counts[c];
                sum += sums[c];   // wraps mod 2^64, printed unsigned
            }
            long ns = System.nanoTime() - t0;
            return new Driver.Outcome(ns, "consumed=" + consumed + " sum=" + Long.toUnsignedString(sum), Map.of());
        }
    }

    // ---- condition -----------------------------------------------------------------------------

    /**
     * condition: 2n workers, worker w of parity f = w mod 2, each m times waits until x mod 2 == f and
     * increments x, under one ReentrantLock. Shape "paper": one Condition; a worker of the wrong parity
     * signals one waiter before it waits (passing the wake-up along) and every increment is followed by a
     * signal. Shape "broadcast": one Condition, signalAll after each increment. Shape "two-cv": one
     * Condition per parity; an increment signals one waiter of the other parity.
     */
    static final class Parity implements Driver.Bench {
        private final String shape;
        private final int n;
        private final long m;

        Parity(String shape, int n, long m) {
            this.shape = shape;
            this.n = n;
            this.m = m;
        }

        static Parity create(Driver.Request r) {
            return new Parity(r.shape, (int) r.intOption("n"), r.paramInt());
        }

        static final class Shared {
            final ReentrantLock lock = new ReentrantLock();
            final Condition one = lock.newCondition();
            final Condition[] byParity = {lock.newCondition(), lock.newCondition()};
            long x;

            void paper(int f) throws InterruptedException {
                lock.lock();
                try {
                    while (x % 2 != f) {
                        one.signal();
                        one.await();
                    }
                    x++;
                    one.signal();
                } finally {
                    lock.unlock();
                }
            }

            void broadcast(int f) throws InterruptedException {
                lock.lock();
                try {
                    while (x % 2 != f) one.await();
                    x++;
                    one.signalAll();
                } finally {
                    lock.unlock();
                }
            }

            void twoCv(int f) throws InterruptedException {
                lock.lock();
                try {
                    while (x % 2 != f) byParity[f].await();
                    x++;
                    byParity[1 - f].signal();
                } finally {
                    lock.unlock();
                }
            }

            long value() {
                lock.lock();
                try {
                    return x;
                } finally {
                    lock.unlock();
                }
            }
        }

        @Override
        public Driver.Outcome iterate() throws Exception {
            Runnable[] workers = new Runnable[2 * n];
            int kind = shape.equals("paper") ? 0 : shape.equals("broadcast") ? 1 : 2;
            long t0 = System.nanoTime();
            Shared shared = new Shared();
            for (int w = 0; w < 2 * n; w++) {
                int f = w % 2;
                workers[w] = () -> {
                    try {
                        for (long k = 0; k < m; k++) {
                            if (kind == 0) shared.paper(f);
                            else if (kind == 1) shared.broadcast(f);
                            else shared.twoCv(f);
                        }
                    } catch (InterruptedException e) {
                        uninterrupted(e);
                    }
                };
            }
            runAll(workers);
            long value = shared.value();
            long ns = System.nanoTime() - t0;
            return new Driver.Outcome(ns, "value=" + value, Map.of());
        }
    }

    // ---- threadring ----------------------------------------------------------------------------

    /**
     * threadring: R entities with ids 1..R pass a token, decremented at every hop, to their successor
     * (k mod R) + 1; the entity that receives 0 reports its id. Three shapes:
     * - "asio-pool" (the paper's boost::asio program without boost): R OS threads all serve one
     *   lock-and-condition queue of (logical id, token) tasks; a hop posts a task naming the next logical
     *   thread, which any OS thread may run.
     * - "blocking": R OS threads, each parked with LockSupport.park until its token slot is filled; a hop
     *   stores t-1 in the successor's slot and unparks it.
     * - "synchronous-queue": R OS threads, one SynchronousQueue each; a hop is put(t-1) on the successor's.
     * Creating and starting the R threads is timed; stopping them after the report is not.
     */
    static final class ThreadRing implements Driver.Bench {
        private final String shape;
        private final int ring;
        private final int tokens;

        ThreadRing(String shape, int ring, int tokens) {
            this.shape = shape;
            this.ring = ring;
            this.tokens = tokens;
        }

        static ThreadRing create(Driver.Request r) {
            return new ThreadRing(r.shape, (int) r.intOption("ring"), (int) r.paramInt());
        }

        /** Where the entity that receives 0 writes its id; the kernel waits on it. Errors end the wait too. */
        static final class Report {
            final CountDownLatch done = new CountDownLatch(1);
            final Errors errors = new Errors();
            volatile int id;

            void report(int id) {
                this.id = id;
                done.countDown();
            }

            void fail(Throwable t) {
                errors.record(t);
                done.countDown();
            }
        }

        @Override
        public Driver.Outcome iterate() throws Exception {
            Report report = new Report();
            Thread[] threads = new Thread[ring];
            Runnable stop;
            long t0 = System.nanoTime();
            switch (shape) {
                case "asio-pool": stop = asioPool(threads, report); break;
                case "blocking": stop = blocking(threads, report); break;
                default: stop = synchronousQueues(threads, report); break;
            }
            report.done.await();
            long ns = System.nanoTime() - t0;
            // Untimed: stop the remaining entities before the next iteration.
            stop.run();
            for (Thread t : threads) t.join();
            report.errors.rethrow();
            return new Driver.Outcome(ns, "id=" + report.id, Map.of());
        }

        /** The pool's one task queue: tasks encoded as (logical id << 32) | token. */
        static final class TaskQueue {
            final ReentrantLock lock = new ReentrantLock();
            final Condition nonEmpty = lock.newCondition();
            final LongQueue q = new LongQueue();
            boolean stopped;

            void post(int id, int token) {
                lock.lock();
                try {
                    q.put(((long) id << 32) | (token & 0xffffffffL));
                    nonEmpty.signal();
                } finally {
                    lock.unlock();
                }
            }

            /** The next task, or -1 once stopped. */
            long next() throws InterruptedException {
                lock.lock();
                try {
                    while (q.isEmpty() && !stopped) nonEmpty.await();
                    return stopped ? -1 : q.take();
                } finally {
                    lock.unlock();
                }
            }

            void stop() {
                lock.lock();
                try {
                    stopped = true;
                    nonEmpty.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }

        private Runnable asioPool(Thread[] threads, Report report) {
            int r = ring;
            TaskQueue tasks = new TaskQueue();
            for (int i = 0; i < r; i++) {
                threads[i] = new Thread(() -> {
                    try {
                        for (long task; (task = tasks.next()) >= 0; ) {
                            int id = (int) (task >>> 32);
                            int token = (int) task;
                            if (token == 0) report.report(id);
                            else tasks.post(id % r + 1, token - 1);
                        }
                    } catch (Throwable t) {
                        report.fail(t);
                    }
                }, "ring-pool-" + i);
            }
            for (Thread t : threads) t.start();
            tasks.post(1, tokens);
            return tasks::stop;
        }

        /** One entity of the blocking ring: its token slot, filled by its predecessor. */
        static final class Node {
            final int id;
            Node next;
            Thread thread;
            volatile boolean full;
            volatile int token;
            volatile boolean stopped;

            Node(int id) {
                this.id = id;
            }

            void give(int t) {
                token = t;
                full = true;   // volatile write after the token: the receiver reads full, then token
                LockSupport.unpark(thread);
            }
        }

        private Runnable blocking(Thread[] threads, Report report) {
            Node[] nodes = new Node[ring];
            for (int i = 0; i < ring; i++) nodes[i] = new Node(i + 1);
            for (int i = 0; i < ring; i++) {
                Node me = nodes[i];
                me.next = nodes[(i + 1) % ring];
                me.thread = threads[i] = new Thread(() -> {
                    try {
                        while (true) {
                            // park may return spuriously: the slot is re-checked, and park blocks again.
                            while (!me.full && !me.stopped) LockSupport.park(me);
                            if (me.stopped) return;
                            me.full = false;
                            int t = me.token;
                            if (t == 0) report.report(me.id);
                            else me.next.give(t - 1);
                        }
                    } catch (Throwable t) {
                        report.fail(t);
                    }
                }, "ring-" + (i + 1));
            }
            for (Thread t : threads) t.start();
            nodes[0].give(tokens);
            return () -> {
                for (Node node : nodes) {
                    node.stopped = true;
                    LockSupport.unpark(node.thread);
                }
            };
        }

        private Runnable synchronousQueues(Thread[] threads, Report report) throws InterruptedException {
            List<SynchronousQueue<Integer>> queues = new ArrayList<>(ring);
            for (int i = 0; i < ring; i++) queues.add(new SynchronousQueue<>());
            for (int i = 0; i < ring; i++) {
                int id = i + 1;
                SynchronousQueue<Integer> mine = queues.get(i);
                SynchronousQueue<Integer> next = queues.get((i + 1) % ring);
                threads[i] = new Thread(() -> {
                    try {
                        while (true) {
                            int t = mine.take();
                            if (t == 0) report.report(id);
                            else next.put(t - 1);
                        }
                    } catch (InterruptedException e) {
                        // the teardown's interrupt: this entity stops
                    } catch (Throwable t) {
                        report.fail(t);
                    }
                }, "ring-" + id);
            }
            for (Thread t : threads) t.start();
            queues.get(0).put(tokens);
            return () -> {
                for (Thread t : threads) t.interrupt();
            };
        }
    }
}
