"""Launches one run: affinity, environment, deadlines; collects rusage and /proc samples.

The measured program is started through the tiny `cb-launch` (see launcher/launch.c) so that
its peak memory is its own and not the harness's (DESIGN.md, peak memory). The launcher
reports the program's pid at once, batches of per-thread /proc samples while it runs (its
observer, launcher/observe.c, so that the harness does not wake per sample) and its rusage when
it has been reaped; meanwhile this module reads stdout line by line, keeps the tail of stderr,
and kills the program when a deadline passes. Without a launcher it samples /proc/<pid>/stat
itself, the process as a whole only.
"""

from __future__ import annotations

import fcntl
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from ..storing.records import Measures, ThreadRecord, WaitRecord
from ..storing.records import SampleRecord as Sample  # t_ns since the launch, rss, threads, cpu so far
from . import cgroups, syscalls

SAMPLE_INTERVAL_S = 0.010
IDLE_WAKE_S = 0.5              # with the launcher sampling, the loop wakes at least this often
STALL_WINDOW_S = 2.0           # a timeout is a stall when the last 2 s ...
STALL_CPU_S = 0.1              # ... used less than 0.1 s of CPU (nqueens spec)
STDERR_TAIL_BYTES = 8192
# A program's stdout is a few short lines per iteration: a line past LINE_BYTES without its newline, or stdout past
# STDOUT_BYTES in all, stops the run (a protocol error) before it costs the harness its memory.
LINE_BYTES = 1 << 20
STDOUT_BYTES = 64 << 20
REPORT_PIPE_BYTES = 1 << 20
_CLOCK_TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class LaunchSpec:
    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    cpus: tuple[int, ...] | None = None
    timeout_s: float | None = None        # the whole run
    line_deadline_s: float | None = None  # longest gap between progress lines (from spawn for the first)
    memory_limit_bytes: int | None = None  # the run's control group's memory limit (cgroups.py); None: none


@dataclass(frozen=True)
class ProcessRecord(Measures):
    """What one process did, as measured from outside (the Measures), and how it ended. Frozen like the run it
    becomes: the launch that measures it (`_Run`) holds the latest one and replaces it as it learns more."""

    started: bool = False
    start_error: str | None = None
    timed_out: bool = False
    timeout_kind: str | None = None       # "run" or "deadline"
    stall: bool | None = None
    aborted: str | None = None            # why the harness stopped it early (a protocol error)
    oom: bool = False                     # the kernel's OOM killer acted in the run's control group
    stderr_tail: str = ""
    run_delay_known: bool = True          # False where the kernel gave no schedstat: the delay is unknown, not 0

    @property
    def run_delay_ns(self) -> int | None:
        return sum(t.run_delay_ns for t in self.threads) if self.threads and self.run_delay_known else None

    @property
    def threads_max(self) -> int | None:
        return max((s.threads for s in self.samples), default=None)

    @property
    def rss_peak_sampled_bytes(self) -> int | None:
        return max((s.rss_bytes for s in self.samples), default=None)


# A line consumer returns a reason to stop the run (a protocol error), or None to go on.
LineConsumer = Callable[[str], str | None]
# A progress predicate says whether a line resets the per-line deadline.
ProgressTest = Callable[[str], bool]


def read_proc_sample(pid: int, t_ns: int) -> Sample | None:
    """RSS, threads and CPU from /proc/<pid>/stat; None once the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # Fields after the command name, which may itself hold spaces and parentheses.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        utime, stime = int(fields[11]), int(fields[12])
        threads, rss_pages = int(fields[17]), int(fields[21])
    except (IndexError, ValueError):
        return None
    if threads == 0:  # a zombie
        return None
    return Sample(t_ns, rss_pages * _PAGE_BYTES, threads, (utime + stime) * _CLOCK_TICK_NS)


def _end_group(pgid: int) -> None:
    """What the program left running in its process group (a child it did not wait for) ends with the run, so
    that it takes no CPU from the runs after it."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def was_idle(samples: list[Sample], end_ns: int) -> bool | None:
    """Did the process use under STALL_CPU_S of CPU in its last STALL_WINDOW_S?"""
    if not samples:
        return None
    window_start = end_ns - int(STALL_WINDOW_S * 1e9)
    before = [s for s in samples if s.t_ns <= window_start]
    first = before[-1] if before else samples[0]
    return samples[-1].cpu_ns - first.cpu_ns < STALL_CPU_S * 1e9


class _Run:
    """The state of one launched process while its output is read."""

    def __init__(self, spec: LaunchSpec, launcher: Path | None, on_line: LineConsumer,
                 is_progress: ProgressTest) -> None:
        self.spec, self.launcher = spec, launcher
        self.on_line, self.is_progress = on_line, is_progress
        self.record = ProcessRecord()
        self.child_pid: int | None = None
        self.exit_report: dict | None = None
        self.buffers: dict[int, bytearray] = {}
        self.stderr_tail = bytearray()
        self.stdout_bytes = 0
        self.group: cgroups.RunGroup | None = None   # the run's control groups, where the machine gives them
        self.report_fd: int | None = None            # the launcher's report pipe, where there is a launcher

    def start(self) -> subprocess.Popen | None:
        spec = self.spec
        report_r = report_w = None
        argv = list(spec.argv)
        if self.launcher is not None:
            report_r, report_w = os.pipe()
            try:   # room for the thread totals the launcher writes while a killed run is reaped
                fcntl.fcntl(report_w, fcntl.F_SETPIPE_SZ, REPORT_PIPE_BYTES)
            except OSError:
                pass
            cpus = ["--cpus", ",".join(map(str, spec.cpus))] if spec.cpus else []
            sampling = ["--sample-ms", str(round(SAMPLE_INTERVAL_S * 1000))]
            self.group = _group(spec)
            groups = self.group.launcher_args() if self.group else []
            argv = [str(self.launcher), *cpus, *groups, "--report-fd", str(report_w), *sampling, "--", *argv]
        try:
            proc = subprocess.Popen(
                argv, cwd=spec.cwd, env=spec.env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(report_w,) if report_w is not None else (),
                process_group=0,  # so a timeout kills the whole tree, and Ctrl-C reaches only us
            )
        except OSError as error:
            self._learn(start_error=f"{argv[0]}: {error.strerror}")
            if report_r is not None:   # report_w is closed below, whatever happened
                os.close(report_r)
            self._end_groups()
            return None
        finally:
            if report_w is not None:
                os.close(report_w)
        self.report_fd = report_r
        if self.launcher is None:
            # No launcher: pin after the fact; children created later inherit the mask.
            self.child_pid = proc.pid
            if spec.cpus:
                try:
                    os.sched_setaffinity(proc.pid, spec.cpus)
                except OSError:
                    pass
        return proc

    def _end_groups(self) -> None:
        """The run's control groups, where it has them: whether the OOM killer acted, then every process left in
        them killed (a child that called setsid, which the process group misses) and the groups removed."""
        if self.group is not None:
            self._learn(oom=self.group.oom_killed())
            self.group.end()
            self.group = None

    def _kill(self, proc: subprocess.Popen) -> None:
        """Kill the program first so the launcher can still report its rusage, then the group."""
        if self.child_pid is not None:
            try:
                os.kill(self.child_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        _end_group(proc.pid)

    def _handle_report_line(self, line: str) -> None:
        message = json.loads(line)
        if "pid" in message:
            self.child_pid = int(message["pid"])
        elif "samples" in message:
            self.record.samples.extend(Sample(*fields) for fields in message["samples"])
        elif "threads" in message:
            self._learn(threads=[ThreadRecord(*fields) for fields in message["threads"]],
                        threads_untracked=message["untracked"], run_delay_known=message.get("schedstat", True))
        elif "waits" in message:
            self._learn(waits=[WaitRecord(syscalls.name(number), arg, count, threads)
                               for number, arg, count, threads in message["waits"]],
                        wait_looks=message["looks"])
        elif "observer" in message:
            observer = message["observer"]
            self._learn(observer_cpu_ns=observer.get("cpu_ns"), observer_samples=observer.get("samples"),
                        observer_interval_max_ns=observer.get("interval_max_ns"))
        elif "exit" in message:
            self.exit_report = message["exit"]

    def _handle_stdout_line(self, line: str) -> tuple[bool, str | None]:
        return self.is_progress(line), self.on_line(line)

    def pump(self, proc: subprocess.Popen) -> None:
        spec = self.spec
        selector = selectors.DefaultSelector()
        stdout, stderr = proc.stdout, proc.stderr
        assert stdout is not None and stderr is not None   # start() opens both as pipes
        fds = {stdout.fileno(): "stdout", stderr.fileno(): "stderr"}
        if self.report_fd is not None:   # there is a launcher
            fds[self.report_fd] = "report"
        for fd in fds:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
            self.buffers[fd] = bytearray()
        t0 = time.monotonic_ns()
        last_progress = t0
        wake_at = t0
        try:
            while selector.get_map():
                now = time.monotonic_ns()
                if self.launcher is not None:       # it samples: sleep until a line or a deadline
                    wake_at = now + self._until_deadline_ns(now, t0, last_progress)
                elif now >= wake_at and self.child_pid is not None:
                    sample = read_proc_sample(self.child_pid, now - t0)
                    if sample is not None:
                        self.record.samples.append(sample)   # the list grows in place: one record a run
                    wake_at = now + int(SAMPLE_INTERVAL_S * 1e9)
                if spec.timeout_s is not None and now - t0 > spec.timeout_s * 1e9:
                    self._time_out(proc, "run")
                    break
                if spec.line_deadline_s is not None and now - last_progress > spec.line_deadline_s * 1e9:
                    self._time_out(proc, "deadline")
                    break
                wait_s = max(0.0, (wake_at - time.monotonic_ns()) / 1e9)
                for key, _ in selector.select(timeout=wait_s):
                    fd = key.fd
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        selector.unregister(fd)
                        self._flush_partial(fd, fds[fd])
                        continue
                    if fds[fd] == "stderr":
                        self.stderr_tail += chunk
                        del self.stderr_tail[:-STDERR_TAIL_BYTES]
                        continue
                    if fds[fd] == "stdout" and self._over_limit(fd, chunk, proc):
                        continue
                    for line in self._split_lines(fd, chunk):
                        if fds[fd] == "report":
                            self._handle_report_line(line)
                            continue
                        progress, stop = self._handle_stdout_line(line)
                        if progress:
                            last_progress = time.monotonic_ns()
                        if stop and self.record.aborted is None:
                            self._learn(aborted=stop)
                            self._kill(proc)
                # Descendants may hold stdout open after the program ended: do not wait on them (they end
                # with the run's process group).
                if (self.exit_report is not None or self.launcher is None) and proc.poll() is not None:
                    self._drain(selector, fds)
                    break
        finally:
            if proc.poll() is None:
                self._kill(proc)
            proc.wait()
            _end_group(proc.pid)
            self._end_groups()
            self._drain(selector, fds)
            selector.close()
            for stream in (stdout, stderr):
                stream.close()
            if self.report_fd is not None:
                os.close(self.report_fd)
        self._finish(proc, time.monotonic_ns() - t0)

    def _until_deadline_ns(self, now: int, t0: int, last_progress: int) -> int:
        """How long the loop may sleep in select: until the nearer deadline, at most IDLE_WAKE_S."""
        wait = IDLE_WAKE_S * 1e9
        if self.spec.timeout_s is not None:
            wait = min(wait, t0 + self.spec.timeout_s * 1e9 - now)
        if self.spec.line_deadline_s is not None:
            wait = min(wait, last_progress + self.spec.line_deadline_s * 1e9 - now)
        return max(int(wait) + 1, 0)

    def _over_limit(self, fd: int, chunk: bytes, proc: subprocess.Popen | None) -> bool:
        """Whether this stdout chunk is not to be read: the run was stopped already, or the chunk takes stdout past
        its caps (the run is stopped here, a protocol error, and what it wrote is let go)."""
        if self.record.aborted is not None:
            return True
        self.stdout_bytes += len(chunk)
        last = chunk.rfind(b"\n")
        unfinished = len(chunk) - last - 1 if last >= 0 else len(self.buffers[fd]) + len(chunk)
        if self.stdout_bytes > STDOUT_BYTES:
            self._learn(aborted=f"more than {STDOUT_BYTES >> 20} MiB on stdout")
        elif unfinished > LINE_BYTES:
            self._learn(aborted=f"a line longer than {LINE_BYTES >> 20} MiB on stdout")
        else:
            return False
        self.buffers[fd] = bytearray()
        if proc is not None:
            self._kill(proc)
        return True

    def _split_lines(self, fd: int, chunk: bytes) -> list[str]:
        buffer = self.buffers[fd]
        buffer += chunk
        if b"\n" not in chunk:       # a long line arriving in pieces is joined once, not at every piece
            return []
        *complete, rest = bytes(buffer).split(b"\n")
        self.buffers[fd] = bytearray(rest)
        return [line.decode("utf-8", "replace") for line in complete]

    def _flush_partial(self, fd: int, kind: str) -> None:
        rest = self.buffers.get(fd)
        if rest:
            self.buffers[fd] = bytearray()
            line = rest.decode("utf-8", "replace")
            if kind == "report":
                self._handle_report_line(line)
            elif kind == "stdout":
                stop = self.on_line(line)
                if stop and self.record.aborted is None:
                    self._learn(aborted=stop)

    def _drain(self, selector: selectors.BaseSelector, fds: dict[int, str]) -> None:
        """Read what is left in the pipes without blocking."""
        for fd in [key.fd for key in (selector.get_map() or {}).values()]:   # the map's keys are these fds
            try:
                while chunk := os.read(fd, 65536):
                    if fds[fd] == "stderr":
                        self.stderr_tail += chunk
                        del self.stderr_tail[:-STDERR_TAIL_BYTES]
                    elif fds[fd] != "stdout" or not self._over_limit(fd, chunk, None):
                        for line in self._split_lines(fd, chunk):
                            if fds[fd] == "report":
                                self._handle_report_line(line)
                            elif self.record.aborted is None and not self.record.timed_out:
                                stop = self.on_line(line)
                                if stop:
                                    self._learn(aborted=stop)
            except (BlockingIOError, OSError):
                pass
            selector.unregister(fd)
            self._flush_partial(fd, fds[fd])

    def _time_out(self, proc: subprocess.Popen, kind: str) -> None:
        self._learn(timed_out=True, timeout_kind=kind)
        self._kill(proc)

    def _learn(self, **found) -> None:
        """What the launch found out, in the record it will return."""
        self.record = replace(self.record, **found)

    def _finish(self, proc: subprocess.Popen, elapsed_ns: int) -> None:
        record = self.record
        found: dict = {"started": True, "stderr_tail": self.stderr_tail.decode("utf-8", "replace")}
        if record.timed_out:
            # Judged on every sample, the launcher's last batch included (it arrives after the kill).
            found["stall"] = was_idle(record.samples, record.samples[-1].t_ns if record.samples else elapsed_ns)
        report = self.exit_report
        if self.launcher is None:
            code = proc.returncode
            found.update(wall_ns=elapsed_ns, max_rss_missing="no launcher: a child of the harness inherits its peak RSS",
                         exit_code=code if code >= 0 else None, signal=-code if code < 0 else None)
        elif report is None:
            found.update(wall_ns=elapsed_ns, max_rss_missing="the launcher gave no report", exit_code=proc.returncode)
        else:
            if report["exec_errno"]:
                found.update(started=False, start_error=f"{self.spec.argv[0]}: {os.strerror(report['exec_errno'])}")
            counted = report.get("instructions", -1) >= 0 and report.get("cycles", -1) >= 0
            found.update(
                exit_code=report["code"] if report["code"] >= 0 else None, signal=report["signal"] or None,
                wall_ns=report["wall_ns"], user_ns=report["user_ns"], sys_ns=report["sys_ns"],
                max_rss_bytes=report["max_rss_kib"] * 1024, max_rss_source="wait4 via launcher",
                voluntary_switches=report["voluntary_switches"], involuntary_switches=report["involuntary_switches"],
                observer_cpus=report.get("observer_cpus") or None,
                instructions=report["instructions"] if counted else None,
                cycles=report["cycles"] if counted else None,
                counters_missing=None if counted else report.get("counters_error") or "an older launcher",
            )
        self._learn(**found)

def _group(spec: LaunchSpec) -> cgroups.RunGroup | None:
    """The run's control groups where this machine lets the harness make them (else its process group only)."""
    where = cgroups.layout()
    if where is None:
        return None
    try:
        return cgroups.RunGroup(where, spec.memory_limit_bytes)
    except OSError:
        return None


def execute(spec: LaunchSpec, launcher: Path | None, on_line: LineConsumer,
            is_progress: ProgressTest = lambda line: True) -> ProcessRecord:
    """Run one process to its end (or its deadline) and measure it."""
    run = _Run(spec, launcher, on_line, is_progress)
    proc = run.start()
    if proc is None:
        return run.record
    run.pump(proc)
    return run.record


class Executor(Protocol):
    """What a session launches runs with: real processes here, a scripted fake in the tests."""

    def execute(self, spec: LaunchSpec, on_line: LineConsumer, is_progress: ProgressTest) -> ProcessRecord: ...


@dataclass(frozen=True)
class ProcessExecutor:
    """Real processes, through cb-launch when one was built (None: spawned directly, no peak memory)."""

    launcher: Path | None

    def execute(self, spec: LaunchSpec, on_line: LineConsumer, is_progress: ProgressTest) -> ProcessRecord:
        return execute(spec, self.launcher, on_line, is_progress)
