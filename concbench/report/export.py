"""JSON, CSV, Markdown and Bencher Metric Format views of a stored session.

The JSON form is a stable interface for scripts (format_version 1, documented by
concbench/schema/export-v1.schema.json): keys are only ever added, with a schema update,
never renamed or removed; times carry `_ns`, sizes `_bytes`; a figure that could not be
measured is null."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from enum import StrEnum

from ..analysis.summary import SeriesSummary
from ..errors import UsageError
from ..running.verify import Verdict
from ..spec.catalog import Benchmark
from ..storing.records import ProbeRecord, RunRecord, SessionRecord, field_names
from . import render
from .tables import metrics_table, summary_table

JSON_FORMAT_VERSION = 1


def _session_dict(session: SessionRecord) -> dict:
    return {
        "id": session.id, "started_at": session.started_at, "ended_at": session.ended_at,
        "status": session.status, "command": session.command, "git_commit": session.git_commit,
        "environment": session.environment, "config": session.config,
    }


# A run's fields as the record declares them, but these: the launch's argv, the samples, the threads and
# the waits stay in the database; `id` is the store's own. A field added to RunRecord is exported, and the schema
# test fails until export-v1.schema.json describes it.
_NOT_EXPORTED = ("argv", "samples", "threads", "waits", "id")


def run_dict(run: RunRecord) -> dict:
    out = {name: str(value) if isinstance(value := getattr(run, name), StrEnum) else value
           for name in field_names(RunRecord) if name not in _NOT_EXPORTED}
    out["cpu_utilisation"] = run.cpu_utilisation
    out["iterations"] = [
        {"index": it.index, "ns": it.ns, "result": it.result, "verified": it.verdict == Verdict.VERIFIED,
         "verdict": it.verdict, "warmup": it.warmup}
        for it in run.iterations
    ]
    return out


def _finite(value):
    """NaN and infinities, which JSON has no words for, as null ("could not be measured"), all the way down."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _dumps(document) -> str:
    return json.dumps(_finite(document), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_json(session: SessionRecord, runs: list[RunRecord], probes: Sequence[ProbeRecord] = ()) -> str:
    document = {"format_version": JSON_FORMAT_VERSION, "session": _session_dict(session),
                "runs": [run_dict(run) for run in runs], "probes": [asdict(reading) for reading in probes]}
    return _dumps(document)


CSV_COLUMNS = (
    "session", "benchmark", "variant", "param", "options", "cores", "run_index", "status", "reason", "stall",
    "wall_ns", "user_ns", "sys_ns", "max_rss_bytes", "rss_peak_sampled_bytes", "threads_max",
    "iteration", "ns", "result", "verdict", "warmup",
)


_FORMULA = re.compile(r"[=+@\t\r]|-(?![\d.])")


def _cell(value):
    """A text cell a spreadsheet would run as a formula (`=…`, `+…`, `@…`, `-` not before a number) starts with
    an apostrophe, so the program's output is shown, never run; numbers stay numbers."""
    return f"'{value}" if isinstance(value, str) and _FORMULA.match(value) else value


def to_csv(session: SessionRecord, runs: list[RunRecord]) -> str:
    """Long form: one row per iteration (a run without iterations still gets one row)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in runs:
        head = [session.id, run.benchmark, run.variant, run.param,
                run.options_key, run.cores, run.run_index,
                str(run.status), run.reason or "", "" if run.stall is None else int(run.stall),
                run.wall_ns, run.user_ns, run.sys_ns, run.max_rss_bytes, run.rss_peak_sampled_bytes,
                run.threads_max]
        head = ["" if v is None else _cell(v) for v in head]
        if not run.iterations:
            writer.writerow(head + ["", "", "", "", ""])
        for it in run.iterations:
            writer.writerow(head + [it.index, it.ns, _cell(it.result), it.verdict, int(it.warmup)])
    return out.getvalue()


BMF_NAME_MAX = 1024   # Bencher's limit on benchmark names (bencher.dev/docs/reference/bencher-metric-format)


def bmf_name(row: SeriesSummary) -> str:
    """A readable name that identifies the series: benchmark/variant[shape]/param=P/options.../cores=K.
    Bencher keys its history by this name, so it must stay the same from session to session."""
    variant = f"{row.variant}[{row.shape}]" if row.shape else row.variant
    return "/".join([row.benchmark, variant, f"param={row.param}", *row.options.split(), f"cores={row.cores}"])


def to_bmf(rows: list[SeriesSummary]) -> str:
    """Bencher Metric Format: one benchmark per series with measured iterations (others are left
    out: Bencher has no null, and a 0 would read as a measurement). Measures: latency, the median
    iteration time in ns with the bootstrap interval of the median; peak-rss in bytes (the highest
    of the series' runs); process-wall-time, the median whole-process wall time in ns."""
    document: dict[str, dict] = {}
    for row in rows:
        s = row.stats
        if s is None:
            continue
        latency = {"value": float(s.median)}
        if s.median_ci_low is not None and s.median_ci_high is not None:
            latency |= {"lower_value": float(s.median_ci_low), "upper_value": float(s.median_ci_high)}
        measures = {"latency": latency}
        if row.max_rss_bytes is not None:
            measures["peak-rss"] = {"value": row.max_rss_bytes}
        if row.process_wall_ns is not None:
            measures["process-wall-time"] = {"value": float(row.process_wall_ns)}
        name = bmf_name(row)
        # Never truncate or merge: either would mix two series' histories on the server.
        if len(name) > BMF_NAME_MAX:
            raise UsageError(f"--export-bmf: a series name is longer than Bencher's {BMF_NAME_MAX} characters: "
                             f"{name[:80]}...")
        if name in document:
            raise UsageError(f"--export-bmf: two series share the Bencher benchmark name {name!r}")
        document[name] = measures
    return _dumps(document)


def to_markdown(session: SessionRecord, rows: list[SeriesSummary], benchmarks: Mapping[str, Benchmark]) -> str:
    """The session as Markdown: its heading, the summary table, then each benchmark's reported metrics in
    the units its file declares."""
    env = session.environment
    lines = [f"## concbench session {session.id} ({session.status}, {session.started_at})", "",
             f"{env.get('cpu_model')}, {len(env.get('cpus_allowed') or [])} CPUs, kernel {env.get('kernel')}"
             + (f", commit `{session.git_commit}`" if session.git_commit else ""), "",
             render.to_markdown(summary_table(rows)).rstrip("\n")]
    by_benchmark: dict[str, list[SeriesSummary]] = {}
    for row in rows:
        by_benchmark.setdefault(row.benchmark, []).append(row)
    for benchmark, members in by_benchmark.items():
        spec = benchmarks.get(benchmark)
        metrics = metrics_table(members, spec.metric_units if spec else {}, spec.param_name if spec else "param",
                                title=f"{benchmark}: reported metrics (median over finished runs)")
        if metrics is not None:
            lines += ["", render.to_markdown(metrics).rstrip("\n")]
    notes = [f"- {row.benchmark} {row.label} {row.param}: {note}" for row in rows for note in row.notes]
    if notes:
        lines += ["", "Notes:", *notes]
    return "\n".join(lines) + "\n"
