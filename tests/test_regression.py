"""`compare` calibrated on simulated sessions: realistic between-run noise, no sleeping.

Each simulated run has its own offset (log-normal, the between-run noise that dominates real
sessions of one commit) and its iterations scatter around it (the within-run noise)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from concbench.analysis import regression, stats
from concbench.storing.records import IterationRecord, RunRecord, RunStatus

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


def _runs(variant: str, per_run: list[list[int]], status: RunStatus = RunStatus.OK, cores: int = 2,
          param: str = "20") -> list[RunRecord]:
    """Runs of one series with these measured times (each after one warm-up iteration of 1 ns)."""
    return [RunRecord(benchmark="fib", variant=variant, param=param, options={}, cores=cores, run_index=i, status=status,
                      iterations=[IterationRecord(j, t, "6765", "verified", j == 0) for j, t in enumerate([1, *times])])
            for i, times in enumerate(per_run)]


def test_only_finished_runs_with_every_time_positive_are_compared():
    good = [[1, 5, 6], [2, 5, 7], [1, 6, 6]]      # 1 ns is short, but measured
    a = _runs("x/y", good) + _runs("x/y", [[0, 5, 6]]) + _runs("x/y", [[5, 6, 7]], RunStatus.CRASHED)
    (change,) = regression.compare_sessions(a, _runs("x/y", good))
    assert (change.comparison.runs_a, change.comparison.runs_b) == (3, 3)
    assert change.median_a_ns == change.median_b_ns == 5.0   # the median of every measured iteration


def test_a_series_missing_from_either_session_is_reported_missing_and_the_rest_compared():
    runs = [[1000, 1010], [1010, 1020], [1020, 1030]]
    only_a, only_b, both = _runs("a/x", runs), _runs("c/x", runs), _runs("b/x", runs)
    changes = regression.compare_sessions(only_a + both, both + only_b)
    assert [c.key[1] for c in changes] == ["a/x", "b/x", "c/x"]
    assert changes[0] == regression.SeriesChange(only_a[0].series_key, None, "missing")
    assert changes[2] == regression.SeriesChange(only_b[0].series_key, None, "missing")
    assert changes[1].assessment == "unchanged" and (changes[1].median_a_ns, changes[1].median_b_ns) == (1015.0, 1015.0)
    assert regression.runs_for_change([changes[0], changes[2]]) is None    # nothing compared: nothing to say


def test_series_come_in_reading_order_cores_and_parameters_as_numbers():
    runs = [[100, 110], [120, 130], [140, 150]]
    a = (_runs("a/x", runs, cores=16) + _runs("a/x", runs, cores=2) + _runs("a/w", runs, cores=4)
         + _runs("a/w", runs, cores=4, param="100"))
    changes = regression.compare_sessions(a, a)
    assert [(c.key[1], c.key[3], c.key[4]) for c in changes] == [
        ("a/w", "20", 4), ("a/w", "100", 4), ("a/x", "20", 2), ("a/x", "20", 16)]   # 20 before 100, 2 before 16


def test_an_inconclusive_series_carries_the_runs_that_would_decide_it():
    a = [[100, 100], [130, 130], [160, 160]]
    b = [[110, 110], [140, 140], [180, 180]]
    (change,) = regression.compare_sessions(_runs("x/y", a), _runs("x/y", b))
    assert change.assessment == "inconclusive"
    assert change.runs_needed == regression.classify(change.comparison, regression.DEFAULT_THRESHOLD)[1] > 3
    assert (change.median_a_ns, change.median_b_ns) == (130.0, 140.0)


@pytest.mark.parametrize("low, high, verdict", [
    (1.25, 1.50, "inconclusive"), (0.50, 0.80, "inconclusive"), (0.80, 1.25, "unchanged"),
])
def test_an_interval_touching_the_threshold_is_not_beyond_it(low, high, verdict):
    # Threshold 25 %: the band is [1/1.25, 1.25] = [0.8, 1.25], both exact in binary.
    comparison = stats.RunLevelComparison(3, 3, (low * high) ** 0.5, low, high, 0.2)
    assert regression.classify(comparison, 0.25)[0] == verdict


def test_runs_needed_follow_the_distance_from_the_band_and_exceed_the_runs_made():
    on_edge = stats.RunLevelComparison(3, 3, 1.25, 1.0, 1.5, 0.3)
    assert regression.classify(on_edge, 0.25) == ("inconclusive", on_edge.runs_to_resolve(0.25))
    assert on_edge.runs_to_resolve(0.25) > 4
    far = stats.RunLevelComparison(3, 3, 2.0, 0.9, 4.0, 0.3)
    assert regression.classify(far, 0.25) == ("inconclusive", far.runs_to_resolve(2.0 / 1.25 - 1))
    steady = stats.RunLevelComparison(3, 5, 1.3, 1.0, 1.7, 0.001)   # noise so low that 2 runs would do
    assert steady.runs_to_resolve(0.3) == 2
    assert regression.classify(steady, 0.25) == ("inconclusive", 4)  # but 3 did not: at least one more


def test_repetitions_for_a_short_series():
    def change(a, b):
        return regression.SeriesChange(("fib", "x/y", "", "5", 1), None, "missing", a, b)

    assert regression.repeats_for(change(None, None)) == 2
    assert regression.repeats_for(change(5e6, 2e6)) == 2           # over the floor already: the least batch
    assert regression.repeats_for(change(1.0, None)) == 1_000_000   # 1 ns: a million kernels make 1 ms
    assert regression.repeats_for(change(0.25, 400.0)) == 1_000_000  # under 1 ns counts as 1 ns


def test_environment_differences_name_what_changed_between_the_sessions():
    a = {"cpu_model": "Xeon", "cpus_allowed": "0-1", "kernel": "6.1",
         "toolchains": {"go": {"version": "1.21", "build": "-O2"}, "swift": None, "c": {"version": "17"},
                        "erlang": {"version": "25"}}}
    b = {"cpu_model": "EPYC", "cpus_allowed": "0-1", "kernel": "6.2",
         "toolchains": {"go": {"version": "1.22", "build": "-O3"}, "swift": {"version": "6.0"}, "c": None,
                        "java": {"version": "17"}}}
    assert regression.environment_differences(a, b) == [
        "cpu_model: Xeon → EPYC", "kernel: 6.1 → 6.2",
        "c version: 17 → None", "go version: 1.21 → 1.22", "go build: -O2 → -O3", "swift version: None → 6.0"]
    assert regression.environment_differences(a, a) == []
    assert regression.environment_differences({}, {}) == []
    assert regression.environment_differences({"cpus_allowed": "0"}, {"cpus_allowed": "0-3"}) == [
        "cpus_allowed: 0 → 0-3"]


def test_agreement_counts_series_within_10_percent_and_the_fastest_variant_per_point():
    a = [*_runs("x/a", [[100] * 3] * 3), *_runs("x/b", [[200] * 3] * 3),
         *_runs("x/a", [[100] * 3] * 3, param="30"), *_runs("x/b", [[200] * 3] * 3, param="30")]
    b = [*_runs("x/a", [[109] * 3] * 3), *_runs("x/b", [[250] * 3] * 3),              # +9 %, +25 %
         *_runs("x/a", [[300] * 3] * 3, param="30"), *_runs("x/b", [[200] * 3] * 3, param="30")]   # 3x: order swaps
    agreement = regression.agreement(regression.compare_sessions(a, b))
    assert (agreement.series, agreement.within_10, agreement.within_1_5) == (4, 2, 3)
    assert (agreement.points, agreement.same_fastest, agreement.ties) == (2, 1, 0)
    assert agreement.line() == ("the two sessions agree: 2 of 4 (50%) series within ±10 %, 3 of 4 (75%) within 1.5x; "
                                "the fastest variant is the same at 1 of 2 (50%) points")


def test_a_swap_between_two_variants_within_5_percent_in_both_sessions_is_a_tie():
    a = [*_runs("x/a", [[100] * 3] * 3), *_runs("x/b", [[104] * 3] * 3)]
    b = [*_runs("x/a", [[104] * 3] * 3), *_runs("x/b", [[100] * 3] * 3)]
    agreement = regression.agreement(regression.compare_sessions(a, b))
    assert (agreement.points, agreement.same_fastest, agreement.ties) == (1, 0, 1)
    assert agreement.line().endswith("the fastest variant is the same at 0 of 1 (0%) points (1 of 1 (100%) counting "
                                     "as the same a point whose two fastest neither session tells apart)")
    b = [*_runs("x/a", [[110] * 3] * 3), *_runs("x/b", [[100] * 3] * 3)]       # 10 % apart in B: no tie
    assert regression.agreement(regression.compare_sessions(a, b)).ties == 0


def test_a_swap_that_neither_sessions_own_runs_can_order_is_a_tie_and_one_that_a_session_ordered_is_not():
    # 20 % apart on their medians, but each session's runs of the two overlap: neither session ordered them.
    a = [*_runs("x/a", [[80] * 3, [100] * 3, [130] * 3]), *_runs("x/b", [[95] * 3, [120] * 3, [150] * 3])]
    b = [*_runs("x/a", [[95] * 3, [120] * 3, [150] * 3]), *_runs("x/b", [[80] * 3, [100] * 3, [130] * 3])]
    assert regression.agreement(regression.compare_sessions(a, b)).ties == 1
    # A's runs separate them (tight, 20 % apart): B putting them the other way round contradicts A.
    a = [*_runs("x/a", [[100] * 3, [101] * 3, [99] * 3]), *_runs("x/b", [[120] * 3, [121] * 3, [119] * 3])]
    assert regression.agreement(regression.compare_sessions(a, b)).ties == 0


def test_a_disturbed_run_is_left_out_where_its_series_has_quiet_ones():
    quiet, slow = _runs("x/a", [[100] * 3] * 3), replace(_runs("x/a", [[300] * 3])[0], disturbed=True, run_index=3)
    (change,) = regression.compare_sessions(quiet, [*quiet, slow])
    assert change.median_b_ns == 100
    only = [replace(run, disturbed=True) for run in _runs("x/a", [[300] * 3] * 2)]
    (change,) = regression.compare_sessions(quiet, only)
    assert change.median_b_ns == 300                  # disturbed runs only: kept
