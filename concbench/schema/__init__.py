"""The published JSON Schemas, the files beside this one: the protocol's (protocol-v1, describe-v1, checked in
running/protocol_check.py) and those of the documents concbench writes (export-v1, bmf, explain-v1, claims-v1).
The one loader of them all, and the check of an export against its schema. (The database's tables are
storing/store.py's, and not called a schema here.)"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from ..errors import ConcbenchError

EXPORT_SCHEMA = "export-v1"   # the JSON export, format_version 1
BMF_SCHEMA = "bmf"            # Bencher Metric Format, as Bencher documents it


class InvalidExport(ConcbenchError):
    """A document that does not match its schema: a bug in the exporter, or a key added without a schema update."""


def load(name: str = EXPORT_SCHEMA) -> dict:
    """One schema shipped in the package, e.g. load() (the export's) or load("bmf")."""
    return json.loads((resources.files(__package__) / f"{name}.schema.json").read_text("utf-8"))


@cache
def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load(name))


def _validate(document: dict, name: str) -> None:
    error = best_match(_validator(name).iter_errors(document))
    if error is not None:
        # The path says which key; best_match picks the most specific of several failures.
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise InvalidExport(f"not a valid {name} document at {where}: {error.message}")


def validate_export(document: dict) -> None:
    """Raise InvalidExport, naming the key, unless `document` is a valid JSON export (format_version 1)."""
    _validate(document, EXPORT_SCHEMA)


def validate_bmf(document: dict) -> None:
    """Raise InvalidExport unless `document` is valid Bencher Metric Format."""
    _validate(document, BMF_SCHEMA)
