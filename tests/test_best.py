"""The paper's program beside the best its language does: a best-<technique> shape paired with its model's
faithful shape (declared first) at the same point, in the terminal's table and on the page."""

from dataclasses import replace

from concbench.analysis.best import best_pairs
from concbench.analysis.summary import summarise
from concbench.report import render
from concbench.report.tables import best_table
from concbench.storing.records import IterationRecord, RunRecord, RunStatus, SessionRecord

FIRST = {("threadring", "swift/sc"): "streams", ("threadring", "haskell/mvar"): "mvar"}


def _run(variant: str, shape: str, ms: float, param: str = "100000", cores: int = 2) -> RunRecord:
    iterations = [IterationRecord(i, int(ms * 1e6), "id=1", "verified", False) for i in range(3)]
    return RunRecord("threadring", variant, param, {"shape": shape, "ring": "503"}, cores, 0, RunStatus.OK,
                     iterations=iterations)


def _pairs(runs):
    return best_pairs(summarise(runs), lambda b, v: FIRST.get((b, v)))


def test_a_best_shape_meets_its_models_faithful_shape_at_the_same_point_only():
    runs = [_run("swift/sc", "streams", 114), _run("swift/sc", "actors", 120), _run("swift/sc", "best-handoff", 66),
            _run("swift/sc", "best-handoff", 7, param="1000"),          # no faithful run at 1000: no pair
            _run("haskell/mvar", "best-forkon", 4.4)]                    # no faithful run at all
    (pair,) = _pairs(runs)
    assert (pair.faithful.shape, pair.best.shape) == ("streams", "best-handoff")   # not actors: declared first
    assert round(pair.ratio, 2) == round(114 / 66, 2)


def test_the_table_shows_both_medians_and_the_ratio_the_same_everywhere():
    model = best_table(_pairs([_run("swift/sc", "streams", 114), _run("swift/sc", "best-handoff", 66)]))
    (row,) = model.rows
    assert [c.text for c in row] == ["threadring", "swift/sc", "100000 (ring=503)", "2", "streams", "114 ms",
                                     "best-handoff", "66.0 ms", "1.73×"]
    assert "| threadring | swift/sc |" in render.to_markdown(model)
    assert '<table class="best">' in render.to_html(model)


def test_the_page_has_the_comparison_and_its_chart(tmp_path, root):
    from concbench.report.html import write_html_report
    from concbench.spec.catalog import load_catalog

    session = SessionRecord(1, "2026-11-26T00:00:00+00:00", None, "finished", "concbench run", None, {}, {})
    runs = [replace(run, id=number)
            for number, run in enumerate([_run("swift/sc", "streams", 114), _run("swift/sc", "best-handoff", 66)], 1)]
    page = write_html_report(tmp_path, session, runs, load_catalog(root)).read_text()
    assert '<table class="best" data-benchmark="threadring">' in page
    assert 'data-plot="best-threadring"' in page
