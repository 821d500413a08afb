/* concbench-c: the types of the one table (TABLE, MODELS in main.c) that prints `describe` and that
 * every argument check reads (docs/describe.md).
 *
 * Every list ends at its first entry whose name is NULL: TABLE and MODELS with an explicit zero entry,
 * the shapes, options and models inside an entry with the zero-filled spare slot of their arrays. */
#ifndef CONCBENCH_TABLE_H
#define CONCBENCH_TABLE_H

/* A domain: an integer range (either bound optional), a list of strings, or a regular expression the
   whole value must match. deflt: what the binary uses when the option is absent; PARAM_DEFAULT stands
   for the --param value. reason: why this table narrows the bound its benchmark's file declares
   (benchmarks/<id>.toml [options]); NULL where it narrows nothing. */
typedef enum { DOM_INT, DOM_VALUES, DOM_PATTERN } domain_kind;

typedef struct {
    domain_kind kind;
    int has_min, has_max;
    long long min, max;             /* DOM_INT */
    const char *const *values;      /* DOM_VALUES, NULL-terminated */
    const char *pattern;            /* DOM_PATTERN */
    const char *deflt;
    const char *reason;
} domain;

#define PARAM_DEFAULT "{param}"

#define INT_DOMAIN(lo, hi) { .kind = DOM_INT, .has_min = 1, .has_max = 1, .min = (lo), .max = (hi) }
#define INT_DOMAIN_DEFAULT(lo, hi, d) \
    { .kind = DOM_INT, .has_min = 1, .has_max = 1, .min = (lo), .max = (hi), .deflt = (d) }
#define INT_MIN_DOMAIN(lo, d) { .kind = DOM_INT, .has_min = 1, .min = (lo), .deflt = (d) }
#define INT_DOMAIN_NARROWED(lo, hi, d, why) \
    { .kind = DOM_INT, .has_min = 1, .has_max = 1, .min = (lo), .max = (hi), .deflt = (d), .reason = (why) }
#define PATTERN_DOMAIN(p) { .kind = DOM_PATTERN, .pattern = (p) }

typedef struct {
    const char *key;                /* NULL ends a list */
    domain dom;
} option_spec;

typedef struct {
    const char *name;               /* NULL ends a list */
    int kernel;                     /* the kernel's enum value: ss_shape, cd_shape, fk_shape or cw_shape */
} shape_spec;

#define MAX_SHAPES 3
#define MAX_MODEL_OPTIONS 3
#define MAX_MODELS 3

typedef struct {
    const char *model;              /* NULL ends a list */
    shape_spec shapes[MAX_SHAPES + 1];          /* the faithful port first */
    option_spec options[MAX_MODEL_OPTIONS + 1]; /* every key but shape */
} model_spec;

typedef struct run_args run_args;

typedef struct {
    const char *id;                 /* NULL ends the table */
    domain param;
    int (*run)(const run_args *a);  /* validated arguments in; the exit status out */
    model_spec models[MAX_MODELS + 1];
} bench_spec;

typedef struct {
    const char *name;               /* NULL ends the list */
    const char *description;
} model_info;

extern const model_info MODELS[];
extern const bench_spec TABLE[];

/* 1 if value lies inside the domain. */
int domain_accepts(const domain *d, const char *value);

/* The command line once checked against the table. */
#define MAX_OPTIONS 16

struct run_args {
    const bench_spec *bench;
    const model_spec *model;
    const shape_spec *shape;
    const char *param;
    int iterations;
    int workers;                    /* --workers, or the CPUs this process may run on */
    int noptions;
    struct {
        char key[64];
        const char *value;
    } options[MAX_OPTIONS];
};

#endif
