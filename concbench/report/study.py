"""A study's own tables, computed with the source's statistic, laid beside its published figures.

Every table is a plain Grid of strings, so the terminal (rich) and the HTML report show the
same figures."""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from statistics import NormalDist

from ..analysis import configurations, geomeans
from ..analysis.growth import growth_series
from ..analysis.scaling import scaling_tables
from ..analysis.summary import COMPUTE, SeriesSummary
from ..analysis.variants import pair_series
from ..spec.studies import PublishedTable, Quantity, Statistic, Study, Sweep
from .render import to_html
from .svg import slug
from .tables import grid_table
from .units import fmt_ns

Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Grid:
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""



def _mean_z(row: SeriesSummary | None) -> str:
    """The thesis' figure: mean ± 1.96·s/√n."""
    samples = row.measured_ns() if row else []
    if len(samples) < 2:
        return "–" if not row else ", ".join(f"{k}" for k in row.statuses)
    mean = sum(samples) / len(samples)
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (len(samples) - 1))
    return f"{fmt_ns(mean)} ± {fmt_ns(Z95 * sd / math.sqrt(len(samples)), mean)}"


def _published_row(tables: list[PublishedTable], param: str) -> tuple[PublishedTable, tuple[str, ...]] | None:
    for table in tables:
        for row in table.rows:
            if row[0] == param:
                return table, row
    return None


def _theirs_columns(tables: list[PublishedTable]) -> tuple[str, ...]:
    """The published columns to lay beside ours: the release (-O) ones where the source has flags."""
    if not tables:
        return ()
    optimised = tuple(c for c in tables[0].columns[1:] if c.endswith(" -O"))
    return optimised or tables[0].columns[1:]


def mean_z_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """Per benchmark and compared pair: both means, the difference with its z-interval, theirs beside."""
    grids = []
    for variant_a, variant_b in study.compare:
        pairs = pair_series(rows, variant_a, variant_b)
        by_benchmark: dict[str, list] = defaultdict(list)
        for pair in pairs:
            by_benchmark[pair.a.benchmark].append(pair)
        for benchmark, members in sorted(by_benchmark.items()):
            published = [t for t in study.published if t.benchmark == benchmark]
            theirs = _theirs_columns(published)
            columns = ("param", "A", "B", "A mean ± z", "B mean ± z", "A − B [95% z]", "significant",
                       *(f"theirs: {c}" for c in theirs))
            out = []
            for pair in members:
                c = pair.result
                diff = "–"
                if c is not None:
                    diff = fmt_ns(c.diff_of_means)
                    if c.z_ci_low is not None:
                        diff += f" [{fmt_ns(c.z_ci_low, c.diff_of_means)}, {fmt_ns(c.z_ci_high, c.diff_of_means)}]"
                found = _published_row(published, pair.a.param)
                cells = tuple(found[1][found[0].columns.index(col)] if found and col in found[0].columns else "–"
                              for col in theirs)
                param = pair.a.param + (f" ({pair.a.options})" if pair.a.options else "")
                out.append((param, pair.a.label, pair.b.label, _mean_z(pair.a), _mean_z(pair.b), diff,
                            "yes" if c is not None and c.z_significant else "no", *cells))
            grids.append(Grid(f"{benchmark}: {variant_a} (A) − {variant_b} (B)", columns, tuple(out),
                              "significant: the difference-of-means z-interval excludes 0 (the thesis' rule)"))
    return grids


def window_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """The thread's layout: one row per swept value, one column per variant [shape], cells 'T (factor)'."""
    dimension = study.scaling or "cores"
    tables = scaling_tables(rows, dimension)
    by_benchmark: dict[str, list] = defaultdict(list)
    for table in tables:
        by_benchmark[table.rows[0].series.benchmark].append(table)
    grids = []
    for benchmark, members in sorted(by_benchmark.items()):
        labels = [f"{t.rows[0].series.label} {t.rows[0].series.param}" for t in members]
        values = sorted({r.value for t in members for r in t.rows}, key=lambda v: (len(v), v))
        cells = {(i, r.value): r for i, t in enumerate(members) for r in t.rows}
        out = []
        for value in values:
            line = [value]
            for i in range(len(members)):
                r = cells.get((i, value))
                if r is None or r.t_norm is None:
                    line.append("–")
                else:
                    line.append(f"{r.t_norm:.1f} ({r.factor:.2f})")
            out.append(tuple(line))
        medians = tuple(fmt_ns(t.rows[0].series.stats.median) if t.rows[0].series.stats else "–" for t in members)
        grids.append(Grid(f"{benchmark}: T (factor) per {dimension}; {dimension} = {values[0]} is 100",
                          (dimension, *labels), tuple(out),
                          f"absolute medians at the first {dimension}: " + ", ".join(
                              f"{label} {m}" for label, m in zip(labels, medians))))
    return grids


def per_task_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """Time per task per N for each compared label, their ratio, and each label's growth exponent."""
    grids = []
    fits = {(s.benchmark, s.label): s.fit for s in growth_series(rows, {r.benchmark for r in rows})}
    for label_a, label_b in study.compare:
        pairs = pair_series(rows, label_a, label_b)
        out = []
        for pair in sorted(pairs, key=lambda p: int(p.a.param) if p.a.param.isdigit() else 0):
            sa, sb = pair.a.stats, pair.b.stats
            n = int(pair.a.param)
            a_task = fmt_ns(sa.median / n) if sa else "–"
            b_task = fmt_ns(sb.median / n) if sb else "–"
            ratio = pair.result.ratio_of_medians if pair.result else None
            out.append((pair.a.param, a_task, b_task, "–" if ratio is None else f"{ratio:.2f}"))
        benchmark = pairs[0].a.benchmark if pairs else ""
        notes = []
        for label in (label_a, label_b):
            fit = fits.get((benchmark, label))
            if fit and fit.exponent is not None:
                notes.append(f"{label}: exponent {fit.exponent:.3f}" + (" (super-linear)" if fit.superlinear else ""))
        grids.append(Grid(f"{benchmark}: time per task, {label_b} / {label_a}",
                          ("N", f"{label_a} time/task", f"{label_b} time/task", "ratio"), tuple(out), "; ".join(notes)))
    return grids


def _process_figures(row: SeriesSummary) -> tuple[float | None, float | None, float | None]:
    """The Encore thesis' figures over whole-process runs: minimum wall, mean peak RSS, CPU of the fastest."""
    finished = [(wall, run) for run in row.runs if run.status == "ok" and (wall := run.wall_ns) is not None]
    if not finished:
        return None, None, None
    wall, fastest = min(finished, key=lambda f: f[0])
    rss = [run.max_rss_bytes for _, run in finished if run.max_rss_bytes is not None]
    return float(wall), (sum(rss) / len(rss) if rss else None), fastest.cpu_utilisation


def encore_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """Per benchmark: minimum whole-process time, mean peak RSS, CPU of the fastest run, and the speedup
    against the same series' own 1-core minimum; chameneos adds its fairness figures."""
    minimum_at: dict[tuple, float] = {}
    for row in rows:
        wall, _, _ = _process_figures(row)
        if wall is not None:
            minimum_at[(row.benchmark, row.label, row.param, row.options, row.cores)] = wall
    grids = []
    for benchmark in sorted({r.benchmark for r in rows}):
        out = []
        for row in (r for r in rows if r.benchmark == benchmark):
            wall, rss, cpu = _process_figures(row)
            one_core = minimum_at.get((row.benchmark, row.label, row.param, row.options, 1))
            speedup = f"{one_core / wall:.2f}" if wall and one_core and row.cores != 1 else "–"
            param = row.param + (f" ({row.options})" if row.options else "")
            status = "ok" if wall is not None else row.statuses_text
            out.append((row.label, param, str(row.cores), status,
                        "–" if wall is None else f"{wall / 1e9:.3f}",
                        "–" if rss is None else f"{rss / 2**20:.1f}",
                        "–" if cpu is None else f"{cpu:.2f}", speedup,
                        fmt_ns(row.stats.min) if row.stats else "–"))
        grids.append(Grid(f"{benchmark}: minimum of the whole-process runs",
                          ("variant [shape]", "param", "cores", "runs", "min wall s", "mean peak RSS MiB",
                           "CPU of fastest", "speedup vs 1 core", "min in-process"),
                          tuple(out), "this table uses whole-process times (start-up included), as the thesis did; "
                          "the last column is the in-process kernel time for comparison"))
    fairness = [r for r in rows if r.benchmark == "chameneos" and "fairness_std" in r.metrics]
    if fairness:
        names = ("fairness_std", "cv", "min_meetings", "max_meetings", "self_meetings")
        grids.append(Grid("chameneos: fairness of the scheduler (median over runs)",
                          ("variant [shape]", "param", "cores", *names),
                          tuple((r.label, r.param + (f" ({r.options})" if r.options else ""), str(r.cores),
                                 *(f"{r.metrics[n]:.4g}" if n in r.metrics else "–" for n in names))
                                for r in fairness),
                          "fairness_std: population standard deviation of per-creature meetings around 2M/C"))
    return grids


def _secs(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"


def _per_second(runs, field: str) -> float | None:
    """The median over finished runs of a whole-process count per second of its wall time."""
    rates = sorted(getattr(run, field) / (run.wall_ns / 1e9) for run in runs
                   if run.status == "ok" and getattr(run, field) is not None and run.wall_ns)
    return rates[len(rates) // 2] if rates else None


def _swept_grid(study: Study, family, found, ours, theirs) -> Grid:
    """Seconds per core count, ours beside the published, with each side's speedup over the same cores."""
    cores = sorted({k[2] for k in ours if k[0] in family.benchmarks and k[2] is not None})
    out = []
    for benchmark in family.benchmarks:
        for entrant in study.entrants:
            label = geomeans.label_of(found, benchmark, entrant.name)
            for kind in ("T", "C"):
                mine = [ours.get((benchmark, entrant.name, c, kind)) for c in cores]
                published = [theirs.get((benchmark, entrant.name, c, kind)) for c in cores]
                if kind == "C" and not any(mine) and not any(published):
                    continue
                if not label and not any(published):
                    continue
                cells = [x for pair in zip(mine, published) for x in map(_secs, pair)]
                speedups = [f"{side[0] / side[-1]:.2f}" if len(cores) > 1 and side[0] and side[-1] else "–"
                            for side in (mine, published)]
                out.append((benchmark, entrant.name, label or entrant.absent or "not measured", kind,
                            *cells, *speedups))
    columns = [x for c in cores for x in (f"{c} ours", f"{c} paper")]
    span = f"{cores[0]}→{cores[-1]}" if cores else ""
    return Grid(f"{family.name}: seconds per core count, ours beside the paper's",
                ("task", "language", "measured as", "V", *columns, f"speedup {span} ours", f"speedup {span} paper"),
                tuple(out), "V: T = total time per iteration (ours: the median; no process start-up), C = compute "
                "only, where the program reports it. Sizes may differ from the paper's: compare ranks and speedups.")


def _single_grid(study: Study, family, found, ours, theirs) -> Grid:
    """Seconds per task and language, ours beside the published, each side's rank, and the evidence behind ours."""
    out = []
    for benchmark in family.benchmarks:
        rank_ours, rank_theirs = ({name: str(i + 1) for i, name in enumerate(order)}
                                  for order in geomeans.rankings(study, benchmark, None, ours, theirs))
        for entrant in study.entrants:
            key = (benchmark, entrant.name, None, "T")
            if key not in ours and key not in theirs:
                continue
            m = found.get((benchmark, entrant.name))
            row = m.rows[-1] if m else None
            evidence: tuple[str, ...] = ("–",) * 5
            if row is not None:
                evidence = (str(row.cores), "–" if row.threads_max is None else str(row.threads_max),
                            "–" if row.cpu_utilisation is None else f"{row.cpu_utilisation:.2f}",
                            *(_rate(_per_second(row.runs, f)) for f in ("voluntary_switches", "involuntary_switches")))
            out.append((benchmark, entrant.name, row.label if row else entrant.absent or "not measured",
                        _secs(ours.get(key)), rank_ours.get(entrant.name, "–"),
                        _secs(theirs.get(key)), rank_theirs.get(entrant.name, "–"), *evidence))
    return Grid(f"{family.name}: seconds per task, ours beside the paper's",
                ("task", "language", "measured as", "ours s", "rank", "paper s", "paper rank", "cores", "threads",
                 "CPU (cores busy)", "voluntary switches/s", "involuntary switches/s"), tuple(out),
                "rank: among the languages both sides measured, 1 = fastest. CPU: process CPU time ÷ wall time; "
                "switches: whole-process context switches per second of wall time (median over runs).")


def _rate(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value / 1e3:.1f} k" if value >= 1e3 else f"{value:.0f}"


def _ranking_grid(study: Study, family, ours, theirs, cores: int | None) -> Grid:
    """Per task, the order of the languages both sides measured: where our ranking departs from the paper's."""
    out = []
    for benchmark in family.benchmarks:
        mine, published = geomeans.rankings(study, benchmark, cores, ours, theirs)
        if len(mine) < 2:
            continue
        moved = [e.name for e in study.entrants if e.name in mine and mine.index(e.name) != published.index(e.name)]
        out.append((benchmark, " < ".join(mine), " < ".join(published),
                    "same" if not moved else "differs: " + ", ".join(moved)))
    at = f" at {cores} cores" if cores else ""
    return Grid(f"{family.name}: ranking{at}, ours against the paper's", ("task", "ours (fastest first)",
                "paper", "agreement"), tuple(out), "only the languages both sides measured are ranked")


def _geomean_grid(study: Study, table: list, cores: dict[str, list[int]], theirs) -> Grid:
    columns = ["language", "race-free"]
    keys = []
    for family in study.families:
        names = [family.name] + ([f"{family.name} C"] if family.sweep == Sweep.CORES else [])
        keys += names
    for key in [*keys, "overall"]:
        columns += [f"{key} ours", f"{key} paper"]
    columns += ["ahead of best other race-free, ours", "ours, among the paper's", "paper"]
    out = []
    for standing in table:
        cells = []
        for key in [*keys, "overall"]:
            cells += [standing.ours[key].text, standing.theirs[key].text if standing.theirs else "–"]
        out.append((standing.entrant.name, "yes" if standing.entrant.race_free else "no", *cells,
                    *(f"{v:.2f}×" if v is not None else "–"
                      for v in (standing.ahead_ours, standing.ahead_ours_among_theirs, standing.ahead_theirs))))
    swept = "; ".join(f"{f.name}: {len(f.benchmarks)} tasks × cores {', '.join(map(str, cores[f.name])) or '–'}"
                      for f in study.families if f.sweep == Sweep.CORES)
    full = []
    for family in (f for f in study.families if f.sweep == Sweep.CORES):
        everything = sorted({k[2] for k in theirs if k[0] in family.benchmarks and k[2] is not None})
        printed = geomeans.published_means(study, family, theirs, everything)
        full.append(f"the paper's {family.name} T over all its core counts ({', '.join(map(str, everything))}): "
                    + ", ".join(f"{name} {value:.3g}" for name, value in printed.items()))
    return Grid("geometric means by the paper's rules, ours and the paper's over the same tasks and cores",
                tuple(columns), tuple(out),
                f"Averaged over {swept}; the other families over their tasks (k of n: fewer measured). "
                "C: compute-only time, T where a language reports none. overall = sqrt(parallel T × concurrent). "
                "ahead: the best other race-free language's overall ÷ this one's (the paper's '2×' is SCOOP/Qs "
                "against Haskell); among the paper's: the rivals only the languages the paper measured. "
                + "; ".join(full))


def geomean_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """The paper's layout (seconds per core count, seconds per task), the rankings, and its aggregates."""
    agg = geomeans.aggregate(study, rows)
    found, ours, theirs, cores = agg.found, agg.ours, agg.theirs, agg.cores
    grids = []
    for family in study.families:
        if family.sweep == Sweep.CORES:
            grids.append(_swept_grid(study, family, found, ours, theirs))
            if cores[family.name]:
                grids.append(_ranking_grid(study, family, ours, theirs, cores[family.name][-1]))
        else:
            grids.append(_single_grid(study, family, found, ours, theirs))
            grids.append(_ranking_grid(study, family, ours, theirs, None))
    grids.append(_geomean_grid(study, agg.standings, cores, theirs))
    return grids


def study_figures(study: Study, rows: list[SeriesSummary]) -> list[tuple[str, str]]:
    """(title, svg) per family of an aggregating study: per task, each language's seconds, ours beside the
    paper's, on a log scale (swept families at the most cores both sides ran)."""
    if study.statistic != Statistic.GEOMEAN:
        return []
    from . import plots  # matplotlib loads only when a page is wanted

    agg = geomeans.aggregate(study, rows)
    ours, theirs, cores = agg.ours, agg.theirs, agg.cores
    figures = []
    for family in study.families:
        at = (cores[family.name][-1] if cores[family.name] else None) if family.sweep == Sweep.CORES else None
        if family.sweep == Sweep.CORES and at is None:
            continue
        panels = []
        for benchmark in family.benchmarks:
            names = [e.name for e in study.entrants
                     if (benchmark, e.name, at, "T") in ours or (benchmark, e.name, at, "T") in theirs]
            if names:
                panels.append(plots.BarPanel(benchmark, names, {
                    "ours": [ours.get((benchmark, n, at, "T")) for n in names],
                    "paper": [theirs.get((benchmark, n, at, "T")) for n in names]}))
        if panels:
            title = f"{family.name}: seconds per language, ours beside the paper's" + (f", at {at} cores" if at else "")
            colours = plots.palette(["ours", "paper"])
            figures.append((title, plots.bar_plot(f"study-{family.name}", panels, colours)))
    return figures


def _ours_text(row: configurations.TaskRow, column: str, pattern: str) -> str:
    figure = row.ours.get(column)
    if figure is None:
        return configurations.NO_COUNTERPART
    return pattern.format(figure.value) if figure.value is not None else figure.why


def _where_ours_ran(rebuilt: configurations.Rebuilt) -> str:
    """Our parameter and cores per task, grouped, with the source's parameter where it differs."""
    paper_params = rebuilt.spec.paper_params
    groups: dict[tuple, list[str]] = defaultdict(list)
    for row in rebuilt.rows:
        if row.label:
            paper = paper_params.get(row.task, row.param)
            groups[(row.param, row.cores, paper if paper != row.param else "")].append(row.task)
    return "; ".join(f"{', '.join(tasks)} at param {param} on {cores} cores"
                     + (f" (the paper's harness: {paper})" if paper else "") for (param, cores, paper), tasks in groups.items())


def _mean_text(mean: geomeans.Mean | None, pattern: str) -> str:
    return mean.formatted(pattern) if mean else configurations.NO_COUNTERPART


def _rebuilt_grid(rebuilt: configurations.Rebuilt) -> Grid:
    """Per task, ours beside the paper's for each published column, then each side's geometric mean."""
    table, spec = rebuilt.table, rebuilt.spec
    pattern = "{:.2f}" if spec.normalise else "{:.3g}"
    columns = table.columns[1:]
    out = []
    for row in rebuilt.rows:
        cells = [x for c in columns for x in (_ours_text(row, c, pattern), row.theirs[c])]
        out.append((row.task, row.label or configurations.NOT_MEASURED, *cells))
    means = [x for c in columns for x in (_mean_text(rebuilt.ours_means[c], pattern),
                                          rebuilt.theirs_means[c].formatted(pattern))]
    out.append(("geometric mean", "", *means))
    quantity = {Quantity.TIME: "the median iteration time in seconds (no process start-up)",
                Quantity.COMMUNICATION: "communication time in seconds, T − C: the median iteration time minus the "
                                 f"median {COMPUTE} (the compute time the program reports)"}
    lacking = [c for c in columns if c not in spec.columns]
    where = _where_ours_ran(rebuilt)
    note = (f"ours: {spec.variant} with {spec.option} = "
            + ", ".join(f"{value} ({column})" for column, value in spec.columns.items())
            + f"; {quantity[spec.quantity]}"
            + ("; each row ÷ its fastest measured column (the paper's fastest may be one ours lacks)"
               if spec.normalise else "")
            + ". " + (f"{configurations.NO_COUNTERPART}: no counterpart here ({', '.join(lacking)}). "
                      if lacking else "")
            + "geometric mean: per column over the tasks both sides have (k of n where fewer). "
            + ("T ≤ C: the compute time the program reports covers its whole iteration, so no communication is "
               "left to measure; such a cell is shown, but counted in neither its column's mean nor its row's "
               "normalisation. " if any(f.why.startswith("T ≤ C") for r in rebuilt.rows for f in r.ours.values())
               else "")
            + (f"Ours ran: {where}. " if where else "") + table.note)
    return Grid(f"{table.benchmark}: {table.title}, ours beside the paper's",
                (table.columns[0], "measured as", *(x for c in columns for x in (f"{c} ours", f"{c} paper"))),
                tuple(out), note.strip())


def configuration_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """One grid per published table the study rebuilds from our series ([published.ours])."""
    return [_rebuilt_grid(configurations.rebuild(t, rows)) for t in study.published if t.ours]


# The tables of each statistic a study may name (studies.Statistic): a new one needs its entry here.
_STATISTIC_GRIDS = {
    Statistic.GEOMEAN: geomean_grids,
    Statistic.ENCORE: encore_grids,
    Statistic.MEAN_Z: mean_z_grids,
    Statistic.S_PER_TASK: per_task_grids,
    Statistic.MEDIAN_OF_3_AFTER_WARMUP: window_grids,
}


def _statistic_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    return _STATISTIC_GRIDS[study.statistic](study, rows)


def study_grids(study: Study, rows: list[SeriesSummary]) -> list[Grid]:
    """The tables of the source's statistic, then the published tables rebuilt from our series."""
    return [*_statistic_grids(study, rows), *configuration_grids(study, rows)]


def published_grid(study: Study, table: PublishedTable) -> Grid:
    return Grid(f"published ({table.benchmark}): {table.title} [{table.unit}]", table.columns, table.rows,
                f"{table.note} Source: {study.source}; {study.hardware}".strip())


def grid_html(grid: Grid, caption: bool = True) -> str:
    """The grid as an HTML table; without a caption where a heading above already names it."""
    note = f"<p class='note'>{html.escape(grid.note)}</p>" if grid.note else ""
    return to_html(grid_table(grid), caption=grid.title if caption else "") + note


CLAIM_COLUMNS = ("claim", "where", "kind", "ours", "the source's", "verdict")


def _band_text(claim) -> str:
    """What would make a claim hold, in a few words."""
    if claim.kind in ("ratio", "scaling"):
        what = "a ÷ b" if claim.kind == "ratio" else claim.measure
        return f"{what} in [{claim.band[0]:g}, {claim.band[1]:g}]"
    if claim.kind == "event":
        return f"{claim.event} {'in every run' if claim.expected else 'in no run'}"
    return f"{len(claim.ordered_pairs)} pairs, the first faster"


def claims_grid(study: Study) -> Grid:
    """`concbench study claims`: what the source claims and what would make each hold, nothing run."""
    rows = tuple((c.id, c.where, str(c.kind), c.words, _band_text(c),
                  c.theirs, c.needs or (f"{c.min_cores}+ cores" if c.min_cores > 1 else "") or f"{c.scale}")
                 for c in study.claims)
    return Grid(f"{study.id}: the source's claims", ("claim", "where", "kind", "words", "holds when", "the source's",
                                                     "testable from"), rows,
                "Each is judged on its own by `concbench study report` (docs/claims.md).")


def findings_grid(study: Study, findings) -> Grid:
    """The claims table that opens a study's report: each claim's verdict and the evidence it rests on."""
    rows = tuple((f.claim.id, f.claim.where, str(f.claim.kind), f.ours or "—", f.claim.theirs or "—",
                  f"{f.outcome}" + (f": {f.why}" if f.why and f.outcome != "reproduces" else ""))
                 for f in findings)
    counts = ", ".join(f"{n} {outcome}" for outcome, n in Counter(str(f.outcome) for f in findings).most_common())
    spreads = "/".join(f"{s:g}" for s in sorted({f.claim.session_spread for f in findings}))
    return Grid(f"{study.id}: the source's claims, one by one ({counts})", CLAIM_COLUMNS, rows,
                "Ours: the claim's statistic over the runs (processes), with its 95 % bootstrap interval, which also "
                f"carries a session spread (a cell's drift between sessions on one machine, log sd {spreads}). The "
                "verdict's p-values are corrected over the study's statistical claims (Holm, α = 0.05); docs/claims.md.")


def rerun_grid(study: Study, sessions: tuple[int, int], first, second, moved: tuple[str, ...]) -> Grid:
    """`concbench study compare`: two sessions' verdicts, claim by claim, each marked where it moved (the
    claims `agreement` found differing)."""
    earlier, later = {f.claim.id: f for f in first}, {f.claim.id: f for f in second}
    rows = []
    for claim_id in dict.fromkeys([*earlier, *later]):
        claim = (earlier.get(claim_id) or later[claim_id]).claim
        rows.append((claim_id, str(claim.kind), _verdict_text(earlier.get(claim_id)),
                     _verdict_text(later.get(claim_id)), "moved" if claim_id in moved else ""))
    a, b = sessions
    return Grid(f"{study.id}: the claims in sessions {a} and {b}", ("claim", "kind", f"session {a}", f"session {b}", ""),
                tuple(rows), "Each session judged on its own, as `concbench study report` judges it (docs/claims.md).")


def _verdict_text(finding) -> str:
    if finding is None:
        return "—"
    return f"{finding.outcome}" + (f": {finding.ours}" if finding.ours else "")


def findings_html(study: Study, findings) -> str:
    """The claims table of the HTML page: each claim linked to the section of its benchmark (its evidence), its
    per-pair figures and the series it reads folded beneath."""
    grid = findings_grid(study, findings)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in grid.columns)
    body = []
    for finding, row in zip(findings, grid.rows):
        benchmarks = dict.fromkeys(c.benchmark for c in finding.claim.all_cells())
        links = " ".join(f"<a href='#bench-{html.escape(slug(b))}'>{html.escape(b)}</a>" for b in benchmarks)
        cells = [f"<td>{html.escape(value)}</td>" for value in row]
        cells[0] = f"<td><a id='claim-{html.escape(finding.claim.id)}'></a>{html.escape(row[0])}<br>{links}</td>"
        lines = [*finding.details, *(f"series: {s}" for s in finding.series)]
        words = f"<q>{html.escape(finding.claim.words)}</q>"
        folded = (f"<details><summary>evidence</summary><ul>{''.join(f'<li>{html.escape(x)}</li>' for x in lines)}"
                  f"</ul></details>") if lines else ""
        cells[3] = f"<td>{html.escape(row[3])}{folded}</td>"
        outcome = str(finding.outcome).replace(" ", "-")
        body.append(f"<tr class='claim {outcome}' data-outcome='{html.escape(str(finding.outcome))}'>{''.join(cells)}"
                    f"</tr><tr class='words'><td colspan='{len(cells)}'>{words}</td></tr>")
    return (f"<table class='claims'><caption>{html.escape(grid.title)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table><p class='note'>{html.escape(grid.note)}</p>")
