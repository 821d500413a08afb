package concbench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * concbench-jvm: Java's table, what this binary serves; the protocol (describe, the argument checks, hello,
 * iterations, metrics) is the JVM languages' one driver (Driver.java).
 */
public final class Main extends Driver {
    /** The reason of a bound at Integer.MAX_VALUE: the kernel holds the value in an int. */
    static final String A_JAVA_INT = "a Java int";

    /** Models with their one-line descriptions. */
    static final Map<String, String> MODELS = new LinkedHashMap<>();
    /** Benchmarks: --param domain, and per model the shapes and options. */
    static final Map<String, Benchmark> BENCHMARKS = new LinkedHashMap<>();

    static {
        MODELS.put("threads", "Java threads and executors: an actor runtime over a fixed pool (big), one thread per creature "
                + "with a synchronized meeting place, a compare-and-set one whose waiter spins, then parks, or creatures as tasks that dispatcher threads take from a queue (chameneos), an ExecutorService or an atomic task counter (fannkuch), "
                + "one thread per worker or ring entity blocking on monitors, ReentrantLock conditions, LockSupport.park or "
                + "SynchronousQueue (mutex, prodcons, condition, threadring)");
        MODELS.put("forkjoin", "java.util.concurrent.ForkJoinPool of --workers: one RecursiveTask per fannkuch chunk, invokeAll and join");

        Map<String, Domain> big = options(
                "pings", Domain.ints(0L, INT_MAX, "16000").because(A_JAVA_INT),
                "hood", Domain.ints(1L, INT_MAX, "1000").because(A_JAVA_INT));
        BENCHMARKS.put("big", new Benchmark(Domain.ints(1L, (long) Big.MAX_WORKERS, null), Big::create)
                .serve("threads", List.of("pool"), big));

        // --param: C (encore, 2..MAX_CREATURES, checked in Chameneos.create) or n (redux, 0..); the union here.
        Map<String, Domain> chameneos = options(
                "variant", Domain.values("encore", "encore", "redux"),
                "meetings", Domain.ints(1L, INT_MAX, "8000000").because(A_JAVA_INT));
        BENCHMARKS.put("chameneos", new Benchmark(Domain.ints(0L, INT_MAX, null), Chameneos::create)
                .serve("threads", Chameneos.Shape.labels(), chameneos));

        Map<String, Domain> fannkuch = options("chunks", Domain.ints(1L, (long) Fannkuch.MAX_CHUNKS, "150").because(
                "up to min(chunks, n!) tasks, and the pool shapes hold one Callable and Future, or RecursiveTask, per task at once"));
        BENCHMARKS.put("fannkuch", new Benchmark(Domain.ints(3L, (long) Fannkuch.MAX_N, null), Fannkuch::create)
                .serve("threads", List.of("pool", "counter"), fannkuch)
                .serve("forkjoin", List.of("pool"), fannkuch));

        // The SCOOP/Qs coordination benchmarks: n is workers per group (not --workers), one OS thread each.
        Map<String, Domain> workersN = options("n", Domain.ints(1L, (long) Coordination.MAX_N, "32").because(
                "one OS thread per worker (2n for prodcons and condition)"));
        BENCHMARKS.put("mutex", new Benchmark(Domain.ints(0L, INT_MAX, null), Coordination.Mutex::create)
                .serve("threads", List.of("lock", "reentrant-lock"), workersN));
        BENCHMARKS.put("prodcons", new Benchmark(Domain.ints(0L, INT_MAX, null), Coordination.ProdCons::create)
                .serve("threads", List.of("paper", "notify-each"), workersN));
        BENCHMARKS.put("condition", new Benchmark(Domain.ints(0L, INT_MAX, null), Coordination.Parity::create)
                .serve("threads", List.of("paper", "broadcast", "two-cv"), workersN));
        BENCHMARKS.put("threadring", new Benchmark(Domain.ints(0L, INT_MAX, null), Coordination.ThreadRing::create)
                .serve("threads", List.of("asio-pool", "blocking", "synchronous-queue"),
                        options("ring", Domain.ints(2L, (long) Coordination.MAX_RING, "503").because("one OS thread per ring entity"))));
    }

    @Override
    protected String language() {
        return "jvm";
    }

    @Override
    protected Map<String, String> models() {
        return MODELS;
    }

    @Override
    protected Map<String, Benchmark> benchmarks() {
        return BENCHMARKS;
    }

    @Override
    protected String runtime() {
        return System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", System.getProperty("java.version", "?"))
                + " (" + System.getProperty("java.vm.vendor", "?") + "), availableProcessors=" + Runtime.getRuntime().availableProcessors();
    }

    public static void main(String[] argv) {
        new Main().run(argv);
    }
}
