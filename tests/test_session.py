"""A session driven by an in-process scripted executor and a fake clock: no process, no sleep.

Scheduling (interleaved rounds, skip after a timeout), judging (every way a run can end),
stall detection and statistics are tested here exactly, and fast."""

from __future__ import annotations

import pytest
from kit import Script, ScriptedExecutor, fib, right

from concbench.analysis.summary import summarise
from concbench.errors import RequestRefused, UsageError
from concbench.running import executor
from concbench.running.plan import Request, make_plan
from concbench.running.session import Progress, Session, Settings, resumable, run_session, session_config
from concbench.storing.records import RunStatus, SampleRecord
from concbench.storing.store import Store

SECOND = 1_000_000_000


def _session(catalog, tmp_path, script, runs=1, settings=None, **request):
    request = Request(**{"benchmarks": ("fib",), "variants": ("fake/ok",), "cores": (1,), "iterations": 3,
                         "warmup": 1, **request})
    plan = make_plan(catalog, request, set(catalog.variants))
    executor = ScriptedExecutor(script)
    store = Store(tmp_path / "s.sqlite")
    session_id = store.start_session("test", None, {}, {})
    result = Session(catalog, store, settings or Settings(runs=runs), Progress(), executor).run_plan(session_id, plan)
    return result, executor, store, session_id


def test_rounds_interleave_the_points(catalog, tmp_path):
    _, executor, _, _ = _session(catalog, tmp_path, right, runs=3, params=("5", "10"))
    assert [p for p, _ in executor.launched] == ["5", "10"] * 3


def test_after_a_timeout_larger_sizes_of_the_line_are_skipped(catalog, tmp_path):
    def script(model, param):
        return Script(hello=True, timed_out=True) if param == "10" else right(model, param)

    result, executor, _, _ = _session(catalog, tmp_path, script, runs=2, params=("5", "10", "15"))
    assert [p for p, _ in executor.launched] == ["5", "10", "5", "10"]
    statuses = [(r.param, r.status) for r in result.runs]
    assert statuses == [("5", "ok"), ("10", "timeout"), ("15", "skipped")] * 2


def test_a_resumed_session_runs_only_the_runs_it_lacks_and_its_stored_timeouts_still_skip(catalog, tmp_path):
    def script(model, param):
        return Script(timed_out=True) if param == "10" else right(model, param)

    whole, _, store, session_id = _session(catalog, tmp_path, script, runs=2, params=("5", "10", "15"))
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("fake/ok",), cores=(1,), iterations=3, warmup=1,
                                      params=("5", "10", "15")), set(catalog.variants))
    for kept, launched in [(whole.runs[:1], ["10", "5", "10"]),   # round 0's first run kept: the rest runs
                           (whole.runs[:5], [])]:                 # 10 timed out before: 15 is skipped, not run
        executor = ScriptedExecutor(script)
        result = Session(catalog, store, Settings(runs=2), Progress(), executor).run_plan(session_id, plan, kept)
        assert [p for p, _ in executor.launched] == launched
        assert [(r.param, r.run_index, r.status) for r in result.runs] == [
            (r.param, r.run_index, r.status) for r in whole.runs]   # each run once, in the session's order


def test_resume_finds_the_unfinished_session_of_the_same_config_and_refuses_another_machine(catalog, tmp_path):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("fake/ok",), cores=(1,), params=("5",)),
                     set(catalog.variants))
    store = Store(tmp_path / "s.sqlite")
    config = session_config({"plan": "p1", "request": {"options": [("k", ("1", "2"))]}}, plan, Settings(runs=2))
    for status, cpu in [("interrupted", "CPU A"), ("finished", "CPU A"), ("running", "CPU B")]:
        store.end_session(store.start_session("run", None, {"cpu_model": cpu}, config), status)
    store.end_session(store.start_session("run", None, {}, {**config, "runs": 3}), "interrupted")   # other settings
    found = resumable(store, config)
    assert (found.id, found.status) == (3, "running")         # the latest unfinished one of exactly this config
    assert resumable(store, {**config, "plan": "p2"}) is None  # another plan
    with pytest.raises(UsageError, match="session 3 ran on another machine .its cpu_model"):
        run_session(catalog, store, plan, Settings(runs=2), Progress(), config, ScriptedExecutor(right), resume=found)


@pytest.mark.parametrize("script, status, reason, words", [
    (Script(results=["55"] * 3, ns=[1, 2, 3]), "ok", None, ""),
    (Script(results=["56"], ns=[1], timed_out=True), "wrong", "wrong-result", "then no iteration within the deadline"),
    (Script(results=["56"], ns=[1], exit_code=None, signal=6), "wrong", "wrong-result", "then killed by signal 6"),
    (Script(results=["55"] * 3, ns=[1, 2, 3], metrics={"spawns": 3}), "wrong", "metric", "spawns=3, the spec expects 176"),
    (Script(results=["55"] * 3, ns=[1, 2, 3], metrics={"spawns": 176}), "ok", None, ""),
    (Script(results=["55"], ns=[1], timed_out=True), "timeout", "timeout", "(stalled)"),
    (Script(results=["55"], ns=[1], timed_out=True, busy=True), "timeout", "timeout", "after 1 iterations"),
    (Script(results=["55"], ns=[1], exit_code=3), "crashed", "exit", "exit status 3"),
    (Script(results=["55"], ns=[1], exit_code=None, signal=11), "crashed", "signal", "signal 11"),
    (Script(results=["55"], ns=[1], extra_lines=["not json"]), "malformed", "protocol", "line 3"),
    (Script(results=["55"] * 3, ns=[1, 2, 3], hello=False), "malformed", "protocol", "hello must come first"),
    (Script(results=["55"] * 2, ns=[1, 2]), "malformed", "protocol", "ended after 2 of 3 iterations"),
])
def test_every_way_a_run_ends_is_judged(catalog, tmp_path, script, status, reason, words):
    # fib 10 with count_spawns=1 and the 2-task shape of a described variant: the spec expects 176 spawns.
    catalog = _with_shape(catalog)
    result, _, _, _ = _session(catalog, tmp_path, lambda m, p: script, params=("10",),
                               options=(("count_spawns", ("1",)), ("cutoff", ("0",))))
    run = result.runs[0]
    assert (run.status, run.reason) == (status, reason), run.message
    assert words in run.message


def _with_shape(catalog):
    """fake/ok's fib, given the shape `asynclet` so the per-shape spawn counts apply to it."""
    from dataclasses import replace

    from concbench.spec.catalog import Catalog
    variant = catalog.variants["fake/ok"]
    served = {**variant.served, "fib": replace(variant.served["fib"], shapes=("asynclet",))}
    shaped = replace(variant, served=served)
    return Catalog(catalog.root, catalog.benchmarks, catalog.implementations, {**catalog.variants, "fake/ok": shaped})


def test_a_stall_is_an_idle_tail_and_a_busy_tail_is_not():
    idle = [SampleRecord(t * 10_000_000, 0, 1, 5 * SECOND) for t in range(400)]
    busy = [SampleRecord(t * 10_000_000, 0, 1, t * 10_000_000) for t in range(400)]
    assert executor.was_idle(idle, 4 * SECOND) is True
    assert executor.was_idle(busy, 4 * SECOND) is False
    assert executor.was_idle([], 4 * SECOND) is None   # nothing sampled: unknown, not "no stall"


def test_statistics_of_a_scripted_session(catalog, tmp_path):
    def script(model, param):
        return Script(results=[fib(int(param))] * 5, ns=[900, 100, 200, 300, 400])

    result, _, store, session_id = _session(catalog, tmp_path, script, runs=2, params=("5",), iterations=5)
    (row,) = summarise(store.runs(session_id))
    assert row.stats.n == 8                # 2 runs × 4 measured iterations; the warm-up 900 is left out
    assert row.stats.median == 250 and row.stats.min == 100 and row.stats.max == 400
    assert all(r.status == RunStatus.OK for r in result.runs)


REFUSAL = Script(hello=False, exit_code=2, stderr="\nfake.py: fib 7 is not served here\n")


def test_exit_2_before_hello_is_a_refusal_that_stops_the_session_with_the_binarys_line(catalog, tmp_path):
    def script(model, param):
        return REFUSAL if param == "7" else right(model, param)

    with pytest.raises(RequestRefused) as refusal:
        _session(catalog, tmp_path, script, params=("5", "7", "9"))
    assert str(refusal.value) == "fake/ok refused fib n=7: fake.py: fib 7 is not served here"
    store = Store(tmp_path / "s.sqlite")
    assert [r.param for r in store.runs(1)] == ["5"]     # the run before it is kept; the refusal is no run


@pytest.mark.parametrize("script, reason, words", [
    (Script(hello=False, exit_code=3, stderr="boom"), "exit", "exit status 3: boom"),
    (Script(hello=False, exit_code=None, signal=6), "signal", "signal 6"),
    (Script(hello=False, exit_code=2, signal=9), "signal", "signal 9"),
    (Script(results=[], ns=[], exit_code=2, stderr="late"), "exit", "exit status 2: late"),   # after hello
])
def test_any_other_end_before_the_first_iteration_is_a_crash_kept_as_data(catalog, tmp_path, script, reason, words):
    result, _, _, _ = _session(catalog, tmp_path, lambda m, p: script, params=("5",))
    run = result.runs[0]
    assert (run.status, run.reason) == ("crashed", reason) and words in run.message


def test_check_records_a_refusal_of_a_described_point_as_a_failed_run(catalog, tmp_path):
    result, _, _, _ = _session(catalog, tmp_path, lambda m, p: REFUSAL, params=("5",),
                               settings=Settings(runs=1, stop_on_refusal=False))
    run = result.runs[0]
    assert (run.status, run.reason) == ("crashed", "exit") and "fib 7 is not served here" in run.message


def test_a_session_the_harness_fails_in_is_stored_crashed_never_finished(catalog, tmp_path, monkeypatch):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("fake/ok",), cores=(1,), params=("5", "10")),
                     set(catalog.variants))
    store = Store(tmp_path / "s.sqlite")
    record_run = store.record_run
    written = []

    def full_disk(session_id, run):
        if written:
            raise OSError(28, "No space left on device")
        written.append(run)
        return record_run(session_id, run)

    monkeypatch.setattr(store, "record_run", full_disk)
    config = session_config({"plan": "p"}, plan, Settings(runs=1))
    with pytest.raises(OSError):
        run_session(catalog, store, plan, Settings(runs=1), Progress(), config, ScriptedExecutor(right))
    (session,) = store.sessions()
    assert session.status == "crashed" and len(store.runs(session.id)) == 1
    assert resumable(store, config).id == session.id      # --resume goes on with it


def test_each_round_has_its_own_order_which_the_seed_repeats_and_sizes_keep_theirs(catalog, tmp_path):
    def launched(seed):
        _, executor, _, _ = _session(catalog, tmp_path / str(seed), right, variants=("fake/ok", "fake/slow"),
                                     params=("5", "10", "15"), settings=Settings(runs=4, seed=seed))
        return executor.launched

    first = launched(1)
    assert first == launched(1) and first != launched(2)
    rounds = [first[i:i + 6] for i in range(0, 24, 6)]
    assert len({tuple(r) for r in rounds}) > 1                       # not the same order every round
    for order in rounds:
        assert sorted(order) == sorted(rounds[0])                     # every point once a round
        for model in ("ok", "slow"):
            assert [p for p, m in order if m == model] == ["5", "10", "15"]   # a line's sizes in order


def test_settle_runs_the_series_whose_runs_differ_again_cheapest_first_and_leaves_steady_ones(catalog, tmp_path):
    launches = {"5": 0, "10": 0, "15": 0}

    def script(model, param):
        launches[param] += 1
        if param == "5":                              # steady: every process alike
            return right(model, param)
        # Runs differing by 50 %: "10" cheap, "15" three times dearer.
        scale = (3 if param == "15" else 1) * (2 if launches[param] % 2 else 3)
        return Script(results=[fib(int(param))] * 3, ns=[scale * 1000] * 3)

    settings = Settings(runs=3, settle_s=60.0)
    result, executor, store, session_id = _session(catalog, tmp_path, script, params=("5", "10", "15"),
                                                   settings=settings)
    counts = {p: sum(1 for r in result.runs if r.param == p) for p in ("5", "10", "15")}
    assert counts == {"5": 3, "10": 9, "15": 9}        # up to 3 × --runs each, the steady series untouched
    settled = [p for p, _ in executor.launched[9:]]
    assert settled[:2] == ["10", "10"]                  # the cheaper one first
    assert sorted(r.run_index for r in result.runs if r.param == "15") == list(range(9))
    assert len(store.runs(session_id)) == 21           # every run stored
    none = _session(catalog, tmp_path / "off", script, params=("5", "10"), settings=Settings(runs=3))[0]
    assert len(none.runs) == 6                          # without --settle, the rounds only
