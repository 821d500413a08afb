/*
 * cb-launch: the tiny process that stands between the harness and a measured program.
 *
 * Why it exists: on Linux a process's ru_maxrss carries the high-water mark of the
 * address space it had before exec. A child spawned from the Python harness (fork,
 * vfork or posix_spawn alike) therefore reports the harness's resident size as its
 * own peak. This launcher is small, so the program it forks inherits almost nothing,
 * and the rusage it reaps with wait4 is the program's own.
 *
 * Usage: cb-launch [--cpus LIST] [--cgroup DIR]... [--report-fd FD] [--sample-ms MS] -- PROGRAM [ARG...]
 *   --cpus LIST     pin the program to these CPUs (comma separated ids) before exec; the launcher,
 *                   and with it the observer, moves to the CPUs it may use besides these, where
 *                   there are any, so that observing does not take time from the measured CPUs
 *   --cgroup DIR    the program joins this control group (writes itself into DIR/cgroup.procs) before
 *                   exec, so that every process it starts is in it too (repeatable: one per hierarchy);
 *                   the launcher stays out, so observing is not charged to the run
 *   --report-fd FD  write JSON lines there: {"pid": N} once the program is started,
 *                   then {"exit": {...}} after it ended (rusage, wall time, status, the CPUs
 *                   the observer ran on, and the instructions and cycles where the machine
 *                   counts them: counters.c)
 *   --sample-ms MS  with --report-fd: observe the program's threads every MS ms (observe.c)
 *                   and write the samples there too, before the exit line
 * The program inherits stdin, stdout and stderr. Exit status: the program's, or 127
 * when it could not be started (the report then names the errno).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "observe.h"

static int64_t timeval_ns(struct timeval tv) {
    return (int64_t)tv.tv_sec * 1000000000LL + (int64_t)tv.tv_usec * 1000LL;
}

static int parse_cpus(const char *list, cpu_set_t *set) {
    CPU_ZERO(set);
    char *copy = strdup(list);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long cpu = strtol(tok, &end, 10);
        if (*end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
            free(copy);
            return -1;
        }
        CPU_SET((int)cpu, set);
    }
    free(copy);
    return 0;
}

/* The CPUs of `set` as a comma-separated list, into `out` (empty when it holds none). */
static void format_cpus(const cpu_set_t *set, char *out, size_t size) {
    size_t used = 0;
    out[0] = '\0';
    for (int cpu = 0; cpu < CPU_SETSIZE && used + 8 < size; cpu++) {
        if (CPU_ISSET(cpu, set)) used += (size_t)snprintf(out + used, size - used, used ? ",%d" : "%d", cpu);
    }
}

/* The launcher's own place: the CPUs it may use besides the measured ones, if there are any; else
 * it stays with the program. Writes where it ended up into `where`. */
static void place_observer(const cpu_set_t *measured, char *where, size_t size) {
    cpu_set_t allowed, free_cpus;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        CPU_XOR(&free_cpus, &allowed, measured);
        CPU_AND(&free_cpus, &free_cpus, &allowed);
        if (CPU_COUNT(&free_cpus) > 0 && sched_setaffinity(0, sizeof free_cpus, &free_cpus) == 0) {
            format_cpus(&free_cpus, where, size);
            return;
        }
    }
    cpu_set_t current;
    if (sched_getaffinity(0, sizeof current, &current) == 0) format_cpus(&current, where, size);
}

#define MAX_CGROUPS 8

/* Moves the calling process into each group; 0, or the errno of the first that failed. */
static int join_cgroups(const char **groups, int count) {
    for (int g = 0; g < count; g++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cgroup.procs", groups[g]);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) return errno;
        ssize_t written = write(fd, "0\n", 2);
        int err = written == 2 ? 0 : errno;
        close(fd);
        if (err) return err;
    }
    return 0;
}

static void usage_error(const char *why) {
    fprintf(stderr, "cb-launch: %s\n", why);
    exit(2);
}

/* Waits for the program while the observer samples it; a pidfd wakes us the moment it ends,
 * so the wall time stays exact. Without pidfd_open (Linux < 5.3) nothing is sampled. */
static void observe_until_exit(pid_t pid, FILE *report, int64_t start_ns, int64_t interval_ns) {
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) {
        fprintf(report, "{\"observer\": {\"error\": \"pidfd_open: %s\"}}\n", strerror(errno));
        fflush(report);
        return;
    }
    struct observer *observer = observer_start(pid, report, start_ns, interval_ns);
    struct pollfd ended = {.fd = pidfd, .events = POLLIN};
    for (;;) {
        int64_t wait_ns = observer_sample(observer) - monotonic_ns();
        if (wait_ns < 0) wait_ns = 0;
        struct timespec timeout = {wait_ns / 1000000000LL, wait_ns % 1000000000LL};
        int ready = ppoll(&ended, 1, &timeout, NULL);
        if (ready > 0 || (ready < 0 && errno != EINTR)) break;
    }
    close(pidfd);
    observer_finish(observer);
}

int main(int argc, char **argv) {
    const char *cpus = NULL;
    int report_fd = -1;
    long sample_ms = 0;
    const char *cgroups[MAX_CGROUPS];
    int cgroup_count = 0;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) { i++; break; }
        if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) { cpus = argv[++i]; continue; }
        if (strcmp(argv[i], "--report-fd") == 0 && i + 1 < argc) { report_fd = atoi(argv[++i]); continue; }
        if (strcmp(argv[i], "--sample-ms") == 0 && i + 1 < argc) { sample_ms = atol(argv[++i]); continue; }
        if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc && cgroup_count < MAX_CGROUPS) {
            cgroups[cgroup_count++] = argv[++i];
            continue;
        }
        usage_error("usage: cb-launch [--cpus LIST] [--cgroup DIR]... [--report-fd FD] [--sample-ms MS] -- "
                    "PROGRAM [ARG...]");
    }
    if (i >= argc) usage_error("no program given");

    /* If the harness dies, take the measured program down with us. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t measured;
    if (cpus && parse_cpus(cpus, &measured) != 0) usage_error("cannot pin to the given CPUs");

    FILE *report = report_fd >= 0 ? fdopen(report_fd, "w") : NULL;

    /* A close-on-exec pipe tells us whether exec succeeded; another holds the child until its
     * counters are open, so that they count from its exec. */
    int exec_pipe[2], go_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0 || pipe2(go_pipe, O_CLOEXEC) != 0) usage_error("pipe failed");

    int64_t start_ns = monotonic_ns();
    pid_t pid = fork();
    if (pid < 0) usage_error("fork failed");
    if (pid == 0) {
        close(exec_pipe[0]);
        close(go_pipe[1]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char go;
        while (read(go_pipe[0], &go, 1) < 0 && errno == EINTR) {}
        if (cpus && sched_setaffinity(0, sizeof measured, &measured) != 0) {
            int err = errno;
            ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
            (void)ignored;
            _exit(127);
        }
        int joined = join_cgroups(cgroups, cgroup_count);
        if (joined) {
            ssize_t ignored = write(exec_pipe[1], &joined, sizeof joined);
            (void)ignored;
            _exit(127);
        }
        if (report) fclose(report);
        execvp(argv[i], &argv[i]);
        int err = errno;
        ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
        (void)ignored;
        _exit(127);
    }
    close(exec_pipe[1]);
    close(go_pipe[0]);
    struct counters counters = {.instructions_fd = -1, .cycles_fd = -1, .error = "not counted"};
    if (report) counters_open(&counters, pid);
    close(go_pipe[1]);
    char observer_cpus[256] = "";
    if (cpus) {
        place_observer(&measured, observer_cpus, sizeof observer_cpus);
    } else {
        cpu_set_t current;
        if (sched_getaffinity(0, sizeof current, &current) == 0) format_cpus(&current, observer_cpus, sizeof observer_cpus);
    }
    if (report) {
        fprintf(report, "{\"pid\": %d}\n", (int)pid);
        fflush(report);
    }
    int exec_errno = 0;
    if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    close(exec_pipe[0]);
    if (report && sample_ms > 0 && !exec_errno) observe_until_exit(pid, report, start_ns, sample_ms * 1000000LL);

    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) usage_error("wait4 failed");
    }
    int64_t wall_ns = monotonic_ns() - start_ns;

    int exited = WIFEXITED(status);
    int code = exited ? WEXITSTATUS(status) : -1;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (report) {
        fprintf(report,
                "{\"exit\": {\"code\": %d, \"signal\": %d, \"exec_errno\": %d, \"wall_ns\": %lld, "
                "\"user_ns\": %lld, \"sys_ns\": %lld, \"max_rss_kib\": %ld, "
                "\"voluntary_switches\": %ld, \"involuntary_switches\": %ld, \"observer_cpus\": \"%s\", ",
                code, sig, exec_errno, (long long)wall_ns, (long long)timeval_ns(ru.ru_utime),
                (long long)timeval_ns(ru.ru_stime), ru.ru_maxrss, ru.ru_nvcsw, ru.ru_nivcsw, observer_cpus);
        counters_report(&counters, report);
        fprintf(report, "}}\n");
        fclose(report);
    }
    if (exec_errno) return 127;
    return exited ? code : 128 + sig;
}
