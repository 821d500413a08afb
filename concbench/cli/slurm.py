"""`slurm submit/status/resubmit`: a plan's shards as a Slurm job array."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..errors import UsageError
from ..report.terminal import say, say_whole
from ..running.plan import series_count
from ..spec.catalog import Catalog
from ..storing.database import is_server, shown
from . import common
from .common import EXIT_OK, _catalog, _db_option, _default_db, _writable, cli
from .runs import RunOptions, run_command, run_planner
from .studies import StudyRunOptions, study_planner, study_run


@cli.group("slurm")
def slurm_group() -> None:
    """A plan's shards on a Slurm cluster: a job array (a node per shard), then a merge job (docs/slurm.md)."""


# What a shard's command may not say: slurm submit sets it per shard, or it has no meaning for one shard.
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
            raise UsageError(f"slurm submit sets {flag} for each shard itself (its own --db, before `run`, "
                             "names where the shards are merged)")
    for key, flag in _NOT_FOR_A_PART.items():
        if key in given:
            raise UsageError(f"slurm submit: {flag} is not for one shard: report the merged results with `concbench report`")
    if command is run_command:
        return run_planner(RunOptions(**params), cores_here=False)
    return study_planner(catalog, StudyRunOptions(**params))[1:]


def _this_concbench() -> list[str]:
    """This concbench by absolute path, for the batch jobs: the script beside this Python (a virtual
    environment's), else this Python with -m."""
    python = Path(os.path.abspath(sys.executable))
    script = python.parent / "concbench"
    return [str(script)] if script.is_file() else [str(python), "-m", "concbench"]


@slurm_group.command("submit", context_settings={"allow_interspersed_args": False})
@click.option("--shards", default=4, show_default=True, type=click.IntRange(min=1), help="N: the shards, a node each.")
@click.option("--partition", default=None, help="The partition to run in (default: the cluster's).")
@click.option("--time", "time_limit", default=None, help="Each job's time limit, as sbatch takes it (e.g. 4:00:00).")
@click.option("--dir", "folder", default=None, type=click.Path(file_okay=False, path_type=Path),
              help="The job folder (default results/slurm/<plan>-N/).")
@_db_option("Where the merge job joins the shards: an SQLite file or a postgresql:// URL (default: $CONCBENCH_DB, "
            "else results/concbench.sqlite).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def slurm_submit(shards, partition, time_limit, folder, db, command) -> int:
    """Submit `run …` or `study run …` as N shards, a job array on exclusive nodes, and a merge job after them."""
    from ..scaleout import slurm

    catalog = _catalog()
    planner, _ = _slurm_command(catalog, list(command))
    series = series_count(planner(catalog))
    plan = planner.notes["plan"]   # the whole plan's identity, noted as it was made
    if series < shards:
        raise UsageError(f"--shards {shards}: the plan has {series} series, fewer than {shards} shards (a shard runs "
                         "whole series)")
    target = db or _default_db(catalog)
    if isinstance(target, Path):
        _writable(target, "--db")
    else:
        is_server(target)   # refuses a URL of another kind than PostgreSQL's
    job = slurm.Job(
        folder=(folder or catalog.root / "results" / "slurm" / f"{plan}-{shards}").absolute(),
        command=list(command), shards=shards,
        target=str(target.absolute()) if isinstance(target, Path) else target,   # a database URL goes as it is
        plan=plan, concbench=_this_concbench(), root=str(catalog.root),
        partition=partition, time=time_limit,
    )
    submission = slurm.submit(job, slurm.SlurmTools())
    say(common.console, f"submitted {shards} shards as job array {submission.array}, their merge as job {submission.merge} "
                        f"(into {shown(job.target)})")
    say_whole(common.console, f"job folder: {job.folder}")
    return EXIT_OK


def _job(folder: Path | None):
    from ..scaleout import slurm

    return slurm.Job.load(folder or slurm.newest_folder(_catalog().root / "results" / "slurm"))


@slurm_group.command("status")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def slurm_status(folder) -> int:
    """Each shard of a submitted job (default: the newest): finished, running, pending, failed or cancelled; then
    its merge."""
    from ..scaleout import slurm

    job = _job(folder)
    queue = slurm.SlurmTools().queue()
    states = slurm.shard_states(job, queue)
    merge = slurm.merge_state(job, queue)
    say(common.console, f"{job.folder}: {' '.join(job.command)} in {job.shards} shards")
    for state in states:
        say(common.console, f"  shard {state.index}/{job.shards}  {state.state:<9}  {state.detail}")
    say(common.console, f"  merge      {merge[0]:<9}  {merge[1]}")
    say(common.console, slurm.summary(states, merge))
    return EXIT_OK


@slurm_group.command("resubmit")
@click.argument("folder", required=False, type=click.Path(file_okay=False, path_type=Path))
def slurm_resubmit(folder) -> int:
    """Submit again the shards of a job (default: the newest) that failed or were cancelled (each goes on with its
    session), and a new merge job after them."""
    from ..scaleout import slurm

    job = _job(folder)
    submission = slurm.resubmit(job, slurm.SlurmTools())
    if submission.shards:
        say(common.console, f"resubmitted shards {','.join(map(str, submission.shards))} as job array {submission.array}, "
                            f"their merge as job {submission.merge}")
    else:
        say(common.console, f"every shard finished: submitted the merge again as job {submission.merge}")
    return EXIT_OK
