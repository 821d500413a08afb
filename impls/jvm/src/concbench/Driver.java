package concbench;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The protocol driver of both JVM languages: Java's front end (Main.java) and Scala's (impls/scala, compiled
 * against this file) each give their language, models, table of benchmarks and runtime line, and `run` does the
 * rest. `describe` prints the table as one JSON line. Any other command line is checked completely against the
 * same table first (any problem: one line on stderr, exit 2, nothing on stdout); then it prints hello, one line
 * per timed iteration and the metrics of the last iteration. stdout carries protocol lines only; System.out is
 * pointed at stderr so that nothing else can reach it.
 *
 * Java 8 source: Scala 2.11's compiler reads the classes the Scala build makes of it with javac --release 8.
 */
public abstract class Driver {
    public static final long INT_MAX = Integer.MAX_VALUE;

    /** The language's name in describe and hello. */
    protected abstract String language();

    /** Models with their one-line descriptions. */
    protected abstract Map<String, String> models();

    /** Benchmarks: --param domain, and per model the shapes and options. */
    protected abstract Map<String, Benchmark> benchmarks();

    /** hello's runtime: the runtime and how it was configured. */
    protected abstract String runtime();

    /** Metrics the runtime itself gives after the last iteration, beside the kernel's (none unless overridden). */
    protected Map<String, Number> runtimeMetrics(Request request) {
        return Collections.emptyMap();
    }

    /** One timed iteration: the kernel's time, its result string, and the metrics it produced. */
    public static final class Outcome {
        public final long ns;
        public final String result;
        public final Map<String, Number> metrics;

        public Outcome(long ns, String result, Map<String, Number> metrics) {
            this.ns = ns;
            this.result = result;
            this.metrics = metrics;
        }
    }

    /** A benchmark with its parameters checked, ready to run iterations. */
    public interface Bench {
        Outcome iterate() throws Exception;
    }

    /** Bad usage: one line on stderr, exit status 2, nothing on stdout. */
    public static final class UsageError extends Exception {
        public UsageError(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The table: what a binary serves. `describe` prints it; the argument checks read it.

    /**
     * The domain of an option or of --param: exactly one of int bounds, a list of values, a pattern; a default
     * (documentation only) and, where an option's bound is narrower than its benchmark declares, the reason.
     */
    public static final class Domain {
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
        public Domain because(String why) {
            return new Domain(isInt, min, max, values, pattern, dflt, why);
        }

        /** A decimal integer within [min, max]; either bound may be null (open). */
        public static Domain ints(Long min, Long max, String dflt) {
            return new Domain(true, min, max, null, null, dflt, null);
        }

        public static Domain values(String dflt, String... values) {
            return new Domain(false, null, null, Collections.unmodifiableList(Arrays.asList(values)), null, dflt, null);
        }

        public static Domain pattern(String regex, String dflt) {
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
    public interface Factory {
        Bench create(Request r) throws UsageError;
    }

    public static final class Benchmark {
        final Domain param;
        final Factory factory;
        final Map<String, Served> models = new LinkedHashMap<>();

        public Benchmark(Domain param, Factory factory) {
            this.param = param;
            this.factory = factory;
        }

        /** The model serves these shapes (the faithful one first) with these options. */
        public Benchmark serve(String model, List<String> shapes, Map<String, Domain> options) {
            models.put(model, new Served(shapes, options));
            return this;
        }

        /** A benchmark from a checked request. */
        public Bench create(Request r) throws UsageError {
            return factory.create(r);
        }
    }

    /** Options in the order given: a name, its domain, a name, its domain... */
    public static Map<String, Domain> options(Object... keyDomain) {
        Map<String, Domain> m = new LinkedHashMap<>();
        for (int i = 0; i < keyDomain.length; i += 2) m.put((String) keyDomain[i], (Domain) keyDomain[i + 1]);
        return m;
    }

    /** The describe line's object, built from the table. */
    Map<String, Object> describe() {
        Map<String, Object> benchmarks = new LinkedHashMap<>();
        for (Map.Entry<String, Benchmark> b : benchmarks().entrySet()) {
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
        d.put("language", language());
        d.put("models", models());
        d.put("benchmarks", benchmarks);
        return Collections.<String, Object>singletonMap("describe", d);
    }

    // ---------------------------------------------------------------------------------------------
    // The command line: <benchmark> --model M --param P --iterations K [--workers W] [--option k=v]...

    /** A command line checked against the table; options hold every key of the model, defaults filled in. */
    public static final class Request {
        public final String benchmark;
        public final String model;
        public final String shape;
        public final String param;
        public final int iterations;
        public final int workers;
        public final Map<String, String> options;

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
        public long paramInt() {
            return Long.parseLong(param);
        }

        public String option(String key) {
            return options.get(key);
        }

        /** An int option (already checked against its int domain). */
        public long intOption(String key) {
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

    Request parse(String[] argv) throws UsageError {
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
        Benchmark b = benchmarks().get(benchmark);
        if (b == null) {
            throw new UsageError("unknown benchmark '" + benchmark + "' (known: " + String.join(", ", benchmarks().keySet()) + ")");
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

    /** The whole program: describe, or one request's hello, iterations and metrics; then the JVM halts. */
    public final void run(String[] argv) {
        PrintStream out;
        try {
            out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new AssertionError("every JVM has UTF-8", e);
        }
        System.setOut(System.err);
        String name = "concbench-" + language();
        if (argv.length == 1 && argv[0].equals("describe")) {
            out.println(Json.write(describe()));
            out.flush();
            Runtime.getRuntime().halt(0);
        }
        Request request;
        Bench bench;
        try {
            request = parse(argv);
            bench = benchmarks().get(request.benchmark).create(request);
        } catch (UsageError e) {
            // One line, whatever the culprit holds.
            System.err.println(name + ": " + e.getMessage().replace("\r", "\\r").replace("\n", "\\n"));
            System.err.flush();
            Runtime.getRuntime().halt(2);
            return;
        }
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("protocol", 1);
        hello.put("language", language());
        hello.put("runtime", runtime());
        hello.put("model", request.model);
        out.println(Json.write(Collections.singletonMap("hello", hello)));
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
            System.err.println(name + ": " + request.benchmark + " failed: " + t);
            System.err.flush();
            out.flush();
            Runtime.getRuntime().halt(1);
        }
        if (last != null) {
            // A metric that cannot be computed (NaN, infinite) is left out, never written as null (docs/describe.md).
            Map<String, Object> finite = new LinkedHashMap<>(last);
            finite.putAll(runtimeMetrics(request));
            finite.values().removeIf(v -> v instanceof Double && !Double.isFinite((Double) v));
            if (!finite.isEmpty()) {
                out.println(Json.write(Collections.singletonMap("metrics", finite)));
            }
        }
        out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    /** A small JSON writer (the JDK has none): maps (in their order), lists, strings, numbers, booleans, null. */
    public static final class Json {
        private Json() {
        }

        public static String write(Object value) {
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
