"""Every table concbench shows, each defined once as a TableModel (report/model.py): the terminal,
the Markdown export and the HTML page render these same definitions (report/render.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..analysis.growth import GrowthSeries
from ..analysis.scaling import ScalingTable
from ..analysis.stats import CV_WARN_THRESHOLD
from ..analysis.summary import COMPUTE, SeriesSummary
from ..analysis.variants import PairComparison
from ..spec.catalog import value_order
from ..storing.records import FAILED_STATUSES, RunRecord, RunStatus
from .model import MISSING, Cell, Column, Span, TableModel, cell, cells
from .units import fmt_bytes, fmt_metric, fmt_ns, fmt_p, fmt_pct

TIMES_NOTE = ("median … max: in-process iteration times (kernel only, warm-up left out); "
              "process: whole-process wall time, start-up included; CPU: (user+sys)/wall of the process")


def _series(row: SeriesSummary) -> Cell:
    return cell(row.label, series=row.label)


@dataclass(frozen=True)
class _Lead:
    """The cells that name a series: the benchmark (in a table of several), the variant [shape], the
    parameter with the options that set it apart, the cores. A table of one benchmark says once, as its
    context, the options each parameter implies (chameneos' variant and meetings) and the cores when
    every row has the same."""

    param_name: str
    with_benchmark: bool = True
    implied: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    with_cores: bool = True
    context: str = ""

    @classmethod
    def of(cls, rows: list[SeriesSummary], with_benchmark: bool, param_name: str) -> _Lead:
        if with_benchmark or not rows:
            return cls(param_name, with_benchmark)
        sets: dict[str, list[set[str]]] = defaultdict(list)
        for row in rows:
            sets[row.param].append(set(row.options.split()))
        implied = {param: tuple(sorted(set.intersection(*found))) for param, found in sets.items()}
        groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for param, options in implied.items():
            groups[options].append(param)
        if len(groups) == 1:
            said = [f"every row: {' '.join(options)}" for options in groups if options]
        else:
            said = [f"{param_name}={', '.join(sorted(params, key=value_order))}: {' '.join(options)}"
                    for options, params in groups.items() if options]
        cores = sorted({row.cores for row in rows})
        if len(cores) == 1:
            said.append(f"{cores[0]} core" + ("s" if cores[0] != 1 else ""))
        return cls(param_name, False, implied, len(cores) > 1, "; ".join(said))

    @property
    def columns(self) -> list[Column]:
        """Key columns: they stay whole, and stand in every part of a table split to fit."""
        return ([Column("benchmark", key=True)] if self.with_benchmark else []) + [
            Column("variant [shape]", key=True), Column(self.param_name, True, key=True)] + (
            [Column("cores", True, key=True)] if self.with_cores else [])

    def cells(self, row: SeriesSummary, benchmark_text: str | None = None) -> list[Cell]:
        said = self.implied.get(row.param, ())
        options = " ".join(o for o in row.options.split() if o not in said)
        param = cells(Span(row.param), *([Span(f"({options})", "options")] if options else []))
        return ([cell(row.benchmark if benchmark_text is None else benchmark_text)] if self.with_benchmark else []) + [
            _series(row), param] + ([cell(row.cores)] if self.with_cores else [])


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


def summary_table(rows: list[SeriesSummary], with_benchmark: bool = True, param_name: str = "param",
                  title: str = "") -> TableModel:
    """The session summary: one row per series, iteration statistics and whole-process figures. Where
    the terminal is narrow, the figures a reader needs least are left out first (min and max first)."""
    lead = _Lead.of(rows, with_benchmark, param_name)
    columns = (*lead.columns, Column("runs"), Column("n", True, optional=3),
               Column("median", True, key=True), Column("mean ± 95% CI", True, optional=8), Column("CV", True),
               Column("min", True, optional=9), Column("max", True, optional=10), Column("result"),
               Column("threads", True, optional=4), Column("peak RSS", True, optional=5),
               Column("CPU", True, optional=6), Column("process", True, optional=7))
    out = TableModel("summary", title, columns, note=TIMES_NOTE, context=lead.context)
    previous = None
    for row in rows:
        s = row.stats
        if s is not None:
            half = None if s.ci_low is None or s.ci_high is None else (s.ci_high - s.ci_low) / 2
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
        out.rows.append((
            *lead.cells(row, row.benchmark if row.benchmark != previous else ""), _statuses(row), *figures,
            cell(row.verification, f"verdict-{row.verification}"),
            _number(row.threads_max), cell(fmt_bytes(row.max_rss_bytes)),
            _number(row.cpu_utilisation, "{:.2f}"), cell(fmt_ns(row.process_wall_ns)),
        ))
        previous = row.benchmark
    return out


def _most_shared_point(rows: list[SeriesSummary]) -> list[SeriesSummary]:
    """The measured series of one benchmark at the point (parameter, options, cores) most of them ran,
    the largest such point on a tie: the one place where they can be ranked against each other."""
    points: dict[tuple, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        if row.stats is not None:
            points[(row.param, row.options, row.cores)].append(row)
    if not points:
        return []
    return points[max(points, key=lambda p: (len(points[p]), value_order(p[0]), p[2], p[1]))]


def _measured_median(row: SeriesSummary) -> float:
    """The median of a series the caller took only because it was measured."""
    assert row.stats is not None    # every caller keeps only rows with stats
    return row.stats.median


def _spread(slowest: float, fastest: float) -> str:
    if fastest <= 0:
        return "–"
    ratio = slowest / fastest
    return f"{ratio:.0f}×" if ratio >= 100 else f"{ratio:.1f}×" if ratio >= 10 else f"{ratio:.2f}×"


def overview_table(rows: list[SeriesSummary], param_names: Mapping[str, str]) -> TableModel:
    """A session at a glance, one row per benchmark: at the point most of its series ran, the fastest
    and the slowest series and the spread between their medians (the terminal lists the runs not ok after it)."""
    columns = (Column("benchmark", key=True), Column("at", optional=2), Column("fastest", key=True),
               Column("median", True, optional=1), Column("slowest", key=True), Column("median", True, optional=1),
               Column("spread", True, key=True))
    out = TableModel("overview", "Overview: per benchmark, the fastest and the slowest series where most of them ran",
                     columns, note="spread: the slowest median ÷ the fastest, at that point")
    by_benchmark: dict[str, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        by_benchmark[row.benchmark].append(row)
    for benchmark, members in by_benchmark.items():
        ranked = sorted(_most_shared_point(members), key=_measured_median)
        if not ranked:
            out.rows.append((cell(benchmark), *[MISSING] * 6))
            continue
        fast, slow = ranked[0], ranked[-1]
        at = cells(Span(f"{param_names.get(benchmark, 'param')}={fast.param}"),
                   *([Span(f"({fast.options})", "options")] if fast.options else []))
        fastest, slowest = _measured_median(fast), _measured_median(slow)
        out.rows.append((cell(benchmark), at, _series(fast), cell(fmt_ns(fastest)), _series(slow),
                         cell(fmt_ns(slowest)), cell(_spread(slowest, fastest))))
    return out


def metrics_table(rows: list[SeriesSummary], units: Mapping[str, str], param_name: str = "param",
                  title: str = "Reported metrics (median over finished runs)") -> TableModel | None:
    """The figures one benchmark's implementations reported (chameneos' fairness, countdown's batches),
    each in the unit the benchmark declares for it; a column per metric of this benchmark only, in the
    order the rows first report them (so metrics reported together stand together)."""
    with_metrics = [r for r in rows if r.metrics]
    if not with_metrics:
        return None
    names = list(dict.fromkeys(name for r in with_metrics for name in sorted(r.metrics)))
    lead = _Lead.of(with_metrics, False, param_name)
    columns = (*lead.columns, *(Column(n, True) for n in names))
    undeclared = [n for n in names if n not in units]
    note = (f"no unit declared for {', '.join(undeclared)}: add it under [metrics] in the benchmark's toml"
            if undeclared else "")
    out = TableModel("metrics", title, columns, note=note, context=lead.context)
    for row in with_metrics:
        out.rows.append((*lead.cells(row),
                         *(MISSING if n not in row.metrics else cell(fmt_metric(row.metrics[n], units.get(n)))
                           for n in names)))
    return out


def compute_table(rows: list[SeriesSummary], with_benchmark: bool = True,
                  param_name: str = "param") -> TableModel | None:
    """T beside C where an implementation reports C: what moving data between workers costs."""
    measured = [r for r in rows if COMPUTE in r.metrics and r.stats is not None]
    if not measured:
        return None
    lead = _Lead.of(measured, with_benchmark, param_name)
    columns = (*lead.columns, Column("T", True), Column("C", True),
               Column("T − C", True), Column("communication", True))
    out = TableModel("compute", "Total (T) and compute (C) time", columns, context=lead.context,
                     note="T: median iteration time; C: the longest worker's compute time (compute_ns, median over "
                          "runs of each run's last iteration); T − C: handing data to workers and gathering it")
    for row in measured:
        total, compute = _measured_median(row), row.metrics[COMPUTE]
        out.rows.append((*lead.cells(row), cell(fmt_ns(total)),
                         cell(fmt_ns(compute)), cell(fmt_ns(total - compute)),
                         cell(fmt_pct((total - compute) / total) if total > 0 else "–")))
    return out


def scaling_table(tables: list[ScalingTable], against_sequential: bool, param_name: str = "param") -> TableModel:
    """T, factor and efficiency of series swept over cores (or an option), one row per point."""
    dimension = tables[0].dimension if tables else "cores"
    columns = [Column("variant [shape]", key=True), Column(param_name, True, key=True), Column(dimension, True, key=True),
               Column("runs"), Column("median", True, key=True), Column("T [95% CI]", True),
               Column("factor [95% CI]", True)]
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
    """Time per task against N and the log-log exponent of total time (spawn-scaling spec)."""
    sizes = sorted({p.n for s in series for p in s.points})
    columns = (*([Column("benchmark", key=True)] if with_benchmark else []), Column("variant [shape]", key=True),
               Column("cores", True, key=True), *(Column(f"N={n}", True) for n in sizes), Column("exponent", True),
               Column("last step", True), Column("flag"))
    out = TableModel("growth", "Growth with N: time per task and the log-log exponent of total time", columns,
                     note="time per task (median time ÷ N) and the log-log exponent of total time")
    for s in series:
        by_n = {p.n: p for p in s.points}
        fit = s.fit
        flag = [Span("super-linear", "bad") if fit.superlinear else Span("linear", "good")]
        if fit.timed_out:
            flag.append(Span("(timeout)"))
        # Series that differ only in an option (scale=1, scale=2) are separate lines: name it.
        label = cells(Span(s.label), *([Span(f"({s.options})", "options")] if s.options else []), series=s.label)
        out.rows.append((*([cell(s.benchmark)] if with_benchmark else []), label, cell(s.cores),
                         *(cell(fmt_ns(by_n[n].ns_per_task)) if n in by_n else MISSING for n in sizes),
                         _number(fit.exponent, "{:.3f}"), _number(fit.local_last, "{:.3f}"), cells(*flag)))
    return out


def comparison_table(pairs: list[PairComparison], param_name: str = "param") -> TableModel:
    """`report --compare A B`: two variants' series side by side, with the thesis' z-interval rule."""
    columns = (Column("A", key=True), Column("B", key=True), Column(param_name, True, key=True),
               Column("cores", True, key=True), Column("median A", True),
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
    columns = (Column("series", key=True), Column("runs A/B", True), Column("median A", True), Column("median B", True),
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
    columns = (Column("language", key=True), Column("benchmark", key=True), Column("models"), Column("refused (exit 2)", True),
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
    """A study's grid (ours or a published table), as study.py lays it out; its first column names the row
    (a task, a language, a parameter), so a continuation of a wide grid repeats it."""
    return TableModel("study", grid.title, tuple(Column(c, key=i == 0) for i, c in enumerate(grid.columns)),
                      [tuple(cell(v) for v in row) for row in grid.rows], note=grid.note)


EXPLAIN_NOTE = ("Findings that hold at the sweep's widest point come first, then the rules' order (`concbench "
                "explain --rules`), then how far past the threshold. Speedup and efficiency against the first point; K–F e: the Karp–Flatt serial fraction; CPU: cores "
                "kept busy; delay: run delay (runnable, waiting for a CPU) per core, share of wall; switches per "
                "second per core; busy: most threads that ran within one sample after start-up; asleep: samples with no thread "
                "running; RSS: after start-up → at the end; IPC (where the machine counts it): instructions per cycle, user "
                "space, all threads. Medians over the runs that finished or timed out.")


def explain_table(diagnosis) -> TableModel:
    """One sweep of `concbench explain`: per point, its time, its scaling and the evidence behind the findings."""
    columns: tuple[Column, ...] = (
        Column(diagnosis.dimension or "point", True, key=True), Column("runs"), Column("median", True, key=True),
        Column("speedup", True), Column("efficiency", True), Column("K–F e", True), Column("CPU", True),
        Column("delay", True), Column("voluntary/s", True), Column("involuntary/s", True),
        Column("threads", True), Column("busy", True), Column("asleep", True), Column("RSS", True))
    counted = any(point.evidence.ipc is not None for point in diagnosis.points)   # a machine with a PMU
    columns += (Column("IPC", True),) if counted else ()
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
            *((_number(e.ipc, "{:.2f}"),) if counted else ()),
        ))
    return out


def findings_table(diagnosis) -> TableModel:
    """The ranked findings of one sweep, or the line that says there are none; under it, what each rule that
    fired usually means and what to try."""
    columns = (Column("#", True, key=True), Column("finding", key=True), Column("the numbers behind it"), Column("threshold crossed"),
               Column("where"), Column("rule"))
    fired = list(dict.fromkeys(f.rule for f in diagnosis.findings))
    note = " ".join(f"{rule.title}: usually {rule.means}; next: {rule.next_step}." for rule in fired)
    out = TableModel("findings", f"Findings: {diagnosis.title}", columns, note=note)
    for rank, finding in enumerate(diagnosis.findings, 1):
        title = (cells(Span(finding.rule.title, "dim"), Span(f"(not enough evidence: {finding.weak})", "dim"))
                 if finding.weak else cell(finding.rule.title, "warn"))
        out.rows.append((cell(rank), title, cell(finding.text), cell(finding.crossed), cell(finding.at),
                         cell(finding.rule.name, "dim", detail=finding.rule.fires_when)))
    if not diagnosis.findings:
        out.rows.append((MISSING, cell("no finding", "good"), cell("none of the rules fired"), MISSING, MISSING,
                         MISSING))
    return out


def rules_table(rules) -> TableModel:
    """The documented table of `concbench explain`'s rules, in rank order."""
    out = TableModel("rules", "The rules of `concbench explain`, in rank order",
                     (Column("rule"), Column("finding"), Column("fires when"), Column("usually means"),
                      Column("next step")))
    for rule in rules:
        out.rows.append((cell(rule.name), cell(rule.title), cell(rule.fires_when), cell(rule.means),
                         cell(rule.next_step)))
    return out


# -- the page's notes: what went wrong, run by run ---------------------------------------------------------

_WHO = (Column("benchmark", key=True), Column("variant [shape]", key=True))


def failures_table(runs: list[RunRecord]) -> TableModel:
    """The runs that failed (wrong, crashed, malformed, disagreeing), each with its stderr folded under it."""
    out = TableModel("failures", "Failures", (*_WHO, Column("param"), Column("cores", True), Column("run", True),
                                                Column("status"), Column("reason"), Column("message")))
    for r in runs:
        if r.status in FAILED_STATUSES:
            out.rows.append((cell(r.benchmark), cell(r.label), cell(r.param), cell(r.cores), cell(r.run_index),
                             cell(r.status, f"status-{r.status}"), cell(r.reason or ""),
                             cell(r.message, more=(r.stderr_tail, "stderr"))))
    return out


def timeouts_table(runs: list[RunRecord], drawn: Mapping[int, str]) -> TableModel:
    """The runs that timed out, with what they were doing at the end; `drawn` maps id(run) to the anchor of
    its time-series plot, where one was drawn."""
    out = TableModel("timeouts", "Timeouts", (
        *_WHO, Column("param"), Column("cores", True), Column("run", True), Column("CPU at the end"),
        Column("iterations", True), Column("wall", True), Column("threads", True), Column("peak RSS", True),
        Column("message"), Column("plot")),
        note="A stalled timeout used almost no CPU in its last seconds: a deadlock or a starved pool, not a slow run.")
    for r in runs:
        if r.status == RunStatus.TIMEOUT:
            stalled = cell("stalled", "bad") if r.stall else cell("running" if r.stall is False else "unknown")
            plot = cell("time series", link=f"#{drawn[id(r)]}") if id(r) in drawn else MISSING
            out.rows.append((cell(r.benchmark), cell(r.label), cell(r.param), cell(r.cores), cell(r.run_index),
                             stalled, cell(len(r.iterations)), cell(fmt_ns(r.wall_ns)), _number(r.threads_max),
                             cell(fmt_bytes(r.max_rss_bytes)), cell(r.message), plot))
    return out


def skipped_table(runs: list[RunRecord]) -> TableModel:
    """The runs not made because a smaller size of their series timed out, one row per series."""
    skipped = defaultdict(list)
    for r in runs:
        if r.status == RunStatus.SKIPPED:
            skipped[(r.benchmark, r.label, r.options_key, r.cores)].append(r)
    out = TableModel("skipped", "Skipped", (*_WHO, Column("cores", True), Column("params"), Column("runs", True),
                                              Column("why")))
    for (benchmark, label, _, cores), members in sorted(skipped.items()):
        params = sorted({m.param for m in members}, key=value_order)
        out.rows.append((cell(benchmark), cell(label), cell(cores), cell(", ".join(params)), cell(len(members)),
                         cell(members[0].message)))
    return out


def warnings_table(rows: list[SeriesSummary]) -> TableModel:
    """The series whose iteration times drew a statistical warning."""
    out = TableModel("warnings", "Statistical warnings", (*_WHO, Column("param"), Column("cores", True),
                                                           Column("warning")))
    for r in rows:
        if r.stats is not None and r.stats.warnings:
            out.rows.append((cell(r.benchmark), cell(r.label), cell(r.param + (f" ({r.options})" if r.options else "")),
                             cell(r.cores), cell("; ".join(w.text for w in r.stats.warnings))))
    return out


# -- `concbench list` -------------------------------------------------------------------------------------

def benchmarks_table(benchmarks: list[dict], size_sets: tuple[str, ...]) -> TableModel:
    """Each benchmark of the catalog with its size sets' parameters (the rows of `list --json`)."""
    out = TableModel("benchmarks", "Benchmarks", (Column("id", key=True), Column("category"), Column("origin"),
                                                  *(Column(s) for s in size_sets)),
                     note="each benchmark's definition: docs/benchmarks/<id>.md")
    for b in benchmarks:
        out.rows.append((cell(b["id"]), cell(b["category"]), cell(b["origin"]),
                         *(cell(" ".join(b["sizes"][s])) for s in size_sets)))
    return out


def variants_table(variants: list[dict]) -> TableModel:
    """Each variant that is not hidden: what it serves, in which program shapes, and whether it can run here."""
    out = TableModel("variants", "Variants", (Column("variant", key=True), Column("benchmarks (shapes)"),
                                              Column("status")))
    for v in variants:
        if v["hidden"]:
            continue
        served = ", ".join(f"{b} ({'/'.join(s)})" if s else b for b, s in v["benchmarks"].items())
        if not v["available"]:
            status = cells(Span("unavailable", "bad"), Span(f": {v['why_unavailable']}; {v['install']}"))
        elif v["built"]:
            status = cell("available", "good")
        else:
            status = cells(Span("available", "good"), Span("(not built yet: as its describe.json says)"))
        out.rows.append((cell(v["variant"]), cell(served), status))
    return out


# -- the faithful port beside the best shape ---------------------------------------------------------------

def best_table(pairs) -> TableModel:
    """Per benchmark and variant: the faithful port's median, the best shape's, and how many times faster
    the best is (analysis/best.py)."""
    out = TableModel("best", "The paper's program against the best its language does",
                     (Column("benchmark", key=True), Column("variant", key=True), Column("param"),
                      Column("cores", True), Column("faithful [shape]"), Column("median", True),
                      Column("best [shape]"), Column("median", True), Column("faithful ÷ best", True)),
                     note="faithful: the shape a model declares first, the paper's program; best: a best-<technique> "
                          "shape of the same model, not the paper's program; medians of measured iterations")
    for pair in pairs:
        f, b = pair.faithful, pair.best
        out.rows.append((cell(f.benchmark), cell(f.variant), _param(f), cell(f.cores), cell(f.shape),
                         _median(f), cell(b.shape), _median(b),
                         MISSING if pair.ratio is None else cell(f"{pair.ratio:.2f}×", "good" if pair.ratio > 1 else "")))
    return out


def _median(row: SeriesSummary) -> Cell:
    return MISSING if row.stats is None else cell(fmt_ns(row.stats.median))
