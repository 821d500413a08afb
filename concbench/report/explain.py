"""`concbench explain`: why a series does not scale, from what the session measured.

Series are grouped into sweeps along one dimension: the cores when they vary, else an option
that varies (countdown's window), else the parameter (growth). Each point carries its time, its
speedup and efficiency against the sweep's first point, the Karp–Flatt serial fraction and the
evidence of report/evidence.py; then every rule of RULES is tried, and the ones that fire are
the findings: first those that hold at the sweep's widest point, each group in the table's order
and, within a rule, by how far past its threshold.

RULES is the one table of rules and thresholds; `concbench explain --rules` prints it."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..catalog import value_order
from . import growth
from .evidence import Evidence, of_runs
from .scaling import value_of
from .summary import SeriesSummary
from .units import fmt_bytes

# Thresholds, each used by one rule below.
SERIAL_FRACTION = 0.5          # Karp–Flatt e at the widest point of a sweep
SERIAL_CPU_CORES = 1.25        # ... while the process kept at most this many cores busy
OVERHEAD_CPU_SHARE = 0.75      # ... or at least this share of the cores busy: they work, but not for speed
SLOWDOWN_SPEEDUP = 0.9         # more parallelism, less speed
OVERSUBSCRIBED_DELAY = 0.25    # run delay per core, as a share of wall time
OVERSUBSCRIBED_WIDTH = 2       # ... with more than this many threads per core
BLOCKED_ASLEEP = 0.5           # share of samples with no thread running
BLOCKED_BUSY = 8               # ... while at least max(this, BLOCKED_BUSY_PER_CORE × cores) threads ran in one sample
BLOCKED_BUSY_PER_CORE = 4
HANDOFF_SWITCHES = 20_000      # voluntary context switches per second per core
MEMORY_GROWTH = 2.0            # resident size at the end over resident size after start-up
MEMORY_GROWTH_BYTES = 64 << 20  # ... and at least this much more
WAITING_ASLEEP = 0.9           # every thread asleep this share of the time ...
WAITING_CPU_SHARE = 0.1        # ... using under this share of the cores


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
    findings: tuple["Finding", ...] = field(default=())


@dataclass(frozen=True)
class Finding:
    rule: "Rule"
    text: str          # the numbers behind it
    strength: float    # how far past the threshold: ranks findings of one rule
    at: str = ""       # the point(s) where it fired
    at_widest: bool = True   # it holds at the sweep's widest point (else it ranks after those that do)

    def __str__(self) -> str:
        where = f" (at {self.at})" if self.at else ""
        return f"{self.rule.title}: {self.text}{where}"


# A check returns (strength, text) when its rule fires.
PointCheck = Callable[[Point], tuple[float, str] | None]
SweepCheck = Callable[[Diagnosis], tuple[float, str, str] | None]


@dataclass(frozen=True)
class Rule:
    name: str
    title: str          # what the finding is called
    fires_when: str     # the rule and its thresholds, in words (the documented table)
    means: str          # what it usually means
    point: PointCheck | None = None
    sweep: SweepCheck | None = None
    unless: tuple[str, ...] = ()   # rules whose finding already says more: this one is then left out


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _on(cores: int) -> str:
    return f"{cores} core" + ("" if cores == 1 else "s")


def _cores_text(e: Evidence) -> str:
    return f"CPU {e.cpu_cores:.2f} of {_on(e.cores)}"


def _stall(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    if not e.stalled_runs:
        return None
    extra = f", every thread asleep in {_pct(e.asleep_share)} of samples" if e.asleep_share is not None else ""
    threads = f", {e.threads_peak} threads" if e.threads_peak is not None else ""
    return e.stalled_runs, (f"{e.stalled_runs} of {e.runs} runs timed out with no CPU used in their last 2 s"
                            f"{threads}{extra}")


def _widest(d: Diagnosis) -> Point | None:
    """The sweep's widest point that finished, where scaling is judged."""
    judged = [p for p in d.points[1:] if p.karp_flatt is not None]
    return judged[-1] if judged else None


def _serial(d: Diagnosis) -> tuple[float, str, str] | None:
    p = _widest(d)
    if p is None or p.evidence.cpu_cores is None:
        return None
    if p.karp_flatt >= SERIAL_FRACTION and p.evidence.cpu_cores <= SERIAL_CPU_CORES:
        return p.karp_flatt, (f"{_cores_text(p.evidence)}, Karp–Flatt e = {p.karp_flatt:.2f}, "
                              f"speedup {p.speedup:.2f}"), f"{d.dimension}={p.value}"
    return None


def _overhead(d: Diagnosis) -> tuple[float, str, str] | None:
    p = _widest(d)
    if p is None or p.evidence.cpu_cores is None:
        return None
    busy = p.evidence.cpu_cores >= OVERHEAD_CPU_SHARE * p.evidence.cores
    if p.karp_flatt >= SERIAL_FRACTION and busy:
        return p.karp_flatt, (f"{_cores_text(p.evidence)} but speedup {p.speedup:.2f}, "
                              f"Karp–Flatt e = {p.karp_flatt:.2f}"), f"{d.dimension}={p.value}"
    return None


def _slowdown(d: Diagnosis) -> tuple[float, str, str] | None:
    slower = [p for p in d.points[1:] if p.speedup is not None and p.speedup < SLOWDOWN_SPEEDUP
              and p.parallelism is not None and p.parallelism > 1]
    if not slower:
        return None
    worst = min(slower, key=lambda p: p.speedup)
    first = d.points[0]
    cpu = f"; {_cores_text(worst.evidence)}" if worst.evidence.cpu_cores is not None else ""
    return 1 / worst.speedup, (f"{d.dimension}={worst.value} takes {1 / worst.speedup:.2f}× as long as "
                               f"{d.dimension}={first.value} (speedup {worst.speedup:.2f}){cpu}"), ""


def _oversubscribed(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    if e.delay_share is None or e.threads_peak is None:
        return None
    if e.delay_share >= OVERSUBSCRIBED_DELAY and e.threads_peak > OVERSUBSCRIBED_WIDTH * e.cores:
        return e.delay_share, (f"{e.threads_peak} threads on {_on(e.cores)}, run delay {_pct(e.delay_share)} "
                               "of wall per core")
    return None


def _blocked(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    if e.asleep_share is None or e.busy_peak is None:
        return None
    if e.asleep_share >= BLOCKED_ASLEEP and e.busy_peak >= max(BLOCKED_BUSY, BLOCKED_BUSY_PER_CORE * e.cores):
        cpu = f", {_cores_text(e)}" if e.cpu_cores is not None else ""
        return e.asleep_share, (f"every thread asleep in {_pct(e.asleep_share)} of samples, yet up to "
                                f"{e.busy_peak} threads ran within one sample ({e.threads_peak} threads on "
                                f"{_on(e.cores)}){cpu}")
    return None


def _handoff(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    if e.voluntary_rate is None or e.voluntary_rate < HANDOFF_SWITCHES:
        return None
    return e.voluntary_rate / HANDOFF_SWITCHES, (f"{e.voluntary_rate:,.0f} voluntary switches/s per core "
                                                 f"({e.involuntary_rate:,.0f} involuntary)")


def _memory(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    growth_factor = e.rss_growth
    if growth_factor is None or growth_factor < MEMORY_GROWTH or e.rss_late - e.rss_early < MEMORY_GROWTH_BYTES:
        return None
    return growth_factor, (f"resident size {fmt_bytes(int(e.rss_early))} after start-up, "
                           f"{fmt_bytes(int(e.rss_late))} at the end (×{growth_factor:.1f})")


def _superlinear(d: Diagnosis) -> tuple[float, str, str] | None:
    fit = d.fit
    if fit is None or not fit.superlinear:
        return None
    sizes = [p.value for p in d.points]
    parts = [f"exponent {fit.exponent:.2f}" if fit.exponent is not None else "",
             f"{fit.local_last:.2f} between the two largest" if fit.local_last is not None else "",
             "a larger size timed out" if fit.timed_out else ""]
    return (fit.exponent or 1.0), ", ".join(p for p in parts if p) + f" over {d.dimension} = {', '.join(sizes)}", ""


def _waiting(point: Point) -> tuple[float, str] | None:
    e = point.evidence
    if e.asleep_share is None or e.cpu_cores is None:
        return None
    if e.asleep_share >= WAITING_ASLEEP and e.cpu_cores < WAITING_CPU_SHARE * e.cores:
        return e.asleep_share, (f"every thread asleep in {_pct(e.asleep_share)} of samples, "
                                f"{_cores_text(e)}: the time goes to waiting, not computing")
    return None


RULES: tuple[Rule, ...] = (
    Rule("stall", "stalled",
         "a run timed out having used under 0.1 s of CPU in its last 2 s",
         "nothing can make progress: every thread waits on work that cannot run (a pool exhausted by blocking "
         "waits, a deadlock)", point=_stall),
    Rule("oversubscribed", "oversubscribed",
         f"run delay ≥ {OVERSUBSCRIBED_DELAY:.0%} of wall per core and more than {OVERSUBSCRIBED_WIDTH} threads per core",
         "more runnable threads than cores: they queue for a CPU and preempt each other", point=_oversubscribed),
    Rule("blocked-pool", "blocked pool",
         f"no thread running in ≥ {BLOCKED_ASLEEP:.0%} of samples while ≥ max({BLOCKED_BUSY}, "
         f"{BLOCKED_BUSY_PER_CORE} × cores) threads ran within one sample",
         "blocking waits hold a pool's threads: work waits for a free thread, and the runtime widens the pool",
         point=_blocked),
    Rule("hand-off", "hand-off bound",
         f"≥ {HANDOFF_SWITCHES:,} voluntary context switches per second per core",
         "work moves between threads item by item (a queue, a lock, a rendezvous): each step costs a sleep and "
         "a wake-up", point=_handoff),
    Rule("serial", "serial bottleneck",
         f"at the sweep's widest point Karp–Flatt e ≥ {SERIAL_FRACTION} and CPU ≤ {SERIAL_CPU_CORES} cores",
         "one thread at a time does the work (a lock, a single queue or actor, a sequential phase)", sweep=_serial),
    Rule("overhead", "busy, not faster",
         f"at the sweep's widest point Karp–Flatt e ≥ {SERIAL_FRACTION} with CPU ≥ {OVERHEAD_CPU_SHARE:.0%} of the cores",
         "the added cores work, but not for speed: spinning, contention on shared data, duplicated work",
         sweep=_overhead),
    Rule("slowdown", "slower with more parallelism",
         f"speedup below {SLOWDOWN_SPEEDUP} at a point past the first", "coordination costs more than the added "
         "cores give: see the evidence beside it", sweep=_slowdown),
    Rule("memory", "memory grows",
         f"resident size at the end ≥ {MEMORY_GROWTH}× its size after the first tenth of the run, and "
         f"≥ {MEMORY_GROWTH_BYTES >> 20} MiB more",
         "something accumulates during the run: unbounded queues, retained results, a leak", point=_memory),
    Rule("superlinear", "super-linear growth",
         f"log-log exponent of time over the parameter > {growth.SUPERLINEAR_EXPONENT}, or ≥ "
         f"{growth.SUPERLINEAR_LOCAL_EXPONENT} between the two largest sizes, or a larger size timed out",
         "the cost per item grows with the number of items (quadratic bookkeeping)", sweep=_superlinear),
    Rule("waiting", "waiting",
         f"no thread running in ≥ {WAITING_ASLEEP:.0%} of samples and CPU under {WAITING_CPU_SHARE:.0%} of the "
         "cores, unless stalled or blocked pool fired",
         "the program mostly waits (timers, I/O, other processes): its time is not computing time",
         point=_waiting, unless=("stall", "blocked-pool")),
)
RANK = {rule.name: i for i, rule in enumerate(RULES)}


# -- the sweeps --------------------------------------------------------------------------

def _parallelism(dimension: str, value: str, cores: int) -> float | None:
    """The parallelism a point allows: its cores, or an integer option's value capped at the cores."""
    if dimension == "cores":
        return float(value)
    if value.isdigit() and int(value) > 0:
        return float(min(int(value), cores))
    return None


def _points(dimension: str, members: list[tuple[str, SeriesSummary]], scaling: bool = True) -> tuple[Point, ...]:
    """The points of a sweep; with scaling, each one's speedup and efficiency against the first."""
    if not scaling or len(members) < 2:
        return tuple(Point(value, row, of_runs(list(row.runs))) for value, row in members)
    first_value, first = members[0]
    base = first.stats.median if first.stats is not None else None
    p0 = _parallelism(dimension, first_value, first.cores)
    points = []
    for value, row in members:
        here = row.stats.median if row.stats is not None else None
        speedup = base / here if base and here and not math.isnan(base) and not math.isnan(here) else None
        p = _parallelism(dimension, value, row.cores)
        relative = p / p0 if p is not None and p0 else None
        efficiency = karp_flatt = None
        if speedup is not None and relative is not None:
            efficiency = speedup / relative
            if relative > 1:
                karp_flatt = (1 / speedup - 1 / relative) / (1 - 1 / relative)
        points.append(Point(value, row, of_runs(list(row.runs)), speedup, relative, efficiency, karp_flatt))
    return tuple(points)


def _option_values(rows: list[SeriesSummary], key: str) -> set[str]:
    return {r.runs[0].options.get(key) for r in rows}


def _dimension(rows: list[SeriesSummary]) -> str:
    if len({r.cores for r in rows}) > 1:
        return "cores"
    keys = sorted({k for r in rows for k in r.runs[0].options if k != "shape"})
    return next((k for k in keys if len(_option_values(rows, k)) > 1), "")


def _others(row: SeriesSummary, dimension: str) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(row.runs[0].options.items()) if k not in (dimension, "shape"))


def _title(benchmark: str, label: str, what: str, dimension: str) -> str:
    return f"{benchmark} {label} {what}".strip() + (f", over {dimension}" if dimension else "")


def _judge(d: Diagnosis) -> Diagnosis:
    found: list[Finding] = []
    for rule in RULES:
        if rule.point is not None and d.point_rules:
            fired = [(p, result) for p in d.points if (result := rule.point(p)) is not None]
            if fired:
                # The widest point where it fired speaks for the sweep: scaling is judged out there.
                point, (strength, text) = fired[-1]
                at = ", ".join(f"{d.dimension}={p.value}" for p, _ in fired) if d.dimension else ""
                found.append(Finding(rule, text, strength, at, point is d.points[-1]))
        if rule.sweep is not None and (result := rule.sweep(d)) is not None:
            strength, text, at = result
            found.append(Finding(rule, text, strength, at, True))
    fired = {f.rule.name for f in found}
    found = [f for f in found if not fired.intersection(f.rule.unless)]
    found.sort(key=lambda f: (not f.at_widest, RANK[f.rule.name], -f.strength))
    return Diagnosis(d.title, d.dimension, d.points, d.fit, d.point_rules, tuple(found))


def diagnose(rows: list[SeriesSummary], param_name: Callable[[str], str] = lambda b: "param") -> list[Diagnosis]:
    """Every sweep of the rows (cores, else a varying option), and growth over the parameter, judged."""
    by_variant: dict[tuple, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        by_variant[(row.benchmark, row.label)].append(row)
    out = []
    for (benchmark, label), members in sorted(by_variant.items()):
        dimension = _dimension(members)
        grown = _growth(benchmark, label, members, bool(dimension), param_name(benchmark))
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
                                        _points(dimension, sweep))))
        out.extend(grown)
    return out


def _growth(benchmark: str, label: str, members: list[SeriesSummary], swept: bool, name: str) -> list[Diagnosis]:
    """Time over the parameter, per cores and options, where at least two sizes are numbers (report/growth.py)."""
    out = []
    for series in sorted(growth.growth_series(members, {benchmark}), key=lambda g: (g.options, g.cores)):
        if len(series.rows) < 2:
            continue
        what = " ".join(x for x in (series.options, f"cores={series.cores}") if x)
        d = Diagnosis(_title(benchmark, label, what, name), name,
                      _points(name, [(r.param, r) for r in series.rows], scaling=False), series.fit,
                      point_rules=not swept)
        out.append(_judge(d))
    return out


def as_dict(d: Diagnosis) -> dict:
    """A sweep as plain data (`explain --json`)."""
    def point(p: Point) -> dict:
        e = p.evidence
        return {"value": p.value, "statuses": p.series.statuses, "median_ns": p.median_ns, "speedup": p.speedup,
                "efficiency": p.efficiency, "karp_flatt": p.karp_flatt, "cpu_cores": e.cpu_cores,
                "delay_share": e.delay_share, "voluntary_per_s_core": e.voluntary_rate,
                "involuntary_per_s_core": e.involuntary_rate, "threads_peak": e.threads_peak,
                "busy_peak": e.busy_peak, "asleep_share": e.asleep_share, "rss_early_bytes": e.rss_early,
                "rss_late_bytes": e.rss_late, "stalled_runs": e.stalled_runs}
    return {"title": d.title, "dimension": d.dimension, "points": [point(p) for p in d.points],
            "growth_exponent": d.fit.exponent if d.fit else None,
            "findings": [{"rule": f.rule.name, "finding": f.rule.title, "text": f.text, "at": f.at}
                         for f in d.findings]}
