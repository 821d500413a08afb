"""Studies: presets in studies/<id>.toml that reproduce a published experiment.

A study names what to run at two scales (`quick` finishes in minutes on 2 cores, `paper` follows
the source's design), the statistic the source used, which variants to compare, and the
figures the source published, so its tables can be laid beside ours."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from ..errors import CatalogError, UsageError
from ..running.plan import Point, Request, make_plan, parse_values
from .catalog import Catalog
from .claims import Claim, load_claims, serves, spread, unnamed_options

SCALES = ("quick", "paper")
E = TypeVar("E", bound=StrEnum)


# The closed vocabularies of a study file: a value outside one is refused when the study loads.
class Statistic(StrEnum):
    """How the source summarised its runs (report/study.py draws its tables by this)."""

    MEAN_Z = "mean-z"
    MEDIAN_OF_3_AFTER_WARMUP = "median-of-3-after-warmup"
    S_PER_TASK = "s-per-task"
    ENCORE = "encore"
    GEOMEAN = "geomean"


class Quantity(StrEnum):
    """What a rebuilt table shows of a series (TableFromOurs)."""

    TIME = "time"                     # the median iteration
    COMMUNICATION = "communication"   # that minus compute_ns


class Layout(StrEnum):
    """How the study's own aggregates read a published table's figures (analysis/geomeans.py)."""

    NONE = ""                  # they do not
    BY_CORES = "by-cores"      # columns task, language, V (T or C), then one per core count
    BY_LANGUAGE = "by-language"  # columns task, then one per language (one core count, unstated)


class Sweep(StrEnum):
    """What a family is averaged over besides its benchmarks."""

    NONE = ""
    CORES = "cores"            # the core counts both sides ran


def choice(vocabulary: type[E], value: object, where: str, key: str) -> E:
    """`value` as a member of `vocabulary`, or a CatalogError naming the file, the key and the known values."""
    if isinstance(value, str):   # the members' values are strings: nothing else names one
        try:
            return vocabulary(value)
        except ValueError:
            pass
    known = ", ".join(repr(str(m)) for m in vocabulary if str(m))
    raise CatalogError(f"{where}: {key} = {value!r} is not one of {known}")


@dataclass(frozen=True)
class TableFromOurs:
    """How a published table is rebuilt from our series (analysis/configurations.py): one variant, one of its
    options, each published column standing for one value of that option."""

    variant: str                 # "swift/qs" (any of its shapes) or a label "swift/qs [separate]"
    option: str                  # the option whose values the columns are ("config")
    columns: dict[str, str]      # published column -> option value; a column left out has no counterpart here
    quantity: Quantity = Quantity.TIME
    normalise: bool = False      # each row divided by its fastest measured column, as the source's table is
    paper_params: dict[str, str] = field(default_factory=dict)   # task -> the source's parameter, where known


@dataclass(frozen=True)
class PublishedTable:
    benchmark: str
    title: str
    unit: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    layout: Layout = Layout.NONE
    ours: TableFromOurs | None = None   # [published.ours]: rebuild this table from our series
    # Cell by cell against ours: published column -> the variant (or "variant [shape]") that stands for
    # it (analysis/verdict.py); the parameter is in `param_column` (the first column unless named), and
    # only the rows whose columns hold the values of `match_rows` are laid against ours (a table of two
    # toolchains: the one we stand beside).
    match: dict[str, str] = field(default_factory=dict)
    param_column: str = ""
    match_rows: dict[str, str] = field(default_factory=dict)
    # The rows are keyed by this option's value rather than the parameter (countdown's window).
    match_option: str = ""
    # Each column relative to the row this key would have, 100 by construction (countdown's N = 1): a
    # cell's first number is the figure, and ours is 100 × our time there ÷ our time at this key.
    relative_to: str = ""
    # Transposed: the first column names an implementation, this maps each name to the variant that
    # stands for it, and the other columns are parameters ("N=500") or core counts ("2 cores", at
    # `at_param`); ours is the minimum whole-process wall time, as the Encore thesis took it.
    match_by_row: dict[str, str] = field(default_factory=dict)
    at_param: str = ""


@dataclass(frozen=True)
class Family:
    """A group of the study's benchmarks aggregated together (the paper's parallel and concurrent halves)."""

    name: str
    benchmarks: tuple[str, ...]
    sweep: Sweep = Sweep.NONE


@dataclass(frozen=True)
class Entrant:
    """One column of the source's comparison (a language) and the variants that stand for it here.
    Per family, the first of its variants with a series of a benchmark is the one measured."""

    name: str
    variants: dict[str, tuple[str, ...]]   # family -> variant labels ("haskell/stm" or "swift/sc [actor]")
    race_free: bool
    published: bool                        # the source has figures for it (else: ours only)
    absent: str = ""                       # why it may have no series here ("runtime not available here")
    shape_of: str = ""                     # another program shape of this entrant: shown beside it, never
                                           # compared with it as another language

    @property
    def language(self) -> str:
        return self.shape_of or self.name


@dataclass(frozen=True)
class StudyPart:
    """One block of the study's runs; it becomes a plan request."""

    request: Request
    deadline_s: float | None = None   # replaces the size set's per-iteration deadline


@dataclass(frozen=True)
class Study:
    id: str
    title: str
    source: str
    hardware: str
    statistic: Statistic
    method: str                          # the source's method, in words
    compare: tuple[tuple[str, str], ...]  # pairs of variant labels ("swift/sc [group]") or variants
    scaling: str | None                  # a dimension for scaling tables (window, cores)
    runs: dict[str, int]
    parts: dict[str, tuple[StudyPart, ...]]
    published: tuple[PublishedTable, ...]
    families: tuple[Family, ...] = ()
    entrants: tuple[Entrant, ...] = ()
    claims: tuple[Claim, ...] = ()          # the source's claims, each judged on its own (analysis/claim_verdicts.py)


def _part(data: dict, path: Path) -> StudyPart:
    try:
        benchmark = data["benchmark"]
    except KeyError:
        raise CatalogError(f"{path}: a part without 'benchmark'") from None
    options = tuple((str(k), parse_values(str(v), f"{path}: option {k}")) for k, v in data.get("options", {}).items())
    cores = data.get("cores")
    return StudyPart(
        Request(
            benchmarks=(benchmark,),
            variants=tuple(data.get("variants", ())),
            size=data.get("size", "quick"),
            params=tuple(str(p) for p in data.get("params", ())),
            cores=tuple(int(c) for c in cores) if cores else (),
            options=options,
            iterations=data.get("iterations"),
            warmup=data.get("warmup"),
            # a study compares the shapes a spec names, unless it wants the faithful ports only
            all_shapes=bool(data.get("all_shapes", True)),
        ),
        data.get("deadline_s"),
    )


def _names(data: dict, key: str) -> dict[str, str]:
    """A table of names to names (a published column or row -> the variant that stands for it)."""
    return {str(k): str(v) for k, v in data.get(key, {}).items()}


def _published(data: dict, path: Path) -> PublishedTable:
    table = PublishedTable(
        benchmark=data["benchmark"], title=data["title"], unit=data.get("unit", ""),
        columns=tuple(data["columns"]), rows=tuple(tuple(str(c) for c in row) for row in data["rows"]),
        note=data.get("note", ""),
        layout=choice(Layout, data.get("layout", ""), f"{path}: published table '{data['title']}'", "layout"),
        match=_names(data, "match"), param_column=str(data.get("param_column", data["columns"][0])),
        match_rows=_names(data, "match_rows"),
        match_option=str(data.get("match_option", "")), relative_to=str(data.get("relative_to", "")),
        match_by_row=_names(data, "match_by_row"),
        at_param=str(data.get("at_param", "")),
    )
    where = f"{path}: published table '{table.title}'"
    unknown = set(table.match) - set(table.columns) | ({table.param_column} & set(table.match))
    if unknown:
        raise CatalogError(f"{where}: match names no column of figures {sorted(unknown)}")
    unknown = ({table.param_column} | set(table.match_rows)) - set(table.columns)
    unknown |= set(table.match_by_row) - {row[0] for row in table.rows}
    if unknown:
        raise CatalogError(f"{where}: param_column, match_rows or match_by_row names no column or row {sorted(unknown)}")
    if "ours" not in data:
        return table
    return replace(table, ours=_table_from_ours(data["ours"], table, f"{path}: published table '{table.title}'"))


OURS_KEYS = ("variant", "option", "columns", "quantity", "normalise", "paper_params")


def _table_from_ours(data: dict, table: PublishedTable, where: str) -> TableFromOurs:
    """[published.ours], checked against the table it rebuilds: its first column names the task, the others
    are the ones ours can fill."""
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: 'ours' must be a table ([published.ours])")
    unknown = sorted(set(data) - set(OURS_KEYS))
    if unknown:
        raise CatalogError(f"{where}: [published.ours] has unknown keys: {', '.join(unknown)} "
                           f"(known: {', '.join(OURS_KEYS)})")
    for key in ("variant", "option"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise CatalogError(f"{where}: [published.ours] needs '{key}', a non-empty string")
    columns = data.get("columns")
    if not isinstance(columns, dict) or not columns:
        raise CatalogError(f"{where}: [published.ours] needs 'columns', a table of published column = option value")
    fillable = table.columns[1:]
    strangers = [c for c in columns if c not in fillable]
    if strangers:
        raise CatalogError(f"{where}: [published.ours] columns not in the table: {', '.join(strangers)} "
                           f"(its columns after '{table.columns[0]}': {', '.join(fillable)})")
    if not all(isinstance(v, str) and v for v in columns.values()):
        raise CatalogError(f"{where}: [published.ours] columns map to option values, non-empty strings")
    quantity = choice(Quantity, data.get("quantity", "time"), f"{where}: [published.ours]", "quantity")
    normalise = data.get("normalise", False)
    if not isinstance(normalise, bool):
        raise CatalogError(f"{where}: [published.ours] normalise must be true or false")
    paper_params = data.get("paper_params", {})
    tasks = [row[0] for row in table.rows]
    if not isinstance(paper_params, dict) or any(t not in tasks for t in paper_params):
        raise CatalogError(f"{where}: [published.ours] paper_params must map the table's tasks "
                           f"({', '.join(tasks)}) to parameters")
    return TableFromOurs(data["variant"], data["option"], dict(columns), quantity, normalise,
                         {task: str(param) for task, param in paper_params.items()})


def load_study(path: Path) -> Study:
    return read_study(path.read_text(encoding="utf-8"), path)


def read_study(text: str, path: Path) -> Study:
    """A study from its file's text (`path` names it in errors and gives the id it must have): the file as it
    is, or as a session stored it when it was planned (`claims_as_planned`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{path}: not valid TOML: {error}") from error
    scales = data.get("scales", {})
    missing = [s for s in SCALES if s not in scales]
    if missing:
        raise CatalogError(f"{path}: scales missing: {', '.join(missing)}")
    published = tuple(_published(t, path) for t in data.get("published", ()))
    for table in published:
        if any(len(row) != len(table.columns) for row in table.rows):
            raise CatalogError(f"{path}: published table '{table.title}' has rows of the wrong width")
    families, entrants = _lineup(data, path)
    study_id = data.get("id")
    if study_id != path.stem:
        raise CatalogError(f"{path}: id '{study_id}' does not match the file name")
    return Study(
        id=study_id,
        title=data.get("title", study_id),
        source=data.get("source", ""),
        hardware=data.get("hardware", ""),
        statistic=choice(Statistic, data.get("statistic", "mean-z"), str(path), "statistic"),
        method=data.get("method", ""),
        compare=tuple(tuple(pair) for pair in data.get("compare", ())),
        scaling=data.get("scaling"),
        runs={s: int(scales[s].get("runs", 1)) for s in SCALES},
        parts={s: tuple(_part(p, path) for p in scales[s].get("parts", ())) for s in SCALES},
        published=published,
        families=families,
        entrants=entrants,
        claims=load_claims(data.get("claims", []), data.get("statistic", "mean-z"), str(path),
                           spread(data.get("session_spread", 0.0), str(path))),
    )


def _lineup(data: dict, path: Path) -> tuple[tuple[Family, ...], tuple[Entrant, ...]]:
    """The families and entrants of a study that aggregates (statistic "geomean")."""
    families = tuple(Family(name, tuple(f.get("benchmarks", ())),
                            choice(Sweep, f.get("sweep", ""), f"{path}: [families.{name}]", "sweep"))
                     for name, f in data.get("families", {}).items())
    names = {f.name for f in families}
    entrants = []
    for e in data.get("entrants", ()):
        if "name" not in e:
            raise CatalogError(f"{path}: an entrant without 'name'")
        variants = {family: tuple(v) for family, v in e.get("variants", {}).items()}
        unknown = set(variants) - names
        if unknown:
            raise CatalogError(f"{path}: entrant '{e['name']}' names unknown families: {', '.join(sorted(unknown))}")
        entrants.append(Entrant(e["name"], variants, bool(e.get("race_free", False)), bool(e.get("published", True)),
                                e.get("absent", ""), str(e.get("shape_of", ""))))
    known = {e.name for e in entrants}
    for e in entrants:
        if e.shape_of and (e.shape_of not in known or e.published):
            raise CatalogError(f"{path}: entrant '{e.name}': shape_of must name another entrant, and a shape of "
                               "one has no published figures of its own (published = false)")
    if data.get("statistic") == Statistic.GEOMEAN and not (families and entrants):
        raise CatalogError(f"{path}: statistic 'geomean' needs [families] and [[entrants]]")
    return families, tuple(entrants)


def load_studies(root: Path) -> dict[str, Study]:
    return {s.id: s for s in (load_study(p) for p in sorted((root / "studies").glob("*.toml")))}


def study_path(root: Path, study_id: str) -> Path:
    return root / "studies" / f"{study_id}.toml"


# The key of a study session's config that keeps the study file's text as it was planned with: a claim's
# band, cells or runs edited later must not change the verdicts of the sessions run before.
STUDY_FILE = "study_file"


@dataclass(frozen=True)
class PlannedClaims:
    """The claims a session is judged by, and how they stand to today's study file."""

    claims: tuple[Claim, ...]
    planned: bool                 # the session's own (else today's file)
    changed: tuple[str, ...]      # claims whose judging differs between the two (added, removed or edited)
    note: str = ""                # why today's file judges a session that asked for its own


def _judging(claim: Claim) -> Claim:
    """A claim without the words that do not change its verdict."""
    return replace(claim, words="", where="", theirs="", tolerance="", note="", command="")


def claims_as_planned(root: Path, study: Study, config: dict, planned: bool = True) -> PlannedClaims:
    """The claims of `study` (loaded today) as the session with `config` was planned with them (`planned`),
    or today's; either way, which claims differ between the two."""
    text = config.get(STUDY_FILE)
    if text is None:
        return PlannedClaims(study.claims, False, (), "the session stored no study file (it predates them)")
    try:
        then = read_study(text, study_path(root, study.id)).claims
    except CatalogError as error:
        return PlannedClaims(study.claims, False, (), f"the session's study file no longer loads ({error})")
    before = {c.id: _judging(c) for c in then}
    now = {c.id: _judging(c) for c in study.claims}
    changed = tuple(i for i in dict.fromkeys([*before, *now]) if before.get(i) != now.get(i))
    return PlannedClaims(then if planned else study.claims, planned, changed)


def find_study(root: Path, study_id: str) -> Study:
    studies = load_studies(root)
    if study_id not in studies:
        raise UsageError(f"unknown study '{study_id}' (known: {', '.join(sorted(studies)) or 'none'})")
    return studies[study_id]


def plan_study(catalog: Catalog, study: Study, scale: str, available: set[str],
               cores_here: int) -> tuple[list[Point], list[str]]:
    """The points of a study's scale that can run here, and the variants it names that cannot.
    Core counts above this machine's are dropped (a part left with none runs on all of them). A variant
    whose build does not (yet) serve a part's benchmark is left out of that part, and said so."""
    plan: list[Point] = []
    left_out: list[str] = []
    for part in study.parts[scale]:
        benchmarks = part.request.benchmarks
        available_here = [v for v in part.request.variants if v in available]
        wanted = [v for v in available_here
                  if v not in catalog.variants or any(catalog.variants[v].serves(b) for b in benchmarks)]
        gone = [v for v in part.request.variants if v not in available]
        gone += [f"{v} for {', '.join(benchmarks)}" for v in available_here if v not in wanted]
        left_out += [v for v in gone if v not in left_out]
        if not wanted:
            continue
        cores = tuple(c for c in part.request.cores if c <= cores_here) or (cores_here,)
        points = make_plan(catalog, replace(part.request, variants=tuple(wanted), cores=cores), available)
        plan += [replace(p, deadline_s=part.deadline_s) if part.deadline_s else p for p in points]
    if not plan:
        raise UsageError(f"{study.id}: none of its variants is available here (see `concbench list`)")
    return with_claim_runs(study, scale, cores_here, plan), left_out


def with_claim_runs(study: Study, scale: str, cores_here: int, plan: list[Point]) -> list[Point]:
    """The plan with every point a claim testable here reads run as many times as the claim needs (RUNS_NEEDED
    or its own `runs`), so that each claim's verdict rests on a spread of processes; of a cell without cores,
    the widest points only."""
    wanted: dict[int, int] = {}
    for claim in study.claims:
        if not claim.testable(scale, cores_here):
            continue
        for cell in claim.all_cells():
            found = [i for i, p in enumerate(plan) if serves(cell, p.benchmark.id, p.variant.name, p.shape, p.param,
                                                             dict(p.options))
                     and (cell.cores is None or p.cores == cell.cores)]
            widest = max((plan[i].cores for i in found), default=0)
            found = [i for i in found if plan[i].cores == widest]
            fewest = min((unnamed_options(cell, dict(plan[i].options)) for i in found), default=0)
            for i in found:
                if unnamed_options(cell, dict(plan[i].options)) == fewest:
                    wanted[i] = max(wanted.get(i, 0), claim.runs)
    return [replace(p, runs=wanted[i]) if wanted.get(i, 0) > study.runs[scale] else p for i, p in enumerate(plan)]