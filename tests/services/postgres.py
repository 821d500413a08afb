"""A throwaway PostgreSQL server for the tests, started by the tests themselves.

The set-up installs the server (`make services`, run by `make test`: Debian's postgresql, as root); a test never
installs anything. `postgres_server` (session-scoped; import it into a test module) finds initdb and pg_ctl under
/usr/lib/postgresql/*/bin, makes a cluster in a temporary folder, starts it on a free port with its unix socket in
that folder, and at the end stops it and removes the folder. PostgreSQL refuses to run as root, so as root the
server runs as the `postgres` user that Debian's package creates. Where the server or psycopg is missing, the
tests that use it are skipped saying why, and fail under CI=true (the check must not vanish silently in CI).

Local connections (the socket) need no password; TCP ones (127.0.0.1) need `Server.password`, so that a wrong
one can be tried."""

from __future__ import annotations

import glob
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import pytest

SUPERUSER = "postgres"
START_LIMIT_S = 60


@dataclass
class Server:
    folder: Path      # the cluster (data/), its log and its unix socket
    port: int
    password: str
    control: list[str] = field(default_factory=list)   # pg_ctl with its data folder, as the server's user
    start_options: list[str] = field(default_factory=list)
    _names = count(1)

    def stop(self) -> None:
        """As a crash does: the server gone at once, its clients' connections broken (the tests' own faults)."""
        _run([*self.control, "-m", "immediate", "-w", "stop"])

    def start(self) -> None:
        _run([*self.control, *self.start_options, "-w", "-t", str(START_LIMIT_S), "start"])

    def url(self, database: str = "postgres", tcp: bool = False, password: str | None = None) -> str:
        """A URL of one of the server's databases: by its unix socket (no password), or by TCP with one."""
        if tcp:
            return f"postgresql://{SUPERUSER}:{password or self.password}@127.0.0.1:{self.port}/{database}"
        return f"postgresql:///{database}?host={self.folder}&port={self.port}&user={SUPERUSER}"

    def new_database(self) -> str:
        """A fresh, empty database; its name."""
        import psycopg

        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return name


def _give_up(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the PostgreSQL tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _binaries() -> Path | None:
    """The newest installed server's bin folder."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/pg_ctl")
             if Path(p).with_name("initdb").exists()]
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0) if found else None


def _as_server_user() -> list[str]:
    """The prefix that runs a server command as a user PostgreSQL accepts: ourselves, unless we are root."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SUPERUSER)
    except KeyError:
        _give_up("we are root and there is no 'postgres' user to run the server as: `make services` installs "
                 "Debian's postgresql, which creates it")
    if shutil.which("runuser") is None:
        _give_up("we are root and runuser (util-linux) is missing: the server cannot run as 'postgres'")
    return ["runuser", "-u", SUPERUSER, "--"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(command: list[str], log: Path | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=START_LIMIT_S)
    if done.returncode != 0:
        told = log.read_text()[-2000:] if log and log.exists() else ""
        pytest.fail(f"{' '.join(command[:5])} failed (exit {done.returncode}): {done.stderr[-2000:]}{told}",
                    pytrace=False)


@pytest.fixture(scope="session")
def postgres_server():
    binaries = _binaries()
    if binaries is None:
        _give_up("PostgreSQL's server is not installed (no initdb and pg_ctl under /usr/lib/postgresql/*/bin): "
                 "`make services` installs Debian's postgresql (as root)")
    if importlib.util.find_spec("psycopg") is None:
        _give_up("psycopg is not installed (pip install -e '.[test]')")
    prefix = _as_server_user()
    # Not under pytest's own temporary folders: those are private to us, and the server runs as another user.
    folder = Path(tempfile.mkdtemp(prefix="concbench-pg-"))
    data, log = folder / "data", folder / "server.log"
    server = Server(folder, _free_port(), "pw-" + os.urandom(6).hex())
    started = False
    try:
        (folder / "password").write_text(server.password + "\n")
        if prefix:
            for path in (folder, folder / "password"):
                shutil.chown(path, SUPERUSER, SUPERUSER)
        _run([*prefix, str(binaries / "initdb"), "-D", str(data), "-U", SUPERUSER, "-E", "UTF8", "--no-sync",
              "--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={folder / 'password'}"])
        # Durability is not what these tests measure: without fsync a database is created in milliseconds.
        options = (f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        server.control = [*prefix, str(binaries / "pg_ctl"), "-D", str(data)]
        server.start_options = ["-l", str(log), "-o", options]
        _run([*server.control, *server.start_options, "-w", "-t", str(START_LIMIT_S), "start"], log)
        started = True
        yield server
    finally:
        if started:
            subprocess.run([*prefix, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                           capture_output=True, timeout=START_LIMIT_S)
        shutil.rmtree(folder, ignore_errors=True)
