"""A study that aggregates by the source's rules (statistic "geomean", scoop-2015): the published
aggregates recomputed from the published tables, and a study of the fake run end to end."""

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from concbench.analysis import geomeans
from concbench.errors import CatalogError
from concbench.spec.studies import load_study

ROOT = Path(__file__).resolve().parent.parent
ALL_CORES = [1, 2, 4, 8, 16, 32]


@pytest.fixture(scope="module")
def scoop():
    return load_study(ROOT / "studies" / "scoop-2015.toml")


def _means(study, entrant, cores):
    figures = geomeans.published_figures(study)
    return {k: v.value for k, v in geomeans._family_means(study, figures, entrant, cores).items()}


def test_the_papers_geomeans_come_back_from_its_tables(scoop):
    """scoop-summary.md: parallel T 0.321/0.571/0.894/1.348/18.066, C 0.288 (SCOOP/Qs) and 4.321 (Erlang);
    concurrent (recomputed) 1.576/1.862/11.898/5.058/1.909; overall = sqrt(parallel × concurrent)."""
    cores = {"parallel": ALL_CORES, "concurrent": []}
    expected = {"C++": (0.321, 1.576), "Go": (0.571, 1.862), "Haskell": (0.894, 11.898), "Erlang": (18.066, 5.058),
                "SCOOP/Qs": (1.348, 1.909)}
    for entrant, (parallel, concurrent) in expected.items():
        means = _means(scoop, entrant, cores)
        assert means["parallel"] == pytest.approx(parallel, abs=6e-4), entrant
        assert means["concurrent"] == pytest.approx(concurrent, abs=6e-4), entrant
        assert means["overall"] == pytest.approx(math.sqrt(parallel * concurrent), rel=1e-3), entrant
    assert _means(scoop, "SCOOP/Qs", cores)["parallel C"] == pytest.approx(0.288, abs=6e-4)
    assert _means(scoop, "Erlang", cores)["parallel C"] == pytest.approx(4.321, abs=6e-4)
    assert _means(scoop, "Go", cores)["parallel C"] == _means(scoop, "Go", cores)["parallel"]   # T stands in


def test_the_papers_two_times_is_haskell_over_scoop(scoop):
    figures = geomeans.published_figures(scoop)
    cores = {"parallel": ALL_CORES, "concurrent": []}
    overall = {e.name: geomeans._family_means(scoop, figures, e.name, cores)["overall"].value
               for e in scoop.entrants if e.published}
    scoop_qs = next(e for e in scoop.entrants if e.name == "SCOOP/Qs")
    assert geomeans._ahead(scoop, overall, scoop_qs) == pytest.approx(2.04, abs=0.01)


def test_another_shape_of_a_port_is_shown_but_is_no_rival(scoop):
    shapes = {e.name: e.shape_of for e in scoop.entrants if e.shape_of}
    assert shapes == {"Haskell, STM per operation": "Haskell", "Erlang, binaries": "Erlang"}
    qs = next(e for e in scoop.entrants if e.name == "SCOOP/Qs")
    haskell = next(e for e in scoop.entrants if e.name == "Haskell")
    overall = {"SCOOP/Qs": 2.0, "Haskell": 4.0, "Erlang": 8.0, "Haskell, STM per operation": 1.0,
               "Erlang, binaries": 0.5}
    assert geomeans._ahead(scoop, overall, qs) == 2.0      # Haskell's batched STM, not its faster shapes
    assert geomeans._ahead(scoop, overall, haskell) == 0.5  # its own other shape is not another language


def test_ahead_among_the_papers_languages_leaves_out_the_rivals_it_never_measured(scoop):
    qs = next(e for e in scoop.entrants if e.name == "SCOOP/Qs")
    overall = {"SCOOP/Qs": 2.0, "Haskell": 4.0, "Erlang": 8.0, "Swift actors": 1.0}
    assert geomeans._ahead(scoop, overall, qs) == 0.5                        # Swift actors is the best rival
    assert geomeans._ahead(scoop, overall, qs, published_only=True) == 2.0   # the paper's claim: against Haskell


def test_a_shape_of_an_unknown_entrant_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('id = "s"\ntitle = "t"\nsource = "x"\nstatistic = "geomean"\n'
                    '[families.f]\nbenchmarks = ["fib"]\n'
                    '[[entrants]]\nname = "A"\nvariants = { f = ["fake/ok"] }\n'
                    '[[entrants]]\nname = "B"\nshape_of = "C"\npublished = false\nvariants = { f = ["fake/twin"] }\n')
    with pytest.raises(CatalogError, match="shape_of"):
        load_study(path)


def test_the_paper_is_averaged_over_the_core_counts_we_ran(scoop):
    """At 1 and 32 threads alone the summary's anchors: C++ 1.232 and 0.139."""
    for cores, value in (([1], 1.232), ([32], 0.139)):
        assert _means(scoop, "C++", {"parallel": cores, "concurrent": []})["parallel"] == pytest.approx(value, abs=6e-4)


def test_an_entrant_of_an_unknown_family_is_refused(tmp_path):
    text = (ROOT / "studies" / "scoop-2015.toml").read_text().replace(
        'variants = { concurrent = ["jvm/threads"] }', 'variants = { coordination = ["jvm/threads"] }')
    path = tmp_path / "scoop-2015.toml"
    path.write_text(text)
    with pytest.raises(CatalogError, match="unknown families: coordination"):
        load_study(path)


STUDY = """
id = "selftest"
title = "an aggregating study of the fake implementation"
source = "tests"
hardware = "none"
statistic = "geomean"
method = "what the test says"

[families.parallel]
benchmarks = ["fib"]
sweep = "cores"

[families.concurrent]
benchmarks = ["spawn-waiting"]

[[entrants]]
name = "Quick"
variants = { parallel = ["fake/ok"], concurrent = ["fake/ok"] }
race_free = true

[[entrants]]
name = "Slow"
variants = { parallel = ["fake/slow"], concurrent = ["fake/ok"] }

[[entrants]]
name = "Gone"
variants = { parallel = ["fake/nosuch"], concurrent = ["fake/nosuch"] }
race_free = true
absent = "runtime not available here"

[scales.quick]
runs = 1
[[scales.quick.parts]]
benchmark = "fib"
variants = ["fake/ok", "fake/slow"]
params = ["10"]
cores = [1, 2]
iterations = 3
warmup = 0
all_shapes = false
[[scales.quick.parts]]
benchmark = "spawn-waiting"
variants = ["fake/ok"]
params = ["2"]
iterations = 3
warmup = 0

[scales.paper]
runs = 1

[[published]]
benchmark = "parallel"
title = "their parallel table"
unit = "s"
layout = "by-cores"
columns = ["task", "language", "V", "1", "2"]
rows = [["fib", "Quick", "T", "0.5", "0.3"], ["fib", "Slow", "T", "0.1", "0.05"], ["fib", "Gone", "T", "0.2", "0.1"],
        ["fib", "Gone", "C", "0.1", "0.05"]]

[[published]]
benchmark = "concurrent"
title = "their concurrent table"
unit = "s"
layout = "by-language"
columns = ["task", "Quick", "Slow", "Gone"]
rows = [["spawn-waiting", "0.5", "0.2", "0.3"]]
"""


def _cli(root, *args):
    env = {**os.environ, "CONCBENCH_ROOT": str(root), "COLUMNS": "250"}   # titles unwrapped
    return subprocess.run([sys.executable, "-m", "concbench", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=root)


@pytest.mark.slow
def test_an_aggregating_study_runs_and_lays_its_tables_charts_and_means_beside_the_published(tmp_path):
    for name in ("benchmarks", "impls"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "selftest.toml").write_text(STUDY)
    done = _cli(tmp_path, "study", "run", "selftest", "--scale", "quick")
    assert done.returncode == 0, done.stderr
    report = _cli(tmp_path, "study", "report", "selftest", "--html", str(tmp_path / "html"))
    assert report.returncode == 0, report.stderr
    out = report.stdout
    for needle in ("parallel: seconds per core count", "concurrent: seconds per task", "geometric means",
                   "runtime not available here", "ahead of best other race-free"):
        assert needle in out, needle
    # The fake's slow model is slower here while the made-up paper has it faster: the rankings differ.
    assert "differs: Quick, Slow" in out
    verdicts = out[out.index("order within each table"):]
    assert "their parallel table:" in verdicts and ("Kendall's τ" in verdicts or "no verdict" in verdicts)
    page = (tmp_path / "html" / "index.html").read_text()
    assert page.index("parallel: seconds per core count") < page.index("their parallel table")   # ours, then theirs
    chart = page.index("parallel: seconds per language, ours beside the paper")
    assert "<svg" in page[chart:chart + 3000]
    assert "concurrent: seconds per language" in page
