"""Reads benchmarks/*.toml and impls/*/impl.toml into plain, immutable data."""

from __future__ import annotations

import ast
import collections
import os
import re
import sys
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import CatalogError
from . import describe
from .describe import Description, Domain, Served

SIZE_SETS = ("test", "quick", "paper")


def project_root() -> Path:
    """The folder holding benchmarks/ and impls/: $CONCBENCH_ROOT, the working folder, or the checkout."""
    env = os.environ.get("CONCBENCH_ROOT")
    if env:
        return Path(env).resolve()
    cwd = Path.cwd()
    if (cwd / "benchmarks").is_dir() and (cwd / "impls").is_dir():
        return cwd
    return Path(__file__).resolve().parent.parent.parent


def value_order(value: str) -> tuple[int, float, str]:
    """Sort key for parameters and option values: numbers by size first, then names."""
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)


@dataclass(frozen=True)
class SizePoint:
    """One parameter value of a size set, with the options that go with it."""

    param: str
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SizeSet:
    name: str
    points: tuple[SizePoint, ...]
    iterations: int
    warmup: int
    deadline_s: float | None


HANDOFF_CATEGORIES = ("message passing", "coordination")


@dataclass(frozen=True)
class Option:
    """An option every implementation of a benchmark takes (`[options.<name>]` in its file): its domain and
    default, what it sets, and whether the harness passes the default on every run (`passed`: so that the
    references are found for a bare --param). Descriptions repeat it, or narrow it with a reason (drift.py)."""

    name: str
    domain: Domain
    about: str
    passed: bool = False


@dataclass(frozen=True)
class Benchmark:
    id: str
    title: str
    origin: str
    category: str
    spec: str                  # its definition, relative to the repository root (docs/benchmarks/<id>.md)
    param_name: str
    sizes: dict[str, SizeSet]
    references: dict[str, tuple[str, ...]]
    may_stall_models: tuple[str, ...] = ()
    derived: tuple[str, ...] = ()
    expected_metrics: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> key -> value
    # Every metric an implementation may report, with its unit (`[metrics]`; the words: report/units.py).
    metric_units: dict[str, str] = field(default_factory=dict)
    repeatable: bool = False   # the spec lets `--option repeat=k` time k back-to-back kernels as one iteration
    options: dict[str, Option] = field(default_factory=dict)   # `[options]`: declared once, for every language
    formula: str = ""          # the spec's closed form of the result, e.g. "count={n * m}" (`result_formula`)
    # Options that change how a program runs, never its answer (a runtime configuration): left out of
    # the key of results that must agree, each value voting apart (`neutral_options`).
    neutral_options: tuple[str, ...] = ()
    # For `concbench explain`: the option, besides the cores, whose value is the parallelism a program may use
    # (countdown's window; `parallelism_option`), and how its time should grow with the parameter, as a
    # log-log exponent (`growth_exponent`; spawn-scaling: 1): without one, growth is never judged.
    parallelism_option: str = ""
    growth_exponent: float | None = None

    @property
    def handoff(self) -> bool:
        """A program of hand-offs between threads (its category says so): its times swing with the cost of a
        cross-core hand-off, so the machine probe reads the machine before each of its runs (session.Guard)."""
        return self.category in HANDOFF_CATEGORIES

    @property
    def defaults(self) -> dict[str, str]:
        """The defaults the harness passes explicitly ("{param}" is the parameter)."""
        return {name: option.domain.default or "" for name, option in self.options.items() if option.passed}

    def with_defaults(self, param: str, options: dict[str, str]) -> dict[str, str]:
        """The options of a point with the spec's defaults filled in ("{param}" is the parameter)."""
        return {**{k: v.replace("{param}", param) for k, v in self.defaults.items()}, **options}

    def reference_for(self, param: str, iteration: int, options: dict[str, str] | None = None) -> str | None:
        """The expected result, or None when the spec gives none for this parameter and these options.

        A list of references cycles with the iteration index (matmul's four seeds)."""
        values = lookup(self.references, param, options or {})
        if values:
            return values[iteration % len(values)]
        return closed_form(self.formula, {self.param_name: param, **(options or {})}) if self.formula else None

    def metrics_for(self, param: str, options: dict[str, str] | None = None) -> dict[str, float]:
        """The deterministic metrics the spec fixes for this parameter, shape and options."""
        found = {name: lookup(table, param, options or {}) for name, table in self.expected_metrics.items()}
        return {name: value for name, value in found.items() if value is not None and value != NOT_FIXED}


# `--option repeat=k`: one reported iteration is k back-to-back runs of the kernel, its `ns` their
# total divided by k. It batches kernels too short for the clock, changes no answer, and is only
# accepted where the benchmark's file says `repeatable = true` (docs/describe.md).
REPEAT = "repeat"

NOT_FIXED = "n/a"   # an expected metric the spec does not fix for the points a key matches


_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def _evaluate(node: ast.AST, names: dict[str, int]) -> int:
    """Integer arithmetic over the parameter and options: + - * // %, parentheses, no calls."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Name):
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left, right = _evaluate(node.left, names), _evaluate(node.right, names)
        return {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
                ast.FloorDiv: int.__floordiv__, ast.Mod: int.__mod__}[type(node.op)](left, right)
    raise ValueError(f"not integer arithmetic: {ast.dump(node)[:60]}")


def closed_form(formula: str, values: dict[str, str]) -> str | None:
    """The result a spec's closed form gives for these values; None when one it names is missing or
    not an integer (then no reference exists and agreement across variants decides)."""
    try:
        names = {k: int(v) for k, v in values.items() if re.fullmatch(r"-?[0-9]+", v)}
        return re.sub(r"\{([^}]*)\}", lambda m: str(_evaluate(ast.parse(m.group(1), mode="eval").body, names)),
                      formula)
    except (KeyError, ZeroDivisionError):
        return None


def _checked_formula(formula: str, path: Path) -> str:
    for expression in re.findall(r"\{([^}]*)\}", formula):
        try:
            _evaluate(ast.parse(expression, mode="eval").body, collections.defaultdict(lambda: 1))
        except (SyntaxError, ValueError) as error:
            raise CatalogError(f"{path}: result_formula {{{expression}}}: {error}") from None
    return str(formula)


def lookup(table: dict, param: str, options: dict[str, str]):
    """The value of the most specific key that holds for a parameter and its options.

    A key is the parameter (or `*`, any parameter) followed by the options it holds for:
    `"1000 pings=16000"`, `"20 shape=cps count_spawns=1"`, `"* variant=redux"`. Every option a
    key names must match; among the matching keys, more options beat fewer, then a named
    parameter beats `*`."""
    best, best_rank = None, None
    for key, value in table.items():
        key_param, *conditions = key.split()
        if key_param not in (param, "*"):
            continue
        pairs = [c.partition("=") for c in conditions]
        rank = (len(pairs), key_param == param)
        if all(options.get(k) == v for k, _, v in pairs) and (best_rank is None or rank > best_rank):
            best, best_rank = value, rank
    return best


@dataclass(frozen=True)
class Variant:
    """`<language>/<model>`: one model of one implementation, as its description declares it."""

    language: str
    model: str
    description: str
    served: dict[str, Served]           # benchmark id -> shapes (the faithful one first) and options
    params: dict[str, Domain]           # benchmark id -> the --param domain

    @property
    def name(self) -> str:
        return f"{self.language}/{self.model}"

    @property
    def shapes(self) -> dict[str, tuple[str, ...]]:
        return {bench: served.shapes for bench, served in self.served.items()}

    def serves(self, benchmark_id: str) -> bool:
        return benchmark_id in self.served


@dataclass(frozen=True)
class Implementation:
    language: str
    title: str
    folder: Path
    executable: str
    command: tuple[str, ...]
    env: dict[str, str]
    requires: tuple[str, ...]
    install_hint: str
    apt_packages: tuple[str, ...]         # Debian packages that provide the toolchain
    build_command: tuple[str, ...]
    opt_levels: tuple[str, ...]           # optimisation levels a build can choose, the default first
    opt_args: tuple[str, ...]             # appended to the build command; "{opt}" is the level
    version_command: tuple[str, ...]
    test_command: tuple[str, ...] = ()    # the language's own unit tests, run in the folder after a build
    hidden: bool = False
    description: Description | None = None
    description_source: str = ""          # "binary", "snapshot", or "" when there is none
    description_error: str = ""           # why the built binary could not describe itself

    @property
    def executable_path(self) -> Path:
        return self.folder / self.executable

    @property
    def variants(self) -> tuple[Variant, ...]:
        if self.description is None:
            return ()
        d = self.description
        return tuple(
            Variant(self.language, model, text, d.benchmarks_of(model),
                    {b: d.params[b] for b in d.benchmarks_of(model)})
            for model, text in d.models.items()
        )

    def base_command(self, cores: int) -> tuple[list[str], dict[str, str]]:
        """The command line before the protocol's arguments, and its environment."""
        values = {"exe": str(self.executable_path), "dir": str(self.folder), "python": sys.executable,
                  "cores": str(cores)}
        argv = [part.format(**values) for part in self.command]
        return argv, {**os.environ, **{k: v.format(**values) for k, v in self.env.items()}}


@dataclass(frozen=True)
class Catalog:
    root: Path
    benchmarks: dict[str, Benchmark]
    implementations: dict[str, Implementation]
    variants: dict[str, Variant] = field(default_factory=dict)

    def implementation_of(self, variant: Variant) -> Implementation:
        return self.implementations[variant.language]

    def faithful_shape(self, benchmark: str, variant: str) -> str | None:
        """The shape a model declares first for a benchmark: the paper's program (None if unknown here)."""
        found = self.variants.get(variant)
        shapes = found.shapes.get(benchmark) if found else None
        return shapes[0] if shapes else None

    def reloaded(self) -> Catalog:
        """The catalog again, with the descriptions of what was built since."""
        return load_catalog(self.root)


def _read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{path}: not valid TOML: {error}") from error


def _require(data: dict, key: str, path: Path):
    if key not in data:
        raise CatalogError(f"{path}: missing key '{key}'")
    return data[key]


def option_combinations(options: dict[str, tuple[str, ...]]) -> list[dict[str, str]]:
    """Every combination of swept option values: {"a": (1, 2), "b": (3,)} -> [{a:1,b:3}, {a:2,b:3}]."""
    combos: list[dict[str, str]] = [{}]
    for key, values in options.items():
        combos = [{**combo, key: value} for combo in combos for value in values]
    return combos


def _size_set(name: str, data: dict, path: Path) -> SizeSet:
    params = [str(p) for p in _require(data, "params", path)]
    shared = dict(data.get("options", {}))
    per_param = data.get("param_options", {})
    points = []
    for param in params:
        merged = {**shared, **per_param.get(param, {})}
        # A list value is a sweep of that option within the size set (countdown's window).
        sweeps = {str(k): tuple(map(str, v)) if isinstance(v, list) else (str(v),) for k, v in merged.items()}
        points += [SizePoint(param, tuple(sorted(combo.items()))) for combo in option_combinations(sweeps)]
    deadline = data.get("deadline_s")
    return SizeSet(
        name=name,
        points=tuple(points),
        iterations=int(data.get("iterations", 5)),
        warmup=int(data.get("warmup", 1)),
        deadline_s=float(deadline) if deadline is not None else None,
    )


def _growth_exponent(value, path: Path) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise CatalogError(f"{path}: growth_exponent must be a positive number (the expected log-log slope)")
    return float(value)


def load_benchmark(path: Path) -> Benchmark:
    data = _read_toml(path)
    sizes_table = _require(data, "sizes", path)
    sizes = {name: _size_set(name, sizes_table[name], path) for name in sizes_table}
    missing = [s for s in SIZE_SETS if s not in sizes]
    if missing:
        raise CatalogError(f"{path}: size sets missing: {', '.join(missing)}")
    references = {}
    for param, value in data.get("reference", {}).items():
        references[str(param)] = tuple(value) if isinstance(value, list) else (str(value),)
    benchmark_id = _require(data, "id", path)
    if benchmark_id != path.stem:
        raise CatalogError(f"{path}: id '{benchmark_id}' does not match the file name")
    expected = data.get("expected_metrics", {})
    if "defaults" in data:
        raise CatalogError(f"{path}: `defaults` is now each option's own: [options.<name>] default = ..., passed = true")
    return Benchmark(
        id=benchmark_id,
        title=_require(data, "title", path),
        origin=_require(data, "origin", path),
        category=data.get("category", ""),
        spec=data.get("spec", f"docs/benchmarks/{benchmark_id}.md"),
        param_name=data.get("param_name", "N"),
        sizes=sizes,
        references=references,
        may_stall_models=tuple(data.get("may_stall_models", ())),
        derived=tuple(data.get("derived", ())),
        repeatable=bool(data.get("repeatable", False)),
        options=_options(data.get("options", {}), path),
        formula=_checked_formula(data.get("result_formula", ""), path),
        neutral_options=tuple(str(o) for o in data.get("neutral_options", ())),
        parallelism_option=str(data.get("parallelism_option", "")),
        growth_exponent=_growth_exponent(data.get("growth_exponent"), path),
        expected_metrics={
            metric: {str(param): value for param, value in table.items()}
            for metric, table in expected.items()
        },
        metric_units=_metric_units(data.get("metrics", {}), expected, path),
    )


OPTION_KEYS = {"about", "passed"}


def _options(table, path: Path) -> dict[str, Option]:
    """`[options.<name>]`: a domain as in a description (int, values or pattern, and a default), `about` (what it
    sets, required) and `passed` (the harness passes the default on every run; it must then have one)."""
    if not isinstance(table, dict):
        raise CatalogError(f"{path}: [options] must be a table of options")
    options = {}
    for name, entry in table.items():
        where = f"{path}: [options.{name}]"
        if not isinstance(entry, dict):
            raise CatalogError(f"{where} must be a table")
        if name in ("shape", REPEAT):
            raise CatalogError(f"{where}: '{name}' is the harness's own (shapes in descriptions, `repeatable`)")
        about, passed = entry.get("about"), entry.get("passed", False)
        if not isinstance(about, str) or not about.strip():
            raise CatalogError(f"{where}: `about` must say what the option sets")
        if not isinstance(passed, bool):
            raise CatalogError(f"{where}: `passed` must be true or false")
        domain = describe.domain({k: v for k, v in entry.items() if k not in OPTION_KEYS}, where)
        if passed and domain.default is None:
            raise CatalogError(f"{where}: `passed` needs a default to pass")
        options[str(name)] = Option(str(name), domain, about.strip(), passed)
    return options


def _metric_units(declared: dict, expected: dict, path: Path) -> dict[str, str]:
    """`[metrics]`: name = unit, a non-empty string; every metric the spec fixes must be declared there."""
    for name, unit in declared.items():
        if not isinstance(unit, str) or not unit.strip():
            raise CatalogError(f"{path}: [metrics] {name}: the unit must be a word such as \"ns\" or \"meetings\"")
    undeclared = sorted(set(expected) - set(declared))
    if undeclared:
        raise CatalogError(f"{path}: [expected_metrics] {', '.join(undeclared)} not declared under [metrics] with a unit")
    return {str(name): unit.strip() for name, unit in declared.items()}


def load_implementation(path: Path) -> Implementation:
    data = _read_toml(path)
    language = _require(data, "language", path)
    if "variants" in data:
        raise CatalogError(f"{path}: [variants] are declared by the binary's `describe` now (docs/describe.md); remove them")
    build = data.get("build", {})
    return Implementation(
        language=language,
        title=data.get("title", language),
        folder=path.parent,
        executable=_require(data, "executable", path),
        command=tuple(data.get("command", ["{exe}"])),
        env={str(k): str(v) for k, v in data.get("env", {}).items()},
        requires=tuple(data.get("requires", ())),
        install_hint=data.get("install_hint", ""),
        apt_packages=tuple(data.get("apt", ())),
        build_command=tuple(build.get("command", ())),
        opt_levels=tuple(build.get("opt", {}).get("levels", ())),
        opt_args=tuple(build.get("opt", {}).get("args", ())),
        version_command=tuple(data.get("version_command", ())),
        test_command=tuple(data.get("test", {}).get("command", ())),
        hidden=bool(data.get("hidden", False)),
    )


def describe_from_binary(impl: Implementation, cache_dir: Path) -> Description:
    """Ask the built executable what it serves (once per build); CatalogError when it cannot say."""
    argv, env = impl.base_command(1)
    source = f"impls/{impl.folder.name}"
    text = describe.cached(cache_dir / f"{impl.language}.json", impl.executable_path,
                           lambda: describe.query(argv, env, impl.folder, source))
    return describe.parse(text, source)


def with_description(impl: Implementation, cache_dir: Path) -> Implementation:
    """The implementation with what it serves: from its binary when built, else from its snapshot."""
    error = ""
    if impl.executable_path.exists():
        try:
            return replace(impl, description=describe_from_binary(impl, cache_dir), description_source="binary")
        except CatalogError as failure:
            error = str(failure)
    snapshot = describe.snapshot_path(impl.folder)
    if snapshot.is_file():
        parsed = describe.parse(snapshot.read_text(), str(snapshot))
        return replace(impl, description=parsed, description_source="snapshot", description_error=error)
    return replace(impl, description_error=error)


def load_catalog(root: Path | None = None) -> Catalog:
    root = root or project_root()
    bench_dir, impl_dir = root / "benchmarks", root / "impls"
    if not bench_dir.is_dir():
        raise CatalogError(f"no benchmarks/ folder under {root} (set CONCBENCH_ROOT to the checkout)")
    benchmarks = {}
    for path in sorted(bench_dir.glob("*.toml")):
        bench = load_benchmark(path)
        benchmarks[bench.id] = bench
    implementations, variants = {}, {}
    for path in sorted(impl_dir.glob("*/impl.toml")):
        impl = with_description(load_implementation(path), root / "build" / "descriptions")
        implementations[impl.language] = impl
        for variant in impl.variants:
            unknown = [b for b in variant.served if b not in benchmarks]
            if unknown:
                raise CatalogError(f"{path.parent}: {variant.name} describes unknown benchmarks: {', '.join(unknown)}")
            variants[variant.name] = variant
    return Catalog(root, benchmarks, implementations, variants)
