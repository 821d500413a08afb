"""The estimate `study run` prints before it starts: from earlier runs of the same points where the store has
them, else bounded by the points' deadlines; and what it says it rests on."""

import pytest

from concbench.running.plan import Request, make_plan
from concbench.running.session import DEFAULT_RUN_TIMEOUT_S
from concbench.scaleout.estimate import Estimate, duration, estimate
from concbench.spec.catalog import load_catalog
from concbench.storing.records import IterationRecord, RunRecord, RunStatus
from concbench.storing.store import Store


@pytest.fixture(scope="module")
def plan(root):
    request = Request(benchmarks=("fib",), variants=("fake/ok",), params=("5", "10"), cores=(2,), iterations=4, warmup=1)
    return make_plan(load_catalog(root), request, {"fake/ok"})


def _earlier(store: Store, point, walls_s: list[float], iterations: int = 4, variant: str | None = None,
             options: dict | None = None) -> None:
    session = store.start_session("concbench run", None, {}, {})
    for index, wall in enumerate(walls_s):
        store.record_run(session, RunRecord(
            point.benchmark.id, variant or point.variant.name, point.param,
            dict(point.options) if options is None else options, point.cores, index, RunStatus.OK,
            wall_ns=int(wall * 1e9), iterations=[IterationRecord(i, 1000, "5", "verified", i == 0) for i in range(iterations)]))
    store.end_session(session, "finished")


def test_a_point_run_before_takes_the_median_of_its_earlier_runs_one_never_run_is_bounded(plan, tmp_path):
    store = Store(tmp_path / "results.sqlite")
    five, ten = plan
    _earlier(store, five, [1.0, 3.0, 2.0])
    found = estimate(plan, 3, store)
    assert (found.known_points, found.earlier_runs, found.new_points) == (1, 3, 1)
    assert found.known_s == pytest.approx(3 * 2.0)                          # 3 runs × the median, 2 s
    assert ten.deadline_s is None and found.bound_s == pytest.approx(3 * DEFAULT_RUN_TIMEOUT_S)   # the run's limit
    assert found.line() == ("estimated time: about 6 s for 1 point (from 3 earlier runs of them); 1 point never run "
                            "here, whose time is unknown: at most 1 h 30 min by their deadlines")
    assert estimate(plan, 3, store, timeout_s=20).bound_s == pytest.approx(3 * 20)   # --timeout bounds each run


def test_earlier_runs_of_other_lengths_are_scaled_and_a_resumed_sessions_runs_are_not_counted_again(plan, tmp_path):
    store = Store(tmp_path / "results.sqlite")
    five, ten = plan
    _earlier(store, five, [1.0], iterations=2)     # half the planned iterations: twice as long as planned
    _earlier(store, ten, [4.0, 4.0])
    done = store.runs(2)[:1]                       # a resumed session holds one run of N=10 already
    found = estimate(plan, 2, store, done=done)
    assert (found.known_points, found.new_points) == (2, 0)
    assert found.known_s == pytest.approx(2 * 2.0 + 1 * 4.0)
    assert found.line() == "estimated time: about 8 s (from 3 earlier runs of these points)"
    assert estimate(plan, 1, store, done=store.runs(1) + store.runs(2)).line() == "estimated time: nothing is left to run"


def test_durations_read_as_seconds_minutes_or_hours():
    assert [duration(s) for s in (0.2, 89, 91, 3000, 5400, 3 * 3600 + 125)] == ["1 s", "89 s", "2 min", "50 min",
                                                                                  "1 h 30 min", "3 h 02 min"]
    assert Estimate(0, 0, 0, 7200, 40).line() == ("estimated time: 40 points never run here, whose time is unknown: at "
                                                  "most 2 h 00 min by their deadlines")


def test_a_point_only_other_variants_ran_is_guessed_from_theirs_whatever_their_shape(plan, tmp_path):
    store = Store(tmp_path / "results.sqlite")
    five, ten = plan
    _earlier(store, five, [2.0, 6.0], variant="swift/sc", options={**dict(five.options), "shape": "other"})
    _earlier(store, five, [10.0], variant="swift/gcd", options={**dict(five.options), "cutoff": "3"})  # other work
    found = estimate(plan, 3, store)
    assert (found.known_points, found.guessed_points, found.new_points) == (0, 1, 1)
    assert found.guessed_s == pytest.approx(3 * 4.0)   # 3 runs × the median of the other variant's, 4 s
    assert found.line() == ("estimated time: about 12 s for 1 point guessed from other variants' runs of them; "
                            "1 point never run here, whose time is unknown: at most 1 h 30 min by their deadlines")
