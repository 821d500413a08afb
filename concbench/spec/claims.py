"""A study's claims: what its source asserts, one by one, as `[[claims]]` in studies/<id>.toml.

A claim quotes the source briefly and says where (section, table), names its kind and the cells (series) it
reads, and what would make it hold: a band for a ratio, an order for a ranking, a sign per pair, a band for a
scaling exponent or speedup, an event (a stall, a crash). analysis/claim_verdicts.py gives each a verdict from a
session's runs; this module only reads and checks the declarations, so `concbench study claims` runs nothing."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from ..errors import CatalogError


class Kind(StrEnum):
    RATIO = "ratio"          # time(a) ÷ time(b) within a band
    SIGN = "sign"            # in each pair the first is faster, significantly
    RANKING = "ranking"      # each group's cells in this order, fastest first
    SCALING = "scaling"      # the exponent of time over the parameter (or cores), or a speedup, within a band
    EVENT = "event"          # the cells' runs show an event (a stall, a timeout, a crash), or never do


class Statistic(StrEnum):
    """What a cell's figure is, over its runs' measured iterations (the source's own statistic)."""

    MEAN = "mean"            # the mean iteration time (KTH: means of 100 iterations)
    MEDIAN = "median"        # the median iteration time (the Countdown thread; SCOOP/Qs, which does not say)
    MIN_WALL = "min-wall"    # the fastest run's whole-process wall time (the Encore thesis: minimum of runs)
    # The median iteration time less the compute time the run reports (compute_ns): the communication time of
    # the SCOOP/Qs paper's Table 1, the median over runs.
    COMMUNICATION = "median-communication"


class Event(StrEnum):
    TIMEOUT = "timeout"      # killed at its deadline (a stall or a too-slow run alike)
    STALL = "stall"          # killed at its deadline while using no CPU: it waited for ever
    CRASHED = "crashed"      # ended by a signal or a non-zero exit
    OOM = "oom"              # killed by the kernel's out-of-memory killer


class Axis(StrEnum):
    PARAM = "param"
    CORES = "cores"


SCALES = ("quick", "paper")   # in order: a claim testable at quick is testable at paper
RUNS_NEEDED = 3               # processes per cell below which a statistical verdict is inconclusive


@dataclass(frozen=True)
class Cell:
    """One series: a benchmark, a variant ("swift/sc") or one shape of it ("swift/sc [group]"), a parameter,
    the options it must have set (others may differ), and the cores it ran on (None: the most it ran on)."""

    benchmark: str
    variant: str
    param: str
    options: tuple[tuple[str, str], ...] = ()
    cores: int | None = None

    @property
    def name(self) -> str:
        options = " ".join(f"{k}={v}" for k, v in self.options)
        return " ".join(part for part in (self.benchmark, self.variant, self.param, options,
                                          f"{self.cores} cores" if self.cores else "") if part)


@dataclass(frozen=True)
class Claim:
    id: str
    words: str                     # the source's words, briefly
    where: str                     # section, table or line
    kind: Kind
    statistic: Statistic
    theirs: str = ""               # the source's own figure, as it gives it
    tolerance: str = ""            # where the band comes from (the source's spread or rounding)
    note: str = ""
    min_cores: int = 1             # fewer cores here: untestable here
    scale: str = "quick"           # the least scale that runs its cells meaningfully
    needs: str = ""                # what this machine lacks for it (an Encore compiler): untestable here
    command: str = ""              # where it can be tested, the command that would
    runs: int = RUNS_NEEDED        # processes each of its cells needs: more where one run's figure spreads widely
    # How far one cell's statistic moves between sessions on one machine beyond what its runs show, as the
    # standard deviation of its logarithm: the verdict's draws carry it (docs/claims.md, "Between sessions").
    session_spread: float = 0.0
    a: tuple[Cell, ...] = ()       # ratio: a ÷ b, each side one cell or the geometric mean of several
    b: tuple[Cell, ...] = ()
    band: tuple[float, float] = (0.0, math.inf)   # ratio, scaling: the band the statistic must lie in
    pairs: tuple[tuple[Cell, Cell], ...] = ()     # sign: the first of each pair faster
    groups: tuple[tuple[Cell, ...], ...] = ()     # ranking: each group fastest first
    cells: tuple[Cell, ...] = ()                  # scaling (along `axis`), event
    axis: Axis = Axis.PARAM
    measure: str = "exponent"      # scaling: "exponent" (slope of log time on log x) or "speedup" (first ÷ last)
    event: Event | None = None
    expected: bool = True          # event: seen (true) or never seen (false)

    def all_cells(self) -> tuple[Cell, ...]:
        found = [*self.a, *self.b] + [c for pair in self.pairs for c in pair]
        found += [c for group in self.groups for c in group] + list(self.cells)
        return tuple(dict.fromkeys(found))

    @property
    def cores_needed(self) -> int:
        return max([self.min_cores, *(c.cores or 0 for c in self.all_cells())])

    def beyond(self, scale: str) -> bool:
        """Whether its sizes are a larger scale's than this one."""
        return scale in SCALES and SCALES.index(self.scale) > SCALES.index(scale)

    def testable(self, scale: str, cores: int) -> bool:
        """Whether a session at this scale, on this many cores, can test it (given its cells ran)."""
        return not self.needs and not self.beyond(scale) and self.cores_needed <= cores

    @property
    def ordered_pairs(self) -> tuple[tuple[Cell, Cell], ...]:
        """The pairs a sign or ranking claim tests, the one claimed faster first: every pair of a group."""
        if self.kind == Kind.SIGN:
            return self.pairs
        return tuple((g[i], g[j]) for g in self.groups for i in range(len(g)) for j in range(i + 1, len(g)))


# The study statistic a claim takes when it does not name its own.
DEFAULT_STATISTIC = {"mean-z": Statistic.MEAN, "median-of-3-after-warmup": Statistic.MEDIAN,
                     "s-per-task": Statistic.MEAN, "encore": Statistic.MIN_WALL, "geomean": Statistic.MEDIAN}

KEYS = {"id", "words", "where", "kind", "statistic", "theirs", "tolerance", "note", "min_cores", "scale", "needs",
        "command", "runs", "benchmark", "variant", "param", "options", "cores", "a", "b", "band", "pairs", "groups",
        "cells", "axis", "measure", "event", "expected", "session_spread"}
CELL_KEYS = {"benchmark", "variant", "param", "options", "cores"}
NEEDED = {Kind.RATIO: ("a", "b", "band"), Kind.SIGN: ("pairs",), Kind.RANKING: ("groups",),
          Kind.SCALING: ("cells", "band"), Kind.EVENT: ("cells", "event")}


def _enum(vocabulary, value, where: str, key: str):
    try:
        return vocabulary(value)
    except ValueError:
        known = ", ".join(repr(str(m)) for m in vocabulary)
        raise CatalogError(f"{where}: {key} = {value!r} is not one of {known}") from None


def _cell(data, defaults: dict, where: str) -> Cell:
    """A cell from an inline table, or from a string naming only the variant (the rest from the claim)."""
    if isinstance(data, str):
        data = {"variant": data}
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: a cell is a table (benchmark, variant, param, options, cores) or a variant name")
    unknown = sorted(set(data) - CELL_KEYS)
    if unknown:
        raise CatalogError(f"{where}: a cell has unknown keys: {', '.join(unknown)} (known: {', '.join(sorted(CELL_KEYS))})")
    merged = {**defaults, **data}
    merged["options"] = {**defaults.get("options", {}), **data.get("options", {})}
    for key in ("benchmark", "variant", "param"):
        if not isinstance(merged.get(key), (str, int)) or str(merged[key]) == "":
            raise CatalogError(f"{where}: a cell without '{key}' (give it in the cell or once in the claim)")
    cores = merged.get("cores")
    if cores is not None and (not isinstance(cores, int) or cores < 1):
        raise CatalogError(f"{where}: cores = {cores!r} is not a positive whole number")
    options = tuple(sorted((str(k), str(v)) for k, v in merged["options"].items()))
    return Cell(str(merged["benchmark"]), str(merged["variant"]), str(merged["param"]), options, cores)


def _band(value, where: str) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, (int, float)) for v in value)
            or math.isnan(value[0]) or math.isnan(value[1]) or not value[0] < value[1]):
        raise CatalogError(f"{where}: band must be [low, high] with low < high (inf for no upper end)")
    return float(value[0]), float(value[1])


def spread(value, where: str) -> float:
    """A session spread: a log standard deviation, 0 or more and under 1 (a factor of e between sessions would
    leave nothing to judge)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < 1:
        raise CatalogError(f"{where}: session_spread must be a number from 0 up to (not including) 1, "
                           f"the standard deviation of a cell's log statistic between sessions")
    return float(value)


def load_claim(data: dict, study_statistic: str, where: str, session_spread: float = 0.0) -> Claim:
    if not isinstance(data, dict) or not data.get("id"):
        raise CatalogError(f"{where}: a claim without 'id'")
    where = f"{where}: claim '{data['id']}'"
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise CatalogError(f"{where}: unknown keys: {', '.join(unknown)}")
    for key in ("words", "where", "kind"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise CatalogError(f"{where}: needs '{key}', a non-empty string")
    kind = _enum(Kind, data["kind"], where, "kind")
    missing = [key for key in NEEDED[kind] if key not in data]
    if missing:
        raise CatalogError(f"{where}: a {kind} claim needs {', '.join(missing)}")
    statistic = _enum(Statistic, data.get("statistic", DEFAULT_STATISTIC.get(study_statistic, "median")),
                      where, "statistic")
    scale = data.get("scale", "quick")
    if scale not in SCALES:
        raise CatalogError(f"{where}: scale = {scale!r} is not one of {', '.join(SCALES)}")
    min_cores = data.get("min_cores", 1)
    if not isinstance(min_cores, int) or min_cores < 1:
        raise CatalogError(f"{where}: min_cores must be a positive whole number")
    runs = data.get("runs", RUNS_NEEDED)
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < RUNS_NEEDED:
        raise CatalogError(f"{where}: runs must be a whole number, at least {RUNS_NEEDED}")
    defaults = {k: data[k] for k in CELL_KEYS if k in data}
    if "options" in defaults and not isinstance(defaults["options"], dict):
        raise CatalogError(f"{where}: options must be a table")

    def cells(key: str) -> tuple[Cell, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not value:
            raise CatalogError(f"{where}: {key} must be a non-empty list")
        return tuple(_cell(c, defaults, f"{where}: {key}") for c in value)

    fields: dict = {}
    if kind == Kind.RATIO:
        fields = {side: tuple(_cell(c, defaults, f"{where}: {side}")
                            for c in (data[side] if isinstance(data[side], list) else [data[side]]))
                  for side in ("a", "b")}
        if not fields["a"] or not fields["b"]:
            raise CatalogError(f"{where}: a and b each need a cell (or a list of cells)")
        fields["band"] = _band(data["band"], where)
    elif kind == Kind.SIGN:
        pairs = []
        for pair in data["pairs"] if isinstance(data["pairs"], list) else [None]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise CatalogError(f"{where}: pairs must be a list of [faster, slower] cell pairs")
            pairs.append(tuple(_cell(c, defaults, f"{where}: pairs") for c in pair))
        if not pairs:
            raise CatalogError(f"{where}: pairs must not be empty")
        fields = {"pairs": tuple(pairs)}
    elif kind == Kind.RANKING:
        groups = data["groups"]
        if not isinstance(groups, list) or not groups or not all(isinstance(g, list) and len(g) >= 2 for g in groups):
            raise CatalogError(f"{where}: groups must be a list of lists of two or more cells, fastest first")
        fields = {"groups": tuple(tuple(_cell(c, defaults, f"{where}: groups") for c in g) for g in groups)}
    elif kind == Kind.SCALING:
        measure = data.get("measure", "exponent")
        if measure not in ("exponent", "speedup"):
            raise CatalogError(f"{where}: measure = {measure!r} is not 'exponent' or 'speedup'")
        fields = {"cells": cells("cells"), "band": _band(data["band"], where),
                  "axis": _enum(Axis, data.get("axis", "param"), where, "axis"), "measure": measure}
        if len(fields["cells"]) < 2:
            raise CatalogError(f"{where}: a scaling claim needs two or more cells")
    else:
        expected = data.get("expected", True)
        if not isinstance(expected, bool):
            raise CatalogError(f"{where}: expected must be true or false")
        fields = {"cells": cells("cells"), "event": _enum(Event, data["event"], where, "event"), "expected": expected}
    return Claim(id=str(data["id"]), words=data["words"].strip(), where=data["where"].strip(), kind=kind,
                 statistic=statistic, theirs=str(data.get("theirs", "")), tolerance=str(data.get("tolerance", "")),
                 note=str(data.get("note", "")), min_cores=min_cores, scale=scale, needs=str(data.get("needs", "")),
                 command=str(data.get("command", "")), runs=runs,
                 session_spread=spread(data.get("session_spread", session_spread), where), **fields)


def load_claims(entries, study_statistic: str, where: str, session_spread: float = 0.0) -> tuple[Claim, ...]:
    """A study's claims; `session_spread` is the study's, which a claim may replace with its own."""
    if not isinstance(entries, list):
        raise CatalogError(f"{where}: claims must be an array of tables ([[claims]])")
    claims = tuple(load_claim(entry, study_statistic, where, session_spread) for entry in entries)
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise CatalogError(f"{where}: two claims with id '{claim.id}'")
        seen.add(claim.id)
    return claims


def serves(cell: Cell, benchmark: str, variant: str, shape: str | None, param: str,
           options: dict[str, str]) -> bool:
    """Whether a planned point (its benchmark, variant, shape, parameter and options) is the cell's series, but
    for cores."""
    name, _, wanted_shape = cell.variant.partition(" [")
    return (benchmark == cell.benchmark and variant == name and param == cell.param
            and (not wanted_shape or shape == wanted_shape.rstrip("]"))
            and all(options.get(k) == v for k, v in cell.options))


def unnamed_options(cell: Cell, options: dict[str, str]) -> int:
    """How many options a series sets that the cell does not name (its shape aside): of the series a cell could
    read, the one with fewest, so that a cell leaving `config` unset reads the series run at the default, not one
    of a configuration sweep beside it."""
    named = {k for k, _ in cell.options} | {"shape"}
    return sum(1 for k in options if k not in named)
