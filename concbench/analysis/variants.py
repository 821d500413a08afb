"""`report --compare A B`: the series of two variants side by side, with their statistics."""

from __future__ import annotations

from dataclasses import dataclass

from . import stats
from .summary import SeriesSummary


@dataclass(frozen=True)
class PairComparison:
    a: SeriesSummary
    b: SeriesSummary
    result: stats.Comparison | None   # None when either side has no measured iteration
    why_missing: str = ""

    @property
    def assessment(self) -> str:
        """In words, by the thesis' rule: significant when the z-interval excludes 0."""
        if self.result is None:
            return self.why_missing
        if not self.result.z_significant:
            return "no significant difference"
        faster = self.a.label if self.result.diff_of_means < 0 else self.b.label
        return f"{faster} faster"


def pair_series(rows: list[SeriesSummary], variant_a: str, variant_b: str) -> list[PairComparison]:
    """Every A series against every B series of the same benchmark, parameter, options and cores.

    Shapes are allowed to differ (gcd/cps against sc/asynclet), so each shape of A meets each of B.
    A name is a variant (`swift/sc`) or a variant with its shape (`swift/sc [group]`)."""
    side_a = [r for r in rows if variant_a in (r.variant, r.label)]
    side_b = [r for r in rows if variant_b in (r.variant, r.label)]
    pairs = []
    for a in side_a:
        for b in side_b:
            if (a.benchmark, a.param, a.options, a.cores) != (b.benchmark, b.param, b.options, b.cores):
                continue
            samples_a, samples_b = a.measured_ns(), b.measured_ns()
            if not samples_a or not samples_b:
                missing = a.label if not samples_a else b.label
                pairs.append(PairComparison(a, b, None, f"{missing}: no finished run"))
                continue
            pairs.append(PairComparison(a, b, stats.compare(samples_a, samples_b)))
    return pairs
