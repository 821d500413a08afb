"""The `concbench` command: parses, calls the library, prints. Exit statuses live in main() only."""

from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from . import environment, toolchains
from .catalog import SIZE_SETS, Catalog, load_catalog
from .errors import BuildError, SessionInterrupted, UsageError
from .plan import Request, make_plan, parse_option, parse_values
from .progress import RichProgress
from .records import RunStatus
from .report import export
from .report.compare import pair_series
from .report.growth import growth_series
from .report.scaling import scaling_tables
from .report.summary import SeriesSummary, summarise
from .report.table import comparison_table, growth_table, print_summary, scaling_table
from .session import Session, Settings
from .store import Store

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, EXIT_REGRESSION, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

# Off a terminal (CI logs, files) the tables get room instead of being squeezed to 80 columns.
console = Console(width=None if sys.stdout.isatty() else 220)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else 220)


def _catalog() -> Catalog:
    return load_catalog()


def _default_db(catalog: Catalog) -> Path:
    return catalog.root / "results" / "concbench.sqlite"


def _available(catalog: Catalog) -> set[str]:
    return {
        v.name for v in catalog.variants.values()
        if toolchains.availability(catalog.implementation_of(v)).available
    }


def _int_list(text: str, flag: str) -> tuple[int, ...]:
    """'1,2,4', '1..4' or '1-4' (or a mix): positive integers, in the order given."""
    try:
        values = [int(v) for v in parse_values(text.replace("-", ".."), flag)]
    except ValueError:
        raise UsageError(f"{flag} {text!r}: expected numbers like 1,2 or 1..4") from None
    if not values or min(values) < 1:
        raise UsageError(f"{flag} {text!r}: values must be at least 1")
    return tuple(values)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """concbench: measure concurrency models, verify every answer, keep every sample."""


# -- list --------------------------------------------------------------------------------


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_command(as_json: bool) -> int:
    """Benchmarks and variants, and whether each variant can run here."""
    catalog = _catalog()
    benchmarks = [
        {"id": b.id, "title": b.title, "origin": b.origin, "category": b.category,
         "sizes": {name: [p.param for p in b.sizes[name].points] for name in SIZE_SETS}}
        for b in catalog.benchmarks.values()
    ]
    variants = []
    for variant in catalog.variants.values():
        impl = catalog.implementation_of(variant)
        found = toolchains.availability(impl)
        variants.append({
            "variant": variant.name, "description": variant.description, "hidden": impl.hidden,
            "benchmarks": {b: list(s) for b, s in variant.shapes.items()},
            "available": found.available, "built": toolchains.is_built(impl),
            "why_unavailable": found.reason, "install": found.install_hint if not found.available else "",
        })
    if as_json:
        console.print_json(json.dumps({"benchmarks": benchmarks, "variants": variants}))
        return EXIT_OK
    table = Table(title="Benchmarks", header_style="bold")
    for column in ("id", "category", "origin", "test", "quick", "paper"):
        table.add_column(column)
    for b in benchmarks:
        table.add_row(b["id"], b["category"], b["origin"], *(" ".join(b["sizes"][s]) for s in SIZE_SETS))
    console.print(table)
    table = Table(title="Variants", header_style="bold")
    for column in ("variant", "benchmarks (shapes)", "status"):
        table.add_column(column)
    for v in variants:
        if v["hidden"]:
            continue
        served = ", ".join(f"{b} ({'/'.join(s)})" if s else b for b, s in v["benchmarks"].items())
        if v["available"]:
            status = "[green]available[/]" + ("" if v["built"] else " (not built yet)")
        else:
            status = f"[red]unavailable[/]: {v['why_unavailable']}; {v['install']}"
        table.add_row(v["variant"], served, status)
    console.print(table)
    return EXIT_OK


# -- build -------------------------------------------------------------------------------


def _build_all(catalog: Catalog, languages: list[str], opts: dict[str, str] | None = None) -> None:
    for language in languages:
        impl = catalog.implementations[language]
        found = toolchains.availability(impl)
        if not found.available:
            err_console.print(f"skipping {language}: {found.reason} ({found.install_hint})")
            continue
        with console.status(f"building {language} ..."):
            record = toolchains.build(impl, catalog.root / "build", (opts or {}).get(language))
        level = f" (-{record['opt']})" if record["opt"] else ""
        console.print(f"built {language}{level}: {impl.executable_path}")


@cli.command("build")
@click.argument("names", nargs=-1)
@click.option("--swift-opt", default=None, type=click.Choice(["O", "Onone", "Osize"]),
              help="Swift optimisation level of this build (default O); sessions record it.")
def build_command(names: tuple[str, ...], swift_opt: str | None) -> int:
    """Build the implementations (all, or those of the given variants or languages)."""
    catalog = _catalog()
    languages = []
    for name in names or tuple(l for l, i in catalog.implementations.items() if not i.hidden):
        language = name.split("/")[0]
        if language not in catalog.implementations:
            raise UsageError(f"unknown variant or language '{name}' (known: {', '.join(sorted(catalog.variants))})")
        if language not in languages:
            languages.append(language)
    toolchains.launcher_path(catalog.root / "build")
    _build_all(catalog, languages, {"swift": swift_opt} if swift_opt else None)
    return EXIT_OK


# -- run ---------------------------------------------------------------------------------


def _raise_interrupted(signum, frame) -> None:
    raise SessionInterrupted(f"signal {signum}")


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
@click.option("--strict", is_flag=True, help="A timeout of a variant its spec does not mark 'may stall' fails the session.")
@click.option("--db", default=None, type=click.Path(dir_okay=False, path_type=Path), help="SQLite file (default results/concbench.sqlite).")
@click.option("--export-json", default=None, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--export-csv", default=None, type=click.Path(dir_okay=False, path_type=Path))
def run_command(benchmarks, variants, size, params, cores, options, runs, iterations, warmup, timeout, strict,
                db, export_json, export_csv) -> int:
    """Run benchmarks, verify every answer, store every sample, print the summary."""
    catalog = _catalog()
    allowed = environment.allowed_cpus()
    core_counts = _int_list(cores, "--cores") if cores else (len(allowed),)
    if max(core_counts) > len(allowed):
        raise UsageError(f"--cores {max(core_counts)}: only {len(allowed)} CPUs are available to this process")
    request = Request(
        benchmarks=benchmarks, variants=variants, size=size,
        params=parse_values(params, "--param") if params else (),
        cores=core_counts, options=tuple(parse_option(o) for o in options),
        iterations=iterations, warmup=warmup,
    )
    plan = make_plan(catalog, request, _available(catalog))
    languages = sorted({p.variant.language for p in plan})
    unbuilt = [l for l in languages if not toolchains.is_built(catalog.implementations[l])]
    _build_all(catalog, unbuilt)
    launcher = toolchains.launcher_path(catalog.root / "build")
    if launcher is None:
        err_console.print("no C compiler: peak memory cannot be measured (it is stored as NULL with the reason)")
    store = Store(db or _default_db(catalog))
    versions = {
        l: {"version": toolchains.toolchain_version(catalog.implementations[l]),
            "build": toolchains.build_record(catalog.implementations[l], catalog.root / "build")}
        for l in languages
    }
    config = {"request": {k: list(v) if isinstance(v, tuple) else v for k, v in request.__dict__.items()},
              "runs": runs, "timeout_s": timeout, "strict": strict, "points": len(plan)}
    session_id = store.start_session(
        shlex.join(["concbench", *sys.argv[1:]]), environment.git_commit(catalog.root),
        environment.capture(versions), config,
    )
    session = Session(catalog, store, Settings(runs=runs, timeout_s=timeout, launcher=launcher), RichProgress(console))
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    status = "finished"
    try:
        with session.progress.live(len(plan) * runs):
            result = session.execute(session_id, plan)
    except (KeyboardInterrupt, SessionInterrupted):
        status = "interrupted"
    finally:
        signal.signal(signal.SIGTERM, previous)
        store.end_session(session_id, status)
    record = store.session(session_id)
    stored = store.runs(session_id)
    rows = summarise(stored)
    print_summary(console, record, rows)
    _print_growth(catalog, rows)
    for path, text in ((export_json, export_json and export.to_json(record, stored)),
                       (export_csv, export_csv and export.to_csv(record, stored))):
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            console.print(f"exported {path}")
    console.print(f"stored as session {session_id} in {store.path}")
    if status == "interrupted":
        err_console.print(f"interrupted: {len(stored)} finished runs kept in session {session_id}")
        return EXIT_INTERRUPTED
    failures = result.failures
    if strict:
        failures += [r for r in result.runs if r.status == RunStatus.TIMEOUT
                     and r.variant.split("/")[1] not in catalog.benchmarks[r.benchmark].may_stall_models]
    if failures:
        err_console.print(f"[red]{len(failures)} failed runs:[/]")
        for run in failures:
            err_console.print(f"  {run.benchmark} {run.variant} {run.param} run {run.run_index}: "
                              f"{run.status} ({run.reason}) {run.message}", markup=False)
        return EXIT_RUN_FAILED
    return EXIT_OK


# -- report ------------------------------------------------------------------------------


@cli.command("report")
@click.argument("session_id", required=False, type=int)
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "csv", "json", "markdown"]))
@click.option("--compare", nargs=2, default=None, metavar="VARIANT VARIANT",
              help="Compare two variants of the session: ratio of medians, Welch, Mann-Whitney, z-interval.")
@click.option("--scaling", default=None, metavar="DIMENSION",
              help="Scaling tables along `cores` or any swept option (e.g. window): T, factor, efficiency.")
@click.option("--against-seq", is_flag=True, help="With --scaling: also the speedup against the fastest seq variant.")
@click.option("--list", "list_sessions", is_flag=True, help="List the stored sessions.")
@click.option("--db", default=None, type=click.Path(dir_okay=False, path_type=Path))
def report_command(session_id, fmt, compare, scaling, against_seq, list_sessions, db) -> int:
    """Report a stored session (default: the latest)."""
    catalog = _catalog()
    path = db or _default_db(catalog)
    if not path.exists():
        raise UsageError(f"{path}: no results yet (run `concbench run` first)")
    store = Store(path)
    if list_sessions:
        for s in store.sessions():
            console.print(f"{s.id:>4}  {s.started_at}  {s.status:<11}  {s.command}", markup=False, highlight=False)
        return EXIT_OK
    record = store.session(session_id)
    runs = store.runs(record.id)
    rows = summarise(runs)
    if compare:
        names = {r.variant for r in runs}
        for name in compare:
            if name not in names:
                raise UsageError(f"--compare: session {record.id} has no runs of '{name}' (it has: {', '.join(sorted(names))})")
        console.print(comparison_table(pair_series(rows, *compare), *compare))
        console.print("verdict: significant when the difference-of-means z-interval excludes 0 (the thesis' rule)")
        return EXIT_OK
    if scaling:
        tables = scaling_tables(rows, scaling, against_seq)
        if not tables:
            raise UsageError(f"--scaling {scaling}: session {record.id} has no series swept over '{scaling}'")
        for table in tables:
            console.print(scaling_table(table, against_seq))
        console.print("T = 100·t(v)/t(first), factor = t(first)/t(v), medians of measured iterations; "
                      "intervals: bootstrap of the ratio of medians")
        return EXIT_OK
    if fmt == "table":
        print_summary(console, record, rows)
        _print_growth(catalog, rows)
    elif fmt == "json":
        sys.stdout.write(export.to_json(record, runs))
    elif fmt == "csv":
        sys.stdout.write(export.to_csv(record, runs))
    else:
        sys.stdout.write(export.to_markdown(record, rows))
    return EXIT_OK


def _print_growth(catalog: Catalog, rows: list[SeriesSummary]) -> None:
    """For benchmarks whose spec derives a growth exponent (spawn-scaling): the log-log fit."""
    fitted = {b.id for b in catalog.benchmarks.values() if "growth_exponent" in b.derived}
    series = growth_series(rows, fitted)
    if series:
        console.print(growth_table(series))


# -- main --------------------------------------------------------------------------------


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def main(argv: list[str] | None = None) -> None:
    try:
        code = cli.main(args=argv, prog_name="concbench", standalone_mode=False)
    except click.exceptions.UsageError as error:
        where = f"{error.ctx.command_path}: " if error.ctx else "concbench: "
        err_console.print(f"{where}{_one_line(error.format_message())}", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_USAGE
    except UsageError as error:
        err_console.print(f"concbench: {_one_line(error)}", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_USAGE
    except BuildError as error:
        err_console.print(error.output, markup=False, highlight=False)
        err_console.print(f"concbench: {error}", markup=False, highlight=False)
        code = EXIT_RUN_FAILED
    except (click.exceptions.Abort, KeyboardInterrupt, SessionInterrupted):
        code = EXIT_INTERRUPTED
    sys.exit(code if isinstance(code, int) else EXIT_OK)
