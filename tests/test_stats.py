"""Tests for concbench.analysis.stats, checked against values computed independently here
(hand formulas, textbook quantiles) or against scipy called directly."""

from __future__ import annotations

import dataclasses
import math
import statistics
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats as st

from concbench.analysis.stats import (
    CV_WARN_THRESHOLD,
    Comparison,
    Summary,
    WarningKind,
    compare,
    geometric_mean,
    normalised,
    summary_of,
)


def texts(summary: Summary) -> list[str]:
    return [w.text for w in summary.warnings]


def kinds(summary: Summary) -> set[WarningKind]:
    return {w.kind for w in summary.warnings}


def looks_bimodal(samples) -> bool:
    """What a report notes: a summary's warning of the bimodal kind."""
    return WarningKind.BIMODAL in kinds(summary_of(samples))

# Textbook quantiles (printed t and z tables), deliberately not from scipy.
T_975_DF4 = 2.776445
T_975_DF1 = 12.706205
T_950_DF4 = 2.131847
Z_975 = 1.959964
Z_900 = 1.281552


def two_clusters(n_each: int = 50, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(1.0, 0.05, n_each), rng.normal(2.0, 0.05, n_each)])


# --------------------------------------------------------------------------- summary_of


def test_summary_of_one_to_five_matches_hand_formulas():
    s = summary_of([1, 2, 3, 4, 5])
    assert isinstance(s, Summary)
    assert s.n == 5
    assert s.mean == pytest.approx(3.0)
    assert s.median == pytest.approx(3.0)
    assert s.sd == pytest.approx(math.sqrt(2.5))
    assert s.cv == pytest.approx(math.sqrt(2.5) / 3.0)
    assert (s.min, s.max) == (1.0, 5.0)
    half = T_975_DF4 * math.sqrt(2.5) / math.sqrt(5)
    assert s.ci_low == pytest.approx(3.0 - half, abs=1e-5)
    assert s.ci_high == pytest.approx(3.0 + half, abs=1e-5)


def test_summary_confidence_level_is_used():
    s = summary_of([1, 2, 3, 4, 5], confidence=0.90)
    half = T_950_DF4 * math.sqrt(2.5) / math.sqrt(5)
    assert s.ci_low == pytest.approx(3.0 - half, abs=1e-5)
    assert s.ci_high == pytest.approx(3.0 + half, abs=1e-5)


def test_summary_is_frozen():
    s = summary_of([1.0, 2.0, 3.0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.mean = 0.0  # type: ignore[misc]


def test_cv_warning_on_noisy_sample_with_its_value():
    noisy = [100.0, 80.0, 120.0, 90.0, 110.0]
    cv = statistics.stdev(noisy) / statistics.mean(noisy)
    assert cv > CV_WARN_THRESHOLD
    s = summary_of(noisy)
    assert s.cv == pytest.approx(cv)
    assert f"cv {100 * cv:.1f}% > 5%" in texts(s) and kinds(s) == {WarningKind.HIGH_CV}


def test_no_cv_warning_on_tight_sample():
    tight = [100.0, 101.0, 99.0, 100.5, 99.5]
    s = summary_of(tight)
    assert s.cv is not None and s.cv < CV_WARN_THRESHOLD
    assert not any(w.startswith("cv") for w in texts(s))
    assert s.warnings == ()


def test_n1_gives_none_and_warning():
    s = summary_of([7.5])
    assert (s.n, s.mean, s.median, s.min, s.max) == (1, 7.5, 7.5, 7.5, 7.5)
    assert s.sd is None and s.cv is None
    assert s.ci_low is None and s.ci_high is None
    assert s.median_ci_low is None and s.median_ci_high is None
    assert any("n=1" in w for w in texts(s)) and kinds(s) == {WarningKind.FEW}


def test_n2_has_t_interval_but_no_median_interval():
    s = summary_of([10.0, 12.0])
    assert s.sd == pytest.approx(2.0 / math.sqrt(2))
    half = T_975_DF1 * (2.0 / math.sqrt(2)) / math.sqrt(2)
    assert s.ci_low == pytest.approx(11.0 - half, abs=1e-4)
    assert s.ci_high == pytest.approx(11.0 + half, abs=1e-4)
    assert s.median_ci_low is None and s.median_ci_high is None
    assert any("n=2" in w for w in texts(s)) and WarningKind.FEW in kinds(s)


def test_constant_samples():
    s = summary_of([3.0] * 20)
    assert s.sd == 0.0
    assert s.cv == 0.0
    assert s.ci_low is None and s.ci_high is None  # zero-width interval would overclaim
    assert s.median_ci_low is None and s.median_ci_high is None
    assert s.warnings
    assert not any("bimodal" in w for w in texts(s))
    assert not any(w.startswith("cv") for w in texts(s))
    assert kinds(s) == {WarningKind.CONSTANT}


def test_zero_mean_gives_no_cv():
    s = summary_of([-1.0, 0.0, 1.0])
    assert s.mean == 0.0
    assert s.cv is None
    assert any("cv" in w for w in texts(s))


@pytest.mark.parametrize("bad", [[], [1.0, float("nan")], [1.0, float("inf")]])
def test_summary_of_rejects_empty_and_non_finite(bad):
    with pytest.raises(ValueError):
        summary_of(bad)


@pytest.mark.parametrize("conf", [0.0, 1.0, 1.5, -0.1])
def test_summary_of_rejects_bad_confidence(conf):
    with pytest.raises(ValueError):
        summary_of([1.0, 2.0, 3.0], confidence=conf)


def test_bootstrap_is_deterministic_for_a_seed():
    x = np.random.default_rng(3).normal(10, 1, 50)
    a = summary_of(x, seed=42)
    b = summary_of(x, seed=42)
    c = summary_of(x, seed=43)
    assert (a.median_ci_low, a.median_ci_high) == (b.median_ci_low, b.median_ci_high)
    assert (a.median_ci_low, a.median_ci_high) != (c.median_ci_low, c.median_ci_high)


def test_median_ci_contains_median_and_has_plausible_width():
    x = np.random.default_rng(5).normal(50.0, 2.0, 200)
    s = summary_of(x)
    assert s.median_ci_low is not None and s.median_ci_high is not None
    assert s.median_ci_low < s.median < s.median_ci_high
    assert s.min <= s.median_ci_low and s.median_ci_high <= s.max
    # Asymptotic width of a 95 % median interval for a normal: 2*1.96*sqrt(pi/2)*sd/sqrt(n).
    expected = 2 * Z_975 * math.sqrt(math.pi / 2) * 2.0 / math.sqrt(200)
    assert s.median_ci_high - s.median_ci_low == pytest.approx(expected, rel=0.35)


def test_wider_confidence_gives_wider_intervals():
    x = np.random.default_rng(9).normal(10, 1, 40)
    s95, s99 = summary_of(x, 0.95), summary_of(x, 0.99)
    assert s99.ci_high - s99.ci_low > s95.ci_high - s95.ci_low
    assert s99.median_ci_high - s99.median_ci_low >= s95.median_ci_high - s95.median_ci_low


def test_summary_flags_bimodal_samples():
    s = summary_of(two_clusters())
    assert any(w.startswith("bimodal samples (") for w in texts(s))


# --------------------------------------------------------------------------- bimodality


def test_normal_sample_is_not_bimodal():
    assert not looks_bimodal(np.random.default_rng(0).normal(10, 1, 100))


def test_constant_sample_is_not_bimodal():
    assert not looks_bimodal([5.0] * 100)


def test_two_separated_clusters_are_bimodal():
    assert looks_bimodal(two_clusters(50))


def test_small_tight_clusters_are_bimodal():
    assert looks_bimodal([1.0, 1.01, 0.99, 1.02, 0.98, 2.0, 2.01, 1.99, 2.02, 1.98])


def test_fewer_than_ten_values_never_bimodal():
    assert not looks_bimodal([1.0, 1.01, 0.99, 1.02, 2.0, 2.01, 1.99, 2.02, 1.98])


def test_skewed_unimodal_timings_are_not_bimodal():
    assert not looks_bimodal(np.random.default_rng(1).lognormal(0.0, 1.0, 200))


def test_timer_quantisation_is_not_bimodal():
    # Times quantised to whole ticks: several distinct values, one mode.
    assert not looks_bimodal(np.round(np.random.default_rng(2).normal(10, 0.5, 300)))


def test_single_outlier_is_not_bimodal():
    x = np.append(np.random.default_rng(4).normal(10, 0.1, 99), 50.0)
    assert not looks_bimodal(x)


@pytest.mark.parametrize("family", ["normal", "uniform", "exponential", "lognormal"])
def test_unimodal_families_are_not_flagged_across_seeds(family):
    # Conservativeness: 30 seeded unimodal samples of n=50, none flagged.
    def draw(rng):
        return {
            "normal": lambda: rng.normal(10, 1, 50),
            "uniform": lambda: rng.uniform(0, 1, 50),
            "exponential": lambda: rng.exponential(1, 50),
            "lognormal": lambda: rng.lognormal(0, 0.5, 50),
        }[family]()

    flagged = [s for s in range(30) if looks_bimodal(draw(np.random.default_rng(s)))]
    assert flagged == []


def test_unbalanced_clusters_are_bimodal():
    rng = np.random.default_rng(6)
    assert looks_bimodal(np.concatenate([rng.normal(1.0, 0.05, 80), rng.normal(2.0, 0.05, 20)]))


# --------------------------------------------------------------------------- compare


def test_compare_clearly_different_samples():
    rng = np.random.default_rng(10)
    a = rng.normal(10.0, 0.5, 30)
    b = rng.normal(12.0, 0.5, 30)
    c = compare(a, b)
    assert isinstance(c, Comparison)
    assert (c.n_a, c.n_b) == (30, 30)
    assert c.ratio_of_medians == pytest.approx(np.median(b) / np.median(a))
    assert c.ratio_ci_low is not None and c.ratio_ci_high is not None
    assert 1.0 < c.ratio_ci_low <= c.ratio_of_medians <= c.ratio_ci_high
    assert c.diff_of_means == pytest.approx(np.mean(a) - np.mean(b))
    assert c.diff_of_means < 0
    assert c.z_significant
    assert c.z_ci_high < 0
    assert c.welch_p < 1e-6 and c.mannwhitney_p < 1e-6


def test_compare_same_distribution_not_significant():
    a = np.random.default_rng(20).normal(10.0, 1.0, 50)
    b = np.random.default_rng(21).normal(10.0, 1.0, 50)
    c = compare(a, b)
    assert not c.z_significant
    assert c.z_ci_low < 0 < c.z_ci_high
    assert c.ratio_ci_low < 1.0 < c.ratio_ci_high
    assert c.welch_p > 0.05


def test_welch_and_mannwhitney_agree_with_scipy():
    rng = np.random.default_rng(30)
    a = rng.normal(5.0, 1.0, 25)
    b = rng.normal(5.5, 2.0, 40)
    c = compare(a, b)
    w = st.ttest_ind(a, b, equal_var=False)
    m = st.mannwhitneyu(a, b, alternative="two-sided")
    assert c.welch_t == pytest.approx(float(w.statistic))
    assert c.welch_p == pytest.approx(float(w.pvalue))
    assert c.mannwhitney_u == pytest.approx(float(m.statistic))
    assert c.mannwhitney_p == pytest.approx(float(m.pvalue))


def test_z_interval_on_hand_data():
    a = [1.0, 2.0, 3.0, 4.0, 5.0]  # mean 3, variance 2.5
    b = [2.0, 4.0, 6.0, 8.0, 10.0]  # mean 6, variance 10
    se = math.sqrt(2.5 / 5 + 10.0 / 5)
    c = compare(a, b)
    assert c.diff_of_means == pytest.approx(-3.0)
    assert c.z_ci_low == pytest.approx(-3.0 - Z_975 * se, abs=1e-5)
    assert c.z_ci_high == pytest.approx(-3.0 + Z_975 * se, abs=1e-5)
    assert c.z_ci_high > 0 and not c.z_significant  # -3 +/- 3.099 straddles 0
    c80 = compare(a, b, confidence=0.80)
    assert c80.z_ci_low == pytest.approx(-3.0 - Z_900 * se, abs=1e-5)
    assert c80.z_ci_high == pytest.approx(-3.0 + Z_900 * se, abs=1e-5)
    assert c80.z_significant
    assert any("n<30" in w for w in c.warnings)


def test_compare_identical_constant_samples():
    c = compare([3.0] * 10, [3.0] * 10)
    assert c.ratio_of_medians == 1.0
    assert c.diff_of_means == 0.0
    assert c.welch_t is None and c.welch_p is None
    assert c.z_ci_low is None and c.z_ci_high is None
    assert c.z_significant is False
    assert c.ratio_ci_low is None and c.ratio_ci_high is None
    assert c.warnings


def test_compare_different_constants_is_not_called_significant():
    # No variance on either side: the z test cannot be computed, so no claim.
    c = compare([1.0] * 5, [2.0] * 5)
    assert c.z_ci_low is None and c.z_significant is False
    assert c.welch_t is None and c.welch_p is None
    assert c.ratio_of_medians == 2.0


def test_compare_single_samples():
    c = compare([1.0], [2.0])
    assert c.ratio_of_medians == 2.0
    assert c.diff_of_means == -1.0
    assert c.welch_p is None and c.z_ci_low is None and c.ratio_ci_low is None
    assert c.z_significant is False
    assert c.warnings


def test_compare_zero_median_gives_no_ratio():
    c = compare([0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 3.0])
    assert c.ratio_of_medians is None
    assert c.ratio_ci_low is None and c.ratio_ci_high is None
    assert any("median(a)" in w for w in c.warnings)


def test_compare_ratio_ci_deterministic_for_a_seed():
    rng = np.random.default_rng(40)
    a, b = rng.normal(10, 1, 30), rng.normal(11, 1, 30)
    c1, c2, c3 = compare(a, b, seed=7), compare(a, b, seed=7), compare(a, b, seed=8)
    assert (c1.ratio_ci_low, c1.ratio_ci_high) == (c2.ratio_ci_low, c2.ratio_ci_high)
    assert (c1.ratio_ci_low, c1.ratio_ci_high) != (c3.ratio_ci_low, c3.ratio_ci_high)


@pytest.mark.parametrize("a,b", [([], [1.0]), ([1.0], []), ([1.0, float("nan")], [1.0])])
def test_compare_rejects_empty_and_non_finite(a, b):
    with pytest.raises(ValueError):
        compare(a, b)


# --------------------------------------------------------------------------- study methods


def test_geometric_mean():
    assert geometric_mean([1.0, 4.0, 16.0]) == pytest.approx(4.0)
    assert geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert geometric_mean([1e300, 1e300]) == pytest.approx(1e300)  # no overflow
    for bad in ([], [1.0, 0.0], [2.0, -1.0]):
        with pytest.raises(ValueError):
            geometric_mean(bad)


def test_normalised():
    assert normalised([50.0, 100.0, 200.0], 100.0) == pytest.approx([50.0, 100.0, 200.0])
    assert normalised([2.0, 4.0], 8.0) == pytest.approx([25.0, 50.0])
    with pytest.raises(ValueError):
        normalised([1.0], 0.0)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")   # numpy says so while it overflows
def test_a_z_interval_that_overflows_is_none_not_nan():
    # Values near the largest float: the spread overflows, and an uncomputable figure is None, never NaN.
    c = compare([1.5e308, 1.7e308, 1.6e308], [1.0, 2.0, 3.0])
    assert c.z_ci_low is None and c.z_ci_high is None and not c.z_significant
    assert "z interval not finite: no z interval" in c.warnings


def test_starting_the_cli_does_not_load_scipy_stats():
    # Every start of the CLI paid most of a second for scipy.stats (the tests start it about a hundred times); the
    # quantiles come from scipy.special, and scipy.stats loads where a bootstrap or a test needs it.
    code = "import sys, concbench.cli, concbench.report.html; print('scipy.stats' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
