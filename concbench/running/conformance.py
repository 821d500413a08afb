"""`concbench check`: one conformance check for every implementation, through the real harness.

Per language and benchmark it checks that
- the binary's description parses, matches its JSON Schema (concbench/schema/describe-v1) and equals the
  committed snapshot (describe.json);
- every option its benchmarks declare (`[options]` in benchmarks/<id>.toml) is taken with the declared domain and
  default, or an integer bound narrowed with a reason (drift.py);
- every request outside the description is refused with exit status 2, one line on stderr and
  nothing on stdout (unknown benchmark, model, shape and option; each option value and
  parameter outside its domain), the cases generated from the description;
- every shape of every model runs at test size through the protocol, with every result
  verified (or, for a model the benchmark says may stall, a timeout) and every deterministic
  metric the spec fixes reported and right, and every line it writes on stdout matching the protocol's
  JSON Schema (concbench/schema/protocol-v1): a line that does not stops that run as malformed, naming
  the line, the field and what is wrong;
- every convention of the command line holds (concbench/schema/argument-cases.toml: a joined `--flag=value`,
  a missing or bad flag refused, the flags in any order), the same cases for every language;
- inner repetitions (`repeat`) are offered only where the benchmark allows them, and where
  offered, the first test point runs once more batched and must verify the same way.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import SessionInterrupted
from ..spec import describe, drift
from ..spec.catalog import REPEAT, Benchmark, Catalog, Implementation
from ..storing.records import RunRecord, RunStatus, options_text, series_label
from . import environment, executor, protocol_check
from .plan import Point, Request, make_plan
from .session import Settings, run_session
from .verify import Verdict, missing_metrics

REJECTION_TIMEOUT_S = 60
ALL = "(command line)"      # the row of checks that belong to no one benchmark


@dataclass(frozen=True)
class Rejection:
    """A request the binary must refuse (or, `exit` 0, run: a shared argument case), and what is wrong with it."""

    benchmark: str
    what: str
    args: tuple[str, ...]
    exit: int = 2


@dataclass
class Row:
    language: str
    benchmark: str
    models: set[str] = field(default_factory=set)
    rejections: int = 0
    rejections_passed: int = 0
    runs: int = 0
    runs_passed: int = 0
    stalls: int = 0
    metrics_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


class Rows(dict):
    """One row per benchmark of one language, made on first use."""

    def __init__(self, language: str) -> None:
        super().__init__()
        self.language = language

    def __missing__(self, benchmark: str) -> Row:
        row = self[benchmark] = Row(self.language, benchmark)
        return row


def _valid_request(bench: Benchmark, model: str, shapes: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """A request the binary must accept: the first test-size point, the faithful shape."""
    point = bench.sizes["test"].points[0]
    options = dict(point.options)
    if shapes:
        options["shape"] = shapes[0]
    return point.param, options


def _option_words(options: dict[str, str]) -> tuple[str, ...]:
    return tuple(word for key, value in options.items() for word in ("--option", f"{key}={value}"))


def _args(bench: str, model: str, param: str, options: dict[str, str]) -> tuple[str, ...]:
    return (bench, "--model", model, "--param", param, "--iterations", "1", "--workers", "1", *_option_words(options))


def rejections(catalog: Catalog, description: describe.Description, models: set[str]) -> list[Rejection]:
    """The exit-2 cases the description implies, each changing one thing of a valid request."""
    cases: list[Rejection] = []
    for bench_id, served in description.served.items():
        bench = catalog.benchmarks[bench_id]
        chosen = {m: s for m, s in served.items() if m in models}
        for number, (model, entry) in enumerate(chosen.items()):
            param, options = _valid_request(bench, model, entry.shapes)
            if not cases:
                cases.append(Rejection(ALL, "unknown benchmark", _args("no-such-benchmark", model, param, options)))
            if number == 0:
                cases.append(Rejection(bench_id, "unknown model", _args(bench_id, "no-such-model", param, options)))
                cases += [Rejection(bench_id, f"--param {bad}", _args(bench_id, model, bad, options))
                          for bad in description.params[bench_id].outside()]
            if entry.shapes:
                cases.append(Rejection(bench_id, f"{model}: unknown shape",
                                       _args(bench_id, model, param, {**options, "shape": "no-such-shape"})))
            cases.append(Rejection(bench_id, f"{model}: unknown option",
                                   _args(bench_id, model, param, {**options, "no_such_option": "1"})))
            for key, domain in entry.options.items():
                cases += [Rejection(bench_id, f"{model}: {key}={bad}", _args(bench_id, model, param, {**options, key: bad}))
                          for bad in domain.outside()]
    return cases


ARGUMENT_CASES = Path(__file__).parent.parent / "schema" / "argument-cases.toml"


def argument_cases(catalog: Catalog, description: describe.Description, path: Path = ARGUMENT_CASES) -> list[Rejection]:
    """The shared command-line cases, filled in with one request the description serves (its first benchmark and
    model)."""
    bench_id = sorted(description.served)[0]
    model, entry = next(iter(sorted(description.served[bench_id].items())))
    param, options = _valid_request(catalog.benchmarks[bench_id], model, entry.shapes)
    words = {"{request}": _args(bench_id, model, param, options),
             "{options}": _option_words(options)}
    names = {"benchmark": bench_id, "model": model, "param": param}
    cases = []
    for case in tomllib.loads(path.read_text())["case"]:
        argv = tuple(w for word in case["argv"] for w in (words[word] if word in words else (word.format(**names),)))
        cases.append(Rejection(ALL, case["what"], argv, int(case["exit"])))
    return cases


def _invoked(impl: Implementation, case: Rejection) -> subprocess.CompletedProcess | None:
    """The binary run on the case's arguments, its output caught; None when it outlived REJECTION_TIMEOUT_S."""
    argv, env = impl.base_command(1)
    try:
        return subprocess.run([*argv, *case.args], cwd=impl.folder, env=env, capture_output=True, text=True,
                              timeout=REJECTION_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def ran(impl: Implementation, case: Rejection) -> str | None:
    """None when the binary ran the request through the protocol (exit 0, a hello first); else what it did."""
    done = _invoked(impl, case)
    if done is None:
        return f"{case.what}: still running after {REJECTION_TIMEOUT_S} s"
    first = (done.stdout.splitlines() or [""])[0]
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return f"{case.what}: exit status {done.returncode}, expected 0: {last[:80]!r}"
    problem = protocol_check.line_problem(1, first)
    return f"{case.what}: {problem}" if problem else None


def judged(impl: Implementation, case: Rejection) -> str | None:
    """None when the binary did what the case asks (ran it, or refused it); else what it did instead."""
    return ran(impl, case) if case.exit == 0 else refused(impl, case)


def refused(impl: Implementation, case: Rejection) -> str | None:
    """None when the binary refused the request as the protocol says; else what it did instead."""
    done = _invoked(impl, case)
    if done is None:
        return f"{case.what}: still running after {REJECTION_TIMEOUT_S} s instead of exit 2"
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 2:
        return f"{case.what}: exit status {done.returncode}, expected 2"
    if done.stdout.strip():
        return f"{case.what}: wrote on stdout before refusing: {done.stdout.strip().splitlines()[0][:80]!r}"
    if len(lines) != 1:
        return f"{case.what}: {len(lines)} lines on stderr, expected exactly one"
    return None


def snapshot_problem(impl: Implementation) -> str | None:
    """The committed describe.json must be what the binary says now."""
    path = describe.snapshot_path(impl.folder)
    if impl.description is None:
        return f"the binary does not describe itself: {impl.description_error or 'not built'}"
    fix = f"run `concbench describe {impl.language} --write`"
    if not path.is_file():
        return f"no {path.name} snapshot beside impl.toml ({fix})"
    try:
        saved = json.loads(path.read_text())
    except ValueError:
        return f"{path.name} is not JSON ({fix})"
    if saved != impl.description.raw:
        return f"{path.name} differs from the binary's description ({fix})"
    return None


def description_problem(impl: Implementation) -> str | None:
    """The binary's own description must match the describe schema (stricter than describe.parse)."""
    if impl.description is None or impl.description_source != "binary":
        return None
    return protocol_check.describe_problem(impl.description.raw)


@dataclass(frozen=True)
class SchemaCheckingExecutor:
    """Runs through another executor, holding every stdout line to the protocol's schema before the
    session's own parser reads it: the first line that breaks it stops the run as a protocol error."""

    inner: executor.Executor

    def execute(self, spec: executor.LaunchSpec, on_line: executor.LineConsumer,
                is_progress: executor.ProgressTest) -> executor.ProcessRecord:
        count = 0

        def checked(line: str) -> str | None:
            nonlocal count
            count += 1
            return protocol_check.line_problem(count, line) or on_line(line)

        return self.inner.execute(spec, checked, is_progress)


def check_rejections(catalog: Catalog, impl: Implementation, models: set[str], rows: Rows) -> None:
    assert impl.description is not None   # check() asks only a binary that describes itself
    cases = [*argument_cases(catalog, impl.description), *rejections(catalog, impl.description, models)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda case: judged(impl, case), cases))
    for case, problem in zip(cases, outcomes):
        row = rows[case.benchmark]
        row.rejections += 1
        if problem is None:
            row.rejections_passed += 1
        else:
            row.problems.append(problem)


def check_repetitions(catalog: Catalog, description: describe.Description, rows: Rows) -> None:
    """`repeat` changes what one iteration times: only a benchmark whose file allows it may offer it."""
    for bench_id, served in description.served.items():
        bench = catalog.benchmarks.get(bench_id)
        for model, entry in served.items():
            if bench is not None and not bench.repeatable and REPEAT in entry.options:
                rows[bench_id].problems.append(
                    f"{model}: offers {REPEAT}, but {bench_id}.toml does not allow inner repetitions")


def repeated(plan: list[Point], times: int = 3) -> list[Point]:
    """Each variant and shape that offers `repeat`: its first test point again, batched `times` over."""
    extra, seen = [], set()
    for point in plan:
        key = (point.benchmark.id, point.variant.name, point.shape)
        offered = REPEAT in point.variant.served[point.benchmark.id].options
        if offered and point.benchmark.repeatable and key not in seen:
            seen.add(key)
            options = tuple(sorted({**dict(point.options), REPEAT: str(times)}.items()))
            extra.append(replace(point, options=options))
    return extra


def judge_runs(plan: list[Point], runs: list[RunRecord], rows: Rows) -> None:
    """Every planned point ran, verified (or stalled where the spec allows), with its metrics."""
    by_point: defaultdict[tuple, list[RunRecord]] = defaultdict(list)
    for stored in runs:
        by_point[(stored.benchmark, stored.variant, stored.param, stored.options_key)].append(stored)
    for point in plan:
        row = rows[point.benchmark.id]
        row.models.add(point.variant.model)
        options = dict(point.options)
        key = (point.benchmark.id, point.variant.name, point.param, options_text(point.options))
        where = f"{series_label(point.variant.name, point.shape)} {point.param}"
        ran: Sequence[RunRecord | None] = by_point.get(key, []) or [None]
        for run in ran:
            row.runs += 1
            if run is None:
                row.problems.append(f"{where}: did not run")
                continue
            may_stall = point.variant.model in point.benchmark.may_stall_models
            if run.status in (RunStatus.TIMEOUT, RunStatus.SKIPPED) and may_stall:
                row.runs_passed += 1
                row.stalls += 1
                continue
            if run.status != RunStatus.OK or any(it.verdict != Verdict.VERIFIED for it in run.iterations):
                unverified = next((it.verdict for it in run.iterations if it.verdict != Verdict.VERIFIED), "")
                row.problems.append(f"{where}: {run.status} {run.message or unverified}".rstrip())
                continue
            missing = missing_metrics(point.benchmark, point.param, options, run.metrics)
            if missing:
                row.problems.append(f"{where}: did not report the metrics {', '.join(missing)}")
                continue
            row.metrics_checked += len(point.benchmark.metrics_for(point.param, options))
            row.runs_passed += 1


def check_language(catalog: Catalog, store, language: str, models: set[str] | None, build_failed: bool,
                   available: set[str], progress, executor) -> list[Row]:
    """Every check of one language: its snapshot, its refusals, and every shape at test size run as
    one session (plus the batched points of `repeated`); the rows, the command-line row first."""
    impl = catalog.implementations[language]
    rows = Rows(language)
    if build_failed:
        rows[ALL].problems.append("the build failed")
        return list(rows.values())
    for problem in (description_problem(impl), snapshot_problem(impl)):
        if problem:
            rows[ALL].problems.append(problem)
    if impl.description is not None and not impl.hidden:
        for bench_id, problem in drift.problems(catalog.benchmarks, impl.description):
            rows[bench_id].problems.append(problem)
    if impl.description is None or impl.description_source != "binary":
        return list(rows.values())
    models = models or set(impl.description.models)
    check_rejections(catalog, impl, models, rows)
    check_repetitions(catalog, impl.description, rows)
    variants = tuple(f"{language}/{m}" for m in sorted(models))
    cores = len(environment.allowed_cpus())
    plan = make_plan(catalog, Request(variants=variants, size="test", cores=(cores,), all_shapes=True), available)
    plan += repeated(plan)
    # A refusal of a point the description allows is this language's failure, not bad input: recorded.
    outcome = run_session(catalog, store, plan, Settings(runs=1, stop_on_refusal=False), progress,
                          {"check": language}, SchemaCheckingExecutor(executor))
    if outcome.interrupted:
        raise SessionInterrupted("check interrupted")
    judge_runs(plan, store.runs(outcome.session_id), rows)
    return [rows[ALL], *(row for key, row in rows.items() if key != ALL)]
