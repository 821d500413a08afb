"""`study list/run/claims/report/compare`: a published experiment rerun and laid beside its source."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path

import click

from ..analysis.claim_verdicts import Context as ClaimsContext
from ..analysis.claim_verdicts import agreement, claims_document, judge_claims
from ..analysis.summary import summarise
from ..analysis.verdict import figure as verdict_figure
from ..analysis.verdict import study_verdicts
from ..errors import UsageError
from ..report.study import (
    claims_grid,
    findings_grid,
    findings_html,
    grid_html,
    published_grid,
    rerun_grid,
    study_figures,
    study_grids,
)
from ..report.tables import grid_table
from ..report.terminal import say, say_whole, show
from ..running import environment
from ..scaleout.shards import runs_of, shards_of
from ..spec.catalog import Catalog
from ..spec.studies import (
    SCALES,
    STUDY_FILE,
    PlannedClaims,
    claims_as_planned,
    find_study,
    load_studies,
    plan_study,
    study_path,
)
from ..storing.records import SessionStatus
from . import common
from .common import EXIT_OK, SessionOptions, _available, _catalog, _db_option, _order_options, cli, open_store
from .pages import write_page
from .runs import Sharded, finish_session, run_session


@cli.group("study")
def study_group() -> None:
    """Presets that reproduce a published experiment and lay its tables beside ours."""


@study_group.command("list")
def study_list() -> int:
    """The studies and what each reproduces."""
    for study in load_studies(_catalog().root).values():
        common.console.print(f"[bold]{study.id}[/]: {study.title}", highlight=False)
        common.console.print(f"    {study.method}", highlight=False)
    return EXIT_OK


@study_group.command("run")
@click.argument("study_id")
@click.option("--scale", default="quick", show_default=True, type=click.Choice(list(SCALES)),
              help="quick: minutes on 2 cores; paper: the source's design.")
@_db_option()
@click.option("--shard", default=None, metavar="K/N", help="Only the K-th of N disjoint shards of the study's plan.")
@click.option("--resume", is_flag=True, help="Go on with the --db's unfinished session of this plan (and shard), if any.")
@_order_options
def study_run(**given) -> int:
    """Run a study's preset as one session, then show its tables beside the published ones."""
    o = StudyRunOptions(**given)
    catalog = _catalog()
    study, planner, config = study_planner(catalog, o)
    store, outcome = run_session(catalog, planner, o.settings(study.runs[o.scale]), o.db, config, resume=o.resume,
                                 estimate=True)
    code = finish_session(catalog, store, outcome, strict=False)
    rows = summarise(store.runs(outcome.session_id))
    _print_study(study, study.claims, rows, _claims_context(catalog, study, o.scale, rows))
    return code


@dataclass(frozen=True, kw_only=True)
class StudyRunOptions(SessionOptions):
    """`study run`'s command line as click parsed it (`slurm submit` parses a `study run …` the same way)."""

    study_id: str
    scale: str


def study_planner(catalog: Catalog, o: StudyRunOptions):
    """`study run`'s request: the study, a planner and the session's config."""
    study = find_study(catalog.root, o.study_id)
    told: set[str] = set()

    def planner(current: Catalog) -> list:
        plan, left_out = plan_study(current, study, o.scale, _available(current), len(environment.allowed_cpus()))
        for missing in sorted(set(left_out) - told):
            common.err_console.print(f"{study.id}: {missing} is unavailable here and left out")
            told.add(missing)
        return plan

    # The file's text as planned: the session's verdicts are judged by these claims, whatever the file says later.
    text = study_path(catalog.root, study.id).read_text(encoding="utf-8")
    config = {"study": study.id, "scale": o.scale, STUDY_FILE: text}
    return study, Sharded(planner, o.shard), config


def _claims_context(catalog: Catalog, study, scale: str, rows) -> ClaimsContext:
    """Where a session's claims are judged: its scale, the most cores it ran on (this machine's where it ran
    none), the variants it ran or that are built here."""
    cores = max((r.cores for r in rows), default=len(environment.allowed_cpus()))
    return ClaimsContext(study.id, scale, cores, frozenset({r.variant for r in rows} | _available(catalog)))


def _print_study(study, claims, rows, context) -> tuple[list, list, list]:
    """The study's claims with their verdicts, then its tables beside the published ones, then how each table's
    order compares (a description, not the verdict); all three returned for the HTML page."""
    common.console.print(f"[bold]{study.title}[/]", highlight=False)
    common.console.print(f"method: {study.method}", highlight=False)
    findings = judge_claims(claims, rows, context)
    if findings:
        show(common.console, grid_table(findings_grid(study, findings)))
    grids = study_grids(study, rows)
    for grid in [*grids, *(published_grid(study, t) for t in study.published)]:
        show(common.console, grid_table(grid))
    common.console.print("[bold]order within each table[/] (a description, not the verdict: each published table laid "
                         "against ours cell by cell, each side ÷ its geometric mean over the cells both have):", highlight=False)
    verdicts = study_verdicts(study, rows)
    for verdict in verdicts:
        common.console.print(f"  {verdict.line}", highlight=False, markup=False)
    if not verdicts:
        common.console.print("  none of this study's published tables is matched cell by cell yet", highlight=False)
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
        show(common.console, grid_table(claims_grid(study)))
    else:
        common.console.print(f"{study.id} lists no claims yet", highlight=False)
    return EXIT_OK


@study_group.command("report")
@click.argument("study_id")
@click.option("--session", "session_id", default=None, type=int, help="A session of this study (default: the latest).")
@click.option("--html", "html_dir", default=None, type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "form", default="text", show_default=True, type=click.Choice(["text", "json"]),
              help="json: the claims and their verdicts alone, under a versioned schema.")
@click.option("--claims", "which", default="planned", show_default=True, type=click.Choice(["planned", "current"]),
              help="planned: the claims as the session's study file had them when it was planned; current: "
                   "today's study file.")
@_db_option()
def study_report(study_id, session_id, html_dir, form, which, db) -> int:
    """The study's tables from its latest session, beside the published figures."""
    if form == "json" and html_dir:
        raise UsageError("--format json writes the claims alone: give --html without it")
    catalog = _catalog()
    study = find_study(catalog.root, study_id)
    store = open_store(catalog, db)
    record = _session_of(store, study, session_id)
    shards = shards_of(store, record)
    for line in shards.headings() if shards.count > 1 else []:
        say(common.console, line)
    runs = runs_of(store, shards, with_samples=html_dir is not None)
    rows = summarise(runs)
    context, claims = _judging(catalog, study, record, rows, which == "planned")
    if form == "json":
        findings = judge_claims(claims.claims, rows, context)
        click.echo(json.dumps(claims_document(study.id, claims.claims, findings, record.id, context.scale,
                                              _judged_by(claims)), indent=2, ensure_ascii=False))
        return EXIT_OK
    line = _claims_line(record.id, claims)
    if line:
        say(common.console, line)
    grids, verdicts, findings = _print_study(study, claims.claims, rows, context)
    if html_dir:
        # The claims first; the study's charts; then ours and the published tables of the same benchmark side by side.
        note = f"<p class='note'>{html.escape(line)}</p>" if line else ""
        sections = [("the source's claims", note + findings_html(study, findings))] if findings else []
        sections += study_figures(study, rows)
        for benchmark in dict.fromkeys([*(g.title.split(":")[0] for g in grids), *(t.benchmark for t in study.published)]):
            sections += [(g.title, grid_html(g, caption=False)) for g in grids if g.title.split(":")[0] == benchmark]
            sections += [(grid.title, grid_html(grid, caption=False))
                         for grid in (published_grid(study, t) for t in study.published if t.benchmark == benchmark)]
        if verdicts:
            items = "".join(f"<li>{html.escape(v.line)}{verdict_figure(v, f'verdict-{n}')}</li>"
                            for n, v in enumerate(verdicts))
            sections.append(("order within each table (a description, not the verdict)", f"<ul class='verdicts'>{items}</ul>"))
        path = write_page(html_dir, catalog, record, runs, study.compare, study, sections, store.probes(record.id))
        say_whole(common.console, f"wrote {path}")
    return EXIT_OK


def _judging(catalog: Catalog, study, record, rows, planned: bool) -> tuple[ClaimsContext, PlannedClaims]:
    """What a stored session's claims are judged with: the context of its scale and these rows, and the claims it
    was planned with (`planned`) or today's file's."""
    return (_claims_context(catalog, study, record.config.get("scale", "quick"), rows),
            claims_as_planned(catalog.root, study, record.config, planned))


def _session_of(store, study, session_id: int | None):
    """The study's session `session_id`, or its latest; a usage error where there is none finished."""
    sessions = [s for s in store.sessions() if s.config.get("study") == study.id and s.status != SessionStatus.RUNNING]
    if session_id is not None:
        sessions = [s for s in sessions if s.id == session_id]
        if not sessions:
            raise UsageError(f"session {session_id} is not a finished session of study {study.id}")
    if not sessions:
        raise UsageError(f"no finished session of study {study.id} (run `concbench study run {study.id}` first)")
    return sessions[-1]


@study_group.command("compare")
@click.argument("study_id")
@click.argument("session_a", type=int)
@click.argument("session_b", type=int)
@click.option("--claims", "which", default="planned", show_default=True, type=click.Choice(["planned", "current"]),
              help="planned: each session judged by the claims it was planned with; current: both by today's file.")
@_db_option()
def study_compare(study_id, session_a, session_b, which, db) -> int:
    """Two sessions of a study, claim by claim: each one's verdict, and whether the rerun agrees. (Sessions
    from two databases: `concbench merge` them into one first.)"""
    catalog = _catalog()
    study = find_study(catalog.root, study_id)
    store = open_store(catalog, db)
    judged = []
    for session_id in (session_a, session_b):
        record = _session_of(store, study, session_id)
        rows = summarise(runs_of(store, shards_of(store, record)))
        context, claims = _judging(catalog, study, record, rows, which == "planned")
        line = _claims_line(record.id, claims)
        if line:
            say(common.console, line)
        judged.append(judge_claims(claims.claims, rows, context))
    first, second = judged
    agreed = agreement(first, second)
    show(common.console, grid_table(rerun_grid(study, (session_a, session_b), first, second, agreed.moved)))
    say(common.console, agreed.line)
    return EXIT_OK


def _judged_by(claims: PlannedClaims) -> dict:
    """Which claims judged the session, as `--format json` says it."""
    return {"claims": "planned" if claims.planned else "current", "changed": list(claims.changed),
            **({"note": claims.note} if claims.note else {})}


def _claims_line(session_id: int, claims: PlannedClaims) -> str:
    """What the report says of the claims it judges by, where that is not simply the session's own and today's."""
    if claims.note:
        return f"claims judged by today's study file: {claims.note}"
    if not claims.changed:
        return ""
    changed = ", ".join(claims.changed)
    if claims.planned:
        return (f"claims judged as session {session_id} was planned with them; the study file has changed since for "
                f"{changed} (--claims current judges by today's)")
    return f"claims judged by today's study file; session {session_id} was planned with other versions of {changed}"
