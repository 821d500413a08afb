"""Where a description departs from what its benchmarks declare (`[options]` in benchmarks/<id>.toml).

An option a benchmark declares is taken by every model an implementation serves it with, with the same domain
and default. A description may narrow an integer bound (an integer's width, one OS thread per worker) and must
then say why, in the domain's `reason`. Options a benchmark does not declare are the model's own (a runtime
configuration, a driver), and `repeat` is the harness's (`repeatable`). Test doubles (hidden implementations)
keep options of their own to exercise the harness and are held to nothing here.
"""

from __future__ import annotations

from .catalog import Benchmark, Option
from .describe import Description, Domain


def shown(domain: Domain) -> str:
    default = "no default" if domain.default is None else f"default {domain.default}"
    return f"{domain} ({default})"


def option_problem(model: str, option: Option, theirs: Domain | None) -> str | None:
    """What is wrong with one model's declaration of one declared option, or None."""
    declared = f"{option.name}: the benchmark declares {shown(option.domain)}"
    if theirs is None:
        return f"{model} does not take {declared}"
    if theirs.same_as(option.domain):
        return f"{model} gives a reason for {option.name} but narrows nothing" if theirs.reason else None
    if theirs.within(option.domain):
        return None if theirs.reason else f"{model} narrows {declared}, to {theirs}, without a reason"
    return f"{model} takes {shown(theirs)} for {declared}"


def problems(benchmarks: dict[str, Benchmark], description: Description) -> list[tuple[str, str]]:
    """(benchmark, problem) for every declared option a served model leaves out, widens or changes."""
    found = []
    for bench_id, models in description.served.items():
        bench = benchmarks.get(bench_id)
        if bench is None:
            continue
        for model, served in models.items():
            for option in bench.options.values():
                problem = option_problem(model, option, served.options.get(option.name))
                if problem:
                    found.append((bench_id, problem))
    return found
