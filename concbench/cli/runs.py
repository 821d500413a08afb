"""`run`: a plan run as a session, stored, summarised, exported."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from ..analysis.summary import summarise
from ..errors import UsageError
from ..report.machine import machine_lines
from ..report.page import default_folder, mark
from ..report.terminal import print_summary, say, say_whole
from ..running import environment, executor, session, toolchains
from ..running.plan import (
    Point,
    Request,
    make_plan,
    parse_option,
    parse_shard,
    parse_values,
    plan_identity,
    planned_runs,
    shard_of,
)
from ..running.probe import Probe
from ..running.progress import RichProgress
from ..running.session import Settings
from ..spec.catalog import Catalog
from ..storing.database import probe
from ..storing.files import write_whole
from ..storing.records import RunStatus
from ..storing.store import Store
from . import common
from .common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILED,
    SessionOptions,
    _available,
    _beside,
    _catalog,
    _db_option,
    _default_db,
    _int_list,
    _order_options,
    _origin,
    _writable,
    cli,
)
from .pages import export_text, write_page
from .setup import build_all


@cli.command("run")
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Benchmark id (repeatable; default all).")
@click.option("-v", "--variant", "variants", multiple=True, help="language/model (repeatable; default all available).")
@click.option("--size", default="quick", show_default=True, help="Size set: test, quick or paper.")
@click.option("--param", "params", default=None, help="Explicit parameter values, V[,V...] or a range 1..12 (replaces --size).")
@click.option("--cores", default=None, help="Core counts K[,K...] or a range 1..4 (default: all).")
@click.option("--option", "options", multiple=True,
              help="key=value passed to the implementation (repeatable); a value list a,b or range 1..12 sweeps it.")
@click.option("--runs", default=3, show_default=True, type=click.IntRange(min=1), help="Processes per point.")
@click.option("--iterations", default=None, type=click.IntRange(min=1), help="Iterations per run (default: the benchmark's).")
@click.option("--warmup", default=None, type=click.IntRange(min=0), help="Warm-up iterations per run, kept but not summarised.")
@click.option("--timeout", default=None, type=click.FloatRange(min=0.1), help="Seconds per run; replaces the benchmark's per-iteration deadline.")
@click.option("--all-shapes", is_flag=True,
              help="Every program shape of each model, not only the faithful port (the one declared first).")
@click.option("--strict", is_flag=True, help="A timeout of a variant its spec does not mark 'may stall' fails the session.")
@_db_option()
@click.option("--export-json", default=None, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--export-csv", default=None, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--export-bmf", default=None, type=click.Path(dir_okay=False, path_type=Path),
              help="Bencher Metric Format JSON, for `bencher run --adapter json --file FILE`.")
@click.option("--page", is_flag=True,
              help="Then write the session's HTML report beside the database (results/session-N/index.html).")
@click.option("--shard", default=None, metavar="K/N",
              help="Only the K-th of N disjoint shards of the plan (whole series each; for several machines).")
@click.option("--resume", is_flag=True, help="Go on with the --db's unfinished session of this plan (and shard), if any.")
@_order_options
def run_command(**given) -> int:
    """Run benchmarks, verify every answer, store every sample, print the summary."""
    o = RunOptions(**given)
    for path, flag in ((o.export_json, "--export-json"), (o.export_csv, "--export-csv"), (o.export_bmf, "--export-bmf")):
        _writable(path, flag)
    catalog = _catalog()
    planner, config = run_planner(o)
    store, outcome = run_session(catalog, planner, o.settings(o.runs, o.timeout), o.db, config, o.variants, o.resume)
    exports = [(o.export_json, "json"), (o.export_csv, "csv"), (o.export_bmf, "bmf")]
    return finish_session(catalog, store, outcome, o.strict, exports, o.page)


@dataclass(frozen=True, kw_only=True)
class RunOptions(SessionOptions):
    """`run`'s command line as click parsed it, one field per option (`slurm submit` parses a `run …` the same way)."""

    benchmarks: tuple[str, ...]
    variants: tuple[str, ...]
    size: str
    params: str | None
    cores: str | None
    options: tuple[str, ...]
    runs: int
    iterations: int | None
    warmup: int | None
    timeout: float | None
    all_shapes: bool
    strict: bool
    export_json: Path | None
    export_csv: Path | None
    export_bmf: Path | None
    page: bool


def run_planner(o: RunOptions, cores_here: bool = True) -> tuple[Sharded, dict]:
    """`run`'s request, checked, as a planner and the session's config. `cores_here`: hold --cores to this
    machine's CPUs (not where the shards run on other machines: each checks its own)."""
    allowed = environment.allowed_cpus()
    core_counts = _int_list(o.cores, "--cores") if o.cores else (len(allowed),)
    if cores_here and max(core_counts) > len(allowed):
        raise UsageError(f"--cores {max(core_counts)}: only {len(allowed)} CPUs are available to this process")
    request = Request(
        benchmarks=o.benchmarks, variants=o.variants, size=o.size,
        params=parse_values(o.params, "--param") if o.params else (),
        cores=core_counts, options=tuple(parse_option(text) for text in o.options),
        iterations=o.iterations, warmup=o.warmup, all_shapes=o.all_shapes,
    )
    config = {"request": {k: list(v) if isinstance(v, tuple) else v for k, v in request.__dict__.items()},
              "timeout_s": o.timeout, "strict": o.strict}
    return Sharded(lambda c: make_plan(c, request, _available(c)), o.shard), config


class Sharded:
    """A planner's plan, or with `--shard K/N` its K-th shard, and what the session's config notes of the plan once
    made (`notes`): the whole plan's identity (so that `--resume` finds a session of the same plan; the shards of
    one plan share it) and, for a shard, which one of how many points (its `part`, "K/N")."""

    def __init__(self, planner: Callable[[Catalog], list[Point]], text: str | None) -> None:
        self.planner, self.shard = planner, parse_shard(text) if text is not None else None
        self.notes: dict = {}

    def __call__(self, current: Catalog) -> list[Point]:
        plan = self.planner(current)
        if self.shard is None:
            self.notes = {"plan": plan_identity(plan)}
            return plan
        self.notes = {"shard": {"part": str(self.shard), "plan": plan_identity(plan), "points": len(plan)}}
        return shard_of(plan, self.shard)


def run_session(catalog: Catalog, planner: Sharded, settings: Settings, db: Path | str | None, config: dict,
                 named: tuple[str, ...] = (), resume: bool = False, estimate: bool = False):
    """Plan, build what the plan needs (session.prepare), then run it as one stored session: with `resume`, the
    store's unfinished session of the same plan goes on where there is one; `estimate` first says how long."""
    probe(db or _default_db(catalog))   # a server database that cannot be reached stops us before anything runs
    catalog, plan = session.prepare(catalog, planner, lambda languages: build_all(catalog, languages), named)
    config = {**config, **planner.notes}   # the plan's identity, known once it is made
    launcher = toolchains.launcher_path(catalog.root / "build")
    if launcher is None:
        common.err_console.print("no C compiler: peak memory cannot be measured (it is stored as NULL with the reason)")
    probe_binary = toolchains.probe_path(catalog.root / "build") if settings.probe else None
    if probe_binary is None and settings.probe:
        common.err_console.print("no C compiler: no machine probe, so no run is judged quiet or disturbed")
    store = Store(db or _default_db(catalog))
    earlier = session.resumable(store, session.session_config(config, plan, settings)) if resume else None
    done = store.runs(earlier.id) if earlier else []
    if earlier:
        say(common.console, f"resuming session {earlier.id} ({earlier.status}): {len(done)} run{'s' * (len(done) != 1)} kept, "
                            f"{planned_runs(plan, settings.runs) - len(done)} to run")
    elif resume:
        say(common.console, f"--resume: no unfinished session of this plan in {store.location}: a new session")
    if estimate:
        from ..scaleout.estimate import estimate as estimated

        say(common.console, estimated(plan, settings.runs, store, settings.timeout_s, done).line())
    machine = Probe(probe_binary, tuple(environment.allowed_cpus()[:2])) if probe_binary else None
    return store, session.run_session(catalog, store, plan, settings, RichProgress(common.console), config,
                                             executor.ProcessExecutor(launcher), earlier, machine)


def finish_session(catalog: Catalog, store: Store, outcome: session.Outcome, strict: bool,
                    exports: Sequence[tuple[Path | None, str]] = (), page: bool = False) -> int:
    """The summary, the exports, the page (`page`) and the exit status of a finished (or interrupted) session."""
    session_id = outcome.session_id
    record = store.session(session_id)
    stored = store.runs(session_id)
    rows = summarise(stored)
    print_summary(common.console, record, rows, catalog.benchmarks, faithful_shape=catalog.faithful_shape,
                         machine=machine_lines(record, stored, store.probes(session_id)))
    unwritten = 0
    for path, fmt in exports:
        if path:
            try:   # its folder was made before the run (_writable)
                write_whole(path, export_text(fmt, record, stored, rows, catalog, store.probes(session_id)))
                say_whole(common.console, f"exported {path}")
            except OSError as error:   # checked before the run; the disk can still fill up since
                common.err_console.print(f"concbench: {path}: not written ({error.strerror or error}); the session is stored",
                                         markup=False, highlight=False)
                unwritten += 1
    say_whole(common.console, f"stored as session {session_id} in {store.location}")
    if page and not outcome.interrupted:
        try:
            path = write_page(default_folder(_beside(catalog, store), session_id), catalog, record,
                               store.runs(session_id, with_samples=True), [], probes=store.probes(session_id))
            mark(path.parent, _origin(store, record))
            say_whole(common.console, f"HTML report: {path} (`concbench report {session_id} --open` opens it)")
        except OSError as error:
            common.err_console.print(f"concbench: the HTML report was not written ({error.strerror or error}); "
                                     "the session is stored", markup=False, highlight=False)
            unwritten += 1
    if outcome.interrupted:
        common.err_console.print(f"interrupted: {len(stored)} finished runs kept in session {session_id}")
        return EXIT_INTERRUPTED
    assert outcome.result is not None   # a session not interrupted ran its plan to the end
    failures = outcome.result.failures
    if strict:
        failures += [r for r in outcome.result.runs if r.status == RunStatus.TIMEOUT
                     and r.variant.split("/")[1] not in catalog.benchmarks[r.benchmark].may_stall_models]
    if failures:
        common.err_console.print(f"[red]{len(failures)} failed runs:[/]")
        for run in failures:
            common.err_console.print(f"  {run.benchmark} {run.variant} {run.param} run {run.run_index}: "
                                     f"{run.status} ({run.reason}) {run.message}", markup=False)
        return EXIT_RUN_FAILED
    return EXIT_RUN_FAILED if unwritten else EXIT_OK
