/* fannkuch: fannkuch-redux over all n! permutations, the index range [0, n!) cut into chunks
 * (spec: fannkuch.md; K = --option chunks=<K>, default 150; chunk = ceil(n!/K), tasks = ceil(n!/chunk)).
 *
 *   pthreads    / counter : --workers POSIX threads, created inside the timed region; each takes the
 *                           next task number from a shared atomic counter until none remain, keeping a
 *                           local max and checksum; the threads are joined and their results combined
 *                           (the thesis's Scala program, "threads + atomic counter").
 *   libdispatch / apply   : dispatch_apply over the task numbers on the default global queue, each task
 *                           writing its own result slot; the slots are combined afterwards (the spec's
 *                           GCD row).
 *   libdispatch / group   : one dispatch_group_async per task onto the default global queue, each task
 *                           writing its own slot; one dispatch_group_wait; the slots are combined.
 *   seq         / loop    : the same tasks, one after another on the calling thread.
 *
 * Every model runs the same chunk routine: decode the chunk's first index into a permutation and its
 * count array, then step with Mazurov's next() until the chunk ends; the parity is the global index's.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dispatch/dispatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 16                 /* largest n accepted; 16! still fits comfortably in 64 bits */
#define MAXCHUNKS 10000000u     /* largest K accepted (bounds the per-task result slots) */

typedef struct {
    int64_t maxflips;
    int64_t checksum;
} fk_result;

typedef struct {
    int n;
    uint64_t total;             /* n! */
    uint64_t chunk;             /* indexes per task */
    uint64_t tasks;
    uint64_t fact[MAXN + 1];
} fk_plan;

/* ------------------------------------------------------------------ kernel */

/* Flips of p (a permutation of 0..n-1): reverse the prefix q[0..q[0]] until q[0] is 0. The current
   first element is kept out of the array: reversing q[0..f] puts q[f] first and f at position f, so only
   q[1..f-1] is reversed in memory. */
static inline int64_t count_flips(const uint8_t *p)
{
    int f = p[0];
    if (f == 0)
        return 0;
    uint8_t q[MAXN];
    memcpy(q, p, MAXN);
    int64_t flips = 0;
    do {
        int next = q[f];
        q[f] = (uint8_t)f;
        for (int lo = 1, hi = f - 1; lo < hi; lo++, hi--) {
            uint8_t t = q[lo];
            q[lo] = q[hi];
            q[hi] = t;
        }
        f = next;
        flips++;
    } while (f != 0);
    return flips;
}

/* Task t: indexes [t*chunk, min(n!, (t+1)*chunk)). Returns its max and its partial checksum. */
static fk_result run_task(const fk_plan *pl, uint64_t t)
{
    const int n = pl->n;
    uint64_t begin = t * pl->chunk;
    uint64_t end = begin + pl->chunk;
    if (end > pl->total)
        end = pl->total;

    uint8_t p[MAXN], tmp[MAXN];
    uint64_t count[MAXN];
    memset(p, 0, sizeof p);
    memset(count, 0, sizeof count);
    for (int j = 0; j < n; j++)
        p[j] = (uint8_t)j;

    /* decode the chunk's first index: count[k] = digit, p[0..k] rotated left by it */
    uint64_t rest = begin;
    for (int k = n - 1; k >= 1; k--) {
        uint64_t d = rest / pl->fact[k];
        rest %= pl->fact[k];
        count[k] = d;
        if (d != 0) {
            memcpy(tmp, p, (size_t)k + 1);
            for (int j = 0; j <= k; j++)
                p[j] = tmp[(j + d) % ((uint64_t)k + 1)];
        }
    }

    fk_result r = { 0, 0 };
    for (uint64_t i = begin;;) {
        int64_t f = count_flips(p);
        if (f > r.maxflips)
            r.maxflips = f;
        r.checksum += (i & 1) ? -f : f;
        if (++i >= end)
            break;
        /* Mazurov's step to index i */
        uint8_t first = p[1];
        p[1] = p[0];
        p[0] = first;
        int k = 1;
        count[k]++;
        while (count[k] > (uint64_t)k) {
            count[k] = 0;
            k++;
            uint8_t nxt = p[1];
            p[0] = nxt;
            for (int j = 1; j < k; j++)
                p[j] = p[j + 1];
            p[k] = first;
            first = nxt;
            count[k]++;
        }
    }
    return r;
}

static void combine(fk_result *into, fk_result r)
{
    if (r.maxflips > into->maxflips)
        into->maxflips = r.maxflips;
    into->checksum += r.checksum;
}

/* ------------------------------------------------------------------ pthreads / counter */

typedef struct {
    const fk_plan *plan;
    atomic_uint_fast64_t next;  /* the next task number to take */
} counter_shared;

typedef struct {
    counter_shared *shared;
    pthread_t thread;
    fk_result result;
} counter_worker;

static void *counter_main(void *arg)
{
    counter_worker *w = arg;
    counter_shared *s = w->shared;
    fk_result local = { 0, 0 };
    for (;;) {
        uint64_t t = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (t >= s->plan->tasks)
            break;
        combine(&local, run_task(s->plan, t));
    }
    w->result = local;
    return NULL;
}

static fk_result solve_counter(const fk_plan *pl, counter_worker *workers, int nworkers)
{
    counter_shared s;
    s.plan = pl;
    atomic_init(&s.next, 0);
    for (int i = 0; i < nworkers; i++) {
        workers[i].shared = &s;
        if (pthread_create(&workers[i].thread, NULL, counter_main, &workers[i]) != 0)
            fatal("pthread_create failed");
    }
    fk_result total = { 0, 0 };
    for (int i = 0; i < nworkers; i++) {
        pthread_join(workers[i].thread, NULL);
        combine(&total, workers[i].result);
    }
    return total;
}

/* ------------------------------------------------------------------ libdispatch / apply, group */

typedef struct {
    const fk_plan *plan;
    fk_result *slots;
} slot_ctx;

static void apply_task(void *context, size_t t)
{
    slot_ctx *c = context;
    c->slots[t] = run_task(c->plan, t);
}

static fk_result combine_slots(const fk_result *slots, uint64_t tasks)
{
    fk_result total = { 0, 0 };
    for (uint64_t t = 0; t < tasks; t++)
        combine(&total, slots[t]);
    return total;
}

static fk_result solve_apply(const fk_plan *pl, fk_result *slots)
{
    slot_ctx c = { pl, slots };
    dispatch_queue_t q = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_apply_f((size_t)pl->tasks, q, &c, apply_task);
    return combine_slots(slots, pl->tasks);
}

static fk_result solve_group(const fk_plan *pl, fk_result *slots)
{
    dispatch_queue_t q = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_group_t group = dispatch_group_create();
    for (uint64_t t = 0; t < pl->tasks; t++) {
        fk_result *slot = &slots[t];
        dispatch_group_async(group, q, ^{
            *slot = run_task(pl, t);
        });
    }
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_release(group);
    return combine_slots(slots, pl->tasks);
}

/* ------------------------------------------------------------------ seq / loop */

static fk_result solve_loop(const fk_plan *pl)
{
    fk_result total = { 0, 0 };
    for (uint64_t t = 0; t < pl->tasks; t++)
        combine(&total, run_task(pl, t));
    return total;
}

/* ------------------------------------------------------------------ entry */

int bench_fannkuch(cli_args *a)
{
    enum { COUNTER, APPLY, GROUP, LOOP } kind;
    const char *shape = option_take(a, "shape");
    if (strcmp(a->model, "pthreads") == 0) {
        if (shape != NULL && strcmp(shape, "counter") != 0)
            usage_error("fannkuch model pthreads has no shape '%s' (shapes: counter)", shape);
        kind = COUNTER;
    } else if (strcmp(a->model, "libdispatch") == 0) {
        if (shape == NULL || strcmp(shape, "apply") == 0)
            kind = APPLY;
        else if (strcmp(shape, "group") == 0)
            kind = GROUP;
        else
            usage_error("fannkuch model libdispatch has no shape '%s' (shapes: apply, group)", shape);
    } else if (strcmp(a->model, "seq") == 0) {
        if (shape != NULL && strcmp(shape, "loop") != 0)
            usage_error("fannkuch model seq has no shape '%s' (shapes: loop)", shape);
        kind = LOOP;
    } else {
        usage_error("fannkuch has no model '%s' (models: libdispatch, pthreads, seq)", a->model);
    }
    const char *kopt = option_take(a, "chunks");
    uint64_t k = 150;
    if (kopt != NULL && parse_u64(kopt, 1, MAXCHUNKS, &k) != 0)
        usage_error("fannkuch --option chunks wants an integer in 1..%u, got '%s'", MAXCHUNKS, kopt);
    options_check_all_used(a);
    uint64_t n;
    if (parse_u64(a->param, 1, MAXN, &n) != 0)
        usage_error("fannkuch --param wants n in 1..%d, got '%s'", MAXN, a->param);

    fk_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.n = (int)n;
    pl.fact[0] = 1;
    for (int j = 1; j <= MAXN; j++)
        pl.fact[j] = pl.fact[j - 1] * (uint64_t)j;
    pl.total = pl.fact[n];
    pl.chunk = (pl.total + k - 1) / k;
    pl.tasks = (pl.total + pl.chunk - 1) / pl.chunk;

    emit_hello(a->model);

    /* Per-task slots or per-thread records are allocated outside the timed region; creating the
       threads (pthreads) is inside it, as the spec's timed region includes creating the workers. */
    fk_result *slots = NULL;
    counter_worker *workers = NULL;
    if (kind == APPLY || kind == GROUP) {
        slots = calloc((size_t)pl.tasks, sizeof *slots);
        if (slots == NULL)
            fatal("out of memory");
    } else if (kind == COUNTER) {
        workers = calloc((size_t)a->workers, sizeof *workers);
        if (workers == NULL)
            fatal("out of memory");
    }

    for (int it = 0; it < a->iterations; it++) {
        fk_result r = { 0, 0 };
        int64_t t0 = now_ns();
        switch (kind) {
        case COUNTER:
            r = solve_counter(&pl, workers, a->workers);
            break;
        case APPLY:
            r = solve_apply(&pl, slots);
            break;
        case GROUP:
            r = solve_group(&pl, slots);
            break;
        case LOOP:
            r = solve_loop(&pl);
            break;
        }
        int64_t t1 = now_ns();
        char result[64];
        snprintf(result, sizeof result, "maxflips=%lld checksum=%lld", (long long)r.maxflips,
                 (long long)r.checksum);
        emit_iteration(it, t1 - t0, result);
    }
    free(slots);
    free(workers);
    return 0;
}
