"""What the machine probe saw in a session (probe.py): its baseline, how often the machine read quiet, the runs
found disturbed and run again, what probing cost; a session that never read quiet is said so in one line."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime

from ..running.probe import BAND, Kind, Reference
from ..running.session import SETTLE_SPREAD
from ..storing.records import ProbeRecord, RunRecord, SessionRecord, counted, disturbed_only


@dataclass(frozen=True)
class MachineSummary:
    readings: int                   # after the baseline
    quiet: int                      # of those
    reference: Reference            # the baseline's medians
    level: Reference                # the level at the session's end (Reference.level)
    disturbed: int                  # runs found disturbed
    again: int                      # runs that were another attempt at a disturbed one
    series_disturbed_only: int      # series whose figures rest on disturbed runs only
    probe_share: float | None       # what the readings took, of the session's time
    seconds: float | None
    seed: int | None
    worst: float                    # the highest ratio of a reading to the reference

    @property
    def never_quiet(self) -> bool:
        return self.readings > 0 and self.quiet == 0


def _seconds(session: SessionRecord, probes: list[ProbeRecord]) -> float | None:
    if session.ended_at:
        return (datetime.fromisoformat(session.ended_at) - datetime.fromisoformat(session.started_at)).total_seconds()
    return (probes[-1].at_ns - probes[0].at_ns) / 1e9 if len(probes) > 1 else None


def summarise_machine(session: SessionRecord, runs: list[RunRecord], probes: list[ProbeRecord]) -> MachineSummary | None:
    """None where the session has no readings (no probe, or a session older than the probe)."""
    baseline = [p for p in probes if p.kind == Kind.BASELINE]
    later = [p for p in probes if p.kind != Kind.BASELINE]
    if not baseline:
        return None
    reference, level = Reference.of(baseline), Reference.level(probes)
    seconds = _seconds(session, probes)
    series: dict[tuple, list[RunRecord]] = {}
    for run in counted(runs):
        series.setdefault(run.series_key, []).append(run)
    return MachineSummary(
        readings=len(later), quiet=sum(1 for p in later if p.quiet), reference=reference, level=level,
        disturbed=sum(1 for r in runs if r.disturbed), again=sum(1 for r in runs if r.attempt > 0),
        series_disturbed_only=sum(1 for group in series.values() if disturbed_only(group)),
        probe_share=sum(p.probe_ns for p in probes) / 1e9 / seconds if seconds else None,
        seconds=seconds, seed=session.config.get("probe", {}).get("seed"),
        worst=max((level.ratio(p) for p in later), default=1.0),
    )


def settle_line(session: SessionRecord, runs: list[RunRecord]) -> list[str]:
    """What `--settle` added: the runs past the session's rounds, and over how many series."""
    rounds = session.config.get("runs")
    more = [r for r in runs if rounds is not None and r.run_index >= rounds and r.attempt == 0]
    if not more:
        return []
    return [f"Series whose runs differed by more than {SETTLE_SPREAD - 1:.0%} (--settle "
            f"{session.config.get('probe', {}).get('settle_s', 0):g} s): {len(more)} more runs over "
            f"{len({r.series_key for r in more})} series"]


def machine_lines(session: SessionRecord, runs: list[RunRecord], probes: list[ProbeRecord]) -> list[str]:
    """The lines the terminal report prints under the session's heading."""
    summary = summarise_machine(session, runs, probes)
    if summary is None:
        return settle_line(session, runs)
    cost = f"; probing took {summary.probe_share:.2%} of the session" if summary.probe_share is not None else ""
    seed = f"; order seed {summary.seed}" if summary.seed is not None else ""
    lines = [f"Machine probe: baseline {summary.reference.text()}; level {summary.level.text()} (the median of its "
             f"readings), quiet band {BAND}x; the machine read quiet in "
             f"{summary.quiet} of {summary.readings} readings{cost}{seed}",
             f"Runs found disturbed: {summary.disturbed}, run again: {summary.again}"
             + (f"; {summary.series_disturbed_only} series rest on disturbed runs only (their notes say so)"
                if summary.series_disturbed_only else "")]
    if summary.never_quiet:
        trips = [p.roundtrip_ns for p in probes if p.kind != Kind.BASELINE and p.roundtrip_ns is not None]
        shares = [p.share for p in probes if p.kind != Kind.BASELINE and p.share is not None]
        lines.append("The machine never read quiet in this session: every figure rests on disturbed runs"
                     + (f" (round trip median {statistics.median(trips):.0f} ns" if trips else " (")
                     + (f", the probe's loop got {statistics.median(shares):.0%} of its CPU" if shares else "")
                     + f", up to {summary.worst:.1f}x the level)")
    return lines + settle_line(session, runs)


QUIET, DISTURBED, BAND_COLOUR = "#2a7ab0", "#c0392b", "#888888"


def machine_section(session: SessionRecord, runs: list[RunRecord], probes: list[ProbeRecord]) -> tuple[str, str] | None:
    """The page's section: the probe's readings over the session's time (round trip, loop) against the band, the
    disturbed runs marked where they started; None without readings."""
    from html import escape

    from .svg import Panel, Series, chart

    if not probes:
        return None
    start = min(p.at_ns for p in probes)
    # The band as each reading was judged: the level of the readings before it.
    judged = [(p, Reference.level(probes[:i])) for i, p in enumerate(probes) if i and p.kind != Kind.BASELINE]

    def seconds(at_ns: int) -> float:
        return (at_ns - start) / 1e9

    def panel(title: str, unit: str, value, level) -> Panel:
        shown = [p for p in probes if value(p) is not None]
        series = [Series([seconds(p.at_ns) for p in shown], [value(p) for p in shown], QUIET, gid="readings",
                         name="reading", markers=True)]
        off = [p for p in shown if p.quiet is False]
        if off:
            series.append(Series([seconds(p.at_ns) for p in off], [value(p) for p in off], DISTURBED, kind="points",
                                 gid="disturbed-readings", name="out of band"))
        bands = [(seconds(p.at_ns), level(r) * BAND) for p, r in judged if level(r) is not None]
        if bands:
            series.append(Series([x for x, _ in bands], [y for _, y in bands], BAND_COLOUR, gid="band",
                                 name=f"{BAND}x the level", dashed=True))
            starts = [at for r in runs if r.disturbed and (at := r.started_at_ns) is not None]
            if starts:
                final = bands[-1][1]
                series.append(Series([seconds(at) for at in starts], [final] * len(starts),
                                     DISTURBED, kind="points", gid="disturbed-runs", name="a disturbed run starts"))
        return Panel(title, "seconds into the session", unit, series, legend=True)

    panels = [panel("a cache line's round trip between two CPUs", "ns", lambda p: p.roundtrip_ns,
                    lambda r: r.roundtrip_ns),
              panel("a fixed integer loop, the slower CPU", "ms", lambda p: p.loop_ns / 1e6, lambda r: r.loop_ns / 1e6)]
    svg = chart(f"machine-{session.id}", panels, 900, 220, columns=2)
    lines = machine_lines(session, runs, probes)
    text = "".join(f"<p>{escape(line)}</p>\n" for line in lines)
    return ("The machine during the session",
            f"{text}<figure class=\"plot\" data-plot=\"machine\">\n{svg}\n<figcaption>Each reading of the machine probe "
            "(a point); red: out of the quiet band, and where a run found disturbed started. A disturbed run is kept "
            "but counted only where its series has no quiet run.</figcaption></figure>")
