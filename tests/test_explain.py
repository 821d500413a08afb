"""`concbench explain` against fixtures whose cause is known in advance (impls/fixture), through the real CLI.

Each fixture model computes spawn-scaling's true answer but spends its time one way: a global lock,
64 spinning threads on 2 cores, timed waits nobody ends early, per-item hand-offs through one queue,
quadratic work, or none of these. The diagnosis must name that cause first (and nothing for the
well-scaling one). Timings only steer which rule fires, with wide margins; no test asserts a speed."""

import json
import os

import pytest
from conftest import installed
from jsonschema import Draft202012Validator

from concbench.schema import load

pytestmark = [pytest.mark.serial, pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="the fixtures sweep cores 1 and 2")]

CAUSES = {"serial": "serial", "oversubscribed": "oversubscribed", "blocked": "blocked-pool",
          "handoff": "hand-off"}
# Each model's pad (CPU per task) and wait make its one cause plain: long critical sections so that the lock
# is held rather than handed over, tiny items so that hand-offs dominate, waits far longer than the work.
OPTIONS = {"serial": ["pad_us=200"], "handoff": ["pad_us=0"], "blocked": ["wait_us=2000"]}


def _explain(cli, *args: str) -> list[dict]:
    """The sweeps of `explain --json`, its document checked against the packaged schema."""
    done = cli("explain", "--json", "--db", str(cli.db), *args)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    schema = load("explain-v1")
    Draft202012Validator(schema).validate(document)
    return document["sweeps"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A session per fixture model, each at N = 4000 on 1 and 2 cores; their diagnoses by variant."""
    from conftest import Cli

    installed("fixture")
    cli = Cli(tmp_path_factory.mktemp("explain") / "results.sqlite")
    diagnoses = {}
    for session, model in enumerate(("scaling", *CAUSES, "idle", "io"), 1):
        options = [arg for option in OPTIONS.get(model, []) for arg in ("--option", option)]
        done = cli("run", "-b", "spawn-scaling", "-v", f"fixture/{model}", "--param", "4000", "--cores", "1,2",
                   "--runs", "1", "--iterations", "3", "--warmup", "0", *options)
        assert done.returncode == 0, done.stderr
        (diagnoses[f"fixture/{model}"],) = _explain(cli, str(session))
    return cli, diagnoses


@pytest.mark.parametrize("model", sorted(CAUSES))
@pytest.mark.slow
def test_each_fixture_is_diagnosed_with_its_cause_first(swept, model):
    _, diagnoses = swept
    d = diagnoses[f"fixture/{model}"]
    assert d["dimension"] == "cores" and [p["value"] for p in d["points"]] == ["1", "2"]
    assert d["findings"], f"{model}: no finding; points {d['points']}"
    assert d["findings"][0]["rule"] == CAUSES[model], d["findings"]


@pytest.mark.slow
def test_the_well_scaling_fixture_has_no_finding_and_its_figures_are_filled(swept):
    _, diagnoses = swept
    d = diagnoses["fixture/scaling"]
    assert d["findings"] == [], d["findings"]
    one, two = d["points"]
    assert two["speedup"] > 1.4 and two["karp_flatt"] < 0.5
    for point in (one, two):
        assert point["cpu_cores"] > 0.5 and point["threads_peak"] >= 2 and point["asleep_share"] is not None
        assert point["delay_share"] is not None and point["voluntary_per_s_core"] is not None


@pytest.mark.slow
def test_many_idle_service_threads_beside_a_scaling_pool_are_no_finding(swept):
    # As a JVM's GC, JIT and signal threads: 40 threads asleep all run long are not oversubscription, a blocked
    # pool or waiting; the full set of findings stays empty.
    _, diagnoses = swept
    d = diagnoses["fixture/idle"]
    assert d["findings"] == [], d["findings"]
    assert all(p["threads_peak"] >= 40 for p in d["points"]), d["points"]


@pytest.mark.slow
def test_timer_and_io_threads_beside_a_scaling_pool_are_no_finding(swept):
    # A program's timer threads (a 1 ms tick) and readers blocked on a pipe: the observer finds the sleepers
    # waiting for time or input, and no rule takes them for a hand-off, a blocked pool or oversubscription.
    _, diagnoses = swept
    d = diagnoses["fixture/io"]
    assert d["findings"] == [], d["findings"]
    assert all(p["timer_io_share"] is not None and p["timer_io_share"] >= 0.5 for p in d["points"]), d["points"]


@pytest.mark.slow
def test_the_terminal_form_says_when_a_series_has_no_finding(swept):
    cli, _ = swept
    done = cli("explain", "1", "--db", str(cli.db), "-v", "fixture/scaling")
    assert done.returncode == 0, done.stderr
    assert "no finding" in done.stdout and "fixture/scaling" in done.stdout


@pytest.mark.slow
def test_quadratic_work_is_super_linear_growth(cli):
    # The quadratic model with no pad, so that its inner loop is all there is; the linear one with its pad (20 µs of
    # CPU a task, 80–320 ms an iteration), so that a millisecond of the VM's noise cannot bend its slope: bare, at
    # about a millisecond an iteration, its slope between the two largest sizes read 1.55 once in CI.
    installed("fixture")
    for variant, pad in (("fixture/quadratic", "0"), ("fixture/scaling", "20")):
        done = cli("run", "-b", "spawn-scaling", "-v", variant, "--param", "4000,8000,16000", "--cores", "1",
                   "--runs", "1", "--iterations", "2", "--warmup", "0", "--option", f"pad_us={pad}")
        assert done.returncode == 0, done.stderr
    (quadratic,), (linear,) = _explain(cli, "1"), _explain(cli, "2")
    assert quadratic["dimension"] == "N" and quadratic["growth_exponent"] > 1.4
    assert [f["rule"] for f in quadratic["findings"]] == ["superlinear"]
    assert linear["dimension"] == "N" and linear["findings"] == [], linear["findings"]


@pytest.mark.slow
def test_a_stalled_run_is_the_first_finding(cli):
    done = cli("run", "-b", "fib", "-v", "fake/hang", "--param", "5", "--runs", "1", "--timeout", "2.5")
    assert done.returncode == 0, done.stderr
    (d,) = _explain(cli)
    assert d["findings"][0]["rule"] == "stall" and "1 of 1 runs timed out" in d["findings"][0]["text"]


@pytest.mark.slow
def test_bad_filters_exit_2_with_one_line(cli):
    cli("run", "-b", "fib", "-v", "fake/ok", "--param", "5", "--runs", "1")
    done = cli("explain", "--db", str(cli.db), "-v", "swift/gcd")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "no runs of it" in done.stderr and not done.stdout


def test_the_rules_table_lists_every_rule_with_its_threshold(cli):
    from concbench.analysis.explain import RULES

    done = cli("explain", "--rules")
    assert done.returncode == 0, done.stderr
    for rule in RULES:
        assert rule.name in done.stdout


@pytest.mark.slow
def test_the_html_report_shows_each_sweeps_findings_beside_its_curve_and_thread_states(swept, tmp_path):
    cli, _ = swept
    done = cli("report", "4", "--db", str(cli.db), "--html", str(tmp_path))   # session 4: fixture/blocked
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "index.html").read_text()
    assert '<div class="diagnosis" data-findings="blocked-pool">' in page
    assert "blocked pool" in page and "no per-thread samples" not in page
    assert page.count('id="plot-diagnosis-spawn-scaling-0"') == 1
