import sqlite3
from dataclasses import MISSING, FrozenInstanceError, fields, replace
from pathlib import Path

import pytest

from concbench.errors import UsageError
from concbench.storing.records import (
    IterationRecord,
    Reason,
    RunRecord,
    RunStatus,
    SampleRecord,
    ThreadRecord,
    WaitRecord,
)
from concbench.storing.store import SCHEMA_VERSION, Store


def _run(**changes):
    run = RunRecord(
        benchmark="fib", variant="swift/sc", param="20", options={"shape": "asynclet"}, cores=2, run_index=0,
        status=RunStatus.OK, cpus="0,1", argv=["x", "fib"], hello={"protocol": 1, "language": "swift"},
        wall_ns=123, user_ns=100, sys_ns=20, max_rss_bytes=4096, max_rss_source="wait4 via launcher",
        rss_peak_sampled_bytes=4000, threads_max=3, voluntary_switches=5, involuntary_switches=6,
        exit_code=0, signal=9, reason=Reason.METRIC, stall=False, message="a note", max_rss_missing="why not",
        harness_cpu_ns=77, stderr_tail="last words", attempt=1, started_at_ns=1_796_000_000_000_000_000,
        disturbed=True, probe_ratio=1.7,
        iterations=[IterationRecord(0, 10, "6765", "verified", True), IterationRecord(1, 11, "6765", "verified", False)],
        metrics={"spawns": 21890.0},
        samples=[SampleRecord(10_000_000, 4000, 3, 5_000_000, 1, 2, 0, 1, 700, 9, 1)],
        threads=[ThreadRecord(41, "main", 4_000_000, 500, 7, 1), ThreadRecord(42, "worker \"1\"", 1, 200, 2, 0)],
        run_delay_ns=700, observer_cpu_ns=1234, threads_untracked=0, observer_cpus="2,3", observer_samples=40,
        observer_interval_max_ns=25_000_000, wait_looks=9, instructions=9_000, cycles=6_000, counters_missing="",
        waits=[WaitRecord("futex", "0x5642", 7, 3), WaitRecord("clock_nanosleep", "0x1", 2, 1)],
    )
    return replace(run, **changes)


def test_round_trip_keeps_every_field(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    session = store.start_session("concbench run", "abc", {"kernel": "6"}, {"runs": 1})
    original = _run()
    run_id = store.record_run(session, original)
    loaded = store.runs(session, with_samples=True)[0]
    assert loaded.id == run_id and original.id is None      # the store leaves the record it was given as it was
    with pytest.raises(FrozenInstanceError):                # and a stored run is changed only by a new record
        loaded.status = RunStatus.WRONG                     # type: ignore[misc]
    # Every field the record declares, so a field the store forgets fails here; and each set, so that a
    # field read back as its default would not pass.
    for field in fields(RunRecord):
        if field.name != "id":
            assert getattr(loaded, field.name) == getattr(original, field.name), field.name
            default = field.default_factory() if field.default_factory is not MISSING else field.default
            assert getattr(original, field.name) != default, f"_run() leaves {field.name} at its default"
    assert type(loaded.status) is RunStatus and type(loaded.reason) is Reason and loaded.stall is False
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


@pytest.mark.parametrize("target, message", [
    ("mysql://bench@db.example:3306/results", "a mysql URL; a results database is an SQLite file or a postgresql://"),
    ("sqlite:///a.db", "a sqlite URL"),
    (Path("postgresql://bench@db.example:5432/results"), "whose // was folded into /"),   # a URL taken for a path
])
def test_a_url_concbench_cannot_use_is_refused_and_nothing_is_created(tmp_path, monkeypatch, target, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=message):
        Store(target)
    assert list(tmp_path.iterdir()) == []   # no directory named after the scheme


def test_a_file_of_this_version_with_other_columns_is_refused_whole(tmp_path):
    path = tmp_path / "dev.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE runs DROP COLUMN wait_looks")   # as a development build of this version wrote it
    db.commit()
    db.close()
    with pytest.raises(UsageError, match="runs table lacks wait_looks of results schema"):
        Store(path)


def test_a_schema_1_file_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "v1.sqlite"
    db = sqlite3.connect(path)   # the schema-1 tables as an older concbench wrote them, with one run
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '1');
        CREATE TABLE sessions (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL,
            command TEXT NOT NULL, git_commit TEXT, environment_json TEXT NOT NULL, config_json TEXT NOT NULL);
        CREATE TABLE runs (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL, benchmark TEXT NOT NULL,
            variant TEXT NOT NULL, param TEXT NOT NULL, options_json TEXT NOT NULL, cores INTEGER NOT NULL,
            run_index INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT, stall INTEGER, message TEXT NOT NULL,
            cpus TEXT NOT NULL, argv_json TEXT NOT NULL, hello_json TEXT, wall_ns INTEGER, user_ns INTEGER,
            sys_ns INTEGER, max_rss_bytes INTEGER, max_rss_source TEXT, max_rss_missing TEXT,
            rss_peak_sampled_bytes INTEGER, threads_max INTEGER, voluntary_switches INTEGER,
            involuntary_switches INTEGER, exit_code INTEGER, signal INTEGER, stderr_tail TEXT NOT NULL);
        CREATE TABLE iterations (run_id INTEGER NOT NULL, idx INTEGER NOT NULL, ns INTEGER NOT NULL,
            result TEXT NOT NULL, verdict TEXT NOT NULL, warmup INTEGER NOT NULL, PRIMARY KEY (run_id, idx));
        CREATE TABLE samples (run_id INTEGER NOT NULL, t_ns INTEGER NOT NULL, rss_bytes INTEGER NOT NULL,
            threads INTEGER NOT NULL, cpu_ns INTEGER NOT NULL);
        CREATE TABLE metrics (run_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL,
            PRIMARY KEY (run_id, name));
        INSERT INTO sessions VALUES (1, '2026-01-01', NULL, 'finished', 'concbench run', NULL, '{}', '{}');
        INSERT INTO runs (id, session_id, benchmark, variant, param, options_json, cores, run_index, status, message,
            cpus, argv_json, stderr_tail, wall_ns) VALUES (1, 1, 'fib', 'swift/sc', '20', '{}', 2, 0, 'ok', '', '0,1',
            '[]', '', 99);
        INSERT INTO samples VALUES (1, 5, 4096, 2, 0);
    """)
    db.close()
    store = Store(path)
    (run,) = store.runs(1, with_samples=True)
    assert run.wall_ns == 99 and run.run_delay_ns is None and run.threads == []
    assert run.samples == [SampleRecord(5, 4096, 2, 0)]
    session = store.start_session("later", None, {}, {})
    store.record_run(session, _run())          # a new run beside the old one keeps the observer's fields
    assert store.runs(session, with_samples=True)[0].threads[0].name == "main"
    assert sqlite3.connect(path).execute("SELECT value FROM meta").fetchone() == (str(SCHEMA_VERSION),)
