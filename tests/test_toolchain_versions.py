"""The toolchain version a session records is the version of the compiler that built the binary.

impls/c is built by its Makefile's $(CLANG) (the Swift toolchain's clang, for blocks and libdispatch); the
version once came from a second copy of that path in impl.toml while `requires` accepted any clang on PATH.
Now the version is asked through make, of the same $(CLANG), and `requires` names that compiler."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from concbench.running import toolchains
from concbench.spec.catalog import load_implementation

ROOT = Path(__file__).resolve().parent.parent
C_FOLDER = ROOT / "impls" / "c"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _dry_run(*targets: str, **environment: str) -> list[list[str]]:
    """The commands make would run for the targets (nothing is run), split into words."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLANG", "SWIFT_ROOT")}
    done = subprocess.run(["make", "-n", "-B", "--no-print-directory", *targets], cwd=C_FOLDER,
                          env={**env, **environment}, capture_output=True, text=True, check=True)
    return [line.split() for line in done.stdout.splitlines() if line.strip()]


def _compilers(commands: list[list[str]]) -> set[str]:
    """The program of every compile or link command (those writing with -o)."""
    return {words[0] for words in commands if "-o" in words}


def test_the_c_version_is_asked_through_make_of_the_compiler_that_builds():
    impl = load_implementation(C_FOLDER / "impl.toml")
    assert impl.version_command[0] == "make" and impl.version_command[-1] == "compiler-version"
    asked = {words[0] for words in _dry_run("compiler-version") if "--version" in words}
    built = _compilers(_dry_run("all", "build/test-kernels"))
    assert len(asked) == 1 and built == asked, f"version asked of {asked}, built with {built}"
    assert asked <= set(impl.requires), f"impl.toml requires {impl.requires}, not the compiler {asked}"


def test_they_stay_one_compiler_when_the_toolchain_is_moved(tmp_path):
    # SWIFT_ROOT from the environment reaches both the build and the version command the same way.
    moved = {"SWIFT_ROOT": str(tmp_path)}
    asked = {words[0] for words in _dry_run("compiler-version", **moved) if "--version" in words}
    assert asked == _compilers(_dry_run("all", **moved)) == {f"{tmp_path}/usr/bin/clang"}


@pytest.mark.skipif(not Path("/opt/swift/usr/bin/clang").exists(), reason="no Swift toolchain in /opt/swift")
def test_the_recorded_c_version_is_the_swift_toolchains_clang():
    impl = load_implementation(C_FOLDER / "impl.toml")
    version = toolchains.toolchain_version(impl)
    expected = subprocess.run(["/opt/swift/usr/bin/clang", "--version"], capture_output=True, text=True).stdout
    assert version == expected.splitlines()[0]


@pytest.mark.parametrize("folder", ["jvm", "scala"])
def test_the_jvms_own_warnings_never_reach_the_protocols_stdout(folder):
    # A JVM writes its unified-logging warnings on stdout by default (a perf-data file it cannot use, large pages
    # it cannot have): on the protocol's channel they break the run. UseLargePages on a machine without them is
    # a warning every JVM prints, so it stands for them all here.
    from conftest import installed

    impl = installed(folder)
    argv, env = impl.base_command(2)
    flags = argv[:argv.index("-cp")]
    done = subprocess.run([*flags, "-XX:+UseLargePages", "-version"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0 and done.stdout == "", done.stdout
    assert "openjdk version" in done.stderr


@pytest.mark.slow
def test_a_helper_rebuilt_while_another_session_runs_it_is_never_met_half_written(tmp_path):
    import threading

    source = tmp_path / "hello.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n')
    target = tmp_path / "bin" / "hello"
    assert toolchains._compiled(target, (source,), "hello") == target
    failures, stop = [], threading.Event()

    def run_it():   # what a second session on the same checkout does meanwhile
        while not stop.is_set():
            try:
                done = subprocess.run([str(target)], capture_output=True, text=True)
                if done.stdout != "hello\n":
                    failures.append(f"exit {done.returncode}: {done.stdout!r} {done.stderr!r}")
            except OSError as error:   # Text file busy, Exec format error, or gone
                failures.append(str(error))

    other = threading.Thread(target=run_it)
    other.start()
    try:
        for _ in range(15):
            os.utime(target, (0, 0))   # older than the sources: rebuilt
            toolchains._compiled(target, (source,), "hello")
    finally:
        stop.set()
        other.join(timeout=30)
    assert failures == []
    assert [p.name for p in target.parent.iterdir()] == ["hello"]   # no partial file left behind
