/* concbench-c: the table of what this binary serves, the command line checked against it, the protocol
 * output and the drivers of the kernels.
 *
 *   concbench-c describe
 *   concbench-c <benchmark> --model <model> --param <value> --iterations <k>
 *               [--workers <w>] [--option key=value]...
 *
 * `describe` prints TABLE (below) as one JSON line; every argument check reads the same TABLE.
 * stdout carries protocol lines only (JSON objects, one per line, flushed).
 * Any argument error: one line on stderr, exit status 2, nothing on stdout.
 *
 * Built with -DCONCBENCH_NO_MAIN for the unit tests, which link this file for fatal(), now_ns(),
 * parse_int() and the table.
 */
#define _GNU_SOURCE
#include "common.h"
#include "table.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
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

/* ================================================================== the table */

static int run_spawn_scaling(const run_args *a);
static int run_countdown(const run_args *a);
static int run_fannkuch(const run_args *a);
static int run_cowichan(const run_args *a);

const model_info MODELS[] = {
    {"libdispatch", "libdispatch from C: dispatch groups, semaphores and dispatch_apply on the global "
                    "concurrent queue"},
    {"pthreads", "plain POSIX threads: a fixed pool with futures, a pool with a bounded hand-off, or "
                 "threads on an atomic task counter"},
    {"seq", "sequential baseline, no tasks"},
    {NULL, NULL},
};

/* Countdown's --param: a named instance (countdown.c's cd_named) or GOAL:N1-N2-... with 2 to 32
   numbers. At most 9 digits keep every goal and number below 2^32; a number is >= 1. What the pattern
   cannot say (the accumulator bound: the product of (n+1) must be <= 2^32) cd_parse_instance rejects,
   with exit 2 as well. */
#define CD_NUMBER "[1-9][0-9]{0,8}"
#define CD_PARAM_PATTERN "t4a|t4b|t5|t6a|t6b|q7|p8|[0-9]{1,9}:" CD_NUMBER "(-" CD_NUMBER "){1,31}"

/* window, the cap on outstanding micro-batches (absent: --workers, else the cores). The threads shape
   starts a standing pool of that many threads; every shape hands it to cd_new as an int. */
#define WINDOW_OPTION {"window", INT_DOMAIN_NARROWED(1, INT_MAX, NULL, "a C int")}
#define WINDOW_THREADS_OPTION {"window", INT_DOMAIN_NARROWED(1, 4096, NULL, \
    "one POSIX thread per window slot, all started before the first iteration")}
/* chunks, K: loop and counter take any K (tasks = ceil(n!/ceil(n!/K)) <= n!); apply and group allocate a
   result slot per task. */
#define CHUNKS_OPTION {"chunks", INT_MIN_DOMAIN(1, "150")}
#define CHUNKS_SLOTS_OPTION \
    {"chunks", INT_DOMAIN_NARROWED(1, FK_MAXCHUNKS, "150", \
        "apply and group allocate a 16-byte result slot per task, min(chunks, n!) of them, before the run")}

/* The Cowichan family's options (chain.md): every benchmark of the six takes all three, whether its
   result depends on them or not. nelts absent is n, the parameter. */
#define COWICHAN_OPTIONS \
    {"p", INT_DOMAIN_DEFAULT(0, 100, "1")}, \
    {"nelts", INT_MIN_DOMAIN(1, PARAM_DEFAULT)}, \
    {"seed", INT_DOMAIN_DEFAULT(0, 4294967295LL, "0")}
#define COWICHAN(id) \
    {id, INT_DOMAIN(1, CW_MAXN), run_cowichan, { \
        {"seq", {{"plain", CW_PLAIN}}, {COWICHAN_OPTIONS}}, \
    }}

const bench_spec TABLE[] = {
    {"spawn-scaling", INT_DOMAIN(1, SS_MAXN), run_spawn_scaling, {
        {"libdispatch", {{"group", SS_GROUP}}, {}},
        {"pthreads", {{"futures", SS_FUTURES}}, {}},
        {"seq", {{"loop", SS_LOOP}}, {}},
    }},
    {"countdown", PATTERN_DOMAIN(CD_PARAM_PATTERN), run_countdown, {
        {"libdispatch", {{"dispatch", CD_DISPATCH}}, {WINDOW_OPTION}},
        {"pthreads", {{"threads", CD_THREADS}}, {WINDOW_THREADS_OPTION}},
        {"seq", {{"plain", CD_PLAIN}}, {WINDOW_OPTION}},   /* accepted and ignored */
    }},
    {"fannkuch", INT_DOMAIN(1, FK_MAXN), run_fannkuch, {
        {"libdispatch", {{"apply", FK_APPLY}, {"group", FK_GROUP}}, {CHUNKS_SLOTS_OPTION}},
        {"pthreads", {{"counter", FK_COUNTER}}, {CHUNKS_OPTION}},
        {"seq", {{"loop", FK_LOOP}}, {CHUNKS_OPTION}},
    }},
    COWICHAN("randmat"),
    COWICHAN("thresh"),
    COWICHAN("winnow"),
    COWICHAN("outer"),
    COWICHAN("product"),
    COWICHAN("chain"),
    {0},
};

/* ================================================================== errors, integers, clock */

/* Usage error: one line on stderr, exit status 2, nothing on stdout. */
__attribute__((noreturn, format(printf, 1, 2)))
static void usage_error(const char *fmt, ...)
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
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fflush(stdout);
    fprintf(stderr, "concbench-c: fatal: %s\n", line);
    exit(1);
}

int parse_int(const char *s, long long lo, long long hi, long long *out)
{
    if (s == NULL)
        return -1;
    /* the domain's form: an optional '-', then one or more digits, nothing else (strtoll alone would
       also take leading blanks and a '+') */
    const char *d = s[0] == '-' ? s + 1 : s;
    if (*d == '\0')
        return -1;
    for (const char *p = d; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return -1;
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

/* ================================================================== domains */

int domain_accepts(const domain *d, const char *value)
{
    switch (d->kind) {
    case DOM_INT: {
        long long v;
        return parse_int(value, d->has_min ? d->min : LLONG_MIN, d->has_max ? d->max : LLONG_MAX, &v) == 0;
    }
    case DOM_VALUES:
        for (const char *const *v = d->values; *v != NULL; v++)
            if (strcmp(*v, value) == 0)
                return 1;
        return 0;
    case DOM_PATTERN: {
        /* the whole value must match: anchor the pattern (a POSIX extended regex reads the subset the
           describe contract allows exactly as Python does) */
        size_t len = strlen(d->pattern) + 8;
        char *anchored = malloc(len);
        if (anchored == NULL)
            fatal("out of memory");
        snprintf(anchored, len, "^(%s)$", d->pattern);
        regex_t re;
        if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB) != 0)
            fatal("bad pattern in the table: %s", d->pattern);
        int ok = regexec(&re, value, 0, NULL, 0) == 0;
        regfree(&re);
        free(anchored);
        return ok;
    }
    }
    return 0;
}

/* ================================================================== JSON output */

/* A JSON string: quotes, backslashes and control characters escaped; other bytes (UTF-8) as they are. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* "key": */
static void json_key(FILE *f, const char *key)
{
    json_str(f, key);
    fputs(": ", f);
}

static void json_domain(FILE *f, const domain *d)
{
    fputc('{', f);
    switch (d->kind) {
    case DOM_INT: {
        json_key(f, "int");
        fputc('{', f);
        const char *sep = "";
        if (d->has_min) {
            fprintf(f, "%s\"min\": %lld", sep, d->min);
            sep = ", ";
        }
        if (d->has_max)
            fprintf(f, "%s\"max\": %lld", sep, d->max);
        fputc('}', f);
        break;
    }
    case DOM_VALUES:
        json_key(f, "values");
        fputc('[', f);
        for (const char *const *v = d->values; *v != NULL; v++) {
            if (v != d->values)
                fputs(", ", f);
            json_str(f, *v);
        }
        fputc(']', f);
        break;
    case DOM_PATTERN:
        json_key(f, "pattern");
        json_str(f, d->pattern);
        break;
    }
    if (d->deflt != NULL) {
        fputs(", ", f);
        json_key(f, "default");
        json_str(f, d->deflt);
    }
    if (d->reason != NULL) {
        fputs(", ", f);
        json_key(f, "reason");
        json_str(f, d->reason);
    }
    fputc('}', f);
}

static void emit_hello(const char *model)
{
    const char *runtime;
    if (strcmp(model, "libdispatch") == 0)
        runtime = "clang " CLANG_VERSION " + libdispatch";
    else if (strcmp(model, "pthreads") == 0)
        runtime = "clang " CLANG_VERSION " + pthreads";
    else
        runtime = "clang " CLANG_VERSION;
    fputs("{\"hello\": {\"protocol\": 1, \"language\": \"c\", \"runtime\": ", stdout);
    json_str(stdout, runtime);
    fputs(", \"model\": ", stdout);
    json_str(stdout, model);
    fputs("}}\n", stdout);
    fflush(stdout);
}

static void emit_iteration(int index, int64_t ns, const char *result)
{
    printf("{\"iteration\": %d, \"ns\": %lld, \"result\": ", index, (long long)ns);
    json_str(stdout, result);
    fputs("}\n", stdout);
    fflush(stdout);
}

/* ================================================================== drivers */

/* The value of option key: the one given, else the table's default (PARAM_DEFAULT: --param), else NULL. */
static const char *option_value(const run_args *a, const char *key)
{
    for (int i = a->noptions - 1; i >= 0; i--)      /* the last one given wins */
        if (strcmp(a->options[i].key, key) == 0)
            return a->options[i].value;
    for (const option_spec *o = a->model->options; o->key != NULL; o++)
        if (strcmp(o->key, key) == 0)
            return o->dom.deflt != NULL && strcmp(o->dom.deflt, PARAM_DEFAULT) == 0 ? a->param : o->dom.deflt;
    return NULL;
}

/* An integer already checked against its domain. */
static long long checked_int(const char *s)
{
    long long v;
    if (parse_int(s, LLONG_MIN, LLONG_MAX, &v) != 0)
        fatal("'%s' passed its domain but is not an integer", s);
    return v;
}

static int run_spawn_scaling(const run_args *a)
{
    uint32_t n = (uint32_t)checked_int(a->param);
    emit_hello(a->model->model);
    ss_ctx *c = ss_new((ss_shape)a->shape->kernel, n, a->workers);
    for (int it = 0; it < a->iterations; it++) {
        int64_t ns;
        uint64_t sum = ss_iteration(c, &ns);
        char result[64];
        snprintf(result, sizeof result, "tasks=%u sum=%llu", n, (unsigned long long)sum);
        emit_iteration(it, ns, result);
    }
    ss_free(c);
    return 0;
}

static int run_countdown(const run_args *a)
{
    cd_instance in;
    char err[512];
    if (cd_parse_instance(a->param, &in, err, sizeof err) != 0)
        usage_error("%s", err);
    /* window: the cap on outstanding micro-batches; default --workers (the cores given) */
    const char *w = option_value(a, "window");
    int window = w != NULL ? (int)checked_int(w) : a->workers;
    cd_shape shape = (cd_shape)a->shape->kernel;

    emit_hello(a->model->model);
    cd_ctx *c = cd_new(shape, &in, window);
    cd_result r = {0, 0, 0, 0};
    for (int it = 0; it < a->iterations; it++) {
        int64_t ns;
        cd_iteration(c, &r, &ns, NULL);
        char result[96];
        snprintf(result, sizeof result, "solutions=%zu checksum=%llu", r.solutions,
                 (unsigned long long)r.checksum);
        emit_iteration(it, ns, result);
    }
    cd_free(c);
    if (shape == CD_PLAIN)
        printf("{\"metrics\": {\"calls\": %llu}}\n", (unsigned long long)r.calls);
    else
        printf("{\"metrics\": {\"batches\": %llu, \"calls\": %llu}}\n", (unsigned long long)r.batches,
               (unsigned long long)r.calls);
    fflush(stdout);
    return 0;
}

static int run_fannkuch(const run_args *a)
{
    int n = (int)checked_int(a->param);
    uint64_t chunks = (uint64_t)checked_int(option_value(a, "chunks"));
    fk_shape shape = (fk_shape)a->shape->kernel;

    emit_hello(a->model->model);
    fk_ctx *c = fk_new(shape, n, chunks, a->workers);
    for (int it = 0; it < a->iterations; it++) {
        fk_result r;
        int64_t ns;
        uint64_t missing;
        if (fk_iteration(c, &r, &ns, &missing) != 0)
            fatal("fannkuch iteration %d: the result slot of %s %llu was not written in this iteration",
                  it, shape == FK_COUNTER ? "worker" : "task", (unsigned long long)missing);
        char result[64];
        snprintf(result, sizeof result, "maxflips=%lld checksum=%lld", (long long)r.maxflips,
                 (long long)r.checksum);
        emit_iteration(it, ns, result);
    }
    fk_free(c);
    return 0;
}

/* The stage a Cowichan entry of TABLE runs, by its id (the names in cw_bench order). */
static cw_bench cowichan_bench(const char *id)
{
    static const char *const names[] = {"randmat", "thresh", "winnow", "outer", "product", "chain"};
    for (int b = 0; b < (int)(sizeof names / sizeof names[0]); b++)
        if (strcmp(names[b], id) == 0)
            return (cw_bench)b;
    fatal("'%s' is no Cowichan benchmark", id);
}

static int run_cowichan(const run_args *a)
{
    cw_params pp;
    pp.n = (uint32_t)checked_int(a->param);
    pp.p = (uint32_t)checked_int(option_value(a, "p"));
    pp.nelts = (uint64_t)checked_int(option_value(a, "nelts"));
    pp.seed = (uint32_t)checked_int(option_value(a, "seed"));
    cw_bench bench = cowichan_bench(a->bench->id);

    emit_hello(a->model->model);
    cw_ctx *c = cw_new(bench, CW_PLAIN, &pp, a->workers);
    for (int it = 0; it < a->iterations; it++) {
        int64_t ns;
        char result[160];
        cw_iteration(c, &ns, result, sizeof result);
        emit_iteration(it, ns, result);
    }
    if (bench == CW_CHAIN) {
        int64_t s[5];
        cw_stage_ns(c, s);
        printf("{\"metrics\": {\"stage_randmat_ns\": %lld, \"stage_thresh_ns\": %lld, \"stage_winnow_ns\": %lld, "
               "\"stage_outer_ns\": %lld, \"stage_product_ns\": %lld}}\n", (long long)s[0], (long long)s[1],
               (long long)s[2], (long long)s[3], (long long)s[4]);
        fflush(stdout);
    }
    cw_free(c);
    return 0;
}

/* ================================================================== command line */

#ifndef CONCBENCH_NO_MAIN

/* `describe`: TABLE and MODELS as one JSON line (docs/describe.md). */
static void print_describe(void)
{
    FILE *f = stdout;
    fputs("{\"describe\": {\"protocol\": 1, \"language\": \"c\", \"models\": {", f);
    for (const model_info *m = MODELS; m->name != NULL; m++) {
        if (m != MODELS)
            fputs(", ", f);
        json_key(f, m->name);
        json_str(f, m->description);
    }
    fputs("}, \"benchmarks\": {", f);
    for (const bench_spec *b = TABLE; b->id != NULL; b++) {
        if (b != TABLE)
            fputs(", ", f);
        json_key(f, b->id);
        fputs("{\"param\": ", f);
        json_domain(f, &b->param);
        fputs(", \"models\": {", f);
        for (const model_spec *m = b->models; m->model != NULL; m++) {
            if (m != b->models)
                fputs(", ", f);
            json_key(f, m->model);
            fputs("{\"shapes\": [", f);
            for (const shape_spec *s = m->shapes; s->name != NULL; s++) {
                if (s != m->shapes)
                    fputs(", ", f);
                json_str(f, s->name);
            }
            fputs("], \"options\": {", f);
            for (const option_spec *o = m->options; o->key != NULL; o++) {
                if (o != m->options)
                    fputs(", ", f);
                json_key(f, o->key);
                json_domain(f, &o->dom);
            }
            fputs("}}", f);
        }
        fputs("}}", f);
    }
    fputs("}}}\n", f);
    fflush(f);
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

/* The domain in words, for error messages. */
static void domain_words(const domain *d, char *out, size_t cap)
{
    switch (d->kind) {
    case DOM_INT:
        if (d->has_min && d->has_max)
            snprintf(out, cap, "an integer in %lld..%lld", d->min, d->max);
        else if (d->has_min)
            snprintf(out, cap, "an integer >= %lld", d->min);
        else if (d->has_max)
            snprintf(out, cap, "an integer <= %lld", d->max);
        else
            snprintf(out, cap, "an integer");
        return;
    case DOM_VALUES: {
        size_t pos = (size_t)snprintf(out, cap, "one of");
        for (const char *const *v = d->values; *v != NULL && pos < cap; v++)
            pos += (size_t)snprintf(out + pos, cap - pos, " %s", *v);
        return;
    }
    case DOM_PATTERN:
        snprintf(out, cap, "a match of %s", d->pattern);
        return;
    }
}

static void names_of_benchmarks(char *out, size_t cap)
{
    size_t pos = 0;
    out[0] = '\0';
    for (const bench_spec *b = TABLE; b->id != NULL && pos < cap; b++)
        pos += (size_t)snprintf(out + pos, cap - pos, "%s%s", b == TABLE ? "" : ", ", b->id);
}

int main(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    const char *model = NULL, *iterations = NULL, *workers = NULL;
    char words[512];

    if (argc == 2 && strcmp(argv[1], "describe") == 0) {
        print_describe();
        return 0;
    }
    if (argc < 2 || strncmp(argv[1], "--", 2) == 0)
        usage_error("usage: concbench-c describe | concbench-c <benchmark> --model <model> --param <value> "
                    "--iterations <k> [--workers <w>] [--option key=value]...");
    if (strcmp(argv[1], "describe") == 0)
        usage_error("describe takes no arguments");

    for (const bench_spec *b = TABLE; b->id != NULL; b++)
        if (strcmp(b->id, argv[1]) == 0)
            a.bench = b;
    if (a.bench == NULL) {
        names_of_benchmarks(words, sizeof words);
        usage_error("unknown benchmark '%s' (this implementation has: %s)", argv[1], words);
    }

    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--model") == 0) {
            model = flag_value(argc, argv, &i);
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
                usage_error("too many --option arguments (at most %d)", MAX_OPTIONS);
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
    if (model == NULL)
        usage_error("missing --model");
    if (a.param == NULL)
        usage_error("missing --param");
    if (iterations == NULL)
        usage_error("missing --iterations");

    /* the model, its shape and its options, all from the table */
    for (const model_spec *m = a.bench->models; m->model != NULL; m++)
        if (strcmp(m->model, model) == 0)
            a.model = m;
    if (a.model == NULL)
        usage_error("%s has no model '%s'", a.bench->id, model);
    a.shape = &a.model->shapes[0];                  /* the faithful one unless another is asked */
    for (int i = 0; i < a.noptions; i++) {
        const char *key = a.options[i].key, *value = a.options[i].value;
        if (strcmp(key, "shape") == 0) {
            const shape_spec *found = NULL;
            for (const shape_spec *s = a.model->shapes; s->name != NULL; s++)
                if (strcmp(s->name, value) == 0)
                    found = s;
            if (found == NULL)
                usage_error("%s model %s has no shape '%s'", a.bench->id, a.model->model, value);
            a.shape = found;
            continue;
        }
        const option_spec *o = a.model->options;
        while (o->key != NULL && strcmp(o->key, key) != 0)
            o++;
        if (o->key == NULL)
            usage_error("unknown option '%s' for %s model %s", key, a.bench->id, a.model->model);
        if (!domain_accepts(&o->dom, value)) {
            domain_words(&o->dom, words, sizeof words);
            usage_error("%s --option %s wants %s, got '%s'", a.bench->id, key, words, value);
        }
    }
    if (!domain_accepts(&a.bench->param, a.param)) {
        domain_words(&a.bench->param, words, sizeof words);
        usage_error("%s --param wants %s, got '%s'", a.bench->id, words, a.param);
    }

    long long v;
    if (parse_int(iterations, 1, 1000000, &v) != 0)
        usage_error("--iterations wants an integer in 1..1000000, got '%s'", iterations);
    a.iterations = (int)v;
    if (workers != NULL) {
        if (parse_int(workers, 1, 4096, &v) != 0)
            usage_error("--workers wants an integer in 1..4096, got '%s'", workers);
        a.workers = (int)v;
    } else {
        a.workers = available_cpus();
    }
    return a.bench->run(&a);
}

#endif
