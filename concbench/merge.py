"""`concbench merge`: the sessions of several results files joined into one, as they were.

The parts of a sharded plan (`run --shard K/N`) each land in a file of their own, on their own machine;
merged, they sit side by side in one store, each session keeping the machine it ran on. Everything is
checked before anything is written: a part met twice (in the inputs, or already in the target), or one
plan split two ways (1/3 beside 1/2: their points overlap), is refused in one line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import UsageError
from .records import SessionRecord
from .store import Store


@dataclass(frozen=True)
class Part:
    plan: str
    part: str      # "K/N"

    @property
    def count(self) -> str:
        return self.part.split("/")[1]


def _part(session: SessionRecord) -> Part | None:
    shard = session.config.get("shard")
    return Part(shard["plan"], shard["part"]) if isinstance(shard, dict) else None


def _check(parts: list[tuple[str, Part]]) -> None:
    """`parts`: where each was found ("file, session N") and what it is; refuses a part twice or a plan split
    into different numbers of parts."""
    seen: dict[Part, str] = {}
    splits: dict[str, tuple[str, str]] = {}
    for where, part in parts:
        if part in seen:
            raise UsageError(f"{where}: part {part.part} of plan {part.plan} is already in {seen[part]}")
        seen[part] = where
        earlier = splits.setdefault(part.plan, (part.count, where))
        if earlier[0] != part.count:
            raise UsageError(f"{where}: plan {part.plan} is split into {part.count} parts here and into "
                             f"{earlier[0]} in {earlier[1]}: their points overlap")


def merge(sources: list[Path], into: Path) -> list[tuple[Path, int, int]]:
    """Copies every session of `sources` into `into`; returns (source, its session id, the new id) per session."""
    if into.resolve() in {s.resolve() for s in sources}:
        raise UsageError(f"{into}: the target is also a source")
    for source in sources:
        if not source.is_file():
            raise UsageError(f"{source}: no such results file")
    stores = [(source, Store(source)) for source in sources]
    target = Store(into) if into.exists() else None   # a new target is created only once all is checked
    try:
        found = [(f"{into}, session {s.id}", p) for s in (target.sessions() if target else []) if (p := _part(s))]
        found += [(f"{source}, session {s.id}", p) for source, store in stores for s in store.sessions()
                  if (p := _part(s))]
        _check(found)
        target = target or Store(into)
        copied = []
        for source, store in stores:
            for session in store.sessions():
                new_id = target.copy_session(session)
                for run in store.runs(session.id, with_samples=True):
                    run.id = None
                    target.record_run(new_id, run)
                copied.append((source, session.id, new_id))
        return copied
    finally:
        if target is not None:
            target.close()
        for _, store in stores:
            store.close()
