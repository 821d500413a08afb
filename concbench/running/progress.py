"""Shows a session's progress: a rich bar on a terminal, one line per finished run elsewhere."""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar

from ..report.units import fmt_ns
from ..storing.records import IterationRecord, RunRecord, RunStatus, series_label
from .plan import Point
from .session import Progress


def describe(point: Point) -> str:
    return (f"{point.benchmark.id} {series_label(point.variant.name, point.shape)} "
            f"{point.benchmark.param_name}={point.param} cores={point.cores}")


class RichProgress(Progress):
    def __init__(self, console: Console) -> None:
        self.console = console
        self.bar: Bar | None = None
        self.task: TaskID | None = None   # set with the bar
        self.current = ""

    @contextmanager
    def live(self, total: int):
        if not self.console.is_terminal:
            yield
            return
        # Once a second: the elapsed time shows seconds, and each redraw is harness CPU taken from the run.
        self.bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), console=self.console, transient=True, refresh_per_second=1)
        self.task = self.bar.add_task("starting", total=total)
        with self.bar:
            yield
        self.bar = None

    def run_started(self, point: Point, run_index: int) -> None:
        self.current = f"{describe(point)} run {run_index + 1}"
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, description=escape(self.current))

    def iteration_done(self, point: Point, iteration: IterationRecord) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, description=escape(
                f"{self.current} · iteration {iteration.index + 1}/{point.iterations} {fmt_ns(iteration.ns)}"))

    def note(self, text: str) -> None:
        (self.bar.console if self.bar is not None else self.console).print(escape(text), highlight=False)

    def run_finished(self, run: RunRecord) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task)
        failed = run.status not in (RunStatus.OK, RunStatus.SKIPPED)
        if failed or self.bar is None:
            style = "" if run.status == RunStatus.OK else "yellow" if run.status == RunStatus.TIMEOUT else "red"
            median = sorted(run.measured_ns())[len(run.measured_ns()) // 2] if run.measured_ns() else None
            where = f"{run.benchmark} {run.label} {run.param} cores={run.cores} run {run.run_index + 1}"
            text = f"{where}: {run.status}" + (f" {run.message}" if run.message else "")
            if median is not None:
                text += f" median {fmt_ns(median)}"
            self.console.print(f"[{style}]{escape(text)}[/]" if style else escape(text), highlight=False)
