"""Faults the world does to a session, done on purpose (marker `faults`): programs that lie or flood. Each
test says what the user sees, what is stored, and that nothing is stored as fine that was not."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from conftest import ROOT

from concbench.running import cgroups, executor
from concbench.storing.records import IterationRecord, RunRecord, RunStatus, SampleRecord
from concbench.storing.store import Store

pytestmark = [pytest.mark.faults, pytest.mark.slow]

# model → the words its stored message must hold
LIARS = {
    "impostor": "hello names go/goroutines, not fake/impostor that was run",
    "boaster": "its iterations claim",
    "overrun": "iteration 4 of 3 asked for",
    "endless-line": "a line longer than 1 MiB on stdout",
    "flood": "more than 64 MiB on stdout",
}


def test_programs_that_lie_or_flood_are_stopped_and_stored_malformed_and_the_session_goes_on(cli):
    variants = [arg for model in ["ok", *LIARS] for arg in ("-v", f"fake/{model}")]
    start = time.monotonic()
    done = cli("run", "-b", "fib", *variants, "--param", "5", "--iterations", "3", "--warmup", "1", "--runs", "1",
               "--no-probe", timeout=120)
    assert time.monotonic() - start < 60      # the overrun and the floods were stopped, not run to a time limit
    assert done.returncode == 1, done.stderr  # some runs failed: the session's own exit status for that
    (session,) = Store(cli.db).sessions()
    assert session.status == "finished"
    runs = {run.variant: run for run in Store(cli.db).runs(session.id)}
    assert runs["fake/ok"].status == RunStatus.OK
    for model, words in LIARS.items():
        run = runs[f"fake/{model}"]
        assert run.status == RunStatus.MALFORMED and words in run.message, (model, run.status, run.message)


KILLS = 20   # moments per fault, each drawn from a seeded generator


def _spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "concbench", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={k: v for k, v in os.environ.items() if k != "CONCBENCH_DB"})


def _rows(db, sql: str) -> list[tuple]:
    if not db.exists():
        return []
    with closing(sqlite3.connect(db, timeout=10)) as connection:
        try:
            return connection.execute(sql).fetchall()
        except sqlite3.OperationalError:   # no tables yet
            return []


def test_the_harness_killed_at_any_moment_loses_no_stored_run_and_stores_nothing_as_finished(tmp_path):
    db = tmp_path / "results.sqlite"
    command = ["run", "-b", "fib", "-v", "fake/ok", "-v", "fake/wrong", "--param", "5,10,15,20", "--runs", "6",
               "--iterations", "3", "--warmup", "1", "--no-probe", "--db", str(db)]
    planned = 2 * 4 * 6
    rng = random.Random(39)
    seen: set[tuple] = set()
    for trial in range(KILLS):
        harness = _spawn(*command, "--resume")
        time.sleep(rng.uniform(0.3, 1.2))      # start-up (imports, the plan) takes about half a second
        harness.kill()
        harness.wait(timeout=30)
        runs = _rows(db, "SELECT id, variant, param, run_index, attempt, status FROM runs")
        stored = {row[1:5] for row in runs}
        assert len(stored) == len(runs), "a run stored twice"                       # --resume ran none again
        assert seen <= stored, f"trial {trial}: stored runs lost"                   # nothing stored is lost
        seen = stored
        for run_id, variant, _, _, _, status in runs:                               # each run whole, judged
            (iterations,) = _rows(db, f"SELECT COUNT(*) FROM iterations WHERE run_id = {run_id}")[0]
            assert iterations == 3 and status == ("ok" if variant == "fake/ok" else "wrong"), (run_id, status)
        statuses = [s for (s,) in _rows(db, "SELECT status FROM sessions")]
        assert len(statuses) <= 1                                                    # one session, resumed
        assert statuses in ([], ["running"]) or (statuses == ["finished"] and len(runs) == planned), statuses
        if statuses == ["finished"]:
            break   # a quick machine ran the rest between two kills: a --resume now would rightly start anew
    else:
        done = subprocess.run([sys.executable, "-m", "concbench", *command, "--resume"], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 1, done.stderr                                    # fake/wrong's runs are wrong
    assert len(_rows(db, "SELECT id FROM runs")) == planned
    assert _rows(db, "SELECT status FROM sessions") == [("finished",)]


def _source(path, part: str, runs: int) -> None:
    store = Store(path)
    session = store.start_session(f"concbench run --shard {part}", "abc", {}, {"shard": {"part": part, "plan": "p"}})
    for index in range(runs):
        store.record_run(session, RunRecord(
            "fib", "x/y", part, {}, 2, index, RunStatus.OK, started_at_ns=time.time_ns(),
            iterations=[IterationRecord(i, 10, "55", "verified", False) for i in range(5)],
            samples=[SampleRecord(t, 2, 3, 4) for t in range(40)]))
    store.end_session(session, "finished")
    store.close()


def test_a_merge_killed_at_any_moment_leaves_each_session_whole_or_absent_and_given_again_completes(tmp_path):
    sources = [tmp_path / f"part-{k}.sqlite" for k in (1, 2, 3)]
    for k, path in enumerate(sources, 1):
        _source(path, f"{k}/3", runs=150)
    into = tmp_path / "all.sqlite"
    rng = random.Random(2)
    for trial in range(KILLS):
        merging = _spawn("merge", *map(str, sources), "--into", str(into))
        time.sleep(rng.uniform(0.3, 1.5))
        merging.kill()
        merging.wait(timeout=30)
        counts = _rows(into, "SELECT s.id, COUNT(r.id) FROM sessions s LEFT JOIN runs r ON r.session_id = s.id "
                             "GROUP BY s.id")
        assert all(n == 150 for _, n in counts), f"trial {trial}: a session merged in part: {counts}"
        samples = _rows(into, "SELECT COUNT(*) FROM samples")
        assert not samples or samples[0][0] == 150 * 40 * len(counts)
    done = subprocess.run([sys.executable, "-m", "concbench", "merge", *map(str, sources), "--into", str(into)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    parts = _rows(into, "SELECT config_json FROM sessions")
    assert sorted(json.loads(c)["shard"]["part"] for (c,) in parts) == ["1/3", "2/3", "3/3"]   # each once
    assert _rows(into, "SELECT COUNT(*) FROM runs") == [(450,)]


GROUPS = cgroups.layout()
needs_groups = pytest.mark.skipif(GROUPS is None, reason="this machine gives the harness no control groups to make "
                                                         "(cgroup v2 with cgroup.kill, or v1's freezer; as root)")


def _gone(pid: int) -> bool:
    try:
        return "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return True


@needs_groups
def test_a_child_that_calls_setsid_ends_with_its_run_and_its_group_goes(launcher, tmp_path):
    marker = tmp_path / "escaped.pid"
    code = ("import subprocess\n"
            "child = subprocess.Popen(['sleep', '60'], start_new_session=True)\n"   # out of the process group
            f"open({str(marker)!r}, 'w').write(str(child.pid))")
    record = executor.execute(executor.LaunchSpec((sys.executable, "-c", code), dict(os.environ), ROOT), launcher,
                            lambda line: None)
    assert record.exit_code == 0
    escaped = int(marker.read_text())
    deadline = time.monotonic() + 2
    while not _gone(escaped) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _gone(escaped)
    assert not list(GROUPS.members.folder.glob(f"concbench-{os.getpid()}-*"))   # the run's groups removed


@needs_groups
@pytest.mark.skipif(GROUPS is None or GROUPS.memory is None, reason="no memory control group here")
def test_a_program_over_its_memory_limit_is_killed_and_stored_crashed_with_reason_oom(cli):
    done = cli("run", "-b", "fib", "-v", "fake/bigrss", "-v", "fake/ok", "--param", "5", "--runs", "1",
               "--no-probe", "--memory-limit", "100M")                  # bigrss touches 200 MiB
    assert done.returncode == 1, done.stderr
    runs = {run["variant"]: run for run in cli.export()["runs"]}
    assert (runs["fake/bigrss"]["status"], runs["fake/bigrss"]["reason"]) == ("crashed", "oom")
    assert runs["fake/ok"]["status"] == "ok"                             # the session went on
    bad = cli("run", "-b", "fib", "-v", "fake/ok", "--param", "5", "--memory-limit", "lots")
    assert bad.returncode == 2 and "a size such as 512M" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs of its own (as root), unmounted after the test."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (root only): {mounted.stderr.decode().strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path) -> Path:
    """Take every free byte of the disk; the ballast file, to delete."""
    ballast = disk / "ballast"
    with open(ballast, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 512)
        except OSError:
            pass
    return ballast


def test_a_full_disk_stops_the_session_in_one_line_keeping_every_run_it_stored(small_disk):
    db = small_disk / "results.sqlite"
    command = ["run", "-b", "fib", "-v", "fake/ok", "--param", "5", "--runs", "40", "--iterations", "3",
               "--warmup", "0", "--no-probe", "--db", str(db)]
    session = subprocess.Popen([sys.executable, "-m", "concbench", *command], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(_rows(db, "SELECT id FROM runs")) < 3:
        assert time.monotonic() < deadline and session.poll() is None, session.communicate()
        time.sleep(0.02)
    ballast = _fill(small_disk)
    before = len(_rows(db, "SELECT id FROM runs"))
    _, stderr = session.communicate(timeout=60)
    assert session.returncode == 3, stderr
    assert len(stderr.strip().splitlines()) == 1 and "disk is full" in stderr, stderr
    ballast.unlink()
    assert _rows(db, "PRAGMA integrity_check") == [("ok",)]
    runs = _rows(db, "SELECT status FROM runs")
    assert len(runs) >= before and {s for (s,) in runs} == {"ok"}            # none lost, none half-stored
    assert [s for (s,) in _rows(db, "SELECT status FROM sessions")] != ["finished"]
    done = subprocess.run([sys.executable, "-m", "concbench", *command, "--resume"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(_rows(db, "SELECT id FROM runs")) == 40


def test_a_file_written_whole_keeps_the_earlier_one_when_the_write_fails(tmp_path, monkeypatch):
    from concbench.storing import files
    page = tmp_path / "index.html"
    files.write_whole(page, "the earlier page")
    assert page.read_text() == "the earlier page"

    def full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError):
        files.write_whole(page, "half of a new page")
    assert page.read_text() == "the earlier page" and [p.name for p in tmp_path.iterdir()] == ["index.html"]
    monkeypatch.undo()
    files.write_whole(tmp_path / "pgpass", "secret", mode=0o600)
    assert (tmp_path / "pgpass").stat().st_mode & 0o777 == 0o600
