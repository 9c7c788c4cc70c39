"""The JSON Schema editors get completion from: committed, in sync, and honest about limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pressroom.campaign import campaign_schema
from pressroom.campaign.fields import CONNECTIONS, content_fields
from pressroom.campaign.format import BLOCKS, CAROUSEL, THREAD
from pressroom.campaign.source import parse
from pressroom.platforms import RULES, Platform
from pressroom.rules import FIRST_COMMENT, takes_carousels, takes_first_comment, takes_threads

PIPELINES = Path(__file__).resolve().parents[2] / "pipelines"
COMMITTED = PIPELINES / "campaign.schema.json"


def test_the_committed_schema_is_the_generated_one() -> None:
    committed = json.loads(COMMITTED.read_text(encoding="utf-8"))
    assert committed == campaign_schema(), (
        "pipelines/campaign.schema.json is stale: run "
        "`pressroom campaign schema -o pipelines/campaign.schema.json`"
    )


def test_the_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(campaign_schema())


def test_text_limits_are_in_descriptions_never_in_max_length() -> None:
    schema = campaign_schema()
    assert "maxLength" not in json.dumps(schema)
    for platform, block in BLOCKS.items():
        properties = schema["$defs"][block.__name__]["properties"]
        for rule in RULES[platform].text_fields:
            description = properties[rule.name]["description"]
            if rule.max_chars is not None:
                assert f"At most {rule.max_chars:,} characters" in description
            else:
                assert "At most" not in description
            assert ("Required" in description) == rule.required


def test_each_block_has_exactly_its_platforms_fields() -> None:
    assert set(BLOCKS) == set(Platform)
    for platform, block in BLOCKS.items():
        # `thread` exactly where the network has a thread rule (X, Threads),
        # `first_comment` where it takes a comment on the post, and `media` (a
        # carousel's list, or a photo post's on short_video) where it publishes several
        # files as one post.
        thread = {THREAD} if takes_threads(platform) else set()
        comment = {FIRST_COMMENT} if takes_first_comment(platform) else set()
        carousel = {CAROUSEL} if takes_carousels(platform) else set()
        if platform is Platform.SHORT_VIDEO:
            carousel = {CAROUSEL}
        assert set(block.model_fields) == {
            *content_fields(platform),
            CONNECTIONS,
            *thread,
            *comment,
            *carousel,
        }


def test_the_schema_offers_the_privacy_values_and_the_selector_forms() -> None:
    video = campaign_schema()["$defs"]["VideoSharingBlock"]["properties"]
    assert video["privacy"]["enum"] == ["public", "unlisted", "private"]
    assert {"enum": ["all"]} in video["connections"]["anyOf"]


@pytest.mark.parametrize("example", sorted(PIPELINES.glob("*.yaml")), ids=lambda p: p.name)
def test_the_examples_follow_the_schema(example: Path) -> None:
    data = parse(example.read_text(encoding="utf-8")).data
    jsonschema.Draft202012Validator(campaign_schema()).validate(data)


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"posts": [{"id": "a", "microblog": {"txt": "hi"}}]}, "'txt' was unexpected"),
        ({"posts": [{"id": "a", "video_sharing": {"privacy": "publc"}}]}, "'publc' is not one of"),
        ({"post": []}, "'post' does not match any of the regexes"),
        ({"name": "Not A Slug"}, "does not match"),
    ],
)
def test_the_schema_catches_what_editors_get_wrong(change: dict[str, Any], complaint: str) -> None:
    document = {"name": "ok", "posts": [{"id": "a", "microblog": {"text": "hi"}}], **change}
    errors = list(jsonschema.Draft202012Validator(campaign_schema()).iter_errors(document))
    assert any(complaint in error.message for error in errors), [e.message for e in errors]


def test_x_keys_are_free_for_anchors() -> None:
    document = {"name": "ok", "x-texts": {"a": 1}, "posts": [{"id": "a", "microblog": {}}]}
    jsonschema.Draft202012Validator(campaign_schema()).validate(document)
