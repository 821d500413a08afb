"""The description format (docs/describe.md): domains, parsing errors, the cache."""

import json

import pytest

from concbench import describe
from concbench.errors import CatalogError


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


# -- drift between languages ---------------------------------------------------------------------------------------

def _option_domains(root) -> dict[tuple[str, str], dict[str, set[str]]]:
    """(benchmark, option) -> each distinct declaration (domain and default, as JSON) -> the variants declaring it,
    over the committed descriptions of every language shown to users (the fake and the fixtures have their own)."""
    from concbench.catalog import load_implementation

    found: dict[tuple[str, str], dict[str, set[str]]] = {}
    for path in sorted(root.glob("impls/*/describe.json")):
        if load_implementation(path.parent / "impl.toml").hidden:
            continue
        document = json.loads(path.read_text())["describe"]
        for bench, served in document["benchmarks"].items():
            for model, declared in served["models"].items():
                for name, option in declared.get("options", {}).items():
                    key = json.dumps(option, sort_keys=True)
                    found.setdefault((bench, name), {}).setdefault(key, set()).add(f"{path.parent.name}/{model}")
    return found


def _drifts(found) -> set[str]:
    return {f"{bench} {name}" for (bench, name), declarations in found.items() if len(declarations) > 1}


def test_no_option_drifts_between_languages_beyond_the_known_list(root):
    known = {line for line in (root / "tests" / "describe-drifts.txt").read_text().splitlines()
             if line and not line.startswith("#")}
    found = _option_domains(root)
    drifts = _drifts(found)
    new = {d: found[tuple(d.split())] for d in drifts - known}
    assert not new, f"options declared differently by different languages: {new}"
    assert not known - drifts, f"no longer drifting, take off tests/describe-drifts.txt: {sorted(known - drifts)}"


def test_one_language_changing_an_option_is_a_drift(root):
    found = _option_domains(root)
    agreed = sorted(key for key, declarations in found.items() if len(declarations) == 1
                    and len(next(iter(declarations.values()))) > 1)
    assert agreed, "no option is declared alike by two variants"
    bench, name = agreed[0]
    (declaration, variants), = found[(bench, name)].items()
    changed = json.dumps({**json.loads(declaration), "default": "other"}, sort_keys=True)
    moved = sorted(variants)[0]
    found[(bench, name)] = {declaration: variants - {moved}, changed: {moved}}
    assert f"{bench} {name}" in _drifts(found)
