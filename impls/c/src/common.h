/* concbench-c: what the kernels (spawn_scaling.c, countdown.c, fannkuch.c) offer the driver in main.c
 * and the unit tests in tests/, and the two helpers they take from main.c.
 *
 * Each kernel has the same life cycle: X_new() sets up what stands outside the timed region (a standing
 * thread pool, result slots), X_iteration() runs one iteration and reports the nanoseconds of its timed
 * region, X_free() tears down. The kernels print nothing: the protocol lives in main.c.
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
#define FK_MAXCHUNKS 10000000   /* largest K accepted (bounds the per-task result slots) */

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

#endif
