"""The store in PostgreSQL (`--db postgresql://…`): the same schema and the same runs as in SQLite, writers
starting at once, the CLI's commands on a server database, merges to and from one, and every way of failing to
reach one as one line with exit 2. The server is a throwaway one the tests start (services/postgres.py)."""

import copy
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT
from services.postgres import postgres_server  # noqa: F401 (the session's server, a fixture)
from test_merge import _shard
from test_store import _run

from concbench.errors import UsageError
from concbench.storing.database import folder_name, redact
from concbench.storing.merge import merge
from concbench.storing.records import IterationRecord, SampleRecord, SessionRecord, ThreadRecord, WaitRecord
from concbench.storing.store import SCHEMA_VERSION, Store

LIMIT_S = 60   # per test: a hang (a lock never granted, a server that stops answering) fails, never blocks
BIG = 5 * 10**12   # nanoseconds past 4 bytes (2**31 ns is 2.1 s)


@pytest.fixture(autouse=True)
def deadline():
    def expire(signum, frame):
        raise TimeoutError(f"the test ran past its {LIMIT_S} s limit")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def pg(postgres_server) -> str:
    """The URL of a fresh, empty database, by the server's unix socket."""
    return postgres_server.url(postgres_server.new_database())


def _query(url: str, sql: str, params=()) -> list[tuple]:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as connection:
        cursor = connection.execute(sql, params or None)
        return cursor.fetchall() if cursor.description else []


def _full_run():
    """A run with every field set, big nanosecond counts, a metric no 4-byte real keeps, threads in an order
    neither by id nor by name, and waits most frequent first (as they are read), a tie in the order written."""
    return _run(
        wall_ns=BIG, user_ns=BIG + 1, harness_cpu_ns=BIG + 2, observer_interval_max_ns=BIG + 3,
        instructions=BIG * 3, cycles=BIG * 2,
        iterations=[IterationRecord(0, BIG, "6765", "verified", True),
                    IterationRecord(1, BIG + 7, "6765", "verified", False)],
        metrics={"spawns": 21890.0, "share": 1 / 3},
        samples=[SampleRecord(BIG, 2**40, 3, BIG, 1, 2, 0, 1, BIG, 9, 1), SampleRecord(BIG + 10, 2**40, 4, BIG, None)],
        threads=[ThreadRecord(42, "worker", BIG, 5, 7, 1), ThreadRecord(7, "main", 1, 200, 2, 0),
                 ThreadRecord(99, "gc", 3, 4, 5, 6)],
        waits=[WaitRecord("epoll_wait", "0x5", 7, 3), WaitRecord("poll", "0x9", 3, 1),
               WaitRecord("futex", "0x1", 3, 2)],
    )


SESSION = SessionRecord(0, "2026-11-26T04:08:47+00:00", "2026-11-26T04:09:00+00:00", "finished",
                        "concbench run -b fib", "abc", {"cpu_model": "x", "cpus": 2}, {"runs": 1, "shard": None})


# -- the store ------------------------------------------------------------------------------


def test_a_run_reads_back_from_postgresql_as_from_sqlite(pg, tmp_path):
    original = _full_run()
    read = []
    for target in (tmp_path / "db.sqlite", pg):
        store = Store(target)
        session = store.copy_session(SESSION)
        store.record_run(session, copy.deepcopy(original))
        read.append((store.sessions(), store.runs(session, with_samples=True)))
        store.close()
    assert read[1] == read[0]
    sessions, (run,) = read[1]
    assert sessions == [replace(SESSION, id=1)]
    assert run == replace(original, id=run.id)   # every field, in the order written


def test_writers_starting_at_once_create_the_tables_once(pg):
    ready = threading.Barrier(6, timeout=20)
    failures = []

    def open_store():
        try:
            ready.wait()
            store = Store(pg)
            store.record_run(store.start_session("c", None, {}, {}), _run())
            store.close()
        except Exception as error:   # reported below, in the test's thread
            failures.append(error)

    writers = [threading.Thread(target=open_store) for _ in range(6)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(LIMIT_S / 2)
    assert failures == []
    assert _query(pg, "SELECT count(*) FROM runs") == [(6,)]
    assert _query(pg, "SELECT key, value FROM meta") == [("schema_version", str(SCHEMA_VERSION))]


def _layout(url: str) -> list[tuple]:
    """Every column of every table, and the transaction that last wrote the schema's version."""
    columns = _query(url, "SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns"
                          " WHERE table_schema = current_schema() ORDER BY 1, 2")
    return columns + _query(url, "SELECT xmin::text FROM meta")


def test_a_database_at_the_current_schema_is_read_by_a_second_store_unchanged(pg):
    first = Store(pg)
    session = first.start_session("c", None, {}, {})
    first.record_run(session, _full_run())
    before = _layout(pg)
    second = Store(pg)
    assert _layout(pg) == before   # no table, column or version written again
    assert second.runs(session, with_samples=True) == first.runs(session, with_samples=True)
    assert ("runs", "wall_ns", "bigint") in before and ("metrics", "value", "double precision") in before


def test_a_schema_2_database_is_migrated_in_place_with_the_servers_types(pg):
    Store(pg).close()
    added_since_2 = ("observer_cpus", "observer_samples", "observer_interval_max_ns", "wait_looks",   # 3
                     "instructions", "cycles", "counters_missing",                                    # 4
                     "attempt", "started_at_ns", "disturbed", "probe_ratio")                          # 5
    _query(pg, "DROP TABLE waits; DROP TABLE probes; " + " ".join(f"ALTER TABLE runs DROP COLUMN {c};" for c in added_since_2)
           + " UPDATE meta SET value = '2'")
    store = Store(pg)
    session = store.start_session("c", None, {}, {})
    original = _full_run()
    store.record_run(session, copy.deepcopy(original))
    (run,) = store.runs(session, with_samples=True)
    assert run == replace(original, id=run.id)
    assert ("runs", "observer_interval_max_ns", "bigint") in _layout(pg)
    assert ("runs", "instructions", "bigint") in _layout(pg)
    assert ("runs", "probe_ratio", "double precision") in _layout(pg)
    assert _query(pg, "SELECT value FROM meta") == [(str(SCHEMA_VERSION),)]


@pytest.mark.parametrize("breakage, message", [
    ("UPDATE meta SET value = '0'", "written with results schema 0"),
    ("ALTER TABLE runs DROP COLUMN wait_looks", "runs table lacks wait_looks"),
])
def test_a_server_database_of_another_schema_is_refused_whole(pg, breakage, message):
    Store(pg).close()
    _query(pg, breakage)
    with pytest.raises(UsageError, match=message):
        Store(pg)


def _refusal(target) -> str:
    with pytest.raises(UsageError) as refused:
        Store(target)
    return str(refused.value)


def test_what_cannot_be_reached_is_one_usage_error_without_the_password(postgres_server, tmp_path, monkeypatch):
    secret = "s3cret-Pw"
    monkeypatch.chdir(tmp_path)
    nothing_there = f"postgresql://bench:{secret}@127.0.0.1:{_closed_port()}/results"
    assert "cannot connect" in _refusal(nothing_there) and "Connection refused" in _refusal(nothing_there)
    assert 'database "nosuch" does not exist' in _refusal(postgres_server.url("nosuch"))
    wrong = postgres_server.url("postgres", tcp=True, password=secret)
    assert "password authentication failed" in _refusal(wrong)
    assert "not a database URL" in _refusal(f"postgresql://bench:{secret}@[::1/results")   # libpq quotes the URL
    assert "percent-encode it" in _refusal(f"postgresql://bench:{secret}%zz@host/results")
    assert "a mysql URL" in _refusal(f"mysql://bench:{secret}@host/results")
    for url in (nothing_there, wrong, f"postgresql://bench:{secret}@[::1/results", f"mysql://bench:{secret}@h/r",
                f"postgresql://bench:{secret}%zz@host/results"):
        assert secret not in _refusal(url) and "\n" not in _refusal(url)
    assert list(tmp_path.iterdir()) == []   # no file or folder named after a URL


def test_no_password_is_shown_or_stored():
    assert redact("concbench run --db postgresql://bench:pw@db:5432/results -b fib") == \
        "concbench run --db postgresql://bench:***@db:5432/results -b fib"
    assert redact("'postgres:///r?host=/tmp/s&password=pw&port=5'") == "'postgres:///r?host=/tmp/s&password=***&port=5'"
    assert redact("postgresql://bench@db/results") == "postgresql://bench@db/results"
    assert redact("concbench run --db 'postgresql://bench:p w@db/r' -b fib") == \
        "concbench run --db 'postgresql://bench:***@db/r' -b fib"                    # a password with a space
    assert redact("'postgresql:///r?password=p w&port=5'") == "'postgresql:///r?password=***&port=5'"
    assert redact("'postgresql:///r?host=/tmp/s&password=p w'") == "'postgresql:///r?host=/tmp/s&password=***'"
    assert redact("postgresql://h:5432/r and mail to me@x") == "postgresql://h:5432/r and mail to me@x"
    assert folder_name("postgresql://bench:pw@db.example:5432/results") == "postgresql-db.example-5432-results"
    assert folder_name("postgresql:///results?host=/tmp/s&port=5433") == "postgresql-results-tmp-s"


def test_a_sessions_command_is_stored_without_the_password(pg):
    store = Store(pg)
    store.start_session(f"concbench run --db {pg.replace('///', '//bench:pw@localhost/')}", None, {}, {})
    assert ":pw@" not in store.session().command and ":***@" in store.session().command


# -- the command line --------------------------------------------------------------------------


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:   # bound, never listening: a connection is refused at once
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(*args: str, env: dict | None = None) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if k != "CONCBENCH_DB"} | {"CONCBENCH_ROOT": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "concbench", *args], cwd=ROOT, env=environment | (env or {}),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _at_once(*calls: tuple[list[str], dict | None]) -> list[subprocess.CompletedProcess]:
    """Several `concbench` commands (arguments, environment) started together, each with its outcome."""
    started = [(args, _start(*args, env=env)) for args, env in calls]
    done = []
    for args, process in started:
        out, err = process.communicate(timeout=LIMIT_S)
        done.append(subprocess.CompletedProcess(args, process.returncode, out, err))
    return done


def _concbench(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return _at_once((list(args), env))[0]


# Six sessions at once on a few CPUs disturb each other: without the probe, each point runs once.
SHARDED = ["run", "-b", "fib", "-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/slow", "--size", "test",
           "--runs", "1", "--no-probe"]


def _facts(store: Store) -> list[tuple]:
    """Every run of every session, without what differs between two runs of one plan (ids, times, CPUs)."""
    facts = []
    for session in store.sessions():
        for run in store.runs(session.id, with_samples=True):
            facts.append((session.config["shard"]["part"], session.config["shard"]["plan"], run.benchmark,
                          run.variant, run.param, json.dumps(run.options, sort_keys=True), run.cores, run.run_index,
                          str(run.status), run.reason, run.message, run.argv, run.hello, json.dumps(run.metrics),
                          [(it.index, it.result, it.verdict, it.warmup) for it in run.iterations]))
    return sorted(facts, key=repr)


@pytest.mark.slow
def test_three_shards_written_at_once_into_one_server_database_equal_three_files_merged(pg, tmp_path):
    files = [str(tmp_path / f"shard{k}.sqlite") for k in (1, 2, 3)]
    # The three server writers start at once on an empty database: they create its tables together.
    shards = _at_once(*((SHARDED + ["--shard", f"{k}/3", "--db", pg], None) for k in (1, 2, 3)),
                      *((SHARDED + ["--shard", f"{k}/3", "--db", files[k - 1]], None) for k in (1, 2, 3)))
    for shard in shards:
        assert shard.returncode == 0, shard.stderr
    merged = tmp_path / "all.sqlite"
    done = _concbench("merge", *files, "--into", str(merged))
    assert done.returncode == 0, done.stderr
    server, local = Store(pg), Store(merged)
    points = [fact[2:8] for fact in _facts(server)]
    assert len(points) == len(set(points)) == server.sessions()[0].config["shard"]["points"]   # each point once
    assert _facts(server) == _facts(local)


@pytest.fixture(scope="module")
def two_sessions(tmp_path_factory) -> Path:
    """An SQLite file holding two sessions of the fake, each with samples, threads and metrics."""
    path = tmp_path_factory.mktemp("sessions") / "local.sqlite"
    for _ in range(2):   # one after the other: session 2 follows session 1
        done = _concbench("run", "-b", "fib", "-v", "fake/ok", "-v", "fake/slow", "--param", "10", "--iterations", "6",
                          "--runs", "2", "--db", str(path))
        assert done.returncode == 0, done.stderr
    return path


@pytest.mark.slow
def test_report_compare_and_explain_read_a_server_database_as_they_read_a_file(two_sessions, pg, tmp_path):
    done = _concbench("merge", str(two_sessions), "--into", pg)   # into a server database
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(f"→ {pg} session") == 2
    commands = (["report"], ["compare", "1", "2"], ["explain", "1", "--json"])
    # Each against the file, and against the server named by the environment (the default database).
    outcomes = _at_once(*((command + ["--db", str(two_sessions)], None) for command in commands),
                        *((command, {"CONCBENCH_DB": pg}) for command in commands))
    for command, local, server in zip(commands, outcomes, outcomes[len(commands):]):
        assert local.returncode == 0 and server.returncode == 0, (command, local.stderr, server.stderr)
        assert (server.stdout, server.stderr) == (local.stdout, local.stderr), command
        assert "fake/slow" in local.stdout, command
    back = tmp_path / "back.sqlite"
    done = _concbench("merge", pg, "--into", str(back))   # from a server database
    assert done.returncode == 0, done.stderr
    copied, original = Store(back), Store(two_sessions)
    assert copied.sessions() == original.sessions()
    for session in (1, 2):
        assert copied.runs(session, with_samples=True) == original.runs(session, with_samples=True)


@pytest.mark.slow
def test_bad_input_stops_each_command_in_one_line_before_anything_is_written(postgres_server, pg, tmp_path):
    secret = "s3cret-Pw"
    _shard(tmp_path / "part.sqlite", "1/2")
    _shard(tmp_path / "other-split.sqlite", "2/3")
    merge([tmp_path / "part.sqlite"], pg)   # the server database holds part 1/2 of plan p1
    merge_shard = ["merge", str(tmp_path / "part.sqlite"), "--into"]
    cases = [   # each failure with another command: every one opens its database the same way
        (["run", "-b", "fib", "-v", "fake/ok", "--param", "5", "--db"], "cannot connect",
         f"postgresql://bench:{secret}@127.0.0.1:{_closed_port()}/results"),
        (["report", "--db"], "not a database URL", f"postgresql://bench:{secret}@[::1/results"),
        (["explain", "--db"], 'database "nosuch" does not exist', postgres_server.url("nosuch")),
        (["compare", "1", "2", "--db"], "password authentication failed",
         postgres_server.url("postgres", tcp=True, password=secret)),
        (merge_shard, "a mysql URL", f"mysql://bench:{secret}@localhost/results"),
        (merge_shard, "cannot connect", f"postgresql://bench:{secret}@127.0.0.1:{_closed_port()}/results"),
        (["merge", str(tmp_path / "other-split.sqlite"), "--into"],
         f"{tmp_path / 'other-split.sqlite'}, session 1: plan p1 is split into 3 shards here and into 2 in {pg}, "
         "session 1: their points overlap", pg),
    ]
    for (command, message, _), done in zip(cases, _at_once(*((command + [url], None) for command, _, url in cases))):
        assert done.returncode == 2, (command, done.stderr)
        assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, (command, done.stderr)
        assert message in done.stderr and "Traceback" not in done.stderr and secret not in done.stderr, command
    assert not list(ROOT.glob("postgresql*")) and not list(ROOT.glob("mysql*"))
    assert len(Store(pg).sessions()) == 1   # the refused merge wrote nothing


def _stored_runs(url: str) -> int:
    import psycopg
    try:
        return _query(url, "SELECT COUNT(*) FROM runs")[0][0]
    except psycopg.errors.UndefinedTable:   # the session has not made its tables yet
        return 0


@pytest.mark.faults
@pytest.mark.slow   # a real session, a server stopped and started again: 8 s
def test_a_server_stopped_mid_run_ends_the_session_in_one_line_and_exit_3_and_resume_goes_on(postgres_server, pg):
    """pg_ctl stop -m immediate while a session writes: one line, exit status 3 (not 1, which Slurm's tasks take
    for a finished session), every run stored before kept, none stored as fine that was not; once the server is
    back, --resume runs only what the session lacks."""
    # The test server runs without durable commits (synchronous_commit=off, for speed): this session's are durable,
    # so that what it was told is stored must survive the crash.
    pg += "&options=-c%20synchronous_commit%3Don"
    command = [sys.executable, "-m", "concbench", "run", "-b", "spawn-waiting", "-v", "fake/ok", "--param", "2",
               "--option", "wait_ms=100", "--iterations", "2", "--warmup", "0", "--runs", "8", "--no-probe", "--db", pg]
    session = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while _stored_runs(pg) < 2:
            assert time.monotonic() < deadline and session.poll() is None, session.communicate()
            time.sleep(0.05)
        before = _stored_runs(pg)
    finally:
        postgres_server.stop()
    try:
        _, stderr = session.communicate(timeout=60)
    finally:
        postgres_server.start()
    assert session.returncode == 3, stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, stderr
    assert stderr.startswith("concbench: failed: OperationalError") and postgres_server.password not in stderr
    stored = _query(pg, "SELECT status FROM runs")
    assert len(stored) >= before >= 2 and {s for (s,) in stored} == {"ok"}   # nothing stored was lost
    assert _query(pg, "SELECT status FROM sessions") == [("running",)]    # never finished
    resumed = subprocess.run([*command, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert _query(pg, "SELECT COUNT(*), COUNT(DISTINCT run_index) FROM runs") == [(8, 8)]
    assert _query(pg, "SELECT status FROM sessions") == [("finished",)]
