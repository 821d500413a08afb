"""Names of the system calls a sleeping thread is found in (the observer reads their numbers from
/proc/<pid>/task/<tid>/syscall): the ones programs wait in. The numbers differ by architecture, so the
harness names them where the run happened, and the stored name holds on any machine."""

from __future__ import annotations

import platform

# Linux's own numbering (arch/x86/entry/syscalls/syscall_64.tbl; asm-generic/unistd.h for arm64).
_WAITS = {
    "x86_64": {0: "read", 1: "write", 7: "poll", 23: "select", 24: "sched_yield", 34: "pause", 35: "nanosleep",
               43: "accept", 45: "recvfrom", 47: "recvmsg", 61: "wait4", 128: "rt_sigtimedwait", 202: "futex",
               230: "clock_nanosleep", 232: "epoll_wait", 270: "pselect6", 271: "ppoll", 281: "epoll_pwait",
               288: "accept4", 441: "epoll_pwait2", 449: "futex_waitv"},
    "aarch64": {22: "epoll_pwait", 63: "read", 64: "write", 72: "pselect6", 73: "ppoll", 98: "futex",
                101: "nanosleep", 115: "clock_nanosleep", 124: "sched_yield", 137: "rt_sigtimedwait",
                202: "accept", 207: "recvfrom", 212: "recvmsg", 242: "accept4", 260: "wait4", 441: "epoll_pwait2",
                449: "futex_waitv"},
}


def name(number: int, machine: str | None = None) -> str:
    """The call's name on this machine (or `machine`), else "syscall N"."""
    return _WAITS.get(machine or platform.machine(), {}).get(number, f"syscall {number}")


# The calls a thread sleeps in to wait for time or for input, not for another thread of the program (a futex):
# a timer tick, a poll loop, a blocking read of a pipe or socket. Their wake-ups are context switches too.
TIMER_OR_IO = frozenset({"read", "poll", "select", "pause", "nanosleep", "accept", "recvfrom", "recvmsg",
                         "rt_sigtimedwait", "clock_nanosleep", "epoll_wait", "pselect6", "ppoll", "epoll_pwait",
                         "accept4", "epoll_pwait2"})


def is_timer_or_io(call: str) -> bool:
    return call in TIMER_OR_IO
