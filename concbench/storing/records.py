"""Finished records: what the store keeps and the reporters read. No processes in here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass
from enum import StrEnum


class RunStatus(StrEnum):
    OK = "ok"              # finished, every result verified (or without a reference)
    WRONG = "wrong"        # a result differs from the reference
    CRASHED = "crashed"    # non-zero exit, a signal, or it could not be started
    TIMEOUT = "timeout"    # killed at a deadline: an outcome, not an error
    MALFORMED = "malformed"  # broke the protocol
    SKIPPED = "skipped"    # not run: a smaller size of its series timed out
    DISAGREE = "disagree"  # no reference, and the variants gave different results with no majority


class Reason(StrEnum):
    """Termination reasons, the fixed vocabulary of DESIGN.md."""

    TIMEOUT = "timeout"
    SIGNAL = "signal"
    EXIT = "exit"
    PROTOCOL = "protocol"
    WRONG_RESULT = "wrong-result"
    METRIC = "metric"              # a deterministic metric differs from the spec
    FAILED_TO_START = "failed-to-start"
    AFTER_TIMEOUT = "after-timeout"
    OOM = "oom"                    # killed by the kernel's OOM killer in the run's control group


class SessionStatus(StrEnum):
    """Where a session stands; the store keeps the word."""

    RUNNING = "running"            # started, and not ended (or its harness was killed)
    FINISHED = "finished"          # every planned run made
    INTERRUPTED = "interrupted"    # Ctrl-C or SIGTERM
    REFUSED = "refused"            # a binary refused a request its description allows
    CRASHED = "crashed"            # the harness failed (the database went away, a bug)


# What `--resume` goes on with: a session that did not end finished or refused.
UNFINISHED = (SessionStatus.RUNNING, SessionStatus.INTERRUPTED, SessionStatus.CRASHED)


FAILED_STATUSES = (RunStatus.WRONG, RunStatus.CRASHED, RunStatus.MALFORMED, RunStatus.DISAGREE)


def field_names(record: type) -> tuple[str, ...]:
    """A record's fields, its own before those it inherits (a run's identity before its measures): the
    order of the store's columns and the export's keys."""
    names = [f.name for f in fields(record)]
    inherited = {f.name for base in record.__mro__[1:] if is_dataclass(base) for f in fields(base)}
    return (*(n for n in names if n not in inherited), *(n for n in names if n in inherited))


def options_text(options: Iterable[tuple[str, str]]) -> str:
    """Options as a series is named by them: `name=value`, space-separated, in the order given (sorted, for a
    series key)."""
    return " ".join(f"{k}={v}" for k, v in options)


def series_label(variant: str, shape: str | None) -> str:
    """How a series is named everywhere: its variant and, where given, the program shape ("swift/sc [group]")."""
    return f"{variant} [{shape}]" if shape else variant


@dataclass(frozen=True)
class IterationRecord:
    index: int
    ns: int
    result: str
    verdict: str        # verify.Verdict value
    warmup: bool


@dataclass(frozen=True)
class SampleRecord:
    """One look at the process. The fields after cpu_ns come from the launcher's per-thread
    observer (None when it did not run): thread states, threads whose CPU grew since the last
    sample, and totals so far over every thread seen (run delay, context switches)."""

    t_ns: int
    rss_bytes: int
    threads: int
    cpu_ns: int
    running: int | None = None        # state R: on a CPU or runnable
    sleeping: int | None = None       # state S: waiting (a futex, a sleep, I/O readiness)
    blocked: int | None = None        # state D: blocked in the kernel, uninterruptible
    busy: int | None = None           # threads that used CPU since the previous sample
    run_delay_ns: int | None = None   # time runnable but waiting for a CPU, all threads so far
    voluntary: int | None = None      # context switches so far, all threads
    involuntary: int | None = None


@dataclass(frozen=True)
class ThreadRecord:
    """One thread of a run, its totals as last read (a thread that ended keeps its last reading)."""

    tid: int
    name: str
    cpu_ns: int
    run_delay_ns: int
    voluntary: int
    involuntary: int


@dataclass(frozen=True)
class WaitRecord:
    """What sleeping threads of a run were found waiting in, and how often: a system call (its name; see
    syscalls.py) and its first argument (for a futex, the lock's address)."""

    syscall: str
    arg: str
    count: int
    threads: int    # distinct threads found in it (up to 32): one lock many threads sleep on stands out


@dataclass(frozen=True)
class ProbeRecord:
    """One reading of the machine probe (launcher/probe.c), taken between runs: how the machine was doing."""

    at_ns: int                     # wall clock, ns since the epoch (runs' started_at_ns is on the same clock)
    kind: str                      # baseline | between | retry | end (probe.Kind)
    roundtrip_ns: float | None     # a cache line's round trip between two of the run's CPUs (None: one CPU)
    loop_ns: int                   # a fixed integer loop on each CPU, the slower
    share: float | None            # the loop's CPU time / its wall time, the lower: under 1, another thread took CPU
    copy_gbps: float               # a memory copy rate
    probe_ns: int                  # what the probe took, its start included
    quiet: bool | None = None      # within the session's band around its baseline (None: a baseline reading)


@dataclass(kw_only=True, frozen=True)
class Measures:
    """What the harness measures of a process from outside (executor.py), kept by its run. None = could
    not be measured."""

    wall_ns: int | None = None
    user_ns: int | None = None
    sys_ns: int | None = None
    max_rss_bytes: int | None = None
    max_rss_source: str | None = None
    max_rss_missing: str | None = None    # why max_rss_bytes is None
    voluntary_switches: int | None = None
    involuntary_switches: int | None = None
    observer_cpu_ns: int | None = None    # what observing cost: the launcher's own CPU time
    observer_cpus: str | None = None      # where the observer ran: off the measured CPUs where one was free
    observer_samples: int | None = None   # how many samples it took, and the longest gap between two
    observer_interval_max_ns: int | None = None
    threads_untracked: int | None = None  # threads beyond what the observer follows one by one
    instructions: int | None = None       # user-space instructions retired and cycles run, all threads
    cycles: int | None = None             # (the launcher's hardware counters: launcher/counters.c) ...
    counters_missing: str | None = None   # ... or why the machine gave none (no PMU, perf_event_paranoid)
    exit_code: int | None = None
    signal: int | None = None
    wait_looks: int | None = None         # sleeping threads the observer looked at (what they wait in: waits)
    samples: list[SampleRecord] = field(default_factory=list)
    threads: list[ThreadRecord] = field(default_factory=list)
    waits: list[WaitRecord] = field(default_factory=list)


@dataclass(frozen=True)
class RunRecord(Measures):
    """One process launched by the harness, with all it measured. None = not measured. Frozen: a later judgement
    of a stored run (the cross-check's verdicts, the machine probe's) is a new record (`dataclasses.replace`)
    that the store is given to update its row with, never a change to the one already kept."""

    benchmark: str
    variant: str
    param: str
    options: dict[str, str]
    cores: int
    run_index: int
    status: RunStatus
    reason: Reason | None = None
    stall: bool | None = None
    message: str = ""                     # a one-line explanation for failures
    cpus: str = ""
    argv: list[str] = field(default_factory=list)
    hello: dict | None = None
    # From the samples, which a run read back from the store may not carry.
    rss_peak_sampled_bytes: int | None = None
    threads_max: int | None = None
    run_delay_ns: int | None = None       # the threads' run delay, summed (launcher observer)
    harness_cpu_ns: int | None = None     # the harness's CPU, every thread of it, while the run lasted
    # The machine probe's judgement (probe.py): the run's attempt at its point and run index (0 first, more when
    # a disturbed one is run again), when it started, whether the readings around it were out of the session's
    # band (None: not judged, no probe), and how far out: the worse reading's ratio to the baseline.
    attempt: int = 0
    started_at_ns: int | None = None
    disturbed: bool | None = None
    probe_ratio: float | None = None
    stderr_tail: str = ""
    iterations: list[IterationRecord] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)
    id: int | None = None

    @property
    def options_key(self) -> str:
        """A stable text form of the options: part of what makes a series."""
        return options_text(sorted(self.options.items()))

    @property
    def label(self) -> str:
        return series_label(self.variant, self.options.get("shape"))

    @property
    def series_key(self) -> tuple:
        """Its point: plan.Point.series_key of the point it ran."""
        return (self.benchmark, self.variant, self.options_key, self.param, self.cores)

    @property
    def skip_key(self) -> tuple:
        """Its line of sizes: plan.Point.skip_key of the point it ran."""
        return (self.benchmark, self.variant, tuple(sorted(self.options.items())), self.cores)

    @property
    def cpu_utilisation(self) -> float | None:
        if self.wall_ns and self.user_ns is not None and self.sys_ns is not None:
            return (self.user_ns + self.sys_ns) / self.wall_ns
        return None

    def measured_ns(self) -> list[int]:
        """Iteration times that count for statistics: not warm-up."""
        return [it.ns for it in self.iterations if not it.warmup]


def counted(runs: Iterable[RunRecord]) -> list[RunRecord]:
    """The runs every figure is made of: a finished run the machine probe found disturbed is set aside where its
    series has a quiet finished run; a series with disturbed ones only keeps them (and says so:
    `disturbed_only`). A run that failed, timed out or was skipped always counts: it is an outcome, not a
    figure. A run set aside stays in the store, beside the one that replaced it."""
    runs = list(runs)
    quiet_series = {run.series_key for run in runs if run.status == RunStatus.OK and not run.disturbed}
    return [run for run in runs
            if not (run.disturbed and run.status == RunStatus.OK and run.series_key in quiet_series)]


def disturbed_only(runs: Iterable[RunRecord]) -> bool:
    """Every finished run of these was made while the machine was disturbed."""
    finished = [run for run in runs if run.status == RunStatus.OK]
    return bool(finished) and all(run.disturbed for run in finished)


@dataclass(frozen=True)
class SessionRecord:
    id: int
    started_at: str
    ended_at: str | None
    status: SessionStatus
    command: str
    git_commit: str | None
    environment: dict
    config: dict
