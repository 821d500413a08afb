"""A sharded plan read back whole: the sessions of its parts (`run --shard K/N`, merged into one store) reported as
one, each series still whole on the machine that ran it.

A part's series all ran on one machine, so no figure pools two machines; the heading names each part's session
and machine, and says so where the machines differ, since series of different parts are then compared across
machines."""

from __future__ import annotations

from dataclasses import dataclass

from ..report.terminal import session_heading
from ..storing.records import RunRecord, SessionRecord, SessionStatus
from ..storing.store import Store


@dataclass(frozen=True)
class Whole:
    """The parts found of one plan (or one session that is no part), in part order."""

    sessions: list[SessionRecord]
    count: int                 # N, the parts the plan was split into (1: not split)

    @property
    def first(self) -> SessionRecord:
        return self.sessions[0]

    def missing(self) -> list[str]:
        found = {s.config["shard"]["part"] for s in self.sessions if "shard" in s.config}
        return [f"{k}/{self.count}" for k in range(1, self.count + 1) if f"{k}/{self.count}" not in found]

    def headings(self) -> list[str]:
        """One line per part (its session and machine), then what the parts are, and whether machines differ."""
        if self.count == 1:
            return [session_heading(self.first)]
        lines = [f"part {s.config['shard']['part']}: {session_heading(s)}" for s in self.sessions]
        machines = {_machine(s) for s in self.sessions}
        plan = self.first.config["shard"]["plan"]
        said = f"plan {plan}: {len(self.sessions)} of {self.count} parts"
        if self.missing():
            said += f" (missing: {', '.join(self.missing())})"
        said += (", on one machine" if len(machines) == 1 else
                 f", on {len(machines)} machines: every series ran whole on one of them, series of different parts "
                 "on different machines")
        return lines + [said]


def _machine(session: SessionRecord) -> tuple:
    env = session.environment
    return env.get("hostname"), env.get("cpu_model"), len(env.get("cpus_allowed") or []), env.get("kernel")


def _part_index(session: SessionRecord) -> int:
    return int(session.config["shard"]["part"].split("/")[0])


def whole(store: Store, session: SessionRecord) -> Whole:
    """Every part of `session`'s plan in the store (the latest session of each part; a finished one before an
    unfinished one), or `session` alone where it is no part of a split plan."""
    shard = session.config.get("shard")
    if not isinstance(shard, dict):
        return Whole([session], 1)
    latest: dict[str, SessionRecord] = {}
    for other in store.sessions():
        part = (other.config.get("shard") or {})
        if part.get("plan") != shard["plan"] or other.status == SessionStatus.RUNNING:
            continue
        kept = latest.get(part["part"])
        if kept is None or (other.status == SessionStatus.FINISHED) >= (kept.status == SessionStatus.FINISHED):
            latest[part["part"]] = other
    sessions = sorted(latest.values() or [session], key=_part_index)
    return Whole(sessions, int(shard["part"].split("/")[1]))


def runs_of(store: Store, parts: Whole, with_samples: bool = False) -> list[RunRecord]:
    return [run for s in parts.sessions for run in store.runs(s.id, with_samples=with_samples)]
