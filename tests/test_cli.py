"""The real CLI driven against the fake implementation: outcomes, exit statuses, storage."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import ROOT, Cli

FAKE = ["-b", "fib", "--size", "test", "--runs", "1"]


@pytest.mark.slow
def test_right_answers_are_verified_and_exit_0(cli):
    cli.spawn = True   # end to end, as a user starts it: `python -m concbench` in a process of its own
    done = cli("run", *FAKE, "-v", "fake/ok")
    assert done.returncode == 0, done.stderr
    runs = cli.export()["runs"]
    assert len(runs) == 4 and {r["status"] for r in runs} == {"ok"}
    assert all(it["verified"] for r in runs for it in r["iterations"])
    assert all(r["iterations"][0]["warmup"] and not r["iterations"][1]["warmup"] for r in runs)
    assert "verified" in done.stdout


@pytest.mark.slow
def test_a_wrong_answer_is_reported_wrong_and_exits_1(cli):
    done = cli("run", *FAKE, "-v", "fake/wrong", "--param", "10")
    assert done.returncode == 1
    run = cli.export()["runs"][0]
    assert run["status"] == "wrong" and run["reason"] == "wrong-result"
    assert [it["verdict"] for it in run["iterations"]][:3] == ["verified", "wrong", "verified"]
    assert "expected '55'" in done.stderr


@pytest.mark.parametrize("variant, status, reason", [
    ("fake/crash", "crashed", "signal"),
    ("fake/exit", "crashed", "exit"),
    ("fake/garbage", "malformed", "protocol"),
])
@pytest.mark.slow
def test_failures_are_recorded_with_their_reason_and_exit_1(cli, variant, status, reason):
    done = cli("run", *FAKE, "-v", variant, "--param", "10")
    assert done.returncode == 1
    run = cli.export()["runs"][0]
    assert (run["status"], run["reason"]) == (status, reason)
    assert len(run["iterations"]) >= 1   # what came before the failure is kept


@pytest.mark.slow
def test_a_protocol_error_names_the_line_and_a_snippet(cli):
    cli("run", *FAKE, "-v", "fake/garbage", "--param", "10")
    run = cli.export()["runs"][0]
    assert "line 3" in run["message"] and "Hello from stdout" in run["message"]


@pytest.mark.slow
def test_a_run_that_exits_0_without_saying_hello_is_malformed(cli):
    done = cli("run", *FAKE, "-v", "fake/silent", "--param", "10")
    assert done.returncode == 1
    run = cli.export()["runs"][0]
    assert (run["status"], run["reason"], run["message"]) == ("malformed", "protocol", "no hello line")


@pytest.mark.slow
def test_a_hang_is_a_stalled_timeout_exit_0_and_larger_sizes_are_skipped(cli):
    done = cli("run", *FAKE, "-v", "fake/hang", "--param", "5,10", "--timeout", "2.5")
    assert done.returncode == 0, done.stderr
    runs = cli.export()["runs"]
    assert (runs[0]["status"], runs[0]["stall"]) == ("timeout", True)
    assert runs[1]["status"] == "skipped" and runs[1]["param"] == "10"
    assert "stalled" in done.stdout


@pytest.mark.slow
def test_strict_makes_a_timeout_of_a_non_stalling_model_fail(cli):
    done = cli("run", *FAKE, "-v", "fake/spin", "--param", "5", "--timeout", "2", "--strict")
    assert done.returncode == 1
    assert cli.export()["runs"][0]["stall"] is False


@pytest.mark.slow
def test_threads_and_memory_reach_the_export(cli):
    assert cli("run", *FAKE, "-v", "fake/threads", "-v", "fake/bigrss", "--param", "5").returncode == 0
    runs = {r["variant"]: r for r in cli.export()["runs"]}
    assert runs["fake/threads"]["threads_max"] >= 40
    assert runs["fake/bigrss"]["max_rss_bytes"] > 200 * 1024 * 1024
    assert runs["fake/ok" if "fake/ok" in runs else "fake/threads"]["max_rss_bytes"] < 100 * 1024 * 1024
    assert runs["fake/bigrss"]["rss_peak_sampled_bytes"] > 150 * 1024 * 1024


def test_json_export_has_the_documented_shape(cli, tmp_path):
    out = tmp_path / "x.json"
    assert cli("run", *FAKE, "-v", "fake/ok", "--param", "5", "--export-json", str(out)).returncode == 0
    doc = json.loads(out.read_text())
    assert set(doc) >= {"session", "runs"} and "environment" in doc["session"]
    run = doc["runs"][0]
    for key in ("benchmark", "variant", "param", "cores", "status", "reason", "wall_ns", "user_ns", "sys_ns",
                "max_rss_bytes", "threads_max", "iterations", "metrics"):
        assert key in run
    assert set(run["iterations"][0]) >= {"ns", "result", "verified", "warmup"}
    assert run["metrics"] == {"fake_metric": 7}


@pytest.mark.parametrize("fmt, needle", [("csv", "session,benchmark,variant"), ("markdown", "| fib | fake/ok |"),
                                         ("table", "fake/ok")])
@pytest.mark.slow
def test_report_formats(cli, fmt, needle):
    cli("run", *FAKE, "-v", "fake/ok", "--param", "5")
    done = cli("report", "--format", fmt)
    assert done.returncode == 0 and needle in done.stdout


@pytest.mark.slow
def test_compare_two_variants(cli):
    cli("run", *FAKE, "-v", "fake/ok", "-v", "fake/slow", "--param", "10", "--iterations", "12")
    done = cli("report", "--compare", "fake/ok", "fake/slow")
    assert done.returncode == 0, done.stderr
    assert "fake/ok faster" in done.stdout
    assert "z-interval" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["run", "-b", "nosuch"], "unknown benchmark 'nosuch'"),
    (["run", "-v", "cobol/threads"], "unknown variant 'cobol/threads'"),
    (["run", "--size", "huge", "-v", "fake/ok"], "unknown size 'huge'"),
    (["run", "-v", "fake/ok", "--option", "nonsense"], "expected key=value"),
    (["run", "-v", "fake/ok", "--cores", "999"], "only"),
    (["run", "-v", "fake/ok", "--cores", "x"], "expected numbers"),
    (["run", "--no-such-flag"], "No such option"),
    (["run", "-b", "spawn-actors", "-v", "swift/seq"], "nothing to run"),
    (["run", "-b", "fib", "-v", "swift/gcd", "--option", "shape=nope"], "no shape 'nope'"),
    (["report", "999"], "no session 999"),
    (["run", "-v", "fake/ok", "--export-json", "/proc/x.json"], "--export-json /proc/x.json: cannot write there"),
    (["report", "--html", "/proc/x"], "--html /proc/x/index.html: cannot write there"),
])
@pytest.mark.slow
def test_bad_usage_is_one_line_and_exit_2(cli, args, message):
    cli("run", *FAKE, "-v", "fake/ok", "--param", "5")   # so that report has a database
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_a_database_that_cannot_be_opened_or_created_is_refused_before_anything_runs(cli, tmp_path):
    done = cli("run", *FAKE, "-v", "fake/ok", "--param", "5", "--db", "/proc/x.sqlite", db=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "concbench: /proc/x.sqlite: cannot open or create a database there (unable to open database file)"
    garbage = tmp_path / "not.sqlite"
    garbage.write_bytes(b"garbage" * 200)
    done = cli("report", "--db", str(garbage), db=False)
    assert done.returncode == 2 and "not a concbench database" in done.stderr and "Traceback" not in done.stderr
    # A URL is not taken for a file: no SQLite file under a folder named "mysql:" (PostgreSQL's: test_postgres.py).
    for command in (("run", *FAKE, "-v", "fake/ok", "--param", "5"), ("report",)):
        done = cli(*command, "--db", "mysql://bench@localhost/results", db=False)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
        assert "a mysql URL; a results database is an SQLite file or a postgresql:// URL" in done.stderr
    assert not list(ROOT.glob("mysql*"))   # the CLI runs in the repository root


@pytest.mark.slow
def test_a_binarys_refusal_before_hello_stops_the_session_as_bad_input(cli):
    # fake.py serves C >= 0 but refuses encore with fewer than 2 creatures (exit 2 before hello), as the
    # chameneos encore programs do: a combination its description cannot express.
    done = cli("run", "-b", "chameneos", "-v", "fake/ok", "--param", "3,1", "--runs", "2")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "concbench: fake/ok refused chameneos C=1: fake.py: chameneos encore needs C >= 2 "
        "(session 1 stopped there, its finished runs kept)"]
    listed = cli("report", "--list").stdout
    assert "refused" in listed
    runs = cli.export()["runs"]
    assert [(r["param"], r["status"]) for r in runs] == [("3", "ok")]   # no crashed run recorded for C=1


@pytest.mark.slow
def test_run_page_writes_the_report_beside_the_database_and_report_open_finds_it(cli, tmp_path, monkeypatch):
    cli.spawn = True   # Python's webbrowser reads BROWSER once a process: each `report --open` needs its own
    done = cli("run", *FAKE, "-v", "fake/ok", "--param", "5", "--page")
    page = cli.db.parent / "results-session-1" / "index.html"     # named after its database, results.sqlite
    assert done.returncode == 0, done.stderr
    assert f"HTML report: {page}" in done.stdout and page.is_file()
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    done = cli("report", "--open")
    assert done.returncode == 0 and f"no browser here: open {page}" in done.stdout
    assert "wrote" not in done.stdout          # the page of `run --page` is opened, not written again
    opened = tmp_path / "opened.txt"
    script = tmp_path / "browser.py"
    script.write_text(f"import sys, pathlib; pathlib.Path({str(opened)!r}).write_text(sys.argv[1])\n")
    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} %s")
    done = cli("report", "--open")
    assert done.returncode == 0 and f"opened {page}" in done.stdout
    assert opened.read_text() == page.as_uri()
    # Another database in the same folder has a session 1 too: its page is its own, never results.sqlite's.
    other = Cli(cli.db.parent / "other.sqlite", spawn=True)
    other("run", *FAKE, "-v", "fake/slow", "--param", "5", "--page")
    done = other("report", "--open")
    assert f"opened {cli.db.parent / 'other-session-1' / 'index.html'}" in done.stdout
    assert "fake/slow" in (cli.db.parent / "other-session-1" / "index.html").read_text()
    assert "fake/slow" not in page.read_text()
    # The database replaced by a new one whose session 1 is another: its page is written again, not reused.
    cli.db.unlink()
    cli("run", *FAKE, "-v", "fake/slow", "--param", "5")
    done = cli("report", "--open")
    assert f"wrote {page}" in done.stdout and "fake/slow" in page.read_text()


@pytest.mark.slow
def test_an_export_that_cannot_be_written_runs_nothing(cli):
    cli("run", *FAKE, "-v", "fake/ok", "--param", "5")
    before = cli("report", "--format", "json").stdout
    done = cli("run", *FAKE, "-v", "fake/ok", "--param", "5", "--export-csv", "/proc/x.csv")
    assert done.returncode == 2 and "stored as session" not in done.stdout
    assert cli("report", "--format", "json").stdout == before   # the latest session is still the first


def _spawn_session(cli, *extra):
    env = {**os.environ, "CONCBENCH_ROOT": str(cli.db.parent)}
    return subprocess.Popen(
        [sys.executable, "-m", "concbench", "run", "-b", "spawn-waiting", "-v", "fake/ok", "--param", "2",
         "--option", "wait_ms=100", "--iterations", "2", "--warmup", "0", "--runs", "20", "--db", str(cli.db), *extra],
        env={k: v for k, v in env.items() if k != "CONCBENCH_ROOT"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=os.path.dirname(os.path.dirname(__file__)))


def _finished_runs(db):
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM runs WHERE status = 'ok'").fetchone()[0]
        except sqlite3.OperationalError:   # the file is there, its tables not yet
            return 0


def _wait_for_runs(db, count, limit=30):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if db.exists() and _finished_runs(db) >= count:
            return
        time.sleep(0.1)
    raise AssertionError(f"fewer than {count} runs finished in {limit} s")


@pytest.mark.slow
def test_sigkill_mid_session_loses_no_finished_run(cli):
    proc = _spawn_session(cli)
    _wait_for_runs(cli.db, 2)
    proc.kill()
    proc.wait()
    kept = _finished_runs(cli.db)
    assert kept >= 2
    with sqlite3.connect(cli.db) as conn:
        assert conn.execute("SELECT status FROM sessions").fetchone()[0] == "running"   # never ended
        assert conn.execute("SELECT COUNT(*) FROM iterations").fetchone()[0] == 2 * kept


@pytest.mark.slow
def test_sigterm_ends_the_session_cleanly_marked_interrupted(cli):
    proc = _spawn_session(cli)
    _wait_for_runs(cli.db, 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130
    assert b"interrupted" in err
    with sqlite3.connect(cli.db) as conn:
        assert conn.execute("SELECT status FROM sessions").fetchone()[0] == "interrupted"
    assert _finished_runs(cli.db) >= 2


def test_list_shows_variants_and_availability(cli):
    done = cli("list", "--json")
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    names = {v["variant"]: v for v in doc["variants"]}
    assert "swift/gcd" in names and "available" in names["swift/gcd"]
    assert {b["id"] for b in doc["benchmarks"]} >= {"fib", "nqueens"}


@pytest.mark.slow
def test_a_result_without_reference_is_agreed_across_variants_and_the_odd_one_is_wrong(cli):
    done = cli("run", *FAKE, "-v", "fake/ok", "-v", "fake/slow", "-v", "fake/wrong", "--param", "11",
               "--iterations", "3", "--warmup", "0")
    assert done.returncode == 1
    runs = {r["variant"]: r for r in cli.export()["runs"]}
    assert {it["verdict"] for it in runs["fake/ok"]["iterations"]} == {"agreed"}
    assert not any(it["verified"] for it in runs["fake/ok"]["iterations"])   # agreed is never verified
    assert runs["fake/wrong"]["status"] == "wrong"


@pytest.mark.parametrize("variant, after", [("fake/wrong-hang", "then run time limit"),
                                            ("fake/wrong-crash", "then killed by signal")])
@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.slow
def test_a_wrong_answer_before_a_hang_or_crash_is_wrong(cli, variant, after, strict):
    done = cli("run", *FAKE, "-v", variant, "--param", "10", "--timeout", "3", *(["--strict"] if strict else []))
    assert done.returncode == 1
    run = cli.export()["runs"][0]
    assert (run["status"], run["reason"]) == ("wrong", "wrong-result")
    assert after in run["message"]
    if "hang" in variant:
        assert run["stall"] is True   # the timeout's facts stay beside the verdict


@pytest.mark.slow
def test_a_wrong_deterministic_metric_is_wrong(cli):
    done = cli("run", "-b", "chameneos", "--size", "test", "--runs", "1", "-v", "fake/wrong-metric", "--strict")
    assert done.returncode == 1
    runs = cli.export()["runs"]
    assert {(r["status"], r["reason"]) for r in runs} == {("wrong", "metric")}
    assert "self_meetings=1, the spec expects 0" in runs[0]["message"]


@pytest.mark.slow
def test_right_metrics_pass_and_redux_runs_at_test_size(cli):
    assert cli("run", "-b", "chameneos", "--size", "test", "--runs", "1", "-v", "fake/ok").returncode == 0
    runs = cli.export()["runs"]
    assert {r["options"].get("variant") for r in runs} == {"encore", "redux"}
    assert all(r["status"] == "ok" for r in runs)


@pytest.mark.slow
def test_agreement_groups_by_option_values(cli):
    done = cli("run", "-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/twin", "--param", "7",
               "--option", "scale=1,2", "--runs", "1")
    assert done.returncode == 0, done.stderr
    runs = cli.export()["runs"]
    assert len(runs) == 4
    assert {it["verdict"] for r in runs for it in r["iterations"]} == {"agreed"}


@pytest.mark.parametrize("args, message", [
    (["--param", "-5"], "--param -5 is outside what fake/ok accepts"),
    (["--param", "10", "--option", "nosuch=1"], "takes no option 'nosuch'"),
    (["--param", "10", "--option", "cutoff=x"], "--option cutoff=x is outside"),
    (["--param", "10", "--option", "repeat=0"], "--option repeat=0 is outside"),
    (["-b", "spawn-waiting", "--param", "2", "--option", "repeat=2"], "spawn-waiting: its spec allows no inner repetitions"),
])
def test_a_bad_parameter_or_option_is_refused_before_anything_runs(cli, args, message):
    done = cli("run", *(["-b", "fib"] if "-b" not in args else []), "-v", "fake/ok", *args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not cli.db.exists()   # nothing ran, nothing was stored


@pytest.mark.slow
def test_inner_repetitions_batch_a_repeatable_benchmark_and_keep_verifying(cli):
    done = cli("run", "-b", "fib", "-v", "fake/ok", "--param", "10", "--option", "repeat=1,4",
               "--runs", "1", "--iterations", "2")
    assert done.returncode == 0, done.stderr
    runs = cli.export()["runs"]
    assert sorted(r["options"].get("repeat") for r in runs) == ["1", "4"]
    assert {it["verdict"] for r in runs for it in r["iterations"]} == {"verified"}


@pytest.mark.slow
def test_export_bmf_writes_what_a_bencher_server_reads(cli, tmp_path):
    from concbench.schema import validate_bmf
    path = tmp_path / "bmf.json"
    done = cli("run", *FAKE, "-v", "fake/ok", "--param", "10,15", "--export-bmf", str(path))
    assert done.returncode == 0, done.stderr
    document = json.loads(path.read_text())
    validate_bmf(document)
    assert sorted(document) == ["fib/fake/ok/param=10/cores=2", "fib/fake/ok/param=15/cores=2"]
    again = cli("report", "--format", "bmf")
    assert json.loads(again.stdout) == document


@pytest.mark.slow
def test_three_shards_run_every_point_of_the_plan_once_as_sessions_of_one_plan(cli, tmp_path):
    points, plans = [], set()
    for k in (1, 2, 3):
        db = tmp_path / f"shard{k}.sqlite"
        done = cli("run", "-b", "fib", "-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/slow", "--size", "test",
                   "--runs", "1", "--shard", f"{k}/3", "--db", str(db), db=False)
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(db) as conn:   # a run the probe found disturbed is run again: first attempts only
            points += conn.execute("SELECT benchmark, variant, param, options_json, cores FROM runs"
                                   " WHERE attempt = 0").fetchall()
            shard = json.loads(conn.execute("SELECT config_json FROM sessions").fetchone()[0])["shard"]
        assert shard["part"] == f"{k}/3"
        plans.add((shard["plan"], shard["points"]))
    (plan,) = plans                                      # one plan, named alike by every shard
    assert len(points) == len(set(points)) == plan[1]   # every point exactly once
    merged = tmp_path / "all.sqlite"
    shards = [str(tmp_path / f"shard{k}.sqlite") for k in (1, 2, 3)]
    done = cli("merge", *shards, "--into", str(merged), db=False)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(merged) as conn:
        assert sorted(conn.execute("SELECT benchmark, variant, param, options_json, cores FROM runs"
                                   " WHERE attempt = 0")) == sorted(points)
        stored = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    again = cli("merge", shards[1], "--into", str(merged), db=False)   # the same session again: nothing added
    assert again.returncode == 0 and "already there" in again.stdout, again.stderr
    with sqlite3.connect(merged) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == stored
    rerun = tmp_path / "shard2-again.sqlite"          # another session of shard 2/3 (run later): refused
    shutil.copy(shards[1], rerun)
    with sqlite3.connect(rerun) as conn:
        conn.execute("UPDATE sessions SET started_at = '2099-01-01T00:00:00'")
    other = cli("merge", str(rerun), "--into", str(merged), db=False)
    assert other.returncode == 2 and "shard 2/3 of plan" in other.stderr and "already in" in other.stderr
    # The merged store's report is the whole plan, as one unsharded run's report would be: every series of
    # every shard, the shards named in the heading; --one-shard shows the last shard alone.
    whole_run = tmp_path / "whole.sqlite"
    assert cli("run", "-b", "fib", "-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/slow", "--size", "test",
               "--runs", "1", "--db", str(whole_run), db=False).returncode == 0
    def series(text):
        return sorted(line.split("│")[1].strip() + line.split("│")[2].strip()
                      for line in text.splitlines() if line.startswith("│ fake/"))
    merged_report = cli("report", "--db", str(merged), "--wide", db=False)
    assert merged_report.returncode == 0, merged_report.stderr
    assert series(merged_report.stdout) == series(cli("report", "--db", str(whole_run), "--wide", db=False).stdout)
    text = " ".join(merged_report.stdout.split())
    assert all(f"shard {k}/3: session {k}" in text for k in (1, 2, 3))
    assert f"plan {plan[0]}: 3 of 3 shards, on one machine" in text
    alone = cli("report", "--db", str(merged), "--wide", "--one-shard", db=False).stdout
    assert 0 < len(series(alone)) < len(series(merged_report.stdout)) and "shard 1/3" not in alone


@pytest.mark.slow
def test_a_line_that_names_a_file_or_an_error_is_never_wrapped_however_narrow(tmp_path):
    db = tmp_path / ("a folder name long enough to pass forty columns" + "/results.sqlite")
    db.parent.mkdir()
    env = {**os.environ, "CONCBENCH_ROOT": str(ROOT), "COLUMNS": "40"}
    done = subprocess.run([sys.executable, "-m", "concbench", "run", *FAKE, "-v", "fake/ok", "--param", "5",
                           "--no-probe", "--db", str(db)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"stored as session 1 in {db}\n" in done.stdout
    refused = subprocess.run([sys.executable, "-m", "concbench", "report", "999", "--db", str(db)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1 and str(db) in refused.stderr
