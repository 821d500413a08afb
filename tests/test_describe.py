"""The description format (docs/describe.md): domains, parsing errors, the cache."""

import json
from dataclasses import replace

import pytest

from concbench.errors import CatalogError
from concbench.spec import describe, drift
from concbench.spec.catalog import Benchmark, Option
from concbench.spec.describe import Domain


def _doc(benchmarks, models=None):
    return json.dumps({"describe": {"protocol": 1, "language": "x", "models": models or {"m": "a model"},
                                    "benchmarks": benchmarks}})


GOOD = {"fib": {"param": {"int": {"min": 0, "max": 92}},
                "models": {"m": {"shapes": ["a", "b"], "options": {"cutoff": {"int": {"min": 1}, "default": "20"},
                                                                  "mode": {"values": ["x", "y"]},
                                                                  "goal": {"pattern": "[0-9]+:[0-9]+(-[0-9]+)*"}}}}}}


def test_a_description_parses_into_domains():
    d = describe.parse(_doc(GOOD), "test")
    served = d.served["fib"]["m"]
    assert served.shapes == ("a", "b")
    assert d.params["fib"].accepts("92") and not d.params["fib"].accepts("93") and not d.params["fib"].accepts("-1")
    assert not d.params["fib"].accepts("+5") and not d.params["fib"].accepts("5.0")
    assert served.options["cutoff"].default == "20" and served.options["cutoff"].accepts("99999")
    assert served.options["mode"].accepts("x") and not served.options["mode"].accepts("z")
    assert served.options["goal"].accepts("317:3-7") and not served.options["goal"].accepts("317:3-7x")
    assert str(d.params["fib"]) == "an integer in 0..92"


def test_outside_values_are_refused_by_their_own_domain():
    d = describe.parse(_doc(GOOD), "test")
    domains = [d.params["fib"], *d.served["fib"]["m"].options.values()]
    for domain in domains:
        assert domain.outside(), domain
        assert not any(domain.accepts(v) for v in domain.outside()), domain


@pytest.mark.parametrize("benchmarks, models, message", [
    ({"fib": {"models": {}}}, None, "needs 'param' and 'models'"),
    ({"fib": {"param": {"int": {}, "values": ["1"]}, "models": {}}}, None, "exactly one of"),
    ({"fib": {"param": {"values": []}, "models": {}}}, None, "non-empty list"),
    ({"fib": {"param": {"pattern": "("}, "models": {}}}, None, "not a regular expression"),
    ({"fib": {"param": {"int": {}}, "models": {"other": {"shapes": []}}}}, None, "not among the described models"),
    ({"fib": {"param": {"int": {}}, "models": {"m": {"shapes": [], "options": {"shape": {"values": ["a"]}}}}}},
     None, "'shape' is given by 'shapes'"),
])
def test_a_bad_description_is_a_catalog_error_naming_the_place(benchmarks, models, message):
    with pytest.raises(CatalogError, match=message):
        describe.parse(_doc(benchmarks, models), "impls/x")


def test_not_a_description_at_all():
    with pytest.raises(CatalogError, match="one JSON object"):
        describe.parse("hello", "impls/x")
    with pytest.raises(CatalogError, match="protocol"):
        describe.parse(json.dumps({"describe": {"protocol": 2}}), "impls/x")


def test_the_cache_asks_the_binary_once_per_build(tmp_path):
    exe = tmp_path / "exe"
    exe.write_text("v1")
    calls = []

    def fetch():
        calls.append(1)
        return f"text {len(calls)}"

    cache = tmp_path / "cache" / "x.json"
    assert describe.cached(cache, exe, fetch) == "text 1"
    assert describe.cached(cache, exe, fetch) == "text 1"
    exe.write_text("v2 rebuilt")   # a new build: another size, another time
    assert describe.cached(cache, exe, fetch) == "text 2"
    assert len(calls) == 2


# -- drift from the benchmarks' declarations -------------------------------------------------------------------------

def _shown_descriptions(root):
    """The committed description of every language shown to users (the fake and the fixture have their own options)."""
    from concbench.spec.catalog import load_implementation

    for path in sorted(root.glob("impls/*/describe.json")):
        if not load_implementation(path.parent / "impl.toml").hidden:
            yield path.parent.name, describe.parse(path.read_text(), str(path))


def test_every_language_takes_each_declared_option_as_its_benchmark_declares_it(root, catalog):
    found = [(language, *problem) for language, description in _shown_descriptions(root)
             for problem in drift.problems(catalog.benchmarks, description)]
    assert not found, "\n".join(" ".join(p) for p in found)


def _one_option(**declared):
    bench = Benchmark(id="b", title="", origin="", category="", spec="", param_name="n", sizes={}, references={},
                      options={"n": Option("n", Domain("int", low=1, default="32"), "workers")})
    entry = {"int": {"min": 1}, "default": "32", **declared}
    return bench, describe.parse(_doc({"b": {"param": {"int": {}}, "models": {"m": {"shapes": [], "options": {
        "n": {k: v for k, v in entry.items() if v is not None}}}}}}), "test")


@pytest.mark.parametrize("declared, problem", [
    ({}, None),
    ({"int": {"min": 1, "max": 4096}, "reason": "one OS thread per worker"}, None),
    ({"int": {"min": 1, "max": 4096}}, "narrows n: the benchmark declares an integer >= 1 (default 32), to an integer in 1..4096, without a reason"),
    ({"reason": "none needed"}, "gives a reason for n but narrows nothing"),
    ({"int": {"min": 0}, "reason": "wider"}, "takes an integer >= 0 (default 32) for n"),
    ({"default": "8"}, "takes an integer >= 1 (default 8) for n"),
    ({"default": None}, "takes an integer >= 1 (no default) for n"),
    ({"int": None, "values": ["1", "2"]}, "takes one of 1, 2 (default 32) for n"),
])
def test_a_description_departing_from_its_benchmark_is_named(declared, problem):
    bench, description = _one_option(**declared)
    found = drift.problems({"b": bench}, description)
    if problem is None:
        assert found == []
    else:
        (where, said), = found
        assert where == "b" and said.startswith(f"m {problem}"), said


def test_a_model_leaving_out_a_declared_option_is_named():
    bench, description = _one_option()
    description.served["b"]["m"].options.pop("n")
    assert drift.problems({"b": bench}, description) == [
        ("b", "m does not take n: the benchmark declares an integer >= 1 (default 32)")]


def test_an_option_added_to_one_benchmark_file_reaches_every_language_serving_it(root, catalog):
    mutex = catalog.benchmarks["mutex"]
    added = replace(mutex, options={**mutex.options, "rounds": Option("rounds", Domain("int", low=1), "new")})
    languages = {language for language, description in _shown_descriptions(root)
                 if any("rounds" in problem for _, problem in drift.problems({"mutex": added}, description))}
    serving = {language for language, description in _shown_descriptions(root) if "mutex" in description.served}
    assert len(serving) >= 6 and languages == serving
