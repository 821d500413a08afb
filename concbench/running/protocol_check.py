"""The protocol's JSON Schemas (concbench/schema/protocol-v1 and describe-v1) and the checks that
`concbench check` makes with them: every stdout line of a run, and the `describe` document.

The runtime parser (protocol.py) stays lenient where it can go on; the schemas are the protocol as
written for a new implementation, so a problem here names the line, the field and what is wrong."""

from __future__ import annotations

import json
from functools import cache

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from ..schema import load

PROTOCOL_SCHEMA = "protocol-v1"   # hello, iteration and metrics lines
DESCRIBE_SCHEMA = "describe-v1"   # the one line of `<exe> describe`
LINE_KINDS = ("hello", "iteration", "metrics")


def _is_strict_integer(checker, instance) -> bool:
    # JSON Schema counts 12.0 as an integer; the protocol puts integers on the wire, and protocol.py refuses 12.0.
    return isinstance(instance, int) and not isinstance(instance, bool)


_Strict = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_strict_integer),
)


@cache
def _validator(name: str, kind: str | None = None):
    schema = load(name)
    if kind is not None:   # one line kind alone, so the message is about that kind, not about oneOf
        schema = {**schema["$defs"][kind], "$defs": schema["$defs"]}
    return _Strict(schema)


def _where(error: ValidationError) -> str:
    path = "/".join(str(part) for part in error.absolute_path)
    return f"'{path}'" if path else "the top level"


def _first_problem(validator, document) -> str | None:
    error = best_match(validator.iter_errors(document))
    return None if error is None else f"at {_where(error)}: {error.message}"


def _snippet(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:77] + "...")


def line_problem(number: int, line: str) -> str | None:
    """None when this stdout line is a valid protocol line; else one line naming the line number, its kind,
    the field at fault and what is wrong (the order of lines is protocol.py's to check)."""
    try:
        obj = json.loads(line)
    except ValueError:
        return f"line {number}: not a JSON object: {_snippet(line)}"
    if not isinstance(obj, dict):
        return f"line {number}: not a JSON object: {_snippet(line)}"
    kind = next((k for k in LINE_KINDS if k in obj), None)
    if kind is None:
        return f"line {number}: unknown object (expected hello, iteration or metrics): {_snippet(line)}"
    problem = _first_problem(_validator(PROTOCOL_SCHEMA, kind), obj)
    return None if problem is None else f"line {number} ({kind}) {problem}: {_snippet(line)}"


def describe_problem(document) -> str | None:
    """None when the describe document matches its schema; else where and what is wrong."""
    problem = _first_problem(_validator(DESCRIBE_SCHEMA), document)
    return None if problem is None else f"describe {problem}"
