import sqlite3

import pytest

from concbench.errors import UsageError
from concbench.records import IterationRecord, Reason, RunRecord, RunStatus, SampleRecord
from concbench.store import Store


def _run(**changes):
    run = RunRecord(
        benchmark="fib", variant="swift/sc", param="20", options={"shape": "asynclet"}, cores=2, run_index=0,
        status=RunStatus.OK, cpus="0,1", argv=["x", "fib"], hello={"protocol": 1, "language": "swift"},
        wall_ns=123, user_ns=100, sys_ns=20, max_rss_bytes=4096, max_rss_source="wait4 via launcher",
        rss_peak_sampled_bytes=4000, threads_max=3, voluntary_switches=5, involuntary_switches=6,
        exit_code=0, signal=None,
        iterations=[IterationRecord(0, 10, "6765", "verified", True), IterationRecord(1, 11, "6765", "verified", False)],
        metrics={"spawns": 21890.0},
        samples=[SampleRecord(10_000_000, 4000, 3, 5_000_000)],
    )
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def test_round_trip_keeps_every_field(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    session = store.start_session("concbench run", "abc", {"kernel": "6"}, {"runs": 1})
    original = _run()
    store.record_run(session, original)
    loaded = store.runs(session, with_samples=True)[0]
    for field in ("benchmark", "variant", "param", "options", "cores", "status", "wall_ns", "user_ns", "sys_ns",
                  "max_rss_bytes", "threads_max", "iterations", "metrics", "samples", "hello", "argv"):
        assert getattr(loaded, field) == getattr(original, field), field
    assert loaded.measured_ns() == [11]


def test_unmeasured_figures_stay_null_with_their_reason(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    session = store.start_session("c", None, {}, {})
    store.record_run(session, _run(status=RunStatus.TIMEOUT, reason=Reason.TIMEOUT, stall=True, max_rss_bytes=None,
                                   max_rss_missing="no launcher", wall_ns=None, iterations=[]))
    loaded = store.runs(session)[0]
    assert loaded.max_rss_bytes is None and loaded.wall_ns is None
    assert loaded.max_rss_missing == "no launcher"
    assert loaded.status == RunStatus.TIMEOUT and loaded.reason == Reason.TIMEOUT and loaded.stall is True


def test_sessions_start_running_and_end_with_a_status(tmp_path):
    path = tmp_path / "db.sqlite"
    store = Store(path)
    first = store.start_session("one", None, {"cpu_model": "x"}, {})
    second = store.start_session("two", None, {}, {})
    store.end_session(first, "interrupted")
    reopened = Store(path)   # committed, so a second connection sees it
    assert reopened.session(first).status == "interrupted"
    assert reopened.session(second).status == "running"
    assert reopened.session().id == second
    assert [s.command for s in reopened.sessions()] == ["one", "two"]


def test_a_file_that_is_not_a_database_is_a_usage_error(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_text("this is not sqlite" * 100)
    with pytest.raises(UsageError):
        Store(path)


def test_a_results_file_of_another_schema_is_refused_whole(tmp_path):
    path = tmp_path / "old.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(UsageError, match="results schema 0"):
        Store(path)
