"""Groups runs into series and summarises each one; every reporter starts from these rows."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from ..running.verify import Verdict
from ..spec.catalog import value_order
from ..storing.records import RunRecord, RunStatus, counted, disturbed_only, options_text, series_label
from . import stats
from .stats import Note

# The metric of models that copy data: the longest worker's compute time (the SCOOP/Qs paper's C).
COMPUTE = "compute_ns"


FAILED_RUN = "failed runs"
SKIPPED = "sizes skipped after a timeout"
DISTURBED = "made on a disturbed machine only"


@dataclass(frozen=True)
class SeriesSummary:
    benchmark: str
    variant: str
    shape: str
    options: str              # the other options, "key=value ..."
    param: str
    cores: int
    statuses: dict[str, int]  # run status -> count
    verification: str         # verified | unverified | wrong | none
    stats: stats.Summary | None   # over measured (non-warm-up) iteration ns of every run
    threads_max: int | None
    max_rss_bytes: int | None
    cpu_utilisation: float | None  # median over finished runs
    process_wall_ns: float | None  # median whole-process wall time (start-up included) of finished runs
    metrics: dict[str, float]      # median over finished runs of each metric the implementation reported
    stalls: int
    notes: tuple[Note, ...]
    runs: tuple[RunRecord, ...]

    @property
    def label(self) -> str:
        return series_label(self.variant, self.shape)

    def measured_ns(self) -> list[int]:
        """The iteration times every statistic of the series is built from."""
        return measured_ns(self.runs)

    def status_texts(self) -> list[tuple[str, str]]:
        """(status, text) per run status, e.g. ("timeout", "timeout×3 (2 stalled)"), for any renderer."""
        texts = []
        for status, count in sorted(self.statuses.items()):
            text = f"{status}×{count}" if count > 1 else status
            if status == "timeout" and self.stalls:
                text += f" ({self.stalls} stalled)"
            texts.append((status, text))
        return texts

    @property
    def statuses_text(self) -> str:
        """The run statuses in one line, e.g. "ok×2, timeout (1 stalled)"."""
        return ", ".join(text for _, text in self.status_texts())


def measured_ns(runs) -> list[int]:
    """Measured (non-warm-up) iteration times of the finished runs."""
    return [ns for run in runs if run.status == RunStatus.OK for ns in run.measured_ns()]


def _split_options(options: dict[str, str]) -> tuple[str, str]:
    rest = {k: v for k, v in options.items() if k != "shape"}
    return options.get("shape", ""), options_text(sorted(rest.items()))


def _verification(runs: list[RunRecord]) -> str:
    """The weakest verdict of the series: one wrong iteration makes the series wrong."""
    verdicts = {it.verdict for run in runs for it in run.iterations}
    for weakest in (Verdict.WRONG, Verdict.DISAGREE, Verdict.UNVERIFIED, Verdict.AGREED, Verdict.VERIFIED):
        if weakest in verdicts:
            return str(weakest)
    return "none"


def _max(values) -> int | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def summarise_series(runs: list[RunRecord]) -> SeriesSummary:
    first = runs[0]
    shape, options = _split_options(first.options)
    measured = measured_ns(runs)
    summary = stats.summary_of(measured) if measured else None
    statuses = Counter(str(run.status) for run in runs)
    notes = []
    for run in runs:
        if run.status != RunStatus.SKIPPED and run.message:
            notes.append(Note(FAILED_RUN, f"run {run.run_index}: {run.status}: {run.message}"))
    skipped = [run for run in runs if run.status == RunStatus.SKIPPED]
    if skipped:
        notes.append(Note(SKIPPED, skipped[0].message))
    if disturbed_only(runs):
        notes.append(Note(DISTURBED, "every run of this series was made while the machine probe read the machine "
                                     "as disturbed: its figures may be slow"))
    if summary is not None:
        notes.extend(summary.warnings)
    finished = [run for run in runs if run.status == RunStatus.OK]
    utilisations = sorted(u for run in finished if (u := run.cpu_utilisation) is not None)
    walls = [run.wall_ns for run in finished if run.wall_ns is not None]
    names = sorted({name for run in finished for name in run.metrics})
    metrics = {name: float(np.median([run.metrics[name] for run in finished if name in run.metrics])) for name in names}
    return SeriesSummary(
        benchmark=first.benchmark, variant=first.variant, shape=shape, options=options,
        param=first.param, cores=first.cores, statuses=dict(statuses),
        verification=_verification(runs), stats=summary,
        threads_max=_max(run.threads_max for run in runs),
        max_rss_bytes=_max(run.max_rss_bytes for run in runs),
        cpu_utilisation=utilisations[len(utilisations) // 2] if utilisations else None,
        process_wall_ns=float(np.median(walls)) if walls else None,
        metrics=metrics,
        stalls=sum(1 for run in runs if run.stall),
        notes=tuple(notes), runs=tuple(runs),
    )



def summarise(runs: list[RunRecord]) -> list[SeriesSummary]:
    """One summary per series, ordered by benchmark, variant, shape, cores, parameter; of the runs that count
    (records.counted: a disturbed run is set aside where its series has quiet ones)."""
    groups: dict[tuple, list[RunRecord]] = defaultdict(list)
    for run in counted(runs):
        groups[run.series_key].append(run)
    rows = [summarise_series(group) for group in groups.values()]
    return sorted(rows, key=lambda r: (r.benchmark, r.variant, r.shape, r.options, r.cores, value_order(r.param)))


def note_counts(rows: list[SeriesSummary]) -> dict[str, int]:
    """How many series carry each kind of note, most common first."""
    counts = Counter(kind for row in rows for kind in {note.kind for note in row.notes})
    return dict(counts.most_common())
