#!/usr/bin/env python3
"""Validates DailyValue events against the published JSON Schema with Python `jsonschema` (draft 2020-12).

The second opinion of the schema agreement test (Tests/ProducerTests/SchemaAgreementTests.swift, docs/SCHEMA.md),
also usable by hand:  .venv/bin/python scripts/check_event_schema.py schema/daily-value-v1.schema.json < events.jsonl

Input (stdin): one event per line; with --base64, each line is the base64 of the raw message bytes (any bytes).
Output (stdout): one JSON object per input line, in order:
  {"json": "ok", "valid": true|false, "errors": ["/path: message", ...], "depth": N, "nonIntegerForm": [...]}
  {"json": "<why the bytes are not an I-JSON document>"}
"depth" is the deepest container nesting (the event object is 1); "nonIntegerForm" names the top-level `schema`
and `version` members written with a fraction or exponent (1.0, 1e3), which JSON Schema counts as integers.
A message must be I-JSON (RFC 7493) before a schema can judge it: UTF-8 without a byte order mark, RFC 8259
syntax, no NaN/Infinity, unique member names, no lone surrogates. Exit status 2 if the schema itself is invalid.
"""
import base64
import binascii
import json
import sys

import jsonschema


class NotIJSON(ValueError):
    pass


def unique_members(pairs):
    names = set()
    for name, _ in pairs:
        if name in names:
            raise NotIJSON("duplicate member name")
        names.add(name)
    return dict(pairs)


def reject_constant(name):
    raise NotIJSON(f"{name} is not JSON")


def walk(value, depth=1):
    """The deepest container nesting under `value`; raises NotIJSON on a lone surrogate in any string."""
    deepest, stack = 0, [(value, depth)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise NotIJSON("lone surrogate in a string") from None
        elif isinstance(item, dict):
            deepest = max(deepest, level)
            stack.extend((key, level) for key in item)
            stack.extend((member, level + 1) for member in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((member, level + 1) for member in item)
    return deepest


def parse(raw):
    if raw.startswith(b"\xef\xbb\xbf"):
        raise NotIJSON("byte order mark")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotIJSON("not UTF-8") from None
    try:
        document = json.loads(text, object_pairs_hook=unique_members, parse_constant=reject_constant)
    except NotIJSON:
        raise
    except RecursionError:
        raise NotIJSON("nesting too deep for the parser") from None
    except ValueError as error:
        raise NotIJSON(f"syntax: {error}") from None
    return document, walk(document)


def check(validator, raw):
    try:
        document, depth = parse(raw)
    except NotIJSON as error:
        return {"json": str(error)}
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    non_integer_form = []
    if isinstance(document, dict):
        non_integer_form = [k for k in ("schema", "version") if isinstance(document.get(k), float)]
    return {
        "json": "ok",
        "valid": not errors,
        "errors": [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"[:200] for e in errors[:3]],
        "depth": depth,
        "nonIntegerForm": non_integer_form,
    }


def main():
    args = sys.argv[1:]
    encoded = "--base64" in args
    paths = [a for a in args if a != "--base64"]
    if len(paths) != 1:
        sys.exit("usage: check_event_schema.py [--base64] SCHEMA < events")
    sys.set_int_max_str_digits(0)  # huge integers compare exactly instead of failing to parse
    with open(paths[0], encoding="utf-8") as file:
        schema = json.load(file)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        print(f"check_event_schema.py: {paths[0]} is not a valid draft 2020-12 schema: {error.message}", file=sys.stderr)
        sys.exit(2)
    validator = jsonschema.Draft202012Validator(schema)
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\n")
        if encoded:
            try:
                line = base64.b64decode(line, validate=True)
            except binascii.Error:
                sys.exit("check_event_schema.py: an input line is not base64")
        print(json.dumps(check(validator, line)), flush=False)


if __name__ == "__main__":
    main()
