"""A whole quick suite (`make bench`, stored in tests/recorded/quick-suite.json) as the terminal shows it:
at 100 and 160 columns and written to a file, no line wider than the width, no key cell cut or wrapped,
every metric printed in the unit its benchmark declares."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from concbench.analysis.summary import summarise
from concbench.report.terminal import FILE_WIDTH, make_console, print_summary
from concbench.report.units import fmt_metric, fmt_ns
from concbench.schema import validate_export
from concbench.spec.catalog import load_catalog
from concbench.storing.records import IterationRecord, Reason, RunRecord, RunStatus, SessionRecord
from concbench.storing.store import Store

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "recorded" / "quick-suite.json"
BENCHMARKS = load_catalog(ROOT).benchmarks


def _records(document: dict) -> tuple[SessionRecord, list[RunRecord]]:
    """A JSON export read back into the records the reporters take."""
    session = SessionRecord(**document["session"])
    runs = []
    for number, data in enumerate(document["runs"], 1):
        fields = {k: v for k, v in data.items() if k not in ("cpu_utilisation", "iterations")}
        fields["status"] = RunStatus(fields["status"])
        fields["reason"] = None if fields["reason"] is None else Reason(fields["reason"])
        iterations = [IterationRecord(it["index"], it["ns"], it["result"], it["verdict"], it["warmup"])
                      for it in data["iterations"]]
        runs.append(RunRecord(**fields, iterations=iterations, id=number))
    return session, runs


@pytest.fixture(scope="module")
def suite() -> tuple[SessionRecord, list[RunRecord]]:
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    validate_export(document)
    return _records(document)


def _terminal(suite, width: int, **options) -> list[str]:
    session, runs = suite
    console = Console(width=width, record=True, color_system=None, file=open(os.devnull, "w"))
    print_summary(console, session, summarise(runs), BENCHMARKS, **options)
    return console.export_text().splitlines()


def _shows_unit(text: str, unit: str) -> bool:
    """A figure and its unit, as the words of report/units.py ask, without asking report/units.py."""
    if unit == "ns":
        return re.fullmatch(r"[\d.]+ (s|ms|µs|ns)", text) is not None
    if unit == "bytes":
        return re.fullmatch(r"[\d.]+ (B|KiB|MiB|GiB)", text) is not None
    if unit == "fraction":
        return re.fullmatch(r"[\d.]+%", text) is not None
    return re.fullmatch(rf"[\d.,]+ ([kMG] )?{re.escape(unit)}", text) is not None


def _check(lines: list[str], width: int | None, runs: list[RunRecord]) -> None:
    """What must hold of any rendering of the suite at `width` (None: as wide as it likes)."""
    if width is not None:
        wide = [line for line in lines if cell_len(line) > width]
        assert not wide, f"{len(wide)} lines wider than {width}, e.g. {wide[0]!r}"
    cut = [line for line in lines if line.startswith("│") and "…" in line]
    assert not cut, f"a cell cut short: {cut[0]!r}"
    rows = summarise(runs)
    for row in rows:
        # The key cells stand whole on one line: the series' label, and beside it its median.
        expected = fmt_ns(row.stats.median) if row.stats else "–"
        assert any(f"│ {row.label} " in line and f" {expected} │" in line for line in lines), (row.label, expected)
        units = BENCHMARKS[row.benchmark].metric_units
        for name, value in row.metrics.items():
            assert name in units, f"{row.benchmark}: metric {name} has no unit in benchmarks/{row.benchmark}.toml"
            text = fmt_metric(value, units[name])
            assert _shows_unit(text, units[name]), (name, text)
            assert any(f"│ {row.label} " in line and f" {text} │" in line for line in lines), (row.label, name, text)
    table_lines = [line for line in lines if line.startswith("│")]
    assert not [line for line in table_lines if re.search(r"\d\.\d+e[+-]\d", line)], "a number with an exponent"
    assert not [line for line in lines if "(unit?)" in line], "a metric without a declared unit"


@pytest.mark.parametrize("width", [100, 160])
def test_the_quick_suite_fits_the_terminal_with_whole_key_cells_and_units(suite, width):
    lines = _terminal(suite, width)
    _check(lines, width, suite[1])
    text = " ".join(" ".join(lines).split())      # lines of prose wrap at the width
    assert text.index("Overview") < text.index("big: ") < text.index("winnow: ")
    assert "nqueens swift/gcd [group-wait] N=6, 2 cores: run 0: timeout:" in text   # the stall, before the tables
    assert text.index("N=6, 2 cores: run 0: timeout") < text.index("big: ")
    assert "`concbench report 11 --wide` shows every column" in text     # what was left out, and how to see it


def test_metrics_are_tables_of_one_benchmark_each_never_a_union(suite):
    lines = _terminal(suite, 160)
    headers = [line for line in lines if line.startswith("┃")]
    assert max(line.count("┃") - 1 for line in headers) <= 16       # the union had 48 metric columns
    for name in ("stage_outer_ns", "throughput", "fairness_std"):
        assert any(name in line for line in headers), name
    assert not any("stage_outer_ns" in line and "fairness_std" in line for line in headers)
    text = "\n".join(lines)
    assert "7.17 M messages/s" in text and "2,142 pings" in text        # big: a rate and a count
    assert re.search(r"│ c/seq \[plain\] +│ 2000 │ +7\.92 ms │", text)    # chain's stage_outer_ns as a time


def test_wide_shows_every_column_whatever_the_width(suite):
    lines = _terminal(suite, 100, wide=True)
    _check(lines, None, suite[1])
    assert any("mean ± 95% CI" in line and "peak RSS" in line for line in lines)
    assert not any("--wide` shows" in line for line in lines)


@pytest.mark.slow
def test_written_to_a_file_it_takes_columns_or_a_fixed_width(suite, cli, monkeypatch):
    session, runs = suite
    store = Store(cli.db)
    stored = store.start_session(session.command, session.git_commit, session.environment, session.config)
    for run in runs:
        store.record_run(stored, run)
    store.end_session(stored, session.status)
    store.close()
    for columns, width in ((None, FILE_WIDTH), ("120", 120)):
        if columns is None:
            monkeypatch.delenv("COLUMNS", raising=False)
        else:
            monkeypatch.setenv("COLUMNS", columns)
        done = cli("report")                 # stdout is a pipe, as in a log of `make bench`
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert max(cell_len(line) for line in lines) <= width
        assert max(cell_len(line) for line in lines) > width - 10      # the width is used, not 80
        _check(lines, width, runs)


def test_a_console_off_a_terminal_is_as_wide_as_columns_or_the_fixed_width(monkeypatch, tmp_path):
    with open(tmp_path / "log", "w") as log:
        monkeypatch.delenv("COLUMNS", raising=False)
        assert make_console(log).width == FILE_WIDTH
        monkeypatch.setenv("COLUMNS", "133")
        assert make_console(log).width == 133


def test_the_measuring_cost_line_says_where_the_observer_ran():
    from concbench.report.terminal import observer_footprint

    def run(index: int, observer_cpus: str) -> RunRecord:
        return RunRecord("fib", "x/y", "10", {}, 1, index, RunStatus.OK, cpus="0", wall_ns=10**9,
                         observer_cpu_ns=10**6, harness_cpu_ns=10**6, observer_cpus=observer_cpus,
                         iterations=[IterationRecord(0, 10, "r", "verified", False)])

    line = observer_footprint(summarise([run(0, "1"), run(1, "0")]))
    assert line.startswith("Measuring cost: the harness and the launcher used 0.20% of one core over the 2 runs")
    assert line.endswith("the observer ran off the measured CPUs in 1 of 2 runs (on them where no other CPU was free)")
    assert observer_footprint(summarise([run(0, "1")])).endswith("off the measured CPUs in 1 of 1 runs")
