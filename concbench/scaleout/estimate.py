"""How long a plan will take, said before it starts: rough, and saying what it rests on.

A point that ran before is expected to take what its earlier runs took (the median of their wall times,
scaled to the planned iterations). A point this variant never ran, where other variants ran the same benchmark
at the same size, options and cores, is guessed from theirs (the median over all of them: a guess, since
variants differ by large factors). A point nobody ran is bounded by its deadlines (each iteration within the
benchmark's per-iteration deadline, each run within the run's limit): an upper bound, not a guess, said apart
so that a plan of many such points does not read as hundreds of hours."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..running.plan import Point
from ..running.session import DEFAULT_RUN_TIMEOUT_S
from ..storing.records import RunRecord
from ..storing.store import Store


@dataclass(frozen=True)
class Estimate:
    known_s: float      # the points that ran before, from their earlier runs
    known_points: int
    earlier_runs: int
    bound_s: float      # the points nobody ran: at most this, by their deadlines
    new_points: int
    guessed_s: float = 0.0   # the points only other variants ran, from those variants' runs
    guessed_points: int = 0

    def line(self) -> str:
        if not self.known_points and not self.new_points and not self.guessed_points:
            return "estimated time: nothing is left to run"
        earlier = _count(self.earlier_runs, "earlier run")
        if not self.new_points and not self.guessed_points:
            return f"estimated time: about {duration(self.known_s)} (from {earlier} of these points)"
        parts = []
        if self.known_points:
            parts.append(f"about {duration(self.known_s)} for {_count(self.known_points, 'point')} (from {earlier} "
                         "of them)")
        if self.guessed_points:
            parts.append(f"about {duration(self.guessed_s)} for {_count(self.guessed_points, 'point')} guessed from "
                         "other variants' runs of them")
        if self.new_points:
            parts.append(f"{_count(self.new_points, 'point')} never run here, whose time is unknown: at most "
                         f"{duration(self.bound_s)} by their deadlines")
        return "estimated time: " + "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


def _run_seconds(run: RunRecord, iterations: int) -> float:
    """An earlier run's wall time, scaled to the planned number of iterations where it ran another number."""
    ran = len(run.iterations)
    assert run.wall_ns is not None   # estimate keeps only earlier runs with a wall time
    return run.wall_ns / 1e9 * (iterations / ran if ran else 1)


def estimate(plan: list[Point], runs: int, store: Store, timeout_s: float | None = None,
             done: Sequence[RunRecord] = ()) -> Estimate:
    """`runs` per point, less those already `done` (a resumed session's); `timeout_s`: the run's limit that
    replaces the per-iteration deadlines (`run --timeout`), as in the session."""
    run_limit_s = timeout_s or DEFAULT_RUN_TIMEOUT_S
    neutral = {point.benchmark.id: ("shape", *point.benchmark.neutral_options) for point in plan}
    earlier: dict[tuple, list[RunRecord]] = {}
    elsewhere: dict[tuple, list[RunRecord]] = {}   # by the point less its variant
    for session in store.sessions():
        for run in store.runs(session.id):
            if run.wall_ns:
                earlier.setdefault(run.series_key, []).append(run)
                if run.benchmark in neutral:
                    key = _size_key(run.benchmark, run.options.items(), run.param, run.cores, neutral)
                    elsewhere.setdefault(key, []).append(run)
    ran: dict[tuple, int] = {}
    for run in done:
        ran[run.series_key] = ran.get(run.series_key, 0) + 1
    known_s = bound_s = guessed_s = 0.0
    known_points = new_points = earlier_runs = guessed_points = 0
    for point in plan:
        key = point.series_key
        todo = max(0, point.runs_in(runs) - ran.get(key, 0))
        if not todo:
            continue
        if key in earlier:
            known_points += 1
            earlier_runs += len(earlier[key])
            known_s += todo * statistics.median(_run_seconds(r, point.iterations) for r in earlier[key])
        elif others := elsewhere.get(_size_key(point.benchmark.id, point.options, point.param, point.cores, neutral)):
            guessed_points += 1
            guessed_s += todo * statistics.median(_run_seconds(r, point.iterations) for r in others)
        else:
            new_points += 1
            by_deadline = point.iterations * point.deadline_s if point.deadline_s and not timeout_s else run_limit_s
            bound_s += todo * min(by_deadline, run_limit_s)
    return Estimate(known_s, known_points, earlier_runs, bound_s, new_points, guessed_s, guessed_points)


def _size_key(benchmark: str, options, param: str, cores: int, neutral: dict[str, tuple[str, ...]]) -> tuple:
    """A point less its variant: the benchmark, its size and cores, and the options that change the work (not the
    shape, nor options a benchmark calls neutral, which name a variant's own mechanism)."""
    kept = tuple(sorted((k, v) for k, v in options if k not in neutral[benchmark]))
    return benchmark, kept, param, cores
