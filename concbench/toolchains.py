"""Detects, builds and configures each language from its impl.toml; builds the launcher."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .catalog import Implementation
from .errors import BuildError

LAUNCHER_SOURCE = Path(__file__).parent / "launcher" / "launch.c"


@dataclass(frozen=True)
class Availability:
    available: bool
    reason: str          # why not, or "" when available
    install_hint: str


def availability(impl: Implementation) -> Availability:
    missing = [tool for tool in impl.requires if shutil.which(tool) is None]
    if missing:
        return Availability(False, f"not found on PATH: {', '.join(missing)}", impl.install_hint)
    return Availability(True, "", impl.install_hint)


def is_built(impl: Implementation) -> bool:
    return impl.executable_path.exists()


def build(impl: Implementation, extra_env: dict[str, str] | None = None) -> None:
    """Run the implementation's build command; its output is kept for the error only."""
    if not impl.build_command:
        return
    env = {**os.environ, **(extra_env or {})}
    try:
        done = subprocess.run(
            list(impl.build_command), cwd=impl.folder, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
    except OSError as error:
        raise BuildError(f"{impl.language}: cannot run {impl.build_command[0]}: {error.strerror}") from error
    if done.returncode != 0:
        raise BuildError(
            f"{impl.language}: build failed ({' '.join(impl.build_command)}, exit {done.returncode})",
            done.stdout,
        )
    if not is_built(impl):
        raise BuildError(f"{impl.language}: the build succeeded but {impl.executable_path} is missing")


def toolchain_version(impl: Implementation) -> str | None:
    """First line of the toolchain's version output, for the session's environment."""
    if not impl.version_command or shutil.which(impl.version_command[0]) is None:
        return None
    try:
        done = subprocess.run(list(impl.version_command), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def launcher_path(build_dir: Path) -> Path | None:
    """The compiled cb-launch, rebuilt when its source is newer; None without a C compiler."""
    target = build_dir / "cb-launch"
    if target.exists() and target.stat().st_mtime >= LAUNCHER_SOURCE.stat().st_mtime:
        return target
    compiler = next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if compiler is None:
        return None
    build_dir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [compiler, "-O2", "-Wall", "-o", str(target), str(LAUNCHER_SOURCE)],
        capture_output=True, text=True,
    )
    if done.returncode != 0:
        raise BuildError("cannot compile the launcher", done.stderr)
    return target


def command_for(impl: Implementation, benchmark: str, model: str, param: str, iterations: int,
                cores: int, options: tuple[tuple[str, str], ...]) -> tuple[list[str], dict[str, str]]:
    """The protocol's command line and environment for one run (DESIGN.md, the protocol)."""
    values = {
        "exe": str(impl.executable_path),
        "dir": str(impl.folder),
        "python": sys.executable,
        "cores": str(cores),
    }
    argv = [part.format(**values) for part in impl.command]
    argv += [benchmark, "--model", model, "--param", param, "--iterations", str(iterations),
             "--workers", str(cores)]
    for key, value in options:
        argv += ["--option", f"{key}={value}"]
    env = {**os.environ, **{k: v.format(**values) for k, v in impl.env.items()}}
    return argv, env
