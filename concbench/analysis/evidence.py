"""What one series did, beyond its time: the figures a performance engineer reads off /proc.

Per run they come from the process's rusage (CPU, context switches) and the launcher's
per-thread samples (thread states, run delay, resident size over time); a series takes the
median over its runs. Timed-out runs count: a stall is evidence too. A figure is None where
the run was not observed (an old session, or no launcher)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..running import syscalls
from ..storing.records import RunRecord, RunStatus

EARLY_SHARE = 0.1    # what a run is taken to spend starting up where nothing better tells
MIN_WAIT_LOOKS = 5   # looks at sleeping threads before what they wait in is told
CPU_GROUPS = 3       # thread-name groups kept, by CPU ...
CPU_GROUP_SHARE = 0.01  # ... that used at least this share of it


@dataclass(frozen=True)
class Evidence:
    cores: int
    wall_ns: float | None
    cpu_cores: float | None          # (user + sys) / wall: how many cores the process kept busy
    delay_share: float | None        # run delay / (wall × cores): time threads waited for a CPU
    voluntary_rate: float | None     # voluntary context switches per second per core
    involuntary_rate: float | None   # involuntary (preempted) switches per second per core
    threads_peak: int | None
    busy_peak: int | None            # most threads that used CPU within one sample interval
    asleep_share: float | None       # share of samples with no thread running or runnable
    runnable_per_core: float | None  # threads running or runnable per core, the mean over the samples
    rss_early: float | None          # resident bytes once the first iteration ended, and at the end (medians)
    rss_late: float | None
    stalled_runs: int
    runs: int
    # Coverage: the fewest thread-state samples any run has, and the most threads the observer did not follow.
    fewest_samples: int = 0
    untracked: int | None = None
    gap_share: float | None = None   # the longest interval between two samples of a run, as a share of its wall
    # The wait the most distinct sleeping threads were found in (a system call, and for a futex the lock's
    # address), those threads, and its share of all the looks; None with fewer than MIN_WAIT_LOOKS looks or
    # where no wait has more threads than every other.
    top_wait: str | None = None
    top_wait_threads: int | None = None
    top_wait_share: float | None = None
    # The share of those looks that found a thread waiting for time or input (nanosleep, poll, read, epoll_wait
    # ...; syscalls.TIMER_OR_IO) rather than for another thread; None with fewer than MIN_WAIT_LOOKS looks.
    timer_io_share: float | None = None
    # Where the CPU went by thread name, numbers as N ("GC Thread#0..7" → "GC Thread#N"): the biggest
    # groups first, each (name, threads, share of the threads' CPU).
    cpu_by_thread: tuple[tuple[str, int, float], ...] = ()
    # Instructions retired per cycle, user space, all threads (the launcher's hardware counters); None where
    # the machine counts none (a VM without a PMU, perf_event_paranoid), and why.
    ipc: float | None = None
    counters_missing: str | None = None

    @property
    def rss_growth(self) -> float | None:
        if not self.rss_early or self.rss_late is None:
            return None
        return self.rss_late / self.rss_early


def _median(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.median(present)) if present else None


def _per_second_per_core(count: int | None, run: RunRecord) -> float | None:
    if count is None or not run.wall_ns:
        return None
    return count / (run.wall_ns / 1e9) / run.cores


def _delay_share(run: RunRecord) -> float | None:
    if run.run_delay_ns is None or not run.wall_ns:
        return None
    return run.run_delay_ns / (run.wall_ns * run.cores)


def _asleep_share(run: RunRecord) -> float | None:
    states = [s.running for s in run.samples if s.running is not None]
    return sum(1 for r in states if r == 0) / len(states) if states else None


def _runnable_per_core(run: RunRecord) -> float | None:
    states = [s.running for s in run.samples if s.running is not None]
    return sum(states) / len(states) / run.cores if states else None


def _busy_peak(run: RunRecord) -> int | None:
    """The most threads that ran within one sample, after start-up (the first tenth of the samples): JIT,
    GC and loader threads starting up are not a pool at work."""
    busy = [s.busy for s in run.samples if s.busy is not None]
    return max(busy[int(len(busy) * EARLY_SHARE):], default=None)


def _first_iteration_end_ns(run: RunRecord) -> int | None:
    """When the run's first iteration ended, from the start of the process: its wall time less every later
    iteration's (the exit after the last one is short). None with fewer than two iterations."""
    if len(run.iterations) < 2 or not run.wall_ns:
        return None
    return run.wall_ns - sum(it.ns for it in run.iterations[1:])


def _rss(run: RunRecord) -> tuple[int | None, int | None]:
    """Resident size once the first iteration ended (its working set allocated, its input made), and at the end;
    None where fewer than two samples fall after it: what a short run allocates cannot be told from a leak. A
    run of one iteration is read after its first tenth."""
    samples = [s for s in run.samples if s.rss_bytes > 0]   # 0: read before the program was mapped
    if len(samples) < 4:
        return None, None
    settled = _first_iteration_end_ns(run)
    if settled is None:
        return samples[int(len(samples) * EARLY_SHARE)].rss_bytes, samples[-1].rss_bytes
    after = [s.rss_bytes for s in samples if s.t_ns >= settled]
    return (after[0], after[-1]) if len(after) >= 2 else (None, None)


def _top_wait(runs: list[RunRecord]) -> tuple[str | None, int | None, float | None]:
    """The wait the most distinct threads were found in ("futex at 0x55d2…", "epoll_wait"), their number (the
    most in one run) and its share of the looks: a wait of one thread each (a join, a worker's own
    condition) names no bottleneck, and a tie names none."""
    looks = sum(r.wait_looks or 0 for r in runs)
    counts: Counter[tuple[str, str]] = Counter()
    threads: Counter[tuple[str, str]] = Counter()
    for run in runs:
        for wait in run.waits:
            key = (wait.syscall, wait.arg)
            counts[key] += wait.count
            threads[key] = max(threads[key], wait.threads)
    ranked = sorted(threads.items(), key=lambda kv: -kv[1])
    if looks < MIN_WAIT_LOOKS or not ranked or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None, None, None
    (syscall, arg), most = ranked[0]
    return (f"futex at {arg}" if syscall.startswith("futex") else syscall), most, counts[(syscall, arg)] / looks


def _timer_io_share(runs: list[RunRecord]) -> float | None:
    looks = sum(r.wait_looks or 0 for r in runs)
    if looks < MIN_WAIT_LOOKS:
        return None
    return sum(w.count for r in runs for w in r.waits if syscalls.is_timer_or_io(w.syscall)) / looks


def _thread_group(name: str) -> str:
    """A thread's name with its numbers as N ("GC Thread#N", "N_scheduler", "ForkJoinPool-N-"): the workers
    of one pool, the GC or JIT threads, share one. A number glued to a letter stays ("C2 CompilerThre")."""
    return re.sub(r"(?<![A-Za-z])\d+", "N", name)


def _cpu_by_thread(runs: list[RunRecord]) -> tuple[tuple[str, int, float], ...]:
    cpu: Counter[str] = Counter()
    members: dict[str, set[tuple[int, int]]] = {}
    for index, run in enumerate(runs):
        for thread in run.threads:
            if not thread.name:   # never read: it ended before its first sample
                continue
            group = _thread_group(thread.name)
            cpu[group] += thread.cpu_ns
            members.setdefault(group, set()).add((index, thread.tid))
    total = sum(cpu.values())
    if not total:
        return ()
    runs_seen = max(len(runs), 1)
    return tuple((group, round(len(members[group]) / runs_seen), spent / total)
                 for group, spent in cpu.most_common(CPU_GROUPS) if spent >= CPU_GROUP_SHARE * total)


def _ipc(run: RunRecord) -> float | None:
    return run.instructions / run.cycles if run.instructions is not None and run.cycles else None


def _observed(runs: list[RunRecord]) -> list[RunRecord]:
    """Runs that ended on their own or at a deadline; a crash or a protocol break says nothing of scaling."""
    return [r for r in runs if r.status in (RunStatus.OK, RunStatus.TIMEOUT)]


def of_runs(runs: list[RunRecord]) -> Evidence:
    observed = _observed(runs)
    rss = [_rss(r) for r in observed]
    top_wait, top_wait_threads, top_wait_share = _top_wait(observed)
    threads = [r.threads_max for r in observed if r.threads_max is not None]
    busy = [b for r in observed if (b := _busy_peak(r)) is not None]
    return Evidence(
        cores=runs[0].cores,
        wall_ns=_median(r.wall_ns for r in observed),
        cpu_cores=_median(r.cpu_utilisation for r in observed),
        delay_share=_median(_delay_share(r) for r in observed),
        voluntary_rate=_median(_per_second_per_core(r.voluntary_switches, r) for r in observed),
        involuntary_rate=_median(_per_second_per_core(r.involuntary_switches, r) for r in observed),
        threads_peak=max(threads) if threads else None,
        busy_peak=max(busy) if busy else None,
        asleep_share=_median(_asleep_share(r) for r in observed),
        runnable_per_core=_median(_runnable_per_core(r) for r in observed),
        rss_early=_median(early for early, _ in rss),
        rss_late=_median(late for _, late in rss),
        stalled_runs=sum(1 for r in observed if r.stall),
        runs=len(observed),
        fewest_samples=min((sum(1 for s in r.samples if s.running is not None) for r in observed), default=0),
        untracked=max((r.threads_untracked for r in observed if r.threads_untracked is not None), default=None),
        gap_share=max((r.observer_interval_max_ns / r.wall_ns for r in observed
                       if r.observer_interval_max_ns is not None and r.wall_ns), default=None),
        top_wait=top_wait,
        top_wait_threads=top_wait_threads,
        top_wait_share=top_wait_share,
        timer_io_share=_timer_io_share(observed),
        cpu_by_thread=_cpu_by_thread(observed),
        ipc=_median(_ipc(r) for r in observed),
        counters_missing=next((r.counters_missing for r in observed if r.counters_missing), None),
    )
