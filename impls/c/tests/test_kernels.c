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
 *   table          the describe table agrees with the kernels (named instances inside the countdown
 *                  --param domain, defaults inside their domains, every model described).
 *
 * The last line is "N passed, M failed"; the exit status is 1 if any check failed.
 */
#define _GNU_SOURCE
#include "../src/common.h"
#include "../src/table.h"

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
    for (const bench_spec *b = TABLE; b->id != NULL; b++) {
        for (const model_spec *m = b->models; m->model != NULL; m++) {
            int described = 0;
            for (const model_info *mi = MODELS; mi->name != NULL; mi++)
                described |= strcmp(mi->name, m->model) == 0;
            check(described, "table: model %s of %s has no description", m->model, b->id);
            check(m->shapes[0].name != NULL, "table: %s model %s has no shape", b->id, m->model);
            for (const option_spec *o = m->options; o->key != NULL; o++)
                check(o->dom.deflt == NULL || domain_accepts(&o->dom, o->dom.deflt),
                      "table: %s %s default %s outside its domain", b->id, o->key, o->dom.deflt);
        }
    }
}

int main(void)
{
    test_table();
    test_fannkuch();
    test_spawn_scaling();
    test_countdown();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
