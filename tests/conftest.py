"""Shared fixtures: the checkout, a built launcher, and a way to drive the real CLI."""

from __future__ import annotations

import contextlib
import faulthandler
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from concbench.running import toolchains
from concbench.schema import validate_export
from concbench.spec.catalog import Implementation, load_catalog, load_implementation

ROOT = Path(__file__).resolve().parent.parent

# The CLI fits its output to COLUMNS where it is set (pytest-xdist's workers set 80): the tests read it at the
# width a pipe gets, whoever runs them.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
# In make test's parallel part two workers run sessions side by side on purpose: each would read the other's
# load as a disturbed machine and run its runs again. The probe's own tests are marked serial and run alone.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["CONCBENCH_NO_PROBE"] = "1"
else:
    os.environ.pop("CONCBENCH_NO_PROBE", None)


def pytest_collection_modifyitems(items) -> None:
    """Groups for `pytest -n 2 --dist loadgroup` (make test): a module's tests share a worker (its module
    fixtures are made once); a language's check and its own unit tests share one (they build the same
    folder, and one would rewrite a binary the other runs); the Slurm tests share one (one test cluster)."""
    for item in items:
        module = item.path.stem
        folder = getattr(item, "callspec", None) and item.callspec.params.get("folder")
        if module in ("test_conformance", "test_native") and folder:
            group = f"language-{folder}"
        elif module.startswith("test_slurm"):
            group = "slurm"
        else:
            group = module
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def catalog():
    """The checkout's catalog, read once per worker: tests read it and never change it."""
    return load_catalog(ROOT)


@pytest.fixture(scope="session")
def launcher(tmp_path_factory) -> Path:
    path = toolchains.launcher_path(tmp_path_factory.mktemp("launcher"))
    assert path is not None, "the tests need a C compiler (cc) for the launcher"
    return path


# CONCBENCH_TEST_SPAWN=1 runs every CLI call of the tests in a process of its own, as `spawn=True` runs one.
SPAWN_ALL = os.environ.get("CONCBENCH_TEST_SPAWN") == "1"


class Cli:
    """Runs the concbench command against one database, as a user would: by default in this process (the
    command's own entry, `concbench.cli.main`, its output caught as a pipe would catch it), which spares each
    call the second or so a Python process takes to start and import the harness; `spawn=True` (or Popen
    arguments) in a fresh `python -m concbench` process, for what only a process shows (its signals, its
    environment as started, its stdin)."""

    def __init__(self, db: Path, spawn: bool = False) -> None:
        self.db, self.spawn = db, spawn

    def __call__(self, *args: str, db: bool = True, timeout: float = 300, spawn: bool = False,
                 **popen) -> subprocess.CompletedProcess:
        extra = ["--db", str(self.db)] if db and args and args[0] in ("run", "report") else []
        # Never a developer's own database: CONCBENCH_DB would be the default where a command names none.
        env = {**{k: v for k, v in os.environ.items() if k != "CONCBENCH_DB"}, "CONCBENCH_ROOT": str(ROOT)}
        if spawn or self.spawn or popen or SPAWN_ALL:
            return subprocess.run([sys.executable, "-m", "concbench", *args, *extra], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=timeout, **popen)
        return in_process([*args, *extra], env, timeout)

    def export(self, session: str = "") -> dict:
        done = self("report", *([session] if session else []), "--format", "json")
        assert done.returncode == 0, done.stderr
        validate_export(json.loads(done.stdout))   # every export the tests produce must match the schema
        return json.loads(done.stdout)


def in_process(argv: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """`concbench ARGV` in this process, with `env` as its whole environment and the checkout as its folder,
    as `python -m concbench` would run it: its exit status from SystemExit, its output caught. Its consoles are
    made anew for the call (a pipe's width, COLUMNS as `env` sets it). A call past `timeout` ends this test
    process with every thread's stack (a hang fails the test, never the suite's clock)."""
    from concbench import cli
    from concbench.cli import common
    from concbench.report.terminal import make_console

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_consoles, folder, saved_argv = dict(os.environ), (common.console, common.err_console), os.getcwd(), sys.argv
    faulthandler.dump_traceback_later(timeout, exit=True)
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(ROOT)
        sys.argv = ["concbench", *argv]   # a session stores the command it was given from here
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            common.console, common.err_console = make_console(out), make_console(err, stderr=True)
            try:
                cli.main(list(argv))
                code = 0
            except SystemExit as end:
                code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
    finally:
        faulthandler.cancel_dump_traceback_later()
        common.console, common.err_console = saved_consoles
        os.chdir(folder)
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess([sys.executable, "-m", "concbench", *argv], code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli(tmp_path) -> Cli:
    return Cli(tmp_path / "results.sqlite")


def installed(folder: str) -> Implementation:
    """The implementation in impls/<folder>; where its toolchain is missing the test is skipped, saying why,
    except under CI=true, where it fails: a CI image without a language must not drop its checks silently."""
    impl = load_implementation(ROOT / "impls" / folder / "impl.toml")
    found = toolchains.availability(impl)
    if not found.available:
        missing = f"{folder}: {found.reason} ({found.install_hint})"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {missing}", pytrace=False)
        pytest.skip(missing)
    return impl


# Every folder under impls/ but the hidden ones (the fake, the diagnosis fixtures): the list is read from the
# tree, so none can be left out.
COMPILED = sorted(p.name for p in (ROOT / "impls").iterdir()
                  if (p / "impl.toml").is_file() and not load_implementation(p / "impl.toml").hidden)
