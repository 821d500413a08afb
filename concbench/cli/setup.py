"""`list`, `install`, `build`, `describe`, `check`: what is here, getting it built, holding it to the protocol."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import click

from ..errors import BuildError, UsageError
from ..report.tables import benchmarks_table, check_table, variants_table
from ..report.terminal import say_whole, show
from ..running import conformance, executor, toolchains
from ..running.progress import RichProgress
from ..spec import describe
from ..spec.catalog import SIZE_SETS, Catalog
from ..storing.database import probe
from ..storing.files import write_whole
from ..storing.store import Store
from . import common
from .common import EXIT_OK, EXIT_RUN_FAILED, _available, _catalog, _db_option, cli


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
        common.console.print_json(json.dumps({"benchmarks": benchmarks, "variants": variants}))
        return EXIT_OK
    show(common.console, benchmarks_table(benchmarks, SIZE_SETS))
    show(common.console, variants_table(variants))
    return EXIT_OK


@cli.command("install")
@click.option("--dry-run", is_flag=True, help="Only print the command that would install the missing toolchains.")
def install_command(dry_run: bool) -> int:
    """Install the Debian packages of unavailable toolchains (as root); else say what to run."""
    catalog = _catalog()
    impls = [i for i in catalog.implementations.values() if not i.hidden]
    packages = toolchains.missing_packages(impls)
    if not packages:
        common.console.print("every toolchain with a Debian package is installed")
        return EXIT_OK
    command = "apt-get install -y " + " ".join(packages)
    if dry_run or os.geteuid() != 0 or shutil.which("apt-get") is None:
        common.console.print(f"to install the missing toolchains, run as root: {command}", highlight=False)
        return EXIT_OK
    with common.console.status(f"installing {' '.join(packages)} ..."):
        done = toolchains.install_packages(packages)
    if done.returncode != 0:
        common.err_console.print(done.stdout + done.stderr, markup=False, highlight=False)
        common.err_console.print(f"concbench: {command} failed (exit {done.returncode}); those variants stay unavailable")
        return EXIT_RUN_FAILED
    common.console.print(f"installed {' '.join(packages)}")
    return EXIT_OK


def build_all(catalog: Catalog, languages: list[str], opts: dict[str, str] | None = None) -> list[str]:
    """Build each language; a failed build is shown and skipped. Returns the languages that failed."""
    failed = []
    for language in languages:
        impl = catalog.implementations[language]
        found = toolchains.availability(impl)
        if not found.available:
            common.err_console.print(f"skipping {language}: {found.reason} ({found.install_hint})")
            continue
        try:
            with common.console.status(f"building {language} ..."):
                record = toolchains.build(impl, catalog.root / "build", (opts or {}).get(language))
        except BuildError as error:
            common.err_console.print(error.output[-4000:], markup=False, highlight=False)
            common.err_console.print(f"[red]{error}[/]: its variants are left out", highlight=False)
            failed.append(language)
            continue
        level = f" (-{record['opt']})" if record["opt"] else ""
        say_whole(common.console, f"built {language}{level}: {impl.executable_path}")
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
    failed = build_all(catalog, languages, {"swift": swift_opt} if swift_opt else None)
    return EXIT_RUN_FAILED if failed else EXIT_OK


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
        say_whole(common.console, f"wrote {path}")
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
            common.err_console.print(f"{language}: not checked: {found.reason} ({found.install_hint})", highlight=False)
            del wanted[language]
    if not wanted:
        raise UsageError("nothing to check: no chosen implementation is installed here")
    toolchains.launcher_path(catalog.root / "build")
    unbuilt = [lang for lang in wanted if not toolchains.is_built(catalog.implementations[lang])]
    failed = build_all(catalog, unbuilt) if unbuilt else []
    catalog = catalog.reloaded()
    rows: list[conformance.Row] = []
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(db or Path(scratch) / "check.sqlite")
        for language, models in wanted.items():
            rows += _check_language(catalog, store, language, models, language in failed)
    show(common.console, check_table(rows))
    failing = [row for row in rows if not row.passed]
    for row in failing:
        for problem in row.problems:
            common.err_console.print(f"  {row.language} {row.benchmark}: {problem}", markup=False, highlight=False)
    common.console.print(f"conformance: {len(rows) - len(failing)} of {len(rows)} rows pass")
    return EXIT_RUN_FAILED if failing else EXIT_OK


def _check_language(catalog: Catalog, store: Store, language: str, models: set[str] | None,
                    build_failed: bool) -> list[conformance.Row]:
    launched = executor.ProcessExecutor(toolchains.launcher_path(catalog.root / "build"))
    return conformance.check_language(catalog, store, language, models, build_failed, _available(catalog),
                                      RichProgress(common.console), launched)
