/*
 * cb-probe: how the machine is doing right now, in about 20 ms, so that the harness can tell a run made
 * in a quiet phase from one made while the machine was disturbed (DESIGN.md, honest numbers; README,
 * "the machine probe").
 *
 * Usage: cb-probe CPU [CPU2]
 * Prints one JSON line:
 *   roundtrip_ns  one cache line's round trip between CPU and CPU2: two pinned threads hand a counter back
 *                 and forth; the median over batches (null with one CPU: a hand-off on one CPU measures the
 *                 scheduler, not the machine)
 *   loop_ns       the wall time of a fixed chain of integer steps, run at once on each given CPU: the slower
 *                 of the two (a core shared with another busy thread, or clocked down, takes longer)
 *   share         the loop's CPU time over its wall time, the lower of the two CPUs: near 1 when the loop had
 *                 its CPU to itself, about 0.5 when another busy thread shared it
 *   copy_gbps     a memory copy rate on CPU, the best of a few copies of a buffer larger than most caches
 *   probe_ns      what the whole probe took
 * Each part stops at a time bound, so a badly disturbed machine still gets its reading at once.
 * Exit status 2 for bad arguments.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 64                    /* round trips timed together */
#define BATCHES 64
#define HANDOFF_BOUND_NS 8000000LL /* the hand-off part's time bound */
#define LOOP_STEPS 4000000          /* about 8 ms: longer than a scheduler slice, so a busy neighbour shows */
#define COPY_BYTES (4u << 20)
#define COPIES 3
#define STOP (-1L)

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static int compare_ns(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* -- the round trip ---------------------------------------------------------------------------------- */

static _Alignas(64) atomic_long ball;   /* odd: sent by the server side, even: returned */
static int echo_cpu;

static void *echo(void *unused) {
    (void)unused;
    pin(echo_cpu);
    long seen = 0;
    for (;;) {
        long value = atomic_load_explicit(&ball, memory_order_acquire);
        if (value == STOP)
            return NULL;
        if (value != seen && (value & 1)) {
            seen = value + 1;
            atomic_store_explicit(&ball, seen, memory_order_release);
        }
    }
}

static double roundtrip_ns(int cpu, int other) {
    echo_cpu = other;
    atomic_store(&ball, 0);
    pthread_t thread;
    if (pthread_create(&thread, NULL, echo, NULL) != 0)
        return -1;
    pin(cpu);
    int64_t batches[BATCHES];
    int done = 0;
    long value = 0;
    int64_t start = now_ns();
    for (int b = 0; b < BATCHES && now_ns() - start < HANDOFF_BOUND_NS; b++) {
        int64_t t0 = now_ns();
        for (int i = 0; i < BATCH; i++) {
            atomic_store_explicit(&ball, value + 1, memory_order_release);
            while (atomic_load_explicit(&ball, memory_order_acquire) != value + 2) {
            }
            value += 2;
        }
        batches[done++] = now_ns() - t0;
    }
    atomic_store(&ball, STOP);
    pthread_join(thread, NULL);
    qsort(batches, done, sizeof batches[0], compare_ns);
    /* The first batches also pay for waking the echo thread: the median leaves them out. */
    return (double)batches[done / 2] / BATCH;
}

/* -- the integer loop -------------------------------------------------------------------------------- */

struct loop {
    int cpu;
    int64_t ns, cpu_ns;
    uint64_t sink;
};

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *loop(void *arg) {
    struct loop *job = arg;
    pin(job->cpu);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int64_t t0 = now_ns(), c0 = thread_cpu_ns();
    for (int i = 0; i < LOOP_STEPS; i++) {   /* a dependent chain: no vector unit, no memory */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    job->ns = now_ns() - t0;
    job->cpu_ns = thread_cpu_ns() - c0;
    job->sink = x;
    return NULL;
}

static int64_t loop_ns(const int *cpus, int count, double *share) {
    struct loop jobs[2];
    pthread_t threads[2];
    for (int i = 0; i < count; i++) {
        jobs[i].cpu = cpus[i];
        if (pthread_create(&threads[i], NULL, loop, &jobs[i]) != 0)
            return -1;
    }
    int64_t slowest = 0;
    *share = 1.0;
    for (int i = 0; i < count; i++) {
        pthread_join(threads[i], NULL);
        if (jobs[i].ns > slowest)
            slowest = jobs[i].ns;
        double own = jobs[i].ns > 0 ? (double)jobs[i].cpu_ns / jobs[i].ns : 1.0;
        if (own < *share)
            *share = own;
    }
    if (jobs[0].sink == 42)   /* keeps the chain from being optimised away */
        fputc(' ', stderr);
    return slowest;
}

/* -- the copy ---------------------------------------------------------------------------------------- */

static double copy_gbps(int cpu) {
    pin(cpu);
    char *from = malloc(COPY_BYTES), *to = malloc(COPY_BYTES);
    if (from == NULL || to == NULL)
        return -1;
    memset(from, 1, COPY_BYTES);
    memset(to, 2, COPY_BYTES);   /* touched first, so the copies measure copying, not page faults */
    int64_t best = INT64_MAX;
    for (int i = 0; i < COPIES; i++) {
        from[i] = (char)i;
        int64_t t0 = now_ns();
        memcpy(to, from, COPY_BYTES);
        int64_t ns = now_ns() - t0;
        if (ns < best)
            best = ns;
    }
    double rate = to[COPIES - 1] == (char)(COPIES - 1) ? (double)COPY_BYTES / best : -1;
    free(from);
    free(to);
    return rate;
}

static int parse_cpu(const char *text) {
    char *end;
    long cpu = strtol(text, &end, 10);
    return (*text == '\0' || *end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) ? -1 : (int)cpu;
}

int main(int argc, char **argv) {
    int cpus[2], count = argc - 1;
    if (count < 1 || count > 2) {
        fprintf(stderr, "usage: cb-probe CPU [CPU2]\n");
        return 2;
    }
    for (int i = 0; i < count; i++) {
        cpus[i] = parse_cpu(argv[i + 1]);
        if (cpus[i] < 0) {
            fprintf(stderr, "cb-probe: not a CPU number: %s\n", argv[i + 1]);
            return 2;
        }
    }
    if (count == 2 && cpus[0] == cpus[1])
        count = 1;
    int64_t start = now_ns();
    double trip = count == 2 ? roundtrip_ns(cpus[0], cpus[1]) : 0;
    double share = 1.0;
    int64_t spin = loop_ns(cpus, count, &share);
    double rate = copy_gbps(cpus[0]);
    int64_t total = now_ns() - start;
    if (trip < 0 || spin < 0 || rate < 0) {
        fprintf(stderr, "cb-probe: could not start its threads or allocate its buffers\n");
        return 1;
    }
    if (count == 2)
        printf("{\"roundtrip_ns\": %.1f, ", trip);
    else
        printf("{\"roundtrip_ns\": null, ");
    printf("\"loop_ns\": %lld, \"share\": %.3f, \"copy_gbps\": %.2f, \"probe_ns\": %lld}\n", (long long)spin,
           share, rate, (long long)total);
    return 0;
}
