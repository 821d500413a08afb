"""What a report shows when nobody said: which variants to compare and which runs to draw over time.
The HTML page takes these choices; a study names its own pairs instead."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations

from ..spec.catalog import value_order
from ..storing.records import RunRecord, RunStatus
from .summary import SeriesSummary
from .variants import PairComparison, pair_series

MAX_TIMESERIES_PER_BENCHMARK = 10   # chosen runs drawn over time, per benchmark
MAX_TIMEOUT_TIMESERIES = 6          # of which timed-out runs at most


def every_pair(runs: list[RunRecord]) -> list[tuple[str, str]]:
    """Without a study or `--compare`: every pair of variants that ran a benchmark in common, once."""
    by_benchmark: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        by_benchmark[run.benchmark].add(run.variant)
    return sorted({pair for variants in by_benchmark.values() for pair in combinations(sorted(variants), 2)})


def named_pairs(rows: list[SeriesSummary], comparisons: Sequence[tuple[str, str]]) -> list[PairComparison]:
    """The series of each named pair; a side names a variant (its every shape takes part) or one
    `variant [shape]` label, as studies do."""
    pairs: list[PairComparison] = []
    for a, b in dict.fromkeys((str(a), str(b)) for a, b in comparisons):
        found = pair_series(rows, a.split(" [")[0], b.split(" [")[0])
        pairs.extend(p for p in found if ("[" not in a or p.a.label == a) and ("[" not in b or p.b.label == b))
    return pairs


def runs_to_draw(runs: list[RunRecord]) -> tuple[list[RunRecord], int]:
    """Per variant [shape], the run with the largest parameter that has samples; then every timed-out run.

    Returns the runs to draw and how many timed-out runs with samples were left out by the caps."""
    with_samples = [r for r in runs if r.samples]
    chosen: list[RunRecord] = []
    for label in sorted({r.label for r in with_samples}):
        members = [r for r in with_samples if r.label == label]
        best_param = max(value_order(r.param) for r in members)
        at_best = [r for r in members if value_order(r.param) == best_param]
        # Prefer the most cores, then the first run: the largest point this series reached.
        chosen.append(sorted(at_best, key=lambda r: (-r.cores, r.run_index, r.id or 0))[0])
    timeouts = [r for r in with_samples if r.status == RunStatus.TIMEOUT and all(r is not c for c in chosen)]
    timeouts.sort(key=lambda r: (r.label, value_order(r.param), r.cores, r.run_index))
    room = max(0, min(MAX_TIMEOUT_TIMESERIES - sum(1 for r in chosen if r.status == RunStatus.TIMEOUT),
                      MAX_TIMESERIES_PER_BENCHMARK - len(chosen)))
    left_out = max(0, len(timeouts) - room)
    chosen = chosen[:MAX_TIMESERIES_PER_BENCHMARK] + timeouts[:room]
    return chosen, left_out
