"""`concbench slurm`: a plan's parts as a job array on a real one-node Slurm (tests/services/slurm.py), a merge
job after them, their status, a cancelled part submitted again; and `run --resume`, which that rests on."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import pytest
from conftest import ROOT
from services.slurm import slurm_cluster  # noqa: F401 (a fixture)

from concbench.running.plan import Request, make_plan
from concbench.spec.catalog import load_catalog

pytestmark = pytest.mark.slow

LIMIT_S = 150   # each test's own, the cluster's start apart

FAKE = ["run", "-b", "fib", "-v", "fake/ok", "-v", "fake/slow", "--size", "test", "--runs", "1", "--cores", "1,2",
        "--no-probe"]   # the parts share the test cluster's one node: with the probe they would rerun each other
FAKE_PLAN = Request(benchmarks=("fib",), variants=("fake/ok", "fake/slow"), size="test", cores=(1, 2))
# Three series (one per pad), two sizes, two runs each: a part takes a few seconds, time enough to cancel it.
# The parts share the one node of the test cluster and disturb each other: without the probe, each run once.
PADDED = ["run", "-b", "fib", "-v", "fake/slow", "--param", "5,10", "--option", "pad_ms=200,201,202",
          "--runs", "2", "--iterations", "2", "--warmup", "0", "--no-probe"]
PADDED_PLAN = Request(benchmarks=("fib",), variants=("fake/slow",), params=("5", "10"),
                      cores=(len(os.sched_getaffinity(0)),), options=(("pad_ms", ("200", "201", "202")),))


@pytest.fixture(autouse=True)
def watchdog():
    """A test here that hangs fails instead, once it has run LIMIT_S (its subprocesses are killed with it)."""
    def expire(signum, frame):
        pytest.fail(f"the test ran past {LIMIT_S} s", pytrace=False)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def concbench(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in (env or os.environ).items() if k != "CONCBENCH_DB"}
    return subprocess.run([sys.executable, "-m", "concbench", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**environment, "CONCBENCH_ROOT": str(ROOT)}, timeout=timeout)


def rows(db, sql: str, *args) -> list[tuple]:
    """A query of a results file, read-only (a part may be writing it)."""
    if not db.exists():
        return []
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)) as connection:
        try:
            return connection.execute(sql, args).fetchall()
        except sqlite3.OperationalError:   # not made yet
            return []


def points(db) -> list[tuple]:
    """Every stored run as (benchmark, variant, param, options, cores, run index), sorted."""
    return sorted((b, v, p, tuple(sorted(json.loads(o).items())), c, i)
                  for b, v, p, o, c, i in rows(db, "SELECT benchmark, variant, param, options_json, cores, run_index FROM runs"))


def planned(request: Request, runs: int) -> list[tuple]:
    """What one unsharded run of this request runs, in the form of points()."""
    plan = make_plan(load_catalog(ROOT), request, set(request.variants))
    return sorted((p.benchmark.id, p.variant.name, p.param, p.options, p.cores, i) for p in plan for i in range(runs))


def wait_for(what: str, check, timeout: float = 90, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(every)


def status(folder, env) -> str:
    done = concbench("slurm", "status", str(folder), env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def status_saying(text: str, folder, env) -> str:
    def check():
        said = status(folder, env)
        return said if text in said else None
    return wait_for(f"{text!r} in the status of {folder}", check)


def merged(folder, env) -> str:
    """The job's status once its merge has run (failing early where something failed that should not)."""
    def check():
        said = status(folder, env)
        assert "failed" not in said, said
        return said if "· merged into" in said else None
    return wait_for(f"the job in {folder} merged", check, every=1)


def test_three_parts_run_as_a_job_array_and_merge_into_every_point_of_the_plan_once(slurm_cluster, tmp_path):
    # A space and a % in the folder: sbatch takes the quoted log path as it is, no pattern of its own expanded.
    folder, target = tmp_path / "job 50%", tmp_path / "all.sqlite"
    done = concbench("slurm", "submit", "--shards", "3", "--dir", str(folder), "--db", str(target), *FAKE,
                     env=slurm_cluster.env)
    assert done.returncode == 0, done.stderr
    job = json.loads((folder / "job.json").read_text())
    (submission,) = job["submissions"]
    assert (job["command"], job["shards"], job["target"], submission["shards"]) == (FAKE, 3, str(target), [1, 2, 3])
    assert f"job array {submission['array']}" in done.stdout and f"merge as job {submission['merge']}" in done.stdout
    said = merged(folder, slurm_cluster.env)
    assert "3/3 shards finished · merged into" in said
    assert all(f"shard {k}/3  finished" in said for k in (1, 2, 3))
    assert all((folder / f"shard-{k}.out").is_file() for k in (1, 2, 3)) and (folder / "merge.out").is_file()
    assert points(target) == planned(FAKE_PLAN, runs=1)                  # every point of the plan, each once
    assert {s for (s,) in rows(target, "SELECT status FROM runs")} == {"ok"}
    parts = [(json.loads(c)["shard"]["part"], s) for c, s in rows(target, "SELECT config_json, status FROM sessions")]
    assert sorted(parts) == [("1/3", "finished"), ("2/3", "finished"), ("3/3", "finished")]


def test_a_part_cancelled_while_it_runs_is_submitted_again_alone_and_goes_on_where_it_stopped(slurm_cluster, tmp_path):
    env, folder, target = slurm_cluster.env, tmp_path / "job", tmp_path / "all.sqlite"
    done = concbench("slurm", "submit", "--shards", "3", "--dir", str(folder), "--db", str(target), *PADDED, env=env)
    assert done.returncode == 0, done.stderr
    array = json.loads((folder / "job.json").read_text())["submissions"][0]["array"]
    shard = lambda k: folder / f"shard-{k}.sqlite"   # noqa: E731

    def running_with_two_runs():
        return next((k for k in (1, 2, 3) if len(rows(shard(k), "SELECT id FROM runs")) >= 2
                     and not rows(shard(k), "SELECT id FROM sessions WHERE status = 'finished'")), None)

    k = wait_for("a part with two runs stored", running_with_two_runs, every=0.1)
    cancel = slurm_cluster.run("scancel", f"{array}_{k}")
    assert cancel.returncode == 0, cancel.stderr
    # scancel sends SIGTERM: the session ends as interrupted, its finished runs kept.
    wait_for("the session interrupted", lambda: rows(shard(k), "SELECT status FROM sessions") == [("interrupted",)])
    before = rows(shard(k), "SELECT id, param, run_index, wall_ns FROM runs ORDER BY id")
    assert 2 <= len(before) < 4
    said = status_saying(f"shard {k}/3  cancelled", folder, env)
    assert f"holds {len(before)} of 4 runs" in said

    again = concbench("slurm", "resubmit", str(folder), env=env)
    assert again.returncode == 0, again.stderr
    assert f"resubmitted shards {k} as job array" in again.stdout
    submissions = json.loads((folder / "job.json").read_text())["submissions"]
    assert [s["shards"] for s in submissions] == [[1, 2, 3], [k]]      # only the cancelled part runs again
    said = merged(folder, env)
    assert "3/3 shards finished · merged into" in said

    after = rows(shard(k), "SELECT id, param, run_index, wall_ns FROM runs ORDER BY id")
    assert after[:len(before)] == before                              # the runs before the cancel, as they were
    assert sorted((p, i) for _, p, i, _ in after) == [("10", 0), ("10", 1), ("5", 0), ("5", 1)]   # none twice
    assert rows(shard(k), "SELECT status FROM sessions") == [("finished",)]   # the same session, finished
    assert "resuming session 1" in (folder / f"shard-{k}.out").read_text()
    assert points(target) == planned(PADDED_PLAN, runs=2)
    assert {s for (s,) in rows(target, "SELECT status FROM runs")} == {"ok"}
    nothing = concbench("slurm", "resubmit", str(folder), env=env)
    assert nothing.returncode == 2 and "nothing to resubmit" in nothing.stderr
    assert len(nothing.stderr.strip().splitlines()) == 1


def fake_slurm(tmp_path, sbatch_fails_at: int = 0):
    """sbatch, squeue and scancel that only note their calls (sbatch answers job id 4711, or fails at its
    `sbatch_fails_at`-th call as with a bad partition); PATH is to hold nothing else."""
    folder = tmp_path / "bin"
    folder.mkdir()
    calls = tmp_path / "calls"
    for tool in ("sbatch", "squeue", "scancel"):
        (folder / tool).write_text(f"#!/bin/sh\necho {tool} \"$@\" >> {calls}\necho 4711\n")
        (folder / tool).chmod(0o755)
    if sbatch_fails_at:
        (folder / "sbatch").write_text(
            f"#!/bin/sh\necho sbatch \"$@\" >> {calls}\n"
            f"n=0; while read -r line; do case $line in sbatch*) n=$((n + 1));; esac; done < {calls}\n"   # no grep on PATH
            f"if [ $n -ge {sbatch_fails_at} ]; then\n"
            "  echo 'sbatch: error: Batch job submission failed: Invalid partition name specified' >&2; exit 1\nfi\n"
            "echo 4711\n")
    return folder, calls


@pytest.mark.parametrize("words, said", [
    (["--shards", "3", "run", "-b", "fib", "-v", "fake/ok", "--bogus"], "concbench run: No such option '--bogus'"),
    (["--shards", "0", "run", "-b", "fib", "-v", "fake/ok"], "0 is not in the range x>=1"),
    (["--shards", "3", "run", "-b", "fib", "-v", "fake/ok", "--size", "test"], "the plan has 1 series, fewer than 3 shards"),
    (["run", "-b", "nosuch", "-v", "fake/ok"], "unknown benchmark 'nosuch'"),
    (["run", "-b", "fib", "-v", "fake/ok", "--db", "x.sqlite"], "slurm submit sets --db for each shard itself"),
    (["run", "-b", "fib", "-v", "fake/ok", "--page"], "--page is not for one shard"),
    (["report"], "expected `run …` or `study run …`"),
])
def test_bad_input_is_one_line_and_exit_2_and_nothing_is_submitted(tmp_path, words, said):
    tools, calls = fake_slurm(tmp_path)
    folder = tmp_path / "job"
    done = concbench("slurm", "submit", "--dir", str(folder), *words, env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not calls.exists() and not folder.exists()


def test_without_sbatch_on_path_nothing_is_submitted(tmp_path):
    tools, calls = fake_slurm(tmp_path)
    (tools / "sbatch").unlink()
    folder = tmp_path / "job"
    done = concbench("slurm", "submit", "--dir", str(folder), *FAKE, env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 2 and "sbatch is not on PATH" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not calls.exists() and not folder.exists()


@pytest.mark.parametrize("fails_at, cancelled", [(1, []), (2, ["scancel 4711"])])
def test_a_submission_sbatch_refuses_leaves_nothing_behind(tmp_path, fails_at, cancelled):
    """The array refused: nothing was submitted. The merge refused: the array it was for is cancelled."""
    tools, calls = fake_slurm(tmp_path, sbatch_fails_at=fails_at)
    folder = tmp_path / "job"
    done = concbench("slurm", "submit", "--shards", "3", "--dir", str(folder), *FAKE,
                     env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("concbench: sbatch failed: sbatch: error: Batch job submission failed: "
                                   "Invalid partition name specified")
    assert [c for c in calls.read_text().splitlines() if not c.startswith("sbatch")] == cancelled
    assert not folder.exists()   # the same command can be given again


def test_run_resume_goes_on_with_an_interrupted_session_and_runs_nothing_twice(tmp_path):
    db = tmp_path / "results.sqlite"
    # Without the probe: a run it found disturbed would be run again, one run index twice, which is not what
    # "nothing twice" is about here (test_probe.py tests the runs again).
    args = ["run", "-b", "fib", "-v", "fake/slow", "--param", "5", "--option", "pad_ms=150", "--runs", "6",
            "--iterations", "2", "--warmup", "0", "--db", str(db), "--no-probe"]
    environment = {**os.environ, "CONCBENCH_ROOT": str(ROOT)}
    environment.pop("CONCBENCH_DB", None)
    first = subprocess.Popen([sys.executable, "-m", "concbench", *args], cwd=ROOT, env=environment,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for("two runs stored", lambda: len(rows(db, "SELECT id FROM runs")) >= 2, every=0.1)
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=30) == 130
    finally:
        if first.poll() is None:
            first.kill()
    assert rows(db, "SELECT id, status FROM sessions") == [(1, "interrupted")]
    before = rows(db, "SELECT id, run_index, wall_ns FROM runs ORDER BY id")
    assert 2 <= len(before) < 6

    done = concbench(*args, "--resume")
    assert done.returncode == 0, done.stderr
    assert f"resuming session 1 (interrupted): {len(before)} runs kept, {6 - len(before)} to run" in done.stdout
    assert rows(db, "SELECT id, status FROM sessions") == [(1, "finished")]
    after = rows(db, "SELECT id, run_index, wall_ns FROM runs ORDER BY id")
    assert after[:len(before)] == before                      # kept as they were
    assert sorted(i for _, i, _ in after) == list(range(6))   # each run once: none lost, none twice

    other = concbench(*args, "--param", "10", "--resume")   # another plan (the last --param counts)
    assert other.returncode == 0, other.stderr
    assert "no unfinished session of this plan" in other.stdout
    assert [s for _, s in rows(db, "SELECT id, status FROM sessions")] == ["finished", "finished"]


def test_a_password_in_the_target_url_is_kept_only_in_a_password_file_its_owner_alone_reads(tmp_path):
    tools, calls = fake_slurm(tmp_path)
    folder = tmp_path / "job"
    url = "postgresql://bench:s3 cr:t@db.example:5432/results?sslmode=require"
    done = concbench("slurm", "submit", "--shards", "3", "--dir", str(folder), "--db", url, *FAKE,
                     env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 0, done.stderr
    assert "s3 cr:t" not in done.stdout + done.stderr
    for path in folder.iterdir():
        assert path.stat().st_mode & 0o077 == 0, path                       # the owner's alone
        if path.name != "pgpass":
            assert "s3 cr" not in path.read_text(), path
    assert folder.stat().st_mode & 0o077 == 0
    assert json.loads((folder / "job.json").read_text())["target"] == \
        "postgresql://bench@db.example:5432/results?sslmode=require"
    assert (folder / "pgpass").read_text() == "*:*:*:*:s3 cr\\:t\n"          # libpq's escape of ':'
    assert f"export PGPASSFILE={folder / 'pgpass'}" in (folder / "merge.sh").read_text()


@pytest.mark.parametrize("flag, value", [("--partition", "debug\nrm -rf ~"), ("--time", "1:00 --wrap=x"),
                                         ("--partition", "a%j")])
def test_a_slurm_value_a_job_script_cannot_hold_is_refused_in_one_line(tmp_path, flag, value):
    tools, calls = fake_slurm(tmp_path)
    folder = tmp_path / "job"
    done = concbench("slurm", "submit", flag, value, "--dir", str(folder), *FAKE, env={**os.environ, "PATH": str(tools)})
    assert done.returncode == 2 and f"{flag} " in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not calls.exists() and not folder.exists()
