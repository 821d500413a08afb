"""Does a published table reproduce? Over the cells both sides have: Kendall's τ between our figures
and the published ones (does the order agree), and the cells that disagree by more than 2× once
each side is divided by its own geometric mean over those cells (the machines differ; the shape
must not)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from ..report import svg
from ..spec.studies import PublishedTable, Statistic, Study
from ..storing.records import RunStatus
from . import configurations, geomeans
from .summary import SeriesSummary

FACTOR = 2.0          # a cell disagrees when its normalised figures differ by more than this
MIN_CELLS = 3         # fewer common cells than this: no verdict
SHOWN = 6             # disagreeing cells named in the one-line verdict (the worst first)


@dataclass(frozen=True)
class TableVerdict:
    table: str                        # the published table's title
    cells: int                        # cells both sides have
    tau: float | None                 # Kendall's τ-b, None with too few cells or a constant side
    p_value: float | None
    disagreeing: tuple[str, ...]      # "cell: 3.1" (ours ÷ theirs after normalisation), the worst first
    # Each common cell as (name, theirs, ours), each side divided by its geometric mean: the chart's points.
    points: tuple[tuple[str, float, float], ...] = ()

    @property
    def line(self) -> str:
        """One line for the terminal."""
        if self.tau is None:
            if self.cells >= MIN_CELLS:
                return f"{self.table}: no verdict ({self.cells} cells in common, but one side has one value only)"
            return (f"{self.table}: no verdict ({self.cells} cells in common, {MIN_CELLS} needed: this scale runs "
                    "too few of the table's points)")
        order = "the order agrees" if self.tau > 0 and self.p_value is not None and self.p_value < 0.05 else \
            "the order does not agree significantly"
        more = len(self.disagreeing) - SHOWN
        off = (f"{len(self.disagreeing)} of {self.cells} cells off by more than {FACTOR:g}× (ours ÷ theirs): "
               + ", ".join(self.disagreeing[:SHOWN]) + (f", and {more} more" if more > 0 else "")) \
            if self.disagreeing else f"no cell off by more than {FACTOR:g}×"
        return (f"{self.table}: Kendall's τ = {self.tau:.2f} (p = {self.p_value:.2g}) over {self.cells} cells, "
                f"{order}; {off}")


def judge(title: str, pairs: dict[str, tuple[float, float]]) -> TableVerdict:
    """The verdict over named cells, each (ours, theirs); cells with a non-positive side are left out."""
    cells = {name: (a, b) for name, (a, b) in pairs.items() if a > 0 and b > 0}
    if len(cells) < MIN_CELLS:
        return TableVerdict(title, len(cells), None, None, ())
    ours = [a for a, _ in cells.values()]
    theirs = [b for _, b in cells.values()]
    from scipy import stats as scipy_stats  # on first use: it takes most of a second to load
    tau, p_value = scipy_stats.kendalltau(ours, theirs)
    if math.isnan(tau):
        return TableVerdict(title, len(cells), None, None, ())
    scale_ours = math.exp(sum(math.log(v) for v in ours) / len(ours))
    scale_theirs = math.exp(sum(math.log(v) for v in theirs) / len(theirs))
    ratios = {name: (a / scale_ours) / (b / scale_theirs) for name, (a, b) in cells.items()}
    off = sorted((name for name, r in ratios.items() if r > FACTOR or r < 1 / FACTOR),
                 key=lambda name: -abs(math.log(ratios[name])))
    points = tuple(sorted((name, b / scale_theirs, a / scale_ours) for name, (a, b) in cells.items()))
    return TableVerdict(title, len(cells), float(tau), float(p_value), tuple(f"{n}: {ratios[n]:.2g}" for n in off), points)


def figure(verdict: TableVerdict, key: str) -> str:
    """Ours against the published figures on the same normalised log axes (the HTML page): a cell on the
    diagonal reproduces, the dashed lines are 2× either way."""
    if not verdict.points:
        return ""
    theirs = [t for _, t, _ in verdict.points]
    ours = [o for _, _, o in verdict.points]
    low, high = min(theirs + ours) / FACTOR, max(theirs + ours) * FACTOR
    ends = [low, high]
    panel = svg.Panel(verdict.table, "published ÷ its geometric mean", "ours ÷ its geometric mean",
                      [svg.Series(ends, ends, "#888888"),
                       svg.Series(ends, [v * FACTOR for v in ends], "#bbbbbb", dashed=True),
                       svg.Series(ends, [v / FACTOR for v in ends], "#bbbbbb", dashed=True),
                       svg.Series(theirs, ours, "#1f77b4", kind="points", gid="cells")],
                      log_x=True, log_y=True, x_limits=(low, high))
    return svg.chart(key, [panel], 520, 300)


def _figure_name(key: tuple) -> str:
    task, entrant, cores, kind = key
    return " ".join(str(part) for part in (task, entrant, kind if kind != "T" else "", cores or "") if part)


def _aggregated(study: Study, table: PublishedTable, ours: geomeans.Figures) -> TableVerdict:
    theirs = geomeans.published_figures(replace(study, published=(table,)))   # this table's figures alone
    pairs = {_figure_name(key): (ours[key], value) for key, value in theirs.items() if key in ours}
    return judge(table.title, pairs)


def _rebuilt(table: PublishedTable, rows: list[SeriesSummary]) -> TableVerdict:
    rebuilt = configurations.rebuild(table, rows)
    pairs = {}
    for row in rebuilt.rows:
        for column, figure in row.ours.items():
            theirs = geomeans.published_number(row.theirs.get(column, ""))
            if figure.value is not None and theirs is not None:
                pairs[f"{row.task} {column}"] = (figure.value, theirs)
    return judge(table.title, pairs)


SECONDS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
PER_TASK = "/task"    # a unit such as "s/task": each side's time divided by the parameter, its task count


def _leading_number(cell: str) -> float | None:
    """A cell's first figure: "3.16 (1.69)" (a time and its speedup) is 3.16."""
    return geomeans.published_number(cell.split(" ")[0])


def _seconds(text: str, unit: str) -> float | None:
    """A published cell in seconds (per task where the unit says so): the table's unit, or the cell's own
    ("71.5 µs") where it is 'as written'."""
    number, _, own = text.strip().partition(" ")
    value = geomeans.published_number(number)
    scale = SECONDS.get(own.strip() if unit == "as written" else unit.removesuffix(PER_TASK))
    return None if value is None or scale is None else value * scale


def _ours(table: PublishedTable, rows: list[SeriesSummary], key: str, wanted: str, median: bool) -> float | None:
    """Our mean (or, where the source took one, median) iteration time in seconds (per task where the table's
    unit is) of the series that stands for a published cell: its variant, at the row's parameter (or option
    value); the widest run of it."""
    found = [(r, stats) for r in rows
             if r.benchmark == table.benchmark and geomeans.matches(r, wanted) and (stats := r.stats) is not None
             and (geomeans.options_of(r).get(table.match_option) == key if table.match_option else r.param == key)]
    if not found:
        return None
    tasks = int(key) if table.unit.endswith(PER_TASK) and key.isdigit() and int(key) > 0 else 1
    _, widest = max(found, key=lambda rs: rs[0].cores)
    return (widest.median if median else widest.mean) / 1e9 / tasks


def _matched(table: PublishedTable, rows: list[SeriesSummary], median: bool = False) -> TableVerdict:
    """Rows by parameter (or option), columns by variant ([published] match): the mean (or median) iteration
    time of the series, per task where the unit is; in a relative table, 100 × each row's time ÷ our time at
    the key the table is relative to."""
    pairs = {}
    at = table.columns.index(table.param_column)
    chosen = [row for row in table.rows
              if all(row[table.columns.index(column)] == value for column, value in table.match_rows.items())]
    for column, wanted in table.match.items():
        base = _ours(table, rows, table.relative_to, wanted, median) if table.relative_to else None
        for row in chosen:
            cell = row[table.columns.index(column)]
            theirs = _leading_number(cell) if table.relative_to else _seconds(cell, table.unit)
            ours = _ours(table, rows, row[at], wanted, median)
            if table.relative_to:
                ours = 100 * ours / base if ours is not None and base else None
            if theirs is not None and ours is not None:
                pairs[f"{row[at]} {column}"] = (ours, theirs)
    return judge(f"{table.benchmark}: {table.title}", pairs)


def _column_key(column: str) -> tuple[str | None, int | None]:
    """A transposed table's column: (parameter, None) for "N=500", (None, cores) for "2 cores"."""
    if m := re.fullmatch(r"\s*\w+\s*=\s*(\S+)\s*", column):
        return m.group(1), None
    if m := re.fullmatch(r"\s*(\d+) cores?\s*", column):
        return None, int(m.group(1))
    return None, None


def _by_row(table: PublishedTable, rows: list[SeriesSummary]) -> TableVerdict:
    """Rows by implementation ([published] match_by_row), columns by parameter or core count: the minimum
    whole-process wall time of the series' finished runs (at the most cores where a column does not say)."""
    pairs = {}
    for row in table.rows:
        wanted = table.match_by_row.get(row[0])
        if wanted is None:
            continue
        for column, cell in zip(table.columns[1:], row[1:]):
            param, cores = _column_key(column)
            param = param or table.at_param
            theirs = _leading_number(cell)
            found = [r for r in rows if r.benchmark == table.benchmark and geomeans.matches(r, wanted)
                     and r.param == param and (cores is None or r.cores == cores)]
            widest = max((r.cores for r in found), default=None)
            walls = [run.wall_ns for r in found if r.cores == widest
                     for run in r.runs if run.status == RunStatus.OK and run.wall_ns]
            if theirs is not None and walls:
                pairs[f"{row[0]} {column}"] = (min(walls) / 1e9, theirs)
    return judge(f"{table.benchmark}: {table.title}", pairs)


def study_verdicts(study: Study, rows: list[SeriesSummary]) -> list[TableVerdict]:
    """One verdict per published table the study can lay ours against: the tables its aggregates read
    (layout), the ones it rebuilds from our series ([published.ours]), those whose columns name
    their variants (match) and those whose rows do (match_by_row)."""
    out = []
    ours = geomeans.our_figures(study, geomeans.measured(study, rows)) if study.families else {}
    for table in study.published:
        if table.ours:
            out.append(_rebuilt(table, rows))
        elif table.layout:
            out.append(_aggregated(study, table, ours))
        elif table.match:
            out.append(_matched(table, rows, study.statistic == Statistic.MEDIAN_OF_3_AFTER_WARMUP))
        elif table.match_by_row:
            out.append(_by_row(table, rows))
    return out
