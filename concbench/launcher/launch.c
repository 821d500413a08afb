/*
 * cb-launch: the tiny process that stands between the harness and a measured program.
 *
 * Why it exists: on Linux a process's ru_maxrss carries the high-water mark of the
 * address space it had before exec. A child spawned from the Python harness (fork,
 * vfork or posix_spawn alike) therefore reports the harness's resident size as its
 * own peak. This launcher is small, so the program it forks inherits almost nothing,
 * and the rusage it reaps with wait4 is the program's own.
 *
 * Usage: cb-launch [--cpus LIST] [--report-fd FD] -- PROGRAM [ARG...]
 *   --cpus LIST     pin to these CPUs (comma separated ids) before exec
 *   --report-fd FD  write JSON lines there: {"pid": N} once the program is started,
 *                   then {"exit": {...}} after it ended (rusage, wall time, status)
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t timeval_ns(struct timeval tv) {
    return (int64_t)tv.tv_sec * 1000000000LL + (int64_t)tv.tv_usec * 1000LL;
}

static int pin_to_cpus(const char *list) {
    cpu_set_t set;
    CPU_ZERO(&set);
    char *copy = strdup(list);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        long cpu = strtol(tok, &end, 10);
        if (*end != '\0' || cpu < 0 || cpu >= CPU_SETSIZE) {
            free(copy);
            return -1;
        }
        CPU_SET((int)cpu, &set);
    }
    free(copy);
    return sched_setaffinity(0, sizeof set, &set);
}

static void usage_error(const char *why) {
    fprintf(stderr, "cb-launch: %s\n", why);
    exit(2);
}

int main(int argc, char **argv) {
    const char *cpus = NULL;
    int report_fd = -1;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) { i++; break; }
        if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) { cpus = argv[++i]; continue; }
        if (strcmp(argv[i], "--report-fd") == 0 && i + 1 < argc) { report_fd = atoi(argv[++i]); continue; }
        usage_error("usage: cb-launch [--cpus LIST] [--report-fd FD] -- PROGRAM [ARG...]");
    }
    if (i >= argc) usage_error("no program given");

    /* If the harness dies, take the measured program down with us. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (cpus && pin_to_cpus(cpus) != 0) usage_error("cannot pin to the given CPUs");

    FILE *report = report_fd >= 0 ? fdopen(report_fd, "w") : NULL;

    /* A close-on-exec pipe tells us whether exec succeeded. */
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) usage_error("pipe failed");

    int64_t start_ns = monotonic_ns();
    pid_t pid = fork();
    if (pid < 0) usage_error("fork failed");
    if (pid == 0) {
        close(exec_pipe[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (report) fclose(report);
        execvp(argv[i], &argv[i]);
        int err = errno;
        ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
        (void)ignored;
        _exit(127);
    }
    close(exec_pipe[1]);
    if (report) {
        fprintf(report, "{\"pid\": %d}\n", (int)pid);
        fflush(report);
    }
    int exec_errno = 0;
    if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) != sizeof exec_errno) exec_errno = 0;
    close(exec_pipe[0]);

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
                "\"voluntary_switches\": %ld, \"involuntary_switches\": %ld}}\n",
                code, sig, exec_errno, (long long)wall_ns, (long long)timeval_ns(ru.ru_utime),
                (long long)timeval_ns(ru.ru_stime), ru.ru_maxrss, ru.ru_nvcsw, ru.ru_nivcsw);
        fclose(report);
    }
    if (exec_errno) return 127;
    return exited ? code : 128 + sig;
}
