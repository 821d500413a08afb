/* spawn-scaling: spawn N tiny tasks, await them all, sum their values.
 *
 *   libdispatch / group   : N x dispatch_group_async_f onto the default global queue, one group,
 *                           each task writes its own pre-zeroed slot; one dispatch_group_wait; sum.
 *   pthreads   / futures  : N submissions to a plain pthread pool of --workers threads, one future
 *                           per task, the futures awaited (get) in index order.
 *   seq        / loop     : sum of work(i), no tasks.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dispatch/dispatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed body of task i: 32 dependent LCG steps. The empty asm makes each step opaque to the
   optimiser, so the 32 steps cannot be folded into one affine map (the spec forbids that). */
static inline uint32_t work(uint32_t i)
{
    uint32_t s = i;
    for (int r = 0; r < 32; r++) {
        s = 1664525u * s + 1013904223u;
        __asm__ volatile("" : "+r"(s));
    }
    return s % 1000u + 1u;
}

/* A memset the compiler cannot merge with malloc into a lazily zeroed calloc: the slots must really
   be zeroed (pages touched) before t0. */
static void *(*volatile memset_touch)(void *, int, size_t) = memset;

/* ---------------------------------------------------------------- libdispatch / group */

static uint32_t *g_slots;

static void group_task(void *context)
{
    uint32_t i = (uint32_t)(uintptr_t)context;
    g_slots[i] = work(i);
}

static uint64_t run_group(uint32_t n, int64_t *ns)
{
    dispatch_queue_t q = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    uint32_t *slots = malloc((size_t)n * sizeof *slots);
    if (slots == NULL)
        fatal("out of memory");
    memset_touch(slots, 0, (size_t)n * sizeof *slots);
    g_slots = slots;

    int64_t t0 = now_ns();
    dispatch_group_t group = dispatch_group_create();
    for (uint32_t i = 0; i < n; i++)
        dispatch_group_async_f(group, q, (void *)(uintptr_t)i, group_task);
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += slots[i];
    int64_t t1 = now_ns();

    dispatch_release(group);
    free(slots);
    *ns = t1 - t0;
    return sum;
}

/* ---------------------------------------------------------------- pthreads / futures */

/* One submitted callable together with its future: the pool runs work(index), stores the value and
   marks the future done. The submitter allocates it at submit time and frees it after get(). */
typedef struct ftask {
    struct ftask *next;         /* pool queue link */
    uint32_t index;
    uint32_t value;
    atomic_int done;
} ftask;

typedef struct {
    pthread_mutex_t qlock;      /* guards the FIFO, idle and stop */
    pthread_cond_t qcond;
    ftask *head, *tail;
    int idle;
    int stop;

    pthread_mutex_t flock;      /* future completion: waiters block here */
    pthread_cond_t fcond;
    atomic_int waiters;

    int nthreads;
    pthread_t *threads;
} fpool;

static void *fpool_worker(void *arg)
{
    fpool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->qlock);
        while (p->head == NULL && !p->stop) {
            p->idle++;
            pthread_cond_wait(&p->qcond, &p->qlock);
            p->idle--;
        }
        if (p->head == NULL) {          /* stop requested and nothing left */
            pthread_mutex_unlock(&p->qlock);
            return NULL;
        }
        ftask *t = p->head;
        p->head = t->next;
        if (p->head == NULL)
            p->tail = NULL;
        pthread_mutex_unlock(&p->qlock);

        t->value = work(t->index);
        /* complete the future; Dekker-style pairing with fpool_get (both sides seq_cst) */
        atomic_store(&t->done, 1);
        if (atomic_load(&p->waiters) > 0) {
            pthread_mutex_lock(&p->flock);
            pthread_cond_broadcast(&p->fcond);
            pthread_mutex_unlock(&p->flock);
        }
    }
}

static void fpool_start(fpool *p, int nthreads)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->qlock, NULL);
    pthread_cond_init(&p->qcond, NULL);
    pthread_mutex_init(&p->flock, NULL);
    pthread_cond_init(&p->fcond, NULL);
    atomic_init(&p->waiters, 0);
    p->nthreads = nthreads;
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (p->threads == NULL)
        fatal("out of memory");
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&p->threads[i], NULL, fpool_worker, p) != 0)
            fatal("pthread_create failed");
}

static void fpool_stop(fpool *p)
{
    pthread_mutex_lock(&p->qlock);
    p->stop = 1;
    pthread_cond_broadcast(&p->qcond);
    pthread_mutex_unlock(&p->qlock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
}

static ftask *fpool_submit(fpool *p, uint32_t index)
{
    ftask *t = malloc(sizeof *t);
    if (t == NULL)
        fatal("out of memory");
    t->next = NULL;
    t->index = index;
    t->value = 0;
    atomic_init(&t->done, 0);
    pthread_mutex_lock(&p->qlock);
    if (p->tail != NULL)
        p->tail->next = t;
    else
        p->head = t;
    p->tail = t;
    if (p->idle > 0)
        pthread_cond_signal(&p->qcond);
    pthread_mutex_unlock(&p->qlock);
    return t;
}

static uint32_t fpool_get(fpool *p, ftask *t)
{
    if (!atomic_load_explicit(&t->done, memory_order_acquire)) {
        pthread_mutex_lock(&p->flock);
        atomic_fetch_add(&p->waiters, 1);
        while (!atomic_load(&t->done))
            pthread_cond_wait(&p->fcond, &p->flock);
        atomic_fetch_sub(&p->waiters, 1);
        pthread_mutex_unlock(&p->flock);
    }
    return t->value;
}

static uint64_t run_futures(fpool *pool, uint32_t n, int64_t *ns)
{
    ftask **futures = malloc((size_t)n * sizeof *futures);
    if (futures == NULL)
        fatal("out of memory");
    memset_touch(futures, 0, (size_t)n * sizeof *futures);

    int64_t t0 = now_ns();
    for (uint32_t i = 0; i < n; i++)
        futures[i] = fpool_submit(pool, i);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += fpool_get(pool, futures[i]);
        free(futures[i]);
    }
    int64_t t1 = now_ns();

    free(futures);
    *ns = t1 - t0;
    return sum;
}

/* ---------------------------------------------------------------- seq / loop */

static uint64_t run_loop(uint32_t n, int64_t *ns)
{
    int64_t t0 = now_ns();
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += work(i);
    int64_t t1 = now_ns();
    *ns = t1 - t0;
    return sum;
}

/* ---------------------------------------------------------------- life cycle */

struct ss_ctx {
    ss_shape shape;
    uint32_t n;
    fpool pool;                 /* SS_FUTURES */
};

ss_ctx *ss_new(ss_shape shape, uint32_t n, int workers)
{
    if (n < 1 || n > SS_MAXN || workers < 1)
        fatal("ss_new: n = %u, workers = %d out of range", n, workers);
    ss_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        fatal("out of memory");
    c->shape = shape;
    c->n = n;
    /* The pool is created once, before the first iteration, and outside the timed region: it is the
       standing executor the tasks are submitted to (as libdispatch's worker threads already exist when
       the group variant starts its clock). Timing pthread_create for the pool would add a fixed
       thread start-up cost that is not per-task cost. */
    if (shape == SS_FUTURES)
        fpool_start(&c->pool, workers);
    return c;
}

uint64_t ss_iteration(ss_ctx *c, int64_t *ns)
{
    switch (c->shape) {
    case SS_GROUP:
        return run_group(c->n, ns);
    case SS_FUTURES:
        return run_futures(&c->pool, c->n, ns);
    case SS_LOOP:
        return run_loop(c->n, ns);
    }
    fatal("ss_iteration: unknown shape");
}

void ss_free(ss_ctx *c)
{
    if (c == NULL)
        return;
    if (c->shape == SS_FUTURES)
        fpool_stop(&c->pool);
    free(c);
}
