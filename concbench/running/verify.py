"""Judges runs: results against benchmarks/<id>.toml, deterministic metrics, agreement across variants.

Everything that decides whether a run is right lives here; session.py only runs and records.
A wrong answer wins over everything that happened after it: a run that printed a wrong result
and then timed out or crashed is `wrong`, with the timeout or crash kept in its message and
its stall, exit code and signal fields."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from ..spec.catalog import REPEAT, Benchmark
from ..storing.records import Reason, RunRecord, RunStatus


class Verdict(StrEnum):
    VERIFIED = "verified"      # equal to the spec's reference
    WRONG = "wrong"            # differs from the reference, or from the majority of variants
    UNVERIFIED = "unverified"  # no reference, and nothing (yet) to agree with
    AGREED = "agreed"          # no reference, but a strict majority of the variants gave this result
    DISAGREE = "disagree"      # no reference and no majority among the variants


def verdict(benchmark: Benchmark, param: str, iteration: int, result: str,
            options: dict[str, str] | None = None) -> Verdict:
    expected = benchmark.reference_for(param, iteration, options)
    if expected is None:
        return Verdict.UNVERIFIED
    return Verdict.VERIFIED if result == expected else Verdict.WRONG


def metric_mismatches(benchmark: Benchmark, param: str, options: dict[str, str],
                      metrics: dict[str, float]) -> list[str]:
    """Deterministic metrics the spec fixes (spawns per shape, colour sums, batches) that differ."""
    return [f"metric {name}={metrics[name]:g}, the spec expects {expected:g}"
            for name, expected in benchmark.metrics_for(param, options).items()
            if name in metrics and metrics[name] != expected]


def missing_metrics(benchmark: Benchmark, param: str, options: dict[str, str],
                    metrics: dict[str, float]) -> list[str]:
    """Deterministic metrics the spec fixes for this point that the run did not report."""
    return sorted(set(benchmark.metrics_for(param, options)) - set(metrics))


CLAIM_SLACK_NS = 1_000_000   # iterations timed inside a process cannot add up to more than its life (clock reads)


@dataclass(frozen=True)
class Ending:
    """How the process ended, as the runner saw it: the facts a judgement needs beside the answers."""

    started: bool = True
    start_error: str = ""
    protocol_error: str | None = None     # the harness stopped it at a line that broke the protocol
    timed_out: bool = False
    timeout_kind: str | None = None       # "run" (the whole-run limit) or "deadline" (per iteration)
    stall: bool | None = None
    signal: int | None = None
    exit_code: int | None = None
    stderr_first: str = ""
    hello: bool = True
    iterations: int = 0
    oom: bool = False                     # the kernel's OOM killer acted in the run's control group
    claimed_ns: int = 0                   # the iterations' own times, summed
    wall_ns: int | None = None            # the process's wall time, as the runner measured it

    @property
    def refused(self) -> bool:
        """Exit status 2 before hello, with nothing else gone wrong: the binary refused the request (the
        protocol's answer to bad input), which is not a crash. Any other exit or a signal before hello is."""
        return (self.started and not self.hello and self.exit_code == 2 and not self.signal and not self.timed_out
                and not self.protocol_error and self.iterations == 0)

    def failure(self, expected_iterations: int) -> tuple[RunStatus, Reason, str] | None:
        """What went wrong with the process itself, in order of precedence; None when nothing did."""
        if not self.started:
            return RunStatus.CRASHED, Reason.FAILED_TO_START, self.start_error
        if self.protocol_error:
            return RunStatus.MALFORMED, Reason.PROTOCOL, self.protocol_error
        if self.timed_out:
            kind = "no iteration within the deadline" if self.timeout_kind == "deadline" else "run time limit"
            stalled = " (stalled)" if self.stall else ""
            return RunStatus.TIMEOUT, Reason.TIMEOUT, f"{kind} after {self.iterations} iterations{stalled}"
        if self.oom and (self.signal or self.exit_code not in (0, None)):
            return (RunStatus.CRASHED, Reason.OOM, "killed by the kernel's OOM killer: out of memory (its "
                    "--memory-limit, or the machine's)")
        if self.signal:
            return RunStatus.CRASHED, Reason.SIGNAL, f"killed by signal {self.signal}"
        if self.exit_code not in (0, None):
            detail = f": {self.stderr_first}" if self.stderr_first else ""
            return RunStatus.CRASHED, Reason.EXIT, f"exit status {self.exit_code}{detail}"
        if not self.hello:
            return RunStatus.MALFORMED, Reason.PROTOCOL, "no hello line"
        if self.iterations != expected_iterations:
            return RunStatus.MALFORMED, Reason.PROTOCOL, f"ended after {self.iterations} of {expected_iterations} iterations"
        if self.wall_ns is not None and self.claimed_ns > self.wall_ns + CLAIM_SLACK_NS:
            return (RunStatus.MALFORMED, Reason.PROTOCOL, f"its iterations claim {self.claimed_ns} ns in all, more "
                    f"than the {self.wall_ns} ns its process lasted")
        return None


def judge(run: RunRecord, benchmark: Benchmark, expected_iterations: int, ending: Ending) -> RunRecord:
    """The run with the status, reason and message it finished with: a wrong answer or metric first, then how it
    ended."""
    failure = ending.failure(expected_iterations)
    after = f"; then {failure[2]}" if failure else ""
    wrong = next((it for it in run.iterations if it.verdict == Verdict.WRONG), None)
    mismatches = metric_mismatches(benchmark, run.param, run.options, run.metrics)
    if wrong is not None:
        reference = benchmark.reference_for(run.param, wrong.index, run.options)
        status, reason, message = (RunStatus.WRONG, Reason.WRONG_RESULT,
                                   f"iteration {wrong.index}: got {wrong.result!r}, expected {reference!r}{after}")
    elif mismatches:
        status, reason, message = RunStatus.WRONG, Reason.METRIC, "; ".join(mismatches) + after
    elif failure:
        status, reason, message = failure
    else:
        status, reason, message = RunStatus.OK, None, ""
    stall = ending.stall if failure and failure[0] == RunStatus.TIMEOUT else run.stall
    return replace(run, status=status, reason=reason, message=message, stall=stall)


@dataclass(frozen=True)
class _Vote:
    run: int               # the run's position in the runs cross-checked
    place: int             # the iteration's, in run.iterations
    voter: tuple           # the variant, and the values of the benchmark's neutral options


def _majority(runs: list[RunRecord], votes: list[_Vote]) -> tuple[str | None, int]:
    """The result a strict majority of the variants gave, and how many variants voted."""
    variants_by_result: dict[str, set[tuple]] = defaultdict(set)
    voters = set()
    for vote in votes:
        variants_by_result[runs[vote.run].iterations[vote.place].result].add(vote.voter)
        voters.add(vote.voter)
    winners = [r for r, who in variants_by_result.items() if len(who) * 2 > len(voters)]
    return (winners[0] if len(winners) == 1 else None), len(voters)


def agreement_key(run: RunRecord, index: int, neutral: Collection[str] = ()) -> tuple:
    """Results that must agree: one benchmark, parameter, iteration and every option but the shape,
    the inner repetitions and the benchmark's neutral options, which change the program or how it
    runs, never the answer."""
    options = tuple(sorted((k, v) for k, v in run.options.items() if k not in ("shape", REPEAT, *neutral)))
    return run.benchmark, run.param, options, index


def cross_check(runs: list[RunRecord], neutral: Mapping[str, Collection[str]] | None = None) -> dict[int, RunRecord]:
    """Agreement where no reference exists: the runs whose verdicts changed, as new records keyed by their
    position in `runs` (which are left as they are).

    `neutral` maps a benchmark to its neutral options (Benchmark.neutral_options): each value of
    them votes apart, so one variant run under several runtime configurations can confirm itself.
    With at least two voters in a group (agreement_key): the majority's result is `agreed`, the
    odd ones out `wrong`, and every result is `disagree` when no strict majority of voters exists."""
    neutral = neutral or {}
    groups: dict[tuple, list[_Vote]] = defaultdict(list)
    for position, run in enumerate(runs):
        if run.status not in (RunStatus.OK, RunStatus.WRONG, RunStatus.DISAGREE):
            continue
        names = tuple(neutral.get(run.benchmark, ()))
        voter = (run.variant, *(run.options.get(name) for name in names))
        for place, it in enumerate(run.iterations):
            if it.verdict in (Verdict.UNVERIFIED, Verdict.AGREED, Verdict.DISAGREE):
                groups[agreement_key(run, it.index, names)].append(_Vote(position, place, voter))
    changed: dict[int, RunRecord] = {}
    for votes in groups.values():
        majority, voters = _majority(runs, votes)
        if voters < 2:
            continue
        for vote in votes:
            run = changed.get(vote.run, runs[vote.run])
            it = run.iterations[vote.place]
            new = Verdict.DISAGREE if majority is None else Verdict.AGREED if it.result == majority else Verdict.WRONG
            if new != it.verdict:
                iterations = list(run.iterations)
                iterations[vote.place] = replace(it, verdict=str(new))
                run = replace(run, iterations=iterations)
            if new == Verdict.WRONG and run.status != RunStatus.WRONG:
                run = replace(run, status=RunStatus.WRONG, reason=Reason.WRONG_RESULT,
                              message=f"iteration {it.index}: got {it.result!r}, the other variants gave {majority!r}")
            elif new == Verdict.DISAGREE and run.status == RunStatus.OK:
                run = replace(run, status=RunStatus.DISAGREE, reason=Reason.WRONG_RESULT,
                              message=f"iteration {it.index}: no majority among the variants' results")
            if run is not runs[vote.run]:
                changed[vote.run] = run
    return changed
