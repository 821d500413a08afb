"""A sharded plan read back whole: the sessions of its shards (`run --shard K/N`, merged into one store) reported as
one, each series still whole on the machine that ran it.

A shard's series all ran on one machine, so no figure pools two machines; the heading names each shard's session
and machine, and says so where the machines differ, since series of different shards are then compared across
machines. (A shard is a K-th of N of a plan; a study's parts are something else: the sections of its scale.)"""

from __future__ import annotations

from dataclasses import dataclass

from ..report.terminal import session_heading
from ..storing.records import RunRecord, SessionRecord, SessionStatus
from ..storing.store import Store


@dataclass(frozen=True)
class Shards:
    """The shards found of one plan (or one session that is no shard), in shard order."""

    sessions: list[SessionRecord]
    count: int                 # N, the shards the plan was split into (1: not split)

    @property
    def first(self) -> SessionRecord:
        return self.sessions[0]

    def missing(self) -> list[str]:
        found = {s.config["shard"]["part"] for s in self.sessions if "shard" in s.config}
        return [f"{k}/{self.count}" for k in range(1, self.count + 1) if f"{k}/{self.count}" not in found]

    def headings(self) -> list[str]:
        """One line per shard (its session and machine), then what the shards are, and whether machines differ."""
        if self.count == 1:
            return [session_heading(self.first)]
        lines = [f"shard {s.config['shard']['part']}: {session_heading(s)}" for s in self.sessions]
        machines = {_machine(s) for s in self.sessions}
        plan = self.first.config["shard"]["plan"]
        said = f"plan {plan}: {len(self.sessions)} of {self.count} shards"
        if self.missing():
            said += f" (missing: {', '.join(self.missing())})"
        said += (", on one machine" if len(machines) == 1 else
                 f", on {len(machines)} machines: every series ran whole on one of them, series of different shards "
                 "on different machines")
        return lines + [said]


def _machine(session: SessionRecord) -> tuple:
    env = session.environment
    return env.get("hostname"), env.get("cpu_model"), len(env.get("cpus_allowed") or []), env.get("kernel")


def _shard_index(session: SessionRecord) -> int:
    return int(session.config["shard"]["part"].split("/")[0])


def shards_of(store: Store, session: SessionRecord) -> Shards:
    """Every shard of `session`'s plan in the store (the latest session of each shard; a finished one before an
    unfinished one), or `session` alone where it is no shard of a split plan."""
    shard = session.config.get("shard")
    if not isinstance(shard, dict):
        return Shards([session], 1)
    latest: dict[str, SessionRecord] = {}
    for other in store.sessions():
        theirs = (other.config.get("shard") or {})
        if theirs.get("plan") != shard["plan"] or other.status == SessionStatus.RUNNING:
            continue
        kept = latest.get(theirs["part"])
        if kept is None or (other.status == SessionStatus.FINISHED) >= (kept.status == SessionStatus.FINISHED):
            latest[theirs["part"]] = other
    sessions = sorted(latest.values() or [session], key=_shard_index)
    return Shards(sessions, int(shard["part"].split("/")[1]))


def runs_of(store: Store, shards: Shards, with_samples: bool = False) -> list[RunRecord]:
    return [run for s in shards.sessions for run in store.runs(s.id, with_samples=with_samples)]
