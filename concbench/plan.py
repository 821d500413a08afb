"""Turns a request (benchmarks, variants, sizes, cores, options) into the points to measure."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import SIZE_SETS, Benchmark, Catalog, SizePoint, SizeSet, Variant
from .errors import UsageError


@dataclass(frozen=True)
class Point:
    """One series at one parameter: what a run measures."""

    benchmark: Benchmark
    variant: Variant
    param: str
    options: tuple[tuple[str, str], ...]
    cores: int
    iterations: int
    warmup: int
    deadline_s: float | None

    @property
    def shape(self) -> str | None:
        return dict(self.options).get("shape")

    @property
    def skip_key(self) -> tuple:
        """Points sharing this key form one line of sizes: after a timeout the larger ones are skipped."""
        return (self.benchmark.id, self.variant.name, self.shape, self.cores)


@dataclass(frozen=True)
class Request:
    benchmarks: tuple[str, ...] = ()      # empty: all
    variants: tuple[str, ...] = ()        # empty: all available
    size: str = "quick"
    params: tuple[str, ...] = ()          # explicit values replace the size set
    cores: tuple[int, ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    iterations: int | None = None
    warmup: int | None = None


def parse_option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise UsageError(f"--option {text!r}: expected key=value, e.g. --option shape=parallel")
    return key.strip(), value.strip()


def _pick(names: tuple[str, ...], known: dict, what: str) -> list:
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown {what} '{unknown[0]}' (known: {', '.join(sorted(known))})")
    return [known[n] for n in names] if names else list(known.values())


def _size_for_param(benchmark: Benchmark, param: str) -> SizeSet:
    """Explicit parameters take iterations and deadline from the first size set that holds them."""
    for name in ("quick", "paper", "test"):
        if any(p.param == param for p in benchmark.sizes[name].points):
            return benchmark.sizes[name]
    return benchmark.sizes["quick"]


def _points_of(benchmark: Benchmark, request: Request) -> list[tuple[SizePoint, SizeSet]]:
    if request.params:
        return [(SizePoint(p), _size_for_param(benchmark, p)) for p in request.params]
    if request.size not in SIZE_SETS:
        raise UsageError(f"unknown size '{request.size}' (known: {', '.join(SIZE_SETS)})")
    size = benchmark.sizes[request.size]
    return [(point, size) for point in size.points]


def _shapes(variant: Variant, benchmark: Benchmark, requested: str | None) -> list[str | None]:
    declared = variant.shapes[benchmark.id]
    if requested is None:
        return list(declared) or [None]
    if declared and requested not in declared:
        raise UsageError(
            f"{variant.name} has no shape '{requested}' for {benchmark.id} (known: {', '.join(declared)})"
        )
    return [requested]


def make_plan(catalog: Catalog, request: Request, available: set[str]) -> list[Point]:
    """Every point of the request, in a stable order; raises UsageError on bad names."""
    benchmarks = _pick(request.benchmarks, catalog.benchmarks, "benchmark")
    variants = _pick(request.variants, catalog.variants, "variant")
    if request.variants:
        for variant in variants:
            if variant.name not in available:
                raise UsageError(f"variant {variant.name} is not available here (see `concbench list`)")
    else:
        variants = [v for v in variants if v.name in available and not catalog.implementation_of(v).hidden]
    user_options = dict(request.options)
    requested_shape = user_options.pop("shape", None)
    points = []
    for benchmark in benchmarks:
        for variant in variants:
            if not variant.serves(benchmark.id):
                continue
            for shape in _shapes(variant, benchmark, requested_shape):
                for size_point, size in _points_of(benchmark, request):
                    options = {**dict(size_point.options), **user_options}
                    if shape is not None:
                        options["shape"] = shape
                    for cores in request.cores:
                        points.append(Point(
                            benchmark, variant, size_point.param, tuple(sorted(options.items())), cores,
                            request.iterations if request.iterations is not None else size.iterations,
                            request.warmup if request.warmup is not None else size.warmup,
                            size.deadline_s,
                        ))
    if not points:
        raise UsageError("nothing to run: no chosen variant implements the chosen benchmarks")
    for point in points:
        if point.warmup >= point.iterations:
            raise UsageError(f"--warmup {point.warmup} leaves no measured iteration of {point.iterations}")
    return points
