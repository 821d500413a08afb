"""The machine probe (launcher/probe.c) and what a session makes of its readings: a baseline, the quiet band
around it, and whether a run was made in a quiet phase or a disturbed one.

Why: a VM, a laptop or a CI runner has phases of minutes in which a cross-core hand-off costs 2-4x more, or a
neighbour takes half a core; hand-off programs swing with them while compute kernels hardly move, so two
sessions of the same code rank variants differently. The probe measures those phases directly, between runs.

A reading is quiet when
- its integer loop got the CPU it ran on to itself (`share`, CPU time / wall time, at least SHARE_FLOOR): an
  absolute test, which holds when the machine is disturbed from the session's first second; and
- its round trip and its loop are within BAND of the session's level: the medians of its readings so far (the
  baseline's at first), so that neither a quick start nor a slow one sets the band for the whole session, and
  lowered to the latest readings where three in a row lie below it by more than the band (a session that
  started in a slow phase is judged by its quiet readings at once).
A run is disturbed when a reading before or after it finds its CPU taken (the loop's share or time), or both
find the round trip out of band: it lay inside a slow phase (README, "a machine probe")."""

from __future__ import annotations

import json
import statistics
import subprocess
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from ..storing.records import ProbeRecord

# How the band was chosen (README, "the machine probe"): in a `make bench` session on the 2-core VM the round trip
# read 107-150 ns (5th to 95th percentile of 116 readings, median 128), within 1.2x of its median; its slow phases
# read 1.5-2x (173-229 ns against a baseline of 114 in the next session), and earlier measurements of the
# project saw 160-410 ns. 1.5x keeps the quiet spread inside and the phases outside. A busy thread on a run's CPU
# halves the loop's share of its CPU (0.50) and doubles its time. Why the level is the readings' median and not
# the baseline's: a session began at 64 ns (its first 30 s) and then read 90-118 ns for most of its 14 minutes
# (with a phase at 400-470 ns): judged against its baseline, 131 of 155 readings were out of band and 1248 runs
# disturbed.
BAND = 1.5
SHARE_FLOOR = 0.85            # the loop's CPU time / wall time: below, another thread took the CPU from it
BASELINE_READINGS = 5
PROBE_TIMEOUT_S = 10.0


class Kind(StrEnum):
    BASELINE = "baseline"     # at the start: the session's baseline
    BETWEEN = "between"       # between runs, every INTERVAL_S of measuring or before a hand-off run
    WAIT = "wait"             # while disturbed runs wait for the machine to be quiet again
    END = "end"


class ProbeError(Exception):
    """The probe could not be run or gave no reading."""


@dataclass(frozen=True)
class Reference:
    """The levels a reading is measured against: the baseline readings' medians, or lower ones seen later."""

    roundtrip_ns: float | None
    loop_ns: float

    @classmethod
    def of(cls, readings: list[ProbeRecord]) -> Reference:
        trips = [r.roundtrip_ns for r in readings if r.roundtrip_ns is not None]
        return cls(statistics.median(trips) if trips else None, statistics.median(r.loop_ns for r in readings))

    def text(self) -> str:
        trip = f"round trip {self.roundtrip_ns:.0f} ns, " if self.roundtrip_ns is not None else ""
        return f"{trip}loop {self.loop_ns / 1e6:.2f} ms"

    def ratio(self, reading: ProbeRecord) -> float:
        """How far a reading is from quiet: the worse of its round trip and its loop against the reference."""
        ratios = [reading.loop_ns / self.loop_ns]
        if self.roundtrip_ns and reading.roundtrip_ns is not None:
            ratios.append(reading.roundtrip_ns / self.roundtrip_ns)
        return max(ratios)

    @classmethod
    def level(cls, readings: list[ProbeRecord]) -> Reference:
        """A session's level after these readings: the medians of them all but those taken while waiting for quiet
        (a disturbed phase makes more of those), lowered where it was set in a slow phase (`lower`)."""
        counted = [r for r in readings if r.kind != Kind.WAIT] or readings
        return cls.of(counted).lower(counted)

    def lower(self, readings: list[ProbeRecord]) -> Reference:
        """Each level lowered to recent readings that are all below it by more than the band: it was set in a slow
        phase (three in a row, each with its CPU to itself, so that one lucky reading does not move it)."""
        recent = readings[-3:]
        if len(recent) < 3 or not all(_own_cpu(r) for r in recent):
            return self
        trip, loop = self.roundtrip_ns, self.loop_ns
        trips = [r.roundtrip_ns for r in recent if r.roundtrip_ns is not None]
        if trip and len(trips) == 3 and max(trips) * BAND < trip:
            trip = statistics.median(trips)
        if max(r.loop_ns for r in recent) * BAND < loop:
            loop = statistics.median(r.loop_ns for r in recent)
        return Reference(trip, loop)


def _own_cpu(reading: ProbeRecord) -> bool:
    return reading.share is None or reading.share >= SHARE_FLOOR


def quiet(reading: ProbeRecord, reference: Reference) -> bool:
    return _own_cpu(reading) and reference.ratio(reading) <= BAND


class Probe:
    """Runs the compiled probe on two of the run's CPUs (one where only one is allowed)."""

    def __init__(self, path: Path, cpus: tuple[int, ...]) -> None:
        self.argv = [str(path), *map(str, cpus[:2])]

    def read(self, kind: Kind) -> ProbeRecord:
        at_ns = time.time_ns()
        try:
            done = subprocess.run(self.argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
            fields = json.loads(done.stdout)
        except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
            raise ProbeError(f"the machine probe gave no reading: {error}") from None
        if done.returncode != 0:
            raise ProbeError(f"the machine probe failed: {done.stderr.strip() or f'exit status {done.returncode}'}")
        return ProbeRecord(at_ns=at_ns, kind=str(kind), roundtrip_ns=fields["roundtrip_ns"], loop_ns=fields["loop_ns"],
                           share=fields["share"], copy_gbps=fields["copy_gbps"], probe_ns=time.time_ns() - at_ns)


@dataclass
class Watch:
    """A session's readings as they come: the baseline, the reference, and each reading judged quiet or not."""

    readings: list[ProbeRecord]

    def add(self, reading: ProbeRecord) -> ProbeRecord:
        """Judge a reading against the level before it (the baseline's readings are not judged) and keep it."""
        if reading.kind == Kind.BASELINE:
            self.readings.append(reading)
            return reading
        judged = replace(reading, quiet=quiet(reading, self.current()))
        self.readings.append(judged)
        return judged

    def baseline(self) -> list[ProbeRecord]:
        return [r for r in self.readings if r.kind == Kind.BASELINE]

    def current(self) -> Reference:
        """The level now (Reference.level), from the readings so far."""
        return Reference.level(self.readings)

    def judge(self, before: ProbeRecord, after: ProbeRecord) -> tuple[bool, float]:
        """Whether a run between two readings was disturbed, against the level now, and the worse ratio. The CPU
        taken from the run (the loop's share or time out of band) by either reading; a slow hand-off (the round
        trip) only by both, so that the run lay inside a phase: on the 2-core VM the round trip jumps between about
        64, 100 and 450 ns from one reading to the next (the host moving its vCPUs), one such reading says little
        of the runs 10 s either side of it, and marking them set aside a third of a session's runs at random
        (README, "the machine probe")."""
        reference = self.current()
        ratio = max(reference.ratio(before), reference.ratio(after))
        cpu_taken = not (_cpu_quiet(before, reference) and _cpu_quiet(after, reference))
        slow_phase = not (quiet(before, reference) or quiet(after, reference))
        return cpu_taken or slow_phase, round(ratio, 3)


def _cpu_quiet(reading: ProbeRecord, reference: Reference) -> bool:
    """The reading's loop had its CPU to itself and ran at the level's speed."""
    return _own_cpu(reading) and reading.loop_ns <= BAND * reference.loop_ns
