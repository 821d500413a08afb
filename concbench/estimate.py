"""How long a plan will take, said before it starts: rough, and saying what it rests on.

A point that ran before is expected to take what its earlier runs took (the median of their wall times,
scaled to the planned iterations); a point never run is bounded by its deadlines (each iteration within the
benchmark's per-iteration deadline, each run within the run's limit), which is an upper bound, not a guess."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from .plan import Point
from .records import RunRecord
from .session import DEFAULT_RUN_TIMEOUT_S
from .store import Store


@dataclass(frozen=True)
class Estimate:
    known_s: float      # the points that ran before, from their earlier runs
    known_points: int
    earlier_runs: int
    bound_s: float      # the points never run: at most this, by their deadlines
    new_points: int

    def line(self) -> str:
        if not self.known_points and not self.new_points:
            return "estimated time: nothing is left to run"
        known = f"about {duration(self.known_s)}"
        bound = f"at most {duration(self.bound_s)}"
        earlier, known_points, new_points = (_count(self.earlier_runs, "earlier run"),
                                             _count(self.known_points, "point"), _count(self.new_points, "point"))
        if not self.new_points:
            return f"estimated time: {known} (from {earlier} of these points)"
        if not self.known_points:
            return f"estimated time: {bound} (none of these {new_points} ran before: bounded by their deadlines)"
        return (f"estimated time: {known} for {known_points} (from {earlier} of them), and {bound} for {new_points} "
                "never run (bounded by their deadlines)")


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
    return run.wall_ns / 1e9 * (iterations / ran if ran else 1)


def estimate(plan: list[Point], runs: int, store: Store, timeout_s: float | None = None,
             done: list[RunRecord] = ()) -> Estimate:
    """`runs` per point, less those already `done` (a resumed session's); `timeout_s`: the run's limit that
    replaces the per-iteration deadlines (`run --timeout`), as in the session."""
    run_limit_s = timeout_s or DEFAULT_RUN_TIMEOUT_S
    earlier: dict[tuple, list[RunRecord]] = {}
    for session in store.sessions():
        for run in store.runs(session.id):
            if run.wall_ns:
                earlier.setdefault(run.series_key, []).append(run)
    ran: dict[tuple, int] = {}
    for run in done:
        ran[run.series_key] = ran.get(run.series_key, 0) + 1
    known_s = bound_s = 0.0
    known_points = new_points = earlier_runs = 0
    for point in plan:
        key = point.series_key
        todo = max(0, point.runs_in(runs) - ran.get(key, 0))
        if not todo:
            continue
        if key in earlier:
            known_points += 1
            earlier_runs += len(earlier[key])
            known_s += todo * statistics.median(_run_seconds(r, point.iterations) for r in earlier[key])
        else:
            new_points += 1
            by_deadline = point.iterations * point.deadline_s if point.deadline_s and not timeout_s else run_limit_s
            bound_s += todo * min(by_deadline, run_limit_s)
    return Estimate(known_s, known_points, earlier_runs, bound_s, new_points)
