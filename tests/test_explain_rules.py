"""The rules of `concbench explain` on made-up runs, in process: each rule just past its threshold fires and
just short of it does not, and every test asserts the whole set of findings, not the first one."""

import json
from dataclasses import replace

import pytest
from jsonschema import Draft202012Validator

from concbench.analysis import explain
from concbench.analysis.explain import RULES, diagnose
from concbench.analysis.summary import summarise
from concbench.report import tables
from concbench.schema import load
from concbench.spec.catalog import Benchmark
from concbench.storing.records import IterationRecord, RunRecord, RunStatus, SampleRecord, ThreadRecord, WaitRecord

MS = 1_000_000
WALL = 1000 * MS
PLAIN = Benchmark("b", "b", "made up", "test", "", "n", {}, {})


def _run(cores: int, iteration_ms: float, cpu_cores: float, *, variant="x/y", param="100", options=None,
         rss=lambda t: 10 << 20, running=1, busy=1, switches=10, involuntary=0, delay_share=0.0, threads=4,
         samples=100, untracked=0, gap=0.01, waits=(), looks=0, status=RunStatus.OK, stall=None,
         jitter=0.002) -> RunRecord:
    """One run whose figures are given directly: CPU in cores, switches per second per core, run delay as a share
    of wall per core; its iteration times spread by ± `jitter` around `iteration_ms` (so medians have intervals)."""
    trace = [SampleRecord(t * 10 * MS, rss(t), threads, 0, running, threads - running, 0, busy, 0, 0, 0)
             for t in range(samples)]
    times = [iteration_ms * (1 + jitter * (i % 3 - 1)) for i in range(9)]
    iterations = [IterationRecord(i, int(ms * MS), "r", "verified", False) for i, ms in enumerate(times)]
    per_second = WALL / 1e9 * cores
    return RunRecord("b", variant, param, options or {}, cores, 0, status, stall=stall, wall_ns=WALL,
                     user_ns=int(cpu_cores * WALL), sys_ns=0, threads_max=threads,
                     voluntary_switches=int(switches * per_second), involuntary_switches=int(involuntary * per_second),
                     run_delay_ns=int(delay_share * WALL * cores), threads_untracked=untracked,
                     observer_interval_max_ns=int(gap * WALL), waits=list(waits), wait_looks=looks,
                     iterations=iterations if status == RunStatus.OK else [], samples=trace)


def _diagnoses(runs, benchmark: Benchmark = PLAIN):
    return diagnose(summarise(runs), {"b": benchmark})


def _rules(runs, benchmark: Benchmark = PLAIN) -> list[list[str]]:
    return [[f.rule.name for f in d.findings] for d in _diagnoses(runs, benchmark)]


def _finding(runs, name: str, benchmark: Benchmark = PLAIN):
    return next(f for d in _diagnoses(runs, benchmark) for f in d.findings if f.rule.name == name)


# -- Karp–Flatt: serial and busy-not-faster ----------------------------------------------------------------------
# From 1 to 2 cores, speedup s gives e = 2/s − 1: e = 0.5 at s = 4/3.

@pytest.mark.parametrize("speedup, found", [(1.30, ["serial"]), (1.37, [])])
def test_serial_fires_just_past_its_fraction_and_not_short_of_it(speedup, found):
    assert _rules([_run(1, 100, 1.0), _run(2, 100 / speedup, 1.0)]) == [found]


@pytest.mark.parametrize("cpu, found", [(1.45, ["serial"]), (1.55, ["overhead"])])
def test_idle_cores_make_it_serial_and_busy_ones_overhead(cpu, found):
    # BUSY_SHARE of 2 cores is 1.5: below, the added core sat idle; at or above, it worked for nothing.
    assert _rules([_run(1, 100, 1.0), _run(2, 80, cpu)]) == [found]


def test_on_many_cores_a_middling_cpu_is_still_a_finding():
    # 16 cores, e = 0.6 with 6 cores busy: between the old absolute 1.25 cores and 75 %, nothing fired.
    speedup = 1 / (0.6 * (1 - 1 / 16) + 1 / 16)
    assert _rules([_run(1, 100, 1.0), _run(16, 100 / speedup, 6.0)]) == [["serial"]]


def test_slower_than_the_first_point_is_a_slowdown_ranked_after_its_cause():
    # speedup 0.4: e = 4, no serial fraction but no speedup either: the busy cores say why (overhead, thin on two
    # points), the slowdown says by how much, with the intervals apart, and ranks after it as a symptom.
    assert _rules([_run(1, 100, 1.0), _run(2, 250, 1.9)]) == [["overhead", "slowdown"]]
    assert not _finding([_run(1, 100, 1.0), _run(2, 250, 1.9)], "slowdown").weak
    assert "(speedup 0.40 < 0.9: slower)" in _finding([_run(1, 100, 1.0), _run(2, 250, 1.9)], "overhead").crossed


@pytest.mark.parametrize("ms, found", [(105, ["serial"]), (115, ["serial", "slowdown"])])
def test_no_faster_is_serial_and_slower_is_a_serial_bottleneck_and_a_slowdown(ms, found):
    # A global lock on 2 cores gives speedup about 1 and e about 1: noise puts e a little above 1 (0.95: e = 1.1),
    # still a serial bottleneck; below the slowdown's 0.9 (0.87), as lock hand-overs between cores make it on a
    # VM, it is still one (the added core idle) and a slowdown too, which ranks after it.
    assert _rules([_run(1, 100, 1.0), _run(2, ms, 1.0)]) == [found]


def test_karp_flatt_is_read_as_a_trend_along_three_points_and_called_weak_at_two():
    two = _finding([_run(1, 100, 1.0), _run(2, 80, 1.0)], "serial")
    assert two.weak.startswith("two points only")
    # e = 0.2 at 2 cores (s = 1.667), 0.8 at 4 (s = 1.176): rising, the mark of overhead growing with p.
    rising = _finding([_run(1, 100, 1.0), _run(2, 60, 1.2), _run(4, 85, 1.3)], "serial")
    assert not rising.weak and "e rises along the sweep (0.20, 0.80)" in rising.text
    steady = _finding([_run(1, 100, 1.0), _run(2, 75, 1.0), _run(4, 62.5, 1.0)], "serial")
    assert "e steady along the sweep (0.50, 0.50)" in steady.text


@pytest.mark.parametrize("threads, named", [(3, True), (1, False)])
def test_a_serial_bottleneck_names_the_lock_several_sleeping_threads_wait_on(threads, named):
    # The join of main is one thread's wait; a lock that three threads were found asleep on is the bottleneck.
    waits = [WaitRecord("futex", "0x55d2a0", 6, threads), WaitRecord("futex", "0x7f0990", 6, 1)]
    found = _finding([_run(1, 100, 1.0), _run(2, 80, 1.0, waits=waits, looks=12)], "serial")
    lock = "3 sleeping threads found waiting in futex at 0x55d2a0 (50 % of looks): one lock or condition"
    assert (lock in found.text) == named, found.text


def test_too_few_looks_or_a_tie_name_no_wait():
    few = _finding([_run(1, 100, 1.0), _run(2, 80, 1.0, waits=[WaitRecord("futex", "0x1", 4, 3)], looks=4)], "serial")
    tie = [WaitRecord("futex", "0x1", 6, 2), WaitRecord("futex", "0x2", 6, 2)]
    tied = _finding([_run(1, 100, 1.0), _run(2, 80, 1.0, waits=tie, looks=12)], "serial")
    assert "waiting in" not in few.text and "waiting in" not in tied.text


def _threads(*named: tuple[str, int]) -> list[ThreadRecord]:
    return [ThreadRecord(tid, name, cpu * MS, 0, 0, 0) for tid, (name, cpu) in enumerate(named, 1)]


def test_idle_cores_name_the_one_thread_that_did_the_work():
    run = replace(_run(2, 80, 1.0), threads=_threads(("main", 900), ("worker-1", 50), ("worker-2", 50)))
    found = _finding([_run(1, 100, 1.0), run], "serial")
    assert "one thread, 'main', used 90 % of the threads' CPU" in found.text
    run = replace(run, threads=_threads(("worker-1", 450), ("worker-2", 450), ("main", 100)))   # a pool of two
    assert "one thread" not in _finding([_run(1, 100, 1.0), run], "serial").text


def test_busy_cores_say_which_threads_used_the_cpu():
    run = replace(_run(2, 80, 1.6),
                  threads=_threads(("GC Thread#0", 300), ("GC Thread#1", 300), ("worker 1", 200), ("worker 2", 200)))
    found = _finding([_run(1, 100, 1.0), run], "overhead")
    assert "CPU by thread: 'GC Thread#N' ×2 60 %, 'worker N' ×2 40 %" in found.text
    run = replace(run, threads=_threads(("app", 500), ("app", 500)))
    assert "CPU by thread" not in _finding([_run(1, 100, 1.0), run], "overhead").text


@pytest.mark.parametrize("ipc_widest, said", [
    (1.4, ", below 75 %: the cores stall on memory or shared cache lines"),   # 1.4 < 0.75 × 2.0 = 1.5
    (1.6, ": as fast per cycle, so the extra cycles go to extra instructions"),
])
def test_busy_cores_tell_stalls_from_spinning_by_instructions_per_cycle(ipc_widest, said):
    first = replace(_run(1, 100, 1.0), instructions=2_000_000, cycles=1_000_000)
    widest = replace(_run(2, 80, 1.6), instructions=int(ipc_widest * 1_000_000), cycles=1_000_000)
    found = _finding([first, widest], "overhead")
    assert f"instructions per cycle 2.00 at cores=1, {ipc_widest:.2f} at cores=2{said}" in found.text
    (diagnosis,) = _diagnoses([first, widest])
    table = tables.explain_table(diagnosis)
    assert table.columns[-1].name == "IPC" and [row[-1].text for row in table.rows] == ["2.00", f"{ipc_widest:.2f}"]
    assert _rules([first, widest]) == [["overhead"]]


def test_without_counters_nothing_is_said_of_instructions_per_cycle():
    first = replace(_run(1, 100, 1.0), instructions=2_000_000, cycles=1_000_000)   # one point counted is no trend
    widest = replace(_run(2, 80, 1.6), counters_missing="perf_event_open: No such file or directory")
    assert "instructions per cycle" not in _finding([first, widest], "overhead").text
    (sweep,) = explain.as_document(_diagnoses([first, widest]))["sweeps"]
    assert [p["ipc"] for p in sweep["points"]] == [2.0, None]
    assert sweep["points"][1]["counters_missing"] == "perf_event_open: No such file or directory"
    first = replace(first, instructions=None, cycles=None)
    (diagnosis,) = _diagnoses([first, widest])
    assert "IPC" not in [c.name for c in tables.explain_table(diagnosis).columns]   # no counters, no column


# -- slowdown ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ms, found", [(112, ["serial", "slowdown"]), (108, ["serial"])])
def test_slowdown_fires_just_below_its_speedup(ms, found):
    # speedup 100/112 = 0.89 < 0.9: slower; 100/108 = 0.93: no faster, with the added core idle (serial).
    assert _rules([_run(1, 100, 1.0), _run(2, ms, 1.0)]) == [found]


def test_a_slowdown_within_the_noise_is_no_slowdown():
    # speedup 0.8 on medians, but iterations spread ±30 %: the medians' intervals overlap; no faster, one core idle.
    assert _rules([_run(1, 100, 1.0, jitter=0.3), _run(2, 125, 1.0, jitter=0.3)]) == [["serial"]]


def test_a_slowdown_without_intervals_is_said_to_lack_evidence():
    found = _finding([_run(1, 100, 1.0, jitter=0), _run(2, 200, 1.0, jitter=0)], "slowdown")
    assert "no interval" in found.weak


# -- oversubscribed --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("running, delay, found", [(3, 0.3, ["oversubscribed"]), (2, 0.3, []), (3, 0.2, [])])
def test_oversubscribed_needs_both_runnable_threads_per_core_and_run_delay(running, delay, found):
    # 2 cores: 3 running or runnable is 1.5 per core (> 1.25), 2 is 1.0 (one per core).
    assert _rules([_run(2, 100, 2.0, running=running, delay_share=delay)]) == [found]


@pytest.mark.parametrize("cpu, found", [(1.5, ["oversubscribed"]), (1.4, [])])
def test_oversubscribed_needs_the_cores_busy(cpu, found):
    # A pool woken all at once queues for a CPU in bursts while its cores sit mostly idle: run delay and
    # runnable threads, but no more work than cores. Busy starts at BUSY_SHARE of 2 cores, 1.5.
    assert _rules([_run(2, 100, cpu, running=3, delay_share=0.3)]) == [found]


def test_a_hand_off_seen_at_one_core_ranks_before_the_slowdown_at_two():
    # Per-item hand-offs 4 times slower on 2 cores: switches per second per core fall below the threshold there,
    # so hand-off holds at the first point only; the slowdown, a symptom, still ranks after it.
    runs = [_run(1, 100, 1.0, switches=50_000), _run(2, 400, 1.2, switches=6_000)]
    assert _rules(runs) == [["hand-off", "slowdown"]]


def test_a_pool_of_one_thread_per_core_with_one_more_awake_is_not_oversubscribed():
    # 4 cores: 5 running or runnable is 1.25 per core, a right-sized pool and a thread waking beside it; 6 is 1.5.
    assert _rules([_run(4, 100, 4.0, running=5, delay_share=0.3)]) == [[]]
    assert _rules([_run(4, 100, 4.0, running=6, delay_share=0.3)]) == [["oversubscribed"]]


def test_a_hand_off_on_one_core_is_not_called_oversubscribed():
    # Producer and consumer on one core: the woken one is runnable while its waker still runs (run delay, 2 per
    # core), yet capping threads at the cores would not help: hand-off says what it is.
    assert _rules([_run(1, 100, 1.0, running=2, delay_share=0.4, switches=150_000)]) == [["hand-off"]]


def test_four_spinning_threads_on_two_cores_are_oversubscribed_and_idle_service_threads_are_not():
    spinning = _run(2, 100, 2.0, running=4, threads=4, delay_share=0.5)
    idle_jvm = _run(2, 100, 1.0, variant="x/jvm", running=1, threads=40, delay_share=0.3)
    assert _rules([spinning, idle_jvm]) == [[], ["oversubscribed"]]   # x/jvm, then x/y


# -- blocked pool and waiting, and the coverage check ---------------------------------------------------------------

@pytest.mark.parametrize("running, busy, found", [(0, 8, ["blocked-pool"]), (0, 7, ["waiting"]), (1, 8, [])])
def test_blocked_pool_needs_sleepers_and_a_burst_of_busy_threads(running, busy, found):
    # max(8, 4 × 2 cores) = 8 busy threads in one sample; without the burst, the sleepers are only waiting.
    assert _rules([_run(2, 100, 0.05, running=running, busy=busy, threads=20)]) == [found]


def test_too_few_samples_lower_a_thread_state_finding_to_not_enough_evidence():
    found = _finding([_run(2, 100, 0.05, running=0, samples=5)], "waiting")
    assert found.weak == "5 thread-state samples in a run, fewer than 10"
    assert "not enough evidence" in str(found)
    untracked = _finding([_run(2, 100, 0.05, running=0, untracked=3)], "waiting")
    assert "3 threads of a run not followed" in untracked.weak
    gap = _finding([_run(2, 100, 0.05, running=0, gap=0.3)], "waiting")
    assert gap.weak == "a gap of 30 % of a run between two samples"
    assert not _finding([_run(2, 100, 0.05, running=0, gap=0.2)], "waiting").weak
    # Run delay is a running total no gap can miss: a starved observer does not weaken oversubscription.
    assert not _finding([_run(2, 100, 2.0, running=40, delay_share=0.5, gap=0.4)], "oversubscribed").weak


def test_a_program_that_mostly_waits_is_waiting():
    assert _rules([_run(2, 100, 0.01, running=0)]) == [["waiting"]]


# -- hand-off ------------------------------------------------------------------------------------------------------

def test_hand_off_fires_where_the_sweep_does_not_scale_and_not_where_it_does():
    scales = [_run(1, 100, 1.0, switches=50_000), _run(2, 52, 1.95, switches=50_000)]
    stuck = [_run(1, 100, 1.0, switches=50_000, variant="x/z"), _run(2, 95, 1.95, switches=50_000, variant="x/z")]
    # Busy and not faster, but hand-off names the mechanism that Karp–Flatt only measures: overhead is left out.
    assert _rules(scales + stuck) == [[], ["hand-off"]]


@pytest.mark.parametrize("switches, found", [(20_000, ["hand-off"]), (19_000, [])])
def test_hand_off_on_a_single_point_says_scaling_is_not_measured(switches, found):
    runs = [_run(2, 100, 1.0, switches=switches)]
    assert _rules(runs) == [found]
    if found:
        assert "whether it scales is not measured here" in _finding(runs, "hand-off").text


@pytest.mark.parametrize("timer_looks, found", [(6, []), (5, ["hand-off"])])
def test_switches_of_threads_that_wait_for_timers_or_input_are_no_hand_off(timer_looks, found):
    # Of 12 looks at sleepers, 6 (half) found in nanosleep and poll: the switches are theirs, not a hand-off.
    waits = [WaitRecord("nanosleep", "0x0", timer_looks - 1, 4), WaitRecord("poll", "0x0", 1, 1),
             WaitRecord("futex", "0x55d2a0", 12 - timer_looks, 2)]
    assert _rules([_run(2, 100, 1.0, switches=50_000, waits=waits, looks=12)]) == [found]


# -- memory --------------------------------------------------------------------------------------------------------

def test_memory_that_grows_through_the_run_is_found_and_a_flat_one_is_not():
    growing = _run(2, 100, 1.9, rss=lambda t: (20 << 20) + t * (2 << 20))
    flat = _run(2, 100, 1.9, variant="x/z")
    assert _rules([growing, flat]) == [["memory"], []]


def test_a_working_set_made_in_the_first_iteration_is_no_growth():
    # Nine iterations of 100 ms in 1 s: the first ends at 200 ms (sample 20). 4 MiB at start-up, 200 MiB from
    # 150 ms on (the input and the working set) is what the run needs, not what accumulates; read after the first
    # tenth of the run, it would have been ×50.
    made = _run(2, 100, 1.9, rss=lambda t: (4 << 20) if t < 15 else (200 << 20))
    leaking = _run(2, 100, 1.9, rss=lambda t: (4 << 20) if t < 15 else (200 << 20) + t * (6 << 20), variant="x/z")
    assert _rules([made, leaking]) == [[], ["memory"]]
    assert "320.0 MiB after the first iteration, 794.0 MiB at the end" in _finding([leaking], "memory").text


# -- what counts as parallelism ------------------------------------------------------------------------------------

def test_an_option_that_is_not_parallelism_never_reads_as_slowdown():
    runs = [_run(2, 100, 1.0, options={"config": "all"}), _run(2, 300, 1.0, options={"config": "none"})]
    (d,) = _diagnoses(runs)
    assert d.dimension == "config" and [f.rule.name for f in d.findings] == []


def test_only_the_benchmarks_declared_option_is_parallelism():
    runs = [_run(2, 100, 1.0, options={"window": "1"}), _run(2, 98, 1.0, options={"window": "2"}),
            _run(2, 99, 1.0, options={"window": "4"})]
    (undeclared,) = _diagnoses(runs)
    assert [p.parallelism for p in undeclared.points] == [None, None, None] and not undeclared.findings
    # An integer option like wait_ms=1,100 must not read as p = 1 → 2; window, declared, is capped at the cores.
    (d,) = _diagnoses(runs, replace(PLAIN, parallelism_option="window"))
    assert [p.parallelism for p in d.points] == [1.0, 2.0, 2.0]
    assert [f.rule.name for f in d.findings] == ["serial"]


# -- growth --------------------------------------------------------------------------------------------------------

def _sized(exponent: float, variant="x/y", last_status=RunStatus.OK, stall=None):
    runs = [_run(1, 10 * (n / 1000) ** exponent, 1.0, param=str(n), variant=variant) for n in (1000, 2000, 4000)]
    return runs + [_run(1, 10 * 8 ** exponent, 1.0, param="8000", variant=variant, status=last_status, stall=stall)]


LINEAR = replace(PLAIN, growth_exponent=1.0)


@pytest.mark.parametrize("exponent, found", [(1.15, ["superlinear"]), (1.05, [])])
def test_growth_beyond_the_declared_exponent_is_super_linear(exponent, found):
    assert _rules(_sized(exponent), LINEAR) == [found]


def test_without_a_declared_exponent_growth_is_never_judged():
    # fib, nqueens and matmul grow exponentially or cubically by design.
    assert _rules(_sized(3.0)) == [[]]


def test_a_stall_at_the_largest_size_is_not_growth_but_a_timeout_while_computing_is():
    stalled = _sized(1.0, last_status=RunStatus.TIMEOUT, stall=True)
    computing = _sized(1.0, variant="x/z", last_status=RunStatus.TIMEOUT, stall=False)
    assert _rules(stalled + computing, LINEAR) == [["stall"], ["superlinear"]]


# -- the documented table and the JSON ---------------------------------------------------------------------------

def test_every_rule_is_documented_with_a_threshold_a_meaning_and_a_next_step():
    assert len({r.name for r in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.fires_when and rule.means and rule.next_step and (rule.point or rule.sweep)
        assert any(c.isdigit() for c in rule.fires_when), rule.name   # the threshold is stated


def test_the_json_document_has_its_version_and_matches_its_schema():
    runs = [_run(1, 100, 1.0), _run(2, 80, 1.0), _run(2, 100, 0.05, variant="x/z", running=0, samples=5)]
    document = json.loads(json.dumps(explain.as_document(_diagnoses(runs))))
    schema = load("explain-v1")
    Draft202012Validator.check_schema(schema)
    Draft202012Validator(schema).validate(document)
    assert document["format_version"] == 1
    findings = [f for sweep in document["sweeps"] for f in sweep["findings"]]
    assert {f["rule"] for f in findings} == {"serial", "waiting"}
    serial = next(f for f in findings if f["rule"] == "serial")
    assert serial["threshold"] == "e = 0.60 ≥ 0.5 and CPU 1.00 < 75% of 2 cores"
    assert serial["next_step"] and serial["means"] and serial["coverage"].startswith("two points only")
