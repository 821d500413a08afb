"""What every command shares: the top-level group, the consoles, the database option, the checks of common flags."""

from __future__ import annotations

import re
import secrets
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import UsageError
from ..report.terminal import make_console
from ..running import cgroups, toolchains
from ..running.plan import parse_values
from ..running.session import Settings
from ..spec.catalog import Catalog, load_catalog
from ..storing.database import folder_name, has_results, shown
from ..storing.store import Store

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


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """What every command that runs a session takes, as click parsed it: where it is stored, which shard of its
    plan, and how its runs are ordered and guarded (_order_options)."""

    db: Path | str | None
    shard: str | None
    resume: bool
    seed: int | None
    no_probe: bool
    settle: float
    memory_limit: int | None

    def settings(self, runs: int, timeout_s: float | None = None) -> Settings:
        return Settings(runs=runs, timeout_s=timeout_s, seed=_seed(self.seed), probe=not self.no_probe,
                        settle_s=self.settle, memory_limit_bytes=self.memory_limit)


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


def open_store(catalog: Catalog, db: Path | str | None) -> Store:
    target = db or _default_db(catalog)
    if not has_results(target):
        raise UsageError(f"{shown(target)}: no results yet (run `concbench run` first)")
    return Store(target)
