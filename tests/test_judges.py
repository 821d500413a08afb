"""The judges at their edges: how a run's end is worded and judged (verify.Ending, verify.judge), and
the comparisons of stats at their thresholds. Written to kill what `make mutate` found surviving:
each test states behaviour a user sees (a status, a message, a figure, a warning, a threshold)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from concbench.analysis.stats import RunLevelComparison, WarningKind, compare, compare_runs, summary_of
from concbench.running.verify import Ending, judge
from concbench.storing.records import IterationRecord, RunRecord, RunStatus


def _run(benchmark, param, results, options=None, metrics=None, verdicts=None):
    verdicts = verdicts or ["verified"] * len(results)
    return RunRecord(benchmark=benchmark, variant="fake/ok", param=param, options=options or {}, cores=1,
                     run_index=0, status=RunStatus.OK, metrics=metrics or {},
                     iterations=[IterationRecord(i, 10, r, v, False)
                                 for i, (r, v) in enumerate(zip(results, verdicts))])


# --------------------------------------------------------------------------- how a run ended


@pytest.mark.parametrize("ending, expected", [
    (Ending(timed_out=True, timeout_kind="run", iterations=2),
     ("timeout", "timeout", "run time limit after 2 iterations")),
    (Ending(timed_out=True, timeout_kind="deadline", stall=False, iterations=2),
     ("timeout", "timeout", "no iteration within the deadline after 2 iterations")),
    (Ending(timed_out=True, timeout_kind="deadline", stall=True, iterations=0),
     ("timeout", "timeout", "no iteration within the deadline after 0 iterations (stalled)")),
    (Ending(exit_code=3, iterations=1), ("crashed", "exit", "exit status 3")),
    (Ending(exit_code=3, stderr_first="boom", iterations=1), ("crashed", "exit", "exit status 3: boom")),
    (Ending(signal=11, exit_code=None), ("crashed", "signal", "killed by signal 11")),
    (Ending(hello=False, exit_code=0), ("malformed", "protocol", "no hello line")),
    (Ending(exit_code=0, iterations=2), ("malformed", "protocol", "ended after 2 of 3 iterations")),
    (Ending(started=False, start_error="no such file"), ("crashed", "failed-to-start", "no such file")),
    (Ending(exit_code=0, iterations=3), None),
])
def test_each_ending_is_worded_exactly(ending, expected):
    assert ending.failure(3) == expected


def test_a_wrong_answer_names_the_reference_and_what_followed(catalog):
    fib = catalog.benchmarks["fib"]
    run = _run("fib", "10", ["55", "56"], verdicts=["verified", "wrong"])
    run = judge(run, fib, 2, Ending(exit_code=0, iterations=2))
    assert (run.status, run.reason, run.message) == ("wrong", "wrong-result", "iteration 1: got '56', expected '55'")
    run = _run("fib", "10", ["56"], verdicts=["wrong"])
    run = judge(run, fib, 3, Ending(timed_out=True, timeout_kind="deadline", stall=True, iterations=1))
    assert (run.status, run.message) == ("wrong", "iteration 0: got '56', expected '55'; "
                                                   "then no iteration within the deadline after 1 iterations (stalled)")
    assert run.stall is True


def test_a_wrong_answer_names_a_reference_that_depends_on_the_options(catalog):
    run = _run("threadring", "7", ["id=5"], options={"ring": "3"}, verdicts=["wrong"])
    run = judge(run, catalog.benchmarks["threadring"], 1, Ending(exit_code=0, iterations=1))
    assert run.message == "iteration 0: got 'id=5', expected 'id=2'"


def test_every_wrong_metric_is_named_in_one_message(catalog):
    options = {"variant": "encore", "meetings": "10000"}
    run = _run("chameneos", "3", ["x"], options=options, metrics={"self_meetings": 2, "colour_sum_mod3": 1},
               verdicts=["unverified"])
    run = judge(run, catalog.benchmarks["chameneos"], 1, Ending(exit_code=0, iterations=1))
    assert (run.status, run.reason) == ("wrong", "metric")
    assert run.message == "metric self_meetings=2, the spec expects 0; metric colour_sum_mod3=1, the spec expects 0"


def test_a_right_run_is_ok_with_no_message_and_a_timeout_keeps_its_stall(catalog):
    fib = catalog.benchmarks["fib"]
    run = _run("fib", "10", ["55"])
    run = judge(run, fib, 1, Ending(exit_code=0, iterations=1))
    assert (run.status, run.reason, run.message, run.stall) == ("ok", None, "", None)
    for stall in (True, False):
        run = _run("fib", "10", ["55"])
        run = judge(run, fib, 3, Ending(timed_out=True, timeout_kind="deadline", stall=stall, iterations=1))
        assert (run.status, run.stall) == ("timeout", stall)


# --------------------------------------------------------------------------- stats.summary_of


@pytest.mark.parametrize("samples, warnings", [
    ([7.5], [(WarningKind.FEW, "n=1: no sd, cv or interval")]),
    ([10.0, 12.0], [(WarningKind.HIGH_CV, "cv 12.9% > 5%"), (WarningKind.FEW, "n=2: no interval of the median")]),
    ([3.0] * 20, [(WarningKind.CONSTANT, "zero variance: no confidence interval of the mean"),
                  (WarningKind.CONSTANT, "constant samples: no interval of the median")]),
    ([-1.0, 0.0, 1.0], [(WarningKind.CONSTANT, "mean is 0: cv undefined")]),
    ([0.0, 0.0, 0.0], [(WarningKind.CONSTANT, "mean is 0: cv undefined"),
                       (WarningKind.CONSTANT, "zero variance: no confidence interval of the mean"),
                       (WarningKind.CONSTANT, "constant samples: no interval of the median")]),
])
def test_each_summary_warning_is_worded_exactly_with_its_kind(samples, warnings):
    assert [(w.kind, w.text) for w in summary_of(samples).warnings] == warnings


def test_a_cv_of_exactly_5_percent_is_not_above_it_and_three_samples_have_a_median_interval():
    s = summary_of([19.0, 20.0, 21.0])         # sd 1, mean 20: cv 0.05 exactly
    assert s.cv == 0.05 and s.warnings == ()
    assert s.median_ci_low is not None and s.median_ci_high is not None


def _percentile_bootstrap(data, statistic, confidence, seed):
    res = st.bootstrap(data, statistic, n_resamples=2000, vectorized=True, paired=False, confidence_level=confidence,
                       method="percentile", rng=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.99])
def test_the_median_interval_is_the_percentile_bootstrap_at_the_confidence_asked(confidence):
    x = np.random.default_rng(11).lognormal(3.0, 0.4, 40)
    s = summary_of(x, confidence=confidence, seed=5)
    assert (s.median_ci_low, s.median_ci_high) == _percentile_bootstrap(
        (x,), lambda v, axis=-1: np.median(v, axis=axis), confidence, 5)


def test_samples_of_any_numeric_type_are_summarised_in_double_precision():
    # In single precision 2^24 + 1 is 2^24: the three 1s would vanish from the mean.
    single = np.array([16_777_216.0, 1.0, 1.0, 1.0], dtype=np.float32)
    s = summary_of(single)
    assert s.mean == 16_777_219.0 / 4 and s.median == 1.0
    assert compare(single, np.full(4, 16_777_219.0 / 4)).diff_of_means == 0.0


def test_the_default_seed_is_0_so_reports_can_be_reproduced():
    x = np.random.default_rng(12).normal(10, 1, 30)
    y = np.random.default_rng(13).normal(11, 1, 30)
    assert summary_of(x) == summary_of(x, seed=0)
    assert compare(x, y) == compare(x, y, seed=0)


# --------------------------------------------------------------------------- bad input


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")    # the log of a 0 median, then refused
@pytest.mark.parametrize("call, message", [
    (lambda: summary_of([]), "samples: empty sequence"),
    (lambda: summary_of([1.0, float("nan")]), "samples: contains NaN or infinite values"),
    (lambda: summary_of([1.0, 2.0], confidence=1.5), "confidence must be in (0, 1), got 1.5"),
    (lambda: compare([], [1.0]), "a: empty sequence"),
    (lambda: compare([1.0], [float("inf")]), "b: contains NaN or infinite values"),
    (lambda: compare_runs([[]], [[1.0]]), "a run: empty sequence"),
    (lambda: compare_runs([[1.0]], [[1.0], []]), "b run: empty sequence"),
    (lambda: compare_runs([[0.0, 0.0, 1.0]], [[1.0]]), "run medians must be positive"),
    (lambda: compare_runs([[1.0]], [[2.0], [0.0]]), "run medians must be positive"),
])
def test_bad_input_is_refused_naming_the_side_and_the_fault(call, message):
    with pytest.raises(ValueError) as caught:
        call()
    assert str(caught.value) == message


# --------------------------------------------------------------------------- stats.compare


def test_a_ratio_interval_that_is_not_finite_is_no_interval():
    # The median of a is 1, but resamples of a with three zeros have median 0: the ratio is infinite.
    c = compare([0.0, 0.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert c.ratio_of_medians == 2.0 and c.ratio_ci_low is None and c.ratio_ci_high is None
    assert list(c.warnings) == ["ratio bootstrap not finite: no ratio interval",
                                "z interval with n<30 (n_a=5, n_b=3) is too narrow; prefer Welch"]


def test_the_ratio_interval_is_the_percentile_bootstrap_of_the_ratio_of_medians():
    rng = np.random.default_rng(14)
    a, b = rng.normal(10, 1, 12), rng.normal(12, 1, 9)
    c = compare(a, b, confidence=0.9, seed=3)
    assert (c.ratio_ci_low, c.ratio_ci_high) == _percentile_bootstrap(
        (a, b), lambda x, y, axis=-1: np.median(y, axis=axis) / np.median(x, axis=axis), 0.9, 3)


@pytest.mark.parametrize("a, b, ratio_interval", [
    ([1.0, 2.0], [3.0, 5.0], False), ([1.0, 2.0, 3.0], [2.0, 3.0, 5.0], True),
    ([1.0, 2.0], [1.0, 2.0, 3.0, 4.0, 5.0], False), ([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 3.0], False),
])
def test_two_samples_a_side_give_welch_and_z_three_also_the_ratio_interval(a, b, ratio_interval):
    c = compare(a, b)
    assert c.welch_t is not None and c.welch_p is not None and c.z_ci_low is not None
    assert (c.ratio_ci_low is not None) == ratio_interval
    if not ratio_interval:
        assert c.warnings[0] == f"n_a={len(a)}, n_b={len(b)}: no ratio interval (need 3 each)"


@pytest.mark.parametrize("a, b", [([1.0], [1.0, 2.0, 3.0, 4.0, 5.0]), ([1.0, 2.0, 3.0, 4.0, 5.0], [1.0])])
def test_one_sample_on_either_side_gives_no_welch_and_no_z(a, b):
    c = compare(a, b)
    assert (c.welch_t, c.welch_p, c.z_ci_low, c.z_ci_high, c.z_significant) == (None, None, None, None, False)
    n = f"n_a={len(a)}, n_b={len(b)}"
    assert list(c.warnings) == [f"{n}: no ratio interval (need 3 each)", f"{n}: no Welch test (need 2 each)",
                                f"{n}: no z interval (need 2 each)"]


@pytest.mark.parametrize("a, b", [([5.0, 5.0, 5.0], [19.0, 20.0, 21.0]), ([19.0, 20.0, 21.0], [5.0, 5.0, 5.0])])
def test_one_constant_side_still_gets_every_test(a, b):
    c = compare(a, b)
    assert None not in (c.welch_t, c.welch_p, c.ratio_ci_low, c.ratio_ci_high, c.z_ci_low, c.z_ci_high)
    assert list(c.warnings) == ["z interval with n<30 (n_a=3, n_b=3) is too narrow; prefer Welch"]


def test_what_cannot_be_computed_is_said_exactly():
    assert list(compare([3.0] * 10, [3.0] * 10).warnings) == [
        "both samples constant: no ratio interval", "zero variance in both samples: no Welch test",
        "zero variance in both samples: no z interval"]
    assert compare([0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 3.0]).warnings[0] == "median(a) is 0: no ratio of medians"


def test_a_welch_test_that_overflows_claims_nothing():
    # a's spread is tiny, b is far away: t is -inf, and p would be 0. Neither is a result.
    c = compare([-1e-160, 1e-160], [1e160, 1e160])
    assert (c.welch_t, c.welch_p) == (None, None)
    assert "Welch test not finite: no result" in c.warnings


@pytest.mark.parametrize("n_a, n_b, warned", [(30, 30, False), (29, 40, True), (40, 29, True)])
def test_the_z_interval_is_called_too_narrow_under_30_samples(n_a, n_b, warned):
    rng = np.random.default_rng(15)
    c = compare(rng.normal(10, 1, n_a), rng.normal(10, 1, n_b))
    expected = [f"z interval with n<30 (n_a={n_a}, n_b={n_b}) is too narrow; prefer Welch"] if warned else []
    assert [w for w in c.warnings if w.startswith("z interval")] == expected


def test_z_significance_needs_the_interval_strictly_off_zero():
    a, b = [2.0, 4.0, 6.0, 8.0, 10.0], [1.0, 2.0, 3.0, 4.0, 5.0]
    c = compare(a, b, confidence=0.80)         # 3 +/- 2.03: the whole interval above 0, its low end under 1
    assert 0.0 < c.z_ci_low < 1.0 and c.z_significant
    # An interval ending exactly at 0 contains 0: not significant, on either side.
    z = float(st.norm.ppf(0.975))
    se = math.sqrt(float(np.std([-1.0, 1.0], ddof=1)) ** 2 / 2)
    edge = [-(z * se)] * 2
    low = compare([-1.0, 1.0], edge)
    assert low.z_ci_low == 0.0 and not low.z_significant
    high = compare(edge, [-1.0, 1.0])
    assert high.z_ci_high == 0.0 and not high.z_significant


# --------------------------------------------------------------------------- stats.compare_runs


def test_run_level_comparison_is_welchs_interval_of_the_log_run_medians():
    a = [[100.0, 104.0, 98.0], [110.0, 111.0], [95.0]]
    b = [[120.0, 118.0], [131.0, 125.0, 140.0], [119.0], [150.0, 149.0], [122.0]]
    log_a = np.log([np.median(r) for r in a])
    log_b = np.log([np.median(r) for r in b])
    for confidence in (0.95, 0.9):
        c = compare_runs(a, b, confidence=confidence)
        ci = st.ttest_ind(log_b, log_a, equal_var=False).confidence_interval(confidence)
        assert (c.runs_a, c.runs_b) == (3, 5)
        assert c.ratio == pytest.approx(math.exp(log_b.mean() - log_a.mean()))
        assert c.ratio_low == pytest.approx(math.exp(ci.low)) and c.ratio_high == pytest.approx(math.exp(ci.high))
    squares = ((log_a - log_a.mean()) ** 2).sum() + ((log_b - log_b.mean()) ** 2).sum()
    assert c.run_sd == pytest.approx(math.sqrt(squares / (3 + 5 - 2)))


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")   # scipy, on b's two equal runs
def test_run_level_comparison_of_two_runs_whose_log_variance_is_1():
    a, b = [[1.0], [math.exp(2.0)]], [[5.0], [5.0]]   # log medians 0 and 2: variance 2, over 2 runs 1
    assert np.log(math.exp(2.0)) == 2.0
    c = compare_runs(a, b)
    ci = st.ttest_ind([math.log(5.0)] * 2, [0.0, 2.0], equal_var=False).confidence_interval(0.95)
    assert c.ratio_low == pytest.approx(math.exp(ci.low)) and c.ratio_high == pytest.approx(math.exp(ci.high))


def test_run_level_comparison_of_steady_runs_is_a_point():
    c = compare_runs([[100.0]] * 3, [[110.0, 110.0]] * 4)
    assert (c.runs_a, c.runs_b, c.run_sd) == (3, 4, 0.0)
    assert c.ratio == c.ratio_low == c.ratio_high == pytest.approx(1.1)


@pytest.mark.parametrize("a, b, interval", [
    ([[100.0]], [[110.0], [120.0], [130.0]], False), ([[100.0], [101.0], [99.0]], [[110.0]], False),
    ([[100.0], [101.0]], [[110.0], [112.0]], True),
])
def test_run_level_comparison_needs_two_runs_a_side_for_an_interval(a, b, interval):
    c = compare_runs(a, b)
    assert (c.runs_a, c.runs_b) == (len(a), len(b))
    assert ((c.ratio_low, c.ratio_high, c.run_sd) != (None, None, None)) == interval


# --------------------------------------------------------------------------- runs_to_resolve


def test_runs_to_resolve_matches_cohens_table():
    # Two-sided 5 %, power 80 %: an effect of 1 sd needs 17 per group, of half an sd 64 (Cohen 1988, the power
    # tables of the t test).
    noise = RunLevelComparison(3, 3, 1.0, 0.9, 1.1, 0.1)
    assert noise.runs_to_resolve(math.expm1(0.1)) == 17
    assert noise.runs_to_resolve(math.expm1(0.05)) == 64


def test_runs_to_resolve_at_another_confidence_is_the_least_n_that_resolves():
    noise = RunLevelComparison(3, 3, 1.0, 0.9, 1.1, 0.1)
    beta = float(st.norm.ppf(0.8))

    def resolves(n):
        return (float(st.t.ppf(0.995, 2 * n - 2)) + beta) * 0.1 * math.sqrt(2 / n) <= 0.1

    n = noise.runs_to_resolve(math.expm1(0.1), confidence=0.99)
    assert resolves(n) and not resolves(n - 1) and n > 17


def test_two_runs_a_side_leave_the_t_interval_two_degrees_of_freedom():
    # A change of 3.7 noise sds takes 3 runs a side: with 2, the t interval has 2 degrees of freedom (t = 4.30).
    assert RunLevelComparison(3, 3, 1.0, 0.9, 1.1, 0.1).runs_to_resolve(math.expm1(0.37)) == 3


def test_a_change_exactly_what_n_runs_resolve_takes_n_runs():
    beta = float(st.norm.ppf(0.8))
    width = (float(st.t.ppf(0.975, 2 * 5 - 2)) + beta) * 0.1 * math.sqrt(2 / 5)
    assert math.log1p(math.expm1(width)) == width
    assert RunLevelComparison(3, 3, 1.0, 0.9, 1.1, 0.1).runs_to_resolve(math.expm1(width)) == 5


def test_runs_to_resolve_at_its_limits():
    assert RunLevelComparison(3, 3, 1.0, 1.0, 1.0, 0.0).runs_to_resolve(0.0) is None     # no change: nothing to find
    assert RunLevelComparison(3, 3, 1.0, 1.0, 1.0, 0.001).runs_to_resolve(0.05) == 2     # the fewest that give a noise
    assert RunLevelComparison(1, 1, 1.0, None, None, None).runs_to_resolve(0.05) is None  # no noise estimate


def test_runs_to_resolve_asks_for_at_most_10000_runs():
    beta, effect = float(st.norm.ppf(0.8)), math.log1p(0.05)

    def noise_resolved_by(n):
        return effect / ((float(st.t.ppf(0.975, 2 * n - 2)) + beta) * math.sqrt(2 / n))

    assert RunLevelComparison(3, 3, 1.0, 0.5, 2.0, noise_resolved_by(10_000)).runs_to_resolve(0.05) == 10_000
    between = (noise_resolved_by(10_000) + noise_resolved_by(10_001)) / 2
    assert RunLevelComparison(3, 3, 1.0, 0.5, 2.0, between).runs_to_resolve(0.05) is None
