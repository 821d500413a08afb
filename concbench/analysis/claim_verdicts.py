"""A verdict per claim (docs/claims.md): the claim's statistic from the runs of its cells, the run (one process)
as the unit, with a bootstrap interval; two one-sided p-values (that it does not hold, that it does), the smaller
corrected over the study's statistical claims (Holm); an event claim from the runs that show the event."""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol

import numpy as np

from ..report.units import fmt_ns
from ..spec.catalog import value_order
from ..spec.claims import Axis, Cell, Claim, Event, Kind, Statistic, serves, unnamed_options
from ..storing.records import Reason, RunRecord, RunStatus
from .geomeans import options_of
from .summary import COMPUTE, SeriesSummary

ALPHA = 0.05        # the study-wide error rate Holm keeps
DRAWS = 2000        # bootstrap draws per cell
CONFIDENCE = 0.95   # the interval shown beside each figure


class Outcome(StrEnum):
    REPRODUCES = "reproduces"
    FAILS = "does not reproduce"
    INCONCLUSIVE = "inconclusive"
    UNTESTABLE_HERE = "untestable here"
    UNTESTABLE_SCALE = "untestable at this scale"


@dataclass(frozen=True)
class Finding:
    """A claim's verdict and its evidence."""

    claim: Claim
    outcome: Outcome
    ours: str = ""                 # our statistic with its interval, in words
    why: str = ""                  # what decided it (the pairs that flipped, the reason it cannot be tested)
    details: tuple[str, ...] = ()  # one line per pair or cell
    estimate: float | None = None  # the claim's statistic (a ratio, an exponent; events: runs showing it)
    low: float | None = None
    high: float | None = None
    p_holds: float | None = None   # small: the runs say the claim holds
    p_fails: float | None = None   # small: the runs say it does not
    p_adjusted: float | None = None
    series: tuple[str, ...] = ()   # the series the evidence is read from ("benchmark variant param cores")


@dataclass(frozen=True)
class Context:
    """Where the claims are judged: the session's scale, the cores this machine has, the variants built here."""

    study: str
    scale: str
    cores_here: int
    available: frozenset[str]


class Untestable(Exception):
    def __init__(self, outcome: Outcome, why: str) -> None:
        super().__init__(why)
        self.outcome, self.why = outcome, why


# ------------------------------------------------------------------------------------------------ cells

def find_series(cell: Cell, rows: list[SeriesSummary]) -> SeriesSummary | None:
    """The series a cell reads: its benchmark, variant (or shape), parameter and options, on the cell's cores or
    the most cores it ran on."""
    found = [r for r in rows if serves(cell, r.benchmark, r.variant, r.shape, r.param, options_of(r))
             and (cell.cores is None or r.cores == cell.cores)]
    if not found:
        return None
    widest = max(r.cores for r in found)
    return min((r for r in found if r.cores == widest),
               key=lambda r: (unnamed_options(cell, options_of(r)), r.shape, r.options))


def _series_name(row: SeriesSummary) -> str:
    return f"{row.benchmark} {row.label} {row.param}" + (f" ({row.options})" if row.options else "") + \
        f" cores={row.cores}"


def _locate(claim: Claim, rows: list[SeriesSummary], context: Context) -> dict[Cell, SeriesSummary]:
    """Each cell's series, or Untestable with the first reason one is missing."""
    if claim.needs:
        raise Untestable(Outcome.UNTESTABLE_HERE, claim.needs + _where_testable(claim))
    if claim.cores_needed > context.cores_here:
        raise Untestable(Outcome.UNTESTABLE_HERE, f"needs {claim.cores_needed} cores, this session had "
                                                  f"{context.cores_here}" + _where_testable(claim))
    if claim.beyond(context.scale):
        raise Untestable(Outcome.UNTESTABLE_SCALE, f"its sizes are the {claim.scale} scale's: "
                                                   f"`concbench study run {context.study} --scale {claim.scale}`")
    located = {}
    for cell in claim.all_cells():
        row = find_series(cell, rows)
        if row is None:
            variant = cell.variant.split(" [")[0]
            if variant not in context.available:
                raise Untestable(Outcome.UNTESTABLE_HERE, f"{variant} is not built here (its toolchain is missing)")
            raise Untestable(Outcome.UNTESTABLE_SCALE, f"this session has no series for {cell.name}")
        located[cell] = row
    return located


def _where_testable(claim: Claim) -> str:
    return f"; where it can be: {claim.command}" if claim.command else ""


# ------------------------------------------------------------------------------------------------ figures

def run_figure(run: RunRecord, statistic: Statistic) -> float | None:
    """One run's figure in seconds: its mean or median measured iteration, its whole-process wall time, or its
    median iteration less the compute time it reports (None where that leaves nothing: T ≤ C)."""
    if run.status != RunStatus.OK:
        return None
    if statistic == Statistic.MIN_WALL:
        return run.wall_ns / 1e9 if run.wall_ns else None
    measured = run.measured_ns()
    if not measured:
        return None
    if statistic == Statistic.COMMUNICATION:
        compute = run.metrics.get(COMPUTE)
        gap = float(np.median(measured)) - compute if compute is not None else None
        return gap / 1e9 if gap is not None and gap > 0 else None
    return float(np.mean(measured) if statistic == Statistic.MEAN else np.median(measured)) / 1e9


class Aggregate(Protocol):
    """A numpy reduction: over an array, or along an axis of one (the bootstrap's vectorised resamples)."""

    def __call__(self, a: np.ndarray, axis: int | None = None) -> Any: ...


AGGREGATE: dict[Statistic, Aggregate] = {Statistic.MEAN: np.mean, Statistic.MEDIAN: np.median,
                                         Statistic.MIN_WALL: np.min, Statistic.COMMUNICATION: np.median}


@dataclass(frozen=True)
class CellFigures:
    estimate: float          # the statistic over all of the cell's finished runs, in seconds
    draws: np.ndarray        # its bootstrap distribution, the runs resampled
    runs: int


def cell_figures(row: SeriesSummary, statistic: Statistic, seed: int, spread: float = 0.0) -> CellFigures | None:
    """A cell's statistic and its draws: its runs resampled, each draw then moved by a session effect drawn
    with the claim's session spread (log-normal), so that the interval covers what another session on this
    machine would find, not only what this one's runs show."""
    # Sorted, so that the same runs in another order give the same draws and the same verdict.
    figures = np.sort([f for run in row.runs if (f := run_figure(run, statistic)) is not None and f > 0])
    if len(figures) == 0:
        return None
    aggregate = AGGREGATE[statistic]
    if len(figures) == 1:
        draws = np.full(DRAWS, figures[0])
    else:
        from scipy import stats as scipy_stats  # on first use: it takes most of a second to load
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # scipy warns that a distribution of a few runs is degenerate: it may be
            result = scipy_stats.bootstrap((figures,), lambda x, axis: aggregate(x, axis=axis), n_resamples=DRAWS,
                                           vectorized=True, method="percentile", rng=np.random.default_rng(seed))
        draws = np.asarray(result.bootstrap_distribution)
    if spread > 0:
        draws = draws * np.exp(np.random.default_rng([seed, 1]).normal(0.0, spread, DRAWS))
    return CellFigures(float(aggregate(figures)), draws, len(figures))


def _p(count: int) -> float:
    """A bootstrap p-value: the share of draws on the wrong side, never 0 (Monte Carlo's (k + 1)/(B + 1))."""
    return (count + 1) / (DRAWS + 1)


def _interval(draws: np.ndarray) -> tuple[float, float]:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(low), float(high)


def _within(draws: np.ndarray, band: tuple[float, float]) -> np.ndarray:
    return (draws >= band[0]) & (draws <= band[1])


def _times(x: float) -> str:
    """A ratio to four figures, so that a narrow interval does not read as none: 1.002× [0.9980×, 1.006×]."""
    return f"{x:#.4g}×"


# ------------------------------------------------------------------------------------------------ kinds

def _log_geomean(cells: tuple[Cell, ...], figures: dict[Cell, CellFigures]) -> tuple[float, np.ndarray]:
    estimate = sum(math.log(figures[c].estimate) for c in cells) / len(cells)
    draws = sum(np.log(figures[c].draws) for c in cells) / len(cells)
    return estimate, draws


def _ratio(claim: Claim, figures: dict[Cell, CellFigures]) -> Finding:
    (ea, da), (eb, db) = _log_geomean(claim.a, figures), _log_geomean(claim.b, figures)
    ratio, draws = math.exp(ea - eb), np.exp(da - db)
    inside = _within(draws, claim.band)
    low, high = _interval(draws)
    band = f"[{claim.band[0]:g}, {claim.band[1]:g}]"
    return Finding(claim, Outcome.INCONCLUSIVE, f"{_times(ratio)} [{_times(low)}, {_times(high)}]",
                   f"a ÷ b against the band {band}", estimate=ratio, low=low, high=high,
                   p_holds=_p(int((~inside).sum())), p_fails=_p(int(inside.sum())))


def _pairs(claim: Claim, figures: dict[Cell, CellFigures]) -> Finding:
    """Sign and ranking: in each pair the first faster (its time ÷ the second's under 1). The claim holds when
    every pair does (the largest p of the pairs), fails when any pair is the other way round (the smallest,
    times the pairs: Bonferroni within the claim)."""
    lines, flipped, p_holds, p_fails = [], [], [], []
    for first, second in claim.ordered_pairs:
        draws = figures[first].draws / figures[second].draws
        ratio = figures[first].estimate / figures[second].estimate
        low, high = _interval(draws)
        p_holds.append(_p(int((draws >= 1).sum())))
        p_fails.append(_p(int((draws < 1).sum())))
        name = f"{_shared(first, second)}{_short(first, second)} ÷ {_short(second, first)}"
        lines.append(f"{name}: {_times(ratio)} [{_times(low)}, {_times(high)}]")
        if ratio >= 1:
            flipped.append(f"{name} {_times(ratio)}" + (" (significant)" if high < 1 or low > 1 else ""))
    faster = len(claim.ordered_pairs) - len(flipped)
    ours = f"{faster} of {len(claim.ordered_pairs)} pairs in the claimed order"
    why = ("flipped: " + "; ".join(flipped)) if flipped else "every pair in the claimed order"
    return Finding(claim, Outcome.INCONCLUSIVE, ours, why, tuple(lines), estimate=float(faster),
                   p_holds=max(p_holds), p_fails=min(1.0, min(p_fails) * len(p_fails)))


def _shared(cell: Cell, other: Cell) -> str:
    """What a pair's cells have in common, naming the task of a ranking's group: "mutex 20000: "."""
    parts = [getattr(cell, name) for name in ("benchmark", "param") if getattr(cell, name) == getattr(other, name)]
    parts += [f"{cell.cores} cores"] if cell.cores and cell.cores == other.cores else []
    return " ".join(parts) + ": " if parts else ""


def _short(cell: Cell, other: Cell) -> str:
    """A pair's cell named by what differs from the other one (the variant, the parameter, the options)."""
    parts = [getattr(cell, name) for name in ("variant", "param") if getattr(cell, name) != getattr(other, name)]
    parts += [f"{k}={v}" for k, v in cell.options if (k, v) not in other.options]
    parts += [f"{cell.cores} cores"] if cell.cores != other.cores and cell.cores else []
    if cell.benchmark != other.benchmark:
        parts.insert(0, cell.benchmark)
    return " ".join(parts) or cell.name


def _position(cell: Cell, axis: Axis) -> float:
    try:
        value = cell.cores if axis == Axis.CORES else float(cell.param)
    except ValueError:
        value = None
    if value is None or value <= 0:
        raise Untestable(Outcome.UNTESTABLE_SCALE, f"{cell.name} has no positive {axis} to scale over")
    return float(value)


def _scaling(claim: Claim, figures: dict[Cell, CellFigures]) -> Finding:
    cells = claim.cells
    text: Callable[[float], str]
    if claim.measure == "speedup":
        first, last = figures[cells[0]], figures[cells[-1]]
        estimate, draws, what = first.estimate / last.estimate, first.draws / last.draws, "speed-up"
        text = _times
    else:
        x = np.log([_position(c, claim.axis) for c in cells])
        x = x - x.mean()
        estimate = float(np.dot(x, np.log([figures[c].estimate for c in cells])) / np.dot(x, x))
        draws = np.tensordot(x, np.log(np.stack([figures[c].draws for c in cells])), axes=1) / np.dot(x, x)
        what, text = f"exponent of time over {claim.axis}", (lambda v: f"{v:.2f}")
    inside = _within(draws, claim.band)
    low, high = _interval(draws)
    return Finding(claim, Outcome.INCONCLUSIVE, f"{what} {text(estimate)} [{text(low)}, {text(high)}]",
                   f"against the band [{claim.band[0]:g}, {claim.band[1]:g}]", estimate=estimate, low=low, high=high,
                   p_holds=_p(int((~inside).sum())), p_fails=_p(int(inside.sum())))


def shows(run: RunRecord, event: Event) -> bool:
    if event == Event.STALL:
        return run.status == RunStatus.TIMEOUT and bool(run.stall)
    if event == Event.OOM:
        return run.reason == Reason.OOM
    return run.status == RunStatus(str(event))


def _earlier(row: SeriesSummary, rows: list[SeriesSummary], event: Event) -> str | None:
    """The smaller size of the same line whose runs showed the event, if any: a size skipped after it reached the
    event there (a stall at N = 5 ends the line before N = 6)."""
    line = (row.benchmark, row.variant, row.shape, row.options, row.cores)
    before = [r for r in rows if (r.benchmark, r.variant, r.shape, r.options, r.cores) == line
              and value_order(r.param) < value_order(row.param) and any(shows(run, event) for run in r.runs)]
    return min((r.param for r in before), key=value_order) if before else None


def _event(claim: Claim, located: dict[Cell, SeriesSummary], rows: list[SeriesSummary]) -> Finding:
    assert claim.event is not None   # an event claim names its event (claims.NEEDED, checked on load)
    runs: list[RunRecord] = []
    skipped: list[str] = []
    for cell in claim.cells:
        row = located[cell]
        runs += [run for run in row.runs if run.status != RunStatus.SKIPPED]
        earlier = _earlier(row, rows, claim.event) if claim.event in (Event.TIMEOUT, Event.STALL) else None
        if earlier is not None:   # never run: the line already ended in the event at a smaller size
            skipped += [f"{cell.param} after a {claim.event} at {earlier}"
                        for run in row.runs if run.status == RunStatus.SKIPPED]
    seen = sum(1 for run in runs if shows(run, claim.event)) + len(skipped)
    total = len(runs) + len(skipped)   # a skipped size counts as a run that showed the event
    ours = f"{claim.event} in {seen} of {total} runs" + (
        f" ({len(skipped)} skipped: {skipped[0]})" if skipped else "")
    if claim.expected:
        holds, fails = total > 0 and seen == total, seen == 0 and total >= claim.runs
    else:
        holds, fails = seen == 0 and total >= claim.runs, seen > 0
    outcome = Outcome.REPRODUCES if holds else Outcome.FAILS if fails else Outcome.INCONCLUSIVE
    why = "" if outcome != Outcome.INCONCLUSIVE else (
        f"{claim.runs} runs or more are needed to say it never happens" if seen == 0 else "some runs show it, some do not")
    return Finding(claim, outcome, ours, why, estimate=float(seen))


# ------------------------------------------------------------------------------------------------ verdicts

def _judge_one(claim: Claim, rows: list[SeriesSummary], context: Context) -> Finding:
    try:
        located = _locate(claim, rows, context)
        series = tuple(dict.fromkeys(_series_name(r) for r in located.values()))
        if claim.kind == Kind.EVENT:
            return replace(_event(claim, located, rows), series=series)
        seed = zlib.crc32(claim.id.encode())
        computed = {cell: cell_figures(row, claim.statistic, seed + i, claim.session_spread)
                    for i, (cell, row) in enumerate(located.items())}
        figures = {cell: f for cell, f in computed.items() if f is not None}
        if len(figures) < len(computed):
            statuses = "; ".join(f"{cell.name}: {located[cell].statuses_text}"
                                 for cell, f in computed.items() if f is None)
            none = ("no run leaving communication time (T > its compute_ns)" if claim.statistic == Statistic.COMMUNICATION
                    else "no finished run")
            return Finding(claim, Outcome.INCONCLUSIVE, "", f"{none} of {statuses}", series=series)
        judged = {Kind.RATIO: _ratio, Kind.SCALING: _scaling}.get(claim.kind, _pairs)(claim, figures)
        judged = replace(judged, details=judged.details + tuple(
            f"{cell.name}: {fmt_ns(f.estimate * 1e9)} ({claim.statistic}, {f.runs} runs)" for cell, f in figures.items()))
        few = [f"{cell.name} ({f.runs})" for cell, f in figures.items() if f.runs < claim.runs]
        if few:
            judged = replace(judged, p_holds=None, p_fails=None,
                             why=f"too few runs (fewer than {claim.runs}): {', '.join(few)}")
        return replace(judged, series=series)
    except Untestable as reason:
        return Finding(claim, reason.outcome, "", reason.why)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given. (statsmodels has it, but would bring pandas for
    five lines.)"""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def judge_claims(claims: tuple[Claim, ...], rows: list[SeriesSummary], context: Context) -> list[Finding]:
    """Every claim's verdict. The statistical ones (all but events) with both p-values are corrected together."""
    found = [_judge_one(claim, rows, context) for claim in claims]
    tested = [(i, f.p_holds, f.p_fails) for i, f in enumerate(found) if f.p_holds is not None and f.p_fails is not None]
    adjusted = holm([min(p_holds, p_fails) for _, p_holds, p_fails in tested])
    for (i, p_holds, p_fails), p in zip(tested, adjusted):
        f = found[i]
        holds = p_holds <= p_fails
        if p <= ALPHA:
            outcome = Outcome.REPRODUCES if holds else Outcome.FAILS
            why = f.why
        else:
            outcome = Outcome.INCONCLUSIVE
            why = (f"{f.why}: the evidence leans {'for' if holds else 'against'} it, p = {p:.2g} after Holm over "
                   f"{len(tested)} claims (α = {ALPHA:g})")
        found[i] = replace(f, outcome=outcome, why=why, p_adjusted=p)
    return found


@dataclass(frozen=True)
class Agreement:
    """Two sessions' verdicts on the same claims: how many agree, and which moved."""

    total: int
    same: int
    moved: tuple[str, ...]        # claims whose verdicts differ
    crossed: tuple[str, ...]      # of those, the ones that went between reproduces and does not reproduce

    @property
    def line(self) -> str:
        share = f"{100 * self.same / self.total:.0f} %" if self.total else "none"
        crossed = (f"{len(self.crossed)} between reproduces and does not reproduce ({', '.join(self.crossed)})"
                   if self.crossed else "none between reproduces and does not reproduce")
        return f"the same verdict for {self.same} of {self.total} claims ({share}); {crossed}"


def agreement(first: list[Finding], second: list[Finding]) -> Agreement:
    """How two sessions' verdicts agree, claim by claim (matched by id; a claim judged in one only has moved)."""
    a, b = {f.claim.id: f.outcome for f in first}, {f.claim.id: f.outcome for f in second}
    ids = list(dict.fromkeys([*a, *b]))
    moved = tuple(i for i in ids if a.get(i) != b.get(i))
    crossed = tuple(i for i in moved if {a.get(i), b.get(i)} == {Outcome.REPRODUCES, Outcome.FAILS})
    return Agreement(len(ids), len(ids) - len(moved), moved, crossed)


# ------------------------------------------------------------------------------------------------ JSON

SCHEMA = "concbench-claims-v1"   # concbench/schema/claims-v1.schema.json


def _number(value: float | None) -> float | None:
    """A JSON number, or null where there is none or it is not finite (a band without an upper end)."""
    return value if value is not None and math.isfinite(value) else None


def _cell_json(cell: Cell) -> dict:
    return {"benchmark": cell.benchmark, "variant": cell.variant, "param": cell.param,
            "options": dict(cell.options), "cores": cell.cores}


def claim_json(claim: Claim) -> dict:
    out = {"id": claim.id, "words": claim.words, "where": claim.where, "kind": str(claim.kind),
           "statistic": str(claim.statistic), "theirs": claim.theirs, "tolerance": claim.tolerance,
           "note": claim.note, "scale": claim.scale, "min_cores": claim.min_cores, "needs": claim.needs,
           "command": claim.command, "runs": claim.runs, "session_spread": claim.session_spread,
           "cells": [_cell_json(c) for c in claim.all_cells()]}
    if claim.kind in (Kind.RATIO, Kind.SCALING):
        out["band"] = [_number(claim.band[0]), _number(claim.band[1])]
    if claim.kind == Kind.RATIO:
        out["a"], out["b"] = [c.name for c in claim.a], [c.name for c in claim.b]
    if claim.kind in (Kind.SIGN, Kind.RANKING):
        out["pairs"] = [[first.name, second.name] for first, second in claim.ordered_pairs]
    if claim.kind == Kind.SCALING:
        out["axis"], out["measure"] = str(claim.axis), claim.measure
    if claim.kind == Kind.EVENT:
        out["event"], out["expected"] = str(claim.event), claim.expected
    return out


def finding_json(finding: Finding) -> dict:
    return {"outcome": str(finding.outcome), "ours": finding.ours, "why": finding.why,
            "estimate": _number(finding.estimate), "low": _number(finding.low), "high": _number(finding.high),
            "p_holds": _number(finding.p_holds), "p_fails": _number(finding.p_fails),
            "p_adjusted": _number(finding.p_adjusted), "details": list(finding.details),
            "series": list(finding.series)}


def claims_document(study_id: str, claims: tuple[Claim, ...], findings: list[Finding] | None = None,
                    session: int | None = None, scale: str | None = None, judged_by: dict | None = None) -> dict:
    """The claims (and, from a session, their verdicts) as `--format json` writes them; `judged_by`: whether the
    session's own claims judged it or today's file's, and which differ."""
    verdicts = {f.claim.id: f for f in findings or ()}
    return {"schema": SCHEMA, "study": study_id, "session": session, "scale": scale,
            **({"judged_by": judged_by} if judged_by is not None else {}),
            "claims": [{**claim_json(c), **({"verdict": finding_json(verdicts[c.id])} if c.id in verdicts else {})}
                       for c in claims]}
