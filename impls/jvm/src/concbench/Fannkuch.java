package concbench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fannkuch-redux over n! permutation indexes cut into K requested chunks (fannkuch.md).
 * Shapes:
 *  threads/pool     an ExecutorService of --workers threads, one Callable per task, futures combined in order;
 *  threads/counter  --workers plain threads taking the next task number from an AtomicInteger, each keeping
 *                   a local max and checksum, joined and combined (the thesis's Scala program, in Java);
 *  forkjoin/pool    a ForkJoinPool of --workers: a root task forks one RecursiveTask per chunk with
 *                   invokeAll and joins them.
 * Every shape uses the same chunk routine (index decoding, Mazurov's next step, the flip loop).
 */
final class Fannkuch implements Driver.Bench {
    private final String model;
    private final String shape;
    private final int n;
    private final int workers;
    private final long total;
    private final long chunk;
    private final int tasks;

    /** --param n from 3 to MAX_N (n! and every index fit a long far beyond; 12 is the largest size measured). */
    static final int MAX_N = 12;
    /** The most chunks: tasks <= chunks, and the pool shape holds one Callable and one Future per task. */
    static final int MAX_CHUNKS = 100_000;

    Fannkuch(String model, String shape, int n, int requested, int workers) {
        this.model = model;
        this.shape = shape;
        this.n = n;
        this.workers = workers;
        long f = 1;
        for (int i = 2; i <= n; i++) f *= i;
        total = f;
        chunk = (total + requested - 1) / requested;
        tasks = (int) ((total + chunk - 1) / chunk);
    }

    static Fannkuch create(Driver.Request r) {
        return new Fannkuch(r.model, r.shape, (int) r.paramInt(), (int) r.intOption("chunks"), r.workers);
    }

    /** Flips and checksum over the indexes [start, end): result[0] = max flips, result[1] = checksum. */
    static long[] chunk(int n, long start, long end) {
        int[] p = new int[n];
        int[] q = new int[n];
        int[] count = new int[n];
        long[] fact = new long[n + 1];
        fact[0] = 1;
        for (int i = 1; i <= n; i++) fact[i] = fact[i - 1] * i;
        for (int i = 0; i < n; i++) p[i] = i;
        long idx = start;
        for (int k = n - 1; k >= 1; k--) {
            int d = (int) (idx / fact[k]);
            idx %= fact[k];
            count[k] = d;
            if (d > 0) {                       // rotate p[0..k] left by d
                for (int i = 0; i <= k; i++) q[i] = p[i];
                for (int i = 0; i <= k; i++) p[i] = q[(i + d) % (k + 1)];
            }
        }
        int max = 0;
        long checksum = 0;
        for (long i = start; ; ) {
            int first = p[0];
            if (first != 0) {
                for (int j = 0; j < n; j++) q[j] = p[j];
                int flips = 0;
                while (first != 0) {
                    int lo = 0;
                    int hi = first;
                    while (lo < hi) {
                        int t = q[lo];
                        q[lo] = q[hi];
                        q[hi] = t;
                        lo++;
                        hi--;
                    }
                    flips++;
                    first = q[0];
                }
                if (flips > max) max = flips;
                checksum += (i & 1) == 0 ? flips : -flips;
            }
            if (++i >= end) break;
            // Mazurov's step to the next permutation.
            int f = p[1];
            p[1] = p[0];
            p[0] = f;
            int k = 1;
            count[k]++;
            while (count[k] > k) {
                count[k] = 0;
                k++;
                int nxt = p[1];
                p[0] = nxt;
                for (int j = 1; j < k; j++) p[j] = p[j + 1];
                p[k] = f;
                f = nxt;
                count[k]++;
            }
        }
        return new long[] {max, checksum};
    }

    long[] task(int t) {
        long lo = t * chunk;
        return chunk(n, lo, Math.min(total, lo + chunk));
    }

    static final class ChunkTask extends RecursiveTask<long[]> {
        final Fannkuch f;
        final int t;

        ChunkTask(Fannkuch f, int t) {
            this.f = f;
            this.t = t;
        }

        @Override
        protected long[] compute() {
            return f.task(t);
        }
    }

    static final class Root extends RecursiveTask<long[]> {
        final Fannkuch f;

        Root(Fannkuch f) {
            this.f = f;
        }

        @Override
        protected long[] compute() {
            List<ChunkTask> children = new ArrayList<>(f.tasks);
            for (int t = 0; t < f.tasks; t++) children.add(new ChunkTask(f, t));
            invokeAll(children);
            long[] acc = {0, 0};
            for (ChunkTask c : children) combine(acc, c.join());
            return acc;
        }
    }

    static void combine(long[] acc, long[] r) {
        acc[0] = Math.max(acc[0], r[0]);
        acc[1] += r[1];
    }

    @Override
    public Driver.Outcome iterate() throws Exception {
        long[] acc = {0, 0};
        long t0 = System.nanoTime();
        long ns;
        if (model.equals("forkjoin")) {
            ForkJoinPool pool = new ForkJoinPool(workers);
            acc = pool.invoke(new Root(this));
            ns = System.nanoTime() - t0;
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        } else if (shape.equals("pool")) {
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            List<Callable<long[]>> jobs = new ArrayList<>(tasks);
            for (int t = 0; t < tasks; t++) {
                final int task = t;
                jobs.add(() -> task(task));
            }
            for (Future<long[]> r : pool.invokeAll(jobs)) combine(acc, r.get());
            ns = System.nanoTime() - t0;
            pool.shutdown();
            pool.awaitTermination(1, TimeUnit.MINUTES);
        } else {
            AtomicInteger next = new AtomicInteger();
            long[][] partial = new long[workers][];
            Thread[] threads = new Thread[workers];
            for (int w = 0; w < workers; w++) {
                final int me = w;
                threads[w] = new Thread(() -> {
                    long[] mine = {0, 0};
                    for (int t = next.getAndIncrement(); t < tasks; t = next.getAndIncrement()) combine(mine, task(t));
                    partial[me] = mine;
                }, "fannkuch-" + w);
                threads[w].start();
            }
            for (Thread t : threads) t.join();
            for (long[] r : partial) combine(acc, r);
            ns = System.nanoTime() - t0;
        }
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("tasks", tasks);
        return new Driver.Outcome(ns, "maxflips=" + acc[0] + " checksum=" + acc[1], metrics);
    }
}
