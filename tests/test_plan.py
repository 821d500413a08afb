import dataclasses

import pytest

from concbench.errors import UsageError
from concbench.running.plan import (
    Request,
    Shard,
    make_plan,
    parse_option,
    parse_shard,
    parse_values,
    plan_identity,
    shard_of,
)

ALL = {"swift/gcd", "swift/sc", "swift/seq", "fake/ok", "fake/slow"}


def test_values_lists_and_ranges():
    assert parse_values("1..4", "--x") == ("1", "2", "3", "4")
    assert parse_values("64,2048,17000", "--x") == ("64", "2048", "17000")
    assert parse_values("1,3..5", "--x") == ("1", "3", "4", "5")
    assert parse_values("317:3-7-8-50-75-4", "--param") == ("317:3-7-8-50-75-4",)   # dashes are no range
    assert parse_option("window=1..3") == ("window", ("1", "2", "3"))
    for bad in ("5..1", "a..b", "1,,2"):
        with pytest.raises(UsageError):
            parse_values(bad, "--x")


def test_the_faithful_shape_runs_by_default_and_every_shape_with_all_shapes(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/gcd",), size="test", cores=(2,)), ALL)
    assert {p.shape for p in plan} == {"cps"} and len(plan) == 4   # declared first: the faithful port
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/gcd",), size="test", cores=(2,),
                                      all_shapes=True), ALL)
    assert sorted({p.shape for p in plan}) == ["cps", "parallel"]
    assert len(plan) == 8


def test_a_named_shape_replaces_the_default_ones(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/gcd",), size="test", cores=(2,),
                                      options=(("shape", ("parallel",)),)), ALL)
    assert {p.shape for p in plan} == {"parallel"}


def test_option_sweeps_multiply_with_cores_and_params(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("fake/slow",), params=("5", "6"), cores=(1, 2),
                                      options=(("pad_ms", ("1", "2", "3")),)), ALL)
    assert len(plan) == 2 * 2 * 3
    assert {dict(p.options)["pad_ms"] for p in plan} == {"1", "2", "3"}


def test_size_set_sweeps_resolve_cores_and_drop_duplicates(catalog):
    served = [v.name for v in catalog.variants.values() if v.serves("countdown")]
    assert served, "countdown: no implementation serves it"
    plan = make_plan(catalog, Request(benchmarks=("countdown",), variants=(served[0],), size="quick", cores=(2,)),
                     set(served))
    windows = sorted(dict(p.options)["window"] for p in plan if p.shape == plan[0].shape)
    assert windows == ["1", "2"]     # 1, 2 and {cores}=2: the duplicate is gone


def test_size_set_options_and_per_param_options(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/seq",), size="quick", cores=(2,)), ALL)
    by_param = {p.param: dict(p.options) for p in plan}
    assert by_param["35"]["cutoff"] == "20" and "cutoff" not in by_param["25"]
    assert plan[0].iterations == 3 and plan[0].warmup == 1


def test_default_warmup_never_eats_every_iteration(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/seq",), params=("5",), cores=(1,),
                                      iterations=3), ALL)
    assert (plan[0].iterations, plan[0].warmup) == (3, 1)   # paper's 10 of 110, scaled to 3: one
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/seq",), params=("5",), cores=(1,),
                                      iterations=55), ALL)
    assert plan[0].warmup == 5
    with pytest.raises(UsageError, match="leaves no measured iteration"):
        make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/seq",), params=("5",), cores=(1,),
                                   iterations=3, warmup=3), ALL)


def test_hidden_and_unavailable_variants_stay_out_of_default_runs(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), size="test", cores=(1,)), {"swift/sc", "fake/ok"})
    assert {p.variant.name for p in plan} == {"swift/sc"}
    with pytest.raises(UsageError, match="not available"):
        make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/gcd",), cores=(1,)), {"swift/sc"})


def test_the_conformance_check_batches_each_shape_that_offers_repeat_once(catalog):
    from concbench.running import conformance
    plan = make_plan(catalog, Request(benchmarks=("fib", "spawn-waiting"), variants=("fake/ok",), size="test",
                                      cores=(2,)), ALL)
    extra = conformance.repeated(plan)
    assert [(p.benchmark.id, p.param, dict(p.options)["repeat"]) for p in extra] == [("fib", plan[0].param, "3")]


def test_a_description_offering_repeat_where_the_benchmark_forbids_it_fails_the_check(catalog):
    from concbench.running import conformance
    from concbench.spec.describe import Domain, Served
    fake = catalog.implementations["fake"].description
    served = {**fake.served, "spawn-waiting": {"ok": Served((), {"repeat": Domain("int", low=1)})}}
    rows = conformance.Rows("fake")
    conformance.check_repetitions(catalog, dataclasses.replace(fake, served=served), rows)
    assert "does not allow inner repetitions" in rows["spawn-waiting"].problems[0]


def test_a_benchmarks_option_defaults_are_passed_explicitly_and_find_their_reference(catalog):
    plan = make_plan(catalog, Request(benchmarks=("winnow",), variants=("c/seq",), params=("100", "7"), cores=(2,),
                                      options=(("p", ("2",)),)), {"c/seq"})
    assert [dict(p.options) for p in plan] == [{"p": "2", "nelts": "100", "seed": "0", "shape": "plain"},
                                               {"p": "2", "nelts": "7", "seed": "0", "shape": "plain"}]
    plain = make_plan(catalog, Request(benchmarks=("winnow",), variants=("c/seq",), params=("100",), cores=(2,)),
                      {"c/seq"})
    assert catalog.benchmarks["winnow"].reference_for("100", 0, dict(plain[0].options)) is not None


# -- shards ----------------------------------------------------------------------------------------------------

def _sweep(catalog):
    return make_plan(catalog, Request(benchmarks=("fib", "nqueens"), variants=("swift/gcd", "swift/sc"), size="test",
                                      cores=(1, 2), all_shapes=True), ALL)


@pytest.mark.parametrize("parts", [1, 2, 3, 5])
def test_the_parts_of_a_plan_cover_every_point_once_and_keep_each_series_whole(catalog, parts):
    plan = _sweep(catalog)
    shards = [shard_of(plan, Shard(k, parts)) for k in range(1, parts + 1)]
    assert sorted(map(repr, (p for s in shards for p in s))) == sorted(map(repr, plan))   # each point exactly once
    assert all(shards)
    owner = {p.skip_key: k for k, s in enumerate(shards) for p in s}
    assert all(owner[p.skip_key] == k for k, s in enumerate(shards) for p in s)   # a line of sizes stays together


def test_a_part_and_the_plans_identity_do_not_depend_on_the_order_of_the_plan(catalog):
    plan = _sweep(catalog)
    backwards = list(reversed(plan))
    assert plan_identity(plan) == plan_identity(backwards) != plan_identity(plan[1:])
    assert set(map(repr, shard_of(plan, Shard(2, 3)))) == set(map(repr, shard_of(backwards, Shard(2, 3))))


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "²/3", "1/٣"])
def test_a_bad_shard_is_one_line(text):
    with pytest.raises(UsageError, match="K/N with 1 ≤ K ≤ N"):
        parse_shard(text)


def test_more_parts_than_series_is_refused(catalog):
    plan = make_plan(catalog, Request(benchmarks=("fib",), variants=("swift/sc",), size="test", cores=(2,)), ALL)
    with pytest.raises(UsageError, match="the plan has 1 series, fewer than 2 parts"):
        shard_of(plan, Shard(1, 2))
