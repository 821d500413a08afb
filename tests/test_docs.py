"""The benchmarks' definitions live in the repository (docs/benchmarks/<id>.md), and what they name exists."""

import itertools
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


def _cell(domain) -> str:
    """How a spec's table of allowed values writes an integer domain."""
    if domain.low is not None and domain.high is not None:
        return f"{domain.low}..{domain.high}"
    return f"≥ {domain.low}" if domain.low is not None else f"≤ {domain.high}"


def test_every_table_of_allowed_values_in_a_spec_is_what_the_descriptions_say(catalog, root):
    """A spec's "Allowed values" table repeats each variant's `--param` domain and the declared options'
    (narrowed) domains: each cell must be what that variant's description says, so a table cannot go stale."""
    checked = 0
    for bench in catalog.benchmarks.values():
        lines = (root / bench.spec).read_text().splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("Allowed values")), None)
        if start is None:
            continue
        first = next(i for i in range(start, len(lines)) if lines[i].startswith("|"))
        table = list(itertools.takewhile(lambda line: line.startswith("|"), lines[first:]))
        header = [cell.strip() for cell in table[0].strip("|").split("|")]
        for line in table[2:]:
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            for name in (v.strip() for v in cells[0].split(",")):
                variant = catalog.variants[name]
                for column, cell in zip(header[1:], cells[1:]):
                    key = column.strip("`")
                    if column.startswith("`--param"):
                        domain = variant.params[bench.id]
                    elif key in bench.options:
                        domain = variant.served[bench.id].options[key]
                    else:
                        continue
                    assert cell == _cell(domain), f"{bench.spec}: {name} {column} is {_cell(domain)}, the table says {cell}"
                    checked += 1
    assert checked >= 60
