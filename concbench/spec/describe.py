"""What an implementation serves, in its own words: `<exe> describe` (docs/describe.md).

The description is the one declaration of an implementation's benchmarks, models, shapes,
options and parameter domains. It is read from the built binary (cached beside the build,
keyed by the executable's modification time) or, for an implementation not built yet, from
the snapshot `impls/<language>/describe.json` that `concbench describe --write` keeps and
`concbench check` compares with the binary.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import CatalogError

SNAPSHOT = "describe.json"
DESCRIBE_TIMEOUT_S = 60


@dataclass(frozen=True)
class Domain:
    """The values an option or a parameter accepts: an integer range, a list, or a pattern."""

    kind: str                       # int | values | pattern
    low: int | None = None
    high: int | None = None
    values: tuple[str, ...] = ()
    pattern: str = ""
    default: str | None = None
    reason: str = ""                # why a description narrows its benchmark's declaration (drift.py)

    def same_as(self, other: Domain) -> bool:
        """The same values and default, whatever the reasons."""
        return replace(self, reason="") == replace(other, reason="")

    def within(self, other: Domain) -> bool:
        """An integer range inside the other's (a bound added or moved in), the same kind and default."""
        if self.kind != "int" or other.kind != "int" or self.default != other.default:
            return False
        low_in = other.low is None or (self.low is not None and self.low >= other.low)
        high_in = other.high is None or (self.high is not None and self.high <= other.high)
        return low_in and high_in

    def accepts(self, value: str) -> bool:
        if self.kind == "int":
            if not re.fullmatch(r"-?[0-9]+", value):
                return False
            number = int(value)
            return (self.low is None or number >= self.low) and (self.high is None or number <= self.high)
        if self.kind == "values":
            return value in self.values
        return re.fullmatch(self.pattern, value) is not None

    def __str__(self) -> str:
        if self.kind == "int":
            if self.low is not None and self.high is not None:
                return f"an integer in {self.low}..{self.high}"
            if self.low is not None:
                return f"an integer >= {self.low}"
            return f"an integer <= {self.high}" if self.high is not None else "an integer"
        if self.kind == "values":
            return "one of " + ", ".join(self.values)
        return f"a value matching {self.pattern}"

    def outside(self) -> list[str]:
        """Values this domain refuses, for the conformance check's exit-2 cases."""
        if self.kind == "int":
            bad = ["x1"]
            if self.low is not None:
                bad.append(str(self.low - 1))
            if self.high is not None:
                bad.append(str(self.high + 1))
            return bad
        return [c for c in ("no-such-value", "?", "x", "-1") if not self.accepts(c)][:1]


@dataclass(frozen=True)
class Served:
    """One model of one benchmark: its shapes (the faithful one first) and its options."""

    shapes: tuple[str, ...]
    options: dict[str, Domain]


@dataclass(frozen=True)
class Description:
    language: str
    models: dict[str, str]                          # model -> one-line description
    params: dict[str, Domain]                       # benchmark -> --param domain
    served: dict[str, dict[str, Served]]            # benchmark -> model -> shapes and options
    raw: dict                                       # the JSON object, for snapshots and `list --json`

    def benchmarks_of(self, model: str) -> dict[str, Served]:
        return {b: models[model] for b, models in self.served.items() if model in models}


def domain(data, where: str) -> Domain:
    """A domain object (docs/describe.md): one of int, values, pattern; an optional default and reason."""
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: a domain must be an object")
    default, reason = data.get("default"), data.get("reason", "")
    kinds = [k for k in ("int", "values", "pattern") if k in data]
    unknown = set(data) - {"int", "values", "pattern", "default", "reason"}
    if len(kinds) != 1 or unknown:
        raise CatalogError(f"{where}: a domain needs exactly one of int, values, pattern (got {sorted(data)})")
    if not isinstance(reason, str):
        raise CatalogError(f"{where}: reason must be a string")
    default = None if default is None else str(default)
    kind = kinds[0]
    if kind == "int":
        bounds = data["int"]
        if not isinstance(bounds, dict) or set(bounds) - {"min", "max"} or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in bounds.values()):
            raise CatalogError(f"{where}: int takes an object with integer min and max")
        return Domain("int", low=bounds.get("min"), high=bounds.get("max"), default=default, reason=reason)
    if kind == "values":
        values = data["values"]
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise CatalogError(f"{where}: values takes a non-empty list of strings")
        return Domain("values", values=tuple(values), default=default, reason=reason)
    try:
        re.compile(data["pattern"])
    except (re.error, TypeError) as error:
        raise CatalogError(f"{where}: pattern is not a regular expression: {error}") from None
    return Domain("pattern", pattern=data["pattern"], default=default, reason=reason)


def parse(text: str, source: str) -> Description:
    """The description printed by `<exe> describe`; CatalogError names what is wrong and where."""
    try:
        outer = json.loads(text)
    except ValueError as error:
        raise CatalogError(f"{source}: describe did not print one JSON object: {error}") from None
    data = outer.get("describe") if isinstance(outer, dict) else None
    if not isinstance(data, dict) or data.get("protocol") != 1:
        raise CatalogError(f'{source}: expected {{"describe": {{"protocol": 1, ...}}}}')
    models = data.get("models")
    benchmarks = data.get("benchmarks")
    if not isinstance(models, dict) or not isinstance(benchmarks, dict):
        raise CatalogError(f"{source}: describe needs the objects 'models' and 'benchmarks'")
    params: dict[str, Domain] = {}
    served: dict[str, dict[str, Served]] = {}
    for bench, entry in benchmarks.items():
        where = f"{source}: {bench}"
        if not isinstance(entry, dict) or "param" not in entry or not isinstance(entry.get("models"), dict):
            raise CatalogError(f"{where}: needs 'param' and 'models'")
        params[bench] = domain(entry["param"], f"{where} param")
        served[bench] = {}
        for model, table in entry["models"].items():
            if model not in models:
                raise CatalogError(f"{where}: model '{model}' is not among the described models")
            shapes, options = table.get("shapes", []), table.get("options", {})
            if not isinstance(shapes, list) or not all(isinstance(s, str) for s in shapes) or not isinstance(options, dict):
                raise CatalogError(f"{where} {model}: 'shapes' must be a list of names and 'options' an object")
            if "shape" in options:
                raise CatalogError(f"{where} {model}: 'shape' is given by 'shapes', not among the options")
            served[bench][model] = Served(
                tuple(shapes), {k: domain(v, f"{where} {model} option {k}") for k, v in options.items()})
    return Description(str(data.get("language", "")), {str(k): str(v) for k, v in models.items()}, params, served, outer)


def snapshot_path(folder: Path) -> Path:
    return folder / SNAPSHOT


def query(argv: list[str], env: dict[str, str], cwd: Path, source: str) -> str:
    """Run `<command> describe` and return its stdout; CatalogError when it fails."""
    try:
        done = subprocess.run([*argv, "describe"], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=DESCRIBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CatalogError(f"{source}: `describe` could not run: {error}") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        raise CatalogError(f"{source}: `describe` exited {done.returncode}: {last}")
    return done.stdout


def cached(cache: Path, executable: Path, fetch) -> str:
    """The description text of this build of the executable, asking the binary only once."""
    try:
        stat = executable.stat()
    except OSError:
        return fetch()
    stamp = f"{stat.st_mtime_ns}:{stat.st_size}"
    try:
        saved = json.loads(cache.read_text())
        if saved.get("stamp") == stamp:
            return saved["text"]
    except (OSError, ValueError, KeyError):
        pass
    text = fetch()
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"stamp": stamp, "text": text}))
    except OSError:
        pass   # a read-only checkout still works, it only asks the binary each time
    return text
