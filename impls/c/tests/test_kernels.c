/* Unit tests of concbench-c's kernels (run by `make test`). Expected values are computed here, never
 * copied from the benchmarks' .toml files:
 *
 *   fannkuch       a brute force (each permutation decoded from its index as the spec defines it, flips
 *                  counted by plain prefix reversal) against the seq loop at n = 1..8; then every shape
 *                  (counter with 1-3 threads, apply, group) against the seq loop at n = 3..8 and several
 *                  chunk counts, two iterations each; and the result-slot reset: a task that silently did
 *                  not run in the second iteration must make the iteration fail.
 *   spawn-scaling  every shape against the others and against work(i) summed here from the spec's LCG.
 *   countdown      the seq search's solutions checked one by one (valid nodes, every number used once, the
 *                  goal reached, canonical text) and, for up to 5 numbers, against a brute force over set
 *                  partitions; the checksum recomputed from the strings; the split shapes (libdispatch,
 *                  pthreads; window 1-3) against the seq search; the instance parser.
 *   cowichan       the LCG's documented check values and randmat against a masked 64-bit generator; rule 2's
 *                  row partition (the spec's examples and its properties for R <= 40, W <= 9); every stage's
 *                  row-block kernel run block by block at W = 1, 2, 3, 7 (n = 1..40, so n < W too) against
 *                  one block of all rows; thresh's tie rule and winnow's (value, i, j) sort and pick on
 *                  hand-made inputs; outer and product on hand-made points, product's summation order and
 *                  its rounding of every product (against FMA); q and the wrapping checksums; each
 *                  benchmark's cw_new/cw_iteration against the kernels composed here (chain = product).
 *   table          the describe table agrees with the kernels (named instances inside the countdown
 *                  --param domain, defaults inside their domains, --param inside nelts' domain, reasons
 *                  only on bounds, apply's slots and the threads pool bounded, every model described).
 *
 * The last line is "N passed, M failed"; the exit status is 1 if any check failed.
 */
#define _GNU_SOURCE
#include "../src/common.h"
#include "../src/table.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

__attribute__((format(printf, 2, 3)))
static int check(int ok, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return 1;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    return 0;
}

/* ================================================================== fannkuch */

/* The spec's perm(i), decoded from scratch for every index. */
static void bf_perm(int n, uint64_t i, int *p)
{
    uint64_t fact[FK_MAXN + 1];
    fact[0] = 1;
    for (int j = 1; j <= n; j++)
        fact[j] = fact[j - 1] * (uint64_t)j;
    for (int j = 0; j < n; j++)
        p[j] = j;
    for (int k = n - 1; k >= 1; k--) {
        uint64_t d = i / fact[k];
        i %= fact[k];
        int rot[FK_MAXN];
        for (int j = 0; j <= k; j++)
            rot[j] = p[(j + (int)d) % (k + 1)];
        memcpy(p, rot, (size_t)(k + 1) * sizeof(int));
    }
}

/* Flips: reverse the first p[0] + 1 elements until p[0] is 0. */
static int64_t bf_flips(int n, const int *perm)
{
    int p[FK_MAXN];
    memcpy(p, perm, (size_t)n * sizeof(int));
    int64_t flips = 0;
    while (p[0] != 0) {
        for (int lo = 0, hi = p[0]; lo < hi; lo++, hi--) {
            int t = p[lo];
            p[lo] = p[hi];
            p[hi] = t;
        }
        flips++;
    }
    return flips;
}

static fk_result bf_fannkuch(int n)
{
    uint64_t total = 1;
    for (int j = 2; j <= n; j++)
        total *= (uint64_t)j;
    fk_result r = {0, 0};
    int p[FK_MAXN];
    for (uint64_t i = 0; i < total; i++) {
        bf_perm(n, i, p);
        int64_t f = bf_flips(n, p);
        if (f > r.maxflips)
            r.maxflips = f;
        r.checksum += (i % 2 == 0) ? f : -f;
    }
    return r;
}

static fk_result fk_once(fk_shape shape, int n, uint64_t chunks, int workers, int iterations)
{
    fk_ctx *c = fk_new(shape, n, chunks, workers);
    fk_result r = {-1, -1};
    for (int it = 0; it < iterations; it++) {
        int64_t ns;
        uint64_t missing;
        if (fk_iteration(c, &r, &ns, &missing) != 0) {
            check(0, "fannkuch shape %d n=%d chunks=%llu: slot %llu unwritten", shape, n,
                  (unsigned long long)chunks, (unsigned long long)missing);
            r.maxflips = r.checksum = -1;
        }
    }
    fk_free(c);
    return r;
}

static void test_fannkuch(void)
{
    for (int n = 1; n <= 8; n++) {
        fk_result want = bf_fannkuch(n);
        fk_result got = fk_once(FK_LOOP, n, 150, 1, 1);
        check(got.maxflips == want.maxflips && got.checksum == want.checksum,
              "fannkuch loop n=%d: maxflips=%lld checksum=%lld, brute force %lld %lld", n,
              (long long)got.maxflips, (long long)got.checksum, (long long)want.maxflips,
              (long long)want.checksum);
    }

    static const struct { fk_shape shape; int workers; const char *name; } shapes[] = {
        {FK_COUNTER, 1, "counter/1"}, {FK_COUNTER, 2, "counter/2"}, {FK_COUNTER, 3, "counter/3"},
        {FK_APPLY, 2, "apply"}, {FK_GROUP, 2, "group"}, {FK_LOOP, 1, "loop"},
    };
    for (int n = 3; n <= 8; n++) {
        uint64_t total = 1;
        for (int j = 2; j <= n; j++)
            total *= (uint64_t)j;
        fk_result want = fk_once(FK_LOOP, n, 1, 1, 1);      /* one chunk: the plain sequential loop */
        const uint64_t chunk_counts[] = {1, 2, 7, (uint64_t)n, 150, total, total + 3};
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            for (size_t k = 0; k < sizeof chunk_counts / sizeof chunk_counts[0]; k++) {
                fk_result got = fk_once(shapes[s].shape, n, chunk_counts[k], shapes[s].workers, 2);
                check(got.maxflips == want.maxflips && got.checksum == want.checksum,
                      "fannkuch %s n=%d chunks=%llu: maxflips=%lld checksum=%lld, loop %lld %lld",
                      shapes[s].name, n, (unsigned long long)chunk_counts[k], (long long)got.maxflips,
                      (long long)got.checksum, (long long)want.maxflips, (long long)want.checksum);
            }
        }
    }

    /* A task that silently does not run in iteration 2 must not pass on iteration 1's slot. */
    const fk_shape slotted[] = {FK_APPLY, FK_GROUP};
    for (size_t s = 0; s < 2; s++) {
        fk_ctx *c = fk_new(slotted[s], 7, 10, 2);
        fk_result r;
        int64_t ns;
        uint64_t missing = UINT64_MAX;
        check(fk_iteration(c, &r, &ns, &missing) == 0, "fannkuch shape %d: iteration 1 failed",
              slotted[s]);
        fk_test_skip_task(c, 3);
        int rc = fk_iteration(c, &r, &ns, &missing);
        check(rc == -1 && missing == 3, "fannkuch shape %d: a skipped task went unnoticed (rc %d, slot %llu)",
              slotted[s], rc, (unsigned long long)missing);
        fk_test_skip_task(c, UINT64_MAX);
        check(fk_iteration(c, &r, &ns, &missing) == 0, "fannkuch shape %d: iteration 3 failed", slotted[s]);
        fk_free(c);
    }
    fk_result slots[4] = {{3, 1}, {5, -2}, {FK_UNWRITTEN, 0}, {1, 4}};
    fk_result total;
    uint64_t missing = 0;
    check(fk_combine_slots(slots, 4, &total, &missing) == -1 && missing == 2,
          "fk_combine_slots accepted an unwritten slot");
    slots[2] = (fk_result){4, 7};
    check(fk_combine_slots(slots, 4, &total, &missing) == 0 && total.maxflips == 5 && total.checksum == 10,
          "fk_combine_slots: maxflips=%lld checksum=%lld, want 5 10", (long long)total.maxflips,
          (long long)total.checksum);
}

/* ================================================================== spawn-scaling */

static uint64_t spec_sum(uint32_t n)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = i;
        for (int r = 0; r < 32; r++)
            s = 1664525u * s + 1013904223u;
        sum += s % 1000u + 1u;
    }
    return sum;
}

static void test_spawn_scaling(void)
{
    const uint32_t sizes[] = {1, 2, 3, 64, 1000, 2048, 4097};
    static const struct { ss_shape shape; int workers; const char *name; } shapes[] = {
        {SS_LOOP, 1, "loop"}, {SS_GROUP, 2, "group"},
        {SS_FUTURES, 1, "futures/1"}, {SS_FUTURES, 2, "futures/2"}, {SS_FUTURES, 3, "futures/3"},
    };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t n = sizes[k];
        uint64_t want = spec_sum(n);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            ss_ctx *c = ss_new(shapes[s].shape, n, shapes[s].workers);
            for (int it = 0; it < 2; it++) {
                int64_t ns;
                uint64_t got = ss_iteration(c, &ns);
                check(got == want, "spawn-scaling %s n=%u iteration %d: sum %llu, want %llu", shapes[s].name, n,
                      it, (unsigned long long)got, (unsigned long long)want);
            }
            ss_free(c);
        }
    }
}

/* ================================================================== countdown */

static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- reading a canonical solution string back */

enum { K_LEAF = 0, K_ADD = 1, K_MUL = 2 };

typedef struct {
    const char *p;
    uint64_t leaves[CD_MAXK * 2];
    int nleaves;
    const char *why;            /* the first defect found */
} reader;

/* One node, up to ')' or the end: its value and kind; 0 on a defect. */
static int read_node(reader *r, uint64_t *value, int *kind)
{
    int k = 0, operands = 0, seen_reverse = 0;
    uint64_t vals[CD_MAXK * 2];
    int sides[CD_MAXK * 2];
    const char *last_text[2] = {NULL, NULL};
    size_t last_len[2] = {0, 0};
    for (;;) {
        int side = 0;
        char c = *r->p;
        if (operands > 0 || c == '-' || c == '/') {
            if (c != '+' && c != '-' && c != '*' && c != '/') {
                r->why = "an operator expected";
                return 0;
            }
            int ck = (c == '+' || c == '-') ? K_ADD : K_MUL;
            if (k != 0 && ck != k) {
                r->why = "+/- and */ mixed in one node";
                return 0;
            }
            k = ck;
            side = (c == '-' || c == '/');
            r->p++;
        }
        const char *start = r->p;
        uint64_t v;
        if (*r->p == '(') {
            r->p++;
            int sub;
            if (!read_node(r, &v, &sub))
                return 0;
            if (*r->p != ')') {
                r->why = "')' expected";
                return 0;
            }
            r->p++;
            if (k != 0 && sub == k) {
                r->why = "a node directly under a node of its own kind";
                return 0;
            }
            if (k == 0)
                k = sub == K_ADD ? K_MUL : K_ADD;   /* the first operand's parent has the other kind */
        } else if (*r->p >= '0' && *r->p <= '9') {
            char *end;
            v = strtoull(r->p, &end, 10);
            r->p = end;
            if (r->nleaves == (int)(sizeof r->leaves / sizeof r->leaves[0])) {
                r->why = "too many leaves";
                return 0;
            }
            r->leaves[r->nleaves++] = v;
        } else {
            r->why = "an operand expected";
            return 0;
        }
        /* canonical order: forward operands first, each side sorted ascending by bytes */
        size_t len = (size_t)(r->p - start);
        if (side == 0 && seen_reverse) {
            r->why = "a forward operand after a reverse one";
            return 0;
        }
        seen_reverse |= side;
        if (last_text[side] != NULL) {
            size_t m = len < last_len[side] ? len : last_len[side];
            int c2 = memcmp(last_text[side], start, m);
            if (c2 > 0 || (c2 == 0 && last_len[side] > len)) {
                r->why = "operands not sorted";
                return 0;
            }
        }
        last_text[side] = start;
        last_len[side] = len;
        if (operands == (int)(sizeof vals / sizeof vals[0])) {
            r->why = "too many operands";
            return 0;
        }
        vals[operands] = v;
        sides[operands] = side;
        operands++;
        if (*r->p == '\0' || *r->p == ')')
            break;
    }
    if (operands < 2) {
        r->why = "a node with fewer than 2 operands";
        return 0;
    }
    uint64_t fwd = k == K_ADD ? 0 : 1, rev = fwd;  /* empty sum 0, empty product 1 */
    for (int i = 0; i < operands; i++) {
        uint64_t *acc = sides[i] ? &rev : &fwd;
        *acc = k == K_ADD ? *acc + vals[i] : *acc * vals[i];
    }
    if (k == K_ADD ? !(fwd > rev) : (fwd % rev != 0)) {
        r->why = "an invalid node";
        return 0;
    }
    *value = k == K_ADD ? fwd - rev : fwd / rev;
    *kind = k;
    return 1;
}

/* The defect of solution s for instance in, or NULL if s is a valid solution. */
static const char *solution_defect(const cd_instance *in, const char *s)
{
    reader r = {s, {0}, 0, NULL};
    uint64_t v;
    int kind;
    if (!read_node(&r, &v, &kind))
        return r.why;
    if (*r.p != '\0')
        return "trailing text";
    if (v != in->goal)
        return "the value is not the goal";
    if (r.nleaves != in->k)
        return "not every number used exactly once";
    uint64_t want[CD_MAXK];
    for (int i = 0; i < in->k; i++)
        want[i] = in->numbers[i];
    qsort(want, (size_t)in->k, sizeof want[0], cmp_u64);
    qsort(r.leaves, (size_t)r.nleaves, sizeof r.leaves[0], cmp_u64);
    if (memcmp(want, r.leaves, (size_t)in->k * sizeof want[0]) != 0)
        return "not every number used exactly once";
    return NULL;
}

/* ---- brute force over set partitions, straight from the declarative definition (k <= 6) */

typedef struct {
    uint64_t value;
    char *text;
} bf_tree;

typedef struct {
    bf_tree *items;
    size_t n, cap;
    int done;
} bf_list;

static const cd_instance *bf_in;
static bf_list bf_memo[1 << 6][3];

static void bf_push(bf_list *l, uint64_t value, const char *text)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
        if (l->items == NULL)
            abort();
    }
    l->items[l->n].value = value;
    l->items[l->n].text = strdup(text);
    l->n++;
}

static const bf_list *bf_nodes(unsigned mask, int kind);

/* Every node of kind over the blocks (each block: a leaf, or a node of the other kind). */
static void bf_combine(bf_list *out, int kind, const unsigned *blocks, int m)
{
    const bf_list *opts[CD_MAXK];
    bf_list leaves[CD_MAXK];
    memset(leaves, 0, sizeof leaves);
    for (int b = 0; b < m; b++) {
        if ((blocks[b] & (blocks[b] - 1)) == 0) {   /* one position: a leaf */
            int pos = __builtin_ctz(blocks[b]);
            char t[16];
            snprintf(t, sizeof t, "%u", bf_in->numbers[pos]);
            bf_push(&leaves[b], bf_in->numbers[pos], t);
            opts[b] = &leaves[b];
        } else {
            opts[b] = bf_nodes(blocks[b], kind == K_ADD ? K_MUL : K_ADD);
        }
    }
    size_t choice[CD_MAXK] = {0};
    int any = 1;
    for (int b = 0; b < m; b++)
        any &= opts[b]->n > 0;
    while (any) {
        for (unsigned sides = 0; sides < (1u << m); sides++) {
            uint64_t f = kind == K_ADD ? 0 : 1, r = f;
            const char *texts[2][CD_MAXK];
            int nt[2] = {0, 0};
            for (int b = 0; b < m; b++) {
                const bf_tree *t = &opts[b]->items[choice[b]];
                int side = (sides >> b) & 1;
                uint64_t *acc = side ? &r : &f;
                *acc = kind == K_ADD ? *acc + t->value : *acc * t->value;
                texts[side][nt[side]++] = t->text;
            }
            if (kind == K_ADD ? !(f > r) : (f % r != 0))
                continue;
            char wrapped[2][CD_MAXK][512];
            const char *sorted[2][CD_MAXK];
            for (int side = 0; side < 2; side++) {
                for (int i = 0; i < nt[side]; i++) {
                    const char *t = texts[side][i];
                    int leaf = t[0] >= '0' && t[0] <= '9' && strpbrk(t, "+-*/") == NULL;
                    snprintf(wrapped[side][i], sizeof wrapped[side][i], leaf ? "%s" : "(%s)", t);
                    sorted[side][i] = wrapped[side][i];
                }
                qsort(sorted[side], (size_t)nt[side], sizeof(char *), cmp_str);
            }
            char text[1024];
            size_t pos = 0;
            for (int i = 0; i < nt[0]; i++)
                pos += (size_t)snprintf(text + pos, sizeof text - pos, "%s%s",
                                        i ? (kind == K_ADD ? "+" : "*") : "", sorted[0][i]);
            for (int i = 0; i < nt[1]; i++)
                pos += (size_t)snprintf(text + pos, sizeof text - pos, "%s%s", kind == K_ADD ? "-" : "/",
                                        sorted[1][i]);
            bf_push(out, kind == K_ADD ? f - r : f / r, text);
        }
        int b = 0;
        while (b < m && ++choice[b] == opts[b]->n)
            choice[b++] = 0;
        if (b == m)
            break;
    }
    for (int b = 0; b < m; b++) {
        for (size_t i = 0; i < leaves[b].n; i++)
            free(leaves[b].items[i].text);
        free(leaves[b].items);
    }
}

/* Every set partition of rest into further blocks (the lowest position opens the next block). */
static void bf_partitions(bf_list *out, int kind, unsigned rest, unsigned *blocks, int m)
{
    if (rest == 0) {
        if (m >= 2)
            bf_combine(out, kind, blocks, m);
        return;
    }
    unsigned low = rest & -rest, others = rest ^ low;
    for (unsigned sub = others;; sub = (sub - 1) & others) {
        blocks[m] = low | sub;
        bf_partitions(out, kind, rest ^ blocks[m], blocks, m + 1);
        if (sub == 0)
            break;
    }
}

static const bf_list *bf_nodes(unsigned mask, int kind)
{
    bf_list *l = &bf_memo[mask][kind];
    if (!l->done) {
        unsigned blocks[CD_MAXK];
        bf_partitions(l, kind, mask, blocks, 0);
        l->done = 1;
    }
    return l;
}

/* The sorted solution strings of in by brute force; *count of them. */
static char **bf_solutions(const cd_instance *in, size_t *count)
{
    bf_in = in;
    memset(bf_memo, 0, sizeof bf_memo);
    unsigned full = (1u << in->k) - 1;
    size_t n = 0, cap = 16;
    char **sols = malloc(cap * sizeof *sols);
    for (int kind = K_ADD; kind <= K_MUL; kind++) {
        const bf_list *l = bf_nodes(full, kind);
        for (size_t i = 0; i < l->n; i++) {
            if (l->items[i].value != in->goal)
                continue;
            if (n == cap)
                sols = realloc(sols, (cap *= 2) * sizeof *sols);
            sols[n++] = strdup(l->items[i].text);
        }
    }
    for (unsigned m = 0; m < (1u << 6); m++)
        for (int kind = 0; kind < 3; kind++) {
            for (size_t i = 0; i < bf_memo[m][kind].n; i++)
                free(bf_memo[m][kind].items[i].text);
            free(bf_memo[m][kind].items);
        }
    qsort(sols, n, sizeof *sols, cmp_str);
    *count = n;
    return sols;
}

static void free_strings(char **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

static int same_strings(char **a, size_t na, char **b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    return 1;
}

static void test_countdown_instance(const char *label, const cd_instance *in)
{
    /* the seq search */
    cd_ctx *c = cd_new(CD_PLAIN, in, 1);
    cd_result want;
    int64_t ns;
    char **sols;
    cd_iteration(c, &want, &ns, &sols);
    cd_free(c);

    size_t bad = 0;
    const char *why = NULL, *which = NULL;
    uint64_t cs = 0;
    for (size_t i = 0; i < want.solutions; i++) {
        const char *d = solution_defect(in, sols[i]);
        if (d != NULL && bad++ == 0) {
            why = d;
            which = sols[i];
        }
        if (i > 0 && strcmp(sols[i - 1], sols[i]) > 0 && bad++ == 0) {
            why = "solutions not sorted";
            which = sols[i];
        }
        cs += fnv1a64(sols[i]) * (uint64_t)(i + 1);
    }
    check(bad == 0, "countdown %s: %zu bad solutions, e.g. '%s': %s", label, bad, which ? which : "",
          why ? why : "");
    check(cs == want.checksum, "countdown %s: checksum %llu, recomputed %llu", label,
          (unsigned long long)want.checksum, (unsigned long long)cs);
    check(want.batches == 0 && want.calls > 0, "countdown %s seq: batches %llu calls %llu", label,
          (unsigned long long)want.batches, (unsigned long long)want.calls);

    if (in->k <= 5) {
        size_t nbf;
        char **bf = bf_solutions(in, &nbf);
        check(same_strings(sols, want.solutions, bf, nbf),
              "countdown %s: the seq search found %zu solutions, the brute force %zu (or other ones)", label,
              want.solutions, nbf);
        free_strings(bf, nbf);
    }

    /* the split shapes against the seq search */
    uint64_t batches = UINT64_MAX;
    const cd_shape split[] = {CD_DISPATCH, CD_THREADS};
    for (int s = 0; s < 2; s++) {
        for (int window = 1; window <= 3; window++) {
            c = cd_new(split[s], in, window);
            for (int it = 0; it < 2; it++) {
                cd_result got;
                char **gs;
                cd_iteration(c, &got, &ns, &gs);
                const char *shape = split[s] == CD_DISPATCH ? "dispatch" : "threads";
                check(got.checksum == want.checksum && same_strings(gs, got.solutions, sols, want.solutions),
                      "countdown %s %s window=%d: %zu solutions checksum %llu, seq %zu %llu", label, shape, window,
                      got.solutions, (unsigned long long)got.checksum, want.solutions,
                      (unsigned long long)want.checksum);
                check(got.calls == want.calls, "countdown %s %s window=%d: calls %llu, seq %llu", label, shape,
                      window, (unsigned long long)got.calls, (unsigned long long)want.calls);
                if (batches == UINT64_MAX)
                    batches = got.batches;
                check(got.batches == batches, "countdown %s %s window=%d: batches %llu, first run %llu", label,
                      shape, window, (unsigned long long)got.batches, (unsigned long long)batches);
                free_strings(gs, got.solutions);
            }
            cd_free(c);
        }
    }
    /* the split point is 5 values: fewer numbers, no micro-batch */
    if (in->k < 5)
        check(batches == 0, "countdown %s: %llu batches with %d numbers", label, (unsigned long long)batches,
              in->k);
    else
        check(batches > 0, "countdown %s: no batch with %d numbers", label, in->k);
    free_strings(sols, want.solutions);
}

static void test_countdown(void)
{
    char err[512];
    cd_instance in;
    const char *named[] = {"t4a", "t4b", "t5", "t6a", "t6b"};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if (check(cd_parse_instance(named[i], &in, err, sizeof err) == 0, "countdown: %s not found", named[i]))
            test_countdown_instance(named[i], &in);
    }
    /* small written-out instances: duplicates, 1s, goals reached in many ways or in none */
    const char *written[] = {"3:1-2", "1:1-1", "4:2-2", "6:1-2-3", "1:1-1-1", "10:2-3-5", "9:3-3-1-2",
                             "0:1-2-3-4", "30:2-3-5-1-4", "7:1-1-2-3-4", "100:1-2-3-4-5", "24:5-4-3-2-1-1"};
    for (size_t i = 0; i < sizeof written / sizeof written[0]; i++) {
        if (check(cd_parse_instance(written[i], &in, err, sizeof err) == 0, "countdown: %s rejected: %s",
                  written[i], err))
            test_countdown_instance(written[i], &in);
    }

    /* the parser */
    check(cd_parse_instance("952:25-50-75-100-3-6", &in, err, sizeof err) == 0 && in.goal == 952 && in.k == 6 &&
              in.numbers[0] == 25 && in.numbers[5] == 6,
          "countdown: 952:25-50-75-100-3-6 misread");
    const char *rejected[] = {"q9", "24:", "24:1--2", "24:0-2-3", "x:1-2-3", "24:5", "24:1-2-",
                              "1:65536-65536-65536", "24:+1-2", "24: 1-2"};
    for (size_t i = 0; i < sizeof rejected / sizeof rejected[0]; i++)
        check(cd_parse_instance(rejected[i], &in, err, sizeof err) != 0, "countdown: '%s' accepted", rejected[i]);
}

/* ================================================================== cowichan */

/* The spec's LCG with the state kept in 64 bits and masked after every step (the other way it allows). */
static uint32_t wide_lcg(uint64_t s)
{
    return (uint32_t)((1664525 * (s & 0xFFFFFFFFu) + 1013904223) & 0xFFFFFFFFu);
}

static uint8_t *rm_whole(uint32_t n, uint32_t seed)
{
    uint8_t *m = malloc((size_t)n * n);
    cw_randmat_rows(m, n, seed, 0, n);
    return m;
}

static uint8_t *th_whole(const uint8_t *m, uint32_t n, uint32_t p, int *t)
{
    uint64_t hist[CW_VALUES];
    int nmax;
    cw_thresh_hist_rows(m, n, 0, n, hist, &nmax);
    *t = cw_thresh_choose(hist, nmax, n, p);
    uint8_t *mask = malloc((size_t)n * n);
    cw_thresh_mask_rows(m, mask, n, *t, 0, n);
    return mask;
}

/* The sorted candidate keys of the whole matrix. */
static uint64_t *wn_sorted(const uint8_t *m, const uint8_t *mask, uint32_t n, uint64_t *count)
{
    *count = cw_winnow_count_rows(mask, n, 0, n);
    uint64_t *keys = malloc((size_t)(*count + 1) * sizeof *keys);
    check(cw_winnow_gather_rows(m, mask, n, 0, n, keys) == *count, "cowichan: gather disagrees with count");
    cw_winnow_sort(keys, *count);
    return keys;
}

static void test_cowichan_lcg_and_randmat(void)
{
    /* the check values README.md documents for the LCG */
    check(cw_lcg_step(0) == 1013904223u, "cowichan: LCG from seed 0 gives %u", cw_lcg_step(0));
    check(cw_lcg_step(0) % 100 == 23, "cowichan: first draw mod 100 from seed 0");
    check(cw_lcg_step(12345) == 87628868u, "cowichan: LCG from seed 12345 gives %u", cw_lcg_step(12345));

    /* every cell from a generator per row, seeded (S + i) mod 2^32 (the last seed wraps) */
    const uint32_t seeds[] = {0, 12345, 4294967295u};
    const uint32_t sizes[] = {1, 5, 37};
    for (size_t s = 0; s < 3; s++) {
        for (size_t k = 0; k < 3; k++) {
            uint32_t n = sizes[k];
            uint8_t *m = rm_whole(n, seeds[s]);
            int bad = 0;
            for (uint32_t i = 0; i < n; i++) {
                uint64_t state = ((uint64_t)seeds[s] + i) & 0xFFFFFFFFu;
                for (uint32_t j = 0; j < n; j++) {
                    state = wide_lcg(state);
                    bad += m[(size_t)i * n + j] != state % 100;
                }
            }
            check(bad == 0, "cowichan: randmat n=%u seed=%u has %d wrong cells", n, seeds[s], bad);
            free(m);
        }
    }
}

static void test_cowichan_partition(void)
{
    uint64_t start, h;
    const uint64_t ten_by_four[] = {2, 2, 3, 3};      /* chain.md rule 2's example */
    for (int w = 0; w < 4; w++) {
        cw_partition(10, 4, w, &start, &h);
        check(h == ten_by_four[w], "cowichan: partition 10/4 block %d has %llu rows", w, (unsigned long long)h);
    }
    for (int w = 0; w < 32; w++) {
        cw_partition(10000, 32, w, &start, &h);
        check(h == (w < 16 ? 312u : 313u), "cowichan: partition 10000/32 block %d has %llu rows", w,
              (unsigned long long)h);
    }
    /* in general: contiguous, covering, the formula, smaller blocks first, sizes within one */
    for (uint64_t rows = 0; rows <= 40; rows++) {
        for (int workers = 1; workers <= 9; workers++) {
            uint64_t next = 0, lo = UINT64_MAX, hi = 0, prev = 0;
            int ok = 1;
            for (int w = 0; w < workers; w++) {
                cw_partition(rows, workers, w, &start, &h);
                ok &= start == next && h == (rows - start) / (uint64_t)(workers - w) && h >= prev;
                next = start + h;
                prev = h;
                lo = h < lo ? h : lo;
                hi = h > hi ? h : hi;
            }
            check(ok && next == rows && hi - lo <= 1, "cowichan: partition of %llu rows over %d workers",
                  (unsigned long long)rows, workers);
        }
    }
}

/* Each stage's row-block kernel run block by block (rule 2's partition) must give what one block of all
   rows gives: the building blocks a parallel model splits. */
static void test_cowichan_blocks(void)
{
    const uint32_t sizes[] = {1, 2, 5, 13, 40};
    const int widths[] = {1, 2, 3, 7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const uint32_t n = sizes[k], seed = 99 + n;
        const uint32_t p = 30;
        const size_t cells = (size_t)n * n;
        uint8_t *m = rm_whole(n, seed);
        int t;
        uint8_t *mask = th_whole(m, n, p, &t);
        uint64_t hist[CW_VALUES], count;
        int nmax;
        cw_thresh_hist_rows(m, n, 0, n, hist, &nmax);
        uint64_t *sorted = wn_sorted(m, mask, n, &count);
        const uint64_t nelts = count < n ? count : n;
        uint32_t *points = malloc(2 * nelts * sizeof *points);
        cw_winnow_pick(sorted, count, nelts, points);
        double *d = malloc(nelts * nelts * sizeof *d), *v = malloc(nelts * sizeof *v);
        cw_outer_rows(points, nelts, 0, nelts, d, v);
        double *r = malloc(nelts * sizeof *r);
        cw_product_rows(d, v, nelts, 0, nelts, r);

        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            const int workers = widths[wi];
            uint8_t *m2 = malloc(cells), *mask2 = malloc(cells);
            uint64_t *keys2 = malloc((size_t)(count + 1) * sizeof *keys2), hist2[CW_VALUES] = {0};
            double *d2 = malloc(nelts * nelts * sizeof *d2), *v2 = malloc(nelts * sizeof *v2);
            double *r2 = malloc(nelts * sizeof *r2);
            memset(m2, 0xff, cells);
            memset(mask2, 0xff, cells);
            int max2 = 0;
            uint64_t offset = 0;
            for (int w = 0; w < workers; w++) {
                uint64_t start, h;
                cw_partition(n, workers, w, &start, &h);
                cw_randmat_rows(m2, n, seed, (uint32_t)start, (uint32_t)(start + h));
            }
            for (int w = 0; w < workers; w++) {
                uint64_t start, h, local[CW_VALUES];
                int lmax;
                cw_partition(n, workers, w, &start, &h);
                cw_thresh_hist_rows(m2, n, (uint32_t)start, (uint32_t)(start + h), local, &lmax);
                for (int b = 0; b < CW_VALUES; b++)
                    hist2[b] += local[b];
                max2 = lmax > max2 ? lmax : max2;
            }
            int t2 = cw_thresh_choose(hist2, max2, n, p);
            for (int w = 0; w < workers; w++) {
                uint64_t start, h;
                cw_partition(n, workers, w, &start, &h);
                cw_thresh_mask_rows(m2, mask2, n, t2, (uint32_t)start, (uint32_t)(start + h));
                /* each block writes its candidates at its offset (count, then exclusive prefix) */
                uint64_t c = cw_winnow_count_rows(mask2, n, (uint32_t)start, (uint32_t)(start + h));
                uint64_t wrote = cw_winnow_gather_rows(m2, mask2, n, (uint32_t)start, (uint32_t)(start + h),
                                                       keys2 + offset);
                check(wrote == c, "cowichan: block gather wrote %llu, counted %llu", (unsigned long long)wrote,
                      (unsigned long long)c);
                offset += c;
            }
            cw_winnow_sort(keys2, offset);
            for (int w = 0; w < workers; w++) {
                uint64_t start, h;
                cw_partition(nelts, workers, w, &start, &h);
                cw_outer_rows(points, nelts, start, start + h, d2, v2);
            }
            for (int w = 0; w < workers; w++) {
                uint64_t start, h;
                cw_partition(nelts, workers, w, &start, &h);
                cw_product_rows(d, v, nelts, start, start + h, r2);
            }
            check(memcmp(m, m2, cells) == 0, "cowichan: randmat n=%u W=%d by blocks differs", n, workers);
            check(memcmp(hist, hist2, sizeof hist) == 0 && max2 == nmax && t2 == t,
                  "cowichan: thresh histogram n=%u W=%d by blocks differs", n, workers);
            check(memcmp(mask, mask2, cells) == 0, "cowichan: thresh mask n=%u W=%d by blocks differs", n,
                  workers);
            check(offset == count && memcmp(sorted, keys2, count * sizeof *keys2) == 0,
                  "cowichan: winnow n=%u W=%d by blocks differs", n, workers);
            check(memcmp(d, d2, nelts * nelts * sizeof *d) == 0 && memcmp(v, v2, nelts * sizeof *v) == 0,
                  "cowichan: outer nelts=%llu W=%d by blocks differs", (unsigned long long)nelts, workers);
            check(memcmp(r, r2, nelts * sizeof *r) == 0, "cowichan: product nelts=%llu W=%d by blocks differs",
                  (unsigned long long)nelts, workers);
            free(m2);
            free(mask2);
            free(keys2);
            free(d2);
            free(v2);
            free(r2);
        }
        free(m);
        free(mask);
        free(sorted);
        free(points);
        free(d);
        free(v);
        free(r);
    }
}

/* thresh's tie rule on hand-made 10x10 matrices (count = floor(100 p / 100) = p). */
static void thresh_case(const char *label, const uint8_t cells[100], uint32_t p, int want_t, uint64_t want_kept)
{
    uint64_t hist[CW_VALUES];
    int nmax;
    cw_thresh_hist_rows(cells, 10, 0, 10, hist, &nmax);
    int t = cw_thresh_choose(hist, nmax, 10, p);
    uint8_t mask[100];
    cw_thresh_mask_rows(cells, mask, 10, t, 0, 10);
    uint64_t kept = cw_winnow_count_rows(mask, 10, 0, 10);
    check(t == want_t && kept == want_kept, "cowichan: thresh %s: t=%d kept=%llu, want t=%d kept=%llu", label, t,
          (unsigned long long)kept, want_t, (unsigned long long)want_kept);
}

static void test_cowichan_thresh_ties(void)
{
    uint8_t m[100];
    memset(m, 10, sizeof m);
    m[3] = m[77] = 99;                          /* the top bin alone passes count = 1: t = 99 */
    thresh_case("top bin over count", m, 1, 99, 2);
    m[77] = 98;                                 /* 99 holds exactly count: the 98 bin is taken whole */
    m[78] = m[79] = 98;
    thresh_case("top bin equal to count", m, 1, 98, 4);
    memset(m, 10, sizeof m);
    m[0] = 50;                                  /* an empty bin (49) moves t but not the total */
    m[10] = m[20] = m[30] = m[40] = m[50] = 48;
    thresh_case("empty bin below the maximum", m, 1, 48, 6);
    thresh_case("p = 100", m, 100, 0, 100);     /* nothing passes count = 100: the scan runs down to 0 */
    thresh_case("p = 0", m, 0, 50, 1);          /* count = 0: the maximum's bin alone */
    memset(m, 7, sizeof m);
    thresh_case("one value", m, 50, 7, 100);
}

/* winnow's order: value, then i, then j; keys packed so that integer order is that order. */
typedef struct { int value, i, j; } triple;

static int cmp_triple(const void *a, const void *b)
{
    const triple *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

static void test_cowichan_winnow_sort(void)
{
    /* a hand-made 3x3: values 5 and 7 tie in several cells; (1,2) holds 9 but is masked out */
    const uint8_t m[9] = {5, 7, 5, 7, 5, 9, 5, 7, 7};
    const uint8_t mask[9] = {1, 1, 1, 1, 1, 0, 1, 1, 1};
    uint64_t count;
    uint64_t *keys = wn_sorted(m, mask, 3, &count);
    const uint32_t order[8][2] = {{0, 0}, {0, 2}, {1, 1}, {2, 0}, {0, 1}, {1, 0}, {2, 1}, {2, 2}};
    uint32_t all[16];
    if (check(count == 8, "cowichan: winnow hand case has %llu candidates, want 8", (unsigned long long)count)) {
        cw_winnow_pick(keys, count, 8, all);        /* chunk 1: every candidate in sorted order */
        int ok = 1;
        for (int k = 0; k < 8; k++)
            ok &= all[2 * k] == order[k][0] && all[2 * k + 1] == order[k][1];
        check(ok, "cowichan: winnow hand case sorted wrongly");
        uint32_t three[6];
        cw_winnow_pick(keys, count, 3, three);      /* chunk floor(8/3) = 2: L[0], L[2], L[4] */
        check(three[0] == 0 && three[1] == 0 && three[2] == 1 && three[3] == 1 && three[4] == 0 && three[5] == 1,
              "cowichan: winnow hand case nelts=3 picked (%u,%u) (%u,%u) (%u,%u)", three[0], three[1], three[2],
              three[3], three[4], three[5]);
    }
    free(keys);

    check(cw_winnow_key(1, CW_MAXN - 1, CW_MAXN - 1) < cw_winnow_key(2, 0, 0) &&
              cw_winnow_key(3, 0, CW_MAXN - 1) < cw_winnow_key(3, 1, 0) &&
              cw_winnow_key(99, CW_MAXN - 1, 0) < cw_winnow_key(99, CW_MAXN - 1, 1),
          "cowichan: winnow keys out of (value, i, j) order");

    /* random distinct triples (large i and j among them), shuffled: the key sort against a triple sort */
    enum { N = 500 };
    triple tr[N];
    uint64_t k2[N];
    uint32_t s = 4242;
    for (int k = 0; k < N; k++) {
        s = cw_lcg_step(s);
        tr[k].value = (int)(s % 4);                 /* few values: many ties on value */
        s = cw_lcg_step(s);
        tr[k].i = (int)(s % 6) * (CW_MAXN / 7);     /* few rows: many ties on i */
        tr[k].j = k * 197 % CW_MAXN;                /* distinct columns keep the triples distinct */
        k2[k] = cw_winnow_key((uint8_t)tr[k].value, (uint32_t)tr[k].i, (uint32_t)tr[k].j);
    }
    cw_winnow_sort(k2, N);
    qsort(tr, N, sizeof tr[0], cmp_triple);
    uint32_t pts[2 * N];
    cw_winnow_pick(k2, N, N, pts);
    int ok = 1;
    for (int k = 0; k < N; k++)
        ok &= pts[2 * k] == (uint32_t)tr[k].i && pts[2 * k + 1] == (uint32_t)tr[k].j &&
              k2[k] >> 40 == (uint64_t)tr[k].value;
    check(ok, "cowichan: winnow sort disagrees with a sort of the triples");
}

static void test_cowichan_floats(void)
{
    /* outer on a 3-4-5 triangle: off-diagonal distances, nelts times the row maximum, the norms */
    const uint32_t pts[6] = {0, 0, 3, 4, 6, 8};
    double d[9], v[3];
    cw_outer_rows(pts, 3, 0, 3, d, v);
    const double want_d[9] = {30, 5, 10, 5, 15, 5, 10, 5, 30}, want_v[3] = {0, 5, 10};
    check(memcmp(d, want_d, sizeof d) == 0 && memcmp(v, want_v, sizeof v) == 0, "cowichan: outer 3-4-5 wrong");
    /* one point: the running maximum starts at -1, so D[0][0] = -1 */
    const uint32_t one[2] = {2, 0};
    double d1, v1;
    cw_outer_rows(one, 1, 0, 1, &d1, &v1);
    check(d1 == -1.0 && v1 == 2.0, "cowichan: outer of one point gives %g %g", d1, v1);

    /* product: small exact values */
    const double dm[4] = {1, 2, 3, 4}, vv[2] = {0.5, 0.25};
    double r[2];
    cw_product_rows(dm, vv, 2, 0, 2, r);
    check(r[0] == 1.0 && r[1] == 2.5, "cowichan: product [[1,2],[3,4]]·[0.5,0.25] = %g %g", r[0], r[1]);
    /* strictly ascending j: 1e16 - 1e16 + 0.5 is 0.5 forwards, 0 backwards */
    const double big[3] = {1e16, -1e16, 0.5}, ones[3] = {1, 1, 1};
    cw_product_rows(big, ones, 3, 0, 1, r);
    check(r[0] == 0.5, "cowichan: product summed out of order (%g)", r[0]);
    /* every product rounded before the add: -0.01 + (0.1*0.1) differs from fma(0.1, 0.1, -0.01) */
    volatile double a = 0.1, b = -0.01;
    volatile double prod = a * a;
    const double rounded = b + prod, fused = fma(a, a, b);
    const double row[2] = {1.0, 0.1}, vec[2] = {-0.01, 0.1};
    cw_product_rows(row, vec, 2, 0, 1, r);
    check(rounded != fused && r[0] == rounded, "cowichan: product contracted to FMA (%a, want %a)", r[0], rounded);

    /* q: one multiplication then half away from zero; 2^-7 * 1e6 = 7812.5 exactly */
    check(cw_q(0.0078125) == 7813 && cw_q(-0.0078125) == -7813 && cw_q(1.0) == 1000000 && cw_q(0.0) == 0 &&
              cw_q(-0.0) == 0,
          "cowichan: q rounds wrongly");
    /* checksums wrap mod 2^64; a negative q enters as its two's complement */
    const double neg[2] = {-1e-6, -1e-6};
    check(cw_checksum_q(neg, 1) == UINT64_MAX && cw_checksum_q(neg, 2) == UINT64_MAX - 2,
          "cowichan: checksum of negative q");
    const uint32_t big32[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    check(cw_checksum_u32(big32, 3) == 6 * (uint64_t)UINT32_MAX, "cowichan: checksum of u32");
    const double huge[2] = {9e12, 9e12};        /* q = 9e18: the weighted sum passes 2^64 */
    check(cw_checksum_q(huge, 2) == (uint64_t)9000000000000000000u * 3u, "cowichan: checksum does not wrap");
}

/* The driver's life cycle (cw_new, cw_iteration) against the building blocks composed here. */
static void test_cowichan_stages(void)
{
    static const struct { uint32_t n, p, seed; uint64_t nelts; } cases[] = {
        {1, 1, 0, 1}, {7, 40, 5, 3}, {30, 10, 7, 20}, {60, 2, 4294967295u, 60},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const uint32_t n = cases[c].n;
        const uint64_t nelts = cases[c].nelts, cells = (uint64_t)n * n;
        const cw_params pp = {n, cases[c].p, nelts, cases[c].seed};
        char want[6][160];
        uint8_t *m = rm_whole(n, pp.seed);
        snprintf(want[CW_RANDMAT], 160, "checksum=%llu", (unsigned long long)cw_checksum_u8(m, cells));
        int t;
        uint8_t *mask = th_whole(m, n, pp.p, &t);
        snprintf(want[CW_THRESH], 160, "threshold=%d kept=%llu checksum=%llu", t,
                 (unsigned long long)cw_winnow_count_rows(mask, n, 0, n),
                 (unsigned long long)cw_checksum_u8(mask, cells));
        uint64_t count;
        uint64_t *keys = wn_sorted(m, mask, n, &count);
        if (!check(count >= nelts, "cowichan: case %zu has only %llu candidates", c, (unsigned long long)count))
            continue;
        uint32_t *points = malloc(2 * nelts * sizeof *points);
        cw_winnow_pick(keys, count, nelts, points);
        uint64_t cs = 0;
        for (uint64_t k = 0; k < nelts; k++)        /* the spec's form of winnow's checksum */
            cs += points[2 * k] * (2 * k + 1) + points[2 * k + 1] * (2 * k + 2);
        snprintf(want[CW_WINNOW], 160, "candidates=%llu checksum=%llu", (unsigned long long)count,
                 (unsigned long long)cs);
        double *d = malloc(nelts * nelts * sizeof *d), *v = malloc(nelts * sizeof *v);
        double *r = malloc(nelts * sizeof *r);
        cw_outer_rows(points, nelts, 0, nelts, d, v);
        snprintf(want[CW_OUTER], 160, "matrix=%llu vector=%llu",
                 (unsigned long long)cw_checksum_q(d, nelts * nelts),
                 (unsigned long long)cw_checksum_q(v, nelts));
        cw_product_rows(d, v, nelts, 0, nelts, r);
        snprintf(want[CW_PRODUCT], 160, "checksum=%llu", (unsigned long long)cw_checksum_q(r, nelts));
        snprintf(want[CW_CHAIN], 160, "%s", want[CW_PRODUCT]);

        for (int b = CW_RANDMAT; b <= CW_CHAIN; b++) {
            cw_ctx *ctx = cw_new((cw_bench)b, CW_PLAIN, &pp, 3);
            for (int it = 0; it < 2; it++) {
                int64_t ns = -1;
                char got[160];
                cw_iteration(ctx, &ns, got, sizeof got);
                check(ns >= 0 && strcmp(got, want[b]) == 0,
                      "cowichan: stage %d case %zu iteration %d: '%s', want '%s'", b, c, it, got, want[b]);
            }
            if (b == CW_CHAIN) {
                int64_t s[5];
                cw_stage_ns(ctx, s);
                check(s[0] >= 0 && s[1] >= 0 && s[2] >= 0 && s[3] >= 0 && s[4] >= 0,
                      "cowichan: chain stage times");
            }
            cw_free(ctx);
        }
        free(m);
        free(mask);
        free(keys);
        free(points);
        free(d);
        free(v);
        free(r);
    }
}

static void test_cowichan(void)
{
    test_cowichan_lcg_and_randmat();
    test_cowichan_partition();
    test_cowichan_blocks();
    test_cowichan_thresh_ties();
    test_cowichan_winnow_sort();
    test_cowichan_floats();
    test_cowichan_stages();
}

/* ================================================================== the table against the kernels */

static const bench_spec *bench(const char *id)
{
    for (const bench_spec *b = TABLE; b->id != NULL; b++)
        if (strcmp(b->id, id) == 0)
            return b;
    return NULL;
}

static void test_table(void)
{
    const bench_spec *cd = bench("countdown"), *fk = bench("fannkuch"), *ss = bench("spawn-scaling");
    if (!check(cd && fk && ss, "table: a benchmark is missing"))
        return;
    cd_instance in;
    char err[512];
    for (size_t i = 0; i < cd_nnamed; i++) {
        check(domain_accepts(&cd->param, cd_named[i].name), "table: countdown --param rejects %s",
              cd_named[i].name);
        check(cd_parse_instance(cd_named[i].name, &in, err, sizeof err) == 0, "countdown: %s rejected: %s",
              cd_named[i].name, err);
    }
    check(domain_accepts(&cd->param, "317:3-7-8-50-75-4"), "table: countdown --param rejects GOAL:N1-...");
    check(!domain_accepts(&cd->param, "317:3"), "table: countdown --param takes a single number");
    check(fk->param.max <= FK_MAXN && fk->param.min >= 1, "table: fannkuch --param beyond the kernel");
    check(ss->param.max <= SS_MAXN && ss->param.min >= 1, "table: spawn-scaling --param beyond the kernel");
    const char *cowichan[] = {"randmat", "thresh", "winnow", "outer", "product", "chain"};
    for (size_t i = 0; i < 6; i++) {
        const bench_spec *cw = bench(cowichan[i]);
        if (!check(cw != NULL, "table: %s is missing", cowichan[i]))
            continue;
        check(cw->param.max <= CW_MAXN && cw->param.min >= 1, "table: %s --param beyond the kernel", cw->id);
        int keys = 0;
        for (const option_spec *o = cw->models[0].options; o->key != NULL; o++)
            keys += strcmp(o->key, "p") == 0 || strcmp(o->key, "nelts") == 0 || strcmp(o->key, "seed") == 0;
        check(keys == 3, "table: %s lacks one of the options p, nelts, seed", cw->id);
    }
    for (const bench_spec *b = TABLE; b->id != NULL; b++) {
        for (const model_spec *m = b->models; m->model != NULL; m++) {
            int described = 0;
            for (const model_info *mi = MODELS; mi->name != NULL; mi++)
                described |= strcmp(mi->name, m->model) == 0;
            check(described, "table: model %s of %s has no description", m->model, b->id);
            check(m->shapes[0].name != NULL, "table: %s model %s has no shape", b->id, m->model);
            for (const option_spec *o = m->options; o->key != NULL; o++) {
                check(o->dom.reason == NULL || (o->dom.kind == DOM_INT && o->dom.has_max && *o->dom.reason),
                      "table: %s %s %s gives a reason for no bound", b->id, m->model, o->key);
                if (o->dom.deflt == NULL)
                    continue;
                if (strcmp(o->dom.deflt, PARAM_DEFAULT) != 0) {
                    check(domain_accepts(&o->dom, o->dom.deflt), "table: %s %s default %s outside its domain",
                          b->id, o->key, o->dom.deflt);
                    continue;
                }
                /* the default is --param: every parameter must lie inside the option's domain */
                char lo[32], hi[32];
                snprintf(lo, sizeof lo, "%lld", b->param.min);
                snprintf(hi, sizeof hi, "%lld", b->param.max);
                check(b->param.kind == DOM_INT && b->param.has_min && b->param.has_max &&
                          domain_accepts(&o->dom, lo) && domain_accepts(&o->dom, hi),
                      "table: %s %s defaults to --param, which its domain does not hold", b->id, o->key);
            }
        }
    }
    /* what the kernels bound: apply's and group's result slots, the threads shape's pool */
    for (const model_spec *m = fk->models; m->model != NULL; m++)
        if (strcmp(m->model, "libdispatch") == 0)
            check(m->options[0].dom.has_max && m->options[0].dom.max <= FK_MAXCHUNKS,
                  "table: fannkuch libdispatch chunks beyond FK_MAXCHUNKS");
    for (const model_spec *m = cd->models; m->model != NULL; m++) {
        long long most = strcmp(m->model, "pthreads") == 0 ? 4096 : INT_MAX;
        check(m->options[0].dom.has_max && m->options[0].dom.max <= most,
              "table: countdown %s window beyond %lld", m->model, most);
    }
}

int main(void)
{
    test_table();
    test_fannkuch();
    test_spawn_scaling();
    test_countdown();
    test_cowichan();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
