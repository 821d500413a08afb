"""Exporters and the terminal summary checked against snapshots of their whole output.

Fixed records in, text out: any change of a column, a unit or a number format shows up as a
diff. After an intended change, regenerate with `UPDATE_SNAPSHOTS=1 pytest tests/test_exports.py`
and review the diff."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from concbench.analysis.summary import summarise
from concbench.report import export
from concbench.report.terminal import print_summary
from concbench.spec.catalog import load_catalog
from concbench.storing.records import IterationRecord, Reason, RunRecord, RunStatus, SessionRecord

SNAPSHOTS = Path(__file__).parent / "snapshots"
BENCHMARKS = load_catalog(Path(__file__).resolve().parent.parent).benchmarks

SESSION = SessionRecord(
    id=7, started_at="2026-11-23T12:00:00+00:00", ended_at="2026-11-23T12:01:00+00:00", status="finished",
    command="concbench run -b fib", git_commit="0123456789abcdef",
    environment={"cpu_model": "Test CPU", "cpus_allowed": [0, 1], "kernel": "6.0-test"}, config={"runs": 2},
)


def _run(variant: str, index: int, times: list[int], status=RunStatus.OK, reason=None, message="",
         result="6765", verdict="verified") -> RunRecord:
    return RunRecord(
        benchmark="fib", variant=variant, param="20", options={"shape": "cps"} if "gcd" in variant else {},
        cores=2, run_index=index, status=status, reason=reason, message=message, cpus="0,1",
        argv=["exe", "fib"], wall_ns=50_000_000 + index, user_ns=40_000_000, sys_ns=5_000_000,
        max_rss_bytes=17 * 1024 * 1024, max_rss_source="wait4 via launcher", threads_max=4,
        voluntary_switches=10, involuntary_switches=2, exit_code=0,
        iterations=[IterationRecord(i, t, result, verdict, i == 0) for i, t in enumerate(times)],
        metrics={"spawns": 10945},
    )


RUNS = [
    _run("swift/gcd", 0, [4_000_000, 3_100_000, 3_200_000, 3_300_000]),
    _run("swift/gcd", 1, [4_100_000, 3_150_000, 3_250_000, 3_350_000]),
    _run("swift/sc", 0, [9_000_000, 6_000_000, 6_100_000, 6_200_000]),
    _run("swift/sc", 1, [9_000_000, 6_050_000], status=RunStatus.WRONG, reason=Reason.WRONG_RESULT,
         message="iteration 1: got '1', expected '6765'", result="1", verdict="wrong"),
]


def _terminal() -> str:
    console = Console(width=200, record=True, color_system=None, file=open(os.devnull, "w"))
    print_summary(console, SESSION, summarise(RUNS), BENCHMARKS)
    return console.export_text()


RENDERERS = {
    "session.json": lambda: export.to_json(SESSION, RUNS),
    "session.csv": lambda: export.to_csv(SESSION, RUNS),
    "session.md": lambda: export.to_markdown(SESSION, summarise(RUNS), BENCHMARKS),
    "session.txt": _terminal,
}


@pytest.mark.parametrize("name", sorted(RENDERERS))
def test_output_matches_its_snapshot(name):
    text = RENDERERS[name]()
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        # A rewritten snapshot compares with itself: never a pass, and never in CI.
        assert not os.environ.get("CI"), "UPDATE_SNAPSHOTS is set in CI: the snapshots would test nothing"
        path.write_text(text)
        pytest.skip(f"{path.name} rewritten: review its diff, then run again without UPDATE_SNAPSHOTS")
    assert path.exists(), f"no snapshot {path.name}: run with UPDATE_SNAPSHOTS=1 once and review it"
    assert text == path.read_text()


def test_the_csv_never_hands_a_spreadsheet_a_formula_but_keeps_numbers():
    import csv
    import io

    runs = [_run("swift/sc", 0, [1, 2], result=text) for text in ("=HYPERLINK(\"x\")", "+1+1", "@SUM(A1)", "-1", "-x")]
    cells = [row["result"] for row in csv.DictReader(io.StringIO(export.to_csv(SESSION, runs)))]
    assert cells[::2] == ["'=HYPERLINK(\"x\")", "'+1+1", "'@SUM(A1)", "-1", "'-x"]


def test_a_figure_that_is_not_a_number_is_exported_as_null_and_the_json_stays_valid():
    import json

    run = replace(_run("swift/sc", 0, [1, 2]), metrics={"rate": float("nan"), "peak": float("inf"), "count": 3})
    document = json.loads(export.to_json(SESSION, [run]))   # json.loads would accept NaN: check the text too
    assert document["runs"][0]["metrics"] == {"rate": None, "peak": None, "count": 3}
    assert "NaN" not in export.to_json(SESSION, [run]) and "Infinity" not in export.to_bmf(summarise([run]))
