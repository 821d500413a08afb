"""A study's claims, judged one by one (docs/claims.md): the kinds, the bootstrap over runs, Holm, untestable."""

import json
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest

from concbench.analysis.claim_verdicts import Context, Outcome, agreement, claims_document, holm, judge_claims
from concbench.analysis.summary import summarise
from concbench.errors import CatalogError
from concbench.spec.catalog import load_catalog
from concbench.spec.claims import Kind, load_claims
from concbench.spec.studies import STUDY_FILE, claims_as_planned, load_studies, plan_study, read_study, study_path
from concbench.storing.records import IterationRecord, RunRecord, RunStatus

ROOT = Path(__file__).resolve().parent.parent
MS = 1_000_000
HERE = Context("s", "quick", 2, frozenset({"swift/sc", "swift/gcd", "go/goroutines"}))


def _runs(variant, times_ms, param="8", benchmark="fib", cores=2, status=RunStatus.OK, stall=False, shape=""):
    """One run per figure: three measured iterations of it (and a warm-up)."""
    out = []
    for index, ms in enumerate(times_ms):
        iterations = [IterationRecord(i, int(ms * MS), "r", "verified", i == 0) for i in range(4)]
        out.append(RunRecord(benchmark=benchmark, variant=variant, param=param,
                             options={"shape": shape} if shape else {}, cores=cores, run_index=index, status=status,
                             iterations=iterations if status == RunStatus.OK else [], stall=stall,
                             wall_ns=int(ms * MS * 4)))
    return out


def _claims(*entries, statistic="median"):
    return load_claims(list(entries), "geomean" if statistic == "median" else "mean-z", "test.toml")


def _judge(claims, runs, context=HERE):
    return judge_claims(claims, summarise(runs), context)


RATIO = {"id": "r", "words": "a is half of b", "where": "Table 1", "kind": "ratio", "benchmark": "fib",
         "param": "8", "a": "swift/sc", "b": "swift/gcd", "band": [0.4, 0.6]}


def test_a_ratio_inside_its_band_reproduces_and_one_far_outside_does_not():
    runs = _runs("swift/sc", [50, 51, 49, 50]) + _runs("swift/gcd", [100, 101, 99, 100])
    (finding,) = _judge(_claims(RATIO), runs)
    assert finding.outcome == Outcome.REPRODUCES and 0.49 < finding.estimate < 0.51
    runs = _runs("swift/sc", [90, 91, 89, 90]) + _runs("swift/gcd", [100, 101, 99, 100])
    (finding,) = _judge(_claims(RATIO), runs)
    assert finding.outcome == Outcome.FAILS


def test_a_ratio_whose_interval_straddles_its_band_is_inconclusive_not_a_pass():
    # The point estimate (0.59) lies inside [0.4, 0.6], but the runs spread it across the upper edge.
    runs = _runs("swift/sc", [48, 70, 59, 52, 66]) + _runs("swift/gcd", [100, 100, 100, 100, 100])
    (finding,) = _judge(_claims(RATIO), runs)
    assert 0.4 < finding.estimate < 0.6 and finding.high > 0.6
    assert finding.outcome == Outcome.INCONCLUSIVE, finding


def test_a_ratio_just_inside_its_band_by_its_runs_is_inconclusive_once_it_carries_the_session_spread():
    # 0.56 with runs spread by about 1 %: inside [0.4, 0.6] by its runs alone, but a session effect of 5 % a cell
    # (the log ratio's 7 %) reaches past 0.6 in more draws than Holm allows.
    runs = _runs("swift/sc", [56, 56.5, 55.5, 56, 56.2]) + _runs("swift/gcd", [100, 101, 99, 100, 100.5])
    (alone,) = _judge(_claims(RATIO), runs)
    assert alone.outcome == Outcome.REPRODUCES and alone.high < 0.58, alone
    (spread,) = _judge(_claims(dict(RATIO, session_spread=0.05)), runs)
    assert spread.outcome == Outcome.INCONCLUSIVE and spread.high > 0.6, spread
    assert spread.estimate == alone.estimate   # the spread widens the interval, never moves the figure
    # A study's spread reaches every claim that does not set its own.
    (study_wide,) = judge_claims(load_claims([RATIO], "geomean", "test.toml", 0.05), summarise(runs), HERE)
    (own,) = judge_claims(load_claims([dict(RATIO, session_spread=0)], "geomean", "test.toml", 0.05),
                          summarise(runs), HERE)
    assert study_wide.outcome == Outcome.INCONCLUSIVE and own.outcome == Outcome.REPRODUCES


def test_a_cell_with_fewer_than_three_runs_is_inconclusive_whatever_its_figures():
    runs = _runs("swift/sc", [50, 50]) + _runs("swift/gcd", [100, 100, 100])
    (finding,) = _judge(_claims(RATIO), runs)
    assert finding.outcome == Outcome.INCONCLUSIVE and "too few runs" in finding.why


def test_a_claim_that_needs_more_runs_is_inconclusive_with_fewer_and_its_cells_get_them_in_the_plan():
    runs = _runs("swift/sc", [50, 51, 49, 50]) + _runs("swift/gcd", [100, 101, 99, 100])
    (finding,) = _judge(_claims(dict(RATIO, runs=5)), runs)
    assert finding.outcome == Outcome.INCONCLUSIVE and "too few runs (fewer than 5)" in finding.why
    (finding,) = _judge(_claims(dict(RATIO, runs=4)), runs)
    assert finding.outcome == Outcome.REPRODUCES
    study = load_studies(ROOT)["kth-swift-2022"]
    matmul = next(c for c in study.claims if c.id == "matmul-sc-faster")
    study = replace(study, claims=(replace(matmul, runs=7),))
    plan, _ = plan_study(load_catalog(ROOT), study, "quick", {"swift/sc", "swift/gcd"}, 2)
    assert {p.runs for p in plan if p.benchmark.id == "matmul"} == {7}
    assert {p.runs for p in plan if p.benchmark.id != "matmul"} == {None}


def test_communication_time_is_each_runs_median_less_its_compute_time_and_none_where_that_leaves_nothing():
    def with_compute(runs, compute_ms):
        return [replace(run, metrics={"compute_ns": compute_ms * MS}) for run in runs]
    claim = dict(RATIO, statistic="median-communication", band=[2.5, 3.5])
    # Whole times 50 against 30 ms (1.7×); less 20 ms of compute, 30 against 10 ms: 3×.
    runs = with_compute(_runs("swift/sc", [50, 50.5, 49.5]), 20) + with_compute(_runs("swift/gcd", [30, 30.2, 29.8]), 20)
    (finding,) = _judge(_claims(claim), runs)
    assert finding.outcome == Outcome.REPRODUCES and 2.9 < finding.estimate < 3.1, finding
    covered = with_compute(_runs("swift/sc", [50, 50, 50]), 60) + with_compute(_runs("swift/gcd", [30] * 3), 20)
    (finding,) = _judge(_claims(claim), covered)
    assert finding.outcome == Outcome.INCONCLUSIVE and finding.why.startswith("no run leaving communication time")


RANKING = {"id": "k", "words": "sc before gcd before go", "where": "Table 5", "kind": "ranking",
           "benchmark": "fib", "groups": [[{"variant": "swift/sc", "param": "8"}, {"variant": "swift/gcd", "param": "8"},
                                           {"variant": "go/goroutines", "param": "8"}]]}


def test_a_ranking_with_one_flipped_pair_names_that_pair_and_does_not_reproduce():
    runs = (_runs("swift/sc", [10, 10.2, 9.8]) + _runs("swift/gcd", [40, 40.5, 39.5])
            + _runs("go/goroutines", [20, 20.1, 19.9]))
    (finding,) = _judge(_claims(RANKING), runs)
    assert finding.outcome == Outcome.FAILS
    assert finding.why.startswith("flipped: fib 8: swift/gcd ÷ go/goroutines") and "swift/sc" not in finding.why
    assert finding.ours == "2 of 3 pairs in the claimed order"


def test_a_ranking_in_order_reproduces():
    runs = (_runs("swift/sc", [10, 10.2, 9.8]) + _runs("swift/gcd", [20, 20.5, 19.5])
            + _runs("go/goroutines", [40, 40.1, 39.9]))
    (finding,) = _judge(_claims(RANKING), runs)
    assert finding.outcome == Outcome.REPRODUCES and finding.why == "every pair in the claimed order"


STALL = {"id": "s", "words": "GCD stalled at N = 6", "where": "Table 5.9", "kind": "event", "event": "stall",
         "cells": [{"benchmark": "nqueens", "variant": "swift/gcd", "param": "6"}]}


def test_a_stall_is_found_as_an_event_not_read_as_a_missing_value():
    runs = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="6", status=RunStatus.TIMEOUT, stall=True)
    (finding,) = _judge(_claims(STALL), runs)
    assert finding.outcome == Outcome.REPRODUCES and finding.ours == "stall in 3 of 3 runs"
    finished = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="6")
    (finding,) = _judge(_claims(STALL), finished)
    assert finding.outcome == Outcome.FAILS
    slow = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="6", status=RunStatus.TIMEOUT, stall=False)
    (finding,) = _judge(_claims(STALL), slow)
    assert finding.outcome == Outcome.FAILS, "a timeout that used the CPU all along is no stall"


def test_a_size_skipped_after_a_stall_at_a_smaller_one_counts_as_reaching_the_stall():
    earlier = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="5", status=RunStatus.TIMEOUT, stall=True)
    skipped = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="6", status=RunStatus.SKIPPED)
    (finding,) = _judge(_claims(STALL), earlier + skipped)
    assert finding.outcome == Outcome.REPRODUCES and "3 skipped: 6 after a stall at 5" in finding.ours
    finished = _runs("swift/gcd", [1, 1, 1], benchmark="nqueens", param="5", status=RunStatus.TIMEOUT)
    (finding,) = _judge(_claims(STALL), finished + skipped)   # skipped after a slow run, not a stall: no evidence
    assert finding.outcome == Outcome.INCONCLUSIVE


def test_holm_turns_borderline_verdicts_inconclusive_when_a_study_has_several():
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # Alone, six runs of a ratio near 0.54 against [0.4, 0.6], one of them past the edge, reproduce at 0.05 ...
    def borderline(param):
        return _runs("swift/sc", [50, 51, 53, 55, 58, 63], param=param) + _runs("swift/gcd", [100] * 6, param=param)
    (alone,) = _judge(_claims(RATIO), borderline("8"))
    assert alone.outcome == Outcome.REPRODUCES and 0.01 < alone.p_adjusted <= 0.05
    # ... but three such claims in one study do not: Holm multiplies the smallest p-value by 3, the next by 2.
    claims = _claims(RATIO, dict(RATIO, id="r2", param="9"), dict(RATIO, id="r3", param="10"))
    findings = _judge(claims, borderline("8") + borderline("9") + borderline("10"))
    assert all(f.outcome == Outcome.INCONCLUSIVE and "after Holm over 3 claims" in f.why for f in findings), findings


def test_a_claim_at_a_scale_or_on_cores_it_cannot_be_tested_at_is_untestable_not_failed():
    paper = dict(RATIO, scale="paper")
    (finding,) = _judge(_claims(paper), [])
    assert finding.outcome == Outcome.UNTESTABLE_SCALE and "--scale paper" in finding.why
    wide = dict(RATIO, min_cores=32, command="concbench slurm submit … study run s --scale paper")
    (finding,) = _judge(_claims(wide), [])
    assert finding.outcome == Outcome.UNTESTABLE_HERE and "needs 32 cores" in finding.why and "slurm" in finding.why
    encore = dict(RATIO, needs="an Encore compiler (none exists here)")
    assert _judge(_claims(encore), [])[0].outcome == Outcome.UNTESTABLE_HERE
    (finding,) = _judge(_claims(dict(RATIO, a="haskell/stm")), _runs("swift/gcd", [1, 1, 1]))
    assert finding.outcome == Outcome.UNTESTABLE_HERE and "haskell/stm is not built here" in finding.why
    (finding,) = _judge(_claims(RATIO), _runs("swift/gcd", [1, 1, 1]))
    assert finding.outcome == Outcome.UNTESTABLE_SCALE and "no series for fib swift/sc 8" in finding.why


def test_a_sign_claim_judges_each_pair_and_a_scaling_claim_its_exponent():
    sign = {"id": "g", "words": "SC faster at every N", "where": "Table 4.3", "kind": "sign", "benchmark": "fib",
            "pairs": [[{"variant": "swift/sc", "param": str(n)}, {"variant": "swift/gcd", "param": str(n)}]
                      for n in (1, 2)]}
    runs = (_runs("swift/sc", [10, 11, 9], param="1") + _runs("swift/gcd", [20, 21, 19], param="1")
            + _runs("swift/sc", [10, 11, 9], param="2") + _runs("swift/gcd", [20, 21, 19], param="2"))
    (finding,) = _judge(_claims(sign), runs)
    assert finding.outcome == Outcome.REPRODUCES and finding.details[:2] == (
        "fib 1: swift/sc ÷ swift/gcd: 0.5000× [0.4286×, 0.5789×]", "fib 2: swift/sc ÷ swift/gcd: 0.5000× [0.4286×, 0.5789×]")
    assert "fib swift/sc 1: 10.0 ms (median, 3 runs)" in finding.details
    growth = {"id": "q", "words": "quadratic", "where": "post", "kind": "scaling", "benchmark": "fib",
              "variant": "swift/sc", "cells": [{"param": str(n)} for n in (100, 1000, 10000)], "band": [1.8, 2.2]}
    runs = [r for n in (100, 1000, 10000) for r in _runs("swift/sc", [n * n / 1e4 * f for f in (1, 1.02, 0.98)],
                                                          param=str(n))]
    (finding,) = _judge(_claims(growth), runs)
    assert finding.outcome == Outcome.REPRODUCES and abs(finding.estimate - 2) < 0.02
    runs = [r for n in (100, 1000, 10000) for r in _runs("swift/sc", [n / 1e2 * f for f in (1, 1.02, 0.98)],
                                                          param=str(n))]
    assert _judge(_claims(growth), runs)[0].outcome == Outcome.FAILS


def test_the_same_runs_give_the_same_verdicts_and_figures():
    runs = _runs("swift/sc", [48, 70, 59, 52, 66]) + _runs("swift/gcd", [100, 103, 98, 101, 100])
    first, second = _judge(_claims(RATIO), runs), _judge(_claims(RATIO), list(reversed(runs)))
    assert first == second


@pytest.mark.parametrize("entry, message", [
    (dict(RATIO, kind="vibe"), "kind = 'vibe' is not one of"),
    ({k: v for k, v in RATIO.items() if k != "band"}, "a ratio claim needs band"),
    (dict(RATIO, band=[2, 1]), "band must be"),
    (dict(RATIO, a={"variant": "swift/sc", "colour": "red"}), "unknown keys: colour"),
    ({k: v for k, v in RATIO.items() if k != "param"}, "a cell without 'param'"),
    (dict(RATIO, scale="huge"), "scale = 'huge'"),
    (dict(STALL, event="sadness"), "event = 'sadness'"),
    (dict(RATIO, runs=2), "runs must be a whole number, at least 3"),
    (dict(RATIO, session_spread=-0.1), "session_spread must be a number from 0"),
    (dict(RATIO, session_spread="wide"), "session_spread must be a number from 0"),
])
def test_a_malformed_claim_is_refused_with_its_study_and_id(entry, message):
    with pytest.raises(CatalogError, match=message):
        _claims(entry)
    with pytest.raises(CatalogError, match="two claims with id 'r'"):
        _claims(RATIO, RATIO)


def test_the_five_studies_list_at_least_25_claims_of_every_kind_naming_known_cells():
    catalog = load_catalog(ROOT)
    claims = [c for study in load_studies(ROOT).values() for c in study.claims]
    assert len(claims) >= 25 and {c.kind for c in claims} == set(Kind)
    for claim in (c for c in claims if not c.needs):   # a claim that needs what is not here may name it (encore/…)
        for cell in claim.all_cells():
            assert cell.benchmark in catalog.benchmarks, (claim.id, cell.name)
            assert cell.variant.split(" [")[0] in catalog.variants, (claim.id, cell.name)


def test_the_claims_document_matches_its_schema_with_and_without_verdicts():
    schema = json.loads((ROOT / "concbench" / "schema" / "claims-v1.schema.json").read_text())
    for study in load_studies(ROOT).values():
        jsonschema.validate(claims_document(study.id, study.claims), schema)
    claims = _claims(RATIO, RANKING, STALL, dict(RATIO, id="w", band=[0.4, float("inf")]))
    runs = _runs("swift/sc", [50, 51, 49]) + _runs("swift/gcd", [100, 101, 99])
    document = claims_document("s", claims, _judge(claims, runs), 7, "quick")
    jsonschema.validate(document, schema)
    assert document["claims"][3]["band"] == [0.4, None]
    assert [c["verdict"]["outcome"] for c in document["claims"]] == [
        "reproduces", "untestable at this scale", "untestable at this scale", "reproduces"]


def test_a_session_is_judged_by_the_claims_it_was_planned_with_and_says_which_changed_since():
    path = study_path(ROOT, "countdown-2023")
    text = path.read_text(encoding="utf-8")
    today = read_study(text, path)
    # Planned with a narrower band and another note: the band changes the verdict, the note does not.
    then = text.replace("band = [0.89, inf]", "band = [0.89, 1.12]").replace("Stage G (indexed", "Stage G (the indexed")
    assert then != text
    planned = claims_as_planned(ROOT, today, {STUDY_FILE: then})
    assert planned.planned and planned.changed == ("indexed-swift-near-c",) and not planned.note
    band = {c.id: c.band for c in planned.claims}["indexed-swift-near-c"]
    assert band == (0.89, 1.12)
    current = claims_as_planned(ROOT, today, {STUDY_FILE: then}, planned=False)
    assert current.claims == today.claims and current.changed == ("indexed-swift-near-c",)
    # The study's session spread is part of the judging of every claim that does not set its own.
    spread = claims_as_planned(ROOT, today, {STUDY_FILE: text.replace("\nsession_spread = 0.03", "\nsession_spread = 0.05")})
    own = {"c-scales-better-than-naive-swift"}   # session_spread = 0.01 of its own
    assert own < {c.id for c in today.claims} and set(spread.changed) == {c.id for c in today.claims} - own
    # Only words changed: nothing the verdict reads.
    assert claims_as_planned(ROOT, today, {STUDY_FILE: text.replace("Stage G (indexed", "Stage G, indexed (")}).changed == ()
    # A session from before stored study files, or one whose file no longer loads: today's, saying why.
    older = claims_as_planned(ROOT, today, {})
    assert older.claims == today.claims and not older.planned and "predates" in older.note
    broken = claims_as_planned(ROOT, today, {STUDY_FILE: "id = 'countdown-2023'\n[[claims]]\nid = 1"})
    assert broken.claims == today.claims and "no longer loads" in broken.note


def test_two_sessions_agree_claim_by_claim_and_a_move_across_is_named():
    claims = _claims(RATIO, dict(RATIO, id="q", band=[0.8, 1.2]), dict(STALL))
    half = _runs("swift/sc", [50, 51, 49]) + _runs("swift/gcd", [100, 101, 99])
    even = _runs("swift/sc", [100, 101, 99]) + _runs("swift/gcd", [100, 101, 99])
    first, second = _judge(claims, half), _judge(claims, even)
    assert [f.outcome for f in first] == [Outcome.REPRODUCES, Outcome.FAILS, Outcome.UNTESTABLE_SCALE]
    assert [f.outcome for f in second] == [Outcome.FAILS, Outcome.REPRODUCES, Outcome.UNTESTABLE_SCALE]
    agreed = agreement(first, second)
    assert (agreed.total, agreed.same, agreed.moved, agreed.crossed) == (3, 1, ("r", "q"), ("r", "q"))
    assert agreed.line.startswith("the same verdict for 1 of 3 claims (33 %); 2 between reproduces and does not")
    assert agreement(first, first).line == ("the same verdict for 3 of 3 claims (100 %); none between reproduces "
                                            "and does not reproduce")
