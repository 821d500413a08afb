"""Turns a request (benchmarks, variants, sizes, cores, options) into the points to measure."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import UsageError
from ..spec.catalog import REPEAT, SIZE_SETS, Benchmark, Catalog, SizePoint, SizeSet, Variant, option_combinations
from ..storing.records import options_text


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
    runs: int | None = None   # more processes than the session's --runs (a study's claim cells need 3)

    def runs_in(self, session_runs: int) -> int:
        """How many processes this point runs in a session of `session_runs` per point."""
        return max(session_runs, self.runs or 0)

    @property
    def shape(self) -> str | None:
        return dict(self.options).get("shape")

    @property
    def series_key(self) -> tuple:
        """The point as a stored run names it (records.RunRecord.series_key): what was run, whatever the runs."""
        return (self.benchmark.id, self.variant.name, options_text(self.options), self.param, self.cores)

    @property
    def skip_key(self) -> tuple:
        """Points sharing this key form one line of sizes: after a timeout the larger ones are skipped.

        Every option is part of the line: chameneos' redux game is not a larger encore sweep."""
        return (self.benchmark.id, self.variant.name, self.options, self.cores)


@dataclass(frozen=True)
class Request:
    benchmarks: tuple[str, ...] = ()      # empty: all
    variants: tuple[str, ...] = ()        # empty: all available
    size: str = "quick"
    params: tuple[str, ...] = ()          # explicit values replace the size set
    cores: tuple[int, ...] = ()
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()   # key -> the values to sweep
    iterations: int | None = None
    warmup: int | None = None
    all_shapes: bool = False              # without a named shape: every declared shape, not only the faithful one


def parse_values(text: str, flag: str) -> tuple[str, ...]:
    """A sweep: 'a,b,c' and integer ranges '1..12' (both inclusive), in the order given."""
    values: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        lo, sep, hi = part.partition("..")
        if not sep:
            if not part:
                raise UsageError(f"{flag} {text!r}: an empty value")
            values.append(part)
            continue
        try:
            first, last = int(lo), int(hi)
        except ValueError:
            raise UsageError(f"{flag} {text!r}: a range needs integers, like 1..12") from None
        if first > last:
            raise UsageError(f"{flag} {text!r}: the range {part} is empty")
        values += [str(v) for v in range(first, last + 1)]
    return tuple(values)


def parse_option(text: str) -> tuple[str, tuple[str, ...]]:
    """`key=value`, where value may be a sweep: `window=1..12`, `shape=cps,parallel`."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise UsageError(f"--option {text!r}: expected key=value, e.g. --option shape=parallel")
    return key.strip(), parse_values(value, f"--option {key.strip()}=")




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


def _shapes(variant: Variant, benchmark: Benchmark, requested: tuple[str, ...] | None,
            all_shapes: bool) -> list[str | None]:
    """The shapes named, else the faithful one (declared first), else every one with `all_shapes`."""
    declared = variant.shapes[benchmark.id]
    if not declared:
        return [None]
    if requested is None:
        return list(declared) if all_shapes else [declared[0]]
    # Several shapes may be asked of several variants at once (shape=sync,task): each takes its own.
    chosen: list[str | None] = [shape for shape in requested if shape in declared]
    if not chosen:
        raise UsageError(
            f"{variant.name} has no shape '{','.join(requested)}' for {benchmark.id} (known: {', '.join(declared)})"
        )
    return chosen


def _iterations_and_warmup(request: Request, size: SizeSet) -> tuple[int, int]:
    """The request's counts, else the size set's.

    With --iterations but no --warmup, the size set's warm-up share is kept (at least one when it
    has any), and it never eats every iteration."""
    if request.iterations is None:
        return size.iterations, size.warmup if request.warmup is None else request.warmup
    iterations = request.iterations
    if request.warmup is not None:
        return iterations, request.warmup
    share = round(size.warmup * iterations / size.iterations)
    return iterations, min(max(share, 1 if size.warmup else 0), iterations - 1)


def check_point(point: Point) -> None:
    """The parameter and every option against what the variant describes; UsageError names the culprit."""
    bench, variant = point.benchmark, point.variant
    domain = variant.params[bench.id]
    if not domain.accepts(point.param):
        raise UsageError(f"{bench.id}: --param {point.param} is outside what {variant.name} accepts ({domain})")
    served = variant.served[bench.id]
    for key, value in point.options:
        if key == "shape":
            continue
        if key == REPEAT and not bench.repeatable:
            raise UsageError(f"{bench.id}: its spec allows no inner repetitions (--option {REPEAT}=...)")
        if key not in served.options:
            known = ", ".join(sorted(served.options)) or "none"
            raise UsageError(f"{bench.id}: {variant.name} takes no option '{key}' (known: {known})")
        if not served.options[key].accepts(value):
            raise UsageError(f"{bench.id}: --option {key}={value} is outside what {variant.name} accepts "
                             f"({served.options[key]})")


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
    points: list[Point] = []
    seen: set[tuple] = set()
    for benchmark in benchmarks:
        for variant in variants:
            if not variant.serves(benchmark.id):
                continue
            for shape in _shapes(variant, benchmark, requested_shape, request.all_shapes):
                for size_point, size in _points_of(benchmark, request):
                    for swept in option_combinations(user_options):
                        # The spec's defaults are passed explicitly, so a reference keyed by them is found.
                        options = benchmark.with_defaults(size_point.param, {**dict(size_point.options), **swept})
                        if shape is not None:
                            options["shape"] = shape
                        for cores in request.cores:
                            # "{cores}" in an option stands for the run's core count (window = cores).
                            resolved = tuple(sorted((k, v.replace("{cores}", str(cores))) for k, v in options.items()))
                            point = Point(benchmark, variant, size_point.param, resolved, cores,
                                          *_iterations_and_warmup(request, size), size.deadline_s)
                            key = (benchmark.id, variant.name, point.param, resolved, cores)
                            if key not in seen:
                                seen.add(key)
                                points.append(point)
    if not points:
        raise UsageError("nothing to run: no chosen variant implements the chosen benchmarks")
    for point in points:
        check_point(point)
        if point.warmup >= point.iterations:
            raise UsageError(f"--warmup {point.warmup} leaves no measured iteration of {point.iterations}")
    return points


# -- shards: disjoint parts of one plan, for several machines or nodes (issue 25) -----------------------------

@dataclass(frozen=True)
class Shard:
    index: int    # K, from 1
    count: int    # N

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`--shard K/N`: the K-th of N parts, 1 ≤ K ≤ N."""
    k, slash, n = text.partition("/")
    # isdecimal alone takes other scripts' digits ('²' is a digit int() refuses): ASCII ones only.
    if not slash or not all(part.isascii() and part.isdecimal() for part in (k, n)) or not 1 <= int(k) <= int(n):
        raise UsageError(f"--shard {text!r}: K/N with 1 ≤ K ≤ N, e.g. 2/3")
    return Shard(int(k), int(n))


def _series_text(point: Point) -> str:
    benchmark, variant, options, cores = point.skip_key
    return f"{benchmark} {variant} {options_text(options)} cores={cores}"


def _point_text(point: Point) -> str:
    return f"{_series_text(point)} {point.benchmark.param_name}={point.param}"


def plan_identity(plan: list[Point]) -> str:
    """A short digest of every point of the plan, whatever their order: the shards of one plan share it."""
    digest = hashlib.sha256("\n".join(sorted(_point_text(p) for p in plan)).encode())
    return digest.hexdigest()[:16]


def series_count(plan: list[Point]) -> int:
    """How many series (lines of sizes) the plan holds: the most parts it can be split into."""
    return len({_series_text(p) for p in plan})


def shard_of(plan: list[Point], shard: Shard) -> list[Point]:
    """The points of one part. A series (its line of sizes) stays whole in one part, so that a timeout still
    skips its larger sizes; the series are dealt round-robin in the order of their digests, so that every
    part gets some when there are at least N, and N invocations cover every point exactly once."""
    series = sorted({_series_text(p) for p in plan}, key=lambda s: hashlib.sha256(s.encode()).hexdigest())
    if len(series) < shard.count:
        raise UsageError(f"--shard {shard}: the plan has {len(series)} series, fewer than {shard.count} parts")
    mine = set(series[shard.index - 1::shard.count])
    return [p for p in plan if _series_text(p) in mine]


def planned_runs(plan: list[Point], session_runs: int) -> int:
    """The processes a session runs over its plan, before any run again."""
    return sum(point.runs_in(session_runs) for point in plan)
