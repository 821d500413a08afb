"""The store: sessions, runs, iterations, samples, metrics, in an SQLite file or a PostgreSQL database (one schema,
one set of migrations; database.py holds what differs). Each run commits when it ends."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeGuard, get_args, get_origin, get_type_hints

from ..errors import UsageError
from .database import Dialect, Target, connect, is_server, redact, shown
from .records import (
    IterationRecord,
    ProbeRecord,
    RunRecord,
    SampleRecord,
    SessionRecord,
    SessionStatus,
    ThreadRecord,
    WaitRecord,
    field_names,
)

SCHEMA_VERSION = 5

# {id}, {int} and {real} are the dialect's words (database.Dialect); in SQLite they read as they always did.
_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    {id},
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,               -- running | finished | interrupted | refused | crashed
    command TEXT NOT NULL,
    git_commit TEXT,
    environment_json TEXT NOT NULL,
    config_json TEXT NOT NULL
);
{runs}
CREATE TABLE IF NOT EXISTS iterations (
    run_id {int} NOT NULL REFERENCES runs(id),
    idx {int} NOT NULL,
    ns {int} NOT NULL,
    result TEXT NOT NULL,
    verdict TEXT NOT NULL,
    warmup INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
);
{samples}
{probes}
{threads}
{waits}
CREATE TABLE IF NOT EXISTS metrics (
    run_id {int} NOT NULL REFERENCES runs(id),
    name TEXT NOT NULL,
    value {real} NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id);
CREATE INDEX IF NOT EXISTS samples_by_run ON samples(run_id);
CREATE INDEX IF NOT EXISTS threads_by_run ON threads(run_id);
CREATE INDEX IF NOT EXISTS waits_by_run ON waits(run_id);
CREATE INDEX IF NOT EXISTS probes_by_session ON probes(session_id);
"""

# The record types declare the tables of runs, samples and threads: one column per field, in field order,
# typed from its annotation (`X | None` may be NULL); a run's dicts and lists of plain values are JSON in
# `<name>_json`, its lists of records are rows of their own tables. A field added to a record is a column,
# which a database of an older schema gets from a migration (the test of migration stores a full run).
_JSON_FIELDS = ("options", "argv", "hello")
_CHILD_FIELDS = ("iterations", "metrics", "samples", "threads", "waits")


def _columns(record: type, leave_out: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(name for name in field_names(record) if name not in leave_out)


def _base_type(annotation) -> type:
    """The type a field holds, Optional taken off and a generic reduced to its class (`list[str]` → list)."""
    kind = next(a for a in (*get_args(annotation), annotation) if a is not type(None))
    return get_origin(kind) or kind


def _sql_type(annotation, dialect: Dialect) -> str:
    """`INTEGER NOT NULL`, `TEXT` ...: a StrEnum is stored as its text, a bool as 0 or 1, an Optional may be NULL."""
    kind = _base_type(annotation)
    words = {int: dialect.integer, bool: "INTEGER", float: dialect.real, str: "TEXT"}
    base = "TEXT" if kind in (dict, list) or issubclass(kind, StrEnum) else words[kind]
    return base if type(None) in get_args(annotation) else f"{base} NOT NULL"


def _table(name: str, record: type, head: list[str], columns: tuple[str, ...], dialect: Dialect) -> str:
    hints = get_type_hints(record)
    body = [*head, *(f"{c} {_sql_type(hints[c], dialect)}" for c in columns)]
    return f"CREATE TABLE IF NOT EXISTS {name} (\n    " + ",\n    ".join(body) + "\n);"


def _to_sql(value):
    return str(value) if isinstance(value, StrEnum) else int(value) if isinstance(value, bool) else value


def _from_sql(annotation, value):
    """A column's value as its field's type: the enum member of a text, the bool of an integer."""
    if value is None:
        return None
    kind = _base_type(annotation)
    return kind(value) if kind is bool or issubclass(kind, StrEnum) else value


_RUN_COLUMNS = _columns(RunRecord, ("id", *_JSON_FIELDS, *_CHILD_FIELDS))
_RUN_TYPES = get_type_hints(RunRecord)
_SAMPLE_COLUMNS = _columns(SampleRecord)
_THREAD_COLUMNS = _columns(ThreadRecord)
_WAIT_COLUMNS = _columns(WaitRecord)
_PROBE_COLUMNS = _columns(ProbeRecord)
_PROBE_TYPES = get_type_hints(ProbeRecord)
# A run's lists of records, each a table of its own named as the run's field: the record, its columns, and the
# order rows are read back in ({written}: the order they were written).
_RECORD_TABLES = {
    "samples": (SampleRecord, _SAMPLE_COLUMNS, "t_ns"),
    "threads": (ThreadRecord, _THREAD_COLUMNS, "{written}"),
    "waits": (WaitRecord, _WAIT_COLUMNS, "count DESC, {written}"),
}


def table_statements(dialect: Dialect) -> list[str]:
    """The statements that create every table and index in a dialect (each IF NOT EXISTS)."""
    run_ref = f"run_id {dialect.integer} NOT NULL REFERENCES runs(id)"
    # Threads and waits are read back in the order they were written: where the database does not keep that
    # order itself, a column numbers the rows.
    ordered = [run_ref, *([dialect.order_column] if dialect.order_column else [])]
    runs_head = [dialect.id_column, f"session_id {dialect.integer} NOT NULL REFERENCES sessions(id)",
                 *(f"{name}_json TEXT" + ("" if name == "hello" else " NOT NULL") for name in _JSON_FIELDS)]
    script = _TABLES.format(
        id=dialect.id_column, int=dialect.integer, real=dialect.real,
        runs=_table("runs", RunRecord, runs_head, _RUN_COLUMNS, dialect),
        samples=_table("samples", SampleRecord, [run_ref], _SAMPLE_COLUMNS, dialect),
        threads=_table("threads", ThreadRecord, ordered, _THREAD_COLUMNS, dialect),
        waits=_table("waits", WaitRecord, ordered, _WAIT_COLUMNS, dialect),
        probes=_table("probes", ProbeRecord, [f"session_id {dialect.integer} NOT NULL REFERENCES sessions(id)"],
                      _PROBE_COLUMNS, dialect),
    )
    return [statement.strip() for statement in script.split(";") if statement.strip()]


# Schema 1 → 2 keeps every stored run: the observer's columns are added, empty for old runs. (What schema 2
# added, written out: a migration stays as it was when later schemas add more.) {int} is the dialect's integer,
# so that one migration serves both databases.
MIGRATIONS = {
    1: [*(f"ALTER TABLE runs ADD COLUMN {c} {{int}}"
          for c in ("run_delay_ns", "observer_cpu_ns", "harness_cpu_ns", "threads_untracked")),
        *(f"ALTER TABLE samples ADD COLUMN {c} {{int}}"
          for c in ("running", "sleeping", "blocked", "busy", "run_delay_ns", "voluntary", "involuntary"))],
    # Schema 2 → 3: where the observer ran, how well it covered the run, what sleepers waited in (the
    # waits table is new: the schema creates it).
    2: ["ALTER TABLE runs ADD COLUMN observer_cpus TEXT",
        *(f"ALTER TABLE runs ADD COLUMN {c} {{int}}"
          for c in ("observer_samples", "observer_interval_max_ns", "wait_looks"))],
    # Schema 3 → 4: the hardware counters (instructions and cycles), or why there were none.
    3: [*(f"ALTER TABLE runs ADD COLUMN {c} {{int}}" for c in ("instructions", "cycles")),
        "ALTER TABLE runs ADD COLUMN counters_missing TEXT"],
    # Schema 4 → 5: the machine probe's judgement of each run (the probes table is new: the schema creates it).
    # Runs stored before it were never judged: attempt 0, disturbed NULL.
    4: ["ALTER TABLE runs ADD COLUMN attempt {int} NOT NULL DEFAULT 0",
        *(f"ALTER TABLE runs ADD COLUMN {c} {{int}}" for c in ("started_at_ns", "disturbed")),
        "ALTER TABLE runs ADD COLUMN probe_ratio {real}"],
}


def _migratable(version: str) -> bool:
    return version.isdigit() and int(version) in MIGRATIONS


def _settled(version: str | None) -> TypeGuard[str]:
    """A version that set-up leaves as it is: the current one, or one no migration leads from (refused whole)."""
    return version is not None and (version == str(SCHEMA_VERSION) or not _migratable(version))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Store:
    """One results database, an SQLite file or a PostgreSQL database (`target`: a path, or a postgresql:// URL).
    Several writers may share one: each opens its own Store, and each run commits alone."""

    def __init__(self, target: Target) -> None:
        server = is_server(target)   # any other URL is refused here, before a file or folder is made
        self.path = None if server else Path(target)   # the SQLite file, where there is one
        self.location = shown(target)                   # how messages name it: never a password
        self.db = connect(target)
        try:
            stored = self._set_up()
        except self.db.errors as error:
            raise UsageError(f"{self.location}: {self.db.broken} ({error})") from error
        # A database written by another schema would be misread row by row: refuse it whole.
        if stored != str(SCHEMA_VERSION):
            raise UsageError(f"{self.location}: written with results schema {stored}, this concbench reads "
                             f"{SCHEMA_VERSION}; use a concbench of that version or another --db")
        lacking = [c for c in _RUN_COLUMNS if c not in self.db.columns("runs")]
        if lacking:   # the same version number, other columns: a development build wrote it
            raise UsageError(f"{self.location}: its runs table lacks {', '.join(lacking)} of results schema "
                             f"{SCHEMA_VERSION} (written by a development version); use another --db")

    def _stored_version(self) -> str | None:
        if not self.db.has_table("meta"):
            return None
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return None if row is None else row[0]

    def _set_up(self) -> str:
        """Creates the tables of a new database, or brings an older one up to SCHEMA_VERSION, in one transaction
        that writers starting at once take in turn; returns the version found. A current one is left untouched,
        so that opening a store to read it writes nothing."""
        version = self._stored_version()
        if _settled(version):
            return version
        with self.db.transaction():
            self.db.lock_schema()
            found = version = self._stored_version()   # another writer may have set it up meanwhile
            if _settled(found):
                return found
            while version is not None and _migratable(version):
                for statement in MIGRATIONS[int(version)]:
                    self.db.execute(statement.format(int=self.db.dialect.integer, real=self.db.dialect.real))
                version = str(int(version) + 1)
            for statement in table_statements(self.db.dialect):   # a new database's tables, or those a migration lacks
                self.db.execute(statement)
            if found is None:
                self.db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                return str(SCHEMA_VERSION)
            assert version is not None   # it was found, and migrations only count it up
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
            return version

    def close(self) -> None:
        self.db.close()

    # -- writing -------------------------------------------------------------------------

    def start_session(self, command: str, git_commit: str | None, environment: dict, config: dict) -> int:
        """A new session, `running`; its command line is kept without the password of a --db URL in it."""
        return self.db.insert(
            "INSERT INTO sessions (started_at, status, command, git_commit, environment_json, config_json)"
            " VALUES (?, 'running', ?, ?, ?, ?)",
            (_now(), redact(command), git_commit, json.dumps(environment), json.dumps(config)),
        )

    def copy_session(self, session: SessionRecord) -> int:
        """A session of another store, as it was (its times, status, command, machine and config), under a new
        id here; its runs follow with record_run."""
        return self.db.insert(
            "INSERT INTO sessions (started_at, ended_at, status, command, git_commit, environment_json, config_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session.started_at, session.ended_at, str(session.status), session.command, session.git_commit,
             json.dumps(session.environment), json.dumps(session.config)),
        )

    def copy_whole(self, session: SessionRecord, runs: list[RunRecord], probes: list[ProbeRecord]) -> int:
        """A session of another store with its runs and probe readings, in one transaction: all of it or,
        killed or failing half-way, none (a merge run again finds nothing of it)."""
        with self.db.transaction():
            new_id = self.copy_session(session)
            for run in runs:
                self.record_run(new_id, run)
            for reading in probes:
                self.record_probe(new_id, reading)
        return new_id

    def end_session(self, session_id: int, status: SessionStatus) -> None:
        self.db.execute("UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?",
                        (_now(), str(status), session_id))

    def record_run(self, session_id: int, run: RunRecord) -> int:
        """Store one finished run with its iterations, samples and metrics in one transaction; its id here (the
        run's own `id`, another store's or none, is not read)."""
        values = [_to_sql(getattr(run, c)) for c in _RUN_COLUMNS]
        with self.db.transaction():
            run_id = self.db.insert(
                f"INSERT INTO runs (session_id, options_json, argv_json, hello_json, {', '.join(_RUN_COLUMNS)})"
                f" VALUES (?, ?, ?, ?, {', '.join('?' * len(_RUN_COLUMNS))})",
                [session_id, json.dumps(run.options, sort_keys=True), json.dumps(run.argv),
                 None if run.hello is None else json.dumps(run.hello), *values],
            )
            self.db.executemany(
                "INSERT INTO iterations VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, it.index, it.ns, it.result, _to_sql(it.verdict), int(it.warmup)) for it in run.iterations],
            )
            for table, (_, columns, _) in _RECORD_TABLES.items():
                self.db.executemany(
                    f"INSERT INTO {table} (run_id, {', '.join(columns)}) VALUES (?{', ?' * len(columns)})",
                    [(run_id, *(getattr(row, c) for c in columns)) for row in getattr(run, table)],
                )
            self.db.executemany(
                "INSERT INTO metrics VALUES (?, ?, ?)", [(run_id, k, v) for k, v in run.metrics.items()]
            )
        return run_id

    def update_verification(self, run: RunRecord) -> None:
        """After the session's cross-check: new verdicts and, where they changed it, the run's status."""
        with self.db.transaction():
            self.db.execute("UPDATE runs SET status = ?, reason = ?, message = ? WHERE id = ?",
                            (str(run.status), None if run.reason is None else str(run.reason), run.message, run.id))
            self.db.executemany("UPDATE iterations SET verdict = ? WHERE run_id = ? AND idx = ?",
                                [(_to_sql(it.verdict), run.id, it.index) for it in run.iterations])

    def update_probe(self, run: RunRecord) -> None:
        """The machine probe's judgement of a stored run, made at the reading after it."""
        with self.db.transaction():
            self.db.execute("UPDATE runs SET disturbed = ?, probe_ratio = ? WHERE id = ?",
                            (_to_sql(run.disturbed), run.probe_ratio, run.id))

    def record_probe(self, session_id: int, reading: ProbeRecord) -> None:
        values = [_to_sql(getattr(reading, c)) for c in _PROBE_COLUMNS]
        with self.db.transaction():
            self.db.execute(f"INSERT INTO probes (session_id, {', '.join(_PROBE_COLUMNS)})"
                            f" VALUES (?{', ?' * len(_PROBE_COLUMNS)})", [session_id, *values])

    # -- reading -------------------------------------------------------------------------

    def probes(self, session_id: int) -> list[ProbeRecord]:
        """The machine probe's readings of a session, in the order taken."""
        rows = self.db.execute(f"SELECT {', '.join(_PROBE_COLUMNS)} FROM probes WHERE session_id = ? ORDER BY at_ns",
                               (session_id,))
        return [ProbeRecord(**{c: _from_sql(_PROBE_TYPES[c], v) for c, v in zip(_PROBE_COLUMNS, row)}) for row in rows]

    def _session(self, row) -> SessionRecord:
        return SessionRecord(row[0], row[1], row[2], SessionStatus(row[3]), row[4], row[5], json.loads(row[6]),
                             json.loads(row[7]))

    def sessions(self) -> list[SessionRecord]:
        rows = self.db.execute(
            "SELECT id, started_at, ended_at, status, command, git_commit, environment_json, config_json"
            " FROM sessions ORDER BY id"
        )
        return [self._session(r) for r in rows]

    def session(self, session_id: int | None = None) -> SessionRecord:
        """One session by id, or the latest one."""
        query = (
            "SELECT id, started_at, ended_at, status, command, git_commit, environment_json, config_json FROM sessions"
        )
        if session_id is None:
            row = self.db.execute(query + " ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                raise UsageError(f"{self.location}: no sessions yet (run `concbench run` first)")
        else:
            row = self.db.execute(query + " WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise UsageError(f"{self.location}: no session {session_id} (see `concbench report --list`)")
        return self._session(row)

    def runs(self, session_id: int, with_samples: bool = False) -> list[RunRecord]:
        cursor = self.db.execute(
            f"SELECT id, options_json, argv_json, hello_json, {', '.join(_RUN_COLUMNS)}"
            " FROM runs WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        runs = []
        for row in cursor.fetchall():
            run_id: int = row[0]
            fields = {c: _from_sql(_RUN_TYPES[c], v) for c, v in zip(_RUN_COLUMNS, row[4:])}
            iterations = [
                IterationRecord(i, ns, result, verdict, bool(warm))
                for i, ns, result, verdict, warm in self.db.execute(
                    "SELECT idx, ns, result, verdict, warmup FROM iterations WHERE run_id = ? ORDER BY idx",
                    (run_id,),
                )
            ]
            metrics = dict(self.db.execute("SELECT name, value FROM metrics WHERE run_id = ? ORDER BY name",
                                           (run_id,)))
            details: dict[str, Any] = dict(samples=self.samples(run_id), threads=self.threads(run_id),
                                           waits=self.waits(run_id)) if with_samples else {}
            runs.append(RunRecord(
                options=json.loads(row[1]), argv=json.loads(row[2]), hello=json.loads(row[3]) if row[3] else None,
                id=run_id, iterations=iterations, metrics=metrics, **details, **fields,
            ))
        return runs

    def samples(self, run_id: int) -> list[SampleRecord]:
        return self._records("samples", run_id)

    def threads(self, run_id: int) -> list[ThreadRecord]:
        return self._records("threads", run_id)

    def waits(self, run_id: int) -> list[WaitRecord]:
        return self._records("waits", run_id)

    def _records(self, table: str, run_id: int) -> list:
        record, columns, order = _RECORD_TABLES[table]
        order = order.format(written=self.db.dialect.insertion_order)
        return [record(*row) for row in self.db.execute(
            f"SELECT {', '.join(columns)} FROM {table} WHERE run_id = ? ORDER BY {order}", (run_id,))]
