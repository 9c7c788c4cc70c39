"""The JSON Schema of campaign files, for editors' completion and inline errors.

Generated from ``pressroom.campaign.format``; committed as
``pipelines/campaign.schema.json`` (a test keeps the two equal). Text lengths are in the
descriptions, not in ``maxLength``: JSON Schema counts code points, while pressroom
counts characters as people see them, so ``maxLength`` would be wrong both ways.
"""

from __future__ import annotations

import json
from typing import Any

from pressroom.campaign.format import CampaignFile

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def campaign_schema() -> dict[str, Any]:
    schema = _tidy(CampaignFile.model_json_schema())
    assert isinstance(schema, dict)
    return {"$schema": DIALECT, "title": "pressroom campaign", **schema}


def schema_text() -> str:
    return json.dumps(campaign_schema(), indent=2, ensure_ascii=False) + "\n"


def _tidy(node: Any) -> Any:
    """Drop what only confuses editors: ``null`` alternatives, null defaults, titles."""
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: _tidy(value) for key, value in node.items() if key != "title"}
    options = result.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [option for option in options if option != {"type": "null"}]
        del result["anyOf"]
        if len(rest) == 1:
            result = {**rest[0], **result}
        else:
            result["anyOf"] = rest
    if "default" in result and result["default"] is None:
        del result["default"]
    if isinstance(result.get("properties"), dict):
        # `properties` maps field names to schemas: a field may be called "title".
        result["properties"] = {name: _tidy(value) for name, value in node["properties"].items()}
    return result
