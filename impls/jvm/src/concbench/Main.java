package concbench;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * concbench-jvm: the protocol driver. Parses and checks the whole command line first (any problem: one
 * line on stderr, exit 2, nothing on stdout), then prints hello, one line per timed iteration and the
 * metrics of the last iteration. stdout carries protocol lines only; System.out is pointed at stderr so
 * that nothing else can reach it.
 */
public final class Main {
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

    /** Models, and for each the benchmarks it serves with their shapes, faithful first (as in impl.toml). */
    static final Map<String, Map<String, List<String>>> MODELS = new LinkedHashMap<>();
    static final Map<String, List<String>> OPTION_KEYS = new LinkedHashMap<>();

    static {
        Map<String, List<String>> threads = new LinkedHashMap<>();
        threads.put("big", Arrays.asList("pool"));
        threads.put("chameneos", Arrays.asList("rendezvous"));
        threads.put("fannkuch", Arrays.asList("pool", "counter"));
        MODELS.put("threads", threads);
        Map<String, List<String>> forkjoin = new LinkedHashMap<>();
        forkjoin.put("fannkuch", Arrays.asList("pool"));
        MODELS.put("forkjoin", forkjoin);
        OPTION_KEYS.put("big", Arrays.asList("shape", "pings", "hood"));
        OPTION_KEYS.put("chameneos", Arrays.asList("shape", "variant", "meetings"));
        OPTION_KEYS.put("fannkuch", Arrays.asList("shape", "chunks"));
    }

    public static void main(String[] argv) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Args args;
        Bench bench;
        try {
            args = Args.parse(argv);
            bench = create(args);
        } catch (Args.UsageError e) {
            System.err.println("concbench-jvm: " + e.getMessage());
            System.err.flush();
            System.exit(2);
            return;
        }
        out.println("{\"hello\": {\"protocol\": 1, \"language\": \"jvm\", \"runtime\": " + quote(runtime())
                + ", \"model\": " + quote(args.model) + "}}");
        out.flush();
        Map<String, Number> last = null;
        try {
            for (int i = 0; i < args.iterations; i++) {
                Outcome o = bench.iterate();
                out.println("{\"iteration\": " + i + ", \"ns\": " + o.ns + ", \"result\": " + quote(o.result) + "}");
                out.flush();
                last = o.metrics;
            }
        } catch (Throwable t) {
            System.err.println("concbench-jvm: " + args.benchmark + " failed: " + t);
            System.err.flush();
            out.flush();
            Runtime.getRuntime().halt(1);
        }
        if (last != null && !last.isEmpty()) {
            out.println("{\"metrics\": " + metricsJson(last) + "}");
        }
        out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    static Bench create(Args a) throws Args.UsageError {
        List<String> keys = OPTION_KEYS.get(a.benchmark);
        if (keys == null) {
            throw new Args.UsageError("unknown benchmark '" + a.benchmark + "' (known: " + String.join(", ", OPTION_KEYS.keySet()) + ")");
        }
        Map<String, List<String>> served = MODELS.get(a.model);
        if (served == null) {
            throw new Args.UsageError("unknown model '" + a.model + "' (known: " + String.join(", ", MODELS.keySet()) + ")");
        }
        List<String> shapes = served.get(a.benchmark);
        if (shapes == null) {
            throw new Args.UsageError("model '" + a.model + "' does not serve " + a.benchmark);
        }
        for (String key : a.options.keySet()) {
            if (!keys.contains(key)) {
                throw new Args.UsageError("unknown option '" + key + "' for " + a.benchmark + " (known: " + String.join(", ", keys) + ")");
            }
        }
        String shape = a.option("shape", shapes.get(0));
        if (!shapes.contains(shape)) {
            throw new Args.UsageError("unknown shape '" + shape + "' for " + a.benchmark + " in model " + a.model
                    + " (known: " + String.join(", ", shapes) + ")");
        }
        switch (a.benchmark) {
            case "big": return Big.create(a, shape);
            case "chameneos": return Chameneos.create(a, shape);
            default: return Fannkuch.create(a, a.model, shape);
        }
    }

    static String runtime() {
        return System.getProperty("java.vm.name", "JVM") + " " + System.getProperty("java.runtime.version", System.getProperty("java.version", "?"))
                + " (" + System.getProperty("java.vm.vendor", "?") + "), availableProcessors=" + Runtime.getRuntime().availableProcessors();
    }

    static String metricsJson(Map<String, Number> m) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Number> e : m.entrySet()) {
            if (sb.length() > 1) sb.append(", ");
            Number v = e.getValue();
            String text;
            if (v instanceof Double || v instanceof Float) {
                double d = v.doubleValue();
                text = Double.isFinite(d) ? Double.toString(d) : "0";
            } else {
                text = Long.toString(v.longValue());
            }
            sb.append(quote(e.getKey())).append(": ").append(text);
        }
        return sb.append("}").toString();
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}
