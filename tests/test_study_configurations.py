"""Published tables rebuilt from our series ([published.ours]): scoop-2015's Tables 1 and 2, SCOOP/Qs by
runtime configuration. Validation, the grid from constructed series, the paper's own geomeans recomputed,
the rule that keeps configuration series out of the languages' geomeans, the study's plan, and a study of
the fake run end to end."""

import re
from dataclasses import replace
from pathlib import Path

import pytest
from test_study_geomeans import STUDY, _cli  # the aggregating study of the fake, and the CLI as a user runs it

from concbench.analysis import configurations, geomeans
from concbench.analysis.summary import summarise
from concbench.errors import CatalogError
from concbench.report.study import configuration_grids
from concbench.spec.catalog import load_catalog
from concbench.spec.describe import Served
from concbench.spec.studies import load_study, plan_study
from concbench.storing.records import IterationRecord, RunRecord, RunStatus

ROOT = Path(__file__).resolve().parent.parent
SCOOP = ROOT / "studies" / "scoop-2015.toml"
COWICHAN = ["randmat", "thresh", "winnow", "outer", "product", "chain"]
COORDINATION = ["mutex", "prodcons", "condition", "threadring", "chameneos"]
CONFIGS = ["none", "qoq", "dynamic", "static", "all"]
MS = 1_000_000


@pytest.fixture(scope="module")
def scoop():
    return load_study(SCOOP)


def _table(study, number: int):
    return next(t for t in study.published if t.title.startswith(f"Table {number}:"))


# -- loading -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("old, new, message", [
    ('quantity = "communication"', 'quantity = "latency"',
     "[published.ours]: quantity = 'latency' is not one of 'time', 'communication'"),
    ('QoQ = "qoq", All = "all" }   #', 'Queues = "qoq", All = "all" }   #', "columns not in the table: Queues"),
    ('columns = { None = "none"', 'columns = { task = "x", None = "none"', "columns not in the table: task"),
    ('normalise = true', 'normalize = true', "unknown keys: normalize"),
    ('normalise = true', 'normalise = "yes"', "normalise must be true or false"),
    ('variant = "swift/qs"\noption', 'option', "needs 'variant'"),
    ('paper_params = { chain =', 'paper_params = { chains =', "paper_params must map the table's tasks"),
])
def test_a_bad_published_ours_is_refused_in_one_line(tmp_path, old, new, message):
    text = SCOOP.read_text()
    assert old in text, old
    path = tmp_path / "scoop-2015.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(CatalogError) as error:
        load_study(path)
    assert message in str(error.value) and "Table 1" in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("old, new, message", [
    ('layout = "by-cores"', 'layout = "by-core"', "layout = 'by-core' is not one of 'by-cores', 'by-language'"),
    ('sweep = "cores"', 'sweep = "core"', "[families.parallel]: sweep = 'core' is not one of 'cores'"),
])
def test_a_word_outside_a_studys_vocabulary_is_refused_naming_its_key(tmp_path, old, new, message):
    path = tmp_path / "scoop-2015.toml"
    path.write_text(SCOOP.read_text().replace(old, new, 1))
    with pytest.raises(CatalogError) as error:
        load_study(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_the_scoop_study_rebuilds_tables_1_and_2(scoop):
    one, two = _table(scoop, 1).ours, _table(scoop, 2).ours
    assert (one.variant, one.option, one.quantity, one.normalise) == ("swift/qs", "config", "communication", True)
    assert (two.quantity, two.normalise) == ("time", False)
    assert one.columns == two.columns == {
        "None": "none", "Dynamic": "dynamic", "Static": "static", "QoQ": "qoq", "All": "all"}
    assert [t for t in scoop.published if t.ours] == [_table(scoop, 1), _table(scoop, 2)]
    assert next(e for e in scoop.entrants if e.name == "SCOOP/Qs").absent == ""   # we have the runtime now


def test_the_papers_table_2_geomeans_come_back_from_its_rows(scoop):
    table = _table(scoop, 2)
    printed = dict(re.findall(r"(\w+) ([0-9]+\.[0-9]+)", table.note.split(":", 1)[1]))
    assert printed == {"None": "5.94", "Dynamic": "3.05", "Static": "5.95", "QoQ": "3.38", "All": "1.95"}
    means = configurations.published_means(table)
    assert {column: f"{mean.value:.2f}" for column, mean in means.items()} == printed
    assert all(mean.count == mean.of == 5 for mean in means.values())


# -- the grid, from constructed series --------------------------------------------------------------------------

def _run(benchmark, config, ms, compute_ms=None, param="500", cores=2, status=RunStatus.OK, variant="swift/qs"):
    """One run of a series: 3 iterations of `ms` (the first a warm-up), compute_ns where given."""
    options = {"shape": "separate", **({"config": config} if config else {})}
    iterations = [IterationRecord(i, int(ms * MS), "r", "verified", i == 0) for i in range(3)]
    return RunRecord(benchmark=benchmark, variant=variant, param=param, options=options, cores=cores, run_index=0,
                     status=status, iterations=iterations if status == RunStatus.OK else [],
                     metrics={"compute_ns": compute_ms * MS} if compute_ms is not None else {})


def _grid(study, number, runs):
    return next(g for g in configuration_grids(study, summarise(runs)) if f"Table {number}:" in g.title)


def _cells(grid, task):
    row = next(r for r in grid.rows if r[0] == task)
    return dict(zip(grid.columns, row))


def test_table_1_is_communication_time_normalised_to_each_rows_fastest_measured_column(scoop):
    # randmat: T − C = 9, 1, 0.25, 11 and 0.5 ms for none, dynamic, static, qoq, all
    runs = [_run("randmat", c, t, compute_ms=1)
            for c, t in (("none", 10), ("dynamic", 2), ("static", 1.25), ("qoq", 12), ("all", 1.5))]
    grid = _grid(scoop, 1, runs)
    randmat = _cells(grid, "randmat")
    assert [randmat[f"{c} ours"] for c in ("None", "Dynamic", "Static", "QoQ", "All")] == [
        "36.00", "4.00", "1.00", "44.00", "2.00"]
    assert [randmat[f"{c} paper"] for c in ("None", "Dynamic", "Static", "QoQ", "All")] == [
        "345.61", "3.05", "1.00", "353.43", "1.03"]
    assert randmat["measured as"] == "swift/qs [separate]"
    assert "no counterpart" not in grid.note            # Static is the query loop's lifted sync
    assert "T − C" in grid.note and "fastest" in grid.note
    assert "randmat at param 500 on 2 cores (the paper's harness: 10000)" in grid.note


def test_a_missing_configuration_or_task_is_shown_not_dropped(scoop):
    runs = [_run("thresh", "none", 10, compute_ms=1), _run("thresh", "dynamic", 3, compute_ms=1),
            _run("outer", "none", 10, compute_ms=1), _run("outer", "qoq", 10, status=RunStatus.TIMEOUT),
            _run("outer", "all", 4, compute_ms=None), _run("outer", "dynamic", 1, compute_ms=2)]
    grid = _grid(scoop, 1, runs)
    assert [r[0] for r in grid.rows] == ["chain", "outer", "product", "randmat", "thresh", "winnow", "geometric mean"]
    thresh = _cells(grid, "thresh")
    assert (thresh["None ours"], thresh["Dynamic ours"]) == ("4.50", "1.00")
    assert thresh["QoQ ours"] == thresh["All ours"] == "not measured"
    outer = _cells(grid, "outer")
    assert (outer["None ours"], outer["QoQ ours"], outer["All ours"], outer["Dynamic ours"]) == (
        "1.00", "timeout", "no compute_ns", "T ≤ C (0.001 ≤ 0.002 s)")
    assert "T ≤ C: the compute time the program reports covers its whole iteration" in grid.note
    winnow = _cells(grid, "winnow")
    assert winnow["measured as"] == "not measured"
    assert winnow["None ours"] == winnow["Static ours"] == "not measured" and winnow["None paper"] == "53.14"


def _all_of_table_2(seconds=lambda task, config: 1.0, param=lambda task: "20000"):
    return [_run(task, config, seconds(task, config) * 1000, param=param(task)) for task in COORDINATION
            for config in CONFIGS]


def test_table_2_lays_seconds_beside_the_papers_with_both_geomeans_over_the_same_tasks(scoop):
    factor = {"none": 4.0, "qoq": 2.0, "dynamic": 2.0, "static": 4.0, "all": 1.0}
    runs = _all_of_table_2(lambda task, config: factor[config] * (2.0 if task == "mutex" else 1.0))
    grid = _grid(scoop, 2, runs)
    mutex = _cells(grid, "mutex")
    assert (mutex["None ours"], mutex["All ours"], mutex["All paper"]) == ("8", "2", "0.47")   # seconds, not ratios
    means = _cells(grid, "geometric mean")
    assert [means[f"{c} paper"] for c in ("None", "Dynamic", "Static", "QoQ", "All")] == [
        "5.94", "3.05", "5.95", "3.38", "1.95"]                    # the paper's note, over all five tasks
    assert means["None ours"] == means["Static ours"] == f"{4 * 2 ** (1 / 5):.3g}"
    # Without chameneos both sides' means cover the same four tasks, and say so.
    fewer = _cells(_grid(scoop, 2, [r for r in runs if r.benchmark != "chameneos"]), "geometric mean")
    assert fewer["None ours"].endswith("(4 of 5)") and fewer["None paper"].endswith("(4 of 5)")
    assert fewer["Static paper"].endswith("(4 of 5)")


def test_the_note_says_where_ours_ran_at_another_size_than_the_paper(scoop):
    quick = {"condition": "1000", "threadring": "100000"}
    grid = _grid(scoop, 2, _all_of_table_2(param=lambda task: quick.get(task, "600000" if task == "chameneos"
                                                                          else "20000")))
    assert "condition at param 1000 on 2 cores (the paper's harness: 20000)" in grid.note
    assert "threadring at param 100000 on 2 cores (the paper's harness: 5000000)" in grid.note
    assert "mutex, prodcons at param 20000 on 2 cores;" in grid.note          # the paper's size: nothing to add


def test_a_row_takes_its_columns_from_series_measured_alike(scoop):
    """Of the series at several sizes, the group covering the most configurations stands for the task."""
    runs = [_run("mutex", c, 1000, param="20000") for c in CONFIGS]
    runs += [_run("mutex", "all", 50, param="1000", cores=1), _run("mutex", "none", 90, param="1000", cores=1)]
    mutex = _cells(_grid(scoop, 2, runs), "mutex")
    assert [mutex[f"{c} ours"] for c in ("None", "Dynamic", "QoQ", "All")] == ["1", "1", "1", "1"]


# -- the languages' geomeans take the default configuration only --------------------------------------------

def test_configuration_series_never_stand_for_scoop_qs_in_the_languages_geomeans(scoop):
    runs = [_run("randmat", None, 1000, param="2000", cores=c) for c in (1, 2)]            # the main part
    runs += [_run("randmat", c, 100_000, compute_ms=1, param="500") for c in CONFIGS]      # the configuration part
    runs += [_run("thresh", "none", 100_000, compute_ms=1, param="500")]                   # configurations only
    agg = geomeans.aggregate(scoop, summarise(runs))
    chosen = agg.found[("randmat", "SCOOP/Qs")].rows
    assert [(r.param, r.cores, r.options) for r in chosen] == [("2000", 1, ""), ("2000", 2, "")]
    assert agg.ours[("randmat", "SCOOP/Qs", 2, "T")] == pytest.approx(1.0)
    assert ("thresh", "SCOOP/Qs") not in agg.found
    assert not any(k[:2] == ("thresh", "SCOOP/Qs") for k in agg.ours)


# -- the study's plan ------------------------------------------------------------------------------------------

def _catalog_where_swift_qs_serves(benchmarks):
    """The catalog, with swift/qs serving exactly these benchmarks (shape "separate", swift/sc's options and
    parameter domain, and the config option it declares for mutex): the plan does not wait for a build."""
    catalog = load_catalog(ROOT)
    qs, sc = catalog.variants["swift/qs"], catalog.variants["swift/sc"]
    config = qs.served["mutex"].options["config"]
    served = {b: Served(("separate",), {**sc.served[b].options, "config": config}) for b in benchmarks}
    qs = replace(qs, served=served, params={b: sc.params[b] for b in benchmarks})
    return replace(catalog, variants={**catalog.variants, "swift/qs": qs})


@pytest.mark.parametrize("scale, cowichan, iterations", [("quick", ("500", 3, 2), 2), ("paper", ("1000", 5, 2), 3)])
def test_the_plan_runs_swift_qs_everywhere_and_each_configuration_once(scoop, scale, cowichan, iterations):
    catalog = _catalog_where_swift_qs_serves(COWICHAN + COORDINATION)
    plan, left_out = plan_study(catalog, scoop, scale, set(catalog.variants), 2)
    assert left_out == []
    qs = [p for p in plan if p.variant.name == "swift/qs"]
    assert {p.benchmark.id for p in qs if "config" not in dict(p.options)} == set(COWICHAN + COORDINATION)
    configured = [(p.benchmark.id, dict(p.options)["config"], p.param, p.cores, p.iterations, p.warmup)
                  for p in qs if "config" in dict(p.options)]
    param, cowichan_iterations, cores = cowichan
    claim_cells = [c for c in configured if c[0] == "randmat" and c[2] == "2000"]   # static-3x-dynamic-randmat's
    assert sorted(c[1] for c in claim_cells) == ["dynamic", "static"]
    for task in COWICHAN:
        # quick's chain takes ten measured iterations: 2–3 ms each, a run's median of two was one slow iteration's
        iterations_of = 11 if (scale, task) == ("quick", "chain") else cowichan_iterations
        assert sorted(c for c in configured if c[0] == task and c not in claim_cells) == sorted(
            (task, config, param, cores, iterations_of, 1) for config in CONFIGS)
    # quick's coordination tasks of milliseconds take more measured iterations: one slow iteration made a run's figure
    more = {"mutex": 11, "prodcons": 6, "condition": 6, "threadring": 6} if scale == "quick" else {}
    for task in COORDINATION:
        mine = [c for c in configured if c[0] == task]
        assert sorted(c[1] for c in mine) == sorted(CONFIGS) and {c[4:] for c in mine} == {(more.get(task, iterations), 1)}
    redux = [p for p in qs if p.benchmark.id == "chameneos"]
    assert {dict(p.options)["variant"] for p in redux} == {"redux"} and {p.param for p in redux} == {"600000"}


def test_a_variant_whose_build_does_not_serve_a_part_is_left_out_and_named(scoop):
    catalog = _catalog_where_swift_qs_serves(COWICHAN + COORDINATION[:-1])   # no chameneos yet
    plan, left_out = plan_study(catalog, scoop, "quick", set(catalog.variants), 2)
    assert left_out == ["swift/qs for chameneos"]
    assert not any(p.variant.name == "swift/qs" and p.benchmark.id == "chameneos" for p in plan)
    assert any(p.benchmark.id == "chameneos" for p in plan)                 # the other languages still run it


# -- end to end, with the fake --------------------------------------------------------------------------------

PADDED = """
[[scales.quick.parts]]
benchmark = "fib"
variants = ["fake/slow"]
params = ["10"]
options = { pad_ms = "2,12" }
cores = [1]
iterations = 3
warmup = 1
all_shapes = false

[[published]]
benchmark = "parallel"
title = "their padding table"
unit = "s"
columns = ["task", "Short", "Middle", "Long"]
rows = [["fib", "0.002", "0.004", "0.012"], ["spawn-waiting", "0.1", "0.2", "0.3"]]
note = "made up for the test"

[published.ours]
variant = "fake/slow"
option = "pad_ms"
columns = { Short = "2", Long = "12" }
"""


@pytest.mark.slow
def test_a_study_of_the_fake_prints_its_rebuilt_table_and_keeps_the_padded_series_out_of_its_means(tmp_path):
    for name in ("benchmarks", "impls"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "studies").mkdir()
    text = STUDY.replace("\n[scales.paper]", PADDED.split("[[published]]")[0] + "\n[scales.paper]")
    (tmp_path / "studies" / "selftest.toml").write_text(text + "[[published]]" + PADDED.split("[[published]]")[1])
    assert _cli(tmp_path, "study", "run", "selftest", "--scale", "quick").returncode == 0
    report = _cli(tmp_path, "study", "report", "selftest", "--html", str(tmp_path / "html"))
    assert report.returncode == 0, report.stderr
    out = report.stdout
    assert "parallel: their padding table, ours beside the paper's" in out
    rebuilt = out[out.index("their padding table, ours beside"):]
    line = next(x for x in rebuilt.splitlines() if x.strip("│ ").startswith("fib"))
    cells = [c.strip() for c in line.strip("│").split("│")]
    assert cells[:2] == ["fib", "fake/slow"] and cells[4:6] == ["—", "0.004"]
    assert 0.0015 < float(cells[2]) < 0.009 and 0.011 < float(cells[6]) < 0.03   # 2 and 12 ms of padding
    assert "spawn-waiting" in out and "not measured" in out
    # The Slow entrant's fib at 1 core is still its default series (5 ms of padding), not a padded one.
    slow = next(x for x in out.splitlines() if "│ fib" in x and "│ Slow" in x and "│ T " in x)
    assert 0.0045 < float(slow.split("│")[5]) < 0.009
    page = (tmp_path / "html" / "index.html").read_text()
    ours = page.index("parallel: their padding table, ours beside")
    assert ours < page.index("published (parallel): their padding table")   # ours, then the published table
