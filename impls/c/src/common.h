/* concbench-c: what the kernels (spawn_scaling.c, countdown.c, fannkuch.c, cowichan.c) offer the driver in
 * main.c and the unit tests in tests/, and the two helpers they take from main.c.
 *
 * Each kernel has the same life cycle: X_new() sets up what stands outside the timed region (a standing
 * thread pool, result slots, a standalone Cowichan stage's input), X_iteration() runs one iteration and
 * reports the nanoseconds of its timed region, X_free() tears down. The kernels print nothing: the
 * protocol lives in main.c.
 */
#ifndef CONCBENCH_COMMON_H
#define CONCBENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Fatal runtime error (not a usage error): one line on stderr, exit status 1. (main.c) */
__attribute__((noreturn, format(printf, 1, 2)))
void fatal(const char *fmt, ...);

int64_t now_ns(void);           /* CLOCK_MONOTONIC in nanoseconds (main.c) */

/* A decimal integer (an optional leading '-', then digits only, nothing else), read with strtoll and
   within [lo, hi]: 0 and *out set, or -1. (main.c) */
int parse_int(const char *s, long long lo, long long hi, long long *out);

/* ------------------------------------------------------------------ spawn-scaling */

typedef enum { SS_GROUP, SS_FUTURES, SS_LOOP } ss_shape;

#define SS_MAXN 100000000       /* largest N the driver accepts */

typedef struct ss_ctx ss_ctx;

/* workers: threads of the standing pool (SS_FUTURES only). */
ss_ctx *ss_new(ss_shape shape, uint32_t n, int workers);
/* One iteration: spawn n tasks, await them, return the sum of their values. */
uint64_t ss_iteration(ss_ctx *c, int64_t *ns);
void ss_free(ss_ctx *c);

/* ------------------------------------------------------------------ countdown */

typedef enum { CD_DISPATCH, CD_THREADS, CD_PLAIN } cd_shape;

#define CD_MAXK 32              /* most input numbers accepted */

typedef struct {
    uint32_t goal;
    int k;
    uint32_t numbers[CD_MAXK];
} cd_instance;

typedef struct {
    const char *name;
    uint32_t goal;
    int k;
    uint32_t numbers[8];
} cd_named_instance;

extern const cd_named_instance cd_named[];
extern const size_t cd_nnamed;

/* A named instance, or GOAL:N1-N2-... . Returns 0, or -1 with a one-line reason in err. */
int cd_parse_instance(const char *param, cd_instance *out, char *err, size_t errlen);

typedef struct {
    size_t solutions;
    uint64_t checksum;          /* the spec's rank-weighted FNV-1a sum */
    uint64_t batches;           /* micro-batches emitted (0 for CD_PLAIN) */
    uint64_t calls;             /* candidate-loop iterations, main exploration and batches together */
} cd_result;

typedef struct cd_ctx cd_ctx;

/* window: the cap on outstanding micro-batches (ignored by CD_PLAIN). */
cd_ctx *cd_new(cd_shape shape, const cd_instance *in, int window);
/* One iteration. If solutions is not NULL it receives the solution strings sorted ascending by bytes
   (out->solutions of them; the caller frees each and the array); otherwise they are freed here. */
void cd_iteration(cd_ctx *c, cd_result *out, int64_t *ns, char ***solutions);
void cd_free(cd_ctx *c);

/* ------------------------------------------------------------------ fannkuch */

typedef enum { FK_COUNTER, FK_APPLY, FK_GROUP, FK_LOOP } fk_shape;

#define FK_MAXN 16              /* largest n accepted; 16! still fits comfortably in 64 bits */
#define FK_MAXCHUNKS 10000000   /* largest K apply and group accept (bounds their per-task result slots) */

typedef struct {
    int64_t maxflips;           /* FK_UNWRITTEN in a slot no task has written in this iteration */
    int64_t checksum;
} fk_result;

#define FK_UNWRITTEN INT64_MIN

typedef struct fk_ctx fk_ctx;

/* workers: threads of the counter shape (FK_COUNTER only). */
fk_ctx *fk_new(fk_shape shape, int n, uint64_t chunks, int workers);
uint64_t fk_tasks(const fk_ctx *c);
/* One iteration. Returns 0, or -1 when a task or worker left its result slot unwritten in this
   iteration (*missing: its number); the caller must then fail. */
int fk_iteration(fk_ctx *c, fk_result *out, int64_t *ns, uint64_t *missing);
void fk_free(fk_ctx *c);
/* Combines slots[0, count): 0, or -1 with *missing set if a slot still holds FK_UNWRITTEN. */
int fk_combine_slots(const fk_result *slots, uint64_t count, fk_result *out, uint64_t *missing);
/* For the unit tests only: the next iterations of the apply and group shapes skip task t (as a task that
   silently did not run would); UINT64_MAX (the default) skips nothing. */
void fk_test_skip_task(fk_ctx *c, uint64_t t);

/* ------------------------------------------------------------------ the Cowichan kernels (cowichan.c) */

typedef enum { CW_RANDMAT, CW_THRESH, CW_WINNOW, CW_OUTER, CW_PRODUCT, CW_CHAIN } cw_bench;
typedef enum { CW_PLAIN } cw_shape;

#define CW_MAXN 100000          /* largest n accepted: n*n one-byte cells, and i, j below 2^20 (winnow keys) */
#define CW_VALUES 100           /* randmat's values are 0..99 */

typedef struct {
    uint32_t n;                 /* --param: the matrix side */
    uint32_t p;                 /* percent kept by thresh, 0..100 */
    uint64_t nelts;             /* points chosen by winnow (>= 1) */
    uint32_t seed;
} cw_params;

typedef struct cw_ctx cw_ctx;

/* Builds the stage's input (the preceding stages) outside the timed region; chain and randmat build none. */
cw_ctx *cw_new(cw_bench bench, cw_shape shape, const cw_params *pp, int workers);
/* One iteration: the timed stage (ns), then its result string, formed after the timer stopped. Exits
   through fatal() when fewer than nelts cells pass the mask (the spec's "fail the run"). */
void cw_iteration(cw_ctx *c, int64_t *ns, char *result, size_t cap);
/* chain: the wall time of randmat, thresh, winnow, outer and product in the last iteration. */
void cw_stage_ns(const cw_ctx *c, int64_t out[5]);
void cw_free(cw_ctx *c);

/* The building blocks, exposed for the unit tests (and for parallel models to come). "rows" is the
   half-open range [lo, hi) of the stage's output rows. */
uint32_t cw_lcg_step(uint32_t s);
/* chain.md rule 2: worker w of W gets rows [start, start + h) of R. */
void cw_partition(uint64_t rows, int workers, int w, uint64_t *start, uint64_t *h);
int64_t cw_q(double x);                          /* llround(x * 1e6) */
uint64_t cw_checksum_u8(const uint8_t *v, uint64_t count);
uint64_t cw_checksum_u32(const uint32_t *v, uint64_t count);
uint64_t cw_checksum_q(const double *v, uint64_t count);
void cw_randmat_rows(uint8_t *m, uint32_t n, uint32_t seed, uint32_t lo, uint32_t hi);
/* The rows' histogram (overwritten) and maximum. */
void cw_thresh_hist_rows(const uint8_t *m, uint32_t n, uint32_t lo, uint32_t hi, uint64_t hist[CW_VALUES],
                         int *nmax);
int cw_thresh_choose(const uint64_t hist[CW_VALUES], int nmax, uint32_t n, uint32_t p);
void cw_thresh_mask_rows(const uint8_t *m, uint8_t *mask, uint32_t n, int t, uint32_t lo, uint32_t hi);
/* (value, i, j) as one integer whose order is the triples' lexicographic order. */
uint64_t cw_winnow_key(uint8_t value, uint32_t i, uint32_t j);
uint64_t cw_winnow_count_rows(const uint8_t *mask, uint32_t n, uint32_t lo, uint32_t hi);
/* Writes the rows' candidates to out in row-major order; returns how many. */
uint64_t cw_winnow_gather_rows(const uint8_t *m, const uint8_t *mask, uint32_t n, uint32_t lo, uint32_t hi,
                               uint64_t *out);
void cw_winnow_sort(uint64_t *keys, uint64_t count);
/* points[2k], points[2k+1] = (i, j) of sorted[k * floor(count / nelts)]; needs count >= nelts. */
void cw_winnow_pick(const uint64_t *sorted, uint64_t count, uint64_t nelts, uint32_t *points);
void cw_outer_rows(const uint32_t *points, uint64_t nelts, uint64_t lo, uint64_t hi, double *d, double *v);
void cw_product_rows(const double *d, const double *v, uint64_t nelts, uint64_t lo, uint64_t hi, double *r);

#endif
