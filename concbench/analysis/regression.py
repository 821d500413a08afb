"""`concbench compare A B`: the same series in two sessions, and whether B got faster or slower.

The run (one process) is the unit: each run's median iteration time is one observation, and
the two sessions' log run medians are compared with Welch's t (stats.compare_runs). A series
is `slower` or `faster` only when the whole 95 % interval of the ratio B/A lies beyond the
threshold, so a change must stand out of the between-run noise *and* be large enough to
matter. When the interval lies inside the threshold band the series is `unchanged`; otherwise
it is `inconclusive`, with the runs per session that would decide it.

Calibration (tests/test_regression.py, simulated sessions of 3 runs with 2-10 % between-run
noise): under 1 % of A/A series flagged, while a 30 % slowdown is found."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..spec.catalog import value_order
from ..storing.records import RunRecord, RunStatus, counted
from . import stats

DEFAULT_THRESHOLD = 0.05   # a change smaller than 5 % is never called a regression
CLOCK_FLOOR_NS = 1_000_000  # pyperf's floor: shorter iterations measure the clock and the scheduler


@dataclass(frozen=True)
class SeriesChange:
    key: tuple                      # benchmark, variant, options, param, cores
    comparison: stats.RunLevelComparison | None
    assessment: str                 # faster | slower | unchanged | inconclusive | missing
    median_a_ns: float | None = None
    median_b_ns: float | None = None
    runs_needed: int | None = None  # runs per session that would decide an inconclusive series
    runs_a: tuple = ()              # each session's runs (measured iteration times each), for agreement's ties
    runs_b: tuple = ()

    @property
    def label(self) -> str:
        benchmark, variant, options, param, cores = self.key
        return f"{benchmark} {variant} {param}" + (f" ({options})" if options else "") + f" cores={cores}"

    @property
    def too_short(self) -> bool:
        """Iterations under the clock floor: the figures are mostly timer and scheduler noise."""
        medians = [m for m in (self.median_a_ns, self.median_b_ns) if m is not None]
        return bool(medians) and min(medians) < CLOCK_FLOOR_NS


def repeats_for(change: SeriesChange) -> int:
    """Inner repetitions (`--option repeat=k`) that lift a short series' iterations over the clock floor."""
    medians = [m for m in (change.median_a_ns, change.median_b_ns) if m]
    return max(2, math.ceil(CLOCK_FLOOR_NS / max(min(medians), 1.0))) if medians else 2


def _runs(runs: list[RunRecord]) -> dict[tuple, list[list[int]]]:
    series: dict[tuple, list[list[int]]] = defaultdict(list)
    for run in counted(runs):
        measured = run.measured_ns()
        if run.status == RunStatus.OK and measured and min(measured) > 0:
            series[run.series_key].append(measured)
    return series


def classify(comparison: stats.RunLevelComparison, threshold: float) -> tuple[str, int | None]:
    """The assessment, and for an inconclusive one the runs per session that would decide it."""
    low, high = comparison.ratio_low, comparison.ratio_high
    upper, lower = 1 + threshold, 1 / (1 + threshold)
    if low is not None and low > upper:
        return "slower", None
    if high is not None and high < lower:
        return "faster", None
    if low is not None and high is not None and low >= lower and high <= upper:   # (None together)
        return "unchanged", None
    # How far the estimate is from the nearer edge of the band decides how many runs it takes; an
    # estimate on the edge itself takes as many as a change of the threshold's size (not infinitely many).
    margin = max(abs(abs(np.log(comparison.ratio)) - np.log(upper)), np.log(upper))
    needed = comparison.runs_to_resolve(float(np.expm1(margin)))
    # Undecided with the runs it has: it takes more than those, whatever the noise estimate says.
    return "inconclusive", None if needed is None else max(needed, min(comparison.runs_a, comparison.runs_b) + 1)


def _natural(key: tuple) -> tuple:
    """A series key (benchmark, variant, options, param, cores) in reading order: parameters as numbers
    where they are, cores as numbers (2 before 16)."""
    benchmark, variant, options, param, cores = key
    return (benchmark, variant, options, value_order(param), cores)


def compare_sessions(runs_a: list[RunRecord], runs_b: list[RunRecord],
                     threshold: float = DEFAULT_THRESHOLD) -> list[SeriesChange]:
    a, b = _runs(runs_a), _runs(runs_b)
    changes = []
    for key in sorted(set(a) | set(b), key=_natural):
        if not a.get(key) or not b.get(key):
            changes.append(SeriesChange(key, None, "missing"))
            continue
        comparison = stats.compare_runs(a[key], b[key])
        assessment, needed = classify(comparison, threshold)
        changes.append(SeriesChange(key, comparison, assessment,
                                    float(np.median(np.concatenate(a[key]))), float(np.median(np.concatenate(b[key]))),
                                    needed, tuple(a[key]), tuple(b[key])))
    return changes


TIE = 0.05   # two variants within 5 % of each other in both sessions: which is fastest is a coin toss


@dataclass(frozen=True)
class Agreement:
    """How far two sessions agree, series by series (median of each series' measured iterations, B/A) and point
    by point (the fastest variant where two or more ran): can this machine give the same answer twice?"""

    series: int
    within_10: int          # series with B/A within ±10 %
    within_1_5: int         # within 1.5x either way
    points: int             # points (benchmark, options but shape, parameter, cores) with 2+ variants in both
    same_fastest: int
    ties: int = 0           # of the others, points whose two fastest neither session tells apart (_tied)

    def line(self) -> str:
        def share(n: int, of: int) -> str:
            return f"{n} of {of} ({n / of:.0%})" if of else "0 of 0"
        ties = (f" ({share(self.same_fastest + self.ties, self.points)} counting as the same a point whose two "
                f"fastest neither session tells apart)" if self.ties else "")
        return (f"the two sessions agree: {share(self.within_10, self.series)} series within ±10 %, "
                f"{share(self.within_1_5, self.series)} within 1.5x; the fastest variant is the same at "
                f"{share(self.same_fastest, self.points)} points{ties}")


def _tied(first: SeriesChange, second: SeriesChange) -> bool:
    """Neither session orders the two: in each, they are within TIE of each other, or the 95 % interval of their
    ratio over that session's own runs (the run as the unit, as compare judges) holds 1. A point where one
    session separated them and the other put them the other way round is a disagreement."""
    return all(_apart(getattr(first, side), getattr(second, side), getattr(first, runs), getattr(second, runs))
               is False for side, runs in (("median_a_ns", "runs_a"), ("median_b_ns", "runs_b")))


def _apart(first: float, second: float, first_runs: tuple, second_runs: tuple) -> bool:
    if abs(first / second - 1) <= TIE:
        return False
    if len(first_runs) < 2 or len(second_runs) < 2:
        return True
    within = stats.compare_runs(first_runs, second_runs)
    assert within.ratio_low is not None and within.ratio_high is not None   # two runs a side give an interval
    return not (within.ratio_low <= 1 <= within.ratio_high)


def agreement(changes: list[SeriesChange]) -> Agreement:
    # The series both sessions measured, each with its two medians.
    paired = [(c, a, b) for c in changes if (a := c.median_a_ns) and (b := c.median_b_ns)]
    ratios = [b / a for _, a, b in paired]
    points: dict[tuple, list[tuple[SeriesChange, float, float]]] = defaultdict(list)
    for change, a, b in paired:
        benchmark, _, options, param, cores = change.key
        rest = " ".join(o for o in options.split() if not o.startswith("shape="))
        points[(benchmark, rest, param, cores)].append((change, a, b))
    same = ties = contested = 0
    for group in points.values():
        if len(group) < 2:
            continue
        contested += 1
        fastest_a, fastest_b = min(group, key=lambda p: p[1])[0], min(group, key=lambda p: p[2])[0]
        same += fastest_a is fastest_b
        ties += fastest_a is not fastest_b and _tied(fastest_a, fastest_b)
    return Agreement(len(paired), sum(1 for r in ratios if abs(r - 1) <= 0.10),
                     sum(1 for r in ratios if 1 / 1.5 <= r <= 1.5), contested, same, ties)


def runs_for_change(changes: list[SeriesChange], change: float = DEFAULT_THRESHOLD) -> int | None:
    """The most runs per session any compared series needs for a change of this size to stand out."""
    each = [c.comparison.runs_to_resolve(change) for c in changes if c.comparison is not None]
    needs = [n for n in each if n is not None]
    return max(needs) if needs else None


def environment_differences(env_a: dict, env_b: dict) -> list[str]:
    """What differs between two sessions' machines and builds: CPU, cores, kernel, toolchains, options."""
    notes = []
    for key in ("cpu_model", "cpus_allowed", "kernel"):
        if env_a.get(key) != env_b.get(key):
            notes.append(f"{key}: {env_a.get(key)} → {env_b.get(key)}")
    tools_a, tools_b = env_a.get("toolchains", {}), env_b.get("toolchains", {})
    for language in sorted(set(tools_a) & set(tools_b)):
        for field in ("version", "build"):
            left, right = (tools_a[language] or {}).get(field), (tools_b[language] or {}).get(field)
            if left != right:
                notes.append(f"{language} {field}: {left} → {right}")
    return notes
