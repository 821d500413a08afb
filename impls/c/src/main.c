/* concbench-c: command line, protocol output and the benchmark table.
 *
 *   concbench-c <benchmark> --model <model> --param <value> --iterations <k>
 *               [--workers <w>] [--option key=value]...
 *
 * stdout carries protocol lines only (JSON objects, one per line, flushed).
 * Any argument error: one line on stderr, exit status 2, nothing on stdout.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STR2(x) #x
#define STR(x) STR2(x)
#define CLANG_VERSION STR(__clang_major__) "." STR(__clang_minor__) "." STR(__clang_patchlevel__)

void usage_error(const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* keep it to one line whatever the arguments contained */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fprintf(stderr, "concbench-c: %s\n", line);
    exit(2);
}

void fatal(const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "concbench-c: fatal: %s\n", line);
    exit(1);
}

const char *option_take(cli_args *a, const char *key)
{
    const char *value = NULL;
    for (int i = 0; i < a->noptions; i++) {
        if (strcmp(a->options[i].key, key) == 0) {
            a->options[i].used = 1;
            value = a->options[i].value;       /* the last one given wins */
        }
    }
    return value;
}

void options_check_all_used(const cli_args *a)
{
    for (int i = 0; i < a->noptions; i++)
        if (!a->options[i].used)
            usage_error("unknown option '%s' for benchmark %s", a->options[i].key, a->benchmark);
}

int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void emit_hello(const char *model)
{
    const char *runtime;
    if (strcmp(model, "libdispatch") == 0)
        runtime = "clang " CLANG_VERSION " + libdispatch";
    else if (strcmp(model, "pthreads") == 0)
        runtime = "clang " CLANG_VERSION " + pthreads";
    else
        runtime = "clang " CLANG_VERSION;
    printf("{\"hello\": {\"protocol\": 1, \"language\": \"c\", \"runtime\": \"%s\", \"model\": \"%s\"}}\n",
           runtime, model);
    fflush(stdout);
}

void emit_iteration(int index, int64_t ns, const char *result)
{
    printf("{\"iteration\": %d, \"ns\": %lld, \"result\": \"%s\"}\n", index, (long long)ns, result);
    fflush(stdout);
}

static int available_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static const char *flag_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc)
        usage_error("%s needs a value", argv[*i]);
    *i += 1;
    return argv[*i];
}

int main(int argc, char **argv)
{
    cli_args a;
    memset(&a, 0, sizeof a);
    const char *iterations = NULL, *workers = NULL;

    if (argc < 2 || strncmp(argv[1], "--", 2) == 0)
        usage_error("usage: concbench-c <benchmark> --model <model> --param <value> --iterations <k> "
                    "[--workers <w>] [--option key=value]...");
    a.benchmark = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--model") == 0) {
            a.model = flag_value(argc, argv, &i);
        } else if (strcmp(arg, "--param") == 0) {
            a.param = flag_value(argc, argv, &i);
        } else if (strcmp(arg, "--iterations") == 0) {
            iterations = flag_value(argc, argv, &i);
        } else if (strcmp(arg, "--workers") == 0) {
            workers = flag_value(argc, argv, &i);
        } else if (strcmp(arg, "--option") == 0) {
            const char *kv = flag_value(argc, argv, &i);
            const char *eq = strchr(kv, '=');
            if (eq == NULL || eq == kv)
                usage_error("--option wants key=value, got '%s'", kv);
            if (a.noptions == MAX_OPTIONS)
                usage_error("too many --option arguments");
            size_t klen = (size_t)(eq - kv);
            if (klen >= sizeof a.options[0].key)
                usage_error("unknown option '%.40s...'", kv);
            memcpy(a.options[a.noptions].key, kv, klen);
            a.options[a.noptions].key[klen] = '\0';
            a.options[a.noptions].value = eq + 1;
            a.noptions++;
        } else {
            usage_error("unknown argument '%s'", arg);
        }
    }
    if (a.model == NULL)
        usage_error("missing --model");
    if (a.param == NULL)
        usage_error("missing --param");
    if (iterations == NULL)
        usage_error("missing --iterations");
    uint64_t v;
    if (parse_u64(iterations, 1, 1000000, &v) != 0)
        usage_error("--iterations wants an integer >= 1, got '%s'", iterations);
    a.iterations = (int)v;
    if (workers != NULL) {
        if (parse_u64(workers, 1, 4096, &v) != 0)
            usage_error("--workers wants an integer in 1..4096, got '%s'", workers);
        a.workers = (int)v;
        a.workers_given = 1;
    } else {
        a.workers = available_cpus();
    }

    if (strcmp(a.benchmark, "spawn-scaling") == 0)
        return bench_spawn_scaling(&a);
    if (strcmp(a.benchmark, "countdown") == 0)
        return bench_countdown(&a);
    if (strcmp(a.benchmark, "fannkuch") == 0)
        return bench_fannkuch(&a);
    usage_error("unknown benchmark '%s' (this implementation has: spawn-scaling, countdown, fannkuch)",
                a.benchmark);
}
