"""The terminal: the session heading, an overview, each benchmark's tables fitted to the width, the notes."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from ..analysis.best import best_pairs
from ..analysis.growth import growth_series
from ..analysis.summary import FAILED_RUN, SKIPPED, SeriesSummary, note_counts
from ..spec.catalog import Benchmark
from ..storing.records import SessionRecord
from .layout import column_widths, fit, table_width
from .model import TableModel
from .render import to_rich
from .tables import best_table, compute_table, growth_table, metrics_table, overview_table, summary_table

# Off a terminal (a pipe, a log file) and without COLUMNS: wide enough for the summary's main columns.
FILE_WIDTH = 160


def make_console(stream: TextIO, stderr: bool = False) -> Console:
    """A console as wide as the terminal; off one, COLUMNS where it is set, else FILE_WIDTH. Standard error
    never wraps: each error and each failed run is one line, however long its path."""
    fixed = None if stream.isatty() or os.environ.get("COLUMNS", "").isdigit() else FILE_WIDTH
    return Console(width=fixed, stderr=stderr, soft_wrap=stderr)


def session_heading(session: SessionRecord) -> str:
    env = session.environment
    cpus = env.get("cpus_allowed") or []
    return (
        f"session {session.id} · {session.started_at} · {session.status} · "
        f"{env.get('cpu_model') or 'unknown CPU'} · {len(cpus)} CPUs · kernel {env.get('kernel')}"
        + (f" · commit {session.git_commit[:12]}" if session.git_commit else "")
    )


def say(console: Console, text: str, indent: int = 0) -> None:
    """A line of plain text, wrapped at the console's width (each wrapped line indented alike)."""
    console.print(Padding(Text(text), (0, 0, 0, indent), expand=False) if indent else Text(text))


def say_whole(console: Console, text: str) -> None:
    """A line that names a file, a URL or a session: never wrapped, so that it can be copied or grepped whole."""
    console.print(text, soft_wrap=True, highlight=False, markup=False)


@contextmanager
def _width(console: Console, width: int):
    saved = console.width
    console.width = max(width, saved)
    try:
        yield
    finally:
        console.width = saved


def show(console: Console, table: TableModel | None, note: bool = True, wide: bool = False) -> tuple[str, ...]:
    """A table fitted to the console (report/layout.py), and its note under it; returns the columns left
    out to fit. `wide`: the whole table, however wide."""
    if table is None:
        return ()
    layout = fit(table, None if wide else console.width)
    for part in layout.parts:
        if part.heading:
            console.print(Text(part.heading, style="bold"))
        if wide:
            with _width(console, table_width(column_widths(part))):
                console.print(to_rich(part))
        else:
            console.print(to_rich(part))
    if note and table.note:
        say(console, table.note)
    return layout.left_out


def notes_lines(rows: list[SeriesSummary]) -> list[str]:
    """Failures, timeouts and statistical warnings, one line each."""
    return [f"{row.benchmark} {row.label} {row.param} cores={row.cores}: {note}" for row in rows for note in row.notes]


def trouble_lines(rows: list[SeriesSummary], param_names: Mapping[str, str]) -> list[str]:
    """Each series with a run that failed, timed out or was skipped, in one line."""
    lines = []
    for row in rows:
        said = [note.text for note in row.notes if note.kind in (FAILED_RUN, SKIPPED)]
        if said:
            options = f" ({row.options})" if row.options else ""
            lines.append(f"{row.benchmark} {row.label} {param_names.get(row.benchmark, 'param')}={row.param}"
                         f"{options}, {row.cores} cores: {'; '.join(said)}")
    return lines


@dataclass(frozen=True)
class _Cost:
    """What measuring one run cost: its wall time, the harness's and the observer's CPU, where each ran."""
    wall_ns: int
    harness_cpu_ns: int
    observer_cpu_ns: int
    observer_cpus: str     # "" where the run does not say
    cpus: str


def observer_footprint(rows: list[SeriesSummary]) -> str:
    """What measuring cost, for a reader to judge the numbers: the harness's and the observer's CPU per run."""
    runs = [_Cost(wall, harness, observer, r.observer_cpus or "", r.cpus) for row in rows for r in row.runs
            if (wall := r.wall_ns) and (observer := r.observer_cpu_ns) is not None
            and (harness := r.harness_cpu_ns) is not None]
    if not runs:
        return ""
    spent = sum(r.harness_cpu_ns + r.observer_cpu_ns for r in runs)
    longest = max(runs, key=lambda r: r.wall_ns)
    placed = [r for r in runs if r.observer_cpus]
    apart = sum(1 for r in placed if not set(r.observer_cpus.split(",")) & set(r.cpus.split(",")))
    where = (f"; the observer ran off the measured CPUs in {apart} of {len(placed)} runs"
             + ("" if apart == len(placed) else " (on them where no other CPU was free)") if placed else "")
    return (f"Measuring cost: the harness and the launcher used {spent / sum(r.wall_ns for r in runs):.2%} of one core "
            f"over the {len(runs)} runs' wall time ({(longest.harness_cpu_ns + longest.observer_cpu_ns) / longest.wall_ns:.2%} "
            f"in the longest; starting and reaping a process costs about 1 ms, a visible share of very short runs){where}")


def _benchmark_tables(rows: list[SeriesSummary], benchmark: str, spec: Benchmark | None) -> list[TableModel]:
    """One benchmark's tables: its summary, its reported metrics, T beside C, its growth with N."""
    param = spec.param_name if spec else "param"
    title = f"{benchmark}: {spec.title}" if spec else benchmark
    tables = [summary_table(rows, with_benchmark=False, param_name=param, title=title),
              metrics_table(rows, spec.metric_units if spec else {}, param,
                            title=f"{benchmark}: reported metrics (median over finished runs)"),
              compute_table(rows, with_benchmark=False, param_name=param)]
    if spec is not None and "growth_exponent" in spec.derived:
        series = growth_series(rows, {benchmark})
        tables.append(growth_table(series, with_benchmark=False) if series else None)
    return [t for t in tables if t is not None]


def print_summary(console: Console, session: SessionRecord, rows: list[SeriesSummary],
                  benchmarks: Mapping[str, Benchmark] | None = None, notes: bool = False, wide: bool = False,
                  faithful_shape: Callable[[str, str], str | None] | None = None,
                  headings: list[str] | None = None, machine: Sequence[str] = ()) -> None:
    """The heading (`headings` instead, for the shards of a split plan); for a session of several benchmarks an
    overview and the runs that were not ok; each benchmark's tables; the faithful ports against the best shapes,
    where both ran (`faithful_shape` names a model's first shape); what measuring cost; what the machine probe
    saw (`machine`: report.machine.machine_lines); then every note
    (`notes`), or how many series carry each kind."""
    benchmarks = benchmarks or {}
    param_names = {b.id: b.param_name for b in benchmarks.values()}
    for line in headings or [session_heading(session)]:
        say(console, line)
    by_benchmark: dict[str, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        by_benchmark[row.benchmark].append(row)
    left_out: dict[str, None] = {}
    if len(by_benchmark) > 1:
        left_out.update(dict.fromkeys(show(console, overview_table(rows, param_names), wide=wide)))
        trouble = trouble_lines(rows, param_names)
        say(console, "Runs not ok:" if trouble else "Every run finished.")
        for line in trouble:
            say(console, line, indent=2)
    shared_notes: dict[str, None] = {}     # notes of tables shown once per benchmark: said once, at the end
    for benchmark, members in by_benchmark.items():
        console.print()
        for table in _benchmark_tables(members, benchmark, benchmarks.get(benchmark)):
            own_note = table.kind == "metrics"
            left_out.update(dict.fromkeys(show(console, table, note=own_note, wide=wide)))
            if table.note and not own_note:
                shared_notes[table.note] = None
    pairs = best_pairs(rows, faithful_shape) if faithful_shape else []
    if pairs:
        console.print()
        left_out.update(dict.fromkeys(show(console, best_table(pairs), wide=wide)))
    for text in shared_notes:
        say(console, text)
    if left_out:
        say(console, f"Left out to fit {console.width} columns: {', '.join(left_out)} "
                     f"(`concbench report {session.id} --wide` shows every column)")
    footprint = observer_footprint(rows)
    if footprint:
        say(console, footprint)
    for line in machine:
        say(console, line)
    if notes:
        lines = notes_lines(rows)
        console.print("[bold]Notes[/]" if lines else "no notes")
        for line in lines:
            say(console, line, indent=2)
        return
    counts = note_counts(rows)
    if counts:
        flagged = sum(1 for row in rows if row.notes)
        kinds = "; ".join(f"{kind}: {count}" for kind, count in counts.items())
        console.print(f"[bold]Notes[/] on {flagged} of {len(rows)} series ({kinds}); "
                      f"`concbench report {session.id} --notes` lists each", highlight=False)
