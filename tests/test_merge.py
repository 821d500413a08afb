"""`concbench merge`: the shards of a plan joined into one store, each session as it was; a shard met
twice or a plan split two ways refused before anything is written."""

import time

import pytest

from concbench.errors import UsageError
from concbench.storing.merge import merge
from concbench.storing.records import IterationRecord, RunRecord, RunStatus, SampleRecord, WaitRecord
from concbench.storing.store import Store


def _shard(path, part: str, plan: str = "p1", machine: str = "cpu A") -> None:
    store = Store(path)
    session = store.start_session(f"concbench run --shard {part}", "abc", {"cpu_model": machine},
                                  {"shard": {"part": part, "plan": plan, "points": 2}})
    store.record_run(session, RunRecord(
        "fib", "x/y", part.split("/")[0], {}, 2, 0, RunStatus.OK, wall_ns=5, started_at_ns=time.time_ns(),
        iterations=[IterationRecord(0, 10, "55", "verified", False)], metrics={"spawns": 3.0},
        samples=[SampleRecord(1, 2, 3, 4)], waits=[WaitRecord("futex", "0x1", 2, 2)]))
    store.end_session(session, "finished")
    store.close()


def test_the_shards_of_a_plan_join_one_store_each_as_it_was(tmp_path):
    _shard(tmp_path / "a.sqlite", "1/2", machine="cpu A")
    _shard(tmp_path / "b.sqlite", "2/2", machine="cpu B")
    into = tmp_path / "all.sqlite"
    copied = merge([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], into)
    assert [(s.name, old, new) for s, old, new in copied] == [("a.sqlite", 1, 1), ("b.sqlite", 1, 2)]
    store = Store(into)
    sessions = store.sessions()
    assert [s.environment["cpu_model"] for s in sessions] == ["cpu A", "cpu B"]   # each keeps its machine
    assert [s.status for s in sessions] == ["finished", "finished"]
    (run,) = store.runs(2, with_samples=True)
    assert run.param == "2" and run.metrics == {"spawns": 3.0} and run.iterations[0].result == "55"
    assert run.samples == [SampleRecord(1, 2, 3, 4)] and run.waits == [WaitRecord("futex", "0x1", 2, 2)]


def test_a_shard_twice_is_refused_and_nothing_is_written_and_a_merge_given_again_adds_nothing(tmp_path):
    _shard(tmp_path / "a.sqlite", "1/2")
    into = tmp_path / "all.sqlite"
    merge([tmp_path / "a.sqlite"], into)
    again = merge([tmp_path / "a.sqlite"], into)            # the same session: already there, left as it is
    assert [(old, new) for _, old, new in again] == [(1, None)]
    assert len(Store(into).sessions()) == 1 and len(Store(into).runs(1)) == 1
    _shard(tmp_path / "again.sqlite", "1/2")                   # another session of the same shard: refused
    with pytest.raises(UsageError, match="shard 1/2 of plan p1 is already in .*all.sqlite, session 1"):
        merge([tmp_path / "again.sqlite"], into)
    assert len(Store(into).sessions()) == 1
    with pytest.raises(UsageError, match="shard 1/2 of plan p1 is already in .*a.sqlite, session 1"):
        merge([tmp_path / "a.sqlite", tmp_path / "again.sqlite"], tmp_path / "new.sqlite")
    assert not (tmp_path / "new.sqlite").exists()


def test_one_plan_split_two_ways_is_refused(tmp_path):
    _shard(tmp_path / "a.sqlite", "1/2")
    _shard(tmp_path / "b.sqlite", "2/3")
    with pytest.raises(UsageError, match="plan p1 is split into 3 shards here and into 2 in"):
        merge([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], tmp_path / "all.sqlite")
    _shard(tmp_path / "c.sqlite", "2/3", plan="p2")   # another plan may be split its own way
    merge([tmp_path / "a.sqlite", tmp_path / "c.sqlite"], tmp_path / "all.sqlite")


def test_a_missing_source_or_the_target_as_a_source_is_refused(tmp_path):
    with pytest.raises(UsageError, match="no such results file"):
        merge([tmp_path / "none.sqlite"], tmp_path / "all.sqlite")
    _shard(tmp_path / "a.sqlite", "1/2")
    with pytest.raises(UsageError, match="the target is also a source"):
        merge([tmp_path / "a.sqlite"], tmp_path / "a.sqlite")


def test_a_merged_plan_reads_back_whole_naming_its_machines_and_missing_shards(tmp_path):
    from concbench.scaleout.shards import runs_of, shards_of
    _shard(tmp_path / "a.sqlite", "1/3", machine="cpu A")
    _shard(tmp_path / "b.sqlite", "3/3", machine="cpu B")
    into = tmp_path / "all.sqlite"
    merge([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], into)
    store = Store(into)
    shards = shards_of(store, store.session())
    assert [s.config["shard"]["part"] for s in shards.sessions] == ["1/3", "3/3"] and shards.missing() == ["2/3"]
    assert sorted(r.param for r in runs_of(store, shards)) == ["1", "3"]
    *per_shard, said = shards.headings()
    assert per_shard[0].startswith("shard 1/3: session 1") and "cpu B" in per_shard[1]
    assert said.startswith("plan p1: 2 of 3 shards (missing: 2/3), on 2 machines")
    alone = store.start_session("concbench run", None, {}, {})   # a session that is no shard stands alone
    assert shards_of(store, store.session(alone)).headings()[0].startswith(f"session {alone}")


def test_a_merge_that_fails_half_way_leaves_no_part_of_a_session_and_given_again_completes_it(tmp_path, monkeypatch):
    _shard(tmp_path / "a.sqlite", "1/2")
    store = Store(tmp_path / "b.sqlite")                      # shard 2 with three runs
    session = store.start_session("concbench run --shard 2/2", "abc", {}, {"shard": {"part": "2/2", "plan": "p1"}})
    for index in range(3):
        store.record_run(session, RunRecord("fib", "x/y", "2", {}, 2, index, RunStatus.OK, started_at_ns=index))
    store.end_session(session, "finished")
    store.close()
    into = tmp_path / "all.sqlite"
    real, calls = Store.record_run, []

    def failing(self, session_id, run):                       # the disk fills at b's second run
        calls.append(run)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(self, session_id, run)

    monkeypatch.setattr(Store, "record_run", failing)
    with pytest.raises(OSError):
        merge([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], into)
    monkeypatch.setattr(Store, "record_run", real)
    kept = Store(into)
    assert [s.config["shard"]["part"] for s in kept.sessions()] == ["1/2"]   # a whole, b not at all
    assert len(kept.runs(1)) == 1
    kept.close()
    copied = merge([tmp_path / "a.sqlite", tmp_path / "b.sqlite"], into)
    assert [(old, new) for _, old, new in copied] == [(1, None), (1, 2)]
    kept = Store(into)
    assert [len(kept.runs(s.id)) for s in kept.sessions()] == [1, 3]
