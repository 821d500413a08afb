/*
 * The observer: per-thread evidence of a running program, read from /proc without root.
 *
 * Each sample reads, for the process, /proc/PID/stat (resident size, thread count, CPU) and,
 * for every thread, /proc/PID/task/TID/stat (its state: R running or runnable, S sleeping,
 * D blocked in the kernel) and .../schedstat (CPU time and run delay, the time it was
 * runnable but waiting for a CPU, both in ns). The voluntary and involuntary context switch
 * counts (.../status) are read every STATUS_EVERY samples: that file is the costly one.
 *
 * Why here and not in Python: the observer must not disturb what it observes on a 2-core
 * machine. Files stay open and are re-read with pread (a /proc seq file regenerates at offset
 * 0), the directory of threads is scanned only when the thread count says something changed
 * or a thread ended (a new one may have taken its place, or a slot freed for one left untracked),
 * samples are written in batches a few times a second, and the next sample waits whenever the
 * observer's CPU so far (its wake-ups included) would exceed BUDGET of the time it has observed
 * (a program with hundreds of threads is sampled less often).
 *
 * What sleeping threads wait on: every WAITS_EVERY samples, up to WAIT_READS threads in state S have
 * their /proc/PID/task/TID/syscall read (the system call they sleep in and its first argument: for a
 * futex, the lock's address), counted per (call, argument) with the distinct threads found in it (up
 * to WAIT_TIDS): one lock that many threads sleep on is a bottleneck, where a wait of one thread each
 * (a join, a worker's own condition) is not. The launcher is the program's parent, so
 * the kernel lets it read them without root; where it may not, nothing is counted.
 *
 * Lines written to the report: {"samples": [[t_ns, rss_bytes, threads, cpu_ns, running,
 * sleeping, blocked, busy, run_delay_ns, voluntary, involuntary], ...]} every FLUSH_NS; at
 * the end {"threads": [[tid, name, cpu_ns, run_delay_ns, voluntary, involuntary], ...],
 * "untracked": n}, {"waits": [[syscall, "0xARG", count, threads], ...], "looks": n} (the most counted first)
 * and {"observer": {"cpu_ns": ..., "samples": ..., "interval_max_ns": ...}}. The threads line lists the
 * threads in the order first seen, the first MAX_ENDED to end (those alive at the end count as ending
 * then) one by one and the rest summed into one last row, [0, "(N ended)", ...]: a program that
 * starts a thread per task is still followed whole (MAX_TRACKED bounds only the threads alive at once,
 * each holding three open files), and each sample reads only the live threads.
 * busy counts threads already seen at the previous sample whose CPU time grew since (a thread first
 * seen is not busy: its CPU so far may be all start-up); run_delay, voluntary
 * and involuntary are totals over every thread seen so far, the ones that ended included. Where a
 * thread's schedstat cannot be read (a kernel without it), "schedstat": false in the threads line
 * says the run delay is unknown, not 0.
 */
#define _GNU_SOURCE
#include "observe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define STATUS_EVERY 10            /* read the switch counts every 10th sample */
#ifndef MAX_TRACKED                /* (both small in a test build, which then needs only a few threads) */
#define MAX_TRACKED 4096           /* live threads followed one by one; beyond that only counted */
#endif
#ifndef MAX_ENDED
#define MAX_ENDED 4096             /* ended threads reported one by one; the rest are summed in one row */
#endif
#define BUDGET_PER_MILLE 6         /* the observer may use 0.6 % of one core (the harness the rest of 1 %) */
#define FLUSH_NS 250000000LL       /* write samples four times a second */
#define CREDIT_NS 250000000LL      /* the budget counts as if observing began this much earlier, so the
                                      first samples (opening every thread's files) keep the full rate */
#define BATCH_MAX 256
#define WAITS_EVERY 10             /* look at what sleepers wait on every 10th sample (offset from STATUS_EVERY) */
#define WAIT_READS 64              /* ... reading at most this many sleeping threads each time */
#define WAIT_KINDS 64              /* distinct (call, argument) pairs counted; the rest are not */
#define WAITS_REPORTED 16
#define WAIT_TIDS 32               /* distinct threads remembered per wait */

enum { T_NS, RSS, THREADS, CPU, RUNNING, SLEEPING, BLOCKED, BUSY, DELAY, VOLUNTARY, INVOLUNTARY, FIELDS };

struct thread {
    int tid;
    long order;                         /* when first seen: the report lists threads in this order */
    int fd_stat, fd_sched, fd_status;   /* -1 once the thread has ended */
    int seen;                           /* read at an earlier sample */
    char name[32];
    char state;
    long long cpu_ns, delay_ns, voluntary, involuntary;
};

struct wait {
    long syscall;
    unsigned long long arg;
    long count;
    int tids[WAIT_TIDS];
    int threads;
};

struct observer {
    pid_t pid;
    FILE *report;
    int64_t start_ns, interval_ns, interval_max_ns, last_flush_ns, next_ns;
    int schedstat_missing;             /* a live thread whose schedstat could not be read */
    int64_t cpu_at_start_ns;           /* the launcher's CPU before observing: fork and exec are not ours */
    int fd_proc_stat;
    struct thread *threads;            /* the live ones */
    int count, capacity, untracked;
    int rescan;                        /* a thread ended: its slot may now follow one counted as untracked */
    struct thread *ended;              /* the first MAX_ENDED that ended, closed */
    int ended_count, ended_capacity;
    struct thread rest;                /* the sum of those that ended after them */
    long rest_count, seen_count;
    long long ended_delay_ns, ended_voluntary, ended_involuntary;
    long samples;
    int64_t batch[BATCH_MAX][FIELDS];
    int batched;
    long long page_bytes, tick_ns;
    struct wait waits[WAIT_KINDS];
    int wait_kinds;
    long wait_looks;                   /* sleeping threads looked at */
};

int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t own_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Re-reads an open /proc file from its start; the length read, or -1 once it is gone. */
static ssize_t reread(int fd, char *buf, size_t size) {
    if (fd < 0) return -1;
    ssize_t n = pread(fd, buf, size - 1, 0);
    if (n <= 0) return -1;
    buf[n] = '\0';
    return n;
}

static int open_task_file(pid_t pid, int tid, const char *name) {
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", (int)pid, tid, name);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* The live thread with this id: an ended one's id may be reused by a new thread, which is then new. */
static struct thread *find(struct observer *o, int tid) {
    for (int i = 0; i < o->count; i++)
        if (o->threads[i].tid == tid) return &o->threads[i];
    return NULL;
}

/* Room for one more in an array of threads; 0 where memory ran out. */
static int make_room(struct thread **array, int count, int *capacity) {
    if (count < *capacity) return 1;
    int grown_capacity = *capacity ? 2 * *capacity : 64;
    struct thread *grown = realloc(*array, grown_capacity * sizeof *grown);
    if (!grown) return 0;
    *array = grown;
    *capacity = grown_capacity;
    return 1;
}

/* Closes live thread i and moves it to the ended ones (or into their summed row); the last live one
 * takes its place. */
static void end_thread(struct observer *o, int i) {
    struct thread *t = &o->threads[i];
    close(t->fd_stat);
    if (t->fd_sched >= 0) close(t->fd_sched);
    if (t->fd_status >= 0) close(t->fd_status);
    t->fd_stat = t->fd_sched = t->fd_status = -1;
    if (o->ended_count < MAX_ENDED && make_room(&o->ended, o->ended_count, &o->ended_capacity)) {
        o->ended[o->ended_count++] = *t;
    } else {
        o->rest.cpu_ns += t->cpu_ns;
        o->rest.delay_ns += t->delay_ns;
        o->rest.voluntary += t->voluntary;
        o->rest.involuntary += t->involuntary;
        o->rest_count++;
    }
    o->threads[i] = o->threads[--o->count];
}

/* Opens the files of threads not seen before. */
static void scan_threads(struct observer *o) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)o->pid);
    DIR *dir = opendir(path);
    if (!dir) return;
    struct dirent *entry;
    int untracked = 0;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int tid = atoi(entry->d_name);
        if (find(o, tid)) continue;
        if (o->count >= MAX_TRACKED) { untracked++; continue; }
        if (!make_room(&o->threads, o->count, &o->capacity)) break;
        struct thread *t = &o->threads[o->count];
        memset(t, 0, sizeof *t);
        t->tid = tid;
        t->order = o->seen_count;
        t->fd_stat = open_task_file(o->pid, tid, "stat");
        if (t->fd_stat < 0) {                /* it ended already, or we are out of descriptors */
            if (errno == EMFILE || errno == ENFILE) untracked++;
            continue;
        }
        t->fd_sched = open_task_file(o->pid, tid, "schedstat");
        t->fd_status = open_task_file(o->pid, tid, "status");
        t->state = '?';
        o->count++;
        o->seen_count++;
    }
    closedir(dir);
    o->untracked = untracked;
    o->rescan = 0;
}

static long long field_after(const char *text, const char *key) {
    const char *at = strstr(text, key);
    return at ? atoll(at + strlen(key)) : -1;
}

/* Reads one thread; 0 if it has ended. */
static int read_thread(struct observer *o, struct thread *t, int with_status) {
    char buf[4096];
    if (reread(t->fd_stat, buf, sizeof buf) < 0) return 0;
    char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren[1] == '\0') return 0;
    size_t length = (size_t)(close_paren - open_paren - 1);
    if (length >= sizeof t->name) length = sizeof t->name - 1;
    memcpy(t->name, open_paren + 1, length);
    t->name[length] = '\0';
    t->state = close_paren[2];
    if (t->state == 'Z' || t->state == 'X') return 0;
    long long cpu, delay;
    if (reread(t->fd_sched, buf, sizeof buf) > 0 && sscanf(buf, "%lld %lld", &cpu, &delay) == 2) {
        t->cpu_ns = cpu;
        t->delay_ns = delay;
    } else {
        o->schedstat_missing = 1;
    }
    if (with_status && reread(t->fd_status, buf, sizeof buf) > 0) {
        long long voluntary = field_after(buf, "\nvoluntary_ctxt_switches:");
        long long involuntary = field_after(buf, "\nnonvoluntary_ctxt_switches:");
        if (voluntary >= 0) t->voluntary = voluntary;
        if (involuntary >= 0) t->involuntary = involuntary;
    }
    return 1;
}

/* What one sleeping thread waits in: its system call and first argument; counted, if there is room. */
static void look_at_wait(struct observer *o, int tid) {
    char path[96], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)o->pid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return;
    buf[n] = '\0';
    long syscall;
    unsigned long long arg;
    if (sscanf(buf, "%ld %llx", &syscall, &arg) != 2 || syscall < 0) return;   /* "running", or -1: in user space */
    o->wait_looks++;
    struct wait *w = NULL;
    for (int i = 0; i < o->wait_kinds && !w; i++)
        if (o->waits[i].syscall == syscall && o->waits[i].arg == arg) w = &o->waits[i];
    if (!w) {
        if (o->wait_kinds == WAIT_KINDS) return;
        w = &o->waits[o->wait_kinds++];
        memset(w, 0, sizeof *w);
        w->syscall = syscall;
        w->arg = arg;
    }
    w->count++;
    for (int i = 0; i < w->threads; i++)
        if (w->tids[i] == tid) return;
    if (w->threads < WAIT_TIDS) w->tids[w->threads++] = tid;
}

static int by_count(const void *a, const void *b) {
    long x = ((const struct wait *)a)->count, y = ((const struct wait *)b)->count;
    return (x < y) - (x > y);
}

static void write_json_string(FILE *out, const char *text) {
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f) fprintf(out, "\\u%04x", *c);
        else fputc(*c, out);
    }
    fputc('"', out);
}

static void flush_samples(struct observer *o) {
    if (o->batched == 0) return;
    fputs("{\"samples\": [", o->report);
    for (int i = 0; i < o->batched; i++) {
        fputs(i ? ", [" : "[", o->report);
        for (int f = 0; f < FIELDS; f++) fprintf(o->report, f ? ", %lld" : "%lld", (long long)o->batch[i][f]);
        fputc(']', o->report);
    }
    fputs("]}\n", o->report);
    fflush(o->report);
    o->batched = 0;
}

struct observer *observer_start(pid_t pid, FILE *report, int64_t start_ns, int64_t interval_ns) {
    struct observer *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    /* Three open files per thread: raise our own descriptor limit (the program, already forked, keeps its own). */
    struct rlimit files;
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    o->pid = pid;
    o->report = report;
    o->start_ns = o->last_flush_ns = start_ns;
    o->interval_ns = o->interval_max_ns = interval_ns;
    o->next_ns = start_ns;
    o->cpu_at_start_ns = own_cpu_ns();
    o->page_bytes = sysconf(_SC_PAGESIZE);
    o->tick_ns = 1000000000LL / sysconf(_SC_CLK_TCK);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    o->fd_proc_stat = open(path, O_RDONLY | O_CLOEXEC);
    return o;
}

int64_t observer_sample(struct observer *o) {
    int64_t now = monotonic_ns();
    char buf[4096];
    if (reread(o->fd_proc_stat, buf, sizeof buf) > 0) {
        char *close_paren = strrchr(buf, ')');
        long long utime = 0, stime = 0, threads = 0, rss = 0;
        /* Fields after the name: 3 state ... 14 utime 15 stime ... 20 num_threads ... 24 rss. */
        int n = close_paren ? sscanf(close_paren + 2,
                                     "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %lld %lld %*s %*s %*s %*s %lld %*s %*s %*s %lld",
                                     &utime, &stime, &threads, &rss) : 0;
        if (n == 4 && threads > 0) {
            /* Scan when the count says something changed, or after threads ended: a new thread that took the
             * place of an ended one leaves the count as it was, as does one left untracked at the limit. */
            if (o->samples == 0 || o->rescan || o->count + o->untracked != threads) scan_threads(o);
            int with_status = o->samples % STATUS_EVERY == 0;
            int with_waits = o->samples % WAITS_EVERY == WAITS_EVERY / 2;
            int wait_reads = 0;
            long long running = 0, sleeping = 0, blocked = 0, busy = 0;
            /* The totals count the ended threads too: from their last reading, kept when they ended. */
            long long delay = o->ended_delay_ns, voluntary = o->ended_voluntary, involuntary = o->ended_involuntary;
            for (int i = 0; i < o->count; i++) {
                struct thread *t = &o->threads[i];
                long long before = t->cpu_ns;
                if (!read_thread(o, t, with_status)) {
                    o->ended_delay_ns += t->delay_ns;
                    o->ended_voluntary += t->voluntary;
                    o->ended_involuntary += t->involuntary;
                    delay += t->delay_ns;
                    voluntary += t->voluntary;
                    involuntary += t->involuntary;
                    end_thread(o, i--);     /* the last live thread moved into slot i: read it next */
                    o->rescan = 1;
                    continue;
                }
                if (with_waits && t->state == 'S' && wait_reads < WAIT_READS) {
                    look_at_wait(o, t->tid);
                    wait_reads++;
                }
                running += t->state == 'R';
                sleeping += t->state == 'S';
                blocked += t->state == 'D';
                busy += t->seen && t->cpu_ns > before;
                t->seen = 1;
                delay += t->delay_ns;
                voluntary += t->voluntary;
                involuntary += t->involuntary;
            }
            int64_t *s = o->batch[o->batched++];
            s[T_NS] = now - o->start_ns;
            s[RSS] = rss * o->page_bytes;
            s[THREADS] = threads;
            s[CPU] = (utime + stime) * o->tick_ns;
            s[RUNNING] = running;
            s[SLEEPING] = sleeping;
            s[BLOCKED] = blocked;
            s[BUSY] = busy;
            s[DELAY] = delay;
            s[VOLUNTARY] = voluntary;
            s[INVOLUNTARY] = involuntary;
            o->samples++;
        }
    }
    if (o->batched == BATCH_MAX || now - o->last_flush_ns >= FLUSH_NS) {
        flush_samples(o);
        o->last_flush_ns = now;
    }
    /* Stay within budget on average: the next sample waits until the CPU spent so far is at most
     * BUDGET of the time observed. Late samples are not caught up in a burst. */
    int64_t spent = own_cpu_ns() - o->cpu_at_start_ns;
    int64_t affordable = o->start_ns - CREDIT_NS + spent * 1000 / BUDGET_PER_MILLE;
    int64_t next = o->next_ns + o->interval_ns;
    if (next < now) next = now + o->interval_ns;
    if (next < affordable) next = affordable;
    if (next - now > o->interval_max_ns) o->interval_max_ns = next - now;
    o->next_ns = next;
    return next;
}

static int by_order(const void *a, const void *b) {
    long x = ((const struct thread *)a)->order, y = ((const struct thread *)b)->order;
    return (x > y) - (x < y);
}

static void write_thread(FILE *out, const struct thread *t, int first) {
    fprintf(out, first ? "[%d, " : ", [%d, ", t->tid);
    write_json_string(out, t->name);
    fprintf(out, ", %lld, %lld, %lld, %lld]", t->cpu_ns, t->delay_ns, t->voluntary, t->involuntary);
}

void observer_finish(struct observer *o) {
    if (!o) return;
    flush_samples(o);
    while (o->count > 0) end_thread(o, o->count - 1);   /* every thread as it was last read */
    qsort(o->ended, (size_t)o->ended_count, sizeof o->ended[0], by_order);
    fputs("{\"threads\": [", o->report);
    for (int i = 0; i < o->ended_count; i++) write_thread(o->report, &o->ended[i], i == 0);
    if (o->rest_count > 0) {
        snprintf(o->rest.name, sizeof o->rest.name, "(%ld ended)", o->rest_count);
        write_thread(o->report, &o->rest, o->ended_count == 0);
    }
    fprintf(o->report, "], \"untracked\": %d, \"schedstat\": %s}\n", o->untracked,
            o->schedstat_missing ? "false" : "true");
    qsort(o->waits, (size_t)o->wait_kinds, sizeof o->waits[0], by_count);
    fputs("{\"waits\": [", o->report);
    for (int i = 0; i < o->wait_kinds && i < WAITS_REPORTED; i++)
        fprintf(o->report, i ? ", [%ld, \"0x%llx\", %ld, %d]" : "[%ld, \"0x%llx\", %ld, %d]", o->waits[i].syscall,
                o->waits[i].arg, o->waits[i].count, o->waits[i].threads);
    fprintf(o->report, "], \"looks\": %ld}\n", o->wait_looks);
    if (o->fd_proc_stat >= 0) close(o->fd_proc_stat);
    fprintf(o->report, "{\"observer\": {\"cpu_ns\": %lld, \"samples\": %ld, \"interval_max_ns\": %lld}}\n",
            (long long)own_cpu_ns(), o->samples, (long long)o->interval_max_ns);
    fflush(o->report);
    free(o->threads);
    free(o->ended);
    free(o);
}
