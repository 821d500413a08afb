"""The SQLite store: sessions, runs, iterations, samples, metrics. Each run commits when it ends."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path

from .errors import UsageError
from .records import IterationRecord, Reason, RunRecord, RunStatus, SampleRecord, SessionRecord, ThreadRecord

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,               -- running | finished | interrupted | refused
    command TEXT NOT NULL,
    git_commit TEXT,
    environment_json TEXT NOT NULL,
    config_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    benchmark TEXT NOT NULL,
    variant TEXT NOT NULL,
    param TEXT NOT NULL,
    options_json TEXT NOT NULL,
    cores INTEGER NOT NULL,
    run_index INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    stall INTEGER,
    message TEXT NOT NULL,
    cpus TEXT NOT NULL,
    argv_json TEXT NOT NULL,
    hello_json TEXT,
    wall_ns INTEGER,
    user_ns INTEGER,
    sys_ns INTEGER,
    max_rss_bytes INTEGER,
    max_rss_source TEXT,
    max_rss_missing TEXT,               -- why max_rss_bytes is NULL
    rss_peak_sampled_bytes INTEGER,
    threads_max INTEGER,
    voluntary_switches INTEGER,
    involuntary_switches INTEGER,
    exit_code INTEGER,
    signal INTEGER,
    stderr_tail TEXT NOT NULL,
    run_delay_ns INTEGER,               -- schema 2: the launcher's per-thread observer
    observer_cpu_ns INTEGER,
    harness_cpu_ns INTEGER,
    threads_untracked INTEGER
);
CREATE TABLE IF NOT EXISTS iterations (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    idx INTEGER NOT NULL,
    ns INTEGER NOT NULL,
    result TEXT NOT NULL,
    verdict TEXT NOT NULL,
    warmup INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS samples (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    t_ns INTEGER NOT NULL,
    rss_bytes INTEGER NOT NULL,
    threads INTEGER NOT NULL,
    cpu_ns INTEGER NOT NULL,
    running INTEGER,                    -- schema 2: thread states and totals so far (records.py)
    sleeping INTEGER,
    blocked INTEGER,
    busy INTEGER,
    run_delay_ns INTEGER,
    voluntary INTEGER,
    involuntary INTEGER
);
CREATE TABLE IF NOT EXISTS threads (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    tid INTEGER NOT NULL,
    name TEXT NOT NULL,
    cpu_ns INTEGER NOT NULL,
    run_delay_ns INTEGER NOT NULL,
    voluntary INTEGER NOT NULL,
    involuntary INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    name TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_id);
CREATE INDEX IF NOT EXISTS samples_by_run ON samples(run_id);
CREATE INDEX IF NOT EXISTS threads_by_run ON threads(run_id);
"""

# The record types name their columns, in the order rows are read back into them.
_SAMPLE_COLUMNS = tuple(f.name for f in fields(SampleRecord))
_THREAD_COLUMNS = tuple(f.name for f in fields(ThreadRecord))

# Schema 1 → 2 keeps every stored run: the observer's columns are added, empty for old runs. (What schema 2
# added, written out: a migration stays as it was when later schemas add more.)
MIGRATIONS = {
    1: [*(f"ALTER TABLE runs ADD COLUMN {c} INTEGER"
          for c in ("run_delay_ns", "observer_cpu_ns", "harness_cpu_ns", "threads_untracked")),
        *(f"ALTER TABLE samples ADD COLUMN {c} INTEGER"
          for c in ("running", "sleeping", "blocked", "busy", "run_delay_ns", "voluntary", "involuntary"))],
}

_RUN_COLUMNS = (
    "benchmark", "variant", "param", "cores", "run_index", "status", "reason", "stall", "message",
    "cpus", "wall_ns", "user_ns", "sys_ns", "max_rss_bytes", "max_rss_source", "max_rss_missing",
    "rss_peak_sampled_bytes", "threads_max", "voluntary_switches", "involuntary_switches",
    "exit_code", "signal", "stderr_tail", "run_delay_ns", "observer_cpu_ns", "harness_cpu_ns",
    "threads_untracked",
)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Store:
    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path)
            self.db.execute("PRAGMA schema_version")   # opens the file: an unwritable place fails here
        except (sqlite3.OperationalError, OSError) as error:
            raise UsageError(f"{path}: cannot open or create a database there ({error})") from error
        except sqlite3.DatabaseError as error:   # a file that is not SQLite at all
            raise UsageError(f"{path}: not a concbench database ({error})") from error
        try:
            stored = self._migrate()
            self.db.executescript(SCHEMA)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            self.db.commit()
            if stored is None:
                (stored,) = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as error:
            raise UsageError(f"{path}: not a concbench database ({error})") from error
        # A file written by another schema would be misread row by row: refuse it whole.
        if stored != str(SCHEMA_VERSION):
            raise UsageError(f"{path}: written with results schema {stored}, this concbench reads {SCHEMA_VERSION}; "
                             "use a concbench of that version or another --db")
        self.path = path

    def _migrate(self) -> str | None:
        """Brings an older file up to SCHEMA_VERSION in one transaction; the version found, or None if new."""
        has_meta = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() if has_meta else None
        if row is None:
            return None
        version = row[0]
        with self.db:
            while version.isdigit() and int(version) in MIGRATIONS:
                for statement in MIGRATIONS[int(version)]:
                    self.db.execute(statement)
                version = str(int(version) + 1)
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (version,))
        return version

    def close(self) -> None:
        self.db.close()

    # -- writing -------------------------------------------------------------------------

    def start_session(self, command: str, git_commit: str | None, environment: dict, config: dict) -> int:
        cursor = self.db.execute(
            "INSERT INTO sessions (started_at, status, command, git_commit, environment_json, config_json)"
            " VALUES (?, 'running', ?, ?, ?, ?)",
            (_now(), command, git_commit, json.dumps(environment), json.dumps(config)),
        )
        self.db.commit()
        return cursor.lastrowid

    def end_session(self, session_id: int, status: str) -> None:
        self.db.execute("UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?", (_now(), status, session_id))
        self.db.commit()

    def record_run(self, session_id: int, run: RunRecord) -> int:
        """Store one finished run with its iterations, samples and metrics in one transaction."""
        values = [getattr(run, c) for c in _RUN_COLUMNS]
        values[_RUN_COLUMNS.index("stall")] = None if run.stall is None else int(run.stall)
        values[_RUN_COLUMNS.index("status")] = str(run.status)
        values[_RUN_COLUMNS.index("reason")] = None if run.reason is None else str(run.reason)
        with self.db:
            cursor = self.db.execute(
                f"INSERT INTO runs (session_id, options_json, argv_json, hello_json, {', '.join(_RUN_COLUMNS)})"
                f" VALUES (?, ?, ?, ?, {', '.join('?' * len(_RUN_COLUMNS))})",
                [session_id, json.dumps(run.options, sort_keys=True), json.dumps(run.argv),
                 None if run.hello is None else json.dumps(run.hello), *values],
            )
            run_id = cursor.lastrowid
            self.db.executemany(
                "INSERT INTO iterations VALUES (?, ?, ?, ?, ?, ?)",
                [(run_id, it.index, it.ns, it.result, it.verdict, int(it.warmup)) for it in run.iterations],
            )
            self.db.executemany(
                f"INSERT INTO samples (run_id, {', '.join(_SAMPLE_COLUMNS)}) VALUES (?{', ?' * len(_SAMPLE_COLUMNS)})",
                [(run_id, *(getattr(s, c) for c in _SAMPLE_COLUMNS)) for s in run.samples],
            )
            self.db.executemany(
                f"INSERT INTO threads (run_id, {', '.join(_THREAD_COLUMNS)}) VALUES (?{', ?' * len(_THREAD_COLUMNS)})",
                [(run_id, *(getattr(t, c) for c in _THREAD_COLUMNS)) for t in run.threads],
            )
            self.db.executemany(
                "INSERT INTO metrics VALUES (?, ?, ?)", [(run_id, k, v) for k, v in run.metrics.items()]
            )
        run.id = run_id
        return run_id

    def update_verification(self, run: RunRecord) -> None:
        """After the session's cross-check: new verdicts and, where they changed it, the run's status."""
        with self.db:
            self.db.execute("UPDATE runs SET status = ?, reason = ?, message = ? WHERE id = ?",
                            (str(run.status), None if run.reason is None else str(run.reason), run.message, run.id))
            self.db.executemany("UPDATE iterations SET verdict = ? WHERE run_id = ? AND idx = ?",
                                [(it.verdict, run.id, it.index) for it in run.iterations])

    # -- reading -------------------------------------------------------------------------

    def _session(self, row) -> SessionRecord:
        return SessionRecord(row[0], row[1], row[2], row[3], row[4], row[5], json.loads(row[6]), json.loads(row[7]))

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
                raise UsageError(f"{self.path}: no sessions yet (run `concbench run` first)")
        else:
            row = self.db.execute(query + " WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise UsageError(f"{self.path}: no session {session_id} (see `concbench report --list`)")
        return self._session(row)

    def runs(self, session_id: int, with_samples: bool = False) -> list[RunRecord]:
        cursor = self.db.execute(
            f"SELECT id, options_json, argv_json, hello_json, {', '.join(_RUN_COLUMNS)}"
            " FROM runs WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        runs = []
        for row in cursor.fetchall():
            fields = dict(zip(_RUN_COLUMNS, row[4:]))
            fields["status"] = RunStatus(fields["status"])
            fields["reason"] = Reason(fields["reason"]) if fields["reason"] else None
            fields["stall"] = None if fields["stall"] is None else bool(fields["stall"])
            run = RunRecord(
                options=json.loads(row[1]), argv=json.loads(row[2]),
                hello=json.loads(row[3]) if row[3] else None, id=row[0], **fields,
            )
            run.iterations = [
                IterationRecord(i, ns, result, verdict, bool(warm))
                for i, ns, result, verdict, warm in self.db.execute(
                    "SELECT idx, ns, result, verdict, warmup FROM iterations WHERE run_id = ? ORDER BY idx",
                    (run.id,),
                )
            ]
            run.metrics = dict(self.db.execute("SELECT name, value FROM metrics WHERE run_id = ?", (run.id,)))
            if with_samples:
                run.samples = self.samples(run.id)
                run.threads = self.threads(run.id)
            runs.append(run)
        return runs

    def samples(self, run_id: int) -> list[SampleRecord]:
        return [
            SampleRecord(*row)
            for row in self.db.execute(
                f"SELECT {', '.join(_SAMPLE_COLUMNS)} FROM samples WHERE run_id = ? ORDER BY t_ns", (run_id,)
            )
        ]

    def threads(self, run_id: int) -> list[ThreadRecord]:
        return [
            ThreadRecord(*row)
            for row in self.db.execute(
                f"SELECT {', '.join(_THREAD_COLUMNS)} FROM threads WHERE run_id = ? ORDER BY rowid", (run_id,)
            )
        ]
