package concbench;

import java.util.LinkedHashMap;
import java.util.Map;

/** The protocol's command line: <benchmark> --model M --param P --iterations K [--workers W] [--option k=v]... */
final class Args {
    /** Bad usage: one line on stderr, exit status 2, nothing on stdout. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    String benchmark;
    String model;
    String param;
    int iterations;
    int workers;
    final Map<String, String> options = new LinkedHashMap<>();

    static Args parse(String[] argv) throws UsageError {
        Args a = new Args();
        if (argv.length == 0) {
            throw new UsageError("usage: <benchmark> --model <model> --param <value> --iterations <k> [--workers <w>] [--option key=value]...");
        }
        if (argv[0].startsWith("-")) {
            throw new UsageError("the first argument must be the benchmark, got '" + argv[0] + "'");
        }
        a.benchmark = argv[0];
        String iterations = null;
        String workers = null;
        for (int i = 1; i < argv.length; i += 2) {
            String flag = argv[i];
            if (!flag.equals("--model") && !flag.equals("--param") && !flag.equals("--iterations")
                    && !flag.equals("--workers") && !flag.equals("--option")) {
                throw new UsageError("unknown argument '" + flag + "'");
            }
            if (i + 1 >= argv.length) {
                throw new UsageError(flag + " needs a value");
            }
            String value = argv[i + 1];
            switch (flag) {
                case "--model": a.model = value; break;
                case "--param": a.param = value; break;
                case "--iterations": iterations = value; break;
                case "--workers": workers = value; break;
                default: {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new UsageError("--option wants key=value, got '" + value + "'");
                    }
                    a.options.put(value.substring(0, eq), value.substring(eq + 1));
                }
            }
        }
        if (a.model == null) throw new UsageError("missing --model");
        if (a.param == null) throw new UsageError("missing --param");
        if (iterations == null) throw new UsageError("missing --iterations");
        a.iterations = positive("--iterations", iterations);
        a.workers = workers == null ? Runtime.getRuntime().availableProcessors() : positive("--workers", workers);
        return a;
    }

    /** A decimal integer ≥ 1 that fits in an int. */
    static int positive(String what, String text) throws UsageError {
        int v = nonNegative(what, text);
        if (v < 1) throw new UsageError(what + " must be at least 1, got '" + text + "'");
        return v;
    }

    /** A decimal integer ≥ 0 that fits in an int. */
    static int nonNegative(String what, String text) throws UsageError {
        if (text.isEmpty() || text.length() > 10) throw new UsageError("malformed " + what + ": '" + text + "'");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') throw new UsageError("malformed " + what + ": '" + text + "'");
        }
        long v = Long.parseLong(text);
        if (v > Integer.MAX_VALUE) throw new UsageError(what + " is too large: '" + text + "'");
        return (int) v;
    }

    /** The option's value, or the default when it was not given. */
    String option(String key, String def) {
        String v = options.get(key);
        return v == null ? def : v;
    }
}
