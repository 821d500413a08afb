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
 *
 * Result slots (per task for apply/group, per thread for counter) are reused across iterations, so
 * before each iteration they are reset to FK_UNWRITTEN, and combining fails if one was not written in
 * this iteration: a task that silently did not run cannot pass on the previous iteration's value.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dispatch/dispatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN FK_MAXN

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
    fk_result result;           /* this thread's slot */
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

static int solve_counter(const fk_plan *pl, counter_worker *workers, int nworkers, fk_result *out,
                         uint64_t *missing)
{
    counter_shared s;
    s.plan = pl;
    atomic_init(&s.next, 0);
    for (int i = 0; i < nworkers; i++) {
        workers[i].shared = &s;
        if (pthread_create(&workers[i].thread, NULL, counter_main, &workers[i]) != 0)
            fatal("pthread_create failed");
    }
    for (int i = 0; i < nworkers; i++)
        pthread_join(workers[i].thread, NULL);
    fk_result total = { 0, 0 };
    for (int i = 0; i < nworkers; i++) {
        if (workers[i].result.maxflips == FK_UNWRITTEN) {
            *missing = (uint64_t)i;
            return -1;
        }
        combine(&total, workers[i].result);
    }
    *out = total;
    return 0;
}

/* ------------------------------------------------------------------ libdispatch / apply, group */

typedef struct {
    const fk_plan *plan;
    fk_result *slots;
    uint64_t skip;              /* fk_test_skip_task; UINT64_MAX: none */
} slot_ctx;

static void apply_task(void *context, size_t t)
{
    slot_ctx *c = context;
    if ((uint64_t)t == c->skip)
        return;
    c->slots[t] = run_task(c->plan, t);
}

int fk_combine_slots(const fk_result *slots, uint64_t count, fk_result *out, uint64_t *missing)
{
    fk_result total = { 0, 0 };
    for (uint64_t t = 0; t < count; t++) {
        if (slots[t].maxflips == FK_UNWRITTEN) {
            *missing = t;
            return -1;
        }
        combine(&total, slots[t]);
    }
    *out = total;
    return 0;
}

static int solve_apply(const fk_plan *pl, fk_result *slots, uint64_t skip, fk_result *out,
                       uint64_t *missing)
{
    slot_ctx c = { pl, slots, skip };
    dispatch_queue_t q = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_apply_f((size_t)pl->tasks, q, &c, apply_task);
    return fk_combine_slots(slots, pl->tasks, out, missing);
}

static int solve_group(const fk_plan *pl, fk_result *slots, uint64_t skip, fk_result *out,
                       uint64_t *missing)
{
    dispatch_queue_t q = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_group_t group = dispatch_group_create();
    for (uint64_t t = 0; t < pl->tasks; t++) {
        if (t == skip)
            continue;
        fk_result *slot = &slots[t];
        dispatch_group_async(group, q, ^{
            *slot = run_task(pl, t);
        });
    }
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_release(group);
    return fk_combine_slots(slots, pl->tasks, out, missing);
}

/* ------------------------------------------------------------------ seq / loop */

static fk_result solve_loop(const fk_plan *pl)
{
    fk_result total = { 0, 0 };
    for (uint64_t t = 0; t < pl->tasks; t++)
        combine(&total, run_task(pl, t));
    return total;
}

/* ------------------------------------------------------------------ life cycle */

struct fk_ctx {
    fk_shape shape;
    fk_plan plan;
    int nworkers;
    fk_result *slots;           /* apply, group: one per task */
    counter_worker *workers;    /* counter: one per thread */
    uint64_t skip;
};

fk_ctx *fk_new(fk_shape shape, int n, uint64_t chunks, int workers)
{
    if (n < 1 || n > MAXN || chunks < 1 || workers < 1)
        fatal("fk_new: n = %d, chunks = %llu, workers = %d out of range", n, (unsigned long long)chunks,
              workers);
    fk_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        fatal("out of memory");
    c->shape = shape;
    c->nworkers = workers;
    c->skip = UINT64_MAX;
    fk_plan *pl = &c->plan;
    pl->n = n;
    pl->fact[0] = 1;
    for (int j = 1; j <= MAXN; j++)
        pl->fact[j] = pl->fact[j - 1] * (uint64_t)j;
    pl->total = pl->fact[n];
    pl->chunk = (pl->total + chunks - 1) / chunks;
    pl->tasks = (pl->total + pl->chunk - 1) / pl->chunk;

    /* Per-task slots or per-thread records are allocated outside the timed region; creating the
       threads (counter) is inside it, as the spec's timed region includes creating the workers. */
    if (shape == FK_APPLY || shape == FK_GROUP) {
        c->slots = calloc((size_t)pl->tasks, sizeof *c->slots);
        if (c->slots == NULL)
            fatal("out of memory");
    } else if (shape == FK_COUNTER) {
        c->workers = calloc((size_t)workers, sizeof *c->workers);
        if (c->workers == NULL)
            fatal("out of memory");
    }
    return c;
}

uint64_t fk_tasks(const fk_ctx *c)
{
    return c->plan.tasks;
}

void fk_test_skip_task(fk_ctx *c, uint64_t t)
{
    c->skip = t;
}

int fk_iteration(fk_ctx *c, fk_result *out, int64_t *ns, uint64_t *missing)
{
    /* outside the timed region: every slot starts this iteration unwritten */
    if (c->slots != NULL)
        for (uint64_t t = 0; t < c->plan.tasks; t++)
            c->slots[t].maxflips = FK_UNWRITTEN;
    if (c->workers != NULL)
        for (int i = 0; i < c->nworkers; i++)
            c->workers[i].result.maxflips = FK_UNWRITTEN;

    int rc = 0;
    fk_result r = { 0, 0 };
    int64_t t0 = now_ns();
    switch (c->shape) {
    case FK_COUNTER:
        rc = solve_counter(&c->plan, c->workers, c->nworkers, &r, missing);
        break;
    case FK_APPLY:
        rc = solve_apply(&c->plan, c->slots, c->skip, &r, missing);
        break;
    case FK_GROUP:
        rc = solve_group(&c->plan, c->slots, c->skip, &r, missing);
        break;
    case FK_LOOP:
        r = solve_loop(&c->plan);
        break;
    }
    int64_t t1 = now_ns();
    *ns = t1 - t0;
    *out = r;
    return rc;
}

void fk_free(fk_ctx *c)
{
    if (c == NULL)
        return;
    free(c->slots);
    free(c->workers);
    free(c);
}
