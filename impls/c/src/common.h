/* concbench-c: shared declarations for the command line, the protocol and the benchmarks. */
#ifndef CONCBENCH_COMMON_H
#define CONCBENCH_COMMON_H

#include <stdint.h>
#include <stddef.h>

#define MAX_OPTIONS 16

typedef struct {
    char key[64];
    const char *value;
    int used;
} cli_option;

typedef struct {
    const char *benchmark;
    const char *model;
    const char *param;
    int iterations;
    int workers;            /* --workers, or the CPUs this process may run on */
    int workers_given;
    int noptions;
    cli_option options[MAX_OPTIONS];
} cli_args;

/* Usage error: one line on stderr, exit status 2, nothing on stdout. */
__attribute__((noreturn, format(printf, 1, 2)))
void usage_error(const char *fmt, ...);

/* Fatal runtime error (not a usage error): one line on stderr, exit status 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void fatal(const char *fmt, ...);

/* Returns the value of option `key` (and marks it used), or NULL. */
const char *option_take(cli_args *a, const char *key);
/* Exits with status 2 if an option was not taken by the benchmark. */
void options_check_all_used(const cli_args *a);
/* Strict decimal parse: digits only, value in [lo, hi]. Returns 0 on success. */
int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* Protocol lines; each is flushed. */
void emit_hello(const char *model);
void emit_iteration(int index, int64_t ns, const char *result);

int64_t now_ns(void);           /* CLOCK_MONOTONIC in nanoseconds */

/* Benchmarks: validate everything first (usage_error on a bad argument),
   then emit hello, then run. They return the process exit status. */
int bench_spawn_scaling(cli_args *a);
int bench_countdown(cli_args *a);
int bench_fannkuch(cli_args *a);

#endif
