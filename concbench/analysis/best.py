"""The faithful port beside the best its language does (issue 26): where a session ran a model's
`best-<technique>` shape and its faithful one (the shape the model declares first) at the same point,
the pair and how many times faster the best is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .summary import SeriesSummary

BEST_PREFIX = "best-"


@dataclass(frozen=True)
class BestPair:
    faithful: SeriesSummary
    best: SeriesSummary

    @property
    def ratio(self) -> float | None:
        """faithful ÷ best, medians: how many times faster the best shape is."""
        a, b = self.faithful.stats, self.best.stats
        return a.median / b.median if a and b and b.median > 0 else None


def best_pairs(rows: list[SeriesSummary], faithful_shape: Callable[[str, str], str | None]) -> list[BestPair]:
    """Every best shape's series with its faithful shape's at the same benchmark, variant, parameter, other
    options and cores, in the rows' order."""
    by_point = {(r.benchmark, r.variant, r.param, r.options, r.cores, r.shape): r for r in rows}
    pairs = []
    for row in rows:
        if not (row.shape or "").startswith(BEST_PREFIX):
            continue
        faithful = faithful_shape(row.benchmark, row.variant)
        if faithful is None:    # no faithful shape declared: nothing to pair with
            continue
        twin = by_point.get((row.benchmark, row.variant, row.param, row.options, row.cores, faithful))
        if twin is not None:
            pairs.append(BestPair(twin, row))
    return pairs
