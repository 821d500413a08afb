"""A study's aggregates by the source's own rules (scoop-summary.md): per entrant (a language) and
family of benchmarks, the geometric mean of its times, ours and the published ones over the same
benchmarks and core counts, the overall mean of the families, and each race-free entrant's
standing against the best other race-free one.

Ours: per series the median iteration time (T) and the median of its `compute_ns` metric (C).
Theirs: read from the published tables whose layout says how (studies.py, Layout)."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.studies import Entrant, Family, Layout, PublishedTable, Study, Sweep
from .stats import geometric_mean
from .summary import COMPUTE, SeriesSummary

# (benchmark, entrant, cores or None where the source states none, "T" or "C") -> seconds
Figures = dict[tuple[str, str, int | None, str], float]



def published_number(text: str) -> float | None:
    """A figure of a published table; None where the source has none ("–", "n/a")."""
    try:
        return float(text)
    except ValueError:
        return None


def published_figures(study: Study) -> Figures:
    """The published seconds of every table with a layout."""
    out: Figures = {}
    for table in study.published:
        if table.layout == Layout.BY_CORES:
            _read_by_cores(table, out)
        elif table.layout == Layout.BY_LANGUAGE:
            _read_by_language(table, out)
    return out


def _read_by_cores(table: PublishedTable, out: Figures) -> None:
    cores = [int(c) for c in table.columns[3:]]
    for task, entrant, kind, *values in table.rows:
        for count, text in zip(cores, values):
            if (value := published_number(text)) is not None:
                out[(task, entrant, count, kind)] = value


def _read_by_language(table: PublishedTable, out: Figures) -> None:
    for task, *values in table.rows:
        for entrant, text in zip(table.columns[1:], values):
            if (value := published_number(text)) is not None:
                out[(task, entrant, None, "T")] = value


def matches(row: SeriesSummary, wanted: str) -> bool:
    """A variant ("haskell/stm") takes any of its shapes; a label ("swift/sc [actor]") just that one."""
    return row.label == wanted if "[" in wanted else row.variant == wanted


def options_of(row: SeriesSummary) -> dict[str, str]:
    """The options the series ran with, as the harness passed them (every run of a series has the same)."""
    return row.runs[0].options


def at_defaults(study: Study, row: SeriesSummary) -> bool:
    """Whether a series may stand for its variant: it leaves unset every option that one of the study's
    rebuilt tables sweeps for that variant ([published.ours]), so the variant ran as it does by default.
    Series that set it (config=none, …, even config=all) belong to those tables: a configuration other than
    the default is not the entrant, and they run at the tables' own sizes."""
    return not any(t.ours and matches(row, t.ours.variant) and t.ours.option in options_of(row)
                   for t in study.published)


@dataclass(frozen=True)
class Measured:
    """Which series stands for an entrant in a benchmark, and its figures."""

    entrant: str
    benchmark: str
    rows: tuple[SeriesSummary, ...]   # one per core count, fewest cores first


def measured(study: Study, rows: list[SeriesSummary]) -> dict[tuple[str, str], Measured]:
    """Per (benchmark, entrant): the series of the first of its family's variants that has one, at the
    variant's default options (at_defaults). Of a variant's shapes the first in report order is taken; a study
    that aggregates runs faithful shapes only."""
    out = {}
    rows = [r for r in rows if at_defaults(study, r)]
    for family in study.families:
        for entrant in study.entrants:
            for benchmark in family.benchmarks:
                for wanted in entrant.variants.get(family.name, ()):
                    found = [r for r in rows if r.benchmark == benchmark and matches(r, wanted)]
                    if found:
                        label = found[0].label
                        chosen = sorted((r for r in found if r.label == label), key=lambda r: r.cores)
                        out[(benchmark, entrant.name)] = Measured(entrant.name, benchmark, tuple(chosen))
                        break
    return out


def our_figures(study: Study, found: dict[tuple[str, str], Measured]) -> Figures:
    """Our seconds in the published keys: swept families per core count, the others at the most cores run."""
    out: Figures = {}
    for family in study.families:
        for (benchmark, entrant), m in found.items():
            if benchmark not in family.benchmarks:
                continue
            series = m.rows if family.sweep == Sweep.CORES else m.rows[-1:]
            for row in series:
                cores = row.cores if family.sweep == Sweep.CORES else None
                if row.stats is not None:
                    out[(benchmark, entrant, cores, "T")] = row.stats.median / 1e9
                if COMPUTE in row.metrics and row.metrics[COMPUTE] > 0:
                    out[(benchmark, entrant, cores, "C")] = row.metrics[COMPUTE] / 1e9
    return out


@dataclass(frozen=True)
class Mean:
    value: float | None
    count: int          # values it is the mean of
    of: int             # values the rule asks for

    @property
    def text(self) -> str:
        return self.formatted("{:.3g}")

    def formatted(self, pattern: str) -> str:
        """The value in a format ("{:.2f}"), and of how many of the values asked for where fewer."""
        if self.value is None:
            return "–"
        return pattern.format(self.value) + (f" ({self.count} of {self.of})" if self.count < self.of else "")


def _mean(figures: Figures, keys: list[tuple]) -> Mean:
    values = [figures[k] for k in keys if k in figures]
    return Mean(geometric_mean(values) if values else None, len(values), len(keys))


def swept_cores(study: Study, family: Family, ours: Figures, theirs: Figures) -> list[int]:
    """The core counts both we and the source measured: the paper's geomean is recomputed over these."""
    mine = {k[2] for k in ours if k[0] in family.benchmarks and k[2] is not None}
    published = {k[2] for k in theirs if k[0] in family.benchmarks and k[2] is not None}
    return sorted(mine & published)


def published_means(study: Study, family: Family, theirs: Figures, cores: list[int]) -> dict[str, float]:
    """The source's own T means of a family over the given core counts, per entrant it published."""
    out = {}
    for entrant in study.entrants:
        mean = _mean(theirs, _keys(family, entrant.name, cores, "T"))
        if mean.value is not None:
            out[entrant.name] = mean.value
    return out


def _keys(family: Family, entrant: str, cores: list[int], kind: str) -> list[tuple]:
    if family.sweep != Sweep.CORES:
        return [(b, entrant, None, kind) for b in family.benchmarks]
    return [(b, entrant, c, kind) for b in family.benchmarks for c in cores]


def _with_compute(figures: Figures) -> Figures:
    """C where a language reports it, else its T (the paper's rule for languages without a C column)."""
    out = dict(figures)
    for (b, e, c, kind), value in figures.items():
        if kind == "T":
            out.setdefault((b, e, c, "C"), value)
    return out


@dataclass(frozen=True)
class Standing:
    """One entrant's aggregates, ours and the source's over the same benchmarks and cores."""

    entrant: Entrant
    ours: dict[str, Mean]      # "<family>" (T), "<family> C" for swept families, "overall"
    theirs: dict[str, Mean]
    ahead_ours: float | None   # best other race-free overall ÷ this one's (2.0: twice as fast)
    ahead_ours_among_theirs: float | None   # the same, the rivals only the source's own entrants
    ahead_theirs: float | None


def _family_means(study: Study, figures: Figures, entrant: str, cores: dict[str, list[int]],
                  ours: Figures | None = None) -> dict[str, Mean]:
    """Family means; with `ours`, the source's are taken over the benchmarks (and cores) ours has, where ours has any."""
    out = {}
    compute = _with_compute(figures)
    for family in study.families:
        for kind, source, name in (("T", figures, family.name), ("C", compute, f"{family.name} C")):
            if kind == "C" and family.sweep != Sweep.CORES:
                continue
            keys = _keys(family, entrant, cores[family.name], kind)
            if ours is not None:
                present = [k for k in keys if k in ours or (kind == "C" and k[:3] + ("T",) in ours)]
                keys = present or keys
            out[name] = _mean(source, keys)
    parts = [out[f.name].value for f in study.families]
    known = [p for p in parts if p]
    out["overall"] = Mean(geometric_mean(known) if len(known) == len(parts) else None, len(known),
                          len(parts))
    return out


def _ahead(study: Study, overall: dict[str, float | None], entrant: Entrant,
           published_only: bool = False) -> float | None:
    mine = overall.get(entrant.name)
    # Other languages only: another shape of the same port is not a rival.
    others = [v for e in study.entrants if e.race_free and e.language != entrant.language and not e.shape_of
              and (e.published or not published_only) if (v := overall.get(e.name)) is not None]
    if not entrant.race_free or mine is None or not others:
        return None
    return min(others) / mine


@dataclass(frozen=True)
class Aggregates:
    """A session's figures for a study, ours and the source's, and every entrant's standing."""

    found: dict[tuple[str, str], Measured]   # (benchmark, entrant) -> the series that stands for it
    ours: Figures
    theirs: Figures
    cores: dict[str, list[int]]              # per swept family, the core counts both sides ran
    standings: list[Standing]


def aggregate(study: Study, rows: list[SeriesSummary]) -> Aggregates:
    """Every entrant's aggregates, and the core counts each swept family was averaged over."""
    found = measured(study, rows)
    ours, theirs = our_figures(study, found), published_figures(study)
    cores = {f.name: swept_cores(study, f, ours, theirs) for f in study.families}
    mine = {e.name: _family_means(study, ours, e.name, cores) for e in study.entrants}
    published = {e.name: _family_means(study, theirs, e.name, cores, ours=ours) for e in study.entrants
                 if e.published}
    overall_ours = {name: m["overall"].value for name, m in mine.items()}
    # The source's standing among its own race-free entrants, by its own figures over all it measured.
    overall_theirs = {name: m["overall"].value for name, m in published.items()}
    out = []
    for entrant in study.entrants:
        theirs_means = published.get(entrant.name, {})
        out.append(Standing(entrant, mine[entrant.name], theirs_means, _ahead(study, overall_ours, entrant),
                            _ahead(study, overall_ours, entrant, published_only=True) if entrant.published else None,
                            _ahead(study, overall_theirs, entrant) if entrant.published else None))
    return Aggregates(found, ours, theirs, cores, out)


def label_of(found: dict[tuple[str, str], Measured], benchmark: str, entrant: str) -> str:
    m = found.get((benchmark, entrant))
    return m.rows[0].label if m else ""


def rankings(study: Study, benchmark: str, cores: int | None, ours: Figures,
             theirs: Figures) -> tuple[list[str], list[str]]:
    """The entrants both sides measured in a benchmark (at a core count, or None), fastest first:
    by our times, and by the source's."""
    both = [e.name for e in study.entrants
            if (benchmark, e.name, cores, "T") in ours and (benchmark, e.name, cores, "T") in theirs]

    def fastest_first(side: Figures) -> list[str]:
        return sorted(both, key=lambda name: side[(benchmark, name, cores, "T")])

    return fastest_first(ours), fastest_first(theirs)
