package concbench;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * concbench-jvm: the protocol driver. `describe` prints the table below as one JSON line. Any other
 * command line is checked completely against the same table first (any problem: one line on stderr,
 * exit 2, nothing on stdout); then it prints hello, one line per timed iteration and the metrics of
 * the last iteration. stdout carries protocol lines only; System.out is pointed at stderr so that
 * nothing else can reach it.
 */
public final class Main {
    static final String LANGUAGE = "jvm";
    static final long INT_MAX = Integer.MAX_VALUE;
    /** The reason of a bound at Integer.MAX_VALUE: the kernel holds the value in an int. */
    static final String A_JAVA_INT = "a Java int";

    /** One timed iteration: the kernel's time, its result string, and the metrics it produced. */
    static final class Outcome {
        final long ns;
        final String result;
        final Map<String, Number> metrics;

        Outcome(long ns, String result, Map<String, Number> metrics) {
            this.ns = ns;
            this.result = result;
            this.metrics = metrics;
        }
    }

    /** A benchmark with its parameters checked, ready to run iterations. */
    interface Bench {
        Outcome iterate() throws Exception;
    }

    /** Bad usage: one line on stderr, exit status 2, nothing on stdout. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The table: what this binary serves. `describe` prints it; the argument checks read it.

    /**
     * The domain of an option or of --param: exactly one of int bounds, a list of values, a pattern; a default
     * (documentation only) and, where an option's bound is narrower than its benchmark declares, the reason.
     */
    static final class Domain {
        final boolean isInt;
        final Long min;
        final Long max;
        final List<String> values;
        final Pattern pattern;
        final String dflt;
        final String reason;

        private Domain(boolean isInt, Long min, Long max, List<String> values, Pattern pattern, String dflt, String reason) {
            this.isInt = isInt;
            this.min = min;
            this.max = max;
            this.values = values;
            this.pattern = pattern;
            this.dflt = dflt;
            this.reason = reason;
        }

        /** The same domain, narrower than its benchmark's declaration (benchmarks/<id>.toml) for this reason. */
        Domain because(String why) {
            return new Domain(isInt, min, max, values, pattern, dflt, why);
        }

        /** A decimal integer within [min, max]; either bound may be null (open). */
        static Domain ints(Long min, Long max, String dflt) {
            return new Domain(true, min, max, null, null, dflt, null);
        }

        static Domain values(String dflt, String... values) {
            return new Domain(false, null, null, List.of(values), null, dflt, null);
        }

        static Domain pattern(String regex, String dflt) {
            return new Domain(false, null, null, null, Pattern.compile(regex), dflt, null);
        }

        /** Null when the text lies inside the domain, else what is wrong with it. */
        String reject(String text) {
            if (isInt) {
                if (!DECIMAL.matcher(text).matches()) return "'" + text + "' is not a decimal integer";
                Long v = parseInteger(text);
                if (v == null) return "'" + text + "' is out of range";
                if (min != null && v < min) return "'" + text + "' is below the minimum " + min;
                if (max != null && v > max) return "'" + text + "' is above the maximum " + max;
                return null;
            }
            if (values != null) {
                return values.contains(text) ? null : "'" + text + "' is not one of " + String.join(", ", values);
            }
            return pattern.matcher(text).matches() ? null : "'" + text + "' does not match " + pattern.pattern();
        }

        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (isInt) {
                Map<String, Object> bounds = new LinkedHashMap<>();
                if (min != null) bounds.put("min", min);
                if (max != null) bounds.put("max", max);
                m.put("int", bounds);
            } else if (values != null) {
                m.put("values", values);
            } else {
                m.put("pattern", pattern.pattern());
            }
            if (dflt != null) m.put("default", dflt);
            if (reason != null) m.put("reason", reason);
            return m;
        }
    }

    /** What one model serves of one benchmark: its shapes (faithful first) and its options. */
    static final class Served {
        final List<String> shapes;
        final Map<String, Domain> options;

        Served(List<String> shapes, Map<String, Domain> options) {
            this.shapes = shapes;
            this.options = options;
        }
    }

    /** Creates a benchmark from a checked request (every value already inside its domain). */
    interface Factory {
        Bench create(Request r) throws UsageError;
    }

    static final class Benchmark {
        final Domain param;
        final Factory factory;
        final Map<String, Served> models = new LinkedHashMap<>();

        Benchmark(Domain param, Factory factory) {
            this.param = param;
            this.factory = factory;
        }

        Benchmark serve(String model, List<String> shapes, Map<String, Domain> options) {
            models.put(model, new Served(shapes, options));
            return this;
        }
    }

    static Map<String, Domain> options(Object... keyDomain) {
        Map<String, Domain> m = new LinkedHashMap<>();
        for (int i = 0; i < keyDomain.length; i += 2) m.put((String) keyDomain[i], (Domain) keyDomain[i + 1]);
        return m;
    }

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

    /** The describe line's object, built from the table. */
    static Map<String, Object> describe() {
        Map<String, Object> benchmarks = new LinkedHashMap<>();
        for (Map.Entry<String, Benchmark> b : BENCHMARKS.entrySet()) {
            Map<String, Object> models = new LinkedHashMap<>();
            for (Map.Entry<String, Served> s : b.getValue().models.entrySet()) {
                Map<String, Object> options = new LinkedHashMap<>();
                for (Map.Entry<String, Domain> o : s.getValue().options.entrySet()) options.put(o.getKey(), o.getValue().json());
                Map<String, Object> served = new LinkedHashMap<>();
                served.put("shapes", s.getValue().shapes);
                served.put("options", options);
                models.put(s.getKey(), served);
            }
            Map<String, Object> bench = new LinkedHashMap<>();
            bench.put("param", b.getValue().param.json());
            bench.put("models", models);
            benchmarks.put(b.getKey(), bench);
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("protocol", 1);
        d.put("language", LANGUAGE);
        d.put("models", MODELS);
        d.put("benchmarks", benchmarks);
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("describe", d);
        return top;
    }

    // ---------------------------------------------------------------------------------------------
    // The command line: <benchmark> --model M --param P --iterations K [--workers W] [--option k=v]...

    /** A command line checked against the table; options hold every key of the model, defaults filled in. */
    static final class Request {
        final String benchmark;
        final String model;
        final String shape;
        final String param;
        final int iterations;
        final int workers;
        final Map<String, String> options;

        Request(String benchmark, String model, String shape, String param, int iterations, int workers, Map<String, String> options) {
            this.benchmark = benchmark;
            this.model = model;
            this.shape = shape;
            this.param = param;
            this.iterations = iterations;
            this.workers = workers;
            this.options = options;
        }

        /** --param as a number (its domain is an int domain, already checked). */
        long paramInt() {
            return Long.parseLong(param);
        }

        String option(String key) {
            return options.get(key);
        }

        /** An int option (already checked against its int domain). */
        long intOption(String key) {
            return Long.parseLong(options.get(key));
        }
    }

    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]+");

    /** A decimal integer (optional '-', ASCII digits only) that fits a long, else null. */
    static Long parseInteger(String text) {
        if (!DECIMAL.matcher(text).matches()) return null;
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** --iterations and --workers: a decimal integer from 1 to Integer.MAX_VALUE. */
    static int count(String flag, String text) throws UsageError {
        Long v = parseInteger(text);
        if (v == null || v < 1 || v > INT_MAX) {
            throw new UsageError(flag + " wants an integer from 1 to " + INT_MAX + ", got '" + text + "'");
        }
        return v.intValue();
    }

    static Request parse(String[] argv) throws UsageError {
        if (argv.length == 0) {
            throw new UsageError("usage: describe | <benchmark> --model <model> --param <value> --iterations <k> [--workers <w>] [--option key=value]...");
        }
        String benchmark = argv[0];
        String model = null;
        String param = null;
        String iterations = null;
        String workers = null;
        Map<String, String> given = new LinkedHashMap<>();
        for (int i = 1; i < argv.length; i += 2) {
            String flag = argv[i];
            if (!flag.equals("--model") && !flag.equals("--param") && !flag.equals("--iterations")
                    && !flag.equals("--workers") && !flag.equals("--option")) {
                throw new UsageError("unknown argument '" + flag + "'");
            }
            if (i + 1 >= argv.length) throw new UsageError(flag + " needs a value");
            String value = argv[i + 1];
            switch (flag) {
                case "--model": model = value; break;
                case "--param": param = value; break;
                case "--iterations": iterations = value; break;
                case "--workers": workers = value; break;
                default: {
                    int eq = value.indexOf('=');
                    if (eq <= 0) throw new UsageError("--option wants key=value, got '" + value + "'");
                    given.put(value.substring(0, eq), value.substring(eq + 1));
                }
            }
        }
        Benchmark b = BENCHMARKS.get(benchmark);
        if (b == null) {
            throw new UsageError("unknown benchmark '" + benchmark + "' (known: " + String.join(", ", BENCHMARKS.keySet()) + ")");
        }
        if (model == null) throw new UsageError("missing --model");
        Served served = b.models.get(model);
        if (served == null) {
            throw new UsageError("unknown model '" + model + "' for " + benchmark + " (known: " + String.join(", ", b.models.keySet()) + ")");
        }
        String shape = given.containsKey("shape") ? given.get("shape") : served.shapes.get(0);
        if (!served.shapes.contains(shape)) {
            throw new UsageError("unknown shape '" + shape + "' for " + benchmark + " in model " + model
                    + " (known: " + String.join(", ", served.shapes) + ")");
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (Map.Entry<String, String> o : given.entrySet()) {
            if (o.getKey().equals("shape")) continue;
            Domain d = served.options.get(o.getKey());
            if (d == null) {
                throw new UsageError("unknown option '" + o.getKey() + "' for " + benchmark + " in model " + model
                        + " (known: " + String.join(", ", served.options.keySet()) + ")");
            }
            String why = d.reject(o.getValue());
            if (why != null) throw new UsageError("option " + o.getKey() + ": " + why);
        }
        for (Map.Entry<String, Domain> d : served.options.entrySet()) {
            String v = given.get(d.getKey());
            options.put(d.getKey(), v != null ? v : d.getValue().dflt);
        }
        if (param == null) throw new UsageError("missing --param");
        String why = b.param.reject(param);
        if (why != null) throw new UsageError("--param: " + why);
        if (iterations == null) throw new UsageError("missing --iterations");
        int k = count("--iterations", iterations);
        int w = workers == null ? Runtime.getRuntime().availableProcessors() : count("--workers", workers);
        return new Request(benchmark, model, shape, param, k, w, options);
    }

    // ---------------------------------------------------------------------------------------------

    public static void main(String[] argv) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (argv.length == 1 && argv[0].equals("describe")) {
            out.println(Json.write(describe()));
            out.flush();
            Runtime.getRuntime().halt(0);
        }
        Request request;
        Bench bench;
        try {
            request = parse(argv);
            bench = BENCHMARKS.get(request.benchmark).factory.create(request);
        } catch (UsageError e) {
            // One line, whatever the culprit holds.
            System.err.println("concbench-jvm: " + e.getMessage().replace("\r", "\\r").replace("\n", "\\n"));
            System.err.flush();
            Runtime.getRuntime().halt(2);
            return;
        }
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("protocol", 1);
        hello.put("language", LANGUAGE);
        hello.put("runtime", runtime());
        hello.put("model", request.model);
        out.println(Json.write(Map.of("hello", hello)));
        out.flush();
        Map<String, Number> last = null;
        try {
            for (int i = 0; i < request.iterations; i++) {
                Outcome o = bench.iterate();
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("iteration", i);
                line.put("ns", o.ns);
                line.put("result", o.result);
                out.println(Json.write(line));
                out.flush();
                last = o.metrics;
            }
        } catch (Throwable t) {
            System.err.println("concbench-jvm: " + request.benchmark + " failed: " + t);
            System.err.flush();
            out.flush();
            Runtime.getRuntime().halt(1);
        }
        if (last != null) {
            // A metric that cannot be computed (NaN, infinite) is left out, never written as null (docs/describe.md).
            Map<String, Object> finite = new java.util.LinkedHashMap<>(last);
            finite.values().removeIf(v -> v instanceof Double && !Double.isFinite((Double) v));
            if (!finite.isEmpty()) {
                out.println(Json.write(Map.of("metrics", finite)));
            }
        }
        out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    static String runtime() {
        return System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", System.getProperty("java.version", "?"))
                + " (" + System.getProperty("java.vm.vendor", "?") + "), availableProcessors=" + Runtime.getRuntime().availableProcessors();
    }

    /** A small JSON writer (Java 17 has none): maps (in their order), lists, strings, numbers, booleans, null. */
    static final class Json {
        private Json() {
        }

        static String write(Object value) {
            StringBuilder sb = new StringBuilder();
            write(sb, value);
            return sb.toString();
        }

        static void write(StringBuilder sb, Object v) {
            if (v == null) {
                sb.append("null");
            } else if (v instanceof String) {
                quote(sb, (String) v);
            } else if (v instanceof Double || v instanceof Float) {
                double d = ((Number) v).doubleValue();
                sb.append(Double.isFinite(d) ? Double.toString(d) : "null");
            } else if (v instanceof Number) {
                sb.append(((Number) v).longValue());
            } else if (v instanceof Boolean) {
                sb.append(v.toString());
            } else if (v instanceof Map) {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    if (!first) sb.append(", ");
                    first = false;
                    quote(sb, (String) e.getKey());
                    sb.append(": ");
                    write(sb, e.getValue());
                }
                sb.append('}');
            } else if (v instanceof List) {
                sb.append('[');
                boolean first = true;
                for (Object e : (List<?>) v) {
                    if (!first) sb.append(", ");
                    first = false;
                    write(sb, e);
                }
                sb.append(']');
            } else {
                throw new IllegalArgumentException("no JSON form for " + v.getClass());
            }
        }

        /** A JSON string: quotes, backslashes and control characters escaped, non-ASCII as \\uXXXX (so lone surrogates stay valid). */
        static void quote(StringBuilder sb, String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"': sb.append("\\\""); break;
                    case '\\': sb.append("\\\\"); break;
                    case '\n': sb.append("\\n"); break;
                    case '\r': sb.append("\\r"); break;
                    case '\t': sb.append("\\t"); break;
                    case '\b': sb.append("\\b"); break;
                    case '\f': sb.append("\\f"); break;
                    default:
                        if (c < 0x20 || c >= 0x7f) sb.append(String.format("\\u%04x", (int) c));
                        else sb.append(c);
                }
            }
            sb.append('"');
        }
    }
}
