"""How total time grows with N: the log-log fit that exposes O(n²) bookkeeping (spawn-scaling spec)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .summary import SeriesSummary

SUPERLINEAR_EXPONENT = 1.1       # above this the fitted growth is flagged (n·log n reads about 1.1)
SUPERLINEAR_LOCAL_EXPONENT = 1.3  # the slope between the two largest sizes (spawn-scaling spec)
FIT_FROM_N = 1000                 # fit N >= 1000 when at least three such sizes finished


@dataclass(frozen=True)
class GrowthPoint:
    n: int
    median_ns: float

    @property
    def ns_per_task(self) -> float:
        return self.median_ns / self.n

    @property
    def s_per_task(self) -> float:
        return self.ns_per_task / 1e9


@dataclass(frozen=True)
class GrowthFit:
    exponent: float | None        # least-squares slope of ln(time) against ln(N)
    local_last: float | None      # slope between the two largest finished sizes
    fitted_points: int
    timed_out: bool
    superlinear: bool


def slope(points: list[GrowthPoint]) -> float | None:
    if len(points) < 2 or len({p.n for p in points}) < 2:
        return None
    x = np.log([p.n for p in points])
    y = np.log([p.median_ns for p in points])
    return float(np.polyfit(x, y, 1)[0])


def fit(points: list[GrowthPoint], timed_out: bool = False) -> GrowthFit:
    """The exponent over the finished sizes; a timeout is itself evidence of super-linear growth."""
    points = sorted(points, key=lambda p: p.n)
    large = [p for p in points if p.n >= FIT_FROM_N]
    used = large if len(large) >= 3 else points
    exponent = slope(used)
    local = slope(points[-2:]) if len(points) >= 2 else None
    flagged = timed_out or (exponent is not None and exponent > SUPERLINEAR_EXPONENT) or (
        local is not None and local >= SUPERLINEAR_LOCAL_EXPONENT)
    return GrowthFit(exponent, local, len(used), timed_out, flagged)


@dataclass(frozen=True)
class GrowthSeries:
    benchmark: str
    label: str
    options: str
    cores: int
    points: tuple[GrowthPoint, ...]
    fit: GrowthFit
    rows: tuple[SeriesSummary, ...] = ()   # the series at each numeric size, smallest first (finished or not)


def growth_series(rows: list[SeriesSummary], benchmarks: set[str]) -> list[GrowthSeries]:
    """One fit per variant × shape × options × cores of the given benchmarks, over its parameters."""
    groups: dict[tuple, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        if row.benchmark in benchmarks:
            groups[(row.benchmark, row.label, row.options, row.cores)].append(row)
    result = []
    for (benchmark, label, options, cores), members in groups.items():
        points = [GrowthPoint(int(r.param), r.stats.median) for r in members
                  if r.stats is not None and r.param.isdigit() and r.stats.median > 0 and not math.isnan(r.stats.median)]
        timed_out = any(r.statuses.get("timeout") for r in members)
        sized = tuple(sorted((r for r in members if r.param.isdigit()), key=lambda r: int(r.param)))
        result.append(GrowthSeries(benchmark, label, options, cores, tuple(sorted(points, key=lambda p: p.n)),
                                   fit(points, timed_out), sized))
    return result
