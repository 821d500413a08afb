/*
 * Hardware counters of a measured program inside cb-launch: the instructions it retired and the
 * cycles it ran, over all its threads, as perf stat counts them, without running it under perf.
 */
#ifndef CB_COUNTERS_H
#define CB_COUNTERS_H

#include <stdio.h>
#include <sys/types.h>

struct counters {
    int instructions_fd, cycles_fd;
    char error[128];   /* why there are none: this machine has no PMU, or perf_event_paranoid forbids */
};

/* Opens the counters on pid, a forked child that has not exec'd yet: they start counting at its exec
 * and follow every thread it starts. Where they cannot be opened, error says why and nothing counts. */
void counters_open(struct counters *c, pid_t pid);

/* After the program has been reaped: writes `"instructions": N, "cycles": N, "counters_error": "..."`
 * (a JSON object's members; -1 where not counted) and closes the counters. */
void counters_report(struct counters *c, FILE *report);

#endif
