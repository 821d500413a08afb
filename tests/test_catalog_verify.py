"""The catalog reads every file in the checkout; references are checked by independent computation."""

import pytest

from concbench.errors import CatalogError
from concbench.running.verify import Verdict, verdict
from concbench.spec.catalog import load_benchmark


def test_the_six_thesis_benchmarks_are_defined(catalog):
    assert {"spawn-waiting", "spawn-waiting-group", "spawn-actors", "fib", "nqueens", "matmul"} <= set(catalog.benchmarks)


def test_every_test_and_quick_parameter_has_a_reference(catalog):
    for bench in catalog.benchmarks.values():
        for size in ("test", "quick"):
            for point in bench.sizes[size].points:
                options = bench.with_defaults(point.param, dict(point.options))
                assert bench.reference_for(point.param, 0, options) is not None, (bench.id, point.param)


def test_every_variant_serves_known_benchmarks(catalog):
    assert {"swift/gcd", "swift/sc", "swift/seq"} <= set(catalog.variants)
    assert catalog.variants["swift/gcd"].shapes["fib"] == ("cps", "parallel")
    languages = {v.language for v in catalog.variants.values()}
    shown = {impl.language for impl in catalog.implementations.values() if not impl.hidden}
    assert len(shown) >= 8 and shown <= languages, (shown, languages)
    for variant in (v for v in catalog.variants.values() if v.language in shown):
        assert variant.served, f"{variant.name} serves nothing"
        unknown = set(variant.served) - set(catalog.benchmarks)
        assert not unknown, f"{variant.name} serves benchmarks with no TOML: {sorted(unknown)}"
        for bench, shapes in variant.shapes.items():
            assert shapes and len(set(shapes)) == len(shapes), (variant.name, bench, shapes)


def _lcg(seed):
    state = seed
    while True:
        state = (1664525 * state + 1013904223) % 2**32
        yield state


def _matmul_checksum(n, seed):
    g = _lcg(seed)
    a = [[next(g) % 1000 for _ in range(n)] for _ in range(n)]
    b = [[next(g) % 1000 for _ in range(n)] for _ in range(n)]
    total = 0
    for i in range(n):
        for j in range(n):
            total = (total + sum(a[i][k] * b[k][j] for k in range(n)) * (i * n + j + 1)) % 2**64
    return total


@pytest.mark.parametrize("n", [10, 25])
def test_matmul_references_match_an_independent_computation(catalog, n):
    bench = catalog.benchmarks["matmul"]
    for t in range(4):
        assert bench.reference_for(str(n), t) == f"seed={12345 + t} checksum={_matmul_checksum(n, 12345 + t)}"


def _queens(n, row=0, cols=0, d1=0, d2=0):
    if row == n:
        return 1
    return sum(_queens(n, row + 1, cols | 1 << c, d1 | 1 << (row + c), d2 | 1 << (row - c + n))
               for c in range(n) if not (cols >> c & 1 or d1 >> (row + c) & 1 or d2 >> (row - c + n) & 1))


def test_nqueens_references_match_a_bitmask_solver(catalog):
    bench = catalog.benchmarks["nqueens"]
    for n in range(1, 10):
        assert bench.reference_for(str(n), 0) == str(_queens(n))


def test_fib_and_spawn_references(catalog):
    a, b, fibs = 0, 1, {}
    for k in range(40):
        fibs[k] = a
        a, b = b, a + b
    for param in catalog.benchmarks["fib"].references:
        assert catalog.benchmarks["fib"].reference_for(param, 0) == str(fibs[int(param)])
    for bench_id in ("spawn-waiting", "spawn-waiting-group"):
        for param in catalog.benchmarks[bench_id].references:
            n = int(param)
            assert catalog.benchmarks[bench_id].reference_for(param, 3) == f"tasks={n} sum={n * (n + 1) // 2}"


def test_verdicts(catalog):
    fib = catalog.benchmarks["fib"]
    assert verdict(fib, "10", 0, "55") == Verdict.VERIFIED
    assert verdict(fib, "10", 0, "56") == Verdict.WRONG
    assert verdict(fib, "11", 0, "89") == Verdict.UNVERIFIED   # no reference: never "passed"
    matmul = catalog.benchmarks["matmul"]
    second_seed = matmul.reference_for("10", 1)   # read from the toml, never copied here
    assert verdict(matmul, "10", 5, second_seed) == Verdict.VERIFIED  # a list cycles: 5 mod 4 = 1
    assert verdict(matmul, "10", 4, second_seed) == Verdict.WRONG


def test_a_bad_benchmark_file_is_a_catalog_error(tmp_path):
    path = tmp_path / "odd.toml"
    path.write_text('id = "other"\ntitle = "x"\norigin = "y"\n[sizes.test]\nparams = ["1"]\n')
    with pytest.raises(CatalogError):
        load_benchmark(path)
    path.write_text("id = [")
    with pytest.raises(CatalogError, match="not valid TOML"):
        load_benchmark(path)


def _run(variant, results, status="ok", options=None, param="317:3-7-8-50-75-4"):
    from concbench.storing.records import IterationRecord, RunRecord, RunStatus
    return RunRecord(benchmark="countdown", variant=variant, param=param, options=options or {}, cores=2,
                     run_index=0, status=RunStatus(status),
                     iterations=[IterationRecord(i, 1, r, "unverified", False) for i, r in enumerate(results)])


def _checked(runs, neutral=None):
    """The runs after the cross-check: the changed ones in their places."""
    from concbench.running.verify import cross_check
    changed = cross_check(runs, neutral)
    return [changed.get(position, run) for position, run in enumerate(runs)]


def test_agreement_marks_the_majority_agreed_and_the_odd_one_wrong():
    from concbench.running.verify import cross_check
    runs = [_run("c/libdispatch", ["x", "x"]), _run("swift/sc", ["x", "x"]), _run("swift/gcd", ["x", "y"])]
    changed = cross_check(runs)
    assert sorted(changed) == [0, 1, 2]
    assert all(it.verdict == "unverified" for r in runs for it in r.iterations)   # the records given stay as they were
    runs = [changed[position] for position in range(3)]
    assert [it.verdict for it in runs[0].iterations] == ["agreed", "agreed"]
    assert [it.verdict for it in runs[2].iterations] == ["agreed", "wrong"]
    assert runs[2].status == "wrong" and "other variants gave 'x'" in runs[2].message
    assert runs[0].status == "ok"


def test_agreement_ignores_the_shape_and_inner_repetitions_but_not_other_options():
    from concbench.running.verify import agreement_key
    plain, batched, scaled = (_run("a/x", ["1"], options={"shape": "p"}),
                              _run("b/x", ["1"], options={"shape": "q", "repeat": "9"}),
                              _run("c/x", ["1"], options={"scale": "2"}))
    assert agreement_key(plain, 0) == agreement_key(batched, 0) != agreement_key(scaled, 0)


def test_agreement_without_a_majority_is_disagree():
    runs = _checked([_run("a/x", ["1"]), _run("b/x", ["2"])])
    assert {it.verdict for r in runs for it in r.iterations} == {"disagree"}
    assert {r.status for r in runs} == {"disagree"}


def test_half_of_the_variants_is_no_majority():
    for results in (["1", "1", "2", "2"], ["1", "1", "2", "3"]):
        runs = _checked([_run(f"{name}/x", [r]) for name, r in zip("abcd", results)])
        assert {it.verdict for r in runs for it in r.iterations} == {"disagree"}, results


def test_neutral_options_leave_the_key_and_each_value_votes_apart():
    from concbench.running.verify import agreement_key, cross_check
    runs = [_run("swift/qs", ["7"], options={"config": config, "n": "3"}) for config in ("none", "qoq", "all")]
    neutral = {"countdown": ("config",)}
    assert len({agreement_key(r, 0, neutral["countdown"]) for r in runs}) == 1
    assert len({agreement_key(r, 0) for r in runs}) == 3
    runs = _checked(runs, neutral)
    assert {it.verdict for r in runs for it in r.iterations} == {"agreed"}
    odd = _checked([_run("swift/qs", [result], options={"config": config})
                    for result, config in zip("778", ("none", "qoq", "all"))], neutral)
    assert [r.iterations[0].verdict for r in odd] == ["agreed", "agreed", "wrong"]
    alone = [_run("swift/qs", ["7"]), _run("swift/qs", ["7"])]
    assert cross_check(alone, neutral) == {}    # the same voter twice is still one voter


def test_every_neutral_option_is_an_option_some_variant_takes(catalog):
    declared = {b.id: b.neutral_options for b in catalog.benchmarks.values() if b.neutral_options}
    assert "config" in declared["mutex"]
    for benchmark, names in declared.items():
        taken = {o for v in catalog.variants.values() if benchmark in v.served for o in v.served[benchmark].options}
        assert set(names) <= taken, (benchmark, set(names) - taken)


def test_one_variant_alone_stays_unverified_and_references_are_untouched():
    from concbench.running.verify import cross_check
    lonely = [_run("a/x", ["1"]), _run("a/x", ["1"])]
    assert cross_check(lonely) == {}
    assert lonely[0].iterations[0].verdict == "unverified"
    checked = _run("a/x", ["1"])
    checked.iterations[0] = checked.iterations[0].__class__(0, 1, "1", "verified", False)
    assert cross_check([checked, _run("b/x", ["2"])]) == {}


def test_availability_checks_tools_and_files_and_names_the_missing_ones(root, tmp_path):
    from dataclasses import replace

    from concbench.running import toolchains
    from concbench.spec.catalog import load_implementation
    impl = load_implementation(root / "impls" / "fake" / "impl.toml")
    assert toolchains.availability(replace(impl, requires=("sh", str(root / "README.md")))).available
    missing = toolchains.availability(replace(impl, requires=("no-such-tool-xyz", str(tmp_path / "nope.h"))))
    assert not missing.available
    assert "no-such-tool-xyz" in missing.reason and "nope.h" in missing.reason
    packaged = replace(impl, requires=("no-such-tool-xyz",), apt_packages=("pkg-a", "pkg-b"))
    assert toolchains.missing_packages([packaged, packaged, impl]) == ["pkg-a", "pkg-b"]


def test_expected_metrics_are_keyed_by_parameter_shape_and_options(catalog):
    fib = catalog.benchmarks["fib"]
    counting = {"count_spawns": "1", "cutoff": "0"}
    assert fib.metrics_for("20", {**counting, "shape": "cps"}) == {"spawns": 10945}
    assert fib.metrics_for("20", {**counting, "shape": "asynclet"}) == {"spawns": 21890}
    assert fib.metrics_for("20", {"shape": "cps"}) == {}            # not counting: nothing to check
    chameneos = catalog.benchmarks["chameneos"]
    assert chameneos.metrics_for("800", {"variant": "encore"}) == {"self_meetings": 0, "colour_sum_mod3": 2}
    assert chameneos.metrics_for("10000", {"variant": "redux"}) == {
        "self_meetings": 0, "colour_sum_mod3_3": 0, "colour_sum_mod3_10": 1}
    countdown = catalog.benchmarks["countdown"]
    assert countdown.metrics_for("q7", {"shape": "naive"}) == {"batches": 5723}
    assert countdown.metrics_for("q7", {"shape": "plain"}) == {}    # the sequential search makes no batches


def test_metric_mismatches_name_the_metric_and_the_expected_value(catalog):
    from concbench.running.verify import metric_mismatches, missing_metrics
    chameneos = catalog.benchmarks["chameneos"]
    options = {"variant": "encore", "meetings": "10000"}
    assert metric_mismatches(chameneos, "3", options, {"self_meetings": 0, "colour_sum_mod3": 0}) == []
    assert metric_mismatches(chameneos, "3", options, {"self_meetings": 2, "colour_sum_mod3": 0}) == [
        "metric self_meetings=2, the spec expects 0"]
    assert missing_metrics(chameneos, "3", options, {"self_meetings": 0}) == ["colour_sum_mod3"]


def test_closed_forms_agree_with_every_printed_reference(catalog):
    from concbench.spec.catalog import closed_form
    with_formula = [b for b in catalog.benchmarks.values() if b.formula]
    assert {b.id for b in with_formula} >= {"mutex", "prodcons", "condition", "threadring"}
    for bench in with_formula:
        for key, values in bench.references.items():
            param, *options = key.split()
            assert closed_form(bench.formula, {bench.param_name: param, **dict(o.split("=") for o in options)}) \
                == values[0], (bench.id, key)


def test_a_closed_form_checks_values_no_table_lists_and_needs_all_its_names(catalog):
    threadring = catalog.benchmarks["threadring"]
    assert threadring.reference_for("7", 0, {"ring": "3"}) == "id=2"
    assert threadring.reference_for("7", 0, {}) is None          # ring unknown: agreement decides


def test_a_formula_that_is_not_integer_arithmetic_is_a_catalog_error(tmp_path, root):
    text = (root / "benchmarks" / "mutex.toml").read_text().replace("{n * m}", "{__import__('os')}")
    path = tmp_path / "mutex.toml"
    path.write_text(text)
    with pytest.raises(CatalogError, match="result_formula"):
        load_benchmark(path)


def test_every_metric_a_benchmark_fixes_is_declared_with_its_unit(catalog, tmp_path, root):
    for benchmark in catalog.benchmarks.values():
        assert set(benchmark.expected_metrics) <= set(benchmark.metric_units), benchmark.id
    assert catalog.benchmarks["chain"].metric_units["stage_outer_ns"] == "ns"
    assert catalog.benchmarks["big"].metric_units["throughput"] == "messages/s"
    text = (root / "benchmarks" / "countdown.toml").read_text()
    path = tmp_path / "countdown.toml"
    path.write_text(text.replace('batches = "batches"\n', ""))
    with pytest.raises(CatalogError, match="batches not declared under \\[metrics\\]"):
        load_benchmark(path)
    path.write_text(text.replace('calls = "calls"', 'calls = ""'))
    with pytest.raises(CatalogError, match="calls: the unit must be a word"):
        load_benchmark(path)


def test_a_reference_that_depends_on_an_option_is_checked_with_the_runs_options(catalog):
    threadring = catalog.benchmarks["threadring"]
    assert verdict(threadring, "7", 0, "id=2", {"ring": "3"}) == Verdict.VERIFIED
    assert verdict(threadring, "7", 0, "id=3", {"ring": "3"}) == Verdict.WRONG
    assert verdict(threadring, "7", 0, "id=2") == Verdict.UNVERIFIED


def test_missing_metrics_are_those_the_spec_fixes_for_the_runs_options(catalog):
    from concbench.running.verify import missing_metrics
    fib = catalog.benchmarks["fib"]
    counting = {"count_spawns": "1", "cutoff": "0", "shape": "cps"}
    assert missing_metrics(fib, "20", counting, {}) == ["spawns"]
    assert missing_metrics(fib, "20", counting, {"spawns": 10945}) == []
    assert missing_metrics(fib, "20", {"shape": "cps"}, {}) == []


def test_agreement_goes_on_past_runs_that_did_not_finish():
    from concbench.running.verify import cross_check
    crashed = _run("c/x", ["9"], status="crashed")
    runs = [crashed, _run("a/x", ["1"]), _run("b/x", ["1"])]
    assert sorted(cross_check(runs)) == [1, 2]     # keyed by their places in the runs given
    assert [r.iterations[0].verdict for r in _checked(runs)] == ["unverified", "agreed", "agreed"]


def test_agreement_is_per_iteration_index():
    runs = _checked([_run("a/x", ["1", "2"]), _run("b/x", ["1", "2"])])
    assert {it.verdict for r in runs for it in r.iterations} == {"agreed"}


def test_a_lone_voter_leaves_the_other_groups_judged():
    lone = _run("a/x", ["5"], param="100:1-2-3-4-5-6")        # no other variant ran this parameter
    runs = _checked([lone, _run("a/x", ["1"]), _run("b/x", ["1"]), _run("c/x", ["2"])])
    assert [r.iterations[0].verdict for r in runs] == ["unverified", "agreed", "agreed", "wrong"]


def test_a_new_verdict_keeps_the_iterations_index_time_result_and_warmup():
    from dataclasses import replace

    from concbench.storing.records import IterationRecord
    first = replace(_run("a/x", ["1", "1"]), iterations=[IterationRecord(0, 700, "1", "unverified", True),
                                                          IterationRecord(1, 900, "1", "unverified", False)])
    runs = _checked([first, _run("b/x", ["1", "2"])])
    assert runs[0].iterations == [IterationRecord(0, 700, "1", "agreed", True),
                                  IterationRecord(1, 900, "1", "disagree", False)]


def test_no_majority_says_so_in_the_runs_message():
    runs = _checked([_run("a/x", ["1"]), _run("b/x", ["2"])])
    assert [(r.status, r.reason, r.message) for r in runs] == [
        ("disagree", "wrong-result", "iteration 0: no majority among the variants' results")] * 2


def test_options_are_declared_once_in_the_benchmark_file_and_passed_defaults_follow(catalog):
    chain = catalog.benchmarks["chain"]
    assert chain.defaults == {"p": "1", "nelts": "{param}", "seed": "0"}
    assert chain.with_defaults("100", {"p": "5"}) == {"p": "5", "nelts": "100", "seed": "0"}
    assert catalog.benchmarks["mutex"].defaults == {"n": "32"}
    big = catalog.benchmarks["big"]
    assert big.defaults == {} and big.options["pings"].domain.default == "16000" and not big.options["pings"].passed


@pytest.mark.parametrize("change, message", [
    (('n = { int = { min = 1 }, default = "32", passed = true, about = "the concurrent workers, the paper\'s n (not --workers)" }',
      'n = { int = { min = 1 }, passed = true, about = "workers" }'), "`passed` needs a default"),
    (('about = "the concurrent workers, the paper\'s n (not --workers)"', 'about = ""'), "`about` must say"),
    (('passed = true', 'passed = "yes"'), "`passed` must be true or false"),
    (('int = { min = 1 }', 'int = { min = 1 }, values = ["1"]'), "exactly one of int, values, pattern"),
    (('[options]\n', '[options]\nshape = { values = ["a"], about = "x" }\n'), "'shape' is the harness's own"),
    (('[options]\n', 'defaults = { n = "32" }\n[options]\n'), "`defaults` is now each option's own"),
])
def test_a_bad_option_declaration_is_a_catalog_error(tmp_path, root, change, message):
    text = (root / "benchmarks" / "mutex.toml").read_text()
    assert change[0] in text
    path = tmp_path / "mutex.toml"
    path.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(CatalogError, match=message):
        load_benchmark(path)
