"""`report`, `explain`, `compare`, `merge`: reading stored sessions."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from ..analysis import regression
from ..analysis.scaling import scaling_tables
from ..analysis.summary import summarise
from ..analysis.variants import pair_series
from ..errors import UsageError
from ..report.machine import machine_lines
from ..report.page import PAGE, default_folder, mark, open_in_browser, shows
from ..report.tables import (
    EXPLAIN_NOTE,
    comparison_table,
    explain_table,
    findings_table,
    regression_table,
    rules_table,
    scaling_table,
)
from ..report.terminal import print_summary, say, say_whole, show
from ..scaleout.shards import Shards, runs_of, shards_of
from ..spec.catalog import REPEAT, Catalog
from ..storing.database import shown
from ..storing.records import RunStatus, SessionStatus
from ..storing.store import Store
from . import common
from .common import (
    EXIT_OK,
    EXIT_RUN_FAILED,
    _beside,
    _catalog,
    _Database,
    _db_option,
    _origin,
    _writable,
    cli,
    open_store,
)
from .pages import export_text, write_page


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
@click.option("--one-shard", is_flag=True,
              help="A shard of a split plan (`--shard`) alone, without the other shards merged beside it.")
@_db_option()
def report_command(**given) -> int:
    """Report a stored session (default: the latest); a shard of a split plan with the other shards found beside
    it."""
    o = ReportOptions(**given)
    if o.html_dir is not None:
        _writable(o.html_dir / PAGE, "--html")
    catalog = _catalog()
    store = open_store(catalog, o.db)
    if o.list_sessions:
        for s in store.sessions():
            common.console.print(f"{s.id:>4}  {s.started_at}  {s.status:<11}  {s.command}", markup=False, highlight=False)
        return EXIT_OK
    record = store.session(o.session_id)
    if o.html_dir or o.open_page:
        return _page(catalog, store, record, o.html_dir, [tuple(o.compare)] if o.compare else [], o.open_page)
    shards = Shards([record], 1) if o.one_shard else shards_of(store, record)
    runs = runs_of(store, shards)
    rows = summarise(runs)
    if o.compare:
        names = {r.variant for r in runs}
        for name in o.compare:
            if name not in names:
                raise UsageError(f"--compare: session {record.id} has no runs of '{name}' (it has: {', '.join(sorted(names))})")
        show(common.console, comparison_table(pair_series(rows, *o.compare)), wide=o.wide)
        return EXIT_OK
    if o.scaling:
        tables = scaling_tables(rows, o.scaling, o.against_seq)
        if not tables:
            raise UsageError(f"--scaling {o.scaling}: session {record.id} has no series swept over '{o.scaling}'")
        show(common.console, scaling_table(tables, o.against_seq), wide=o.wide)
        return EXIT_OK
    if o.fmt == "table":
        print_summary(common.console, record, rows, catalog.benchmarks, notes=o.notes, wide=o.wide,
                      faithful_shape=catalog.faithful_shape, headings=shards.headings(),
                      machine=machine_lines(record, runs, store.probes(record.id)))
    else:   # an export is of one session, as its schema says: a shard alone
        own = store.runs(record.id)
        sys.stdout.write(export_text(o.fmt, record, own, summarise(own), catalog, store.probes(record.id)))
    return EXIT_OK


@dataclass(frozen=True)
class ReportOptions:
    """`report`'s command line as click parsed it, one field per option."""

    session_id: int | None
    fmt: str
    compare: tuple[str, str] | None
    scaling: str | None
    against_seq: bool
    html_dir: Path | None
    open_page: bool
    list_sessions: bool
    notes: bool
    wide: bool
    one_shard: bool
    db: Path | str | None


def _page(catalog: Catalog, store: Store, record, html_dir: Path | None, comparisons, open_page: bool) -> int:
    """`report --html DIR` writes the page; `report --open` opens the one beside the database (writing it
    first when it is not there, or the session is still running), or the one just written."""
    path = (html_dir or default_folder(_beside(catalog, store), record.id)) / PAGE
    if html_dir or not shows(path.parent, _origin(store, record)) or record.status == SessionStatus.RUNNING:
        try:
            path = write_page(path.parent, catalog, record, store.runs(record.id, with_samples=True), comparisons,
                               probes=store.probes(record.id))
            if not html_dir:
                mark(path.parent, _origin(store, record))
        except OSError as error:
            raise UsageError(f"{path}: the page cannot be written there ({error.strerror or error})") from None
        say_whole(common.console, f"wrote {path}")
    if open_page:
        if open_in_browser(path):
            say_whole(common.console, f"opened {path}")
        else:
            say_whole(common.console, f"no browser here: open {path} in one")
    return EXIT_OK


@cli.command("explain")
@click.argument("session_id", required=False, type=int)
@click.option("-b", "--benchmark", "benchmarks", multiple=True, help="Only this benchmark (repeatable).")
@click.option("-v", "--variant", "variants", multiple=True, help="Only this language/model (repeatable).")
@click.option("--rules", "list_rules", is_flag=True, help="Print the rules and their thresholds, and stop.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output: the sweeps, their figures and findings.")
@_db_option()
def explain_command(session_id, benchmarks, variants, list_rules, as_json, db) -> int:
    """Why a series does not scale: figures and ranked findings from a stored session (default: the latest)."""
    from ..analysis import explain

    if list_rules:
        show(common.console, rules_table(explain.RULES), note=False)
        return EXIT_OK
    catalog = _catalog()
    store = open_store(catalog, db)
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
        show(common.console, explain_table(d), note=False)
        show(common.console, findings_table(d))
    say(common.console, EXPLAIN_NOTE)
    if unobserved:
        common.console.print(f"{unobserved} of {len(runs)} runs have no per-thread evidence (recorded without the "
                             "launcher's observer): the rules that need it cannot fire there", highlight=False, markup=False)
    return EXIT_OK


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
    store = open_store(catalog, db)
    record_a, record_b = store.session(session_a), store.session(session_b)
    for note in regression.environment_differences(record_a.environment, record_b.environment):
        common.err_console.print(f"[yellow]warning:[/] the sessions differ: {note}", highlight=False)
    changes = regression.compare_sessions(store.runs(session_a), store.runs(session_b), threshold)
    show(common.console, regression_table(changes, session_a, session_b, threshold))
    counts = {assessment: sum(c.assessment == assessment for c in changes)
              for assessment in ("slower", "faster", "unchanged", "inconclusive", "missing")}
    common.console.print(", ".join(f"{n} {verdict}" for verdict, n in counts.items()).replace("missing", "only in one session"))
    needed = regression.runs_for_change(changes, threshold)
    if needed is not None:
        common.console.print(f"a {threshold:.0%} change would need about {needed} runs per session to stand out of "
                             f"the between-run noise of the noisiest series (95 % interval, 80 % power)")
    short = [c for c in changes if c.too_short]
    if short:
        common.console.print(f"{len(short)} series iterate in under {regression.CLOCK_FLOOR_NS / 1e6:g} ms (marked short!): "
                             "their times are mostly clock and scheduler noise; compare a larger size", highlight=False)
        for change in short:
            benchmark = catalog.benchmarks.get(change.key[0])
            if benchmark is not None and benchmark.repeatable:
                common.console.print(f"  {change.label}: or batch it, --option {REPEAT}={regression.repeats_for(change)}",
                                     highlight=False)
    common.console.print(regression.agreement(changes).line(), highlight=False)
    slower = [c for c in changes if c.assessment == "slower"]
    return EXIT_RUN_FAILED if slower and fail_on_regression else EXIT_OK


@cli.command("merge")
@click.argument("sources", nargs=-1, required=True, type=_Database())
@click.option("--into", required=True, envvar="CONCBENCH_DB", type=_Database(),
              help="The results database the sessions join: an SQLite file (created if missing) or a "
                   "postgresql:// URL (default: $CONCBENCH_DB).")
def merge_command(sources, into) -> int:
    """Join the sessions of several results databases (the shards of a plan) into one, each as it was."""
    from ..storing.merge import merge

    for source, old, new in merge(list(sources), into):
        where = f"session {new}" if new is not None else "already there (merged before): left as it is"
        say_whole(common.console, f"{shown(source)} session {old} → {shown(into)} {where}")
    return EXIT_OK
