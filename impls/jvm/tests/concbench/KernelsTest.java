package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Unit tests of the kernels (run by `make test`). Expected values are computed here, independently of the
 * kernels: fannkuch by brute force over every index (perm(i) decoded on its own, no Mazurov step),
 * chameneos by its closed forms (M place meetings, 2M creature meetings, no self-meetings, the colour sum
 * mod 3 is invariant), big by drawing every worker's targets directly (big.md: messages = 2NP and the
 * checksum of the pings received). Every shape is run through its Bench at several small sizes and worker
 * counts. Prints "N passed, M failed"; exits 1 on any failure.
 */
public final class KernelsTest {
    private static int passed;
    private static int failed;

    static void check(boolean ok, String label) {
        if (ok) {
            passed++;
        } else {
            failed++;
            System.out.println("FAIL: " + label);
        }
    }

    static void equal(Object got, Object want, String label) {
        check(want.equals(got), label + ": got " + got + ", want " + want);
    }

    // ---- fannkuch ------------------------------------------------------------------------------

    static long factorial(int n) {
        long f = 1;
        for (int i = 2; i <= n; i++) f *= i;
        return f;
    }

    /** perm(i) exactly as fannkuch.md defines it: p = identity, then rotate p[0..k] left by i div k! for k = n-1..1. */
    static int[] perm(int n, long i) {
        List<Integer> p = new ArrayList<>();
        for (int j = 0; j < n; j++) p.add(j);
        for (int k = n - 1; k >= 1; k--) {
            long f = factorial(k);
            int d = (int) (i / f);
            i %= f;
            List<Integer> head = new ArrayList<>(p.subList(0, k + 1));
            for (int j = 0; j <= k; j++) p.set(j, head.get((j + d) % (k + 1)));
        }
        int[] a = new int[n];
        for (int j = 0; j < n; j++) a[j] = p.get(j);
        return a;
    }

    static int flips(int[] perm) {
        int[] q = perm.clone();
        int f = 0;
        while (q[0] != 0) {
            for (int lo = 0, hi = q[0]; lo < hi; lo++, hi--) {
                int t = q[lo];
                q[lo] = q[hi];
                q[hi] = t;
            }
            f++;
        }
        return f;
    }

    /** {maxflips, checksum} over all n! indexes, one at a time. */
    static long[] bruteForce(int n) {
        long max = 0;
        long sum = 0;
        for (long i = 0; i < factorial(n); i++) {
            int f = flips(perm(n, i));
            max = Math.max(max, f);
            sum += (i % 2 == 0) ? f : -f;
        }
        return new long[] {max, sum};
    }

    static String oneBased(int[] p) {
        StringBuilder sb = new StringBuilder();
        for (int v : p) sb.append(v + 1);
        return sb.toString();
    }

    static void fannkuch() throws Exception {
        // The test's own decoding and flip count against fannkuch.md's examples.
        String[] listing = {"1234", "2134", "2314", "3214", "3124", "1324", "2341", "3241", "3421", "4321", "4231", "2431", "3412"};
        for (int i = 0; i < listing.length; i++) equal(oneBased(perm(4, i)), listing[i], "perm(4, " + i + ")");
        equal(oneBased(perm(4, 23)), "4213", "perm(4, 23)");
        equal(flips(new int[] {3, 1, 0, 4, 2}), 5, "flips {4,2,1,5,3}");

        for (int n = 3; n <= 8; n++) {
            long[] want = bruteForce(n);
            long total = factorial(n);
            // The chunk routine over arbitrary ranges, combined, against the brute force.
            for (long chunk : new long[] {1, 5, 7, total / 3 + 1, total}) {
                long max = 0;
                long sum = 0;
                for (long lo = 0; lo < total; lo += chunk) {
                    long[] r = Fannkuch.chunk(n, lo, Math.min(total, lo + chunk));
                    max = Math.max(max, r[0]);
                    sum += r[1];
                }
                equal(max + " " + sum, want[0] + " " + want[1], "fannkuch chunk routine n=" + n + " chunk=" + chunk);
            }
            // Every model and shape, through its Bench.
            String result = "maxflips=" + want[0] + " checksum=" + want[1];
            String[][] shapes = {{"threads", "pool"}, {"threads", "counter"}, {"forkjoin", "pool"}};
            for (String[] ms : shapes) {
                for (int k : new int[] {1, n, 150, (int) Math.min(total + 3, Fannkuch.MAX_CHUNKS)}) {
                    for (int w : new int[] {1, 3}) {
                        String label = "fannkuch " + ms[0] + "/" + ms[1] + " n=" + n + " chunks=" + k + " workers=" + w;
                        Driver.Outcome o = new Fannkuch(ms[0], ms[1], n, k, w).iterate();
                        equal(o.result, result, label);
                        long chunk = (total + k - 1) / k;
                        equal(o.metrics.get("tasks").longValue(), (total + chunk - 1) / chunk, label + " tasks");
                    }
                }
            }
        }
    }

    // ---- chameneos -----------------------------------------------------------------------------

    /** chameneos.md's standard ten creatures' colours, blue=0 red=1 yellow=2; creature i starts with TEN[i mod 10]. */
    static final int[] TEN = {0, 1, 2, 1, 2, 0, 1, 2, 1, 0};

    static long initialColourSumMod3(int c) {
        long s = 0;
        for (int i = 0; i < c; i++) s += TEN[i % 10];
        return s % 3;
    }

    static long metric(Map<String, Number> m, String name) {
        Number v = m.get(name);
        return v == null ? Long.MIN_VALUE : v.longValue();
    }

    static void chameneos() throws Exception {
        // complement as chameneos.md's table spells it.
        int[][] table = {{0, 0, 0}, {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 1, 1}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {2, 2, 2}};
        for (int[] row : table) equal(Chameneos.complement(row[0], row[1]), row[2], "complement(" + row[0] + ", " + row[1] + ")");

        for (Chameneos.Shape shape : Chameneos.Shape.values()) chameneosGames(shape);
    }

    /** Both variants in one shape: the closed forms hold for every shape. */
    static void chameneosGames(Chameneos.Shape shape) throws Exception {
        String suffix = shape == Chameneos.Shape.RENDEZVOUS ? "" : " " + shape.label;
        for (int c : new int[] {2, 3, 7, 10, 70, 800}) {
            for (int m : new int[] {0, 1, 7, 2000}) {
                if (c == 800 && m != 2000) continue;
                String label = "chameneos encore C=" + c + " M=" + m + suffix;
                Driver.Outcome o = new Chameneos(false, c, m, shape).iterate();
                equal(o.result, "meetings=" + m + " creature_meetings=" + 2L * m, label);
                equal(metric(o.metrics, "self_meetings"), 0L, label + " self_meetings");
                equal(metric(o.metrics, "colour_sum_mod3"), initialColourSumMod3(c), label + " colour_sum_mod3");
                check(metric(o.metrics, "min_meetings") >= 0 && metric(o.metrics, "min_meetings") <= metric(o.metrics, "max_meetings")
                        && metric(o.metrics, "max_meetings") <= m, label + " min/max meetings");
            }
        }
        for (int n : new int[] {0, 1, 5, 3000}) {
            String label = "chameneos redux n=" + n + suffix;
            Driver.Outcome o = new Chameneos(true, 0, n, shape).iterate();
            equal(o.result, "meetings3=" + n + " creature_meetings3=" + 2L * n + " meetings10=" + n + " creature_meetings10=" + 2L * n, label);
            equal(metric(o.metrics, "self_meetings"), 0L, label + " self_meetings");
            equal(metric(o.metrics, "colour_sum_mod3_3"), initialColourSumMod3(3), label + " colour_sum_mod3_3");
            equal(metric(o.metrics, "colour_sum_mod3_10"), initialColourSumMod3(10), label + " colour_sum_mod3_10");
        }
    }

    // ---- big -----------------------------------------------------------------------------------

    /** big.md's closed form: each worker's P targets drawn directly from its LCG32; "messages=.. checksum=..", min, max. */
    static Object[] bigExpected(int n, int p, int h) {
        long[] recv = new long[n];
        for (int w = 0; w < n; w++) {
            int g = w / h;
            int size = Math.min(n, (g + 1) * h) - g * h;
            long state = w;
            for (int s = 0; s < p; s++) {
                state = (1664525L * state + 1013904223L) % (1L << 32);
                recv[g * h + (int) (state % size)]++;
            }
        }
        long checksum = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int w = 0; w < n; w++) {
            checksum += recv[w] * (w + 1);
            min = Math.min(min, recv[w]);
            max = Math.max(max, recv[w]);
        }
        return new Object[] {"messages=" + 2L * n * p + " checksum=" + Long.toUnsignedString(checksum), min, max};
    }

    static void big() throws Exception {
        int[][] sizes = {{1, 0, 1}, {1, 5, 1}, {5, 0, 2}, {7, 13, 3}, {20, 200, 1000}, {50, 100, 20}, {64, 50, 16}};
        for (int[] s : sizes) {
            Object[] want = bigExpected(s[0], s[1], s[2]);
            for (int w : new int[] {1, 2, 4}) {
                String label = "big threads/pool N=" + s[0] + " P=" + s[1] + " H=" + s[2] + " workers=" + w;
                Driver.Outcome o = new Big(s[0], s[1], s[2], w).iterate();
                equal(o.result, want[0], label);
                equal(o.metrics.get("min_recv").longValue(), want[1], label + " min_recv");
                equal(o.metrics.get("max_recv").longValue(), want[2], label + " max_recv");
            }
        }
    }

    // ---- the coordination benchmarks (mutex, prodcons, condition, threadring) ----------------------

    static final int[] COORD_N = {1, 2, 3, 8};
    static final long[] COORD_M = {0, 1, 7, 300};

    static void mutex() throws Exception {
        for (String shape : new String[] {"lock", "reentrant-lock"}) {
            for (int n : COORD_N) {
                for (long m : COORD_M) {
                    Driver.Bench b = new Coordination.Mutex(shape, n, m);
                    for (int it = 0; it < 2; it++) equal(b.iterate().result, "count=" + n * m, "mutex " + shape + " n=" + n + " m=" + m + " it=" + it);
                }
            }
        }
    }

    static void prodcons() throws Exception {
        for (String shape : new String[] {"paper", "notify-each"}) {
            for (int n : COORD_N) {
                for (long m : COORD_M) {
                    long total = n * m;
                    // The items are 1..N: their sum, added one by one (no closed form shared with the kernel).
                    long sum = 0;
                    for (long v = 1; v <= total; v++) sum += v;
                    Driver.Bench b = new Coordination.ProdCons(shape, n, m);
                    for (int it = 0; it < 2; it++) {
                        equal(b.iterate().result, "consumed=" + total + " sum=" + sum, "prodcons " + shape + " n=" + n + " m=" + m + " it=" + it);
                    }
                }
            }
        }
        // The 64-bit wrap of the checksum: Σ 1..N for N = 2^32 is 2^63 + 2^31, printed unsigned.
        equal(Long.toUnsignedString((1L << 63) + (1L << 31)), "9223372039002259456", "prodcons unsigned sum formatting");
    }

    static void condition() throws Exception {
        for (String shape : new String[] {"paper", "broadcast", "two-cv"}) {
            for (int n : COORD_N) {
                for (long m : COORD_M) {
                    Driver.Bench b = new Coordination.Parity(shape, n, m);
                    for (int it = 0; it < 2; it++) equal(b.iterate().result, "value=" + 2 * n * m, "condition " + shape + " n=" + n + " m=" + m + " it=" + it);
                }
            }
        }
    }

    /** threadring by walking the token hop by hop: entity 1 holds N, each hop moves to the successor with one less. */
    static int ringHolderOfZero(int ring, int tokens) {
        int id = 1;
        for (int t = tokens; t > 0; t--) id = id % ring + 1;
        return id;
    }

    static void threadring() throws Exception {
        equal(ringHolderOfZero(503, 1000), (1000 % 503) + 1, "threadring walk against (N mod R) + 1");
        int[][] sizes = {{2, 0}, {2, 1}, {2, 2}, {2, 1001}, {3, 3}, {3, 5}, {7, 6}, {7, 7}, {7, 100}, {503, 0}, {503, 502}, {503, 1000}};
        for (String shape : new String[] {"asio-pool", "blocking", "synchronous-queue"}) {
            for (int[] s : sizes) {
                Driver.Bench b = new Coordination.ThreadRing(shape, s[0], s[1]);
                for (int it = 0; it < 2; it++) {
                    equal(b.iterate().result, "id=" + ringHolderOfZero(s[0], s[1]), "threadring " + shape + " R=" + s[0] + " N=" + s[1] + " it=" + it);
                }
            }
        }
    }

    /** Each coordination benchmark's default shape and options, through the table's parse and factory. */
    static void coordinationDefaults() throws Exception {
        String[][] lines = {
            {"mutex", "--model", "threads", "--param", "10", "--iterations", "1"},
            {"prodcons", "--model", "threads", "--param", "10", "--iterations", "1"},
            {"condition", "--model", "threads", "--param", "10", "--iterations", "1"},
            {"threadring", "--model", "threads", "--param", "10", "--iterations", "1"},
        };
        long n = 32;
        long total = n * 10;
        String[] want = {"count=" + total, "consumed=" + total + " sum=" + total * (total + 1) / 2, "value=" + 2 * total,
            "id=" + ringHolderOfZero(503, 10)};
        for (int i = 0; i < lines.length; i++) {
            Driver.Request r = new Main().parse(lines[i]);
            equal(Main.BENCHMARKS.get(r.benchmark).create(r).iterate().result, want[i], lines[i][0] + " defaults");
        }
    }

    // ---- the JSON writer -----------------------------------------------------------------------

    static void json() {
        equal(Driver.Json.write("a\"b\\c\n\t\u0001é"), "\"a\\\"b\\\\c\\n\\t\\u0001\\u00e9\"", "JSON string escapes");
        equal(Driver.Json.write(Map.of("k", List.of(1, -2L, "x"))), "{\"k\": [1, -2, \"x\"]}", "JSON map and list");
        equal(Driver.Json.write(0.5), "0.5", "JSON double");
        Driver.Domain d = Driver.Domain.ints(1L, 5L, "2");
        equal(Driver.Json.write(d.json()), "{\"int\": {\"min\": 1, \"max\": 5}, \"default\": \"2\"}", "domain without a reason");
        equal(Driver.Json.write(d.because("why").json()), "{\"int\": {\"min\": 1, \"max\": 5}, \"default\": \"2\", \"reason\": \"why\"}",
                "domain with a reason");
    }

    public static void main(String[] args) {
        try {
            json();
            fannkuch();
            chameneos();
            big();
            mutex();
            prodcons();
            condition();
            threadring();
            coordinationDefaults();
        } catch (Throwable t) {
            failed++;
            System.out.println("FAIL: exception " + t);
            t.printStackTrace(System.out);
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.out.flush();
        Runtime.getRuntime().halt(failed == 0 ? 0 : 1);
    }
}
