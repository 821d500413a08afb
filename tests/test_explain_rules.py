"""The rules of `concbench explain` on made-up runs: each fires on its evidence and only there."""

from concbench.records import IterationRecord, RunRecord, RunStatus, SampleRecord
from concbench.report.explain import RULES, diagnose
from concbench.report.summary import summarise

MS = 1_000_000


def _run(cores: int, iteration_ms: float, cpu_cores: float, *, variant="x/y", param="100", options=None,
         rss=lambda t: 10 << 20, running=1, switches=10, status=RunStatus.OK, stall=None) -> RunRecord:
    wall = 1000 * MS
    samples = [SampleRecord(t * 10 * MS, rss(t), 4, 0, running, 3, 0, 1, 0, 0, 0) for t in range(100)]
    iterations = [IterationRecord(i, int(iteration_ms * MS), "r", "verified", False) for i in range(5)]
    return RunRecord("b", variant, param, options or {}, cores, 0, status, stall=stall, wall_ns=wall,
                     user_ns=int(cpu_cores * wall), sys_ns=0, threads_max=4, voluntary_switches=switches,
                     involuntary_switches=0, run_delay_ns=0, iterations=iterations, samples=samples)


def _rules(runs) -> dict[str, list[str]]:
    return {d.title: [f.rule.name for f in d.findings] for d in diagnose(summarise(runs))}


def test_more_cores_that_make_it_slower_while_busy_is_slowdown_and_busy_not_faster():
    (rules,) = _rules([_run(1, 100, 1.0), _run(2, 250, 1.9)]).values()
    assert rules == ["overhead", "slowdown"]


def test_a_good_speedup_has_no_finding():
    assert list(_rules([_run(1, 100, 1.0), _run(2, 52, 1.95)]).values()) == [[]]


def test_memory_that_grows_through_the_run_is_found_and_a_flat_one_is_not():
    growing = _run(2, 100, 1.9, rss=lambda t: (20 << 20) + t * (2 << 20))
    flat = _run(2, 100, 1.9, variant="x/z")
    found = _rules([growing, flat])
    assert found == {"b x/y 100": ["memory"], "b x/z 100": []}


def test_a_program_that_mostly_waits_is_waiting():
    assert list(_rules([_run(2, 100, 0.01, running=0)]).values()) == [["waiting"]]


def test_an_option_that_is_not_parallelism_never_reads_as_slowdown():
    runs = [_run(2, 100, 1.0, options={"config": "all"}), _run(2, 300, 1.0, options={"config": "none"})]
    (d,) = diagnose(summarise(runs))
    assert d.dimension == "config" and [f.rule.name for f in d.findings] == []


def test_window_sweeps_count_parallelism_up_to_the_cores():
    runs = [_run(2, 100, 1.0, options={"window": "1"}), _run(2, 98, 1.0, options={"window": "2"}),
            _run(2, 99, 1.0, options={"window": "4"})]
    (d,) = diagnose(summarise(runs))
    assert [p.parallelism for p in d.points] == [1.0, 2.0, 2.0]
    assert [f.rule.name for f in d.findings] == ["serial"]


def test_every_rule_is_documented_with_a_threshold_and_a_meaning():
    assert len({r.name for r in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.fires_when and rule.means and (rule.point or rule.sweep)
