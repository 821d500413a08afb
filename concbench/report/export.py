"""JSON, CSV and Markdown views of a stored session.

The JSON form is a stable interface for scripts (format_version 1): keys are only ever
added, never renamed or removed; times carry `_ns`, sizes `_bytes`; a figure that could not
be measured is null."""

from __future__ import annotations

import csv
import io
import json

from ..records import RunRecord, SessionRecord
from ..verify import Verdict
from .summary import SeriesSummary
from .units import fmt_bytes, fmt_ns, fmt_pct

JSON_FORMAT_VERSION = 1


def _session_dict(session: SessionRecord) -> dict:
    return {
        "id": session.id, "started_at": session.started_at, "ended_at": session.ended_at,
        "status": session.status, "command": session.command, "git_commit": session.git_commit,
        "environment": session.environment, "config": session.config,
    }


def run_dict(run: RunRecord) -> dict:
    return {
        "benchmark": run.benchmark, "variant": run.variant, "param": run.param,
        "options": run.options, "cores": run.cores, "cpus": run.cpus, "run_index": run.run_index,
        "status": str(run.status), "reason": None if run.reason is None else str(run.reason),
        "stall": run.stall, "message": run.message,
        "wall_ns": run.wall_ns, "user_ns": run.user_ns, "sys_ns": run.sys_ns,
        "cpu_utilisation": run.cpu_utilisation,
        "max_rss_bytes": run.max_rss_bytes, "max_rss_source": run.max_rss_source,
        "max_rss_missing": run.max_rss_missing, "rss_peak_sampled_bytes": run.rss_peak_sampled_bytes,
        "threads_max": run.threads_max, "voluntary_switches": run.voluntary_switches,
        "involuntary_switches": run.involuntary_switches, "exit_code": run.exit_code, "signal": run.signal,
        "hello": run.hello,
        "iterations": [
            {"index": it.index, "ns": it.ns, "result": it.result, "verified": it.verdict == Verdict.VERIFIED,
             "verdict": it.verdict, "warmup": it.warmup}
            for it in run.iterations
        ],
        "metrics": run.metrics,
        "stderr_tail": run.stderr_tail,
    }


def to_json(session: SessionRecord, runs: list[RunRecord]) -> str:
    document = {"format_version": JSON_FORMAT_VERSION, "session": _session_dict(session),
                "runs": [run_dict(run) for run in runs]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


CSV_COLUMNS = (
    "session", "benchmark", "variant", "param", "options", "cores", "run_index", "status", "reason", "stall",
    "wall_ns", "user_ns", "sys_ns", "max_rss_bytes", "rss_peak_sampled_bytes", "threads_max",
    "iteration", "ns", "result", "verdict", "warmup",
)


def to_csv(session: SessionRecord, runs: list[RunRecord]) -> str:
    """Long form: one row per iteration (a run without iterations still gets one row)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for run in runs:
        head = [session.id, run.benchmark, run.variant, run.param,
                " ".join(f"{k}={v}" for k, v in sorted(run.options.items())), run.cores, run.run_index,
                str(run.status), run.reason or "", "" if run.stall is None else int(run.stall),
                run.wall_ns, run.user_ns, run.sys_ns, run.max_rss_bytes, run.rss_peak_sampled_bytes,
                run.threads_max]
        head = ["" if v is None else v for v in head]
        if not run.iterations:
            writer.writerow(head + ["", "", "", "", ""])
        for it in run.iterations:
            writer.writerow(head + [it.index, it.ns, it.result, it.verdict, int(it.warmup)])
    return out.getvalue()


def to_markdown(session: SessionRecord, rows: list[SeriesSummary]) -> str:
    lines = [f"## concbench session {session.id} ({session.status}, {session.started_at})", ""]
    env = session.environment
    lines.append(f"{env.get('cpu_model')}, {len(env.get('cpus_allowed') or [])} CPUs, kernel {env.get('kernel')}"
                 + (f", commit `{session.git_commit}`" if session.git_commit else ""))
    lines.append("")
    lines.append("| benchmark | variant [shape] | param | cores | runs | n | median | mean ± 95% CI | CV | result | threads | peak RSS |")
    lines.append("|---|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|")
    for row in rows:
        s = row.stats
        runs = " ".join(f"{k}×{v}" for k, v in sorted(row.statuses.items()))
        if s is not None:
            half = None if s.ci_high is None else (s.ci_high - s.ci_low) / 2
            mean = fmt_ns(s.mean) + ("" if half is None else f" ± {fmt_ns(half, s.mean)}")
            figures = [str(s.n), fmt_ns(s.median), mean, fmt_pct(s.cv)]
        else:
            figures = ["0", "–", "–", "–"]
        param = row.param + (f" ({row.options})" if row.options else "")
        lines.append(
            f"| {row.benchmark} | {row.label} | {param} | {row.cores} | {runs} | " + " | ".join(figures)
            + f" | {row.verification} | {row.threads_max if row.threads_max is not None else '–'}"
            + f" | {fmt_bytes(row.max_rss_bytes)} |"
        )
    notes = [f"- {row.benchmark} {row.label} {row.param}: {note}" for row in rows for note in row.notes]
    if notes:
        lines += ["", "Notes:", *notes]
    return "\n".join(lines) + "\n"
