"""The published JSON Schema of the export is the one the export models generate."""

from __future__ import annotations

import json

from conftest import REPO

from aniso.data.document import SCHEMA_VERSION, json_schema, schema_text


def test_committed_schema_equals_the_generated_one() -> None:
    committed = (REPO / "export-schema.json").read_text(encoding="utf-8")
    assert committed == schema_text(), (
        "export-schema.json is stale: run `python -m aniso.data.document > export-schema.json`"
    )


def test_schema_pins_the_format_and_forbids_unknown_fields() -> None:
    schema = json_schema()
    assert schema["properties"]["format"] == {
        "const": "aniso-export",
        "title": "Format",
        "type": "string",
    }
    assert schema["additionalProperties"] is False
    assert all(
        d["additionalProperties"] is False
        for d in schema["$defs"].values()
        if d.get("type") == "object" and "properties" in d
    )
    assert json.loads(schema_text()) == schema
    assert SCHEMA_VERSION == 1
