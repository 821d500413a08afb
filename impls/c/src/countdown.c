/* countdown: exhaustive Countdown numbers-round search, split into micro-batches with a cap of N
 * outstanding (spec: countdown.md, the forum thread's AsyncCountdown, stage B "C with libdispatch").
 *
 *   libdispatch / dispatch : main exploration on the calling thread; at each split point it waits on a
 *                            counting dispatch_semaphore created with N, then dispatch_group_async's the
 *                            micro-batch onto a global concurrent queue; the batch signals the semaphore
 *                            when done; dispatch_group_wait at the end.
 *   pthreads    / threads  : the same split and cap with a pool of N worker threads and a bounded
 *                            hand-off: the producer takes one of N permits before enqueuing; the permit
 *                            is given back when the batch ends.
 *   seq         / plain    : the sequential enumeration (DISPATCH = extend, no batches).
 *
 * State is plain structs and arrays. Operand chains are links in a per-exploration arena addressed by
 * int32 indexes (-1 = empty chain). The arena is used as a stack: a link is pushed when an operand joins
 * the node being built and popped when that choice is undone, so everything still reachable lies in
 * arena[0, top). A micro-batch therefore gets a private deep copy of its whole state (avail, counters,
 * accumulators and the live arena prefix) with two small memcpy's; nothing is shared between batches.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dispatch/dispatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK CD_MAXK
#define MAXL (2 * MAXK)         /* live links: at most one per leaf and per composed value */
#define TEXTMAX 1024            /* longest solution text (k <= 32 numbers of <= 10 digits) */
#define SPLIT_EST 5             /* the split point; independent of N and of the core count */

enum { LEAF = 0, ADD = 1, MUL = 2 };
enum { FORWARD = 0, REVERSE = 1 };

typedef struct {
    uint32_t value;
    int32_t chain;              /* operand chain of a composed value, -1 for a leaf */
    uint32_t kind;              /* LEAF, ADD or MUL */
} item_t;

typedef struct {
    item_t x;                   /* the operand */
    int32_t next;               /* older operands of the same node, -1 at the end */
    uint32_t side;              /* FORWARD or REVERSE */
} link_t;

typedef struct {
    uint32_t v[2];              /* v[FORWARD], v[REVERSE] */
    int skip;                   /* offset of the node's first operand (the sibling start) */
} acc_t;

struct run;

typedef struct {
    int len, cur, prev, top;
    int split;                  /* 1 in the main exploration of a split model */
    uint32_t goal;
    uint64_t calls;             /* candidate-loop iterations of this exploration */
    struct run *run;
    item_t avail[MAXK];
    link_t arena[MAXL];
} search_t;

typedef struct batch {
    search_t s;
    acc_t acc;
    uint32_t kind;
    int start;
    int32_t ops;
    uint64_t calls;             /* summed over every batch that used this buffer */
    struct batch *next_free;
    struct batch *next_all;
} batch_t;

typedef struct cpool cpool;

typedef void (*emit_fn)(struct run *r, const search_t *s, const acc_t *acc, uint32_t kind, int start,
                        int32_t ops);

typedef struct run {
    /* solutions, shared by all batches */
    pthread_mutex_t sol_lock;
    char **sols;
    size_t nsols, capsols;
    /* the producer's side */
    emit_fn emit;
    uint64_t batches;
    /* recycled batch buffers */
    pthread_mutex_t buf_lock;
    batch_t *free_list;
    batch_t *all;
    /* libdispatch */
    dispatch_semaphore_t sem;
    dispatch_group_t group;
    dispatch_queue_t queue;
    /* threads */
    cpool *pool;
} run_t;

/* ------------------------------------------------------------------ solution text */

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Canonical text of node (kind, chain) into out; returns its length. */
static size_t node_text(const search_t *s, uint32_t kind, int32_t chain, char *out)
{
    char scratch[TEXTMAX];
    char *texts[2][MAXL];
    int n[2] = {0, 0};
    size_t used = 0;
    for (int32_t l = chain; l >= 0; l = s->arena[l].next) {
        const link_t *lk = &s->arena[l];
        char *t = scratch + used;
        size_t len;
        if (lk->x.kind == LEAF) {
            len = (size_t)snprintf(t, TEXTMAX - used, "%u", lk->x.value);
        } else {
            t[0] = '(';
            len = 1 + node_text(s, lk->x.kind, lk->x.chain, t + 1);
            t[len++] = ')';
            t[len] = '\0';
        }
        texts[lk->side][n[lk->side]++] = t;
        used += len + 1;
    }
    qsort(texts[FORWARD], (size_t)n[FORWARD], sizeof(char *), cmp_text);
    qsort(texts[REVERSE], (size_t)n[REVERSE], sizeof(char *), cmp_text);
    size_t pos = 0;
    for (int i = 0; i < n[FORWARD]; i++) {
        if (i > 0)
            out[pos++] = kind == ADD ? '+' : '*';
        size_t l = strlen(texts[FORWARD][i]);
        memcpy(out + pos, texts[FORWARD][i], l);
        pos += l;
    }
    for (int i = 0; i < n[REVERSE]; i++) {
        out[pos++] = kind == ADD ? '-' : '/';
        size_t l = strlen(texts[REVERSE][i]);
        memcpy(out + pos, texts[REVERSE][i], l);
        pos += l;
    }
    out[pos] = '\0';
    return pos;
}

static void report(search_t *s, uint32_t kind, int32_t chain)
{
    char text[TEXTMAX];
    node_text(s, kind, chain, text);
    char *copy = strdup(text);
    if (copy == NULL)
        fatal("out of memory");
    run_t *r = s->run;
    pthread_mutex_lock(&r->sol_lock);
    if (r->nsols == r->capsols) {
        size_t cap = r->capsols ? 2 * r->capsols : 256;
        char **grown = realloc(r->sols, cap * sizeof *grown);
        if (grown == NULL)
            fatal("out of memory");
        r->sols = grown;
        r->capsols = cap;
    }
    r->sols[r->nsols++] = copy;
    pthread_mutex_unlock(&r->sol_lock);
}

/* ------------------------------------------------------------------ the enumeration */

static void extend(search_t *s, acc_t *acc, uint32_t kind, int start, int32_t ops);

static inline void dispatch(search_t *s, acc_t *acc, uint32_t kind, int start, int32_t ops)
{
    if (s->split) {
        int est = s->len + (ops >= 0 ? 1 : 0);  /* the node in progress counts as one value */
        if (start < s->len - s->cur && est == SPLIT_EST) {
            s->run->emit(s->run, s, acc, kind, start, ops);
            return;
        }
    }
    extend(s, acc, kind, start, ops);
}

static void node(search_t *s, uint32_t kind, int start)
{
    uint32_t neutral = kind == ADD ? 0u : 1u;
    acc_t acc = {{neutral, neutral}, 0};
    dispatch(s, &acc, kind, start, -1);
}

static void floor_(search_t *s, uint32_t kind)
{
    if (s->prev != 0)
        return;
    s->prev = s->cur;
    s->cur = 0;
    node(s, kind, 0);
    s->cur = s->prev;
    s->prev = 0;
}

static void extend(search_t *s, acc_t *acc, uint32_t kind, int start, int32_t ops)
{
    const int empty = ops < 0;
    const int stop = (empty && s->prev > 0) ? start + 1 : s->len - s->cur;
    for (int off = start; off < stop; off++) {
        s->calls++;
        if (empty)
            acc->skip = off;
        /* remove x = avail[len - cur - 1 - off] */
        int pos = s->len - s->cur - 1 - off;
        const item_t x = s->avail[pos];
        for (int i = pos; i < s->len - 1; i++)
            s->avail[i] = s->avail[i + 1];
        s->len--;
        const int composed = x.kind != LEAF;
        if (composed)
            s->prev--;

        for (uint32_t side = FORWARD; side <= REVERSE; side++) {
            acc->v[side] = kind == ADD ? acc->v[side] + x.value : acc->v[side] * x.value;
            const int32_t link = s->top++;
            s->arena[link].x = x;
            s->arena[link].next = ops;
            s->arena[link].side = side;

            dispatch(s, acc, kind, off, link);

            if (!empty && (kind == ADD ? acc->v[FORWARD] > acc->v[REVERSE]
                                       : acc->v[FORWARD] % acc->v[REVERSE] == 0)) {
                uint32_t v = kind == ADD ? acc->v[FORWARD] - acc->v[REVERSE]
                                         : acc->v[FORWARD] / acc->v[REVERSE];
                if (s->len == 0) {
                    if (v == s->goal)
                        report(s, kind, link);
                } else {
                    item_t c = {v, link, kind};
                    s->avail[s->len++] = c;
                    s->cur++;
                    node(s, kind, acc->skip);                /* a sibling on the same floor */
                    floor_(s, kind == ADD ? MUL : ADD);     /* or close the floor */
                    s->len--;
                    s->cur--;
                }
            }
            s->top--;
            acc->v[side] = kind == ADD ? acc->v[side] - x.value : acc->v[side] / x.value;
        }

        if (composed)
            s->prev++;
        /* put x back where it was */
        pos = s->len - s->cur - off;
        for (int i = s->len; i > pos; i--)
            s->avail[i] = s->avail[i - 1];
        s->avail[pos] = x;
        s->len++;
    }
}

/* ------------------------------------------------------------------ batch buffers */

static batch_t *buffer_get(run_t *r)
{
    pthread_mutex_lock(&r->buf_lock);
    batch_t *b = r->free_list;
    if (b != NULL)
        r->free_list = b->next_free;
    pthread_mutex_unlock(&r->buf_lock);
    if (b == NULL) {
        b = malloc(sizeof *b);
        if (b == NULL)
            fatal("out of memory");
        b->calls = 0;
        b->next_all = r->all;           /* only the producer touches the all-list */
        r->all = b;
    }
    return b;
}

static void buffer_put(run_t *r, batch_t *b)
{
    pthread_mutex_lock(&r->buf_lock);
    b->next_free = r->free_list;
    r->free_list = b;
    pthread_mutex_unlock(&r->buf_lock);
}

/* The micro-batch's private deep copy of the producer's state. */
static void batch_fill(batch_t *b, const search_t *s, const acc_t *acc, uint32_t kind, int start,
                       int32_t ops)
{
    b->s.len = s->len;
    b->s.cur = s->cur;
    b->s.prev = s->prev;
    b->s.top = s->top;
    b->s.split = 0;                     /* a batch never splits again */
    b->s.goal = s->goal;
    b->s.calls = 0;
    b->s.run = s->run;
    memcpy(b->s.avail, s->avail, (size_t)s->len * sizeof(item_t));
    memcpy(b->s.arena, s->arena, (size_t)s->top * sizeof(link_t));
    b->acc = *acc;
    b->kind = kind;
    b->start = start;
    b->ops = ops;
}

static void batch_run(batch_t *b)
{
    extend(&b->s, &b->acc, b->kind, b->start, b->ops);
    b->calls += b->s.calls;
}

/* ------------------------------------------------------------------ libdispatch / dispatch */

static void emit_dispatch(run_t *r, const search_t *s, const acc_t *acc, uint32_t kind, int start,
                          int32_t ops)
{
    dispatch_semaphore_wait(r->sem, DISPATCH_TIME_FOREVER);
    batch_t *b = buffer_get(r);
    batch_fill(b, s, acc, kind, start, ops);
    r->batches++;
    dispatch_semaphore_t sem = r->sem;
    dispatch_group_async(r->group, r->queue, ^{
        batch_run(b);
        buffer_put(r, b);               /* before the signal: the producer will want a buffer */
        dispatch_semaphore_signal(sem);
    });
}

/* ------------------------------------------------------------------ pthreads / threads */

struct cpool {
    pthread_mutex_t m;
    pthread_cond_t work_cv;             /* workers wait here for a descriptor */
    pthread_cond_t permit_cv;           /* the producer waits here for a permit (or for the end) */
    batch_t **ring;                     /* handed-over descriptors, at most n */
    int head, count;
    int outstanding;                    /* permits taken: batches handed over and not finished */
    int n;
    int stop;
    pthread_t *threads;
};

static void *cpool_worker(void *arg)
{
    cpool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->m);
        while (p->count == 0 && !p->stop)
            pthread_cond_wait(&p->work_cv, &p->m);
        if (p->count == 0) {
            pthread_mutex_unlock(&p->m);
            return NULL;
        }
        batch_t *b = p->ring[p->head];
        p->head = (p->head + 1) % p->n;
        p->count--;
        pthread_mutex_unlock(&p->m);

        batch_run(b);
        buffer_put(b->s.run, b);

        pthread_mutex_lock(&p->m);
        p->outstanding--;
        pthread_cond_signal(&p->permit_cv);
        pthread_mutex_unlock(&p->m);
    }
}

static void cpool_start(cpool *p, int n)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->m, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->permit_cv, NULL);
    p->n = n;
    p->ring = calloc((size_t)n, sizeof *p->ring);
    p->threads = calloc((size_t)n, sizeof *p->threads);
    if (p->ring == NULL || p->threads == NULL)
        fatal("out of memory");
    for (int i = 0; i < n; i++)
        if (pthread_create(&p->threads[i], NULL, cpool_worker, p) != 0)
            fatal("pthread_create failed");
}

static void cpool_stop(cpool *p)
{
    pthread_mutex_lock(&p->m);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->m);
    for (int i = 0; i < p->n; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    free(p->ring);
}

static void emit_threads(run_t *r, const search_t *s, const acc_t *acc, uint32_t kind, int start,
                         int32_t ops)
{
    cpool *p = r->pool;
    pthread_mutex_lock(&p->m);
    while (p->outstanding == p->n)
        pthread_cond_wait(&p->permit_cv, &p->m);
    p->outstanding++;
    pthread_mutex_unlock(&p->m);

    batch_t *b = buffer_get(r);
    batch_fill(b, s, acc, kind, start, ops);
    r->batches++;

    pthread_mutex_lock(&p->m);
    p->ring[(p->head + p->count) % p->n] = b;
    p->count++;
    pthread_cond_signal(&p->work_cv);
    pthread_mutex_unlock(&p->m);
}

static void cpool_wait_idle(cpool *p)
{
    pthread_mutex_lock(&p->m);
    while (p->outstanding > 0)
        pthread_cond_wait(&p->permit_cv, &p->m);
    pthread_mutex_unlock(&p->m);
}

/* ------------------------------------------------------------------ instances */

const cd_named_instance cd_named[] = {
    {"t4a", 24, 4, {1, 2, 3, 4}},
    {"t4b", 1, 4, {1, 1, 1, 1}},
    {"t5", 120, 5, {1, 2, 3, 4, 5}},
    {"t6a", 952, 6, {25, 50, 75, 100, 3, 6}},
    {"t6b", 240, 6, {2, 2, 3, 5, 7, 10}},
    {"q7", 952, 7, {100, 75, 50, 25, 10, 5, 1}},
    {"p8", 952, 8, {100, 75, 50, 25, 10, 5, 1, 2}},
};
const size_t cd_nnamed = sizeof cd_named / sizeof cd_named[0];

#define CD_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int cd_parse_instance(const char *param, cd_instance *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < cd_nnamed; i++) {
        if (strcmp(param, cd_named[i].name) == 0) {
            out->goal = cd_named[i].goal;
            out->k = cd_named[i].k;
            memcpy(out->numbers, cd_named[i].numbers, (size_t)cd_named[i].k * sizeof(uint32_t));
            return 0;
        }
    }
    const char *colon = strchr(param, ':');
    if (colon == NULL)
        CD_FAIL("countdown --param: unknown instance '%s' (named: t4a t4b t5 t6a t6b q7 p8, "
                "or GOAL:N1-N2-... such as 317:3-7-8-50-75-4)", param);
    char buf[256];
    size_t glen = (size_t)(colon - param);
    if (glen == 0 || glen >= sizeof buf)
        CD_FAIL("countdown --param: malformed goal in '%s'", param);
    memcpy(buf, param, glen);
    buf[glen] = '\0';
    long long v;
    if (parse_int(buf, 0, UINT32_MAX, &v) != 0)
        CD_FAIL("countdown --param: malformed goal in '%s'", param);
    out->goal = (uint32_t)v;
    out->k = 0;
    const char *p = colon + 1;
    for (;;) {
        const char *dash = strchr(p, '-');
        size_t len = dash ? (size_t)(dash - p) : strlen(p);
        if (len == 0 || len >= sizeof buf)
            CD_FAIL("countdown --param: malformed number list in '%s'", param);
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (parse_int(buf, 1, UINT32_MAX, &v) != 0)
            CD_FAIL("countdown --param: numbers must be integers >= 1, got '%s' in '%s'", buf, param);
        if (out->k == MAXK)
            CD_FAIL("countdown --param: at most %d numbers in '%s'", MAXK, param);
        out->numbers[out->k++] = (uint32_t)v;
        if (dash == NULL)
            break;
        p = dash + 1;
    }
    if (out->k < 2)
        CD_FAIL("countdown --param: at least 2 numbers wanted in '%s'", param);
    /* Accumulators are 32-bit, as in the original. Any value or accumulator built from the numbers
       n_i is at most prod(n_i + 1) - 1, so refuse instances where that bound passes 2^32 rather than
       compute with wrapped values. Every named instance passes (p8: 4 030 636 896). */
    uint64_t bound = 1;
    for (int i = 0; i < out->k; i++) {
        bound *= (uint64_t)out->numbers[i] + 1;
        if (bound > ((uint64_t)1 << 32))
            CD_FAIL("countdown --param: '%s' could overflow 32-bit accumulators "
                    "(the product of (n+1) over its numbers must be <= 2^32)", param);
    }
    return 0;
}

/* ------------------------------------------------------------------ the search */

static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return h;
}

static void search_init(search_t *s, const cd_instance *in, run_t *r, int split)
{
    s->len = in->k;
    s->cur = 0;
    s->prev = 0;
    s->top = 0;
    s->split = split;
    s->goal = in->goal;
    s->calls = 0;
    s->run = r;
    for (int i = 0; i < in->k; i++) {
        s->avail[i].value = in->numbers[i];
        s->avail[i].chain = -1;
        s->avail[i].kind = LEAF;
    }
}

static void solve(search_t *s)
{
    floor_(s, ADD);
    floor_(s, MUL);
}

/* ------------------------------------------------------------------ life cycle */

struct cd_ctx {
    cd_shape shape;
    cd_instance in;
    int window;
    cpool pool;                 /* CD_THREADS */
};

cd_ctx *cd_new(cd_shape shape, const cd_instance *in, int window)
{
    if (in->k < 1 || in->k > MAXK || window < 1)
        fatal("cd_new: k = %d, window = %d out of range", in->k, window);
    cd_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        fatal("out of memory");
    c->shape = shape;
    c->in = *in;
    c->window = window;
    if (shape == CD_THREADS)
        cpool_start(&c->pool, window);  /* once, outside the timed region: the standing pool */
    return c;
}

void cd_iteration(cd_ctx *c, cd_result *out, int64_t *ns, char ***solutions)
{
    run_t r;
    memset(&r, 0, sizeof r);
    pthread_mutex_init(&r.sol_lock, NULL);
    pthread_mutex_init(&r.buf_lock, NULL);
    search_t *main_search = malloc(sizeof *main_search);
    if (main_search == NULL)
        fatal("out of memory");

    int64_t t0 = now_ns();
    switch (c->shape) {
    case CD_DISPATCH:
        r.emit = emit_dispatch;
        r.sem = dispatch_semaphore_create(c->window);
        r.group = dispatch_group_create();
        r.queue = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
        search_init(main_search, &c->in, &r, 1);
        solve(main_search);
        dispatch_group_wait(r.group, DISPATCH_TIME_FOREVER);
        break;
    case CD_THREADS:
        r.emit = emit_threads;
        r.pool = &c->pool;
        search_init(main_search, &c->in, &r, 1);
        solve(main_search);
        cpool_wait_idle(&c->pool);
        break;
    case CD_PLAIN:
        search_init(main_search, &c->in, &r, 0);
        solve(main_search);
        break;
    }
    int64_t t1 = now_ns();
    *ns = t1 - t0;

    if (c->shape == CD_DISPATCH) {
        dispatch_release(r.group);
        dispatch_release(r.sem);
    }
    out->batches = r.batches;
    out->calls = main_search->calls;
    while (r.all != NULL) {
        batch_t *next = r.all->next_all;
        out->calls += r.all->calls;
        free(r.all);
        r.all = next;
    }
    free(main_search);

    qsort(r.sols, r.nsols, sizeof(char *), cmp_text);
    uint64_t cs = 0;
    for (size_t k = 0; k < r.nsols; k++)
        cs += fnv1a64(r.sols[k]) * (uint64_t)(k + 1);
    out->solutions = r.nsols;
    out->checksum = cs;
    if (solutions != NULL) {
        *solutions = r.sols;
    } else {
        for (size_t k = 0; k < r.nsols; k++)
            free(r.sols[k]);
        free(r.sols);
    }
    pthread_mutex_destroy(&r.sol_lock);
    pthread_mutex_destroy(&r.buf_lock);
}

void cd_free(cd_ctx *c)
{
    if (c == NULL)
        return;
    if (c->shape == CD_THREADS)
        cpool_stop(&c->pool);
    free(c);
}
