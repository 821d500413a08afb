"""The HTML report: one self-contained static page per session, plots inline as SVG.

No JavaScript, no network, no files beside index.html. Every table and plot carries a stable
hook for tests and scripts:

    <section class="benchmark" id="bench-fib" data-benchmark="fib">
    <figure class="plot" data-plot="time-fib">        time against the parameter
    <figure class="plot" data-plot="box-fib">         measured iterations per series
    <table class="summary" data-benchmark="fib">       the terminal's summary table
    <table class="metrics" data-benchmark="…">         metrics the implementations reported, if any
    <figure class="plot" data-plot="scaling-fib">     speedup and efficiency against cores
    <table class="scaling" data-benchmark="fib">
    <figure class="plot" data-plot="growth-…">        seconds per task against N, log-log
    <table class="growth" data-benchmark="…">
    <figure class="plot" data-plot="timeseries-fib-3" data-run="3" data-status="timeout">
    <table class="comparison" data-benchmark="fib">
    <section class="notes" id="notes">: tables failures, timeouts, skipped, warnings
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from string import Template

from ..analysis.best import best_pairs
from ..analysis.choice import named_pairs, runs_to_draw
from ..analysis.explain import Diagnosis, diagnose
from ..analysis.growth import growth_series
from ..analysis.scaling import ScalingTable, scaling_tables
from ..analysis.stats import Summary
from ..analysis.summary import SeriesSummary, summarise
from ..analysis.variants import PairComparison
from ..spec.catalog import Benchmark, Catalog, value_order
from ..storing.files import write_whole
from ..storing.records import RunRecord, RunStatus, SessionRecord, options_text, series_label
from . import plots
from .render import to_html
from .tables import (
    EXPLAIN_NOTE,
    best_table,
    comparison_table,
    compute_table,
    explain_table,
    failures_table,
    findings_table,
    growth_table,
    metrics_table,
    scaling_table,
    skipped_table,
    summary_table,
    timeouts_table,
    warnings_table,
)
from .units import fmt_bytes, fmt_ns

# The page's frame and its style sheet are package data (report/assets), filled in per session.
_ASSETS = resources.files("concbench.report") / "assets"
_PAGE = Template((_ASSETS / "page.html").read_text(encoding="utf-8"))
_CSS = (_ASSETS / "report.css").read_text(encoding="utf-8")

MAX_SCALING_PANELS = 4              # the largest parameters get a speedup/efficiency row each
MAX_DIAGNOSES = 16                  # sweeps diagnosed per benchmark on the page (`concbench explain` has all)
MAX_BOX_PANELS = 12                 # the largest parameters get a box panel each



# -- small helpers -------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)



def _numeric(param: str) -> float | None:
    try:
        value = float(param)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _model(variant: str) -> str:
    return variant.split("/")[-1]


def _cpu_list(cpus: Sequence[int]) -> str:
    """[0, 1, 2, 5] -> '0-2,5'."""
    parts: list[str] = []
    start: int | None = None
    prev: int | None = None
    for cpu in sorted(cpus):
        if start is None or prev is None:   # (the two are set together)
            start = prev = cpu
        elif cpu == prev + 1:
            prev = cpu
        else:
            parts.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = cpu
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(parts)


def _cores(count: int) -> str:
    return f"{count} core" if count == 1 else f"{count} cores"


def _figure(key: str, svg: str, caption: str, attrs: dict[str, str] | None = None) -> str:
    extra = "".join(f' data-{k}="{_e(v)}"' for k, v in (attrs or {}).items())
    return (f'<figure class="plot" data-plot="{_e(key)}" id="plot-{_e(plots._slug(key))}"{extra}>\n{svg}\n'
            f"<figcaption>{caption}</figcaption></figure>")


# -- the page ------------------------------------------------------------------------------


def write_html_report(out_dir: Path, session: SessionRecord, runs: list[RunRecord], catalog: Catalog,
                      comparisons: Sequence[tuple[str, str]] = (), study: object | None = None,
                      extra_sections: Sequence[tuple[str, str]] = ()) -> Path:
    """Write out_dir/index.html (creating out_dir) and return its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "index.html"
    write_whole(path, render_html(session, runs, catalog, comparisons, study, extra_sections))
    return path


def render_html(session: SessionRecord, runs: list[RunRecord], catalog: Catalog,
                comparisons: Sequence[tuple[str, str]] = (), study: object | None = None,
                extra_sections: Sequence[tuple[str, str]] = ()) -> str:
    rows = summarise(runs)
    colours = series_colours(runs, catalog)
    pairs = named_pairs(rows, comparisons)
    benchmarks = sorted({r.benchmark for r in runs}, key=lambda b: (b not in catalog.benchmarks, b))
    growth_ids = {b.id for b in catalog.benchmarks.values() if "growth_exponent" in b.derived}
    drawn: dict[int, str] = {}     # id(run) -> the anchor of its time series

    body = [_heading(session, runs, benchmarks)]
    if study is not None:
        body.append(_study(study))
    for heading, fragment in extra_sections:
        body.append(f'<section class="extra">\n<h2>{_e(heading)}</h2>\n{fragment}\n</section>')
    for benchmark in benchmarks:
        body.append(_benchmark_section(
            benchmark, catalog, [r for r in runs if r.benchmark == benchmark],
            [r for r in rows if r.benchmark == benchmark], colours,
            [p for p in pairs if p.a.benchmark == benchmark], benchmark in growth_ids, drawn))
    body.append(_notes(rows, runs, drawn))

    title = f"concbench session {session.id}"
    if study is not None:
        title += f" · {getattr(study, 'title', '')}"
    return _PAGE.substitute(title=_e(title), css=_CSS, body="\n".join(body))


def series_colours(runs: list[RunRecord], catalog: Catalog) -> dict[str, str]:
    """variant [shape] -> colour: one hue per variant, one shade of it per shape.

    Within any one benchmark the shapes of a variant get different shades (the faithful shape, listed
    first in impl.toml, gets the variant's own colour where it can); a label keeps its colour everywhere."""
    variants = sorted({r.variant for r in runs})
    hues = plots.palette(variants)
    shapes_at: dict[tuple[str, str], set[str]] = defaultdict(set)
    for run in runs:
        shapes_at[(run.variant, run.benchmark)].add(run.options.get("shape", ""))
    shade_of: dict[str, dict[str, int]] = defaultdict(dict)
    for benchmark in sorted({r.benchmark for r in runs}):
        for variant in variants:
            declared = getattr(catalog.variants.get(variant), "shapes", {}).get(benchmark, ())
            shapes = sorted(shapes_at.get((variant, benchmark), ()),
                            key=lambda s: (declared.index(s) if s in declared else len(declared), s))
            used = {shade_of[variant][s] for s in shapes if s in shade_of[variant]}
            for shape in shapes:
                if shape not in shade_of[variant]:
                    index = next(i for i in range(len(shapes) + len(used) + 1) if i not in used)
                    shade_of[variant][shape] = index
                    used.add(index)
    return {series_label(variant, shape): plots.shade(hues[variant], index)
            for variant, shades in shade_of.items() for shape, index in shades.items()}


# -- heading, environment, study -----------------------------------------------------------


def _toolchain_rows(toolchains) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if not isinstance(toolchains, dict):
        return out
    for language, info in sorted(toolchains.items()):
        if isinstance(info, dict):
            version = info.get("version") or "unknown version"
            build = info.get("build") or {}
            opt = build.get("opt") if isinstance(build, dict) else None
            text = _e(version)
            if opt:
                text += f' · build optimisation <code>-{_e(opt)}</code>'
            elif isinstance(build, dict) and build:
                text += " · default build optimisation"
            command = build.get("command") if isinstance(build, dict) else None
            if command:
                text += f' · <code>{_e(" ".join(map(str, command)) if isinstance(command, list) else command)}</code>'
        else:
            text = _e(info)
        out.append((f"toolchain {_e(language)}", text))
    return out


def _heading(session: SessionRecord, runs: list[RunRecord], benchmarks: list[str]) -> str:
    env = session.environment or {}
    cpus = env.get("cpus_allowed") or []
    cores_used = sorted({r.cores for r in runs})
    counts: defaultdict[str, int] = defaultdict(int)
    for run in runs:
        counts[str(run.status)] += 1
    when = _e(session.started_at) + (f" – {_e(session.ended_at)}" if session.ended_at else "")
    env_rows = [
        ("CPU", _e(env.get("cpu_model") or "unknown")),
        ("cores", f"{len(cpus)} allowed (CPUs {_e(_cpu_list(cpus))}) of {_e(env.get('cpus_online', '?'))} online"
                  + (f"; runs used {_e(', '.join(map(str, cores_used)))}" if cores_used else "")),
        ("memory", _e(fmt_bytes(env.get("memory_bytes")))),
        ("kernel", _e(env.get("kernel") or "unknown")),
        ("OS", _e(env.get("os") or "unknown")),
        ("machine", _e(" · ".join(str(x) for x in (env.get("machine"), env.get("hostname")) if x))),
        ("Python", _e(env.get("python") or "unknown")),
        *_toolchain_rows(env.get("toolchains")),
        ("git commit", f"<code>{_e(session.git_commit)}</code>" if session.git_commit else "unknown"),
    ]
    config = session.config or {}
    request = config.get("request") or {}
    settings = []
    if request.get("size"):
        settings.append(f"size {request['size']}")
    if config.get("runs") is not None:
        settings.append(f"{config['runs']} runs per point")
    if config.get("points") is not None:
        settings.append(f"{config['points']} points")
    if config.get("timeout_s") is not None:
        settings.append(f"timeout {config['timeout_s']} s")
    if settings:
        env_rows.append(("configuration", _e(", ".join(settings))))
    env_table = ('<table class="environment">\n<tbody>\n'
                 + "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in env_rows)
                 + "\n</tbody></table>")
    status_line = " ".join(f'<span class="status st-{_e(s)}">{_e(s)} {n}</span>' for s, n in sorted(counts.items()))
    toc = "".join(f'<li><a href="#bench-{_e(plots._slug(b))}">{_e(b)}</a></li>' for b in benchmarks)
    return (
        '<header class="session" id="session">\n'
        f"<h1>concbench · session {_e(session.id)}</h1>\n"
        f'<p class="meta"><span>{when}</span> · '
        f'<span class="status st-{_e(session.status)}">{_e(session.status)}</span>'
        f" · {len(runs)} runs: {status_line}</p>\n"
        f'<p class="command"><code>{_e(session.command)}</code></p>\n'
        f"{env_table}\n"
        f'<nav class="toc"><h2>Contents</h2><ol>{toc}<li><a href="#notes">Notes</a></li></ol></nav>\n'
        "</header>"
    )


def _study(study: object) -> str:
    parts = [f'<section class="study" id="study" data-study="{_e(getattr(study, "id", ""))}">',
             f"<h2>{_e(getattr(study, 'title', 'Study'))}</h2>", "<dl>"]
    for name in ("source", "hardware", "method"):
        value = getattr(study, name, None)
        if value:
            parts.append(f"<dt>{name}</dt><dd>{_e(value)}</dd>")
    parts.append("</dl></section>")
    return "\n".join(parts)


# -- one benchmark -------------------------------------------------------------------------


def _benchmark_section(benchmark: str, catalog: Catalog, runs: list[RunRecord], rows: list[SeriesSummary],
                       colours: dict[str, str], pairs: list[PairComparison], growth: bool,
                       drawn: dict[int, str]) -> str:
    spec = catalog.benchmarks.get(benchmark)
    param_name = spec.param_name if spec else "parameter"
    slug = plots._slug(benchmark)
    multi_cores = len({r.cores for r in runs}) > 1
    out = [f'<section class="benchmark" id="bench-{_e(slug)}" data-benchmark="{_e(benchmark)}">',
           f"<h2>{_e(benchmark)}" + (f' <span class="title">{_e(spec.title)}</span>' if spec else "") + "</h2>"]
    if spec:
        out.append(f'<p class="origin">{_e(spec.origin)} · parameter <code>{_e(param_name)}</code></p>')
    if not runs:
        out.append('<p class="empty">No runs of this benchmark in the session.</p>')
    else:
        out.append(_time_section(benchmark, rows, colours, param_name, multi_cores))
        out.append(_box_section(benchmark, rows, colours, param_name, multi_cores))
        out.append("<h3>Summary</h3>")
        out.append(_summary_table(benchmark, rows, colours, param_name, spec.metric_units if spec else {}))
        if multi_cores:
            out.append(_scaling_section(benchmark, rows, colours, param_name))
        if growth:
            out.append(_growth_section(benchmark, rows, colours, param_name))
        out.append(_timeseries_section(benchmark, runs, colours, param_name, drawn))
        out.append(_diagnosis_section(benchmark, rows, colours, spec))
        out.append(_best_section(benchmark, best_pairs(rows, catalog.faithful_shape), colours))
        if pairs:
            out.append(_comparison_section(benchmark, pairs, colours, param_name))
    out.append("</section>")
    return "\n".join(x for x in out if x)


def _line_options(rows: list[SeriesSummary]) -> set[str]:
    """Option keys that distinguish lines: those that do not hold one value across a series' points.

    A swept option (countdown's window) makes one line per value, and so does an option set for
    some parameters only (fib's cutoff at n=35), so that no line joins two different computations."""
    values = defaultdict(set)
    keys = {key for row in rows for key in row.runs[0].options if key != "shape"}
    for row in rows:
        for key in keys:
            values[(row.label, row.cores, key)].add(row.runs[0].options.get(key))
    return {key[2] for key, seen in values.items() if len(seen) > 1}


def _series_name(row: SeriesSummary, line_keys: set[str], multi_cores: bool) -> str:
    opts = options_text((k, v) for k, v in sorted(row.runs[0].options.items()) if k in line_keys)
    return row.label + (f" {opts}" if opts else "") + (f" · {_cores(row.cores)}" if multi_cores else "")


def _time_section(benchmark: str, rows: list[SeriesSummary], colours, param_name: str, multi_cores: bool) -> str:
    # Each series with its parameter as a number and its statistics.
    measured = [(r, x, r.stats) for r in rows if r.stats is not None and (x := _numeric(r.param)) is not None]
    if len({r.param for r, _, _ in measured}) < 2:
        return ""
    line_keys = _line_options(rows)
    cores_order = sorted({r.cores for r in rows})
    groups: dict[tuple, list[tuple[SeriesSummary, float, Summary]]] = defaultdict(list)
    for row, x, stats in measured:
        opts = tuple(sorted((k, v) for k, v in row.runs[0].options.items() if k in line_keys))
        groups[(row.label, opts, row.cores)].append((row, x, stats))
    lines = []
    for (label, _opts, cores), members in sorted(groups.items(), key=lambda g: (g[0][0], g[0][1], g[0][2])):
        members.sort(key=lambda m: m[1])
        style_index = cores_order.index(cores)
        lines.append(plots.Line(
            name=_series_name(members[0][0], line_keys, multi_cores), colour=colours.get(label, "#333"),
            xs=[x for _, x, _ in members], ys=[s.median for _, _, s in members],
            low=[s.median_ci_low for _, _, s in members], high=[s.median_ci_high for _, _, s in members],
            style=plots.linestyle(style_index), marker=plots.marker(style_index)))
    key = f"time-{benchmark}"
    svg = plots.time_plot(key, lines, param_name)
    caption = (f"Median time per iteration against <code>{_e(param_name)}</code>; the band is the bootstrap 95&nbsp;% "
               "interval of the median (none where a series has fewer than 3 measured iterations).")
    return f"<h3>Time against {_e(param_name)}</h3>\n" + _figure(key, svg, caption, {"benchmark": benchmark})


def _missing_reason(row: SeriesSummary) -> str:
    if row.stats is not None:
        return ""
    return row.statuses_text


def _box_section(benchmark: str, rows: list[SeriesSummary], colours, param_name: str, multi_cores: bool) -> str:
    if not rows:
        return ""
    line_keys = _line_options(rows)
    by_param: dict[str, list[SeriesSummary]] = defaultdict(list)
    for row in rows:
        by_param[row.param].append(row)
    params = sorted(by_param, key=value_order)
    omitted = max(0, len(params) - MAX_BOX_PANELS)
    params = params[omitted:]
    panels = []
    for param in params:
        members = by_param[param]
        fixed = sorted({r.options for r in members})
        title = f"{param_name} = {param}" + (f" ({fixed[0]})" if len(fixed) == 1 and fixed[0] and not line_keys else "")
        panels.append(plots.BoxPanel(title, [
            plots.Box(_series_name(r, line_keys, multi_cores), colours.get(r.label, "#333"), r.measured_ns(),
                      _missing_reason(r))
            for r in members]))
    key = f"box-{benchmark}"
    svg = plots.box_plot(key, panels)
    caption = ("Measured iterations of every finished run, warm-up left out: the box spans the quartiles, "
               "the black bar is the median, dots are single iterations (drawn when there are at most 40).")
    if omitted:
        caption += f" The {omitted} smallest values of {_e(param_name)} are left out."
    return "<h3>Iterations</h3>\n" + _figure(key, svg, caption, {"benchmark": benchmark})


def _summary_table(benchmark: str, rows: list[SeriesSummary], colours, param_name: str,
                   units: dict[str, str]) -> str:
    out = to_html(summary_table(rows, with_benchmark=False, param_name=param_name), benchmark, colours)
    for extra in (metrics_table(rows, units, param_name), compute_table(rows, with_benchmark=False, param_name=param_name)):
        if extra is not None:
            out += "\n" + to_html(extra, benchmark, colours, caption="; ".join(t for t in (extra.heading, extra.note) if t))
    return out


def _scaling_section(benchmark: str, rows: list[SeriesSummary], colours, param_name: str) -> str:
    against_seq = any(_model(r.variant) == "seq" for r in rows)
    tables = [t for t in scaling_tables(rows, "cores", against_seq) if len(t.rows) >= 2]
    if not tables:
        return ""
    by_param: dict[str, list[ScalingTable]] = defaultdict(list)
    for table in tables:
        by_param[table.rows[0].series.param].append(table)
    params = sorted(by_param, key=value_order)[-MAX_SCALING_PANELS:]
    line_keys = _line_options(rows)
    panels = []
    for param in params:
        panel = plots.ScalingPanel(f"{param_name} = {param}")
        for i, table in enumerate(sorted(by_param[param], key=lambda t: t.title)):
            first = table.rows[0].series
            # Along cores a row's efficiency is set with its factor (scaling.py).
            points = [(r, factor, efficiency) for r in table.rows
                      if (factor := r.factor) is not None and (efficiency := r.efficiency) is not None]
            if not points:
                continue
            name = _series_name(first, line_keys, False)
            colour = colours.get(first.label, "#333")
            xs: list[float] = [int(r.value) for r, _, _ in points]
            panel.speedup.append(plots.Line(
                name, colour, xs, [factor for _, factor, _ in points],
                [r.factor_ci[0] if r.factor_ci else None for r, _, _ in points],
                [r.factor_ci[1] if r.factor_ci else None for r, _, _ in points],
                style=plots.linestyle(i // len(plots._PALETTE)), marker=plots.marker(i)))
            panel.efficiency.append(plots.Line(name, colour, xs, [efficiency for _, _, efficiency in points],
                                               style=plots.linestyle(i // len(plots._PALETTE)), marker=plots.marker(i)))
        if panel.speedup:
            panels.append(panel)
    out = ["<h3>Scaling with cores</h3>"]
    if panels:
        key = f"scaling-{benchmark}"
        caption = ("Speedup = t(fewest cores) / t(cores), medians, with the bootstrap 95&nbsp;% interval of the ratio; "
                   "efficiency = speedup ÷ (cores / fewest cores). Dashed grey: ideal.")
        if len(by_param) > len(params):
            caption += f" Shown for the {len(params)} largest values of {_e(param_name)}; the table has them all."
        out.append(_figure(key, plots.scaling_plot(key, panels), caption, {"benchmark": benchmark}))
    out.append(to_html(scaling_table(tables, against_seq, param_name), benchmark, colours))
    return "\n".join(out)


def _growth_section(benchmark: str, rows: list[SeriesSummary], colours, param_name: str) -> str:
    series = sorted(growth_series(rows, {benchmark}), key=lambda s: (s.label, s.options, s.cores))
    if not series:
        return ""
    multi_cores = len({s.cores for s in series}) > 1
    cores_order = sorted({s.cores for s in series})
    lines = []
    for s in series:
        if not s.points:
            continue
        fit = s.fit
        name = s.label + (f" {s.options}" if s.options else "") + (f" · {_cores(s.cores)}" if multi_cores else "")
        exponent = "–" if fit.exponent is None else f"{fit.exponent:.2f}"
        name += f": exponent {exponent}" + (" (super-linear)" if fit.superlinear else "")
        i = cores_order.index(s.cores)
        lines.append(plots.Line(name, colours.get(s.label, "#333"), [p.n for p in s.points],
                                [p.s_per_task for p in s.points], style=plots.linestyle(i), marker=plots.marker(i)))
    out = ["<h3>Growth with N</h3>"]
    if lines:
        key = f"growth-{benchmark}"
        caption = ("Seconds per task against N, log-log. The legend gives each series' least-squares exponent of "
                   "total time against N (1 is linear); above 1.1, a last step of 1.3 or more, or a timeout flags "
                   "the series as super-linear.")
        out.append(_figure(key, plots.growth_plot(key, lines, param_name), caption, {"benchmark": benchmark}))
    out.append(to_html(growth_table(series, with_benchmark=False), benchmark, colours))
    return "\n".join(out)


def _timeseries_section(benchmark: str, runs: list[RunRecord], colours, param_name: str,
                        drawn: dict[int, str]) -> str:
    chosen, left_out = runs_to_draw(runs)
    if not chosen:
        return ""
    figures = []
    for i, run in enumerate(chosen):
        ident = run.id if run.id is not None else f"n{i}"
        key, n = f"timeseries-{benchmark}-{ident}", 1
        while f"plot-{plots._slug(key)}" in drawn.values():     # runs of several sessions may share ids
            n += 1
            key = f"timeseries-{benchmark}-{ident}-{n}"
        drawn[id(run)] = f"plot-{plots._slug(key)}"
        status = str(run.status) + (" (stalled)" if run.status == RunStatus.TIMEOUT and run.stall else "")
        title = f"{run.label} · {param_name}={run.param} · {_cores(run.cores)} · run {run.run_index} · {status}"
        svg = plots.timeseries_plot(key, title, colours.get(run.label, "#333"),
                                    [s.t_ns for s in run.samples], [s.rss_bytes for s in run.samples],
                                    [s.threads for s in run.samples])
        threads = run.threads_max if run.threads_max is not None else max(s.threads for s in run.samples)
        rss = run.max_rss_bytes if run.max_rss_bytes is not None else max(s.rss_bytes for s in run.samples)
        facts = [f"{len(run.samples)} samples", f"peak threads {threads}", f"peak RSS {fmt_bytes(rss)}"]
        if run.wall_ns is not None:
            facts.append(f"wall {fmt_ns(run.wall_ns)}")
        caption = _e(" · ".join(facts))
        figures.append(_figure(key, svg, caption, {"benchmark": benchmark, "run": str(ident), "status": str(run.status),
                                                   "variant": run.label, "param": run.param}))
    note = ""
    missing = [r for r in runs if r.status == RunStatus.TIMEOUT and not r.samples]
    if left_out or missing:
        bits = []
        if left_out:
            bits.append(f"{left_out} more timed-out runs with samples are not drawn")
        if missing:
            bits.append(f"{len(missing)} timed-out runs have no samples")
        note = f'<p class="note">{_e("; ".join(bits))}.</p>'
    return ("<h3>Memory and threads over time</h3>\n<p>Resident memory and thread count sampled from "
            "<code>/proc</code> about every 10&nbsp;ms: per variant [shape] the run with the largest "
            f"{_e(param_name)}, and every timed-out run.</p>\n"
            f'<div class="timeseries">\n' + "\n".join(figures) + "\n</div>" + note)


def _timeline(d: Diagnosis) -> plots.StateTimeline | None:
    """The thread states of the widest point's first run that has them."""
    for point in reversed(d.points):
        for run in point.series.runs:
            # The observer counts the three states in every sample it takes (launcher/observe.c).
            states = [(s.t_ns, running, sleeping, blocked) for s in run.samples
                      if (running := s.running) is not None and (sleeping := s.sleeping) is not None
                      and (blocked := s.blocked) is not None]
            if states:
                return plots.StateTimeline(
                    f"threads · {d.dimension or 'run'}={point.value} · run {run.run_index}",
                    [t for t, _, _, _ in states], [r for _, r, _, _ in states], [s for _, _, s, _ in states],
                    [b for _, _, _, b in states])
    return None


BEST_COLOURS = {"faithful": "#8c8c8c", "best": "#2a7ab0"}


def _best_section(benchmark: str, pairs, colours) -> str:
    """The paper's program against the best shape of the same model, where both ran: the table and its bars."""
    if not pairs:
        return ""
    groups = [f"{p.faithful.variant} {p.faithful.param}" + (f" ×{p.faithful.cores}" if len(pairs) > 1 else "")
              for p in pairs]
    seconds = {source: [None if getattr(p, source).stats is None else getattr(p, source).stats.median / 1e9
                        for p in pairs] for source in ("faithful", "best")}
    svg = plots.bar_plot(f"best-{benchmark}", [plots.BarPanel(benchmark, groups, seconds)], BEST_COLOURS)
    return "\n".join(["<h3>The paper's program against the best its language does</h3>",
                      to_html(best_table(pairs), benchmark, colours),
                      _figure(f"best-{benchmark}", svg, "median iteration time, faithful shape beside the best "
                              "shape of the same model (log scale)")])


def _diagnosis_section(benchmark: str, rows: list[SeriesSummary], colours, spec: Benchmark | None) -> str:
    """`concbench explain` on the page: per sweep its findings, its speedup curve and its thread states."""
    diagnoses = diagnose(rows, {benchmark: spec} if spec else {})
    if not diagnoses:
        return ""
    out = ["<h3>Diagnosis</h3>",
           "<p>Why a series scales as it does, from the evidence sampled per thread (<code>concbench explain</code>; "
           "its rules: <code>concbench explain --rules</code>). Beside each speedup curve, the thread states of the "
           "sweep's widest run: running or runnable, sleeping, blocked in the kernel.</p>",
           f'<p class="note">{_e(EXPLAIN_NOTE)}</p>']
    for i, d in enumerate(diagnoses[:MAX_DIAGNOSES]):
        label = d.points[0].series.label
        speedup = d.points[0].speedup is not None
        # Each point with its figure (its speedup, or its median time in seconds) and a number for its value.
        drawn = [(x, y) for p in d.points
                 if (y := p.speedup if speedup else (None if p.median_ns is None else p.median_ns / 1e9)) is not None
                 and (x := _numeric(p.value)) is not None]
        xs = [x for x, _ in drawn]
        ys = [y for _, y in drawn]
        key = f"diagnosis-{benchmark}-{i}"
        axis = d.dimension or (spec.param_name if spec else "parameter")
        svg = plots.diagnosis_plot(key, label, colours.get(label, "#333"), axis, xs, ys, speedup, _timeline(d))
        findings = "; ".join(str(f) for f in d.findings) or "no finding"
        out.append(f'<div class="diagnosis" data-findings="{_e(" ".join(f.rule.name for f in d.findings))}">')
        out.append(to_html(findings_table(d), benchmark, colours))
        out.append(_figure(key, svg, _e(findings), {"benchmark": benchmark}))
        out.append(to_html(explain_table(d), benchmark, colours))
        out.append("</div>")
    if len(diagnoses) > MAX_DIAGNOSES:
        out.append(f'<p class="note">{len(diagnoses) - MAX_DIAGNOSES} more sweeps: <code>concbench explain -b '
                   f'{_e(benchmark)}</code>.</p>')
    return "\n".join(out)


def _comparison_section(benchmark: str, pairs: list[PairComparison], colours, param_name: str) -> str:
    ordered = sorted(pairs, key=lambda p: (p.a.label, p.b.label, p.a.cores, value_order(p.a.param), p.a.options))
    return "<h3>Comparisons</h3>\n" + to_html(comparison_table(ordered, param_name), benchmark, colours)


# -- notes ---------------------------------------------------------------------------------


def _notes(rows: list[SeriesSummary], runs: list[RunRecord], drawn: dict[int, str]) -> str:
    out = ['<section class="notes" id="notes">', "<h2>Notes</h2>"]
    for table, none in ((failures_table(runs), "No run failed (wrong, crashed, malformed or disagreeing)."),
                        (timeouts_table(runs, drawn), "No run timed out."),
                        (skipped_table(runs), "Nothing was skipped."),
                        (warnings_table(rows), "No statistical warnings.")):
        out.append(f"<h3>{_e(table.title)}</h3>")
        if table.rows:
            out.append(to_html(table, caption=""))
            if table.note:
                out.append(f'<p class="note">{_e(table.note)}</p>')
        else:
            out.append(f'<p class="none">{_e(none)}</p>')
    out.append("</section>")
    return "\n".join(out)
