"""The published schemas (concbench/schema/): the JSON export matches export-v1.schema.json, an
undocumented key fails it, and the Bencher Metric Format output matches Bencher's format."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import Cli
from jsonschema import Draft202012Validator

from concbench.analysis.summary import summarise
from concbench.errors import UsageError
from concbench.report import export
from concbench.running.verify import Verdict
from concbench.schema import InvalidExport, load, validate_bmf, validate_export
from concbench.storing.records import Reason, RunStatus
from concbench.storing.store import Store

SNAPSHOT = Path(__file__).parent / "snapshots" / "session.json"

# One session covering every way a run ends: ok, wrong, crashed (signal, exit), malformed, timeout, skipped.
VARIANTS = ("fake/ok", "fake/wrong", "fake/crash", "fake/exit", "fake/garbage", "fake/hang")


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> tuple[Cli, Path]:
    folder = tmp_path_factory.mktemp("schema")
    cli = Cli(folder / "results.sqlite")
    exported = folder / "export.json"
    done = cli("run", "-b", "fib", "--size", "test", "--runs", "1", "--param", "5,10", "--option", "cutoff=0",
               "--timeout", "2", *(arg for v in VARIANTS for arg in ("-v", v)), "--export-json", str(exported))
    assert done.returncode == 1, done.stderr   # the wrong, crashed and malformed runs fail the session
    return cli, exported


def snapshot() -> dict:
    return json.loads(SNAPSHOT.read_text())


def test_both_schemas_are_valid_draft_2020_12_schemas():
    for name in ("export-v1", "bmf"):
        Draft202012Validator.check_schema(load(name))


def test_the_schema_enumerates_the_codes_vocabularies():
    defs = load()["$defs"]
    assert set(defs["run"]["properties"]["status"]["enum"]) == set(RunStatus)
    assert set(defs["run"]["properties"]["reason"]["enum"]) == set(Reason) | {None}
    assert set(defs["iteration"]["properties"]["verdict"]["enum"]) == set(Verdict)


def _undescribed(node, path="") -> list[str]:
    """Paths of properties in the schema that carry no description (directly or through their $ref)."""
    missing = []
    if isinstance(node, dict):
        for key, sub in node.get("properties", {}).items():
            if "description" not in sub and "$ref" not in sub:
                missing.append(f"{path}/{key}")
        for key, sub in node.items():
            missing += _undescribed(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            missing += _undescribed(sub, f"{path}/{i}")
    return missing


def test_every_key_is_described():
    schema = load()
    # `if` clauses of the status/reason pairs only select; they document nothing.
    assert [p for p in _undescribed(schema) if "/if/" not in p and "/then/" not in p] == []
    assert all("description" in d for d in schema["$defs"].values())


def test_the_snapshot_validates():
    validate_export(snapshot())


@pytest.mark.parametrize("where", ["top level", "session", "environment", "run", "iteration"])
def test_an_undocumented_key_fails(where):
    document = snapshot()
    target = {
        "top level": document, "session": document["session"], "environment": document["session"]["environment"],
        "run": document["runs"][1], "iteration": document["runs"][1]["iterations"][2],
    }[where]
    target["undocumented"] = 1
    with pytest.raises(InvalidExport, match="undocumented"):
        validate_export(document)


@pytest.mark.parametrize("change, where", [
    (lambda d: d["runs"][0].update(status="finished"), "runs/0/status"),
    (lambda d: d["runs"][0].update(reason="timeout"), "runs/0/reason"),           # ok carries no reason
    (lambda d: d["runs"][0]["iterations"][0].update(verdict="maybe"), "runs/0/iterations/0/verdict"),
    (lambda d: d["runs"][0].update(wall_ns="50 ms"), "runs/0/wall_ns"),
    (lambda d: d["runs"][0].pop("max_rss_bytes"), "runs/0"),
    (lambda d: d.update(format_version=2), "format_version"),
])
def test_a_wrong_value_fails_naming_its_key(change, where):
    document = snapshot()
    change(document)
    with pytest.raises(InvalidExport, match=f"at {where}:"):
        validate_export(document)


@pytest.mark.slow
def test_a_real_export_validates_with_every_outcome(real):
    cli, exported = real
    document = cli.export()           # validated by the helper too
    validate_export(document)
    validate_export(json.loads(exported.read_text()))   # `run --export-json`
    runs = document["runs"]
    assert {(r["status"], r["reason"]) for r in runs} >= {
        ("ok", None), ("wrong", "wrong-result"), ("crashed", "signal"), ("crashed", "exit"),
        ("malformed", "protocol"), ("timeout", "timeout"), ("skipped", "after-timeout"),
    }
    skipped = next(r for r in runs if r["status"] == "skipped")
    assert skipped["wall_ns"] is None and skipped["max_rss_bytes"] is None and skipped["hello"] is None
    assert "fake" in document["session"]["environment"]["toolchains"]


@pytest.fixture(scope="module")
def rows(real):
    store = Store(real[0].db)
    try:
        return summarise(store.runs(store.session().id))
    finally:
        store.close()


@pytest.mark.slow
def test_bmf_of_a_real_session(rows):
    bmf = json.loads(export.to_bmf(rows))
    validate_bmf(bmf)                 # names within 1024 characters, measures within 64, numbers only
    measured = [row for row in rows if row.stats is not None]
    assert measured and len(measured) < len(rows)
    assert set(bmf) == {export.bmf_name(row) for row in measured}   # a series without iterations is left out
    assert f"fib/fake/ok/param=5/cutoff=0/cores={rows[0].cores}" in bmf   # readable, and every part named
    with_interval = 0
    for row in measured:
        measures = bmf[export.bmf_name(row)]
        latency = measures["latency"]
        assert latency["value"] == row.stats.median
        if "lower_value" in latency:
            with_interval += 1
            assert latency["lower_value"] <= latency["value"] <= latency["upper_value"]
        assert measures["peak-rss"]["value"] == row.max_rss_bytes
        assert measures["process-wall-time"]["value"] == row.process_wall_ns
        assert all(m["value"] > 0 for m in measures.values())
    assert with_interval   # several measured iterations per series: the bootstrap interval exists


@pytest.mark.slow
def test_bmf_refuses_a_name_over_bencher_s_limit(rows):
    measured = next(row for row in rows if row.stats is not None)
    long = dataclasses.replace(measured, options="x=" + "y" * 1100)
    with pytest.raises(UsageError, match="1024"):
        export.to_bmf([long])


def test_the_bmf_schema_holds_bencher_s_limits():
    validate_bmf({"a" * 1024: {"m" * 64: {"value": 1, "lower_value": 0.5, "upper_value": 2}}})
    for bad in ({"a" * 1025: {"latency": {"value": 1}}}, {"a": {"m" * 65: {"value": 1}}},
                {"a": {"latency": {"value": None}}}, {"a": {"latency": {"lower_value": 1}}},
                {"a": {"latency": {"value": 1, "unit": "ns"}}}):
        with pytest.raises(InvalidExport):
            validate_bmf(bad)

