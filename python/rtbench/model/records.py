# SPDX-License-Identifier: Apache-2.0
"""The records of the results protocol (docs/protocol.md): parsing and validation.

Every line rtbench-core writes is one JSON object. `parse_line` turns a line
into a dict that is guaranteed to match its definition in
schema/rtbench.schema.json; anything else raises `RecordError` (a core bug,
which the runner records against the scenario) or `ProtocolVersionError`.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from rtbench.paths import SCHEMA_PATH

PROTOCOL_VERSION = 1
RESULTS_SCHEMA = "rtbench-results"
RESULTS_SCHEMA_VERSION = 1

RECORD_TYPES = ("meta", "catalog", "result", "samples", "verdict", "table", "log", "end")

Record = dict[str, Any]


class RecordError(ValueError):
    """A line that is not a valid record of protocol version 1."""


class ProtocolVersionError(RecordError):
    """A record of a protocol version this rtbench cannot read."""


@cache
def schema() -> dict[str, Any]:
    """The published JSON Schema (records and results.json)."""
    with SCHEMA_PATH.open(encoding="utf-8") as f:
        loaded = json.load(f)
    if loaded.get("rtbench_protocol_version") != PROTOCOL_VERSION:
        raise RuntimeError(f"{SCHEMA_PATH} does not describe protocol version {PROTOCOL_VERSION}")
    if loaded.get("rtbench_schema_version") != RESULTS_SCHEMA_VERSION:
        raise RuntimeError(f"{SCHEMA_PATH} does not describe results version 1")
    return cast(dict[str, Any], loaded)


@cache
def validator(definition: str) -> Draft202012Validator:
    """A validator for one definition of the schema (`result`, `results`, ...)."""
    root = schema()
    if definition not in root["$defs"]:
        raise KeyError(f"the schema has no definition {definition!r}")
    sub = {
        "$schema": root["$schema"],
        "$defs": root["$defs"],
        "$ref": f"#/$defs/{definition}",
    }
    return Draft202012Validator(sub, format_checker=Draft202012Validator.FORMAT_CHECKER)


def describe_error(error: ValidationError) -> str:
    """One line saying where and what: `stats.count: -1 is less than the minimum of 0`."""
    where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
    message = error.message
    if len(message) > 160:
        message = message[:157] + "..."
    return f"{where}: {message}"


def validate(instance: Any, definition: str) -> None:
    """Raise RecordError with one line when `instance` does not match `definition`."""
    error = best_match(validator(definition).iter_errors(instance))
    if error is not None:
        raise RecordError(describe_error(error))


def check_record(obj: Any) -> Record:
    """Validate a decoded record and return it."""
    if not isinstance(obj, dict):
        raise RecordError(f"a record must be a JSON object, not {type(obj).__name__}")
    version = obj.get("v")
    if version != PROTOCOL_VERSION:
        raise ProtocolVersionError(
            f"record of protocol version {version!r}; this rtbench reads version {PROTOCOL_VERSION}"
        )
    kind = obj.get("type")
    if kind not in RECORD_TYPES:
        raise RecordError(f"unknown record type {kind!r}")
    if kind == "samples" and isinstance(obj.get("values"), list):
        # A chunk of raw samples holds thousands of numbers: the schema's rule
        # for them (integers, not negative) is checked here in one pass, and
        # the rest of the record by the schema, which is 10 to 50 times slower
        # per number.
        values = obj["values"]
        for i, value in enumerate(values):
            integral = type(value) is int or (type(value) is float and value.is_integer())
            if not integral or value < 0:
                raise RecordError(f"values.{i}: {value!r} is not a non-negative integer")
        validate({**obj, "values": []}, "samples")
        return obj
    validate(obj, str(kind))
    return obj


def parse_line(line: str) -> Record:
    """Decode and validate one line of core output."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise RecordError(f"not JSON ({e.msg} at column {e.colno})") from None
    return check_record(obj)


def params_key(params: dict[str, Any]) -> str:
    """A stable text form of a metric's params, used to tell metrics apart."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def metric_key(record: Record) -> tuple[str, str, str]:
    """(scenario, metric, params) of a `result` or `samples` record."""
    return (str(record["scenario"]), str(record["metric"]), params_key(record.get("params", {})))
