"""Studies (presets with published figures) and session-to-session comparison, through the CLI."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from concbench.errors import CatalogError
from concbench.spec.studies import load_studies, load_study

ROOT = Path(__file__).resolve().parent.parent

STUDY = """
id = "selftest"
title = "a study of the fake implementation"
source = "tests"
hardware = "none"
statistic = "{statistic}"
method = "what the test says"
compare = [["fake/ok", "fake/slow"]]
scaling = "pad_ms"

[scales.quick]
runs = 1
[[scales.quick.parts]]
benchmark = "fib"
variants = ["fake/ok", "fake/slow", "cobol/threads"]
params = ["10", "12"]
options = {{ pad_ms = "2,4" }}
iterations = 6
warmup = 1

[scales.paper]
runs = 1

[[published]]
benchmark = "fib"
title = "their times"
unit = "ms"
columns = ["n", "ok", "slow"]
rows = [["10", "0.1", "2.0"], ["12", "0.2", "2.1"]]
note = "made up for the test"

[[claims]]
id = "ok-beats-slow"
words = "ok is faster than slow"
where = "table 1"
kind = "sign"
benchmark = "fib"
options = {{ pad_ms = "2" }}
pairs = [[{{ variant = "fake/ok", param = "10" }}, {{ variant = "fake/slow", param = "10" }}]]
"""


def test_the_shipped_studies_load_and_name_known_benchmarks(root):
    from concbench.spec.catalog import load_catalog
    catalog = load_catalog(root)
    studies = load_studies(root)
    assert {"kth-swift-2022", "taskgroup-2022", "countdown-2023"} <= set(studies)
    for study in studies.values():
        for scale in ("quick", "paper"):
            assert study.parts[scale], (study.id, scale)
            for part in study.parts[scale]:
                assert set(part.request.benchmarks) <= set(catalog.benchmarks)
                assert set(part.request.variants) <= set(catalog.variants), study.id
        assert study.published


def test_a_published_table_with_ragged_rows_is_rejected(tmp_path):
    path = tmp_path / "selftest.toml"
    path.write_text(STUDY.format(statistic="mean-z").replace('["12", "0.2", "2.1"]', '["12", "0.2"]'))
    with pytest.raises(CatalogError, match="wrong width"):
        load_study(path)


@pytest.fixture
def study_root(tmp_path):
    """A root with the real benchmarks and implementations and a study of the fake."""
    for name in ("benchmarks", "impls"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "studies").mkdir()
    return tmp_path


def _cli(root, *args):
    env = {**os.environ, "CONCBENCH_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "concbench", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=root)


@pytest.mark.parametrize("statistic, needle", [
    ("mean-z", "significant"), ("median-of-3-after-warmup", "T (factor) per pad_ms"), ("s-per-task", "time/task"),
    ("encore", "minimum of the whole-process runs")])
@pytest.mark.slow
def test_study_run_and_report_lay_ours_beside_theirs(study_root, statistic, needle):
    (study_root / "studies" / "selftest.toml").write_text(STUDY.format(statistic=statistic))
    done = _cli(study_root, "study", "run", "selftest", "--scale", "quick")
    assert done.returncode == 0, done.stderr
    assert "cobol/threads is unavailable here and left out" in done.stderr
    assert needle in done.stdout and "their times" in done.stdout
    report = _cli(study_root, "study", "report", "selftest")
    assert report.returncode == 0 and needle in report.stdout
    assert "made up for the test" in report.stdout
    if statistic == "median-of-3-after-warmup":
        page = _cli(study_root, "study", "report", "selftest", "--html", str(study_root / "html"))
        assert page.returncode == 0, page.stderr
        text = (study_root / "html" / "index.html").read_text()
        ours, theirs = text.index("T (factor) per pad_ms"), text.index("their times")
        assert ours < theirs and text.count("their times") == 1   # theirs right after ours, once


@pytest.mark.slow
def test_a_study_lists_its_claims_runs_their_cells_three_times_and_opens_its_report_with_their_verdicts(study_root):
    import json

    import jsonschema
    (study_root / "studies" / "selftest.toml").write_text(STUDY.format(statistic="mean-z"))
    listed = _cli(study_root, "study", "claims", "selftest")
    assert listed.returncode == 0 and "ok-beats-slow" in listed.stdout and "table 1" in listed.stdout
    assert not (study_root / "results").exists()                   # listing runs nothing
    done = _cli(study_root, "study", "run", "selftest", "--scale", "quick", "--no-probe")
    assert done.returncode == 0, done.stderr
    assert done.stdout.index("the source's claims") < done.stdout.index("their times")
    document = json.loads(_cli(study_root, "study", "report", "selftest", "--format", "json").stdout)
    schema = json.loads((ROOT / "concbench" / "schema" / "claims-v1.schema.json").read_text())
    jsonschema.validate(document, schema)
    (claim,) = document["claims"]
    assert claim["verdict"]["outcome"] == "reproduces", claim["verdict"]
    # The claim's two cells ran three times (the scale's runs = 1), every other point once.
    runs = {}
    for series in claim["verdict"]["series"]:
        assert series.startswith("fib fake/")
    from concbench.storing.store import Store
    for run in Store(study_root / "results" / "concbench.sqlite").runs(document["session"]):
        key = (run.variant, run.param, run.options.get("pad_ms"))
        runs[key] = runs.get(key, 0) + 1
    assert runs.pop(("fake/ok", "10", "2")) == runs.pop(("fake/slow", "10", "2")) == 3
    assert set(runs.values()) == {1}
    page = _cli(study_root, "study", "report", "selftest", "--html", str(study_root / "html"))
    assert page.returncode == 0, page.stderr
    text = (study_root / "html" / "index.html").read_text()
    assert text.index("id='claim-ok-beats-slow'") < text.index("their times")   # the claims open the page
    assert "data-outcome='reproduces'" in text and "href='#bench-fib'" in text     # linked to its evidence
    # The claim turned round in the study file after the run: the session is still judged as it was planned,
    # and the report says the file changed; --claims current judges by today's file.
    turned = STUDY.format(statistic="mean-z").replace('"fake/ok", param = "10" }, { variant = "fake/slow"',
                                                       '"fake/slow", param = "10" }, { variant = "fake/ok"')
    assert turned != STUDY.format(statistic="mean-z")
    (study_root / "studies" / "selftest.toml").write_text(turned)
    document = json.loads(_cli(study_root, "study", "report", "selftest", "--format", "json").stdout)
    jsonschema.validate(document, schema)
    assert document["judged_by"] == {"claims": "planned", "changed": ["ok-beats-slow"]}
    assert document["claims"][0]["verdict"]["outcome"] == "reproduces"
    document = json.loads(_cli(study_root, "study", "report", "selftest", "--format", "json", "--claims", "current").stdout)
    assert document["judged_by"]["claims"] == "current"
    assert document["claims"][0]["verdict"]["outcome"] == "does not reproduce"
    report = _cli(study_root, "study", "report", "selftest")
    assert "the study file has changed since for ok-beats-slow" in " ".join(report.stdout.split())
    # A rerun planned with the turned claim: `study compare` lays the two sessions' verdicts side by side and
    # counts the claim as moved across, each session judged by its own claims (or both by today's file).
    again = _cli(study_root, "study", "run", "selftest", "--scale", "quick", "--no-probe")
    assert again.returncode == 0, again.stderr
    second = json.loads(_cli(study_root, "study", "report", "selftest", "--format", "json").stdout)["session"]
    compared = _cli(study_root, "study", "compare", "selftest", str(document["session"]), str(second))
    text = " ".join(compared.stdout.split())
    assert compared.returncode == 0, compared.stderr
    assert "moved" in text and ("the same verdict for 0 of 1 claims (0 %); 1 between reproduces and does not "
                                "reproduce (ok-beats-slow)") in text, text
    current = _cli(study_root, "study", "compare", "selftest", str(document["session"]), str(second), "--claims", "current")
    assert "the same verdict for 1 of 1 claims (100 %); none between" in " ".join(current.stdout.split())
    missing = _cli(study_root, "study", "compare", "selftest", str(document["session"]), "99")
    assert missing.returncode == 2 and missing.stderr.strip() == "concbench: session 99 is not a finished session of study selftest"


@pytest.mark.slow
def test_study_errors_are_one_line(study_root):
    done = _cli(study_root, "study", "run", "nosuch")
    assert done.returncode == 2 and "unknown study 'nosuch'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    (study_root / "studies" / "selftest.toml").write_text(STUDY.format(statistic="mean-z"))
    done = _cli(study_root, "study", "report", "selftest")
    assert done.returncode == 2 and "no results yet" in done.stderr
    # A typo in a closed vocabulary is refused, naming the file and the key, and nothing runs.
    (study_root / "studies" / "selftest.toml").write_text(STUDY.format(statistic="mean_z"))
    done = _cli(study_root, "study", "run", "selftest", "--scale", "quick")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "selftest.toml: statistic = 'mean_z' is not one of 'mean-z'," in done.stderr
    assert not (study_root / "results").exists()


@pytest.mark.parametrize("statistic", ["geomeans", "median", ""])
def test_a_statistic_outside_the_vocabulary_is_refused(tmp_path, statistic):
    path = tmp_path / "selftest.toml"
    path.write_text(STUDY.format(statistic=statistic))
    with pytest.raises(CatalogError, match=f"selftest.toml: statistic = '{statistic}' is not one of"):
        load_study(path)


def _run_slow(cli, slowdown):
    # A 20 ms sleep an iteration, 5 runs: with the default 5 ms and 4 runs, the VM's wake-up jitter on one run
    # widened the interval of a 30 % slowdown past the 5 % band once in CI (found "inconclusive", not "slower").
    env = {**os.environ, "CONCBENCH_ROOT": str(ROOT), "CONCBENCH_FAKE_SLOWDOWN": slowdown}
    done = subprocess.run([sys.executable, "-m", "concbench", "run", "-b", "fib", "-v", "fake/slow", "--param", "10",
                           "--option", "pad_ms=20", "--runs", "5", "--iterations", "8", "--db", str(cli.db)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
@pytest.mark.serial
def test_compare_finds_no_regression_between_equal_sessions_and_one_after_a_30_percent_slowdown(cli):
    for slowdown in ("1", "1", "1.3"):
        _run_slow(cli, slowdown)
    same = cli("compare", "1", "2", "--fail-on-regression", "--db", str(cli.db), db=False)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "0 slower" in same.stdout
    slowed = cli("compare", "1", "3", "--fail-on-regression", "--db", str(cli.db), db=False)
    assert slowed.returncode == 1
    assert "1 slower" in slowed.stdout and "slower" in slowed.stdout
    assert cli("compare", "1", "3", "--db", str(cli.db), db=False).returncode == 0   # without the flag: reported only


def test_compare_warns_when_environments_differ():
    from concbench.analysis.regression import environment_differences
    a = {"cpu_model": "x", "kernel": "6", "toolchains": {"swift": {"version": "6.3", "build": {"opt": "O"}}}}
    b = {"cpu_model": "x", "kernel": "6", "toolchains": {"swift": {"version": "6.3", "build": {"opt": "Osize"}}}}
    notes = environment_differences(a, b)
    assert len(notes) == 1 and "Osize" in notes[0]
    assert environment_differences(a, a) == []
