"""`concbench explain`: why a series does not scale, from what the session measured.

Series are grouped into sweeps along one dimension: the cores when they vary, else an option
that varies (countdown's window), else the parameter (growth). Each point carries its time, its
speedup and efficiency against the sweep's first point, the Karp–Flatt serial fraction and the
evidence of analysis/evidence.py; then every rule of RULES is tried, and the ones that fire are
the findings: causes before symptoms (a slowdown says only that it got slower, even beside a cause
whose evidence is thin), the well-founded before the thin, first those that hold at the sweep's
widest point, each group in the table's order and, within a rule, by how far past its threshold.

RULES is the one table of rules and thresholds; `concbench explain --rules` prints it."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ..report.units import fmt_bytes
from ..spec.catalog import Benchmark, value_order
from ..storing.records import options_text
from . import growth
from .evidence import Evidence, of_runs
from .scaling import value_of
from .summary import SeriesSummary

# Thresholds, each used by one rule below.
SERIAL_FRACTION = 0.5          # Karp–Flatt e at the widest point of a sweep (up to 1: beyond, it is slower)
BUSY_SHARE = 0.75              # CPU below this share of the cores: they sit idle (serial); at or above: busy
KARP_FLATT_RISE = 0.1          # e rising by more than this along the sweep: overhead that grows with parallelism
SLOWDOWN_SPEEDUP = 0.9         # more parallelism, less speed (and the medians' intervals apart)
OVERSUBSCRIBED_DELAY = 0.25    # run delay per core, as a share of wall time
OVERSUBSCRIBED_RUNNABLE = 1.25  # ... with more threads running or runnable per core than this, on average (a
                               # pool of one per core sits at 1: any other thread waking would tip it past 1)
BLOCKED_ASLEEP = 0.5           # share of samples with no thread running
BLOCKED_BUSY = 8               # ... while at least max(this, BLOCKED_BUSY_PER_CORE × cores) threads ran in one sample
BLOCKED_BUSY_PER_CORE = 4
HANDOFF_SWITCHES = 20_000      # voluntary context switches per second per core ...
HANDOFF_EFFICIENCY = 0.8       # ... where the sweep does not scale (efficiency below this at its widest point)
HANDOFF_TIMER_IO = 0.5         # ... and less than this share of sleepers wait for time or input, not each other
SPIN_INVOLUNTARY = 1_000       # involuntary switches per second per core worth naming (preemption, yielding spins)
MEMORY_GROWTH = 2.0            # resident size at the end over resident size after start-up
MEMORY_GROWTH_BYTES = 64 << 20  # ... and at least this much more
WAITING_ASLEEP = 0.9           # every thread asleep this share of the time ...
WAITING_CPU_SHARE = 0.1        # ... using under this share of the cores
GROWTH_MARGIN = 0.1            # fitted exponent above the benchmark's declared one by more than this
GROWTH_LOCAL_MARGIN = 0.3      # ... or the slope between the two largest sizes by at least this
MIN_SAMPLES = 10               # thread-state samples a run needs before its thread-state evidence counts
MAX_GAP_SHARE = 0.2            # ... and no gap between two samples longer than this share of the run
WAIT_THREADS = 2               # a wait is named when at least this many sleeping threads were found in it
ONE_THREAD_SHARE = 0.5         # a serial bottleneck names the one thread that used this share of the CPU
IPC_DROP = 0.75                # busy, not faster: instructions per cycle at the widest point below this share of
                               # the first point's, where the machine counts them: the cores stall, not compute


@dataclass(frozen=True)
class Point:
    value: str                    # the swept value: cores, an option's value or the parameter
    series: SeriesSummary
    evidence: Evidence
    speedup: float | None = None  # t(first) / t(this), medians of iteration times
    parallelism: float | None = None   # p of this point over p of the first
    efficiency: float | None = None
    karp_flatt: float | None = None

    @property
    def median_ns(self) -> float | None:
        s = self.series.stats
        return None if s is None or math.isnan(s.median) else s.median


@dataclass(frozen=True)
class Diagnosis:
    title: str
    dimension: str                 # "cores", an option key, the parameter's name or "" (one point)
    points: tuple[Point, ...]
    fit: growth.GrowthFit | None = None
    point_rules: bool = True       # False where another sweep already judges these points
    findings: tuple[Finding, ...] = field(default=())
    expected_growth: float | None = None   # the benchmark's declared log-log exponent (growth sweeps)


@dataclass(frozen=True)
class Fired:
    """What a rule's check returns when it fires."""

    strength: float    # how far past the threshold: ranks findings of one rule
    text: str          # the numbers behind it
    crossed: str       # the threshold crossed, with the value that crossed it
    at: str = ""       # where, for a sweep rule (a point rule's places are the points where it fired)
    weak: str = ""     # why the evidence is too thin to be sure, or ""


@dataclass(frozen=True)
class Finding:
    rule: Rule
    text: str          # the numbers behind it
    strength: float
    at: str = ""       # the point(s) where it fired
    at_widest: bool = True   # it holds at the sweep's widest point (else it ranks after those that do)
    crossed: str = ""
    weak: str = ""     # set: "not enough evidence", said with the reason, and ranked after the others

    def __str__(self) -> str:
        where = f" (at {self.at})" if self.at else ""
        weak = f" [not enough evidence: {self.weak}]" if self.weak else ""
        return f"{self.rule.title}: {self.text}{where}{weak}"


# A check returns a Fired when its rule fires: a point rule at one point of its sweep, a sweep rule on the sweep.
PointCheck = Callable[[Point, "Diagnosis"], Fired | None]
SweepCheck = Callable[["Diagnosis"], Fired | None]


@dataclass(frozen=True)
class Rule:
    name: str
    title: str          # what the finding is called
    fires_when: str     # the rule and its thresholds, in words (the documented table)
    means: str          # what it usually means
    next_step: str      # one thing to try
    point: PointCheck | None = None
    sweep: SweepCheck | None = None
    unless: tuple[str, ...] = ()   # rules whose finding already says more: this one is then left out
    symptom: bool = False          # it says what happened, not why: it ranks after the causes beside it


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _on(cores: int) -> str:
    return f"{cores} core" + ("" if cores == 1 else "s")


def _cores_text(e: Evidence) -> str:
    return f"CPU {e.cpu_cores:.2f} of {_on(e.cores)}"


def _coverage(e: Evidence, gaps: bool = True) -> str:
    """Why the thread-state evidence of a point is too thin, or "". `gaps`: a long gap between samples counts
    (not for a rule whose main figure is a running total, like run delay, that no gap can miss)."""
    if e.fewest_samples < MIN_SAMPLES:
        return f"{e.fewest_samples} thread-state samples in a run, fewer than {MIN_SAMPLES}"
    if e.untracked:
        return f"{e.untracked} threads of a run not followed by the observer"
    if gaps and e.gap_share is not None and e.gap_share > MAX_GAP_SHARE:
        return f"a gap of {_pct(e.gap_share)} of a run between two samples"
    return ""


def _waits_on(e: Evidence) -> str:
    """The wait most sleeping threads were found in, where several share one: a futex is one lock (or
    condition) at its address."""
    if e.top_wait is None:
        return ""
    assert e.top_wait_threads is not None and e.top_wait_share is not None   # evidence._top_wait sets all three
    if e.top_wait_threads < WAIT_THREADS:
        return ""
    what = ": one lock or condition" if e.top_wait.startswith("futex") else ""
    return (f"; {e.top_wait_threads} sleeping threads found waiting in {e.top_wait} ({_pct(e.top_wait_share)} "
            f"of looks){what}")


def _threads_text(groups: tuple[tuple[str, int, float], ...]) -> str:
    return ", ".join(f"'{name}'" + (f" ×{n}" if n > 1 else "") + f" {_pct(share)}" for name, n, share in groups)


def _cpu_went(e: Evidence, busy: bool) -> str:
    """Which threads used the CPU: for idle cores the one thread that did most of the work, where one did;
    for busy cores the biggest groups by name (workers against GC, JIT or scheduler threads)."""
    if busy:   # one name for every thread tells nothing
        return f"; CPU by thread: {_threads_text(e.cpu_by_thread)}" if len(e.cpu_by_thread) > 1 else ""
    if not e.cpu_by_thread:
        return ""
    name, n, share = e.cpu_by_thread[0]
    if n != 1 or share < ONE_THREAD_SHARE:
        return ""
    return f"; one thread, '{name}', used {_pct(share)} of the threads' CPU"


def _stall(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    if not e.stalled_runs:
        return None
    extra = f", every thread asleep in {_pct(e.asleep_share)} of samples" if e.asleep_share is not None else ""
    threads = f", {e.threads_peak} threads" if e.threads_peak is not None else ""
    return Fired(e.stalled_runs, f"{e.stalled_runs} of {e.runs} runs timed out with no CPU used in their last 2 s"
                 f"{threads}{extra}{_waits_on(e)}", "a timeout with under 0.1 s of CPU in the last 2 s")


def _busy(e: Evidence) -> bool:
    """Whether the program kept its cores busy: CPU at least BUSY_SHARE of them (False where CPU is unknown)."""
    return e.cpu_cores is not None and e.cpu_cores >= BUSY_SHARE * e.cores


def _widest(d: Diagnosis) -> Point | None:
    """The sweep's widest point that finished, where scaling is judged."""
    judged = [p for p in d.points[1:] if p.karp_flatt is not None]
    return judged[-1] if judged else None


def _karp_flatt_trend(d: Diagnosis) -> tuple[str, str]:
    """How e moves as the parallelism grows (the reading Karp–Flatt is made for), and why it is weak, if so."""
    judged = [e for p in d.points[1:] if (e := p.karp_flatt) is not None]
    if len(judged) < 2:
        return "", "two points only: Karp–Flatt read from one speedup"
    values = ", ".join(f"{e:.2f}" for e in judged)
    rise = judged[-1] - judged[0]
    if rise > KARP_FLATT_RISE:
        return f"; e rises along the sweep ({values}): overhead that grows with the parallelism", ""
    if rise < -KARP_FLATT_RISE:
        return f"; e falls along the sweep ({values}): a fixed cost that the added work dilutes", ""
    return f"; e steady along the sweep ({values}): a fixed serial part", ""


def _scaling_fraction(d: Diagnosis, busy: bool) -> Fired | None:
    """serial (busy False) and overhead (busy True): e ≥ SERIAL_FRACTION at the widest point, the cores idle or busy."""
    p = _widest(d)
    # _widest returns a point with its karp_flatt, which _points computes from the speedup.
    if p is None or p.evidence.cpu_cores is None or p.karp_flatt is None or p.karp_flatt < SERIAL_FRACTION:
        return None
    assert p.speedup is not None
    e = p.evidence
    if _busy(e) != busy:
        return None
    trend, weak = _karp_flatt_trend(d)
    stalls = _ipc_trend(d, p) if busy else ""
    spins = (f"; {e.involuntary_rate:,.0f} involuntary switches/s per core: preempted or yielding while it spins"
             if busy and e.involuntary_rate is not None and e.involuntary_rate >= SPIN_INVOLUNTARY else "")
    relation = "≥" if busy else "<"
    # e above 1 is no serial fraction: within the slowdown rule's tolerance it reads as no speedup at all, past it
    # as slower (the slowdown rule says by how much); either way the cores' CPU still tells idle from busy.
    flat = ((f" (speedup {p.speedup:.2f} ≥ {SLOWDOWN_SPEEDUP}: no faster)" if p.speedup >= SLOWDOWN_SPEEDUP
             else f" (speedup {p.speedup:.2f} < {SLOWDOWN_SPEEDUP}: slower)") if p.karp_flatt > 1 else "")
    waits = "" if busy else _waits_on(e)
    return Fired(p.karp_flatt, f"{_cores_text(e)}, speedup {p.speedup:.2f}, Karp–Flatt e = {p.karp_flatt:.2f}"
                 f"{trend}{stalls}{spins}{_cpu_went(e, busy)}{waits}", f"e = {p.karp_flatt:.2f} ≥ {SERIAL_FRACTION}{flat} and CPU {e.cpu_cores:.2f} "
                 f"{relation} {BUSY_SHARE:.0%} of {_on(e.cores)}", f"{d.dimension}={p.value}", weak)


def _ipc_trend(d: Diagnosis, widest: Point) -> str:
    """How instructions per cycle moved from the sweep's first point to its widest, where both were counted: a
    drop below IPC_DROP of the first says the added cores stall (memory bandwidth, cache lines passed between
    cores) rather than spin (a spinning core retires instructions at full rate)."""
    first = d.points[0]
    before, after = first.evidence.ipc, widest.evidence.ipc
    if before is None or after is None:
        return ""
    seen = (f"; instructions per cycle {before:.2f} at {d.dimension}={first.value}, {after:.2f} at "
            f"{d.dimension}={widest.value}")
    if after < IPC_DROP * before:
        return f"{seen}, below {_pct(IPC_DROP)}: the cores stall on memory or shared cache lines, not compute"
    return f"{seen}: as fast per cycle, so the extra cycles go to extra instructions (spinning, repeated work)"


def _serial(d: Diagnosis) -> Fired | None:
    return _scaling_fraction(d, busy=False)


def _overhead(d: Diagnosis) -> Fired | None:
    return _scaling_fraction(d, busy=True)


def _apart(first: Point, p: Point) -> bool | None:
    """Whether p's median is above first's with their bootstrap intervals apart; None without intervals."""
    a, b = first.series.stats, p.series.stats
    if a is None or b is None or a.median_ci_high is None or b.median_ci_low is None:
        return None
    return b.median_ci_low > a.median_ci_high


def _slowdown(d: Diagnosis) -> Fired | None:
    first = d.points[0]
    slower = [(speedup, p) for p in d.points[1:] if (speedup := p.speedup) is not None and speedup < SLOWDOWN_SPEEDUP
              and p.parallelism is not None and p.parallelism > 1 and _apart(first, p) is not False]
    if not slower:
        return None
    speedup, worst = min(slower, key=lambda sp: sp[0])
    cpu = f"; {_cores_text(worst.evidence)}" if worst.evidence.cpu_cores is not None else ""
    weak = "" if _apart(first, worst) else "no interval of a median (fewer than 3 iterations)"
    return Fired(1 / speedup, f"{d.dimension}={worst.value} takes {1 / speedup:.2f}× as long as "
                 f"{d.dimension}={first.value} (speedup {speedup:.2f}){cpu}",
                 f"speedup {speedup:.2f} < {SLOWDOWN_SPEEDUP}, the medians' intervals apart",
                 f"{d.dimension}={worst.value}", weak)


def _oversubscribed(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    if e.delay_share is None or e.runnable_per_core is None:
        return None
    # Threads queue for CPUs the program keeps busy; run delay while its cores sit mostly idle is a burst of
    # wake-ups or another process's load, not more work than cores.
    if e.delay_share >= OVERSUBSCRIBED_DELAY and e.runnable_per_core > OVERSUBSCRIBED_RUNNABLE and _busy(e):
        threads = f" ({e.threads_peak} threads)" if e.threads_peak is not None else ""
        return Fired(e.delay_share, f"{e.runnable_per_core:.1f} threads running or runnable per core{threads} on "
                     f"{_on(e.cores)}, run delay {_pct(e.delay_share)} of wall per core",
                     f"run delay {_pct(e.delay_share)} ≥ {OVERSUBSCRIBED_DELAY:.0%} with {e.runnable_per_core:.1f} "
                     f"> {OVERSUBSCRIBED_RUNNABLE:g} runnable per core", weak=_coverage(e, gaps=False))
    return None


def _blocked(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    if e.asleep_share is None or e.busy_peak is None:
        return None
    busy = max(BLOCKED_BUSY, BLOCKED_BUSY_PER_CORE * e.cores)
    if e.asleep_share >= BLOCKED_ASLEEP and e.busy_peak >= busy:
        cpu = f", {_cores_text(e)}" if e.cpu_cores is not None else ""
        return Fired(e.asleep_share, f"every thread asleep in {_pct(e.asleep_share)} of samples, yet up to "
                     f"{e.busy_peak} threads ran within one sample ({e.threads_peak} threads on {_on(e.cores)}){cpu}"
                     f"{_waits_on(e)}",
                     f"asleep {_pct(e.asleep_share)} ≥ {BLOCKED_ASLEEP:.0%} with {e.busy_peak} ≥ {busy} threads busy "
                     "in one sample", weak=_coverage(e))
    return None


def _handoff(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    if e.voluntary_rate is None or e.voluntary_rate < HANDOFF_SWITCHES:
        return None
    widest = _widest(d)
    if widest is not None and widest.efficiency is not None and widest.efficiency >= HANDOFF_EFFICIENCY:
        return None   # it scales: switching is how it works, not what holds it back
    if e.timer_io_share is not None and e.timer_io_share >= HANDOFF_TIMER_IO:
        return None   # the sleepers wait on timers and input: their wake-ups are not threads handing work over
    scaling = "" if widest is not None else "; whether it scales is not measured here"
    involuntary = f" ({e.involuntary_rate:,.0f} involuntary)" if e.involuntary_rate is not None else ""
    return Fired(e.voluntary_rate / HANDOFF_SWITCHES,
                 f"{e.voluntary_rate:,.0f} voluntary switches/s per core{involuntary}{scaling}",
                 f"{e.voluntary_rate:,.0f} ≥ {HANDOFF_SWITCHES:,} voluntary switches/s per core"
                 + (f", efficiency {widest.efficiency:.2f} < {HANDOFF_EFFICIENCY}" if widest is not None else ""))


def _memory(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    growth_factor, early, late = e.rss_growth, e.rss_early, e.rss_late
    # (rss_growth is None unless both sizes are known: their checks are for the type checker)
    if (growth_factor is None or early is None or late is None or growth_factor < MEMORY_GROWTH
            or late - early < MEMORY_GROWTH_BYTES):
        return None
    return Fired(growth_factor, f"resident size {fmt_bytes(int(early))} after the first iteration, "
                 f"{fmt_bytes(int(late))} at the end (×{growth_factor:.1f})",
                 f"×{growth_factor:.1f} ≥ ×{MEMORY_GROWTH:g} and {fmt_bytes(int(late - early))} ≥ "
                 f"{fmt_bytes(MEMORY_GROWTH_BYTES)} more")


def _superlinear(d: Diagnosis) -> Fired | None:
    """Growth beyond the benchmark's declared exponent; a larger size that timed out while computing (not stalled)
    counts, a stall never does."""
    fit, expected = d.fit, d.expected_growth
    if fit is None or expected is None:
        return None
    crossed = []
    if fit.exponent is not None and fit.exponent > expected + GROWTH_MARGIN:
        crossed.append(f"exponent {fit.exponent:.2f} > {expected:g} + {GROWTH_MARGIN}")
    if fit.local_last is not None and fit.local_last >= expected + GROWTH_LOCAL_MARGIN:
        crossed.append(f"{fit.local_last:.2f} between the two largest ≥ {expected:g} + {GROWTH_LOCAL_MARGIN}")
    computing = [p for p in d.points if p.series.statuses.get("timeout", 0) > p.evidence.stalled_runs]
    if computing:
        crossed.append(f"{d.dimension}={computing[0].value} timed out while computing")
    if not crossed:
        return None
    sizes = ", ".join(p.value for p in d.points)
    parts = [f"exponent {fit.exponent:.2f}" if fit.exponent is not None else "",
             f"{fit.local_last:.2f} between the two largest" if fit.local_last is not None else ""]
    return Fired(fit.exponent or 1.0, ", ".join(p for p in parts if p) + f" over {d.dimension} = {sizes} "
                 f"(expected {expected:g})", "; ".join(crossed))


def _waiting(point: Point, d: Diagnosis) -> Fired | None:
    e = point.evidence
    if e.asleep_share is None or e.cpu_cores is None:
        return None
    if e.asleep_share >= WAITING_ASLEEP and e.cpu_cores < WAITING_CPU_SHARE * e.cores:
        return Fired(e.asleep_share, f"every thread asleep in {_pct(e.asleep_share)} of samples, "
                     f"{_cores_text(e)}: the time goes to waiting, not computing{_waits_on(e)}",
                     f"asleep {_pct(e.asleep_share)} ≥ {WAITING_ASLEEP:.0%} and CPU {e.cpu_cores:.2f} < "
                     f"{WAITING_CPU_SHARE:.0%} of {_on(e.cores)}", weak=_coverage(e))
    return None


RULES: tuple[Rule, ...] = (
    Rule("stall", "stalled",
         "a run timed out having used under 0.1 s of CPU in its last 2 s",
         "nothing can make progress: every thread waits on work that cannot run (a pool exhausted by blocking "
         "waits, a deadlock)",
         "find what the threads wait on (a stack dump: gdb -p, jstack) and make that wait non-blocking",
         point=_stall),
    Rule("oversubscribed", "oversubscribed",
         f"run delay ≥ {OVERSUBSCRIBED_DELAY:.0%} of wall per core and more than {OVERSUBSCRIBED_RUNNABLE:g} "
         f"threads running or runnable per core on average, with CPU ≥ {BUSY_SHARE:.0%} of the cores, unless "
         "hand-off fired",
         "more runnable threads than cores: they queue for a CPU and preempt each other",
         "cap the threads doing work at the cores (a fixed pool, a bounded window)", point=_oversubscribed,
         unless=("hand-off",)),   # a woken thread is runnable while its waker still runs: a queue of hand-offs
    Rule("blocked-pool", "blocked pool",
         f"no thread running in ≥ {BLOCKED_ASLEEP:.0%} of samples while ≥ max({BLOCKED_BUSY}, "
         f"{BLOCKED_BUSY_PER_CORE} × cores) threads ran within one sample",
         "blocking waits hold a pool's threads: work waits for a free thread, and the runtime widens the pool",
         "replace the blocking waits in pool tasks with suspension (await, a callback) or move them off the pool",
         point=_blocked),
    Rule("hand-off", "hand-off bound",
         f"≥ {HANDOFF_SWITCHES:,} voluntary context switches per second per core, where the sweep does not scale "
         f"(efficiency < {HANDOFF_EFFICIENCY} at its widest point) or scaling is not measured, and under "
         f"{HANDOFF_TIMER_IO:.0%} of the sleepers found waiting for time or input (a timer, poll, read)",
         "work moves between threads item by item (a queue, a lock, a rendezvous): each step costs a sleep and "
         "a wake-up",
         "batch the items handed over, or use a runtime with direct hand-off (the waker runs the woken)",
         point=_handoff),
    Rule("serial", "serial bottleneck",
         f"at the sweep's widest point Karp–Flatt e ≥ {SERIAL_FRACTION} (above 1: no faster, or slower) with CPU "
         f"< {BUSY_SHARE:.0%} of the cores (read as a trend where the sweep has three points or more), unless "
         "hand-off fired",
         "one thread at a time does the work (a lock, a single queue or actor, a sequential phase)",
         "find the shared lock or queue (a profile of the widest point) and split it, or shorten what it guards",
         sweep=_serial, unless=("hand-off",)),
    Rule("overhead", "busy, not faster",
         f"at the sweep's widest point Karp–Flatt e ≥ {SERIAL_FRACTION} (above 1: no faster, or slower) with CPU "
         f"≥ {BUSY_SHARE:.0%} of the cores, unless hand-off fired",
         "the added cores work, but not for speed: spinning, contention on shared data, duplicated work "
         f"(where the machine counts instructions per cycle, a drop below {IPC_DROP:.0%} of the first point's "
         "tells stalls on memory or shared cache lines from spinning)",
         "profile the widest point (perf record): look for spin loops, atomics on one cache line, repeated work",
         sweep=_overhead, unless=("hand-off",)),
    Rule("slowdown", "slower with more parallelism",
         f"speedup below {SLOWDOWN_SPEEDUP} at a point past the first, the two medians' bootstrap intervals apart "
         "(a symptom: it ranks after every cause beside it)",
         "coordination costs more than the added cores give: see the evidence beside it",
         "run at the parallelism that was fastest, then look at what the extra workers share", sweep=_slowdown,
         symptom=True),
    Rule("memory", "memory grows",
         f"resident size at the end ≥ {MEMORY_GROWTH}× its size once the first iteration ended, and "
         f"≥ {MEMORY_GROWTH_BYTES >> 20} MiB more",
         "something accumulates during the run: unbounded queues, retained results, a leak",
         "bound the queues (backpressure) and check what holds the results", point=_memory),
    Rule("superlinear", "super-linear growth",
         f"where the benchmark declares its growth exponent g: log-log exponent > g + {GROWTH_MARGIN}, or ≥ "
         f"g + {GROWTH_LOCAL_MARGIN} between the two largest sizes, or a larger size timed out while computing "
         "(a stall is not growth)",
         "the cost per item grows with the number of items (quadratic bookkeeping)",
         "time one item at two sizes and look for a structure scanned per insert (a list, an array shift)",
         sweep=_superlinear),
    Rule("waiting", "waiting",
         f"no thread running in ≥ {WAITING_ASLEEP:.0%} of samples and CPU under {WAITING_CPU_SHARE:.0%} of the "
         "cores, unless stalled or blocked pool fired",
         "the program mostly waits (timers, I/O, other processes): its time is not computing time",
         "check the waits are meant (sleeps, timeouts); if not, find what the threads wait on",
         point=_waiting, unless=("stall", "blocked-pool")),
)
RANK = {rule.name: i for i, rule in enumerate(RULES)}


# -- the sweeps --------------------------------------------------------------------------

def _parallelism(dimension: str, value: str, cores: int, knob: str) -> float | None:
    """The parallelism a point allows: its cores, or the value of the benchmark's parallelism option (`knob`)
    capped at the cores; None along any other option (a configuration, a wait) or a non-number."""
    if dimension == "cores":
        return float(value)
    if dimension == knob and value.isdigit() and int(value) > 0:
        return float(min(int(value), cores))
    return None


def _points(dimension: str, members: list[tuple[str, SeriesSummary]], scaling: bool = True,
            knob: str = "") -> tuple[Point, ...]:
    """The points of a sweep; with scaling, each one's speedup and efficiency against the first."""
    if not scaling or len(members) < 2:
        return tuple(Point(value, row, of_runs(list(row.runs))) for value, row in members)
    first_value, first = members[0]
    base = first.stats.median if first.stats is not None else None
    p0 = _parallelism(dimension, first_value, first.cores, knob)
    points = []
    for value, row in members:
        here = row.stats.median if row.stats is not None else None
        speedup = base / here if base and here and not math.isnan(base) and not math.isnan(here) else None
        p = _parallelism(dimension, value, row.cores, knob)
        relative = p / p0 if p is not None and p0 else None
        efficiency = karp_flatt = None
        if speedup is not None and relative is not None:
            efficiency = speedup / relative
            if relative > 1:
                karp_flatt = (1 / speedup - 1 / relative) / (1 - 1 / relative)
        points.append(Point(value, row, of_runs(list(row.runs)), speedup, relative, efficiency, karp_flatt))
    return tuple(points)


def _option_values(rows: list[SeriesSummary], key: str) -> set[str | None]:
    return {r.runs[0].options.get(key) for r in rows}


def _dimension(rows: list[SeriesSummary]) -> str:
    if len({r.cores for r in rows}) > 1:
        return "cores"
    keys = sorted({k for r in rows for k in r.runs[0].options if k != "shape"})
    return next((k for k in keys if len(_option_values(rows, k)) > 1), "")


def _others(row: SeriesSummary, dimension: str) -> str:
    return options_text((k, v) for k, v in sorted(row.runs[0].options.items()) if k not in (dimension, "shape"))


def _title(benchmark: str, label: str, what: str, dimension: str) -> str:
    return f"{benchmark} {label} {what}".strip() + (f", over {dimension}" if dimension else "")


def _judge(d: Diagnosis) -> Diagnosis:
    found: list[Finding] = []
    for rule in RULES:
        if rule.point is not None and d.point_rules:
            fired = [(p, result) for p in d.points if (result := rule.point(p, d)) is not None]
            if fired:
                # The widest point where it fired speaks for the sweep: scaling is judged out there.
                point, result = fired[-1]
                at = ", ".join(f"{d.dimension}={p.value}" for p, _ in fired) if d.dimension else ""
                found.append(Finding(rule, result.text, result.strength, at, point is d.points[-1], result.crossed,
                                     result.weak))
        if rule.sweep is not None and (result := rule.sweep(d)) is not None:
            found.append(Finding(rule, result.text, result.strength, result.at, True, result.crossed, result.weak))
    fired_names = {f.rule.name for f in found if not f.weak}
    found = [f for f in found if not fired_names.intersection(f.rule.unless)]
    found.sort(key=lambda f: (f.rule.symptom, bool(f.weak), not f.at_widest, RANK[f.rule.name], -f.strength))
    return replace(d, findings=tuple(found))


def diagnose(rows: list[SeriesSummary], benchmarks: Mapping[str, Benchmark] | None = None) -> list[Diagnosis]:
    """Every sweep of the rows (cores, else a varying option), and growth over the parameter, judged; what a
    benchmark declares (its parameter's name, its parallelism option, its growth) from `benchmarks`."""
    benchmarks = benchmarks or {}
    by_variant: dict[tuple, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        by_variant[(row.benchmark, row.label)].append(row)
    out = []
    for (benchmark, label), members in sorted(by_variant.items()):
        spec = benchmarks.get(benchmark)
        dimension = _dimension(members)
        grown = _growth(benchmark, label, members, bool(dimension), spec)
        # Without another dimension, the growth sweeps judge their points; the rest stand alone.
        covered = set() if dimension else {id(p.series) for d in grown for p in d.points}
        sweeps: dict[tuple, list[tuple[str, SeriesSummary]]] = defaultdict(list)
        for row in members:
            if id(row) in covered:
                continue
            fixed_cores = None if dimension == "cores" else row.cores
            sweeps[(_others(row, dimension), row.param, fixed_cores)].append((value_of(row, dimension) or "", row))
        for (others, param, cores), sweep in sorted(sweeps.items(), key=lambda s: (s[0][0], value_order(s[0][1]))):
            sweep.sort(key=lambda m: value_order(m[0]))
            what = " ".join(x for x in (param, others, f"cores={cores}" if cores is not None and dimension else "") if x)
            out.append(_judge(Diagnosis(_title(benchmark, label, what, dimension), dimension,
                                        _points(dimension, sweep, knob=spec.parallelism_option if spec else ""))))
        out.extend(grown)
    return out


def _growth(benchmark: str, label: str, members: list[SeriesSummary], swept: bool,
            spec: Benchmark | None) -> list[Diagnosis]:
    """Time over the parameter, per cores and options, where at least two sizes are numbers (analysis/growth.py)."""
    name = spec.param_name if spec else "param"
    out = []
    for series in sorted(growth.growth_series(members, {benchmark}), key=lambda g: (g.options, g.cores)):
        if len(series.rows) < 2:
            continue
        what = " ".join(x for x in (series.options, f"cores={series.cores}") if x)
        d = Diagnosis(_title(benchmark, label, what, name), name,
                      _points(name, [(r.param, r) for r in series.rows], scaling=False), series.fit,
                      point_rules=not swept, expected_growth=spec.growth_exponent if spec else None)
        out.append(_judge(d))
    return out


JSON_FORMAT_VERSION = 1   # `explain --json`, described by concbench/schema/explain-v1.schema.json


def _point_dict(p: Point) -> dict:
    e = p.evidence
    return {"value": p.value, "statuses": p.series.statuses, "median_ns": p.median_ns, "speedup": p.speedup,
            "efficiency": p.efficiency, "karp_flatt": p.karp_flatt, "cpu_cores": e.cpu_cores,
            "delay_share": e.delay_share, "runnable_per_core": e.runnable_per_core,
            "voluntary_per_s_core": e.voluntary_rate, "involuntary_per_s_core": e.involuntary_rate,
            "threads_peak": e.threads_peak, "busy_peak": e.busy_peak, "asleep_share": e.asleep_share,
            "rss_early_bytes": e.rss_early, "rss_late_bytes": e.rss_late, "stalled_runs": e.stalled_runs,
            "fewest_samples": e.fewest_samples, "untracked_threads": e.untracked, "gap_share": e.gap_share,
            "top_wait": e.top_wait, "top_wait_threads": e.top_wait_threads, "top_wait_share": e.top_wait_share,
            "timer_io_share": e.timer_io_share,
            "cpu_by_thread": [list(group) for group in e.cpu_by_thread],
            "ipc": e.ipc, "counters_missing": e.counters_missing}


def _finding_dict(f: Finding) -> dict:
    return {"rule": f.rule.name, "finding": f.rule.title, "text": f.text, "at": f.at, "value": f.strength,
            "threshold": f.crossed, "coverage": f.weak or "enough", "means": f.rule.means,
            "next_step": f.rule.next_step}


def as_document(diagnoses: list[Diagnosis]) -> dict:
    """Every sweep as plain data (`explain --json`)."""
    return {"format_version": JSON_FORMAT_VERSION, "sweeps": [
        {"title": d.title, "dimension": d.dimension, "points": [_point_dict(p) for p in d.points],
         "growth_exponent": d.fit.exponent if d.fit else None, "expected_growth": d.expected_growth,
         "findings": [_finding_dict(f) for f in d.findings]}
        for d in diagnoses]}
