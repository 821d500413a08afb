"""Statistics for concbench: summaries, comparisons and the studies' own methods.

Pure functions, no I/O. Honesty rule: a figure that cannot be computed (too few
samples, zero variance, division by zero) is ``None`` and a warning says why
(a summary's warnings carry their kind, for counting); it is never silently 0, and a comparison never reports significance from a
test that could not be computed.
"""

from __future__ import annotations

import math
import warnings as _pywarnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

import numpy as np
from scipy import special as _special

__all__ = [
    "CV_WARN_THRESHOLD",
    "Summary",
    "Comparison",
    "WarningKind",
    "Note",
    "summary_of",
    "compare",
    "geometric_mean",
    "normalised",
    "RunLevelComparison",
    "compare_runs",
]

CV_WARN_THRESHOLD = 0.05

# Bootstrap size: ~2000 resamples gives stable 95 % percentile bounds and stays
# fast (n=1000 samples -> 2e6 values per batch).
_N_RESAMPLES = 2000

# The bimodality rules' parameters (see _bimodal_reason).
_BIMODAL_MIN_N = 10
_KDE_GRID = 512
_MIN_MODE_MASS = 0.1
_DIP_RATIO = 0.6
_MIN_CLUSTER_SIZE = 3
_GAP_FACTOR = 1.5


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    sd: float | None  # sample sd (ddof=1); None when n < 2
    cv: float | None  # sd / mean; None when sd is None or mean == 0
    min: float
    max: float
    ci_low: float | None  # Student-t interval of the mean
    ci_high: float | None
    median_ci_low: float | None  # percentile bootstrap interval of the median
    median_ci_high: float | None
    warnings: tuple[Note, ...]


@dataclass(frozen=True)
class Comparison:
    n_a: int
    n_b: int
    ratio_of_medians: float | None  # median(b) / median(a); None when median(a) == 0
    ratio_ci_low: float | None
    ratio_ci_high: float | None
    welch_t: float | None
    welch_p: float | None
    mannwhitney_u: float | None
    mannwhitney_p: float | None
    diff_of_means: float  # mean(a) - mean(b)
    z_ci_low: float | None
    z_ci_high: float | None
    z_significant: bool
    warnings: tuple[str, ...]


# --------------------------------------------------------------------------- helpers


def _as_array(samples: Sequence[float], name: str = "samples") -> np.ndarray:
    x = np.asarray(samples, dtype=float).ravel()
    if x.size == 0:
        raise ValueError(f"{name}: empty sequence")
    # NaN/inf would poison every figure silently; refuse them loudly instead.
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return x


def _check_confidence(confidence: float) -> None:
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def _finite_or_none(v: float) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def _pct(v: float) -> str:
    return f"{100.0 * v:.1f}%"


def _median_axis(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(x, axis=axis)


def _ratio_of_medians_axis(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.median(b, axis=axis) / np.median(a, axis=axis)


def _scipy_stats():
    """scipy.stats, imported when first needed: loading it takes most of a second, which every start of the
    CLI paid (quantiles come from the far lighter scipy.special)."""
    from scipy import stats
    return stats


def _bootstrap_interval(data: tuple[np.ndarray, ...], statistic: Callable[..., np.ndarray],
                        confidence: float, seed: int) -> tuple[float | None, float | None]:
    # Percentile rather than BCa: BCa's acceleration comes from the jackknife,
    # which is inconsistent for the median and yields NaN on tied data.
    with _pywarnings.catch_warnings():
        _pywarnings.simplefilter("ignore")
        res = _scipy_stats().bootstrap(
            data,
            statistic,
            n_resamples=_N_RESAMPLES,
            vectorized=True,
            paired=False,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    lo, hi = res.confidence_interval.low, res.confidence_interval.high
    lo_f, hi_f = _finite_or_none(lo), _finite_or_none(hi)
    if lo_f is None or hi_f is None:
        return None, None
    return lo_f, hi_f


# --------------------------------------------------------------------------- summary


class WarningKind(StrEnum):
    """What a summary's warning is about: reports count series per kind."""

    HIGH_CV = f"CV above {100.0 * CV_WARN_THRESHOLD:g} %"
    FEW = "too few iterations for an interval"
    BIMODAL = "bimodal samples"
    CONSTANT = "constant samples"
    NO_MEDIAN_INTERVAL = "no interval of the median"


class Note(NamedTuple):
    """One line about a set of samples or a series: what kind of thing it is (for counting; a summary's
    warnings are of a WarningKind) and what it says."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


def summary_of(samples: Sequence[float], confidence: float = 0.95, seed: int = 0) -> Summary:
    """Describe one set of samples.

    Raises ValueError on an empty sequence, non-finite values or a confidence
    outside (0, 1). The bootstrap is deterministic for a given ``seed``.
    """
    _check_confidence(confidence)
    x = _as_array(samples)
    n = int(x.size)
    warn: list[Note] = []

    mean = float(np.mean(x))
    median = float(np.median(x))
    sd: float | None = None
    cv: float | None = None
    ci_low = ci_high = None
    mci_low = mci_high = None

    if n < 2:
        warn.append(Note(WarningKind.FEW, "n=1: no sd, cv or interval"))
    else:
        sd = float(np.std(x, ddof=1))
        if mean != 0.0:
            cv = sd / mean
            if abs(cv) > CV_WARN_THRESHOLD:
                warn.append(Note(WarningKind.HIGH_CV, f"cv {_pct(abs(cv))} > {100.0 * CV_WARN_THRESHOLD:g}%"))
        else:
            warn.append(Note(WarningKind.CONSTANT, "mean is 0: cv undefined"))

        if sd == 0.0:
            # A zero-width interval would claim certainty the data cannot give.
            warn.append(Note(WarningKind.CONSTANT, "zero variance: no confidence interval of the mean"))
        else:
            half = float(_special.stdtrit(n - 1, (1.0 + confidence) / 2.0)) * sd / math.sqrt(n)
            ci_low, ci_high = mean - half, mean + half

    if n == 2:
        warn.append(Note(WarningKind.FEW, "n=2: no interval of the median"))
    elif n >= 3:
        if float(np.ptp(x)) == 0.0:
            warn.append(Note(WarningKind.CONSTANT, "constant samples: no interval of the median"))
        else:
            mci_low, mci_high = _bootstrap_interval((x,), _median_axis, confidence, seed)
            if mci_low is None:
                warn.append(Note(WarningKind.NO_MEDIAN_INTERVAL,
                                          "bootstrap of the median failed: no interval of the median"))

    reason = _bimodal_reason(x)
    if reason is not None:
        warn.append(Note(WarningKind.BIMODAL, f"bimodal samples ({reason})"))

    return Summary(
        n=n,
        median=median,
        mean=mean,
        sd=sd,
        cv=cv,
        min=float(np.min(x)),
        max=float(np.max(x)),
        ci_low=ci_low,
        ci_high=ci_high,
        median_ci_low=mci_low,
        median_ci_high=mci_high,
        warnings=tuple(warn),
    )


# --------------------------------------------------------------------------- bimodality


def _resolution(xs: np.ndarray) -> float:
    """Smallest positive step between distinct sorted values (timer quantum, if any)."""
    d = np.diff(np.unique(xs))
    return float(d.min()) if d.size else 0.0


def _kde_dip(xs: np.ndarray) -> str | None:
    """Rule A of looks_bimodal; returns a description when it fires."""
    n = xs.size
    sd = float(np.std(xs, ddof=1))
    # Silverman's sd-based bandwidth oversmooths multimodal data: conservative.
    # The resolution floor stops timer quantisation from looking like many modes.
    h = max(1.06 * sd * n ** -0.2, _resolution(xs))
    grid = np.linspace(xs[0] - 3.0 * h, xs[-1] + 3.0 * h, _KDE_GRID)
    f = np.zeros_like(grid)
    for start in range(0, n, 4096):  # chunks keep memory bounded for long series
        chunk = xs[start:start + 4096]
        f += np.exp(-0.5 * ((grid[:, None] - chunk[None, :]) / h) ** 2).sum(axis=1)
    mass = np.cumsum(f) / f.sum()
    peak_left = np.maximum.accumulate(f)
    peak_right = np.maximum.accumulate(f[::-1])[::-1]
    i = np.arange(1, f.size - 1)
    antimode = (f[i] < f[i - 1]) & (f[i] <= f[i + 1])
    antimode &= (mass[i] >= _MIN_MODE_MASS) & (mass[i] <= 1.0 - _MIN_MODE_MASS)
    antimode &= f[i] <= _DIP_RATIO * np.minimum(peak_left[i - 1], peak_right[i + 1])
    hits = i[antimode]
    if hits.size == 0:
        return None
    at = float(grid[hits[np.argmin(f[hits])]])
    below = int(np.count_nonzero(xs < at))
    return f"density dip at {at:.4g}: {below} values below, {n - below} above"


def _best_split(xs: np.ndarray) -> int | None:
    """Two-cluster split of sorted ``xs`` minimising the within-cluster sum of squares.

    Only splits leaving each cluster at least max(3, 10 % of n) values count,
    so a few outliers cannot form a "mode". Clusters are xs[:k] and xs[k:].
    """
    n = xs.size
    m = max(_MIN_CLUSTER_SIZE, math.ceil(_MIN_MODE_MASS * n))
    if n < 2 * m:
        return None
    c = xs - xs.mean()  # centred so the cumulative sums keep their precision
    s1 = np.cumsum(c)
    s2 = np.cumsum(c * c)
    ks = np.arange(m, n - m + 1)
    left_n = ks.astype(float)
    left_ss = s2[ks - 1] - s1[ks - 1] ** 2 / left_n
    right_ss = (s2[-1] - s2[ks - 1]) - (s1[-1] - s1[ks - 1]) ** 2 / (n - left_n)
    return int(ks[int(np.argmin(left_ss + right_ss))])


def _cluster_gap(xs: np.ndarray) -> str | None:
    """Rule B of looks_bimodal; returns a description when it fires."""
    k = _best_split(xs)
    if k is None:
        return None
    lo, hi = xs[:k], xs[k:]
    gap = float(hi[0] - lo[-1])
    widest = max(float(np.ptp(lo)), float(np.ptp(hi)))
    # A gap of one quantum between two runs of tied values is quantisation, not modes.
    if gap <= _resolution(xs) or gap < _GAP_FACTOR * widest:
        return None
    return (f"{lo.size} values in [{lo[0]:.4g}, {lo[-1]:.4g}], "
            f"{hi.size} in [{hi[0]:.4g}, {hi[-1]:.4g}]")


def _bimodal_reason(x: np.ndarray) -> str | None:
    """Why the samples form two (or more) separate groups, or None: a conservative check.

    Never flags fewer than 10 values or a constant sample. Otherwise flags when
    either rule holds:

    A. density dip: a Gaussian kernel density estimate, bandwidth
       h = max(1.06 * sd * n^(-1/5), resolution) (Silverman's sd rule, which
       oversmooths multimodal data; resolution = the smallest step between
       distinct values, so timer quantisation does not create modes), has a
       local minimum with at least 10 % of the mass on each side and a density
       at most 0.6 times the lower of the highest peaks on its two sides.
    B. empty gap (catches tight clusters in small samples, where A's bandwidth
       is wide): the split of the sorted values into two clusters that
       minimises the within-cluster sum of squares, each cluster holding at
       least max(3, 10 % of n) values, leaves an empty gap at least 1.5 times
       the range of the wider cluster and larger than the resolution.

    Calibration (simulation, 200 seeds each, n = 10..1000): normal, t(3),
    uniform, exponential, log-normal and Pareto samples are flagged in at most
    a few percent of cases (mostly n <= 20); 50/50 clusters 1.0 vs 2.0 (sd
    0.05) are always flagged; equal normal mixtures 6 sd apart are flagged
    from n ~ 50.
    """
    if x.size < _BIMODAL_MIN_N or float(np.ptp(x)) == 0.0:
        return None
    xs = np.sort(x)
    return _kde_dip(xs) or _cluster_gap(xs)


# --------------------------------------------------------------------------- comparison


def compare(a: Sequence[float], b: Sequence[float], confidence: float = 0.95,
            seed: int = 0) -> Comparison:
    """Compare sample sets ``a`` and ``b`` (b relative to a).

    ratio_of_medians = median(b) / median(a); diff_of_means = mean(a) - mean(b);
    Welch's t and the z-interval are for a - b. The z-interval is
    (mean_a - mean_b) +/- z_{(1+conf)/2} * sqrt(sa^2/na + sb^2/nb) (Swift thesis);
    z_significant is True only when that interval exists and excludes 0.
    Raises ValueError on an empty or non-finite input or a bad confidence.
    """
    _check_confidence(confidence)
    xa = _as_array(a, "a")
    xb = _as_array(b, "b")
    na, nb = int(xa.size), int(xb.size)
    warn: list[str] = []

    med_a, med_b = float(np.median(xa)), float(np.median(xb))
    mean_a, mean_b = float(np.mean(xa)), float(np.mean(xb))
    sd_a = float(np.std(xa, ddof=1)) if na >= 2 else None
    sd_b = float(np.std(xb, ddof=1)) if nb >= 2 else None
    both_constant = float(np.ptp(xa)) == 0.0 and float(np.ptp(xb)) == 0.0

    # Ratio of medians and its bootstrap interval.
    ratio: float | None = None
    r_lo = r_hi = None
    if med_a == 0.0:
        warn.append("median(a) is 0: no ratio of medians")
    else:
        ratio = med_b / med_a
        if na < 3 or nb < 3:
            warn.append(f"n_a={na}, n_b={nb}: no ratio interval (need 3 each)")
        elif both_constant:
            warn.append("both samples constant: no ratio interval")
        else:
            r_lo, r_hi = _bootstrap_interval((xa, xb), _ratio_of_medians_axis, confidence, seed)
            if r_lo is None:
                # A resampled median of a can be 0 when a contains zeros.
                warn.append("ratio bootstrap not finite: no ratio interval")

    # Welch's t-test needs a variance estimate from each side, and at least one non-zero.
    welch_t = welch_p = None
    if sd_a is None or sd_b is None:
        warn.append(f"n_a={na}, n_b={nb}: no Welch test (need 2 each)")
    elif sd_a == 0.0 and sd_b == 0.0:
        warn.append("zero variance in both samples: no Welch test")
    else:
        with _pywarnings.catch_warnings():
            _pywarnings.simplefilter("ignore")
            res = _scipy_stats().ttest_ind(xa, xb, equal_var=False)
        welch_t, welch_p = _finite_or_none(res.statistic), _finite_or_none(res.pvalue)
        if welch_t is None or welch_p is None:
            welch_t = welch_p = None
            warn.append("Welch test not finite: no result")

    # Mann-Whitney U (U statistic of a). scipy picks exact or asymptotic.
    mw_u = mw_p = None
    with _pywarnings.catch_warnings():
        _pywarnings.simplefilter("ignore")
        try:
            res = _scipy_stats().mannwhitneyu(xa, xb, alternative="two-sided")
            mw_u, mw_p = _finite_or_none(res.statistic), _finite_or_none(res.pvalue)
        except ValueError:
            pass
    if mw_u is None or mw_p is None:
        mw_u = mw_p = None
        warn.append("Mann-Whitney test could not be computed")

    # Difference-of-means z-interval (Swift thesis).
    diff = mean_a - mean_b
    z_lo = z_hi = None
    if sd_a is None or sd_b is None:
        warn.append(f"n_a={na}, n_b={nb}: no z interval (need 2 each)")
    else:
        se = math.sqrt(sd_a ** 2 / na + sd_b ** 2 / nb)
        if se == 0.0:
            warn.append("zero variance in both samples: no z interval")
        else:
            z = float(_special.ndtri((1.0 + confidence) / 2.0))
            lo, hi = diff - z * se, diff + z * se
            if not (math.isfinite(lo) and math.isfinite(hi)):   # the means or their spread overflow a float
                warn.append("z interval not finite: no z interval")
            else:
                z_lo, z_hi = lo, hi
            if z_lo is not None and min(na, nb) < 30:
                # z ignores the uncertainty in sa, sb: too narrow for small n.
                warn.append(f"z interval with n<30 (n_a={na}, n_b={nb}) is too narrow; "
                            "prefer Welch")
    z_significant = z_lo is not None and z_hi is not None and (z_lo > 0.0 or z_hi < 0.0)

    return Comparison(
        n_a=na,
        n_b=nb,
        ratio_of_medians=ratio,
        ratio_ci_low=r_lo,
        ratio_ci_high=r_hi,
        welch_t=welch_t,
        welch_p=welch_p,
        mannwhitney_u=mw_u,
        mannwhitney_p=mw_p,
        diff_of_means=diff,
        z_ci_low=z_lo,
        z_ci_high=z_hi,
        z_significant=bool(z_significant),
        warnings=tuple(warn),
    )


# --------------------------------------------------------------------------- study methods


def geometric_mean(values: Sequence[float]) -> float:
    """SCOOP paper: geometric mean. ValueError on empty input or non-positive values."""
    x = _as_array(values, "values")
    if np.any(x <= 0.0):
        raise ValueError("geometric mean needs strictly positive values")
    # Mean of logs avoids overflow of a long product.
    return float(np.exp(np.mean(np.log(x))))


def normalised(values: Sequence[float], reference: float) -> list[float]:
    """Countdown thread's "T" column: 100 * v / reference. ValueError if reference is 0."""
    ref = float(reference)
    if ref == 0.0 or not math.isfinite(ref):
        raise ValueError(f"reference must be finite and non-zero, got {reference!r}")
    return [100.0 * float(v) / ref for v in values]


# --------------------------------------------------------------------------- sessions


@dataclass(frozen=True)
class RunLevelComparison:
    """B against A with the run (process) as the unit: one observation per run, its median.

    Iterations of one process share its start-up, memory layout and scheduling luck, so they
    are not independent; most of the variance between sessions of one commit lies between
    processes. The log run medians of each side are compared with Welch's t: `ratio` =
    exp(mean log B − mean log A) and its interval. None where fewer than 2 runs per side
    leave no estimate of the between-run noise."""

    runs_a: int
    runs_b: int
    ratio: float
    ratio_low: float | None
    ratio_high: float | None
    run_sd: float | None          # pooled sd of the log run medians: the between-run noise

    def runs_to_resolve(self, change: float, power: float = 0.8, confidence: float = 0.95) -> int | None:
        """Runs per session that a change of this size needs to stand out of the between-run noise:
        the smallest n whose two-sided t interval (df = 2n - 2) at `confidence`, with the given
        power, is narrower than the change; None beyond 10 000 runs."""
        if self.run_sd is None or change <= 0:
            return None
        effect, beta = math.log1p(change), float(_special.ndtri(power))
        for n in range(2, 10_001):
            t = float(_special.stdtrit(2 * n - 2, 1 - (1 - confidence) / 2))
            if (t + beta) * self.run_sd * math.sqrt(2 / n) <= effect:
                return n
        return None


def compare_runs(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]],
                 confidence: float = 0.95) -> RunLevelComparison:
    """Compare two sessions' runs of one series (each run a list of measured iteration times)."""
    _check_confidence(confidence)
    log_a = np.log([float(np.median(_as_array(run, "a run"))) for run in a])
    log_b = np.log([float(np.median(_as_array(run, "b run"))) for run in b])
    if not (np.all(np.isfinite(log_a)) and np.all(np.isfinite(log_b))):
        raise ValueError("run medians must be positive")
    diff = float(log_b.mean() - log_a.mean())
    na, nb = len(log_a), len(log_b)
    if na < 2 or nb < 2:
        return RunLevelComparison(na, nb, math.exp(diff), None, None, None)
    va, vb = float(log_a.var(ddof=1)), float(log_b.var(ddof=1))
    se2 = va / na + vb / nb
    pooled = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    if se2 == 0.0:
        return RunLevelComparison(na, nb, math.exp(diff), math.exp(diff), math.exp(diff), pooled)
    df = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1)) if va + vb > 0 else na + nb - 2
    half = float(_special.stdtrit(df, 1 - (1 - confidence) / 2)) * math.sqrt(se2)
    return RunLevelComparison(na, nb, math.exp(diff), math.exp(diff - half), math.exp(diff + half), pooled)
