"""Detects, builds and configures each language from its impl.toml; builds the launcher."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import BuildError, UsageError
from ..spec.catalog import Implementation

LAUNCHER_DIR = Path(__file__).parent.parent / "launcher"
LAUNCHER_SOURCES = (LAUNCHER_DIR / "launch.c", LAUNCHER_DIR / "observe.c", LAUNCHER_DIR / "counters.c")


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str          # why not, or "" when available
    install_hint: str


def _present(requirement: str) -> bool:
    """A tool on PATH, or (for an absolute path, such as a library header) a file that exists."""
    return Path(requirement).exists() if requirement.startswith("/") else shutil.which(requirement) is not None


def availability(impl: Implementation) -> Availability:
    missing = [tool for tool in impl.requires if not _present(tool)]
    if missing:
        return Availability(False, f"not found on PATH: {', '.join(missing)}", impl.install_hint)
    return Availability(True, "", impl.install_hint)


def missing_packages(impls: list[Implementation]) -> list[str]:
    """Debian packages that would make the unavailable implementations available."""
    packages: list[str] = []
    for impl in impls:
        if not availability(impl).available:
            packages += [p for p in impl.apt_packages if p not in packages]
    return packages


def install_packages(packages: list[str]) -> subprocess.CompletedProcess:
    """apt-get update, then install; the caller checks that we are root and apt-get exists."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    update = subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, text=True)
    if update.returncode != 0:
        return update
    return subprocess.run(["apt-get", "install", "-y", "-qq", *packages], env=env, capture_output=True, text=True)


def is_built(impl: Implementation) -> bool:
    """Built, and the build answers `describe` (a build older than the description is not)."""
    return impl.executable_path.exists() and impl.description_source == "binary"


def build_record_path(build_dir: Path, impl: Implementation) -> Path:
    return build_dir / "builds" / f"{impl.language}.json"


def build(impl: Implementation, build_dir: Path, opt: str | None = None) -> dict:
    """Run the implementation's build command; its output is kept for the error only.

    The chosen optimisation level is written beside the build, so every later session can
    store which build it measured."""
    if opt is not None and opt not in impl.opt_levels:
        known = ", ".join(impl.opt_levels) or "none"
        raise UsageError(f"{impl.language}: no optimisation level '{opt}' (known: {known})")
    level = opt or (impl.opt_levels[0] if impl.opt_levels else None)
    command = list(impl.build_command)
    if level is not None:
        command += [part.format(opt=level) for part in impl.opt_args]
    if command:
        try:
            done = subprocess.run(command, cwd=impl.folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except OSError as error:
            raise BuildError(f"{impl.language}: cannot run {command[0]}: {error.strerror}") from error
        if done.returncode != 0:
            raise BuildError(f"{impl.language}: build failed ({' '.join(command)}, exit {done.returncode})", done.stdout)
    if not impl.executable_path.exists():
        raise BuildError(f"{impl.language}: the build succeeded but {impl.executable_path} is missing")
    record = {"command": command, "opt": level}
    path = build_record_path(build_dir, impl)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))
    return record


def build_record(impl: Implementation, build_dir: Path) -> dict | None:
    """How the implementation was last built by `concbench build`, or None if not by us."""
    try:
        return json.loads(build_record_path(build_dir, impl).read_text())
    except (OSError, ValueError):
        return None


def toolchain_version(impl: Implementation) -> str | None:
    """First line of the toolchain's version output, for the session's environment.

    Run in the implementation's folder, so a version command can ask the build itself which compiler it
    uses (impls/c: `make compiler-version`) instead of naming a second copy of its path."""
    if not impl.version_command or shutil.which(impl.version_command[0]) is None:
        return None
    try:
        done = subprocess.run(list(impl.version_command), cwd=impl.folder, capture_output=True, text=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def launcher_path(build_dir: Path) -> Path | None:
    """The compiled cb-launch, rebuilt when its source is newer; None without a C compiler."""
    return _compiled(build_dir / "cb-launch", LAUNCHER_SOURCES, "the launcher")


def probe_path(build_dir: Path) -> Path | None:
    """The compiled machine probe, cb-probe (launcher/probe.c), built like the launcher; None without a C compiler."""
    return _compiled(build_dir / "cb-probe", (LAUNCHER_DIR / "probe.c",), "the machine probe", ("-pthread",))


def _compiled(target: Path, sources: tuple[Path, ...], what: str, flags: tuple[str, ...] = ()) -> Path | None:
    newest = max(p.stat().st_mtime for p in LAUNCHER_DIR.iterdir())
    if target.exists() and target.stat().st_mtime >= newest:
        return target
    compiler = next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if compiler is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    # Compiled beside it, then renamed over it: a session running at the same time (another shard on this
    # checkout, a test worker) never executes a half-written file nor meets "Text file busy".
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        done = subprocess.run(
            [compiler, "-O2", "-Wall", "-Wextra", *flags, "-o", str(partial), *map(str, sources)],
            capture_output=True, text=True,
        )
        if done.returncode != 0:
            raise BuildError(f"cannot compile {what}", done.stderr)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def command_for(impl: Implementation, benchmark: str, model: str, param: str, iterations: int,
                cores: int, options: tuple[tuple[str, str], ...]) -> tuple[list[str], dict[str, str]]:
    """The protocol's command line and environment for one run (DESIGN.md, the protocol)."""
    argv, env = impl.base_command(cores)
    argv += [benchmark, "--model", model, "--param", param, "--iterations", str(iterations),
             "--workers", str(cores)]
    for key, value in options:
        argv += ["--option", f"{key}={value}"]
    return argv, env
