/*
 * Counters: perf_event_open on the child before it execs, enable_on_exec and inherit set, so that the
 * counts cover the program's own run (not the launcher's fork) and every thread it starts, and read
 * once it has ended, scaled where the kernel multiplexed them. User space only, which a non-root user
 * may count up to perf_event_paranoid 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"

static int open_counter(pid_t pid, uint64_t config) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = config;
    attr.disabled = 1;
    attr.enable_on_exec = 1;
    attr.inherit = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

void counters_open(struct counters *c, pid_t pid) {
    c->error[0] = '\0';
    c->cycles_fd = -1;
    c->instructions_fd = open_counter(pid, PERF_COUNT_HW_INSTRUCTIONS);
    if (c->instructions_fd >= 0) c->cycles_fd = open_counter(pid, PERF_COUNT_HW_CPU_CYCLES);
    if (c->instructions_fd >= 0 && c->cycles_fd >= 0) return;
    /* ENOENT or EOPNOTSUPP: no such hardware event here (a VM without a virtual PMU); EACCES or EPERM:
     * perf_event_paranoid forbids it. */
    snprintf(c->error, sizeof c->error, "perf_event_open: %s", strerror(errno));
    if (c->instructions_fd >= 0) close(c->instructions_fd);
    c->instructions_fd = -1;
}

/* The count, scaled up where the counter ran only part of the time it was enabled; -1 if unread. */
static long long read_counter(int fd) {
    uint64_t values[3];
    if (fd < 0 || read(fd, values, sizeof values) != (ssize_t)sizeof values) return -1;
    if (values[2] == 0) return values[1] == 0 ? (long long)values[0] : -1;
    if (values[2] < values[1]) return (long long)((double)values[0] * (double)values[1] / (double)values[2]);
    return (long long)values[0];
}

void counters_report(struct counters *c, FILE *report) {
    long long instructions = read_counter(c->instructions_fd), cycles = read_counter(c->cycles_fd);
    if (!c->error[0] && (instructions < 0 || cycles < 0)) snprintf(c->error, sizeof c->error, "the counters could not be read");
    fprintf(report, "\"instructions\": %lld, \"cycles\": %lld, \"counters_error\": \"%s\"",
            c->error[0] ? -1 : instructions, c->error[0] ? -1 : cycles, c->error);
    if (c->instructions_fd >= 0) close(c->instructions_fd);
    if (c->cycles_fd >= 0) close(c->cycles_fd);
    c->instructions_fd = c->cycles_fd = -1;
}
