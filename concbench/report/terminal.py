"""The terminal: the session heading, the summary with its notes, and any table model (rich)."""

from __future__ import annotations

from rich.console import Console

from ..records import SessionRecord
from .model import TableModel
from .render import to_rich
from .summary import SeriesSummary, note_counts
from .tables import compute_table, metrics_table, summary_table


def session_heading(session: SessionRecord) -> str:
    env = session.environment
    cpus = env.get("cpus_allowed") or []
    return (
        f"session {session.id} · {session.started_at} · {session.status} · "
        f"{env.get('cpu_model') or 'unknown CPU'} · {len(cpus)} CPUs · kernel {env.get('kernel')}"
        + (f" · commit {session.git_commit[:12]}" if session.git_commit else "")
    )


def show(console: Console, table: TableModel | None, note: bool = True) -> None:
    """A table, and its note under it."""
    if table is None:
        return
    console.print(to_rich(table))
    if note and table.note:
        console.print(table.note, highlight=False, markup=False, soft_wrap=True)


def notes_lines(rows: list[SeriesSummary]) -> list[str]:
    """Failures, timeouts and statistical warnings, one line each."""
    return [f"{row.benchmark} {row.label} {row.param} cores={row.cores}: {note}" for row in rows for note in row.notes]


def observer_footprint(rows: list[SeriesSummary]) -> str:
    """What measuring cost, for a reader to judge the numbers: the harness's and the observer's CPU per run."""
    runs = [r for row in rows for r in row.runs
            if r.wall_ns and r.observer_cpu_ns is not None and r.harness_cpu_ns is not None]
    if not runs:
        return ""
    spent = sum(r.harness_cpu_ns + r.observer_cpu_ns for r in runs)
    longest = max(runs, key=lambda r: r.wall_ns)
    return (f"Measuring cost: the harness and the launcher used {spent / sum(r.wall_ns for r in runs):.2%} of one core "
            f"over the {len(runs)} runs' wall time ({(longest.harness_cpu_ns + longest.observer_cpu_ns) / longest.wall_ns:.2%} "
            "in the longest; starting and reaping a process costs about 1 ms, a visible share of very short runs)")


def print_summary(console: Console, session: SessionRecord, rows: list[SeriesSummary], notes: bool = False) -> None:
    """The summary table; then every note (`notes`), or how many series carry each kind of note."""
    console.print(session_heading(session))
    show(console, summary_table(rows))
    show(console, metrics_table(rows))
    show(console, compute_table(rows))
    footprint = observer_footprint(rows)
    if footprint:
        console.print(footprint, highlight=False, markup=False)
    if notes:
        lines = notes_lines(rows)
        console.print("[bold]Notes[/]" if lines else "no notes")
        for line in lines:
            console.print(f"  {line}", markup=False, highlight=False)
        return
    counts = note_counts(rows)
    if counts:
        flagged = sum(1 for row in rows if row.notes)
        kinds = "; ".join(f"{kind}: {count}" for kind, count in counts.items())
        console.print(f"[bold]Notes[/] on {flagged} of {len(rows)} series ({kinds}); "
                      f"`concbench report {session.id} --notes` lists each", highlight=False)
