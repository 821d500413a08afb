"""The runner measures real processes: peak memory, affinity, deadlines, stalls, threads."""

import os
import sys
import time

import pytest

from concbench.running import executor
from concbench.storing.records import ThreadRecord

pytestmark = pytest.mark.serial   # judges timing or the machine's load: make test runs it alone


def _spec(argv, **kw):
    return executor.LaunchSpec(argv=tuple(argv), env=dict(os.environ), **{"cwd": os.getcwd(), **kw})


def _collect():
    lines = []
    return lines, (lambda line: lines.append(line) or None)


def _python(code: str, launcher) -> executor.ProcessRecord:
    """A Python child running `code`, measured through the launcher, its stdout ignored."""
    return executor.execute(_spec([sys.executable, "-c", code]), launcher, lambda line: None)


def test_tiny_child_is_not_charged_with_the_harness_memory(launcher):
    ballast = bytearray(300 * 1024 * 1024)
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    record = executor.execute(_spec(["true"]), launcher, lambda line: None)
    assert record.exit_code == 0
    assert record.max_rss_bytes is not None and record.max_rss_bytes < 20 * 1024 * 1024
    del ballast


def test_a_big_child_is_measured_big(launcher):
    code = "b = bytearray(150 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1"
    record = _python(code, launcher)
    assert record.max_rss_bytes > 150 * 1024 * 1024
    assert record.user_ns is not None and record.wall_ns > 0


def test_the_child_is_pinned_to_the_given_cpus(launcher):
    lines, on_line = _collect()
    record = executor.execute(_spec(["grep", "Cpus_allowed_list", "/proc/self/status"], cpus=(0,)), launcher, on_line)
    assert record.exit_code == 0
    assert lines == ["Cpus_allowed_list:\t0"]
    # The observer moves off the measured CPU to the others the harness may use; with none, it shares it.
    others = sorted(os.sched_getaffinity(0) - {0})
    assert record.observer_cpus == (",".join(map(str, others)) if others else "0")


def test_threads_asleep_on_one_lock_are_found_waiting_on_one_futex(launcher):
    # Three threads wait for a lock main holds while it sleeps: the futex they sleep in is the lock's.
    code = ("import threading, time\n"
            "lock = threading.Lock(); lock.acquire()\n"
            "threads = [threading.Thread(target=lambda: (lock.acquire(), lock.release())) for _ in range(3)]\n"
            "[t.start() for t in threads]; time.sleep(0.6); lock.release(); [t.join() for t in threads]")
    record = _python(code, launcher)
    assert record.exit_code == 0 and record.wait_looks
    top = record.waits[0]
    assert top.syscall == "futex" and top.arg.startswith("0x"), record.waits
    assert top.count >= record.wait_looks / 2, (top, record.wait_looks)   # main's sleep is the rest
    assert top.threads == 3 and all(w.threads == 1 for w in record.waits[1:]), record.waits
    counts = [w.count for w in record.waits]
    assert counts == sorted(counts, reverse=True)   # the most counted first
    assert any(w.syscall in ("clock_nanosleep", "nanosleep", "select") for w in record.waits), record.waits


def test_threads_that_only_start_and_sleep_are_not_busy(launcher):
    # Twenty threads appear and sleep: a thread's CPU before it was first seen (its start) is not work.
    code = ("import threading, time\ntime.sleep(0.1)\n"
            "threads = [threading.Thread(target=time.sleep, args=(0.4,)) for _ in range(20)]\n"
            "[t.start() for t in threads]; [t.join() for t in threads]")
    record = _python(code, launcher)
    assert record.exit_code == 0 and max(s.threads for s in record.samples) >= 20
    assert max(s.busy for s in record.samples) <= 3, [s.busy for s in record.samples]


def test_the_observer_reports_how_well_it_covered_the_run(launcher):
    code = "import time; time.sleep(0.3)"
    record = _python(code, launcher)
    assert record.observer_samples is not None and record.observer_samples >= 3
    assert record.observer_interval_max_ns is not None and 0 < record.observer_interval_max_ns < record.wall_ns


def test_stdout_lines_and_stderr_tail(launcher):
    lines, on_line = _collect()
    record = executor.execute(_spec(["sh", "-c", "echo one; echo two; echo oops >&2; exit 3"]), launcher, on_line)
    assert lines == ["one", "two"]
    assert record.exit_code == 3 and "oops" in record.stderr_tail


def test_a_missing_program_fails_to_start(launcher):
    record = executor.execute(_spec(["/nonexistent/program"]), launcher, lambda line: None)
    assert not record.started and "No such file" in record.start_error


def test_a_launch_that_cannot_start_is_a_start_error_and_leaves_no_descriptor_open(launcher, tmp_path):
    before = len(os.listdir("/proc/self/fd"))
    record = executor.execute(_spec(["true"], cwd=tmp_path / "gone"), launcher, lambda line: None)
    assert not record.started and "No such file" in record.start_error
    assert len(os.listdir("/proc/self/fd")) == before   # the launcher's report pipe closed once, both ends


@pytest.mark.slow
def test_an_idle_process_past_its_deadline_is_a_stall_and_its_tree_is_killed(launcher, tmp_path):
    marker = tmp_path / "grandchild.pid"
    script = f"sleep 60 & echo $! > {marker}; echo started; wait"
    t0 = time.monotonic()
    record = executor.execute(_spec(["sh", "-c", script], line_deadline_s=2.5), launcher, lambda line: None)
    assert time.monotonic() - t0 < 10
    assert record.timed_out and record.timeout_kind == "deadline" and record.stall is True
    grandchild = int(marker.read_text())
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{grandchild}") or "Z" in open(f"/proc/{grandchild}/stat").read().split()[2]


@pytest.mark.parametrize("through_launcher", [True, False])
def test_a_child_the_program_leaves_running_ends_with_its_run(launcher, tmp_path, through_launcher):
    marker = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {marker}; exit 0"
    t0 = time.monotonic()
    record = executor.execute(_spec(["sh", "-c", script]), launcher if through_launcher else None, lambda line: None)
    assert time.monotonic() - t0 < 10 and record.exit_code == 0 and not record.timed_out
    child = int(marker.read_text())
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{child}") or "Z" in open(f"/proc/{child}/stat").read().split()[2]


@pytest.mark.slow
def test_a_busy_process_past_its_limit_is_a_timeout_but_not_a_stall(launcher):
    record = executor.execute(_spec([sys.executable, "-c", "while True: pass"], timeout_s=2.5), launcher, lambda line: None)
    assert record.timed_out and record.timeout_kind == "run" and record.stall is False
    assert record.user_ns is not None and record.user_ns > 1e9   # the launcher still reaped and reported it


def test_threads_and_memory_are_sampled_over_time(launcher):
    code = ("import threading, time\nev = threading.Event()\n"
            "for _ in range(30):\n    threading.Thread(target=ev.wait, daemon=True).start(); time.sleep(0.02)\n"
            "time.sleep(0.2)")
    record = _python(code, launcher)
    assert record.threads_max >= 25
    assert len(record.samples) > 20
    threads = [s.threads for s in record.samples]
    assert threads[0] < threads[-1]   # a slow leak shows as growth, not just a peak


def test_the_launcher_observes_each_thread_its_state_cpu_run_delay_and_switches(launcher):
    # Two threads spin while one sleeps: states, per-thread CPU and switch counts must all show it.
    code = ("import threading, time\n"
            "def spin():\n    end = time.time() + 0.6\n    while time.time() < end: pass\n"
            "ts = [threading.Thread(target=spin) for _ in range(2)] + [threading.Thread(target=time.sleep, args=(0.6,))]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]")
    record = _python(code, launcher)
    states = [s for s in record.samples if s.running is not None]
    assert len(states) > 20 and max(s.threads for s in states) == 4
    assert any(s.running >= 1 for s in states) and any(s.sleeping >= 2 for s in states)
    assert all(s.blocked is not None and s.run_delay_ns is not None and s.voluntary is not None for s in states)
    assert len(record.threads) == 4 and all(t.name for t in record.threads)
    assert sum(t.cpu_ns for t in record.threads) > 0.3e9            # the spinners' CPU, per thread, in ns
    assert sum(t.voluntary for t in record.threads) > 0
    assert record.run_delay_ns is not None and record.threads_untracked == 0
    assert 0 < record.observer_cpu_ns < record.wall_ns               # the observer reports its own cost


def test_a_consumer_can_stop_the_run(launcher):
    script = "echo bad; sleep 30"
    t0 = time.monotonic()
    record = executor.execute(_spec(["sh", "-c", script]), launcher, lambda line: "protocol error" if line == "bad" else None)
    assert record.aborted == "protocol error"
    assert time.monotonic() - t0 < 10


def test_the_launcher_counts_instructions_and_cycles_or_says_why_not(launcher):
    record = _python("sum(i * i for i in range(2_000_000))", launcher)
    assert record.exit_code == 0
    if record.counters_missing is None:   # a machine with a PMU that lets this user count
        assert record.instructions > 10_000_000 and 0.05 < record.instructions / record.cycles < 10
    else:   # this VM: no hardware events; the launcher says so and counts nothing
        assert record.counters_missing.startswith("perf_event_open: ") and record.instructions is None
        assert record.cycles is None


def test_counts_in_the_launchers_report_reach_the_run(tmp_path):
    # A stand-in launcher that runs the program and reports counts, as cb-launch does on a machine with a PMU.
    stand_in = tmp_path / "cb-launch"
    stand_in.write_text(f"""#!{sys.executable}
import json, os, subprocess, sys
fd = int(sys.argv[sys.argv.index("--report-fd") + 1])
program = sys.argv[sys.argv.index("--") + 1:]
with os.fdopen(fd, "w") as report:
    child = subprocess.Popen(program)
    report.write(json.dumps({{"pid": child.pid}}) + "\\n")
    report.flush()
    code = child.wait()
    report.write(json.dumps({{"exit": {{"code": code, "signal": 0, "exec_errno": 0, "wall_ns": 5, "user_ns": 1,
        "sys_ns": 1, "max_rss_kib": 1, "voluntary_switches": 0, "involuntary_switches": 0, "observer_cpus": "0",
        "instructions": 3_000_000, "cycles": 2_000_000, "counters_error": ""}}}}) + "\\n")
sys.exit(code)
""")
    stand_in.chmod(0o755)
    record = executor.execute(_spec(["true"]), stand_in, lambda line: None)
    assert (record.instructions, record.cycles, record.counters_missing) == (3_000_000, 2_000_000, None)


def test_without_a_launcher_peak_memory_is_null_with_a_reason():
    record = executor.execute(_spec(["true"]), None, lambda line: None)
    assert record.exit_code == 0
    assert record.max_rss_bytes is None and "inherits" in record.max_rss_missing


def test_a_run_delay_the_kernel_did_not_give_is_unknown_not_zero():
    threads = [ThreadRecord(1, "main", 10, 0, 1, 0)]
    assert executor.ProcessRecord(threads=threads).run_delay_ns == 0
    assert executor.ProcessRecord(threads=threads, run_delay_known=False).run_delay_ns is None


def _followed_with_small_limits(tmp_path, code: str):
    """Runs `code` through a launcher built with tiny limits (4 live threads followed at once, 3 ended ones
    listed), checks that it exited cleanly with no thread left untracked, and returns its record, the threads
    listed one by one, and how many the last row sums ("(N ended)", tid 0; 0 where there is no such row)."""
    import re
    import subprocess

    from concbench.running import toolchains
    target = tmp_path / "cb-launch"
    subprocess.run(["cc", "-O2", "-DMAX_TRACKED=4", "-DMAX_ENDED=3", "-o", str(target),
                    *map(str, toolchains.LAUNCHER_SOURCES)], check=True, timeout=60)
    record = _python(code, target)
    assert record.exit_code == 0 and record.threads_untracked == 0
    *listed, last = record.threads
    found = re.fullmatch(r"\((\d+) ended\)", last.name)
    if found and last.tid == 0:
        return record, listed, int(found.group(1))
    return record, [*listed, last], 0


@pytest.mark.slow   # seconds of waves of threads: not in make test-fast
def test_threads_beyond_the_limits_are_followed_and_summed_not_dropped(tmp_path):
    # The program starts 5 waves of 3 threads, one wave alive at a time. Every thread is followed, since the
    # limit is on threads alive at once; the threads beyond the listed ones are summed in one last row. Each wave
    # lives 0.75 s: with 0.25 s a whole wave went unseen once in a fresh-clone CI (13 threads of 16), the
    # launcher's sampling held up that long by the VM, and the test passed 5 of 5 times alone and in a rerun.
    code = ("import threading, time\n"
            "for wave in range(5):\n"
            "    go = threading.Event()\n"
            "    threads = [threading.Thread(target=go.wait) for _ in range(3)]\n"
            "    [t.start() for t in threads]; time.sleep(0.75); go.set(); [t.join() for t in threads]\n")
    record, listed, summed = _followed_with_small_limits(tmp_path, code)
    assert len(listed) == 3 and summed > 0, record.threads
    assert len(listed) + summed == 1 + 5 * 3, record.threads   # main and every wave's threads
    assert record.threads[-1].cpu_ns > 0


@pytest.mark.slow   # seconds of waves of threads: not in make test-fast
def test_threads_left_unfollowed_at_the_limit_are_followed_once_others_end(tmp_path):
    # 7 threads alive at once, 4 followed: when the first wave ends, the second, until then counted as
    # untracked, must be followed from then on, though the thread count alone (1 followed + 3 untracked
    # against 4 alive) no longer says that anything changed.
    code = ("import threading, time\n"
            "waves = [threading.Event() for _ in range(2)]\n"
            "threads = [[threading.Thread(target=go.wait) for _ in range(3)] for go in waves]\n"
            "[t.start() for t in threads[0]]; time.sleep(0.25)\n"
            "[t.start() for t in threads[1]]; time.sleep(0.25)\n"
            "waves[0].set(); [t.join() for t in threads[0]]; time.sleep(0.5)\n"
            "waves[1].set(); [t.join() for t in threads[1]]\n")
    record, listed, summed = _followed_with_small_limits(tmp_path, code)
    assert len(listed) + summed == 1 + 2 * 3, record.threads
