"""`concbench merge`: the sessions of several results databases joined into one, as they were.

The shards of a plan (`run --shard K/N`) each land in a file of their own, on their own machine (or all
in one PostgreSQL database, which needs no merge); merged, they sit side by side in one store, each session
keeping the machine it ran on. Sources and target may be SQLite files or PostgreSQL URLs. Everything is checked
before anything is written: a shard met twice (in the inputs, or another session of it already in the target), or
one plan split two ways (1/3 beside 1/2: their points overlap), is refused in one line. Each session is copied in
one transaction, and one the target holds already is left as it is: a merge killed half-way, given again, goes on
where it stopped, and nothing is ever in the target twice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from .database import Target, has_results, is_server, shown
from .records import SessionRecord
from .store import Store


@dataclass(frozen=True)
class Shard:
    plan: str
    part: str      # "K/N"

    @property
    def count(self) -> str:
        return self.part.split("/")[1]


def _shard(session: SessionRecord) -> Shard | None:
    shard = session.config.get("shard")
    return Shard(shard["plan"], shard["part"]) if isinstance(shard, dict) else None


def _check(shards: list[tuple[str, Shard]]) -> None:
    """`shards`: where each was found ("file, session N") and what it is; refuses a shard twice or a plan split
    into different numbers of shards."""
    seen: dict[Shard, str] = {}
    splits: dict[str, tuple[str, str]] = {}
    for where, shard in shards:
        if shard in seen:
            raise UsageError(f"{where}: shard {shard.part} of plan {shard.plan} is already in {seen[shard]}")
        seen[shard] = where
        earlier = splits.setdefault(shard.plan, (shard.count, where))
        if earlier[0] != shard.count:
            raise UsageError(f"{where}: plan {shard.plan} is split into {shard.count} shards here and into "
                             f"{earlier[0]} in {earlier[1]}: their points overlap")


def _identity(target: Target) -> str:
    """What two spellings of one database share: a file's resolved path, a URL's text."""
    return str(target) if is_server(target) else str(Path(target).resolve())


def _fingerprint(store: Store, session: SessionRecord) -> tuple:
    """What tells one session from another with the same start (to the second), command and config: when each of
    its runs started (to the nanosecond), and what it ran."""
    return tuple(sorted((r.started_at_ns or 0, r.series_key, r.run_index, r.attempt) for r in store.runs(session.id)))


def _already_in(target: Store | None, store: Store, session: SessionRecord) -> bool:
    """The session was merged into the target before (a merge given again, or after one that failed part-way)."""
    if target is None:
        return False
    alike = [s for s in target.sessions() if (s.started_at, s.command, s.config, s.status)
             == (session.started_at, session.command, session.config, session.status)]
    return any(_fingerprint(target, s) == _fingerprint(store, session) for s in alike)


def merge(sources: list[Target], into: Target) -> list[tuple[Target, int, int | None]]:
    """Copies every session of `sources` into `into`, each whole in one transaction; returns (source, its session
    id, the new id) per session, the new id None for a session the target holds already (merged before: a merge
    given again adds nothing and goes on where one that failed stopped)."""
    if _identity(into) in {_identity(s) for s in sources}:
        raise UsageError(f"{shown(into)}: the target is also a source")
    for source in sources:
        if is_server(source) and not has_results(source):
            raise UsageError(f"{shown(source)}: no concbench results in that database")
        if not is_server(source) and not Path(source).is_file():
            raise UsageError(f"{source}: no such results file")
    stores = [(source, Store(source)) for source in sources]
    target = Store(into) if has_results(into) else None   # a new target is created only once all is checked
    try:
        done = {(source, s.id) for source, store in stores for s in store.sessions()
                if _already_in(target, store, s)}
        found = [(f"{shown(into)}, session {s.id}", p) for s in (target.sessions() if target else [])
                 if (p := _shard(s))]
        found += [(f"{shown(source)}, session {s.id}", p) for source, store in stores for s in store.sessions()
                  if (source, s.id) not in done and (p := _shard(s))]
        _check(found)
        target = target or Store(into)
        copied: list[tuple[Target, int, int | None]] = []
        for source, store in stores:
            for session in store.sessions():
                if (source, session.id) in done:
                    copied.append((source, session.id, None))
                    continue
                new_id = target.copy_whole(session, store.runs(session.id, with_samples=True),
                                           store.probes(session.id))
                copied.append((source, session.id, new_id))
        return copied
    finally:
        if target is not None:
            target.close()
        for _, store in stores:
            store.close()
