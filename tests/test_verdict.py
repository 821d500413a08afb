"""A published table's reproduction verdict: Kendall's τ over the common cells and the cells off by more than 2×."""

from pathlib import Path

from concbench.analysis.verdict import judge, study_verdicts
from concbench.spec.studies import load_study

ROOT = Path(__file__).resolve().parent.parent


def test_figures_in_proportion_agree_whatever_the_machine():
    theirs = {"a": 1.0, "b": 2.0, "c": 4.0, "d": 8.0}
    verdict = judge("t", {k: (v / 100, v) for k, v in theirs.items()})   # a machine 100 times faster
    assert verdict.cells == 4 and verdict.tau > 0.99 and verdict.disagreeing == ()
    assert "the order agrees" in verdict.line or "does not agree significantly" in verdict.line


def test_a_cell_off_by_more_than_twice_is_named_and_a_reversed_order_does_not_agree():
    pairs = {f"c{i}": (float(i), float(i)) for i in range(1, 9)}
    pairs["c8"] = (8.0 * 5, 8.0)
    verdict = judge("t", pairs)
    assert verdict.disagreeing[0].startswith("c8: ")
    assert verdict.tau > 0.9 and verdict.p_value < 0.05 and "the order agrees" in verdict.line
    reversed_ = judge("t", {f"c{i}": (float(10 - i), float(i)) for i in range(1, 9)})
    assert reversed_.tau < -0.99 and "does not agree" in reversed_.line


def test_too_few_cells_or_missing_figures_give_no_verdict():
    assert judge("t", {"a": (1.0, 2.0), "b": (2.0, 3.0)}).tau is None
    assert judge("t", {"a": (1.0, 2.0), "b": (0.0, 3.0), "c": (2.0, 4.0)}).cells == 2
    assert "no verdict" in judge("t", {}).line


def test_scoop_lays_each_of_its_four_tables_against_ours():
    study = load_study(ROOT / "studies" / "scoop-2015.toml")
    verdicts = study_verdicts(study, [])
    assert [v.table.split(":")[0] for v in verdicts] == ["Table 4", "Table 5", "Table 1", "Table 2"]
    assert all(v.tau is None and v.cells == 0 for v in verdicts)   # nothing measured: nothing claimed


def test_a_table_matched_by_parameter_and_variant_reads_its_units():
    from concbench.analysis.verdict import _seconds
    assert _seconds("71.5 µs", "as written") == 71.5e-6
    assert _seconds("1045", "ms") == 1.045
    assert _seconds("n/a", "ms") is None and _seconds("3 lightyears", "as written") is None
    kth = load_study(ROOT / "studies" / "kth-swift-2022.toml")
    verdicts = study_verdicts(kth, [])
    assert len(verdicts) == 6 and all(v.tau is None for v in verdicts)


def test_a_match_naming_no_column_is_refused(tmp_path):
    import pytest

    from concbench.errors import CatalogError
    path = tmp_path / "s.toml"
    path.write_text('id = "s"\ntitle = "t"\nsource = "x"\n[scales.quick]\n[scales.paper]\n'
                    '[[published]]\nbenchmark = "fib"\ntitle = "T"\n'
                    'columns = ["n", "A"]\nrows = [["5", "1"]]\nmatch = { "B" = "swift/sc" }\n')
    with pytest.raises(CatalogError, match="match names no column"):
        load_study(path)


def test_a_table_of_two_toolchains_is_laid_by_its_chosen_rows_per_task():
    from types import SimpleNamespace

    from concbench.analysis.verdict import _matched
    table = load_study(ROOT / "studies" / "taskgroup-2022.toml").published[0]

    def series(label, n, seconds_per_task):
        return SimpleNamespace(benchmark="spawn-scaling", param=n, label=label, variant=label.split(" ")[0],
                               cores=2, stats=SimpleNamespace(mean=seconds_per_task * int(n) * 1e9))
    # ours: 100 times faster than the fixed toolchain's rows, in the same proportions
    fixed = {("64", "loose"): 0.0024, ("2048", "loose"): 0.0023, ("17000", "loose"): 0.0028,
             ("64", "group"): 0.0024, ("2048", "group"): 0.0025, ("17000", "group"): 0.0032}
    rows = [series(f"swift/sc [{shape}]", n, value / 100) for (n, shape), value in fixed.items()]
    from dataclasses import replace
    for order in (table, replace(table, rows=tuple(reversed(table.rows)))):
        verdict = _matched(order, rows)
        assert verdict.cells == 6 and verdict.disagreeing == ()      # the 5.5 rows (O(n²) group) are not laid
    slow = [series(r.label, r.param, r.stats.mean / 1e9 / int(r.param) * (20 if r.param == "17000" else 1))
            for r in rows]
    assert any(cell.startswith("17000 ") for cell in _matched(table, slow).disagreeing)


def test_a_match_row_or_parameter_naming_no_column_is_refused(tmp_path):
    import pytest

    from concbench.errors import CatalogError
    path = tmp_path / "s.toml"
    base = ('id = "s"\ntitle = "t"\nsource = "x"\n[scales.quick]\n[scales.paper]\n'
            '[[published]]\nbenchmark = "fib"\ntitle = "T"\ncolumns = ["n", "A"]\nrows = [["5", "1"]]\n'
            'match = { "A" = "swift/sc" }\n')
    for extra in ('param_column = "N"\n', 'match_rows = { toolchain = "x" }\n'):
        path.write_text(base + extra)
        with pytest.raises(CatalogError, match="names no column"):
            load_study(path)


def test_a_relative_table_keyed_by_an_option_is_laid_as_100_at_its_base():
    from types import SimpleNamespace

    from concbench.analysis.verdict import _matched
    table = load_study(ROOT / "studies" / "countdown-2023.toml").published[0]
    labels = {"A naive Swift": "swift/sc [naive]", "B C libdispatch": "c/libdispatch [dispatch]",
              "C no dictionaries": "swift/sc [nodict]", "G indexed storage": "swift/sc [indexed]"}

    def series(label, window, seconds):
        return SimpleNamespace(benchmark="countdown", param="q7", label=label, variant=label.split(" ")[0], cores=2,
                               runs=[SimpleNamespace(options={"window": window})],
                               stats=SimpleNamespace(mean=seconds * 1e9))
    # ours: each column 7 times slower than the thread's machine, its windows in the thread's proportions
    rows = [series(label, "1", 7.0) for label in labels.values()]
    for row in table.rows[:3]:
        for column, label in labels.items():
            t = float(row[table.columns.index(column)].split(" ")[0]) / 100
            rows.append(series(label, row[0], 7.0 * t))
    verdict = _matched(table, rows)
    assert verdict.cells == 12 and verdict.disagreeing == () and verdict.tau > 0.99
    flat = [series(r.label, r.runs[0].options["window"], 7.0) for r in rows]     # no scaling at all
    assert _matched(table, flat).tau is None                                      # ours constant: no order


def test_a_transposed_table_is_laid_by_implementation_and_column_at_the_minimum_process_time():
    from types import SimpleNamespace

    from concbench.analysis.verdict import _by_row, _column_key
    from concbench.storing.records import RunStatus
    assert _column_key("N=500") == ("500", None) and _column_key("2 cores") == (None, 2)
    assert _column_key("implementation") == (None, None)
    study = load_study(ROOT / "studies" / "encore-2016.toml")
    by_cores = next(t for t in study.published if t.benchmark == "chameneos" and "by cores" in t.title)

    def series(label, cores, walls):
        runs = [SimpleNamespace(status=RunStatus.OK, wall_ns=w * 1e9) for w in walls]
        runs.append(SimpleNamespace(status=RunStatus.CRASHED, wall_ns=0.001e9))      # never the minimum
        return SimpleNamespace(benchmark="chameneos", param="700", label=label, variant=label.split(" ")[0],
                               cores=cores, runs=runs)
    named = by_cores.match_by_row      # the thesis's programs, each a variant and its shape
    published = {named["Scala threads"]: (4.50, 2.33), named["Erlang"]: (8.37, 7.82),
                 named["Scala actors"]: (33.81, 23.03)}
    rows = [series(v, c + 1, [t / 3, 99.0]) for v, ts in published.items() for c, t in enumerate(ts)]
    verdict = _by_row(by_cores, rows)
    assert verdict.cells == 6 and verdict.disagreeing == () and verdict.tau > 0.99
    assert [v.table.split(":")[0] for v in study_verdicts(study, [])].count("chameneos") == 2


def test_a_verdict_draws_each_common_cell_once_against_the_diagonal():
    from concbench.analysis.verdict import figure
    verdict = judge("T", {f"c{i}": (float(i) / 10, float(i)) for i in range(1, 6)})
    drawn = figure(verdict, "v")
    assert drawn.startswith("<svg") and drawn.count("<circle") == 5 and 'id="v-cells"' in drawn
    assert figure(judge("T", {}), "v") == ""


def test_a_table_of_a_source_that_took_medians_is_laid_against_our_medians():
    from types import SimpleNamespace

    from concbench.analysis.verdict import _matched
    table = load_study(ROOT / "studies" / "countdown-2023.toml").published[0]

    def series(window, median, mean):
        return SimpleNamespace(benchmark="countdown", param="q7", label="c/libdispatch [dispatch]",
                               variant="c/libdispatch", cores=2, runs=[SimpleNamespace(options={"window": window})],
                               stats=SimpleNamespace(mean=mean * 1e9, median=median * 1e9))
    # Medians in the thread's proportions (window 2: 55.9 % of window 1, 3: 36.5 %, 4: 28.8 %); means spoilt by a
    # slow outlier iteration at window 3, which would put it after window 4.
    rows = [series("1", 1.0, 1.0), series("2", 0.559, 0.56), series("3", 0.365, 0.9), series("4", 0.288, 0.29)]
    assert _matched(table, rows, median=True).tau > 0.99
    assert _matched(table, rows, median=False).tau < 0.99
