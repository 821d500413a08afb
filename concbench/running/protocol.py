"""Parses the lines an implementation writes on stdout (DESIGN.md, the protocol)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TypeGuard

from ..errors import ProtocolError

PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class Hello:
    protocol: int
    language: str
    runtime: str
    model: str
    raw: dict


@dataclass(frozen=True)
class Iteration:
    index: int
    ns: int
    result: str


@dataclass(frozen=True)
class Metrics:
    values: dict[str, int | float]


Event = Hello | Iteration | Metrics


INT64 = range(-(1 << 63), 1 << 63)   # what the store's integer columns hold


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in INT64


def _is_number(value) -> bool:
    """A finite number the store can hold (1e999 parses as infinity; 2**63 overflows an integer column)."""
    return _is_int(value) or (isinstance(value, float) and math.isfinite(value))


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_line(line_number: int, line: str) -> Event:
    """One stdout line to one event; raises ProtocolError naming the line and the fault."""
    try:
        obj = json.loads(line, parse_constant=_refuse_constant)
    except json.JSONDecodeError:
        raise ProtocolError(line_number, line, "not a JSON object") from None
    except ValueError as error:   # NaN, Infinity, -Infinity: Python's extensions of JSON
        raise ProtocolError(line_number, line, str(error)) from None
    if not isinstance(obj, dict):
        raise ProtocolError(line_number, line, "not a JSON object")
    if "hello" in obj:
        hello = obj["hello"]
        if not isinstance(hello, dict) or not _is_int(hello.get("protocol")):
            raise ProtocolError(line_number, line, "hello needs an integer 'protocol'")
        return Hello(
            protocol=hello["protocol"],
            language=str(hello.get("language", "")),
            runtime=str(hello.get("runtime", "")),
            model=str(hello.get("model", "")),
            raw=hello,
        )
    if "iteration" in obj:
        index, ns, result = obj.get("iteration"), obj.get("ns"), obj.get("result")
        if not _is_int(index) or not _is_int(ns) or ns < 0:
            raise ProtocolError(line_number, line, "iteration needs integer 'iteration' and 'ns' >= 0 (within 64 bits)")
        if not isinstance(result, str):
            raise ProtocolError(line_number, line, "iteration needs a string 'result'")
        return Iteration(index, ns, result)
    if "metrics" in obj:
        values = obj["metrics"]
        if not isinstance(values, dict) or not all(_is_number(v) for v in values.values()):
            raise ProtocolError(line_number, line, "metrics must map names to finite numbers (integers within 64 bits)")
        return Metrics(dict(values))
    raise ProtocolError(line_number, line, "unknown object (expected hello, iteration or metrics)")


@dataclass
class Transcript:
    """Everything one run said, checked in order as the lines arrive."""

    # What the run asked for, when known: the variant (its language and model), which hello must name, and the
    # iterations, past which a program that ignores --iterations is stopped (not run to the time limit).
    language: str | None = None
    model: str | None = None
    most: int | None = None
    hello: Hello | None = None
    iterations: list[Iteration] = field(default_factory=list)
    metrics: dict[str, int | float] = field(default_factory=dict)
    lines_seen: int = 0

    def feed(self, line: str) -> Event:
        self.lines_seen += 1
        event = parse_line(self.lines_seen, line)
        if isinstance(event, Hello):
            if self.hello is not None:
                raise ProtocolError(self.lines_seen, line, "a second hello")
            if event.protocol != PROTOCOL_VERSION:
                raise ProtocolError(self.lines_seen, line, f"protocol {event.protocol} is not {PROTOCOL_VERSION}")
            # A wrong type is the schema's to name (conformance); a wrong name is another program answering.
            language, model = event.raw.get("language"), event.raw.get("model")
            if (self.language is not None and isinstance(language, str) and isinstance(model, str)
                    and (language, model) != (self.language, self.model)):
                raise ProtocolError(self.lines_seen, line,
                                    f"hello names {language}/{model}, not {self.language}/{self.model} that was run")
            self.hello = event
        elif self.hello is None:
            raise ProtocolError(self.lines_seen, line, "hello must come first")
        elif isinstance(event, Iteration):
            if event.index != len(self.iterations):
                raise ProtocolError(
                    self.lines_seen, line, f"iteration {event.index} where {len(self.iterations)} was due"
                )
            if self.most is not None and event.index >= self.most:
                raise ProtocolError(self.lines_seen, line, f"iteration {event.index + 1} of {self.most} asked for")
            self.iterations.append(event)
        else:
            self.metrics.update(event.values)
        return event
