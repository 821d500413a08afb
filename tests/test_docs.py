"""The benchmarks' definitions live in the repository (docs/benchmarks/<id>.md), and what they name exists."""

import re

SLASHED = re.compile(r"`([a-z][a-z0-9-]*)/([a-z0-9][a-z0-9-]*)`")


def test_every_benchmark_has_its_spec_inside_the_repository(catalog):
    for benchmark in catalog.benchmarks.values():
        assert benchmark.spec == f"docs/benchmarks/{benchmark.id}.md", benchmark.id
        path = catalog.root / benchmark.spec
        assert path.is_file(), f"{benchmark.id}: {benchmark.spec} is missing"
        assert path.read_text().startswith(f"# {benchmark.id} — "), f"{benchmark.spec}: title line"


def test_every_shape_and_model_a_spec_names_is_served(catalog):
    """`model/shape` (`gcd/cps`) must be a shape some language serves for that benchmark under that model, and
    `language/model` (`swift/qs`) a model of that language; other slashed names (`/proc`) are not checked."""
    for benchmark in catalog.benchmarks.values():
        serving = [v for v in catalog.variants.values() if benchmark.id in v.served]
        shapes: dict[str, set[str]] = {}
        for variant in serving:
            shapes.setdefault(variant.model, set()).update(variant.served[benchmark.id].shapes)
        models = {}
        for variant in catalog.variants.values():
            models.setdefault(variant.language, set()).add(variant.model)
        text = (catalog.root / benchmark.spec).read_text()
        for first, second in SLASHED.findall(text):
            if first in models:
                assert second in models[first], f"{benchmark.spec}: `{first}/{second}` is no variant"
            elif first in shapes:
                assert second in shapes[first], f"{benchmark.spec}: no language serves shape `{first}/{second}`"
