"""A published table rebuilt from our series ([published.ours], studies.TableFromOurs): its rows are tasks,
its columns values of one option of one variant (SCOOP/Qs's runtime configurations). Per task, ours beside
the source's figures; per column, the geometric mean of each side over the tasks both sides have."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..spec.catalog import value_order
from ..spec.studies import PublishedTable, Quantity, TableFromOurs
from .geomeans import Mean, matches, options_of, published_number
from .stats import geometric_mean
from .summary import COMPUTE, SeriesSummary

NOT_MEASURED = "not measured"
NO_COUNTERPART = "—"          # a published column with no option value here (a compiler pass we lack)


@dataclass(frozen=True)
class Figure:
    """One of our cells: a value (seconds, or × the row's fastest), or why there is none."""

    value: float | None
    why: str = ""          # NOT_MEASURED, the run statuses ("timeout"), "no compute_ns", "T ≤ C"


@dataclass(frozen=True)
class TaskRow:
    task: str
    label: str                     # the variant [shape] of the series, "" when none was measured
    param: str                     # what ours ran at ("" when not measured)
    cores: int | None
    ours: dict[str, Figure]        # per column ours can fill (TableFromOurs.columns)
    theirs: dict[str, str]         # per published column after the task, as printed

    @property
    def measured(self) -> bool:
        return any(f.value is not None for f in self.ours.values())


@dataclass(frozen=True)
class Rebuilt:
    table: PublishedTable
    rows: tuple[TaskRow, ...]
    ours_means: dict[str, Mean | None]   # per published column; None where ours has no counterpart
    theirs_means: dict[str, Mean]

    @property
    def spec(self) -> TableFromOurs:
        """The table's [published.ours], which its rows were rebuilt from."""
        assert self.table.ours is not None    # rebuild() refuses a table without one
        return self.table.ours


def _series_by_value(spec: TableFromOurs, task: str, rows: list[SeriesSummary]) -> dict[str, SeriesSummary]:
    """Option value -> the series of one task. Of the series that set the option to a column's value, the
    group at one shape, parameter, core count and other options that covers the most values (ties: the most
    cores, then the largest parameter), so that the columns of a row were measured alike."""
    values = set(spec.columns.values())
    groups: dict[tuple, dict[str, SeriesSummary]] = defaultdict(dict)
    for row in rows:
        options = options_of(row)
        if row.benchmark == task and matches(row, spec.variant) and options.get(spec.option) in values:
            alike = (row.param, row.cores, tuple(sorted((k, v) for k, v in options.items() if k != spec.option)))
            groups[alike][options[spec.option]] = row
    if not groups:
        return {}
    best = max(groups, key=lambda alike: (len(groups[alike]), alike[1], value_order(alike[0])))
    return groups[best]


def _figure(row: SeriesSummary | None, quantity: Quantity) -> Figure:
    if row is None:
        return Figure(None, NOT_MEASURED)
    if row.stats is None:
        return Figure(None, row.statuses_text or NOT_MEASURED)
    if quantity == Quantity.TIME:
        return Figure(row.stats.median / 1e9)
    # Communication = T − C from the two medians: a program reports compute_ns once per run (its last
    # iteration's), so no iteration's own time can be paired with its own compute time.
    compute = row.metrics.get(COMPUTE)
    if compute is None:
        return Figure(None, f"no {COMPUTE}")
    gap = row.stats.median - compute
    # T ≤ C: the program's own compute time covers its whole iteration, so no communication is left to measure.
    return Figure(gap / 1e9) if gap > 0 else Figure(None, f"T ≤ C ({row.stats.median / 1e9:.3g} ≤ {compute / 1e9:.3g} s)")


def _normalised(figures: dict[str, Figure]) -> dict[str, Figure]:
    """Each figure ÷ the row's fastest measured one, as the source normalised its rows."""
    present = [f.value for f in figures.values() if f.value is not None]
    if not present:
        return figures
    fastest = min(present)
    return {c: Figure(f.value / fastest) if f.value is not None else f for c, f in figures.items()}


def _task_row(table: PublishedTable, spec: TableFromOurs, published: tuple[str, ...],
              rows: list[SeriesSummary]) -> TaskRow:
    task = published[0]
    found = _series_by_value(spec, task, rows)
    ours = {column: _figure(found.get(value), spec.quantity) for column, value in spec.columns.items()}
    if spec.normalise:
        ours = _normalised(ours)
    any_series = next(iter(found.values()), None)
    return TaskRow(task, any_series.label if any_series else "", any_series.param if any_series else "",
                   any_series.cores if any_series else None, ours, dict(zip(table.columns[1:], published[1:])))


def _mean(values: list[float], of: int) -> Mean:
    return Mean(geometric_mean(values) if values else None, len(values), of)


def published_means(table: PublishedTable) -> dict[str, Mean]:
    """The source's own geometric mean of each column over all its tasks."""
    return {column: _mean([v for row in table.rows if (v := published_number(row[i])) is not None], len(table.rows))
            for i, column in enumerate(table.columns[1:], 1)}


def rebuild(table: PublishedTable, rows: list[SeriesSummary]) -> Rebuilt:
    """The table's rows from our series, and per column both sides' means over the same tasks: for a column
    ours fills, the tasks with a figure on both sides; for one it cannot, the tasks ours measured at all."""
    spec = table.ours
    if spec is None:
        raise ValueError(f"published table '{table.title}' has no [published.ours]")
    task_rows = tuple(_task_row(table, spec, published, rows) for published in table.rows)
    ours_means: dict[str, Mean | None] = {}
    theirs_means: dict[str, Mean] = {}
    for column in table.columns[1:]:
        if column in spec.columns:
            both = [(o, t) for r in task_rows if (o := r.ours[column].value) is not None
                    and (t := published_number(r.theirs[column])) is not None]
            ours_means[column] = _mean([o for o, _ in both], len(task_rows))
            theirs = [t for _, t in both]
        else:
            theirs = [t for r in task_rows if r.measured and (t := published_number(r.theirs[column])) is not None]
            ours_means[column] = None
        theirs_means[column] = _mean(theirs, len(task_rows))
    return Rebuilt(table, task_rows, ours_means, theirs_means)
