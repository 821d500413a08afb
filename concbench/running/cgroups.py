"""A control group of its own for each run, where the machine lets the harness make them (as BenchExec does):
every process the run starts is in it, `setsid` or not, and ends with the run; an optional memory limit, and
whether the kernel's OOM killer acted inside it. Elsewhere a run's process group is all there is (executor.py).

cgroup v2 (a writable unified hierarchy) is used for membership where the kernel can kill a whole group
(`cgroup.kill`, Linux 5.14), with its memory controller where our group delegates it; cgroup v1's freezer (freeze,
kill, thaw: nothing forks away meanwhile) and memory hierarchies otherwise. Each group is made below the harness's
own, so that whatever limits the harness lives under also hold for its runs."""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

MOUNTS = Path("/sys/fs/cgroup")
END_WAIT_S = 2.0        # how long the members of a killed group get to be gone before the group is left behind
_names = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    folder: Path          # the harness's own group in it: runs' groups are made here
    version: int          # 1 or 2
    controller: str       # v1: "freezer" or "memory"; v2: ""


def _own_groups() -> dict[str, str]:
    """/proc/self/cgroup as {controller: path}; the v2 hierarchy's under ""."""
    groups = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = path
    return groups


def _unified_mount() -> Path | None:
    for mount in (MOUNTS, MOUNTS / "unified"):
        if (mount / "cgroup.controllers").is_file():
            return mount
    return None


def _usable(folder: Path) -> bool:
    """Whether the harness may make groups here (and move a process into them)."""
    return folder.is_dir() and os.access(folder, os.W_OK) and os.access(folder / "cgroup.procs", os.W_OK)


@dataclass(frozen=True)
class Layout:
    """Where a run's groups are made: one that holds its members (and kills them), one that limits its memory."""

    members: Hierarchy
    memory: Hierarchy | None

    @property
    def hierarchies(self) -> list[Hierarchy]:
        return [self.members, *([self.memory] if self.memory and self.memory != self.members else [])]


@cache
def layout() -> Layout | None:
    """What this machine offers the harness; None where it cannot make groups (not root, no delegation)."""
    own = _own_groups()
    unified = _unified_mount()
    v2 = None
    if unified is not None and "" in own:
        folder = unified / own[""].lstrip("/")
        if _usable(folder) and _kernel() >= (5, 14):   # the groups made below ours have cgroup.kill from 5.14
            v2 = Hierarchy(folder, 2, "")
    v1 = {c: Hierarchy(MOUNTS / c / own[c].lstrip("/"), 1, c) for c in ("freezer", "memory")
          if c in own and _usable(MOUNTS / c / own[c].lstrip("/"))}
    members = v2 or v1.get("freezer")
    if members is None:
        return None
    delegated = v2 is not None and "memory" in _read(v2.folder / "cgroup.subtree_control").split()
    memory = v2 if delegated else v1.get("memory")
    return Layout(members, memory)


def _kernel() -> tuple[int, ...]:
    numbers = []
    for part in os.uname().release.split(".")[:2]:
        digits = "".join(itertools.takewhile(str.isdigit, part))
        numbers.append(int(digits) if digits else 0)
    return tuple(numbers)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _counter(text: str, name: str) -> int:
    """A `name value` line's value in a cgroup's key-value file (memory.events, memory.oom_control)."""
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


class RunGroup:
    """One run's groups: made before it starts, joined by the program the launcher starts (`--cgroup`, before
    exec), ended with every process in them, then removed."""

    def __init__(self, where: Layout, memory_limit_bytes: int | None = None) -> None:
        name = f"concbench-{os.getpid()}-{next(_names)}"
        self.where = where
        self.folders: list[Path] = []
        for hierarchy in where.hierarchies:
            folder = hierarchy.folder / name
            folder.mkdir()
            self.folders.append(folder)
        self.members = self.folders[0]
        self.memory = self.folders[where.hierarchies.index(where.memory)] if where.memory else None
        self.limited = False
        if memory_limit_bytes is not None and where.memory is not None and self.memory is not None:
            self.limited = True
            if where.memory.version == 2:
                (self.memory / "memory.max").write_text(str(memory_limit_bytes))
                if (self.memory / "memory.swap.max").exists():
                    (self.memory / "memory.swap.max").write_text("0")
            else:
                (self.memory / "memory.limit_in_bytes").write_text(str(memory_limit_bytes))

    def launcher_args(self) -> list[str]:
        return [word for folder in self.folders for word in ("--cgroup", str(folder))]

    def pids(self) -> list[int]:
        return [int(p) for p in _read(self.members / "cgroup.procs").split()]

    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed a process of the run (its memory limit, or the machine's)."""
        if self.memory is None or self.where.memory is None:   # the one is set where the other is
            return False
        if self.where.memory.version == 2:
            return _counter(_read(self.memory / "memory.events"), "oom_kill") > 0
        return _counter(_read(self.memory / "memory.oom_control"), "oom_kill") > 0

    def end(self) -> int:
        """Kill every process left in the run's groups and remove them; returns how many were left running."""
        left = self.pids()
        if left:
            if self.where.members.version == 2:
                (self.members / "cgroup.kill").write_text("1")
            else:
                self._kill_frozen()
            deadline = time.monotonic() + END_WAIT_S
            while self.pids() and time.monotonic() < deadline:
                time.sleep(0.01)
        for folder in self.folders:
            try:
                folder.rmdir()
            except OSError:
                pass   # a process in uninterruptible sleep: the empty group goes with the next reboot
        return len(left)

    def _kill_frozen(self) -> None:
        """v1: freeze the group (nothing in it forks meanwhile), kill each member, thaw it so the kills land."""
        state = self.members / "freezer.state"
        state.write_text("FROZEN")
        deadline = time.monotonic() + END_WAIT_S
        while _read(state).strip() != "FROZEN" and time.monotonic() < deadline:
            time.sleep(0.005)
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        state.write_text("THAWED")
