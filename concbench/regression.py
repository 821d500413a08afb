"""`concbench compare A B`: the same series in two sessions, and whether B got faster or slower."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from . import stats
from .records import RunRecord, RunStatus

DEFAULT_THRESHOLD = 0.05   # a change smaller than 5 % is never called a regression


@dataclass(frozen=True)
class SeriesChange:
    key: tuple                      # benchmark, variant, options, param, cores
    comparison: stats.Comparison | None
    verdict: str                    # faster | slower | unchanged | missing
    median_a_ns: float | None = None
    median_b_ns: float | None = None

    @property
    def label(self) -> str:
        benchmark, variant, options, param, cores = self.key
        return f"{benchmark} {variant} {param}" + (f" ({options})" if options else "") + f" cores={cores}"


def _samples(runs: list[RunRecord]) -> dict[tuple, list[int]]:
    series: dict[tuple, list[int]] = defaultdict(list)
    for run in runs:
        if run.status == RunStatus.OK:
            series[run.series_key].extend(run.measured_ns())
    return series


def classify(comparison: stats.Comparison, threshold: float) -> str:
    """Slower or faster only when the ratio's interval excludes 1 and the change passes the threshold."""
    low, high, ratio = comparison.ratio_ci_low, comparison.ratio_ci_high, comparison.ratio_of_medians
    if low is None or high is None or ratio is None:
        return "unchanged"
    if low > 1 and ratio > 1 + threshold:
        return "slower"
    if high < 1 and ratio < 1 - threshold:
        return "faster"
    return "unchanged"


def compare_sessions(runs_a: list[RunRecord], runs_b: list[RunRecord],
                     threshold: float = DEFAULT_THRESHOLD) -> list[SeriesChange]:
    a, b = _samples(runs_a), _samples(runs_b)
    changes = []
    for key in sorted(set(a) | set(b), key=str):
        if key not in a or key not in b or not a[key] or not b[key]:
            changes.append(SeriesChange(key, None, "missing"))
            continue
        comparison = stats.compare(a[key], b[key])
        changes.append(SeriesChange(key, comparison, classify(comparison, threshold),
                                    float(np.median(a[key])), float(np.median(b[key]))))
    return changes


def environment_differences(env_a: dict, env_b: dict) -> list[str]:
    """What differs between two sessions' machines and builds: CPU, cores, kernel, toolchains, options."""
    notes = []
    for key in ("cpu_model", "cpus_allowed", "kernel"):
        if env_a.get(key) != env_b.get(key):
            notes.append(f"{key}: {env_a.get(key)} → {env_b.get(key)}")
    tools_a, tools_b = env_a.get("toolchains", {}), env_b.get("toolchains", {})
    for language in sorted(set(tools_a) & set(tools_b)):
        for field in ("version", "build"):
            left, right = (tools_a[language] or {}).get(field), (tools_b[language] or {}).get(field)
            if left != right:
                notes.append(f"{language} {field}: {left} → {right}")
    return notes
