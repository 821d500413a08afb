"""Terminal tables (rich): the session summary, failures, and `--compare` pairs."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..records import SessionRecord
from ..stats import CV_WARN_THRESHOLD
from .compare import PairComparison
from .growth import GrowthSeries
from .scaling import ScalingTable
from .study import Grid
from .summary import SeriesSummary
from .units import fmt_bytes, fmt_ns, fmt_p, fmt_pct

_STATUS_STYLE = {"ok": "green", "timeout": "yellow", "skipped": "dim", "wrong": "red bold",
                 "crashed": "red bold", "malformed": "red bold", "disagree": "red bold"}
_VERIFY_STYLE = {"verified": "green", "agreed": "cyan", "unverified": "yellow", "wrong": "red bold",
                 "disagree": "red bold", "none": "dim"}


def _statuses(row: SeriesSummary) -> str:
    return " ".join(f"[{_STATUS_STYLE.get(status, '')}]{text}[/]" for status, text in row.status_texts())


def session_heading(session: SessionRecord) -> str:
    env = session.environment
    cpus = env.get("cpus_allowed") or []
    return (
        f"session {session.id} · {session.started_at} · {session.status} · "
        f"{env.get('cpu_model') or 'unknown CPU'} · {len(cpus)} CPUs · kernel {env.get('kernel')}"
        + (f" · commit {session.git_commit[:12]}" if session.git_commit else "")
    )


def summary_table(rows: list[SeriesSummary], title: str = "") -> Table:
    table = Table(title=title or None, show_lines=False, header_style="bold")
    for name, justify in [("benchmark", "left"), ("variant [shape]", "left"), ("param", "right"),
                          ("cores", "right"), ("runs", "left"), ("n", "right"), ("median", "right"),
                          ("mean ± 95% CI", "right"), ("CV", "right"), ("min", "right"), ("max", "right"),
                          ("result", "left"), ("threads", "right"), ("peak RSS", "right"), ("CPU", "right"),
                          ("process", "right")]:
        table.add_column(name, justify=justify, no_wrap=name in ("median", "mean ± 95% CI"))
    previous = None
    for row in rows:
        s = row.stats
        if s is not None:
            half = None if s.ci_high is None else (s.ci_high - s.ci_low) / 2
            mean = fmt_ns(s.mean) + ("" if half is None else f" ± {fmt_ns(half, s.mean)}")
            cv_text = fmt_pct(s.cv)
            if s.cv is not None and s.cv > CV_WARN_THRESHOLD:
                cv_text = f"[yellow]{cv_text}![/]"
            figures = [str(s.n), fmt_ns(s.median), mean, cv_text, fmt_ns(s.min), fmt_ns(s.max)]
        else:
            figures = ["0", "–", "–", "–", "–", "–"]
        param = row.param + (f" ({row.options})" if row.options else "")
        table.add_row(
            row.benchmark if row.benchmark != previous else "",
            escape(row.label), escape(param), str(row.cores), _statuses(row), *figures,
            f"[{_VERIFY_STYLE[row.verification]}]{row.verification}[/]",
            "–" if row.threads_max is None else str(row.threads_max),
            fmt_bytes(row.max_rss_bytes),
            "–" if row.cpu_utilisation is None else f"{row.cpu_utilisation:.2f}",
            fmt_ns(row.process_wall_ns),
            end_section=False,
        )
        previous = row.benchmark
    return table


def notes_lines(rows: list[SeriesSummary]) -> list[str]:
    """Failures, timeouts and statistical warnings, one line each, after the table."""
    lines = []
    for row in rows:
        for note in row.notes:
            lines.append(f"{row.benchmark} {row.label} {row.param} cores={row.cores}: {note}")
    return lines


def comparison_table(pairs: list[PairComparison], variant_a: str, variant_b: str) -> Table:
    table = Table(title=f"{variant_a} (A) against {variant_b} (B)", header_style="bold")
    for name in ("benchmark", "param", "cores", "A", "B", "median A", "median B", "B/A [95% CI]",
                 "Welch p", "Mann-Whitney p", "A−B mean [z 95% CI]", "verdict"):
        table.add_column(name, justify="left" if name in ("benchmark", "A", "B", "verdict") else "right")
    for pair in pairs:
        a, b, c = pair.a, pair.b, pair.result
        medians = [fmt_ns(x.stats.median) if x.stats else "–" for x in (a, b)]
        if c is None:
            figures = ["–"] * 4
        else:
            ratio = "–" if c.ratio_of_medians is None else f"{c.ratio_of_medians:.3f}"
            if c.ratio_ci_low is not None:
                ratio += f" [{c.ratio_ci_low:.3f}, {c.ratio_ci_high:.3f}]"
            diff = fmt_ns(c.diff_of_means)
            if c.z_ci_low is not None:
                diff += f" [{fmt_ns(c.z_ci_low, c.diff_of_means)}, {fmt_ns(c.z_ci_high, c.diff_of_means)}]"
            figures = [ratio, fmt_p(c.welch_p), fmt_p(c.mannwhitney_p), diff]
        style = "bold" if c is not None and c.z_significant else "dim"
        param = a.param + (f" ({a.options})" if a.options else "")
        table.add_row(a.benchmark, escape(param), str(a.cores), escape(a.label), escape(b.label),
                      *medians, *figures, f"[{style}]{escape(pair.verdict)}[/]")
    return table


TIMES_NOTE = ("median … max: in-process iteration times (kernel only, warm-up left out); "
              "process: whole-process wall time, start-up included; CPU: (user+sys)/wall of the process")


def metrics_table(rows: list[SeriesSummary]) -> Table | None:
    """Benchmark-specific figures the implementations reported (chameneos fairness, countdown batches)."""
    with_metrics = [r for r in rows if r.metrics]
    if not with_metrics:
        return None
    out = Table(title="Reported metrics (median over finished runs)", header_style="bold", title_justify="left")
    names = sorted({name for r in with_metrics for name in r.metrics})
    for column in ("benchmark", "variant [shape]", "param", "cores", *names):
        out.add_column(escape(column), justify="left" if column in ("benchmark", "variant [shape]") else "right")
    for row in with_metrics:
        cells = [f"{row.metrics[n]:.4g}" if n in row.metrics else "–" for n in names]
        param = row.param + (f" ({row.options})" if row.options else "")
        out.add_row(row.benchmark, escape(row.label), escape(param), str(row.cores), *cells)
    return out


def print_summary(console: Console, session: SessionRecord, rows: list[SeriesSummary]) -> None:
    console.print(session_heading(session))
    console.print(summary_table(rows))
    console.print(TIMES_NOTE, highlight=False)
    metrics = metrics_table(rows)
    if metrics is not None:
        console.print(metrics)
    notes = notes_lines(rows)
    if notes:
        console.print("[bold]Notes[/]")
        for line in notes:
            console.print(f"  {line}", markup=False, highlight=False)


def _interval(ci: tuple[float, float] | None, digits: int) -> str:
    return "" if ci is None else f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def scaling_table(table: ScalingTable, against_sequential: bool) -> Table:
    out = Table(title=escape(table.title), header_style="bold", title_justify="left")
    columns = [table.dimension, "runs", "median", "T [95% CI]", "factor [95% CI]"]
    if table.dimension == "cores":
        columns.append("efficiency")
    if against_sequential:
        columns.append("vs fastest seq")
    columns += ["threads", "CPU"]
    for name in columns:
        out.add_column(name, justify="left" if name == "runs" else "right")
    for row in table.rows:
        s = row.series
        cells = [row.value, _statuses(s), fmt_ns(s.stats.median) if s.stats else "–",
                 "–" if row.t_norm is None else f"{row.t_norm:.1f}{_interval(row.t_ci, 1)}",
                 "–" if row.factor is None else f"{row.factor:.2f}{_interval(row.factor_ci, 2)}"]
        if table.dimension == "cores":
            cells.append("–" if row.efficiency is None else f"{row.efficiency:.2f}")
        if against_sequential:
            cells.append("–" if row.vs_sequential is None else f"{row.vs_sequential:.2f}")
        cells += ["–" if s.threads_max is None else str(s.threads_max),
                  "–" if s.cpu_utilisation is None else f"{s.cpu_utilisation:.2f}"]
        out.add_row(*cells)
    return out


def growth_table(series: list[GrowthSeries]) -> Table:
    out = Table(title="Growth with N: seconds per task and the log-log exponent of total time",
                header_style="bold", title_justify="left")
    sizes = sorted({p.n for s in series for p in s.points})
    for name in ["benchmark", "variant [shape]", "cores", *(f"N={n}" for n in sizes), "exponent", "last step", "flag"]:
        out.add_column(name, justify="left" if name in ("benchmark", "variant [shape]", "flag") else "right")
    for s in series:
        by_n = {p.n: p for p in s.points}
        cells = [f"{by_n[n].s_per_task:.2e}" if n in by_n else "–" for n in sizes]
        fit = s.fit
        flag = "[red bold]super-linear[/]" if fit.superlinear else "[green]linear[/]"
        if fit.timed_out:
            flag += " (timeout)"
        # Series that differ only in an option (scale=1, scale=2) are separate lines: name it.
        label = f"{s.label} ({s.options})" if s.options else s.label
        out.add_row(s.benchmark, escape(label), str(s.cores), *cells,
                    "–" if fit.exponent is None else f"{fit.exponent:.3f}",
                    "–" if fit.local_last is None else f"{fit.local_last:.3f}", flag)
    return out


def grid_table(grid: Grid) -> Table:
    out = Table(title=escape(grid.title), header_style="bold", title_justify="left")
    for column in grid.columns:
        out.add_column(escape(column))
    for row in grid.rows:
        out.add_row(*(escape(cell) for cell in row))
    return out


_CHANGE_STYLE = {"slower": "red bold", "faster": "green", "unchanged": "dim", "inconclusive": "yellow",
                 "missing": "yellow"}


def regression_table(changes, session_a: int, session_b: int, threshold: float) -> Table:
    out = Table(title=f"session {session_b} against session {session_a} (B/A over run medians; "
                      f"changes under {threshold:.0%} ignored)", header_style="bold", title_justify="left")
    for name in ("series", "runs A/B", "median A", "median B", "B/A [95% CI]", "run noise", "verdict"):
        out.add_column(name, justify="left" if name in ("series", "verdict") else "right")
    for change in changes:
        c = change.comparison
        if c is None:
            cells = ["–"] * 5
        else:
            ratio = f"{c.ratio:.3f}" + (f" [{c.ratio_low:.3f}, {c.ratio_high:.3f}]" if c.ratio_low is not None else "")
            noise = "–" if c.run_sd is None else fmt_pct(c.run_sd)
            cells = [f"{c.runs_a}/{c.runs_b}", fmt_ns(change.median_a_ns), fmt_ns(change.median_b_ns), ratio, noise]
        verdict = f"[{_CHANGE_STYLE[change.verdict]}]{change.verdict}[/]"
        if change.verdict == "inconclusive":
            verdict += f" (≈{change.runs_needed} runs each)" if change.runs_needed else " (≥ 2 runs each)"
        if change.too_short:
            verdict += " [yellow]short![/]"
        out.add_row(escape(change.label), *cells, verdict)
    return out


def check_table(rows) -> Table:
    """`concbench check`: one row per language and benchmark (conformance.Row)."""
    table = Table(title="Conformance", header_style="bold")
    for name, justify in [("language", "left"), ("benchmark", "left"), ("models", "left"),
                          ("refused (exit 2)", "right"), ("runs verified", "right"), ("metrics checked", "right"),
                          ("status", "left")]:
        table.add_column(name, justify=justify)
    previous = None
    for row in rows:
        stalls = f" ({row.stalls} stalled)" if row.stalls else ""
        table.add_row(
            row.language if row.language != previous else "", row.benchmark, ", ".join(sorted(row.models)),
            f"{row.rejections_passed}/{row.rejections}", f"{row.runs_passed}/{row.runs}{stalls}",
            str(row.metrics_checked), "[green]pass[/]" if row.passed else f"[red bold]FAIL[/] ({len(row.problems)})",
        )
        previous = row.language
    return table
