#!/usr/bin/python3
"""Validates a JSON file against a JSON Schema with Debian's
python3-jsonschema: prints "valid" and exits 0, or each error's path and
message and exits 1."""

import json
import sys

import jsonschema


def main(schema_path, doc_path):
    with open(schema_path) as f:
        schema = json.load(f)
    with open(doc_path) as f:
        doc = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
    for e in errors:
        print("%s: %s" % ("/".join(str(p) for p in e.path) or "(root)", e.message))
    if errors:
        sys.exit(1)
    print("valid")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
