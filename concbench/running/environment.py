"""The machine a session ran on: stored with every session, shown beside every report."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return None


def git_commit(root: Path) -> str | None:
    """HEAD of the checkout, with '-dirty' when the tree has changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def allowed_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def capture(toolchains: dict[str, dict]) -> dict:
    return {
        "cpu_model": _cpu_model(),
        "cpus_online": os.cpu_count(),
        "cpus_allowed": allowed_cpus(),
        "memory_bytes": _memory_bytes(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "machine": platform.machine(),
        "hostname": platform.node(),
        "python": platform.python_version(),
        "toolchains": toolchains,
    }
