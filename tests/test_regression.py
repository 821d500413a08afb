"""`compare` calibrated on simulated sessions: realistic between-run noise, no sleeping.

Each simulated run has its own offset (log-normal, the between-run noise that dominates real
sessions of one commit) and its iterations scatter around it (the within-run noise)."""

from __future__ import annotations

import numpy as np
import pytest

from concbench import regression, stats
from concbench.records import IterationRecord, RunRecord, RunStatus

RUNS, ITERATIONS, WARMUP = 3, 5, 1   # the defaults of `concbench run` and the quick sizes


def _session(rng, series: dict[str, tuple[float, float]], slowdown: float = 1.0) -> list[RunRecord]:
    """One session: for each series (median ns, between-run sd of log) RUNS runs of ITERATIONS."""
    runs = []
    for name, (median_ns, between) in series.items():
        for index in range(RUNS):
            level = median_ns * slowdown * np.exp(rng.normal(0, between))
            times = level * np.exp(rng.normal(0, 0.03, ITERATIONS))
            runs.append(RunRecord(
                benchmark="fib", variant=name, param="20", options={}, cores=2, run_index=index,
                status=RunStatus.OK,
                iterations=[IterationRecord(i, int(t), "6765", "verified", i < WARMUP) for i, t in enumerate(times)],
            ))
    return runs


# A fast series with noisy processes (the fib 20: 37 µs against 43 µs on an idle machine)
# and a slow, steady one (big at quick size).
FIXTURES = {f"fast/{i}": (40_000.0, 0.06) for i in range(5)} | {f"slow/{i}": (650_000_000.0, 0.02) for i in range(5)}


def test_a_a_comparisons_rarely_flag_anything():
    rng = np.random.default_rng(2026)
    verdicts = []
    for _ in range(20):
        changes = regression.compare_sessions(_session(rng, FIXTURES), _session(rng, FIXTURES))
        verdicts += [c.assessment for c in changes]
    flagged = sum(v in ("slower", "faster") for v in verdicts)
    assert len(verdicts) == 200
    assert flagged <= 2, f"{flagged} of 200 A/A series flagged"     # at most 1 %


def test_a_30_percent_slowdown_is_found_with_the_default_runs():
    rng = np.random.default_rng(7)
    found = 0
    for _ in range(20):
        changes = regression.compare_sessions(_session(rng, FIXTURES), _session(rng, FIXTURES, slowdown=1.3))
        found += sum(c.assessment == "slower" for c in changes if c.key[1].startswith("slow"))
    assert found >= 95, f"{found} of 100 slowed steady series found"


def test_the_report_says_how_many_runs_a_5_percent_change_needs():
    rng = np.random.default_rng(3)
    changes = regression.compare_sessions(_session(rng, FIXTURES), _session(rng, FIXTURES))
    needed = regression.runs_for_change(changes, 0.05)
    assert needed is not None and needed > RUNS      # the noisy fast series cannot show 5 % with 3 runs
    inconclusive = [c for c in changes if c.assessment == "inconclusive"]
    assert all(c.runs_needed is None or c.runs_needed >= 2 for c in inconclusive)


def test_one_run_per_session_cannot_decide():
    rng = np.random.default_rng(1)
    a = [r for r in _session(rng, {"slow/0": (1e8, 0.02)}) if r.run_index == 0]
    b = [r for r in _session(rng, {"slow/0": (1e8, 0.02)}, slowdown=1.5) if r.run_index == 0]
    (change,) = regression.compare_sessions(a, b)
    assert change.assessment == "inconclusive" and change.comparison.ratio_low is None


def test_iterations_under_the_clock_floor_are_flagged():
    rng = np.random.default_rng(4)
    tiny = {"seq/fib5": (60.0, 0.05)}
    (change,) = regression.compare_sessions(_session(rng, tiny), _session(rng, tiny))
    assert change.too_short
    # Batching lifts it over the floor: about 1 ms / 60 ns repetitions.
    assert 14_000 <= regression.repeats_for(change) <= 20_000


@pytest.mark.parametrize("low, high, verdict", [
    (1.10, 1.40, "slower"), (0.70, 0.90, "faster"), (0.97, 1.03, "unchanged"), (0.99, 1.20, "inconclusive"),
])
def test_verdicts_follow_the_interval_and_the_threshold(low, high, verdict):
    comparison = stats.RunLevelComparison(3, 3, (low * high) ** 0.5, low, high, 0.05)
    assert regression.classify(comparison, 0.05)[0] == verdict
