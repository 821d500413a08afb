"""The `concbench` command: parses, calls the library, prints. Exit statuses live in main() only."""

from __future__ import annotations

import html
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path

import click

from .analysis import regression
from .analysis.choice import every_pair
from .analysis.claim_verdicts import Context as ClaimsContext
from .analysis.claim_verdicts import claims_document, judge_claims
from .analysis.scaling import scaling_tables
from .analysis.summary import summarise
from .analysis.variants import pair_series
from .analysis.verdict import figure as verdict_figure
from .analysis.verdict import study_verdicts
from .errors import BuildError, SessionInterrupted, UsageError
from .report import export
from .report.machine import machine_lines, machine_section
from .report.page import PAGE, default_folder, mark, open_in_browser, shows
from .report.study import (
    claims_grid,
    findings_grid,
    findings_html,
    grid_html,
    published_grid,
    study_figures,
    study_grids,
)
from .report.tables import (
    EXPLAIN_NOTE,
    benchmarks_table,
    check_table,
    comparison_table,
    explain_table,
    findings_table,
    grid_table,
    regression_table,
    rules_table,
    scaling_table,
    variants_table,
)
from .report.terminal import make_console, print_summary, say, say_whole, show
from .running import cgroups, conformance, environment, executor, session, toolchains
from .running.plan import (
    Request,
    make_plan,
    parse_option,
    parse_shard,
    parse_values,
    plan_identity,
    planned_runs,
    series_count,
    shard_of,
)
from .running.probe import Probe
from .running.progress import RichProgress
from .running.session import Settings
from .scaleout.parts import Whole, runs_of, whole
from .spec import describe
from .spec.catalog import REPEAT, SIZE_SETS, Catalog, load_catalog
from .spec.studies import SCALES, find_study, load_studies, plan_study
from .storing.database import folder_name, has_results, is_server, probe, redact, shown
from .storing.files import write_whole
from .storing.records import RunStatus
from .storing.store import Store

EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_HARNESS = 3   # concbench itself failed (the database went away, a bug): never "finished, some runs failed"

# As wide as the terminal; off one (a pipe, a log file), COLUMNS where it is set, else 160 columns.
console = make_console(sys.stdout)
err_console = make_console(sys.stderr, stderr=True)


def _catalog() -> Catalog:
    return load_catalog()


def _default_db(catalog: Catalog) -> Path:
    return catalog.root / "results" / "concbench.sqlite"


class _Database(click.ParamType):
    """--db and merge's databases: an SQLite file (a Path), or a URL kept as text (a Path folds its "//")."""

    name = "FILE|URL"

    def convert(self, value, param, ctx):
        return value if isinstance(value, Path) or "://" in str(value) else Path(value)


DB_HELP = ("Results database: an SQLite file or a postgresql://user@host:port/db URL (default: $CONCBENCH_DB, "
           "else results/concbench.sqlite).")


def _order_options(command):
    """How a session orders and guards its runs: `run` and `study run` alike."""
    command = click.option("--no-probe", "no_probe", is_flag=True, envvar="CONCBENCH_NO_PROBE",
                           help="Do not read the machine between runs: no run is judged disturbed or run again "
                                "(for sessions run side by side on purpose; also CONCBENCH_NO_PROBE=1).")(command)
    command = click.option("--memory-limit", "memory_limit", default=None, metavar="SIZE", callback=_memory_limit,
                           help="Each run's memory limit (512M, 2G; its control group's): a run over it is killed, "
                                "`crashed` with reason oom. Needs control groups the harness may make (root).")(command)
    command = click.option("--settle", default=0.0, show_default=True, type=click.FloatRange(min=0), metavar="SECONDS",
                           help="After the rounds, up to SECONDS more on runs of the series whose runs differ by more "
                                "than 10 %, cheapest first, up to 3 × --runs each.")(command)
    return click.option("--seed", default=None, type=click.IntRange(min=0),
                        help="Seed of the order runs go in, each round shuffled (default: a new one, stored; "
                             "`report` shows it).")(command)


def _memory_limit(ctx, param, text: str | None) -> int | None:
    """--memory-limit's bytes, refused in one line where it is no size or the machine cannot enforce it."""
    if text is None:
        return None
    match = re.fullmatch(r"(\d+)([KMG]?)(?:i?B)?", text.strip(), re.IGNORECASE)
    if match is None or int(match[1]) == 0:
        raise click.BadParameter(f"{text!r}: a size such as 512M or 2G")
    limit = int(match[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[match[2].upper()]
    where = cgroups.layout()
    if where is None or where.memory is None:
        raise click.BadParameter("this machine gives the harness no memory control group to limit a run with "
                                 "(cgroup v1's memory hierarchy, or v2 with memory delegated; as root)")
    return limit


def _seed(given: int | None) -> int:
    """The seed a session shuffles its rounds with: the one given, else a fresh one (stored with the session)."""
    return given if given is not None else secrets.randbelow(2**31)


def _db_option(help: str = DB_HELP):
    return click.option("--db", default=None, envvar="CONCBENCH_DB", type=_Database(), help=help)


def _beside(catalog: Catalog, store: Store) -> Path:
    """What a session's page is written beside unasked: the SQLite file; for a server database, a folder of its
    own under results/ (its session ids are not the file's)."""
    return store.path or catalog.root / "results" / folder_name(store.location) / "concbench"


def _origin(store: Store, record) -> str:
    """What a page beside the database is for: the database, the session, when it started (a file replaced by
    another with a session of the same number is told apart)."""
    return f"{shown(store.location)} session {record.id} started {record.started_at}"


def _available(catalog: Catalog) -> set[str]:
    return {
        v.name for v in catalog.variants.values()
        if toolchains.availability(catalog.implementation_of(v)).available
    }


def _writable(path: Path | None, flag: str) -> None:
    """Refuses, before anything runs, an export file that cannot be written (a folder that cannot be made,
    or one that takes no new file, as /proc): found by writing a scratch file beside it."""
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".concbench-"):
            pass
    except OSError as error:
        raise UsageError(f"{flag} {path}: cannot write there ({error.strerror or error})") from None


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
        {"id": b.id, "title": b.title, "origin": b.origin, "category": b.category, "spec": b.spec,
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
            "options": {b: {k: str(d) for k, d in served.options.items()} for b, served in variant.served.items()},
            "params": {b: str(d) for b, d in variant.params.items()},
            "available": found.available, "built": toolchains.is_built(impl),
            "described_by": impl.description_source,
            "why_unavailable": found.reason, "install": found.install_hint if not found.available else "",
        })
    if as_json:
        console.print_json(json.dumps({"benchmarks": benchmarks, "variants": variants}))
        return EXIT_OK
    show(console, benchmarks_table(benchmarks, SIZE_SETS))
    show(console, variants_table(variants))
    return EXIT_OK


# -- install ----------------------------------------------------------------------------


@cli.command("install")
@click.option("--dry-run", is_flag=True, help="Only print the command that would install the missing toolchains.")
def install_command(dry_run: bool) -> int:
    """Install the Debian packages of unavailable toolchains (as root); else say what to run."""
    catalog = _catalog()
    impls = [i for i in catalog.implementations.values() if not i.hidden]
    packages = toolchains.missing_packages(impls)
    if not packages:
        console.print("every toolchain with a Debian package is installed")
        return EXIT_OK
    command = "apt-get install -y " + " ".join(packages)
    if dry_run or os.geteuid() != 0 or shutil.which("apt-get") is None:
        console.print(f"to install the missing toolchains, run as root: {command}", highlight=False)
        return EXIT_OK
    with console.status(f"installing {' '.join(packages)} ..."):
        done = toolchains.install_packages(packages)
    if done.returncode != 0:
        err_console.print(done.stdout + done.stderr, markup=False, highlight=False)
        err_console.print(f"concbench: {command} failed (exit {done.returncode}); those variants stay unavailable")
        return EXIT_RUN_FAILED
    console.print(f"installed {' '.join(packages)}")
    return EXIT_OK


# -- build -------------------------------------------------------------------------------


def _build_all(catalog: Catalog, languages: list[str], opts: dict[str, str] | None = None) -> list[str]:
    """Build each language; a failed build is shown and skipped. Returns the languages that failed."""
    failed = []
    for language in languages:
        impl = catalog.implementations[language]
        found = toolchains.availability(impl)
        if not found.available:
            err_console.print(f"skipping {language}: {found.reason} ({found.install_hint})")
            continue
        try:
            with console.status(f"building {language} ..."):
                record = toolchains.build(impl, catalog.root / "build", (opts or {}).get(language))
        except BuildError as error:
            err_console.print(error.output[-4000:], markup=False, highlight=False)
            err_console.print(f"[red]{error}[/]: its variants are left out", highlight=False)
            failed.append(language)
            continue
        level = f" (-{record['opt']})" if record["opt"] else ""
        say_whole(console, f"built {language}{level}: {impl.executable_path}")
    return failed


@cli.command("build")
@click.argument("names", nargs=-1)
@click.option("--swift-opt", default=None, type=click.Choice(["O", "Onone", "Osize"]),
              help="Swift optimisation level of this build (default O); sessions record it.")
def build_command(names: tuple[str, ...], swift_opt: str | None) -> int:
    """Build the implementations (all, or those of the given variants or languages)."""
    catalog = _catalog()
    languages = []
    for name in names or tuple(lang for lang, i in catalog.implementations.items() if not i.hidden):
        language = name.split("/")[0]
        if language not in catalog.implementations:
            raise UsageError(f"unknown variant or language '{name}' (known: {', '.join(sorted(catalog.variants))})")
        if language not in languages:
            languages.append(language)
    toolchains.launcher_path(catalog.root / "build")
    failed = _build_all(catalog, languages, {"swift": swift_opt} if swift_opt else None)
    return EXIT_RUN_FAILED if failed else EXIT_OK


# -- run ---------------------------------------------------------------------------------


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
              help="Only the K-th of N disjoint parts of the plan (whole series each; for several machines).")
@click.option("--resume", is_flag=True, help="Go on with the --db's unfinished session of this plan (and part), if any.")
@_order_options
def run_command(benchmarks, variants, size, params, cores, options, runs, iterations, warmup, timeout, all_shapes,
                strict, db, export_json, export_csv, export_bmf, page, shard, resume, seed, no_probe, settle,
                memory_limit) -> int:
    """Run benchmarks, verify every answer, store every sample, print the summary."""
    for path, flag in ((export_json, "--export-json"), (export_csv, "--export-csv"), (export_bmf, "--export-bmf")):
        _writable(path, flag)
    catalog = _catalog()
    planner, config = _run_planner(click.get_current_context().params)
    store, outcome = _run_session(catalog, planner, Settings(runs=runs, timeout_s=timeout, seed=_seed(seed),
                                                                 probe=not no_probe, settle_s=settle,
                                                                 memory_limit_bytes=memory_limit), db,
                                  config, variants, resume)
    return _finish_session(catalog, store, outcome, strict, [(export_json, "json"), (export_csv, "csv"), (export_bmf, "bmf")],
                           page)


def _run_planner(p: dict, cores_here: bool = True):
    """`run`'s request (its parsed parameters `p`), checked, as a planner and the session's config. `cores_here`:
    hold --cores to this machine's CPUs (not where the parts run on other machines: each checks its own)."""
    allowed = environment.allowed_cpus()
    core_counts = _int_list(p["cores"], "--cores") if p["cores"] else (len(allowed),)
    if cores_here and max(core_counts) > len(allowed):
        raise UsageError(f"--cores {max(core_counts)}: only {len(allowed)} CPUs are available to this process")
    request = Request(
        benchmarks=p["benchmarks"], variants=p["variants"], size=p["size"],
        params=parse_values(p["params"], "--param") if p["params"] else (),
        cores=core_counts, options=tuple(parse_option(o) for o in p["options"]),
        iterations=p["iterations"], warmup=p["warmup"], all_shapes=p["all_shapes"],
    )
    config = {"request": {k: list(v) if isinstance(v, tuple) else v for k, v in request.__dict__.items()},
              "timeout_s": p["timeout"], "strict": p["strict"]}
    return _sharded(lambda c: make_plan(c, request, _available(c)), p["shard"], config), config


def _sharded(planner, text: str | None, config: dict):
    """With `--shard K/N`, the planner's K-th part, the session's config noting the part and the whole plan's
    identity (the parts of one plan share it); without, the whole plan, its identity noted as `plan` (so that
    `--resume` finds a session of the same plan)."""
    shard = parse_shard(text) if text is not None else None

    def part(current: Catalog) -> list:
        plan = planner(current)
        if shard is None:
            config["plan"] = plan_identity(plan)
            return plan
        config["shard"] = {"part": str(shard), "plan": plan_identity(plan), "points": len(plan)}
        return shard_of(plan, shard)
    return part


def _run_session(catalog: Catalog, planner, settings: Settings, db: Path | None, config: dict,
                 named: tuple[str, ...] = (), resume: bool = False, estimate: bool = False):
    """Plan, build what the plan needs (session.prepare), then run it as one stored session: with `resume`, the
    store's unfinished session of the same plan goes on where there is one; `estimate` first says how long."""
    probe(db or _default_db(catalog))   # a server database that cannot be reached stops us before anything runs
    catalog, plan = session.prepare(catalog, planner, lambda languages: _build_all(catalog, languages), named)
    launcher = toolchains.launcher_path(catalog.root / "build")
    if launcher is None:
        err_console.print("no C compiler: peak memory cannot be measured (it is stored as NULL with the reason)")
    probe_binary = toolchains.probe_path(catalog.root / "build") if settings.probe else None
    if probe_binary is None and settings.probe:
        err_console.print("no C compiler: no machine probe, so no run is judged quiet or disturbed")
    store = Store(db or _default_db(catalog))
    earlier = session.resumable(store, session.session_config(config, plan, settings)) if resume else None
    done = store.runs(earlier.id) if earlier else []
    if earlier:
        say(console, f"resuming session {earlier.id} ({earlier.status}): {len(done)} run{'s' * (len(done) != 1)} kept, "
                     f"{planned_runs(plan, settings.runs) - len(done)} to run")
    elif resume:
        say(console, f"--resume: no unfinished session of this plan in {store.location}: a new session")
    if estimate:
        from .scaleout.estimate import estimate as estimated

        say(console, estimated(plan, settings.runs, store, settings.timeout_s, done).line())
    machine = Probe(probe_binary, tuple(environment.allowed_cpus()[:2])) if probe_binary else None
    return store, session.run_session(catalog, store, plan, settings, RichProgress(console), config,
                                      executor.ProcessExecutor(launcher), earlier, machine)



def _export(fmt: str, record, runs, rows, catalog: Catalog, probes=()) -> str:
    """A stored session in one of the export formats (docs/export.md)."""
    if fmt == "json":
        return export.to_json(record, runs, list(probes))
    if fmt == "csv":
        return export.to_csv(record, runs)
    if fmt == "bmf":
        return export.to_bmf(rows)
    return export.to_markdown(record, rows, catalog.benchmarks)


def _finish_session(catalog: Catalog, store: Store, outcome: session.Outcome, strict: bool,
                    exports: Sequence[tuple[Path | None, str]] = (), page: bool = False) -> int:
    """The summary, the exports, the page (`page`) and the exit status of a finished (or interrupted) session."""
    session_id = outcome.session_id
    record = store.session(session_id)
    stored = store.runs(session_id)
    rows = summarise(stored)
    print_summary(console, record, rows, catalog.benchmarks, faithful_shape=catalog.faithful_shape,
                  machine=machine_lines(record, stored, store.probes(session_id)))
    unwritten = 0
    for path, fmt in exports:
        if path:
            try:   # its folder was made before the run (_writable)
                write_whole(path, _export(fmt, record, stored, rows, catalog, store.probes(session_id)))
                say_whole(console, f"exported {path}")
            except OSError as error:   # checked before the run; the disk can still fill up since
                err_console.print(f"concbench: {path}: not written ({error.strerror or error}); the session is stored",
                                  markup=False, highlight=False)
                unwritten += 1
    say_whole(console, f"stored as session {session_id} in {store.location}")
    if page and not outcome.interrupted:
        try:
            path = _write_html(default_folder(_beside(catalog, store), session_id), catalog, record,
                               store.runs(session_id, with_samples=True), [], probes=store.probes(session_id))
            mark(path.parent, _origin(store, record))
            say_whole(console, f"HTML report: {path} (`concbench report {session_id} --open` opens it)")
        except OSError as error:
            err_console.print(f"concbench: the HTML report was not written ({error.strerror or error}); "
                              "the session is stored", markup=False, highlight=False)
            unwritten += 1
    if outcome.interrupted:
        err_console.print(f"interrupted: {len(stored)} finished runs kept in session {session_id}")
        return EXIT_INTERRUPTED
    assert outcome.result is not None   # a session not interrupted ran its plan to the end
    failures = outcome.result.failures
    if strict:
        failures += [r for r in outcome.result.runs if r.status == RunStatus.TIMEOUT
                     and r.variant.split("/")[1] not in catalog.benchmarks[r.benchmark].may_stall_models]
    if failures:
        err_console.print(f"[red]{len(failures)} failed runs:[/]")
        for run in failures:
            err_console.print(f"  {run.benchmark} {run.variant} {run.param} run {run.run_index}: "
                              f"{run.status} ({run.reason}) {run.message}", markup=False)
        return EXIT_RUN_FAILED
    return EXIT_RUN_FAILED if unwritten else EXIT_OK


# -- describe and check --------------------------------------------------------------------


@cli.command("describe")
@click.argument("language")
@click.option("--write", is_flag=True, help="Save it as impls/<language>/describe.json, the snapshot `list` shows unbuilt.")
def describe_command(language: str, write: bool) -> int:
    """What a built implementation serves, in its own words (`<exe> describe`)."""
    catalog = _catalog()
    impl = catalog.implementations.get(language)
    if impl is None:
        raise UsageError(f"unknown language '{language}' (known: {', '.join(sorted(catalog.implementations))})")
    if impl.description_source != "binary":
        raise UsageError(f"{language} is not built, or its build cannot describe itself: "
                         f"{impl.description_error or 'run `concbench build ' + language + '`'}")
    assert impl.description is not None   # described by its binary
    text = json.dumps(impl.description.raw, indent=1, ensure_ascii=False) + "\n"
    if write:
        path = describe.snapshot_path(impl.folder)
        write_whole(path, text)
        say_whole(console, f"wrote {path}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


@cli.command("check")
@click.argument("names", nargs=-1)
@_db_option("Keep the test-size session in this database, an SQLite file or a postgresql:// URL (default: "
            "$CONCBENCH_DB, else a temporary file).")
def check_command(names: tuple[str, ...], db: Path | None) -> int:
    """Conformance of implementations (languages or variants; default all installed): description,
    exit-2 refusals, and every shape at test size through the harness."""
    catalog = _catalog()
    if db:
        probe(db)
    wanted: dict[str, set[str] | None] = {}
    for name in names:
        language, _, model = name.partition("/")
        if language not in catalog.implementations:
            raise UsageError(f"unknown language or variant '{name}' (known: {', '.join(sorted(catalog.implementations))})")
        if model and (name not in catalog.variants):
            raise UsageError(f"unknown variant '{name}' (known: {', '.join(sorted(catalog.variants))})")
        if model:
            chosen = wanted.get(language) or set()
            wanted[language] = chosen | {model}
        else:
            wanted[language] = None
    if not names:
        wanted = {lang: None for lang, i in catalog.implementations.items() if not i.hidden}
    for language in list(wanted):
        found = toolchains.availability(catalog.implementations[language])
        if not found.available:
            err_console.print(f"{language}: not checked: {found.reason} ({found.install_hint})", highlight=False)
            del wanted[language]
    if not wanted:
        raise UsageError("nothing to check: no chosen implementation is installed here")
    toolchains.launcher_path(catalog.root / "build")
    unbuilt = [lang for lang in wanted if not toolchains.is_built(catalog.implementations[lang])]
    failed = _build_all(catalog, unbuilt) if unbuilt else []
    catalog = catalog.reloaded()
    rows: list[conformance.Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(db or Path(scratch) / "check.sqlite")
        for language, models in wanted.items():
            rows += _check_language(catalog, store, language, models, language in failed)
    show(console, check_table(rows))
    failing = [row for row in rows if not row.passed]
    for row in failing:
        for problem in row.problems:
            err_console.print(f"  {row.language} {row.benchmark}: {problem}", markup=False, highlight=False)
    console.print(f"conformance: {len(rows) - len(failing)} of {len(rows)} rows pass")
    return EXIT_RUN_FAILED if failing else EXIT_OK


def _check_language(catalog: Catalog, store: Store, language: str, models: set[str] | None,
                    build_failed: bool) -> list[conformance.Row]:
    launched = executor.ProcessExecutor(toolchains.launcher_path(catalog.root / "build"))
    return conformance.check_language(catalog, store, language, models, build_failed, _available(catalog),
                                      RichProgress(console), launched)


# -- report ------------------------------------------------------------------------------


@cli.command("report")
@click.argument("session_id", required=False, type=int)
@click.option("--format", "fmt", default="table", show_default=True,
              type=click.Choice(["table", "csv", "json", "markdown", "bmf"]))
@click.option("--compare", nargs=2, default=None, metavar="VARIANT VARIANT",
              help="Compare two variants of the session: ratio of medians, Welch, Mann-Whitney, z-interval.")
@click.option("--scaling", default=None, metavar="DIMENSION",
              help="Scaling tables along `cores` or any swept option (e.g. window): T, factor, efficiency.")
@click.option("--against-seq", is_flag=True, help="With --scaling: also the speedup against the fastest seq variant.")
@click.option("--html", "html_dir", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="Write a self-contained HTML report with plots into this folder.")
@click.option("--open", "open_page", is_flag=True,
              help="Open the session's HTML report in a browser (written first beside the database if it is not "
                   "there yet, or into --html DIR); where there is no browser, print its path.")
@click.option("--list", "list_sessions", is_flag=True, help="List the stored sessions.")
@click.option("--notes", is_flag=True, help="Every note on every series (failures, CV, bimodality), one line each.")
@click.option("--wide", is_flag=True, help="Every column of every table, however wide the terminal.")
@click.option("--one-part", is_flag=True,
              help="A part of a split plan (`--shard`) alone, without the other parts merged beside it.")
@_db_option()
def report_command(session_id, fmt, compare, scaling, against_seq, html_dir, open_page, list_sessions, notes, wide,
                   one_part, db) -> int:
    """Report a stored session (default: the latest); a part of a split plan with the other parts found beside
    it."""
    if html_dir is not None:
        _writable(html_dir / PAGE, "--html")
    catalog = _catalog()
    store = _open_store(catalog, db)
    if list_sessions:
        for s in store.sessions():
            console.print(f"{s.id:>4}  {s.started_at}  {s.status:<11}  {s.command}", markup=False, highlight=False)
        return EXIT_OK
    record = store.session(session_id)
    if html_dir or open_page:
        return _page(catalog, store, record, html_dir, [tuple(compare)] if compare else [], open_page)
    parts = Whole([record], 1) if one_part else whole(store, record)
    runs = runs_of(store, parts)
    rows = summarise(runs)
    if compare:
        names = {r.variant for r in runs}
        for name in compare:
            if name not in names:
                raise UsageError(f"--compare: session {record.id} has no runs of '{name}' (it has: {', '.join(sorted(names))})")
        show(console, comparison_table(pair_series(rows, *compare)), wide=wide)
        return EXIT_OK
    if scaling:
        tables = scaling_tables(rows, scaling, against_seq)
        if not tables:
            raise UsageError(f"--scaling {scaling}: session {record.id} has no series swept over '{scaling}'")
        show(console, scaling_table(tables, against_seq), wide=wide)
        return EXIT_OK
    if fmt == "table":
        print_summary(console, record, rows, catalog.benchmarks, notes=notes, wide=wide,
                      faithful_shape=catalog.faithful_shape, headings=parts.headings(),
                      machine=machine_lines(record, runs, store.probes(record.id)))
    else:   # an export is of one session, as its schema says: a part alone
        own = store.runs(record.id)
        sys.stdout.write(_export(fmt, record, own, summarise(own), catalog, store.probes(record.id)))
    return EXIT_OK


def _open_store(catalog: Catalog, db: Path | str | None) -> Store:
    target = db or _default_db(catalog)
    if not has_results(target):
        raise UsageError(f"{shown(target)}: no results yet (run `concbench run` first)")
    return Store(target)


def _write_html(out_dir: Path, catalog: Catalog, record, runs, comparisons, study=None, sections=(),
                probes=()) -> Path:
    from .report.html import write_html_report  # matplotlib loads only when a page is wanted

    # A study's published tables travel in its sections, beside ours, not again per benchmark; the machine
    # probe's readings come first.
    machine = machine_section(record, runs, list(probes))
    return write_html_report(out_dir, record, runs, catalog, comparisons=comparisons or every_pair(runs),
                             study=study, extra_sections=[*([machine] if machine else []), *sections])


def _page(catalog: Catalog, store: Store, record, html_dir: Path | None, comparisons, open_page: bool) -> int:
    """`report --html DIR` writes the page; `report --open` opens the one beside the database (writing it
    first when it is not there, or the session is still running), or the one just written."""
    path = (html_dir or default_folder(_beside(catalog, store), record.id)) / PAGE
    if html_dir or not shows(path.parent, _origin(store, record)) or record.status == "running":
        try:
            path = _write_html(path.parent, catalog, record, store.runs(record.id, with_samples=True), comparisons,
                               probes=store.probes(record.id))
            if not html_dir:
                mark(path.parent, _origin(store, record))
        except OSError as error:
            raise UsageError(f"{path}: the page cannot be written there ({error.strerror or error})") from None
        say_whole(console, f"wrote {path}")
    if open_page:
        if open_in_browser(path):
            say_whole(console, f"opened {path}")
        else:
            say_whole(console, f"no browser here: open {path} in one")
    return EXIT_OK


# -- explain ------------------------------------------------------------------------------


@cli.command("explain")
@click.argument("session_id", required=False, type=int)
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Only this benchmark (repeatable).")
@click.option("-v", "--variant", "variants", multiple=True, help="Only this language/model (repeatable).")
@click.option("--rules", "list_rules", is_flag=True, help="Print the rules and their thresholds, and stop.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output: the sweeps, their figures and findings.")
@_db_option()
def explain_command(session_id, benchmarks, variants, list_rules, as_json, db) -> int:
    """Why a series does not scale: figures and ranked findings from a stored session (default: the latest)."""
    from .analysis import explain

    if list_rules:
        show(console, rules_table(explain.RULES), note=False)
        return EXIT_OK
    catalog = _catalog()
    store = _open_store(catalog, db)
    record = store.session(session_id)
    runs = store.runs(record.id, with_samples=True)
    for flag, wanted, have in (("-b", benchmarks, {r.benchmark for r in runs}),
                               ("-v", variants, {r.variant for r in runs})):
        missing = sorted(set(wanted) - have)
        if missing:
            raise UsageError(f"{flag} {missing[0]}: session {record.id} has no runs of it (it has: {', '.join(sorted(have))})")
    runs = [r for r in runs if (not benchmarks or r.benchmark in benchmarks) and (not variants or r.variant in variants)]
    diagnoses = explain.diagnose(summarise(runs), catalog.benchmarks)
    if as_json:
        sys.stdout.write(json.dumps(explain.as_document(diagnoses), indent=1) + "\n")
        return EXIT_OK
    unobserved = sum(1 for r in runs if not r.threads and r.status in (RunStatus.OK, RunStatus.TIMEOUT))
    for d in diagnoses:
        show(console, explain_table(d), note=False)
        show(console, findings_table(d))
    say(console, EXPLAIN_NOTE)
    if unobserved:
        console.print(f"{unobserved} of {len(runs)} runs have no per-thread evidence (recorded without the "
                      "launcher's observer): the rules that need it cannot fire there", highlight=False, markup=False)
    return EXIT_OK


# -- compare ------------------------------------------------------------------------------


@cli.command("compare")
@click.argument("session_a", type=int)
@click.argument("session_b", type=int)
@click.option("--threshold", default=regression.DEFAULT_THRESHOLD, show_default=True, type=click.FloatRange(min=0),
              help="Smallest relative change called faster or slower (0.05 = 5 %).")
@click.option("--fail-on-regression", is_flag=True, help="Exit 1 when any series of B is slower than in A.")
@_db_option()
def compare_command(session_a, session_b, threshold, fail_on_regression, db) -> int:
    """Compare two sessions series by series, the run (process) as the unit: B/A and its 95 % interval."""
    catalog = _catalog()
    store = _open_store(catalog, db)
    record_a, record_b = store.session(session_a), store.session(session_b)
    for note in regression.environment_differences(record_a.environment, record_b.environment):
        err_console.print(f"[yellow]warning:[/] the sessions differ: {note}", highlight=False)
    changes = regression.compare_sessions(store.runs(session_a), store.runs(session_b), threshold)
    show(console, regression_table(changes, session_a, session_b, threshold))
    counts = {assessment: sum(c.assessment == assessment for c in changes)
              for assessment in ("slower", "faster", "unchanged", "inconclusive", "missing")}
    console.print(", ".join(f"{n} {verdict}" for verdict, n in counts.items()).replace("missing", "only in one session"))
    needed = regression.runs_for_change(changes, threshold)
    if needed is not None:
        console.print(f"a {threshold:.0%} change would need about {needed} runs per session to stand out of "
                      f"the between-run noise of the noisiest series (95 % interval, 80 % power)")
    short = [c for c in changes if c.too_short]
    if short:
        console.print(f"{len(short)} series iterate in under {regression.CLOCK_FLOOR_NS / 1e6:g} ms (marked short!): "
                      "their times are mostly clock and scheduler noise; compare a larger size", highlight=False)
        for change in short:
            benchmark = catalog.benchmarks.get(change.key[0])
            if benchmark is not None and benchmark.repeatable:
                console.print(f"  {change.label}: or batch it, --option {REPEAT}={regression.repeats_for(change)}",
                              highlight=False)
    console.print(regression.agreement(changes).line(), highlight=False)
    slower = [c for c in changes if c.assessment == "slower"]
    return EXIT_RUN_FAILED if slower and fail_on_regression else EXIT_OK


# -- studies ------------------------------------------------------------------------------


@cli.command("merge")
@click.argument("sources", nargs=-1, required=True, type=_Database())
@click.option("--into", required=True, envvar="CONCBENCH_DB", type=_Database(),
              help="The results database the sessions join: an SQLite file (created if missing) or a "
                   "postgresql:// URL (default: $CONCBENCH_DB).")
def merge_command(sources, into) -> int:
    """Join the sessions of several results databases (the parts of a sharded plan) into one, each as it was."""
    from .storing.merge import merge

    for source, old, new in merge(list(sources), into):
        where = f"session {new}" if new is not None else "already there (merged before): left as it is"
        say_whole(console, f"{shown(source)} session {old} → {shown(into)} {where}")
    return EXIT_OK


@cli.group("study")
def study_group() -> None:
    """Presets that reproduce a published experiment and lay its tables beside ours."""


@study_group.command("list")
def study_list() -> int:
    """The studies and what each reproduces."""
    for study in load_studies(_catalog().root).values():
        console.print(f"[bold]{study.id}[/]: {study.title}", highlight=False)
        console.print(f"    {study.method}", highlight=False)
    return EXIT_OK


@study_group.command("run")
@click.argument("study_id")
@click.option("--scale", default="quick", show_default=True, type=click.Choice(list(SCALES)),
              help="quick: minutes on 2 cores; paper: the source's design.")
@_db_option()
@click.option("--shard", default=None, metavar="K/N", help="Only the K-th of N disjoint parts of the study's plan.")
@click.option("--resume", is_flag=True, help="Go on with the --db's unfinished session of this plan (and part), if any.")
@_order_options
def study_run(study_id, scale, db, shard, resume, seed, no_probe, settle, memory_limit) -> int:
    """Run a study's preset as one session, then show its tables beside the published ones."""
    catalog = _catalog()
    study, planner, config = _study_planner(catalog, click.get_current_context().params)
    store, outcome = _run_session(catalog, planner, Settings(runs=study.runs[scale], seed=_seed(seed), probe=not no_probe,
                                                                 settle_s=settle, memory_limit_bytes=memory_limit),
                                  db, config,
                                  resume=resume, estimate=True)
    code = _finish_session(catalog, store, outcome, strict=False)
    rows = summarise(store.runs(outcome.session_id))
    _print_study(study, rows, _claims_context(catalog, study, scale, rows))
    return code


def _study_planner(catalog: Catalog, p: dict):
    """`study run`'s request (its parsed parameters `p`): the study, a planner and the session's config."""
    study = find_study(catalog.root, p["study_id"])
    told: set[str] = set()

    def planner(current: Catalog) -> list:
        plan, left_out = plan_study(current, study, p["scale"], _available(current), len(environment.allowed_cpus()))
        for missing in sorted(set(left_out) - told):
            err_console.print(f"{study.id}: {missing} is unavailable here and left out")
            told.add(missing)
        return plan

    config = {"study": study.id, "scale": p["scale"]}
    return study, _sharded(planner, p["shard"], config), config


def _claims_context(catalog: Catalog, study, scale: str, rows) -> ClaimsContext:
    """Where a session's claims are judged: its scale, the most cores it ran on (this machine's where it ran
    none), the variants it ran or that are built here."""
    cores = max((r.cores for r in rows), default=len(environment.allowed_cpus()))
    return ClaimsContext(study.id, scale, cores, frozenset({r.variant for r in rows} | _available(catalog)))


def _print_study(study, rows, context) -> tuple[list, list, list]:
    """The study's claims with their verdicts, then its tables beside the published ones, then how each table's
    order compares (a description, not the verdict); all three returned for the HTML page."""
    console.print(f"[bold]{study.title}[/]", highlight=False)
    console.print(f"method: {study.method}", highlight=False)
    findings = judge_claims(study.claims, rows, context)
    if findings:
        show(console, grid_table(findings_grid(study, findings)))
    grids = study_grids(study, rows)
    for grid in [*grids, *(published_grid(study, t) for t in study.published)]:
        show(console, grid_table(grid))
    console.print("[bold]order within each table[/] (a description, not the verdict: each published table laid "
                  "against ours cell by cell, each side ÷ its geometric mean over the cells both have):", highlight=False)
    verdicts = study_verdicts(study, rows)
    for verdict in verdicts:
        console.print(f"  {verdict.line}", highlight=False, markup=False)
    if not verdicts:
        console.print("  none of this study's published tables is matched cell by cell yet", highlight=False)
    return grids, verdicts, findings


@study_group.command("claims")
@click.argument("study_id")
@click.option("--format", "form", default="text", show_default=True, type=click.Choice(["text", "json"]),
              help="json: the claims under a versioned schema (concbench/schema/claims-v1.schema.json).")
def study_claims(study_id, form) -> int:
    """The source's claims and what would make each hold; runs nothing."""
    study = find_study(_catalog().root, study_id)
    if form == "json":
        click.echo(json.dumps(claims_document(study.id, study.claims), indent=2, ensure_ascii=False))
    elif study.claims:
        show(console, grid_table(claims_grid(study)))
    else:
        console.print(f"{study.id} lists no claims yet", highlight=False)
    return EXIT_OK


@study_group.command("report")
@click.argument("study_id")
@click.option("--session", "session_id", default=None, type=int, help="A session of this study (default: the latest).")
@click.option("--html", "html_dir", default=None, type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "form", default="text", show_default=True, type=click.Choice(["text", "json"]),
              help="json: the claims and their verdicts alone, under a versioned schema.")
@_db_option()
def study_report(study_id, session_id, html_dir, form, db) -> int:
    """The study's tables from its latest session, beside the published figures."""
    if form == "json" and html_dir:
        raise UsageError("--format json writes the claims alone: give --html without it")
    catalog = _catalog()
    study = find_study(catalog.root, study_id)
    store = _open_store(catalog, db)
    sessions = [s for s in store.sessions() if s.config.get("study") == study.id and s.status != "running"]
    if session_id is not None:
        sessions = [s for s in sessions if s.id == session_id]
    if not sessions:
        raise UsageError(f"no finished session of study {study.id} (run `concbench study run {study.id}` first)")
    record = sessions[-1]
    parts = whole(store, record)
    for line in parts.headings() if parts.count > 1 else []:
        say(console, line)
    runs = runs_of(store, parts, with_samples=html_dir is not None)
    rows = summarise(runs)
    context = _claims_context(catalog, study, record.config.get("scale", "quick"), rows)
    if form == "json":
        findings = judge_claims(study.claims, rows, context)
        click.echo(json.dumps(claims_document(study.id, study.claims, findings, record.id, context.scale),
                              indent=2, ensure_ascii=False))
        return EXIT_OK
    grids, verdicts, findings = _print_study(study, rows, context)
    if html_dir:
        # The claims first; the study's charts; then ours and the published tables of the same benchmark side by side.
        sections = [("the source's claims", findings_html(study, findings))] if findings else []
        sections += study_figures(study, rows)
        for benchmark in dict.fromkeys([*(g.title.split(":")[0] for g in grids), *(t.benchmark for t in study.published)]):
            sections += [(g.title, grid_html(g, caption=False)) for g in grids if g.title.split(":")[0] == benchmark]
            sections += [(grid.title, grid_html(grid, caption=False))
                         for grid in (published_grid(study, t) for t in study.published if t.benchmark == benchmark)]
        if verdicts:
            items = "".join(f"<li>{html.escape(v.line)}{verdict_figure(v, f'verdict-{n}')}</li>"
                            for n, v in enumerate(verdicts))
            sections.append(("order within each table (a description, not the verdict)", f"<ul class='verdicts'>{items}</ul>"))
        path = _write_html(html_dir, catalog, record, runs, study.compare, study, sections, store.probes(record.id))
        say_whole(console, f"wrote {path}")
    return EXIT_OK


# -- slurm --------------------------------------------------------------------------------


@cli.group("slurm")
def slurm_group() -> None:
    """A plan's parts on a Slurm cluster: a job array (a node per part), then a merge job (docs/slurm.md)."""


# What a part's command may not say: slurm submit sets it per part, or it has no meaning for one part.
_SET_PER_PART = {"shard": "--shard", "db": "--db", "resume": "--resume"}
_NOT_FOR_A_PART = {"export_json": "--export-json", "export_csv": "--export-csv", "export_bmf": "--export-bmf",
                   "page": "--page"}


def _slurm_command(catalog: Catalog, words: list[str]):
    """`run …` or `study run …`, parsed as that command parses it (bad input stops here, before anything is
    submitted): its planner and config."""
    if words[:1] == ["run"]:
        command, name, args = run_command, "concbench run", words[1:]
    elif words[:2] == ["study", "run"]:
        command, name, args = study_run, "concbench study run", words[2:]
    else:
        raise UsageError(f"slurm submit: expected `run …` or `study run …` after its own options, not {' '.join(words[:2])!r}")
    context = command.make_context(name, args)
    params = context.params
    given = {key for key in params if context.get_parameter_source(key) == click.core.ParameterSource.COMMANDLINE}
    for key, flag in _SET_PER_PART.items():
        if key in given:
            raise UsageError(f"slurm submit sets {flag} for each part itself (its own --db, before `run`, "
                             "names where the parts are merged)")
    for key, flag in _NOT_FOR_A_PART.items():
        if key in given:
            raise UsageError(f"slurm submit: {flag} is not for one part: report the merged results with `concbench report`")
    if command is run_command:
        return _run_planner(params, cores_here=False)
    return _study_planner(catalog, params)[1:]


def _this_concbench() -> list[str]:
    """This concbench by absolute path, for the batch jobs: the script beside this Python (a virtual
    environment's), else this Python with -m."""
    python = Path(os.path.abspath(sys.executable))
    script = python.parent / "concbench"
    return [str(script)] if script.is_file() else [str(python), "-m", "concbench"]


@slurm_group.command("submit", context_settings={"allow_interspersed_args": False})
@click.option("--shards", default=4, show_default=True, type=click.IntRange(min=1), help="N: the parts, a node each.")
@click.option("--partition", default=None, help="The partition to run in (default: the cluster's).")
@click.option("--time", "time_limit", default=None, help="Each job's time limit, as sbatch takes it (e.g. 4:00:00).")
@click.option("--dir", "folder", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="The job folder (default results/slurm/<plan>-N/).")
@_db_option("Where the merge job joins the parts: an SQLite file or a postgresql:// URL (default: $CONCBENCH_DB, "
            "else results/concbench.sqlite).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def slurm_submit(shards, partition, time_limit, folder, db, command) -> int:
    """Submit `run …` or `study run …` as N parts, a job array on exclusive nodes, and a merge job after them."""
    from .scaleout import slurm

    catalog = _catalog()
    planner, config = _slurm_command(catalog, list(command))
    series = series_count(planner(catalog))
    if series < shards:
        raise UsageError(f"--shards {shards}: the plan has {series} series, fewer than {shards} parts (a part runs "
                         "whole series)")
    target = db or _default_db(catalog)
    if isinstance(target, Path):
        _writable(target, "--db")
    else:
        is_server(target)   # refuses a URL of another kind than PostgreSQL's
    job = slurm.Job(
        folder=(folder or catalog.root / "results" / "slurm" / f"{config['plan']}-{shards}").absolute(),
        command=list(command), shards=shards,
        target=str(target.absolute()) if isinstance(target, Path) else target,   # a database URL goes as it is
        plan=config["plan"], concbench=_this_concbench(), root=str(catalog.root),
        partition=partition, time=time_limit,
    )
    submission = slurm.submit(job, slurm.SlurmTools())
    say(console, f"submitted {shards} shards as job array {submission.array}, their merge as job {submission.merge} "
                 f"(into {shown(job.target)})")
    say_whole(console, f"job folder: {job.folder}")
    return EXIT_OK


def _job(folder: Path | None):
    from .scaleout import slurm

    return slurm.Job.load(folder or slurm.newest_folder(_catalog().root / "results" / "slurm"))


@slurm_group.command("status")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def slurm_status(folder) -> int:
    """Each part of a submitted job (default: the newest): finished, running, pending, failed or cancelled; then
    its merge."""
    from .scaleout import slurm

    job = _job(folder)
    queue = slurm.SlurmTools().queue()
    states = slurm.shard_states(job, queue)
    merge = slurm.merge_state(job, queue)
    say(console, f"{job.folder}: {' '.join(job.command)} in {job.shards} shards")
    for state in states:
        say(console, f"  shard {state.index}/{job.shards}  {state.state:<9}  {state.detail}")
    say(console, f"  merge      {merge[0]:<9}  {merge[1]}")
    say(console, slurm.summary(states, merge))
    return EXIT_OK


@slurm_group.command("resubmit")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def slurm_resubmit(folder) -> int:
    """Submit again the parts of a job (default: the newest) that failed or were cancelled (each goes on with its
    session), and a new merge job after them."""
    from .scaleout import slurm

    job = _job(folder)
    submission = slurm.resubmit(job, slurm.SlurmTools())
    if submission.shards:
        say(console, f"resubmitted shards {','.join(map(str, submission.shards))} as job array {submission.array}, "
                     f"their merge as job {submission.merge}")
    else:
        say(console, f"every shard finished: submitted the merge again as job {submission.merge}")
    return EXIT_OK


# -- main --------------------------------------------------------------------------------


def _one_line(message: object) -> str:
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
    except Exception as error:   # noqa: BLE001 - one line and its own exit status, whatever failed
        if os.environ.get("CONCBENCH_TRACEBACK"):
            traceback.print_exc()
        err_console.print(f"concbench: failed: {type(error).__name__}: {redact(_one_line(error))} (a session it was "
                          "running is stored crashed where the database still answered; --resume goes on with it; "
                          "CONCBENCH_TRACEBACK=1 shows where)", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_HARNESS
    sys.exit(code if isinstance(code, int) else EXIT_OK)
