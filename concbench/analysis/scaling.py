"""`report --scaling DIM`: how a variant's time changes along one swept dimension (cores, window, …).

Each table is the studies' format: value | T = 100·t(v)/t(first) | factor = t(first)/t(v), with
bootstrap intervals, plus efficiency = factor ÷ (v / first) for cores. Speedup is relative to the
variant's own first point (the Encore thesis' convention) and, on request, to the fastest
sequential variant of the same benchmark and parameter."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..spec.catalog import value_order
from ..storing.records import options_text
from . import stats
from .summary import SeriesSummary


@dataclass(frozen=True)
class ScalingRow:
    value: str
    series: SeriesSummary
    t_norm: float | None          # 100 · t(v) / t(first), medians
    t_ci: tuple[float, float] | None
    factor: float | None          # t(first) / t(v)
    factor_ci: tuple[float, float] | None
    efficiency: float | None      # cores only
    vs_sequential: float | None   # t(fastest seq) / t(v)


@dataclass(frozen=True)
class ScalingTable:
    title: str
    dimension: str
    rows: tuple[ScalingRow, ...]



def value_of(row: SeriesSummary, dimension: str) -> str | None:
    """A series' value along a swept dimension: its cores, or one option's value (None where unset)."""
    if dimension == "cores":
        return str(row.cores)
    return row.runs[0].options.get(dimension)



def _fastest_sequential(rows: list[SeriesSummary]) -> dict[tuple, float]:
    """benchmark, param → the smallest median of any `seq` model series."""
    best: dict[tuple, float] = {}
    for row in rows:
        if row.variant.split("/")[-1] == "seq" and row.stats is not None:
            key = (row.benchmark, row.param)
            best[key] = min(best.get(key, row.stats.median), row.stats.median)
    return best


def _row(value: str, first: SeriesSummary, row: SeriesSummary, dimension: str, sequential: float | None) -> ScalingRow:
    base, here = first.measured_ns(), row.measured_ns()
    if not base or not here:
        return ScalingRow(value, row, None, None, None, None, None, None)
    comparison = stats.compare(base, here)
    ratio = comparison.ratio_of_medians        # t(v) / t(first)
    t_ci = factor_ci = None
    low, high = comparison.ratio_ci_low, comparison.ratio_ci_high     # both None or both set
    if low is not None and high is not None and low > 0:
        t_ci = (100 * low, 100 * high)
        factor_ci = (1 / high, 1 / low)
    factor = None if not ratio else 1 / ratio
    efficiency = None
    if dimension == "cores" and factor is not None:
        efficiency = factor / (int(value) / first.cores)     # first's value along cores is str(first.cores)
    vs_seq = sequential / row.stats.median if sequential and row.stats else None
    return ScalingRow(value, row, None if ratio is None else 100 * ratio, t_ci, factor, factor_ci, efficiency, vs_seq)


def scaling_tables(rows: list[SeriesSummary], dimension: str, against_sequential: bool = False) -> list[ScalingTable]:
    groups: dict[tuple, list[tuple[str, SeriesSummary]]] = defaultdict(list)
    for row in rows:
        value = value_of(row, dimension)
        if value is None:
            continue
        rest = tuple(sorted((k, v) for k, v in row.runs[0].options.items() if k not in (dimension, "shape")))
        fixed_cores = None if dimension == "cores" else row.cores
        groups[(row.benchmark, row.label, rest, row.param, fixed_cores)].append((value, row))
    sequential = _fastest_sequential(rows) if against_sequential else {}
    tables = []
    for (benchmark, label, rest, param, cores), members in sorted(groups.items(), key=lambda g: str(g[0])):
        members.sort(key=lambda m: value_order(m[0]))
        first = members[0][1]
        seq = sequential.get((benchmark, param))
        described = options_text(rest)
        title = f"{benchmark} {label} {param}" + (f" {described}" if described else "") + (
            f" cores={cores}" if cores is not None else "")
        tables.append(ScalingTable(title, dimension, tuple(_row(v, first, r, dimension, seq) for v, r in members)))
    return tables
