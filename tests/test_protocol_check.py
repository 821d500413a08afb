"""The protocol's JSON Schemas (hello, iteration, metrics, describe) and `concbench check` holding every
implementation to them: the schemas are valid, every committed description matches, a line the lenient
runtime parser would let through still fails the check, naming the line, the field and what is wrong."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from kit import ScriptedExecutor

from concbench.running import conformance, protocol_check
from concbench.running.protocol import parse_line
from concbench.schema import load
from concbench.spec import describe
from concbench.spec.catalog import load_implementation

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = sorted((ROOT / "concbench" / "schema").glob("*.schema.json"))
SNAPSHOTS = sorted((ROOT / "impls").glob("*/describe.json"))

HELLO = {"protocol": 1, "language": "go", "runtime": "go1.19.8 gc linux/amd64 GOMAXPROCS=2", "model": "goroutines"}
GOOD = [
    json.dumps({"hello": HELLO}),
    '{"iteration": 0, "ns": 12345678, "result": "75025"}',
    '{"iteration": 1, "ns": 0, "result": ""}',
    '{"metrics": {"fairness_std": 370.5, "self_meetings": 0, "colour_sum_mod3_10": 2}}',
    '{"metrics": {}}',
]

# Each of these the runtime parser (protocol.py) accepts; only the schema refuses it.
LENIENT = [
    (json.dumps({"hello": {**HELLO, "language": 7}}), "line 4 (hello) at 'hello/language': 7 is not of type 'string'"),
    (json.dumps({"hello": {k: v for k, v in HELLO.items() if k != "runtime"}}),
     "line 4 (hello) at 'hello': 'runtime' is a required property"),
    ('{"iteration": 0, "ns": 5, "result": "8", "note": "x"}', "line 4 (iteration) at the top level: Additional properties"),
    ('{"metrics": {"Compute Time": 5}}', "line 4 (metrics) at 'metrics': 'Compute Time' does not match"),
]

# And these both refuse: the schema's message names the field.
BOTH = [
    ('{"iteration": 0, "ns": 5.0, "result": "8"}', "at 'ns': 5.0 is not of type 'integer'"),
    ('{"iteration": 0, "ns": -1, "result": "8"}', "at 'ns': -1 is less than the minimum of 0"),
    ('{"iteration": 0, "ns": 5, "result": 8}', "at 'result': 8 is not of type 'string'"),
    ('{"metrics": {"cv": true}}', "at 'metrics/cv': True is not of type 'number'"),
    ('{"hello": {"protocol": 2, "language": "go", "runtime": "r", "model": "m"}}', "at 'hello/protocol': 1 was expected"),
    ('Hello from stdout', "line 4: not a JSON object"),
    ('{"result": "8"}', "line 4: unknown object (expected hello, iteration or metrics)"),
]


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_every_shipped_schema_is_a_valid_draft_2020_12_schema(path):
    Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_the_protocol_checks_ship_in_the_package():
    for name in (protocol_check.PROTOCOL_SCHEMA, protocol_check.DESCRIBE_SCHEMA):
        assert load(name)["$schema"].endswith("/2020-12/schema")
        assert (ROOT / "concbench" / "schema" / f"{name}.schema.json") in SCHEMAS   # package-data: schema/*.json


@pytest.mark.parametrize("line", GOOD)
def test_valid_lines_pass(line):
    assert protocol_check.line_problem(1, line) is None


@pytest.mark.parametrize("line, message", LENIENT + BOTH)
def test_a_bad_line_is_named_with_its_number_kind_field_and_fault(line, message):
    problem = protocol_check.line_problem(4, line)
    assert problem is not None and message in problem, problem


@pytest.mark.parametrize("line, message", LENIENT)
def test_the_schema_catches_what_the_runtime_parser_lets_through(line, message):
    # Accepted at run time (a session keeps what it can), refused by the schema: `concbench check` is where a new
    # implementation learns of it. Both halves: a parser grown strict, or a schema grown lax, fails here.
    parse_line(1, line)
    problem = protocol_check.line_problem(4, line)
    assert problem is not None and message in problem, problem


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.parent.name)
def test_every_committed_description_matches_the_describe_schema(path):
    document = json.loads(path.read_text())
    assert protocol_check.describe_problem(document) is None
    describe.parse(path.read_text(), str(path))   # and the parser agrees


def _fake_description() -> dict:
    return json.loads((ROOT / "impls" / "fake" / "describe.json").read_text())


@pytest.mark.parametrize("change, message", [
    (lambda d: d["benchmarks"]["fib"]["models"]["ok"].pop("shapes"), "'describe/benchmarks/fib/models/ok': 'shapes'"),
    (lambda d: d["benchmarks"]["fib"]["models"]["ok"]["options"]["cutoff"].update(default=5),
     "'describe/benchmarks/fib/models/ok/options/cutoff/default': 5 is not of type 'string'"),
    (lambda d: d["benchmarks"]["fib"]["param"].update(values=["1"]), "'describe/benchmarks/fib/param'"),
    (lambda d: d["benchmarks"]["fib"]["models"]["ok"]["options"].update(shape={"values": ["a"]}),
     "'describe/benchmarks/fib/models/ok/options'"),
    (lambda d: d.pop("language"), "'language' is a required property"),
])
def test_a_description_outside_its_schema_is_named(change, message):
    document = _fake_description()
    change(document["describe"])
    problem = protocol_check.describe_problem(document)
    assert problem is not None and message in problem, problem


def test_check_refuses_a_binary_description_outside_the_schema():
    impl = load_implementation(ROOT / "impls" / "fake" / "impl.toml")
    document = _fake_description()
    document["describe"]["benchmarks"]["fib"]["models"]["ok"]["options"]["cutoff"]["default"] = 5
    parsed = describe.parse(json.dumps(document), "fake")   # the parser lets it through
    problem = conformance.description_problem(
        replace(impl, description=parsed, description_source="binary"))
    assert problem is not None and "cutoff/default" in problem
    assert conformance.description_problem(
        replace(impl, description=parsed, description_source="snapshot")) is None


def test_the_checking_executor_stops_a_run_at_its_first_line_outside_the_schema():
    lines = [json.dumps({"hello": HELLO}), '{"iteration": 0, "ns": 5, "result": "8"}',
             '{"metrics": {"Compute Time": 5}}', '{"iteration": 1, "ns": 5, "result": "8"}']
    seen = []
    record = conformance.SchemaCheckingExecutor(ScriptedExecutor.replaying(lines)).execute(
        None, lambda line: seen.append(line), lambda line: True)
    assert record.aborted.startswith("line 3 (metrics) at 'metrics': 'Compute Time' does not match")
    assert seen == lines[:2]   # the session's own parser never saw the bad line


def test_the_checking_executor_passes_good_lines_and_the_parsers_own_verdict_through():
    seen = []
    good = conformance.SchemaCheckingExecutor(ScriptedExecutor.replaying(GOOD)).execute(
        None, lambda line: seen.append(line), lambda line: True)
    assert good.aborted is None and seen == GOOD
    refused = conformance.SchemaCheckingExecutor(ScriptedExecutor.replaying(GOOD)).execute(
        None, lambda line: "the parser's own fault" if "iteration" in line else None, lambda line: True)
    assert refused.aborted == "the parser's own fault"


@pytest.mark.slow
def test_check_fails_the_fake_whose_hello_breaks_the_schema_naming_the_field(cli):
    done = cli("check", "fake/ok", "fake/hello-type", "fake/hello-field", timeout=600)
    assert done.returncode == 1
    failing = [line for line in done.stdout.splitlines() if "FAIL" in line]
    assert len(failing) == 1 and "fib" in failing[0]
    said = " ".join(done.stderr.split())   # rich wraps long lines
    assert "fake/hello-type 5: malformed line 1 (hello) at 'hello/language': 7 is not of type 'string'" in said
    assert "fake/hello-field 5: malformed line 1 (hello) at 'hello': 'runtime' is a required property" in said
