/*
 * The observer inside cb-launch: samples a running program's threads from /proc and hands the
 * harness finished records, so that the Python harness itself does not wake per sample.
 */
#ifndef CB_OBSERVE_H
#define CB_OBSERVE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct observer;

/* Starts observing pid (already forked). Records go to report as JSON lines. */
struct observer *observer_start(pid_t pid, FILE *report, int64_t start_ns, int64_t interval_ns);

/* Takes one sample now; returns the time (monotonic ns) at which the next one is due. The
 * interval stretches so that the observer's own CPU stays under its budget. */
int64_t observer_sample(struct observer *o);

/* After the program has been reaped: flushes the samples and writes the per-thread totals and
 * the observer's own cost, then frees everything. */
void observer_finish(struct observer *o);

int64_t monotonic_ns(void);

#endif
