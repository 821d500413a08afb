"""Every table concbench shows, each defined once as a TableModel (report/model.py): the terminal,
the Markdown export and the HTML page render these same definitions (report/render.py)."""

from __future__ import annotations

from ..stats import CV_WARN_THRESHOLD
from .growth import GrowthSeries
from .model import MISSING, Cell, Column, Span, TableModel, cell, cells
from .scaling import ScalingTable
from .summary import COMPUTE, SeriesSummary
from .units import fmt_bytes, fmt_ns, fmt_p, fmt_pct
from .variants import PairComparison

TIMES_NOTE = ("median … max: in-process iteration times (kernel only, warm-up left out); "
              "process: whole-process wall time, start-up included; CPU: (user+sys)/wall of the process")


def _series(row: SeriesSummary) -> Cell:
    return cell(row.label, series=row.label)


def _param(row: SeriesSummary) -> Cell:
    """The parameter, and the series' other options beside it."""
    spans = [Span(row.param)] + ([Span(f"({row.options})", "options")] if row.options else [])
    return cells(*spans)


def _statuses(row: SeriesSummary) -> Cell:
    return cells(*(Span(text, f"status-{status}") for status, text in row.status_texts()))


def _number(value: float | int | None, form: str = "{}") -> Cell:
    return MISSING if value is None else cell(form.format(value))


def _interval(value: float | None, ci: tuple[float, float] | None, digits: int) -> Cell:
    if value is None:
        return MISSING
    spans = [Span(f"{value:.{digits}f}")]
    if ci is not None:
        spans.append(Span(f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]", "interval"))
    return cells(*spans)


def _lead(with_benchmark: bool, param_name: str) -> list[Column]:
    return ([Column("benchmark")] if with_benchmark else []) + [Column("variant [shape]"), Column(param_name, True)]


def summary_table(rows: list[SeriesSummary], with_benchmark: bool = True, param_name: str = "param") -> TableModel:
    """The session summary: one row per series, iteration statistics and whole-process figures."""
    columns = (*_lead(with_benchmark, param_name), Column("cores", True), Column("runs"), Column("n", True),
               Column("median", True), Column("mean ± 95% CI", True), Column("CV", True), Column("min", True),
               Column("max", True), Column("result"), Column("threads", True), Column("peak RSS", True),
               Column("CPU", True), Column("process", True))
    out = TableModel("summary", "", columns, note=TIMES_NOTE)
    previous = None
    for row in rows:
        s = row.stats
        if s is not None:
            half = None if s.ci_high is None else (s.ci_high - s.ci_low) / 2
            mean = fmt_ns(s.mean) + ("" if half is None else f" ± {fmt_ns(half, s.mean)}")
            noisy = s.cv is not None and s.cv > CV_WARN_THRESHOLD
            cv = cell(fmt_pct(s.cv) + ("!" if noisy else ""), "warn" if noisy else "",
                      f"CV above {CV_WARN_THRESHOLD:.0%}" if noisy else "")
            median_detail = ("" if s.median_ci_low is None else "95% bootstrap interval of the median: "
                             f"{fmt_ns(s.median_ci_low, s.median)} – {fmt_ns(s.median_ci_high, s.median)}")
            figures = [cell(s.n), cell(fmt_ns(s.median), detail=median_detail), cell(mean), cv,
                       cell(fmt_ns(s.min)), cell(fmt_ns(s.max))]
        else:
            figures = [cell(0), *[MISSING] * 5]
        lead = [cell(row.benchmark if row.benchmark != previous else "")] if with_benchmark else []
        out.rows.append((
            *lead, _series(row), _param(row), cell(row.cores), _statuses(row), *figures,
            cell(row.verification, f"verdict-{row.verification}"),
            _number(row.threads_max), cell(fmt_bytes(row.max_rss_bytes)),
            _number(row.cpu_utilisation, "{:.2f}"), cell(fmt_ns(row.process_wall_ns)),
        ))
        previous = row.benchmark
    return out


def metrics_table(rows: list[SeriesSummary], with_benchmark: bool = True, param_name: str = "param") -> TableModel | None:
    """Benchmark-specific figures the implementations reported (chameneos fairness, countdown batches)."""
    with_metrics = [r for r in rows if r.metrics]
    if not with_metrics:
        return None
    names = sorted({name for r in with_metrics for name in r.metrics})
    columns = (*_lead(with_benchmark, param_name), Column("cores", True), *(Column(n, True) for n in names))
    out = TableModel("metrics", "Reported metrics (median over finished runs)", columns)
    for row in with_metrics:
        lead = [cell(row.benchmark)] if with_benchmark else []
        out.rows.append((*lead, _series(row), _param(row), cell(row.cores),
                         *(_number(row.metrics.get(n), "{:.4g}") for n in names)))
    return out


def compute_table(rows: list[SeriesSummary], with_benchmark: bool = True,
                  param_name: str = "param") -> TableModel | None:
    """T beside C where an implementation reports C: what moving data between workers costs."""
    measured = [r for r in rows if COMPUTE in r.metrics and r.stats is not None]
    if not measured:
        return None
    columns = (*_lead(with_benchmark, param_name), Column("cores", True), Column("T", True), Column("C", True),
               Column("T − C", True), Column("communication", True))
    out = TableModel("compute", "Total (T) and compute (C) time", columns,
                     note="T: median iteration time; C: the longest worker's compute time (compute_ns, median over "
                          "runs of each run's last iteration); T − C: handing data to workers and gathering it")
    for row in measured:
        total, compute = row.stats.median, row.metrics[COMPUTE]
        lead = [cell(row.benchmark)] if with_benchmark else []
        out.rows.append((*lead, _series(row), _param(row), cell(row.cores), cell(fmt_ns(total)),
                         cell(fmt_ns(compute)), cell(fmt_ns(total - compute)),
                         cell(fmt_pct((total - compute) / total) if total > 0 else "–")))
    return out


def scaling_table(tables: list[ScalingTable], against_sequential: bool, param_name: str = "param") -> TableModel:
    """T, factor and efficiency of series swept over cores (or an option), one row per point."""
    dimension = tables[0].dimension if tables else "cores"
    columns = [Column("variant [shape]"), Column(param_name, True), Column(dimension, True), Column("runs"),
               Column("median", True), Column("T [95% CI]", True), Column("factor [95% CI]", True)]
    if dimension == "cores":
        columns.append(Column("efficiency", True))
    if against_sequential:
        columns.append(Column("vs fastest seq", True))
    with_compute = any(COMPUTE in r.series.metrics for t in tables for r in t.rows)
    if with_compute:
        columns.append(Column("C", True))
    columns += [Column("threads", True), Column("CPU", True)]
    out = TableModel("scaling", f"Scaling with {dimension}", tuple(columns),
                     note=f"T = 100·t({dimension})/t(first); factor = t(first)/t({dimension}), medians of measured "
                          "iterations; intervals: bootstrap of the ratio of medians")
    for table in tables:
        for r in table.rows:
            s = r.series
            row = [_series(s), _param(s), cell(r.value), _statuses(s),
                   cell(fmt_ns(s.stats.median)) if s.stats else MISSING,
                   _interval(r.t_norm, r.t_ci, 1), _interval(r.factor, r.factor_ci, 2)]
            if dimension == "cores":
                row.append(_number(r.efficiency, "{:.2f}"))
            if against_sequential:
                row.append(_number(r.vs_sequential, "{:.2f}"))
            if with_compute:
                row.append(cell(fmt_ns(s.metrics[COMPUTE])) if COMPUTE in s.metrics else MISSING)
            row += [_number(s.threads_max), _number(s.cpu_utilisation, "{:.2f}")]
            out.rows.append(tuple(row))
    return out


def growth_table(series: list[GrowthSeries], with_benchmark: bool = True) -> TableModel:
    """Seconds per task against N and the log-log exponent of total time (spawn-scaling spec)."""
    sizes = sorted({p.n for s in series for p in s.points})
    columns = (*([Column("benchmark")] if with_benchmark else []), Column("variant [shape]"), Column("cores", True),
               *(Column(f"N={n}", True) for n in sizes), Column("exponent", True), Column("last step", True),
               Column("flag"))
    out = TableModel("growth", "Growth with N: seconds per task and the log-log exponent of total time", columns,
                     note="seconds per task (median time ÷ N) and the log-log exponent of total time")
    for s in series:
        by_n = {p.n: p for p in s.points}
        fit = s.fit
        flag = [Span("super-linear", "bad") if fit.superlinear else Span("linear", "good")]
        if fit.timed_out:
            flag.append(Span("(timeout)"))
        # Series that differ only in an option (scale=1, scale=2) are separate lines: name it.
        label = cells(Span(s.label), *([Span(f"({s.options})", "options")] if s.options else []), series=s.label)
        out.rows.append((*([cell(s.benchmark)] if with_benchmark else []), label, cell(s.cores),
                         *(cell(f"{by_n[n].s_per_task:.2e}") if n in by_n else MISSING for n in sizes),
                         _number(fit.exponent, "{:.3f}"), _number(fit.local_last, "{:.3f}"), cells(*flag)))
    return out


def comparison_table(pairs: list[PairComparison], param_name: str = "param") -> TableModel:
    """`report --compare A B`: two variants' series side by side, with the thesis' z-interval rule."""
    columns = (Column("A"), Column("B"), Column(param_name, True), Column("cores", True), Column("median A", True),
               Column("median B", True), Column("B/A [95% CI]", True), Column("Welch p", True),
               Column("Mann–Whitney p", True), Column("A−B mean [z 95% CI]", True), Column("verdict"))
    out = TableModel("comparison", "Comparisons", columns,
                     note="Ratio of medians B/A with a bootstrap interval; Welch's t-test and Mann–Whitney U; the "
                          "difference of means with the thesis' z-interval. Significant when that interval excludes 0.")
    for pair in pairs:
        a, b, c = pair.a, pair.b, pair.result
        medians = [cell(fmt_ns(x.stats.median)) if x.stats else MISSING for x in (a, b)]
        if c is None:
            figures = [MISSING] * 4
        else:
            ratio = [Span("–" if c.ratio_of_medians is None else f"{c.ratio_of_medians:.3f}")]
            if c.ratio_ci_low is not None:
                ratio.append(Span(f"[{c.ratio_ci_low:.3f}, {c.ratio_ci_high:.3f}]", "interval"))
            diff = [Span(fmt_ns(c.diff_of_means))]
            if c.z_ci_low is not None:
                diff.append(Span(f"[{fmt_ns(c.z_ci_low, c.diff_of_means)}, {fmt_ns(c.z_ci_high, c.diff_of_means)}]",
                                 "interval"))
            figures = [cells(*ratio), cell(fmt_p(c.welch_p)), cell(fmt_p(c.mannwhitney_p)), cells(*diff)]
        significant = c is not None and c.z_significant
        out.rows.append((_series(a), _series(b), _param(a), cell(a.cores), *medians, *figures,
                         cell(pair.assessment, "" if significant else "dim")))
    return out


_CHANGE_STYLE = {"slower": "bad", "faster": "good", "unchanged": "dim", "inconclusive": "warn", "missing": "warn"}


def regression_table(changes, session_a: int, session_b: int, threshold: float) -> TableModel:
    """`concbench compare A B`: each series of B against A, the run as the unit."""
    columns = (Column("series"), Column("runs A/B", True), Column("median A", True), Column("median B", True),
               Column("B/A [95% CI]", True), Column("run noise", True), Column("assessment"))
    out = TableModel("regression", f"session {session_b} against session {session_a} (B/A over run medians; "
                                   f"changes under {threshold:.0%} ignored)", columns)
    for change in changes:
        c = change.comparison
        if c is None:
            figures = [MISSING] * 5
        else:
            interval = (c.ratio_low, c.ratio_high) if c.ratio_low is not None else None
            figures = [cell(f"{c.runs_a}/{c.runs_b}"), cell(fmt_ns(change.median_a_ns)),
                       cell(fmt_ns(change.median_b_ns)), _interval(c.ratio, interval, 3),
                       MISSING if c.run_sd is None else cell(fmt_pct(c.run_sd))]
        assessment = [Span(change.assessment, _CHANGE_STYLE[change.assessment])]
        if change.assessment == "inconclusive":
            assessment.append(Span(f"(≈{change.runs_needed} runs each)" if change.runs_needed else "(≥ 2 runs each)"))
        if change.too_short:
            assessment.append(Span("short!", "warn"))
        out.rows.append((cell(change.label), *figures, cells(*assessment)))
    return out


def check_table(rows) -> TableModel:
    """`concbench check`: one row per language and benchmark (conformance.Row)."""
    columns = (Column("language"), Column("benchmark"), Column("models"), Column("refused (exit 2)", True),
               Column("runs verified", True), Column("metrics checked", True), Column("status"))
    out = TableModel("conformance", "Conformance", columns)
    previous = None
    for row in rows:
        stalls = f" ({row.stalls} stalled)" if row.stalls else ""
        out.rows.append((
            cell(row.language if row.language != previous else ""), cell(row.benchmark),
            cell(", ".join(sorted(row.models))), cell(f"{row.rejections_passed}/{row.rejections}"),
            cell(f"{row.runs_passed}/{row.runs}{stalls}"), cell(row.metrics_checked),
            cell("pass", "good") if row.passed else cells(Span("FAIL", "bad"), Span(f"({len(row.problems)})")),
        ))
        previous = row.language
    return out


def grid_table(grid) -> TableModel:
    """A study's grid (ours or a published table), as study.py lays it out."""
    return TableModel("study", grid.title, tuple(Column(c) for c in grid.columns),
                      [tuple(cell(v) for v in row) for row in grid.rows], note=grid.note)


EXPLAIN_NOTE = ("Findings that hold at the sweep's widest point come first, then the rules' order (`concbench "
                "explain --rules`), then how far past the threshold. Speedup and efficiency against the first point; K–F e: the Karp–Flatt serial fraction; CPU: cores "
                "kept busy; delay: run delay (runnable, waiting for a CPU) per core, share of wall; switches per "
                "second per core; busy: most threads that ran within one sample; asleep: samples with no thread "
                "running; RSS: after start-up → at the end. Medians over the runs that finished or timed out.")


def explain_table(diagnosis) -> TableModel:
    """One sweep of `concbench explain`: per point, its time, its scaling and the evidence behind the findings."""
    columns = (Column(diagnosis.dimension or "point", True), Column("runs"), Column("median", True),
               Column("speedup", True), Column("efficiency", True), Column("K–F e", True), Column("CPU", True),
               Column("delay", True), Column("voluntary/s", True), Column("involuntary/s", True),
               Column("threads", True), Column("busy", True), Column("asleep", True), Column("RSS", True))
    out = TableModel("explain", diagnosis.title, columns)   # EXPLAIN_NOTE is shown once, not per sweep
    for point in diagnosis.points:
        e, row = point.evidence, point.series
        rss = MISSING if e.rss_early is None else cell(f"{fmt_bytes(int(e.rss_early))} → {fmt_bytes(int(e.rss_late))}")
        out.rows.append((
            cell(point.value), _statuses(row), cell(fmt_ns(point.median_ns)), _number(point.speedup, "{:.2f}"),
            _number(point.efficiency, "{:.2f}"), _number(point.karp_flatt, "{:.2f}"), _number(e.cpu_cores, "{:.2f}"),
            MISSING if e.delay_share is None else cell(fmt_pct(e.delay_share)),
            _number(e.voluntary_rate, "{:,.0f}"), _number(e.involuntary_rate, "{:,.0f}"), _number(e.threads_peak),
            _number(e.busy_peak),
            MISSING if e.asleep_share is None else cell(fmt_pct(e.asleep_share)), rss,
        ))
    return out


def findings_table(diagnosis) -> TableModel:
    """The ranked findings of one sweep, or the line that says there are none."""
    columns = (Column("#", True), Column("finding"), Column("the numbers behind it"), Column("where"), Column("rule"))
    out = TableModel("findings", f"Findings: {diagnosis.title}", columns)
    for rank, finding in enumerate(diagnosis.findings, 1):
        out.rows.append((cell(rank), cell(finding.rule.title, "warn"), cell(finding.text), cell(finding.at),
                         cell(finding.rule.name, "dim", detail=finding.rule.fires_when)))
    if not diagnosis.findings:
        out.rows.append((MISSING, cell("no finding", "good"), cell("none of the rules fired"), MISSING, MISSING))
    return out


def rules_table(rules) -> TableModel:
    """The documented table of `concbench explain`'s rules, in rank order."""
    out = TableModel("rules", "The rules of `concbench explain`, in rank order",
                     (Column("rule"), Column("finding"), Column("fires when"), Column("usually means")))
    for rule in rules:
        out.rows.append((cell(rule.name), cell(rule.title), cell(rule.fires_when), cell(rule.means)))
    return out
