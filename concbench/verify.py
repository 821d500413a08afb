"""Checks results: against the reference values of benchmarks/<id>.toml, else across variants."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from enum import StrEnum

from .catalog import Benchmark
from .records import IterationRecord, Reason, RunRecord, RunStatus


class Verdict(StrEnum):
    VERIFIED = "verified"      # equal to the spec's reference
    WRONG = "wrong"            # differs from the reference, or from the majority of variants
    UNVERIFIED = "unverified"  # no reference, and nothing (yet) to agree with
    AGREED = "agreed"          # no reference, but every variant of the session gave this result
    DISAGREE = "disagree"      # no reference and no majority among the variants


def verdict(benchmark: Benchmark, param: str, iteration: int, result: str,
            options: dict[str, str] | None = None) -> Verdict:
    expected = benchmark.reference_for(param, iteration, options)
    if expected is None:
        return Verdict.UNVERIFIED
    return Verdict.VERIFIED if result == expected else Verdict.WRONG


@dataclass(frozen=True)
class _Vote:
    run: RunRecord
    position: int          # index into run.iterations


def _majority(votes: list[_Vote]) -> tuple[str | None, int]:
    """The result a strict majority of the variants gave, and how many variants voted."""
    variants_by_result: dict[str, set[str]] = defaultdict(set)
    voters = set()
    for vote in votes:
        variants_by_result[vote.run.iterations[vote.position].result].add(vote.run.variant)
        voters.add(vote.run.variant)
    winners = [r for r, who in variants_by_result.items() if len(who) * 2 > len(voters)]
    return (winners[0] if len(winners) == 1 else None), len(voters)


def cross_check(runs: list[RunRecord]) -> list[RunRecord]:
    """Agreement where no reference exists; returns the runs whose verdicts changed.

    Iterations without a reference are grouped by benchmark, parameter and iteration index. With at
    least two variants in a group: the majority's result is `agreed`, the odd ones out `wrong`, and
    every result is `disagree` when no strict majority of variants exists."""
    groups: dict[tuple, list[_Vote]] = defaultdict(list)
    for run in runs:
        if run.status not in (RunStatus.OK, RunStatus.WRONG, RunStatus.DISAGREE):
            continue
        for position, it in enumerate(run.iterations):
            if it.verdict in (Verdict.UNVERIFIED, Verdict.AGREED, Verdict.DISAGREE):
                groups[(run.benchmark, run.param, it.index)].append(_Vote(run, position))
    changed: dict[int, RunRecord] = {}
    for votes in groups.values():
        majority, voters = _majority(votes)
        if voters < 2:
            continue
        for vote in votes:
            it = vote.run.iterations[vote.position]
            new = Verdict.DISAGREE if majority is None else Verdict.AGREED if it.result == majority else Verdict.WRONG
            if new != it.verdict:
                vote.run.iterations[vote.position] = IterationRecord(it.index, it.ns, it.result, str(new), it.warmup)
                changed[id(vote.run)] = vote.run
            if new == Verdict.WRONG and vote.run.status != RunStatus.WRONG:
                vote.run.status, vote.run.reason = RunStatus.WRONG, Reason.WRONG_RESULT
                vote.run.message = f"iteration {it.index}: got {it.result!r}, the other variants gave {majority!r}"
            elif new == Verdict.DISAGREE and vote.run.status == RunStatus.OK:
                vote.run.status, vote.run.reason = RunStatus.DISAGREE, Reason.WRONG_RESULT
                vote.run.message = f"iteration {it.index}: no majority among the variants' results"
    return list(changed.values())
