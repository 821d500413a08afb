"""Checks results against the reference values of benchmarks/<id>.toml."""

from __future__ import annotations

from enum import StrEnum

from .catalog import Benchmark


class Verdict(StrEnum):
    VERIFIED = "verified"      # equal to the spec's reference
    WRONG = "wrong"            # differs from the reference
    UNVERIFIED = "unverified"  # the spec gives no reference for this parameter


def verdict(benchmark: Benchmark, param: str, iteration: int, result: str) -> Verdict:
    expected = benchmark.reference_for(param, iteration)
    if expected is None:
        return Verdict.UNVERIFIED
    return Verdict.VERIFIED if result == expected else Verdict.WRONG
