"""The table model: one definition of each table, rendered alike to the terminal, Markdown and HTML."""

import os
import re

import pytest
from rich.console import Console
from test_exports import RUNS

from concbench.analysis.summary import summarise
from concbench.report import render, tables


def _terminal_headers(model) -> list[str]:
    console = Console(width=400, record=True, color_system=None, file=open(os.devnull, "w"))
    console.print(render.to_rich(model))
    header = next(line for line in console.export_text().splitlines() if line.startswith("┃"))
    return [h.strip() for h in header.strip("┃").split("┃")]


def _markdown_headers(model) -> list[str]:
    header = next(line for line in render.to_markdown(model).splitlines() if line.startswith("| "))
    return [h.strip() for h in header.strip("|").split("|")]


def _html_headers(model) -> list[str]:
    return re.findall(r"<th[^>]*>([^<]*)</th>", render.to_html(model))


ROWS = summarise(RUNS)
MODELS = {
    "summary": tables.summary_table(ROWS),
    "summary of one benchmark": tables.summary_table(ROWS, with_benchmark=False, param_name="n"),
    "metrics": tables.metrics_table(ROWS, {"spawns": "spawns"}, "n"),
    "overview": tables.overview_table(ROWS, {"fib": "n"}),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_terminal_markdown_and_html_show_the_same_columns_in_the_same_order(name):
    model = MODELS[name]
    expected = model.headers
    assert _terminal_headers(model) == expected
    assert _markdown_headers(model) == expected
    assert _html_headers(model) == expected


def test_every_renderer_shows_every_cell_and_marks_numbers_right_aligned():
    model = MODELS["summary"]
    html = render.to_html(model)
    markdown = render.to_markdown(model)
    for row in model.rows:
        for cell in row:
            assert cell.text.replace("|", "\\|") in markdown
    assert "<th class=num>median</th>" in html and "<th>result</th>" in html
    assert markdown.splitlines()[1].count("---:") == sum(c.numeric for c in model.columns)


def test_styles_become_classes_in_html_and_plain_text_elsewhere():
    model = MODELS["summary"]
    html = render.to_html(model, colours={"swift/sc": "#123456"})
    assert '<span class="verdict v-wrong">wrong</span>' in html
    assert '<span class="status st-ok">ok</span>' in html
    assert '<span class="swatch" style="background:#123456"></span>swift/sc' in html
    assert "[/" not in render.to_markdown(model) and "[green]" not in render.to_markdown(model)   # no rich markup


def test_t_and_c_side_by_side_where_an_implementation_reports_compute_time():
    import dataclasses
    assert tables.compute_table(ROWS) is None          # nobody reported C: no table
    runs = [dataclasses.replace(r, metrics={**r.metrics, "compute_ns": 1_000_000}) for r in RUNS]
    model = tables.compute_table(summarise(runs))
    assert model.headers[-4:] == ["T", "C", "T − C", "communication"]
    gcd = next(row for row in model.rows if row[1].text == "swift/gcd [cps]")
    assert [c.text for c in gcd[-4:]] == ["3.23 ms", "1.00 ms", "2.23 ms", "69.0%"]


@pytest.mark.parametrize("value, unit, text", [
    (24_451, "ns", "24.5 µs"), (3_500_000, "bytes", "3.3 MiB"), (0.184, "fraction", "18.4%"),
    (4.93e-5, "fraction", "0.00493%"), (18_954_680.5, "messages/s", "19.0 M messages/s"), (512, "calls/s", "512 calls/s"),
    (7_096_870, "calls", "7,096,870 calls"), (1.41, "meetings", "1.41 meetings"), (52_640.8, "meetings", "52,641 meetings"),
    (1, "mod 3", "1 mod 3"), (7, None, "7 (unit?)"), (None, "ns", "–"),
])
def test_a_metric_is_printed_in_the_unit_its_benchmark_declares(value, unit, text):
    from concbench.report.units import fmt_metric
    assert fmt_metric(value, unit) == text


def test_a_table_too_wide_leaves_out_optional_columns_then_continues_with_the_key_columns():
    from concbench.report.layout import column_widths, fit, table_width
    model = MODELS["summary of one benchmark"]
    whole = table_width(column_widths(model))
    assert fit(model, whole).parts == (model,) and not fit(model, whole).left_out
    narrow = fit(model, 70)
    assert narrow.left_out[:2] == ("max", "min")                    # the least needed first
    for part in narrow.parts:
        assert [c.name for c in part.columns][:2] == ["variant [shape]", "n"]   # the keys, in every part
        assert "median" in part.headers
        assert table_width(column_widths(part)) <= 70
    assert fit(model, None).parts == (model,)                        # --wide


def test_a_wide_study_grid_continues_with_its_row_names():
    from concbench.report.layout import fit
    from concbench.report.study import Grid
    from concbench.report.tables import grid_table
    grid = Grid("g", ("language", *(f"figure {i}" for i in range(12))),
                (("SCOOP/Qs", *("0.0754" for _ in range(12))), ("Swift actors", *("0.0402" for _ in range(12)))))
    parts = fit(grid_table(grid), 80).parts
    assert len(parts) > 1
    for part in parts:
        assert part.columns[0].name == "language" and [row[0].text for row in part.rows] == ["SCOOP/Qs", "Swift actors"]


def test_the_variants_list_says_what_can_run_and_hides_the_hidden():
    common = {"benchmarks": {"fib": ["cps", "plain"], "mutex": []}, "why_unavailable": "", "install": ""}
    variants = [{**common, "variant": "x/ready", "hidden": False, "available": True, "built": True},
                {**common, "variant": "x/unbuilt", "hidden": False, "available": True, "built": False},
                {**common, "variant": "x/missing", "hidden": False, "available": False, "built": False,
                 "why_unavailable": "xc not found", "install": "apt-get install xc"},
                {**common, "variant": "x/test-only", "hidden": True, "available": True, "built": True}]
    model = tables.variants_table(variants)
    rows = {row[0].text: row for row in model.rows}
    assert list(rows) == ["x/ready", "x/unbuilt", "x/missing"]
    assert rows["x/ready"][1].text == "fib (cps/plain), mutex"
    assert rows["x/ready"][2].spans[0].style == "good" and rows["x/ready"][2].text == "available"
    assert "not built yet" in rows["x/unbuilt"][2].text
    assert rows["x/missing"][2].spans[0].style == "bad"
    assert rows["x/missing"][2].text == "unavailable : xc not found; apt-get install xc"
