/* The Cowichan kernels (specs: randmat.md, thresh.md, winnow.md, outer.md, product.md and chain.md, which
 * holds the family's shared rules): randmat -> thresh -> winnow -> outer -> product, and chain, the five
 * run back to back.
 *
 *   seq / plain : each stage on the calling thread, one row after another.
 *
 * Every stage is written as a row-block kernel (rows [lo, hi) of the stage's output) plus, where the stage
 * has one, a short sequential step (thresh's threshold choice, winnow's sort and pick), so that a parallel
 * model only has to split the rows (cw_partition, chain.md rule 2) and merge; seq runs one block of all
 * rows.
 *
 * Timed region (chain.md rule 3): a standalone stage's input is built once by cw_new with these same
 * kernels, outside the timer; an iteration times the stage from allocating its output to holding it
 * complete; the result string is formed after the timer stops. chain times all five stages, nothing
 * prepared.
 *
 * Float rules (chain.md rule 4): this file is compiled with -ffp-contract=off (Makefile) and without
 * fast-math, so outer's and product's sums are the binary64 operations the specs write, in their order.
 */
#define _GNU_SOURCE
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTAGES 5

/* ------------------------------------------------------------------ shared helpers */

uint32_t cw_lcg_step(uint32_t s)
{
    return 1664525u * s + 1013904223u;     /* unsigned 32-bit arithmetic wraps mod 2^32 */
}

void cw_partition(uint64_t rows, int workers, int w, uint64_t *start, uint64_t *h)
{
    /* start_0 = 0, h_w = floor((R - start_w) / (W - w)): the smaller blocks come first */
    uint64_t s = 0, size = 0;
    for (int k = 0; k <= w; k++) {
        s += size;
        size = (rows - s) / (uint64_t)(workers - k);
    }
    *start = s;
    *h = size;
}

int64_t cw_q(double x)
{
    return llround(x * 1e6);    /* one binary64 multiplication, then half away from zero */
}

uint64_t cw_checksum_u8(const uint8_t *v, uint64_t count)
{
    uint64_t cs = 0;
    for (uint64_t k = 0; k < count; k++)
        cs += (uint64_t)v[k] * (k + 1);
    return cs;
}

uint64_t cw_checksum_u32(const uint32_t *v, uint64_t count)
{
    uint64_t cs = 0;
    for (uint64_t k = 0; k < count; k++)
        cs += (uint64_t)v[k] * (k + 1);
    return cs;
}

uint64_t cw_checksum_q(const double *v, uint64_t count)
{
    uint64_t cs = 0;
    for (uint64_t k = 0; k < count; k++)
        cs += (uint64_t)cw_q(v[k]) * (k + 1);   /* a negative q wraps as its two's complement */
    return cs;
}

static void *alloc(uint64_t count, size_t size)
{
    if (count != 0 && count > SIZE_MAX / size)
        fatal("out of memory (%llu elements of %zu bytes)", (unsigned long long)count, size);
    void *p = malloc(count == 0 ? 1 : (size_t)count * size);
    if (p == NULL)
        fatal("out of memory (%llu elements of %zu bytes)", (unsigned long long)count, size);
    return p;
}

/* ------------------------------------------------------------------ randmat */

void cw_randmat_rows(uint8_t *m, uint32_t n, uint32_t seed, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t s = seed + i;              /* one generator per row: (S + i) mod 2^32 */
        uint8_t *row = m + (uint64_t)i * n;
        for (uint32_t j = 0; j < n; j++) {
            s = cw_lcg_step(s);
            row[j] = (uint8_t)(s % 100);    /* the draw is taken after stepping */
        }
    }
}

/* ------------------------------------------------------------------ thresh */

void cw_thresh_hist_rows(const uint8_t *m, uint32_t n, uint32_t lo, uint32_t hi, uint64_t hist[CW_VALUES],
                         int *nmax)
{
    memset(hist, 0, CW_VALUES * sizeof hist[0]);
    int mx = 0;
    const uint8_t *p = m + (uint64_t)lo * n, *end = m + (uint64_t)hi * n;
    for (; p < end; p++) {
        hist[*p]++;
        if (*p > mx)
            mx = *p;
    }
    *nmax = mx;
}

int cw_thresh_choose(const uint64_t hist[CW_VALUES], int nmax, uint32_t n, uint32_t p)
{
    /* whole bins from the top down; stop right after the first one that pushes the total above count */
    uint64_t count = (uint64_t)n * n * p / 100;
    uint64_t prefix = 0;
    int t = nmax;
    for (int v = nmax; v >= 0 && prefix <= count; v--) {
        prefix += hist[v];
        t = v;
    }
    return t;
}

void cw_thresh_mask_rows(const uint8_t *m, uint8_t *mask, uint32_t n, int t, uint32_t lo, uint32_t hi)
{
    for (uint64_t k = (uint64_t)lo * n, end = (uint64_t)hi * n; k < end; k++)
        mask[k] = m[k] >= t;
}

/* ------------------------------------------------------------------ winnow */

/* A candidate (value, i, j) packed so that comparing the integers compares the triples
   lexicographically: value above i above j, 20 bits each for i and j (n <= CW_MAXN < 2^20). */
#define KEY_BITS 20
#define KEY_MASK ((UINT64_C(1) << KEY_BITS) - 1)

uint64_t cw_winnow_key(uint8_t value, uint32_t i, uint32_t j)
{
    return (uint64_t)value << (2 * KEY_BITS) | (uint64_t)i << KEY_BITS | j;
}

uint64_t cw_winnow_count_rows(const uint8_t *mask, uint32_t n, uint32_t lo, uint32_t hi)
{
    uint64_t count = 0;
    for (uint64_t k = (uint64_t)lo * n, end = (uint64_t)hi * n; k < end; k++)
        count += mask[k];
    return count;
}

uint64_t cw_winnow_gather_rows(const uint8_t *m, const uint8_t *mask, uint32_t n, uint32_t lo, uint32_t hi,
                               uint64_t *out)
{
    uint64_t count = 0;
    for (uint32_t i = lo; i < hi; i++) {
        const uint8_t *mrow = m + (uint64_t)i * n, *krow = mask + (uint64_t)i * n;
        for (uint32_t j = 0; j < n; j++)
            if (krow[j])
                out[count++] = cw_winnow_key(mrow[j], i, j);
    }
    return count;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void cw_winnow_sort(uint64_t *keys, uint64_t count)
{
    qsort(keys, (size_t)count, sizeof keys[0], cmp_key);    /* a full sort, as the spec demands */
}

void cw_winnow_pick(const uint64_t *sorted, uint64_t count, uint64_t nelts, uint32_t *points)
{
    uint64_t chunk = count / nelts;
    for (uint64_t k = 0; k < nelts; k++) {
        uint64_t key = sorted[k * chunk];
        points[2 * k] = (uint32_t)(key >> KEY_BITS & KEY_MASK);     /* x = row i */
        points[2 * k + 1] = (uint32_t)(key & KEY_MASK);             /* y = column j */
    }
}

/* ------------------------------------------------------------------ outer */

void cw_outer_rows(const uint32_t *points, uint64_t nelts, uint64_t lo, uint64_t hi, double *d, double *v)
{
    for (uint64_t i = lo; i < hi; i++) {
        const int64_t xi = points[2 * i], yi = points[2 * i + 1];
        double *row = d + i * nelts;
        double m = -1.0;
        for (uint64_t j = 0; j < nelts; j++) {
            if (j == i)
                continue;
            /* the integer difference, then the conversion: squares and sums stay exact integers */
            const double dx = (double)(xi - (int64_t)points[2 * j]);
            const double dy = (double)(yi - (int64_t)points[2 * j + 1]);
            const double dist = sqrt(dx * dx + dy * dy);
            row[j] = dist;
            if (dist > m)
                m = dist;
        }
        row[i] = (double)nelts * m;
        v[i] = sqrt((double)xi * (double)xi + (double)yi * (double)yi);
    }
}

/* ------------------------------------------------------------------ product */

void cw_product_rows(const double *d, const double *v, uint64_t nelts, uint64_t lo, uint64_t hi, double *r)
{
    for (uint64_t i = lo; i < hi; i++) {
        const double *row = d + i * nelts;
        double acc = 0.0;
        for (uint64_t j = 0; j < nelts; j++) {  /* strictly ascending j; one rounding per * and per + */
            const double t = row[j] * v[j];
            acc = acc + t;
        }
        r[i] = acc;
    }
}

/* ------------------------------------------------------------------ the stages, sequentially */

static uint8_t *seq_randmat(uint32_t n, uint32_t seed)
{
    uint8_t *m = alloc((uint64_t)n * n, 1);
    cw_randmat_rows(m, n, seed, 0, n);
    return m;
}

static uint8_t *seq_thresh(const uint8_t *m, uint32_t n, uint32_t p, int *t)
{
    uint64_t hist[CW_VALUES];
    int nmax;
    cw_thresh_hist_rows(m, n, 0, n, hist, &nmax);
    *t = cw_thresh_choose(hist, nmax, n, p);
    uint8_t *mask = alloc((uint64_t)n * n, 1);
    cw_thresh_mask_rows(m, mask, n, *t, 0, n);
    return mask;
}

/* NULL when fewer than nelts cells pass the mask (*candidates says how many did). */
static uint32_t *seq_winnow(const uint8_t *m, const uint8_t *mask, uint32_t n, uint64_t nelts,
                            uint64_t *candidates)
{
    /* count, allocate, fill: the candidate list is exactly K long */
    uint64_t k = cw_winnow_count_rows(mask, n, 0, n);
    uint64_t *keys = alloc(k, sizeof *keys);
    cw_winnow_gather_rows(m, mask, n, 0, n, keys);
    cw_winnow_sort(keys, k);
    *candidates = k;
    uint32_t *points = NULL;
    if (k >= nelts) {
        points = alloc(2 * nelts, sizeof *points);
        cw_winnow_pick(keys, k, nelts, points);
    }
    free(keys);
    return points;
}

static void seq_outer(const uint32_t *points, uint64_t nelts, double **d, double **v)
{
    if (nelts > UINT64_MAX / nelts)
        fatal("out of memory (a %llu x %llu matrix)", (unsigned long long)nelts, (unsigned long long)nelts);
    *d = alloc(nelts * nelts, sizeof **d);
    *v = alloc(nelts, sizeof **v);
    cw_outer_rows(points, nelts, 0, nelts, *d, *v);
}

static double *seq_product(const double *d, const double *v, uint64_t nelts)
{
    double *r = alloc(nelts, sizeof *r);
    cw_product_rows(d, v, nelts, 0, nelts, r);
    return r;
}

/* ------------------------------------------------------------------ life cycle */

struct cw_ctx {
    cw_bench bench;
    cw_params pp;
    /* the standalone stage's input, built once outside the timer */
    uint8_t *m, *mask;
    uint32_t *points;
    double *d, *v;
    int64_t stage_ns[NSTAGES];
};

static void fail_winnow(uint64_t candidates, uint64_t nelts)
{
    fatal("winnow: only %llu cells pass the mask, fewer than nelts = %llu", (unsigned long long)candidates,
          (unsigned long long)nelts);
}

cw_ctx *cw_new(cw_bench bench, cw_shape shape, const cw_params *pp, int workers)
{
    (void)shape;        /* seq/plain is the only shape so far */
    (void)workers;      /* seq runs one block */
    if (pp->n < 1 || pp->n > CW_MAXN || pp->p > 100 || pp->nelts < 1)
        fatal("cw_new: n = %u, p = %u, nelts = %llu out of range", pp->n, pp->p, (unsigned long long)pp->nelts);
    cw_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        fatal("out of memory");
    c->bench = bench;
    c->pp = *pp;
    if (bench == CW_RANDMAT || bench == CW_CHAIN)
        return c;
    /* the preceding stages, untimed */
    c->m = seq_randmat(pp->n, pp->seed);
    if (bench == CW_THRESH)
        return c;
    int t;
    c->mask = seq_thresh(c->m, pp->n, pp->p, &t);
    if (bench == CW_WINNOW)
        return c;
    uint64_t candidates;
    c->points = seq_winnow(c->m, c->mask, pp->n, pp->nelts, &candidates);
    if (c->points == NULL)
        fail_winnow(candidates, pp->nelts);
    if (bench == CW_OUTER)
        return c;
    seq_outer(c->points, pp->nelts, &c->d, &c->v);
    return c;
}

void cw_iteration(cw_ctx *c, int64_t *ns, char *result, size_t cap)
{
    const cw_params *pp = &c->pp;
    const uint64_t cells = (uint64_t)pp->n * pp->n, nelts = pp->nelts;
    int64_t t0 = now_ns(), t1;
    switch (c->bench) {
    case CW_RANDMAT: {
        uint8_t *m = seq_randmat(pp->n, pp->seed);
        t1 = now_ns();
        snprintf(result, cap, "checksum=%llu", (unsigned long long)cw_checksum_u8(m, cells));
        free(m);
        break;
    }
    case CW_THRESH: {
        int t;
        uint8_t *mask = seq_thresh(c->m, pp->n, pp->p, &t);
        t1 = now_ns();
        snprintf(result, cap, "threshold=%d kept=%llu checksum=%llu", t,
                 (unsigned long long)cw_winnow_count_rows(mask, pp->n, 0, pp->n),
                 (unsigned long long)cw_checksum_u8(mask, cells));
        free(mask);
        break;
    }
    case CW_WINNOW: {
        uint64_t candidates;
        uint32_t *points = seq_winnow(c->m, c->mask, pp->n, nelts, &candidates);
        t1 = now_ns();
        if (points == NULL)
            fail_winnow(candidates, nelts);
        snprintf(result, cap, "candidates=%llu checksum=%llu", (unsigned long long)candidates,
                 (unsigned long long)cw_checksum_u32(points, 2 * nelts));
        free(points);
        break;
    }
    case CW_OUTER: {
        double *d, *v;
        seq_outer(c->points, nelts, &d, &v);
        t1 = now_ns();
        snprintf(result, cap, "matrix=%llu vector=%llu", (unsigned long long)cw_checksum_q(d, nelts * nelts),
                 (unsigned long long)cw_checksum_q(v, nelts));
        free(d);
        free(v);
        break;
    }
    case CW_PRODUCT: {
        double *r = seq_product(c->d, c->v, nelts);
        t1 = now_ns();
        snprintf(result, cap, "checksum=%llu", (unsigned long long)cw_checksum_q(r, nelts));
        free(r);
        break;
    }
    case CW_CHAIN:
    default: {
        int64_t mark[NSTAGES + 1];
        int t;
        uint64_t candidates;
        double *d, *v;
        mark[0] = t0;
        uint8_t *m = seq_randmat(pp->n, pp->seed);
        mark[1] = now_ns();
        uint8_t *mask = seq_thresh(m, pp->n, pp->p, &t);
        mark[2] = now_ns();
        uint32_t *points = seq_winnow(m, mask, pp->n, nelts, &candidates);
        if (points == NULL)
            fail_winnow(candidates, nelts);
        mark[3] = now_ns();
        seq_outer(points, nelts, &d, &v);
        mark[4] = now_ns();
        double *r = seq_product(d, v, nelts);
        mark[5] = t1 = now_ns();
        for (int s = 0; s < NSTAGES; s++)
            c->stage_ns[s] = mark[s + 1] - mark[s];
        snprintf(result, cap, "checksum=%llu", (unsigned long long)cw_checksum_q(r, nelts));
        free(m);
        free(mask);
        free(points);
        free(d);
        free(v);
        free(r);
        break;
    }
    }
    *ns = t1 - t0;
}

void cw_stage_ns(const cw_ctx *c, int64_t out[5])
{
    memcpy(out, c->stage_ns, sizeof c->stage_ns);
}

void cw_free(cw_ctx *c)
{
    if (c == NULL)
        return;
    free(c->m);
    free(c->mask);
    free(c->points);
    free(c->d);
    free(c->v);
    free(c);
}
