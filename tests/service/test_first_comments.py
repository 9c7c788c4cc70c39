"""First comments on photo_sharing, page_social, professional_network and video_sharing:
the `firstComment` field, sent after the post stands as part 1 (`comment`) on the post
part 0 made, a refused comment leaving the post partial, and a retry with the key sending
only the comment."""

from __future__ import annotations

import re
import secrets
from typing import Any

import pytest

from pressroom import rules
from pressroom.platforms import RULES, Platform
from pressroom.service.admin import connect_through_sandbox
from pressroom.service.drivers import drivers_of, grants
from pressroom.service.drivers.base import PlatformRefused
from pressroom.service.publishing.schemas import REQUESTS
from tests.conftest import Service
from tests.service.test_threads import fail_once
from tests.support.publish import CONNECT_EXTRA, deliveries, error_of, publish, valid_body

COMMENTED = list(rules.COMMENTED)


def test_the_bodies_and_the_drivers_take_a_first_comment_where_the_rules_say() -> None:
    taking = {p for p, body in REQUESTS.items() if "first_comment" in body.model_fields}
    assert taking == set(rules.COMMENTED) == set(grants.COMMENTING)


@pytest.mark.parametrize("platform", COMMENTED)
def test_a_first_comment_goes_on_the_post_part_0_made(service: Service, platform: Platform) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, platform, firstComment="Links in this comment")
    response = publish(account, platform, body, key="commented")
    assert response.status_code == 200, response.text
    result = response.json()

    [post] = deliveries(service)
    [comment] = deliveries(service, "comment")
    assert "firstComment" not in post.payload["fields"]  # the post itself carries no comment
    assert comment.payload["fields"] == {"text": "Links in this comment"}
    assert comment.payload["commentOn"] == post.platform_post_id
    assert comment.payload["media"] is None
    assert result[RULES[platform].id_field] == post.platform_post_id
    parts = [
        {
            "index": 0,
            "kind": "post",
            "platformPostId": post.platform_post_id,
            "url": post.url,
            "status": "published",
        },
        {
            "index": 1,
            "kind": "comment",
            "platformPostId": comment.platform_post_id,
            "url": comment.url,
            "status": "published",
        },
    ]
    assert result["parts"] == parts
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert (record["status"], record["parts"]) == ("published", parts)

    again = publish(account, platform, body, key="commented")
    assert again.json() == result
    assert (len(deliveries(service)), len(deliveries(service, "comment"))) == (1, 1)


@pytest.mark.parametrize("platform", COMMENTED)
@pytest.mark.parametrize("comment", ["", "   \n"])
def test_a_blank_first_comment_is_refused_before_anything_is_sent(
    service: Service, platform: Platform, comment: str
) -> None:
    account = service.account()
    response = publish(account, platform, valid_body(account, platform, firstComment=comment))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "firstComment")
    assert "must not be empty" in error["message"]
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", [Platform.MICROBLOG, Platform.PIN_BOARD])
def test_a_label_without_comments_refuses_the_field(service: Service, platform: Platform) -> None:
    account = service.account()
    response = publish(account, platform, valid_body(account, platform, firstComment="hi"))
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == "firstComment"
    assert deliveries(service) == []


def test_openapi_documents_the_first_comment_on_the_four_bodies(service: Service) -> None:
    schemas = service.client.get("/openapi.json").json()["components"]["schemas"]
    for name in (
        "PhotoSharingPublish",
        "PageSocialPublish",
        "ProfessionalNetworkPublish",
        "VideoSharingPublish",
    ):
        field = schemas[name]["properties"]["firstComment"]
        assert "partial" in field["description"], name
        assert "documents no length limit" in field["description"], name
        # What the service refuses as blank, the schema refuses too: a client generating
        # bodies from the document never sends one the service then rejects.
        any_of = field.get("anyOf", [field])
        [string] = [branch for branch in any_of if branch.get("type") == "string"]
        assert string.get("minLength") == 1, name
        for blank in ("", "   \n", "\u001f\u0085"):
            assert not re.search(string["pattern"], blank), (name, blank)
        assert re.search(string["pattern"], " Links below "), name
    assert "firstComment" not in schemas["MicroblogPublish"]["properties"]
    assert "comment" in schemas["Part"]["properties"]["kind"]["description"]


def refuse_comments(service: Service, platform: Platform) -> Any:
    """The sandbox refuses every comment as a network refuses a text; the real send back."""
    sandbox = drivers_of(service.client.app)[platform]  # type: ignore[arg-type]
    sent_on_loop = sandbox.publish_async  # type: ignore[attr-defined]

    async def refuses(delivery: Any) -> Any:
        if delivery.comment_on is not None:
            raise PlatformRefused("the network refuses it: comments are off", field="text")
        return await sent_on_loop(delivery)

    sandbox.publish_async = refuses  # type: ignore[attr-defined]
    return sent_on_loop


@pytest.mark.parametrize("platform", COMMENTED)
def test_a_refused_comment_leaves_the_post_partial_and_a_retry_sends_only_it(
    service: Service, platform: Platform
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = valid_body(account, platform, firstComment="Read more below")
    sent_on_loop = refuse_comments(service, platform)

    for _ in range(2):  # the key is kept: refused again, the post is not sent again
        response = publish(account, platform, body, key="refused")
        assert response.status_code == 400, response.text
        error = error_of(response)
        assert (error["code"], error["field"]) == ("validation_error", "firstComment")
        assert "first comment" in error["message"]
        [post] = deliveries(service)
        assert [
            (p["kind"], p["status"], p["platformPostId"]) for p in response.json()["parts"]
        ] == [
            ("post", "published", post.platform_post_id),
            ("comment", "failed", None),
        ]
        [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
        assert record["status"] == "partial"
        assert [p["status"] for p in record["parts"]] == ["published", "failed"]
    assert deliveries(service, "comment") == []

    drivers_of(service.client.app)[platform].publish_async = sent_on_loop  # type: ignore[arg-type,attr-defined]
    again = publish(account, platform, body, key="refused")
    assert again.status_code == 200, again.text
    [post] = deliveries(service)
    [comment] = deliveries(service, "comment")
    assert comment.payload["commentOn"] == post.platform_post_id
    result = again.json()
    assert result["recordId"] == record["recordId"]  # the same record, continued
    assert [(p["kind"], p["platformPostId"]) for p in result["parts"]] == [
        ("post", post.platform_post_id),
        ("comment", comment.platform_post_id),
    ]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert (record["status"], record["parts"]) == ("published", result["parts"])


@pytest.mark.parametrize("mode", ["before", "after"])
def test_a_comment_cut_short_is_resumed_without_sending_anything_twice(
    service: Service, mode: str
) -> None:
    """``before``: the comment never reached the network, the retry sends it; ``after``:
    it did and its answer was lost, the retry finds it and sends nothing."""
    service.settings.sandbox.sandbox_dedupe = False
    platform = Platform.PHOTO_SHARING
    account = service.account()
    body = valid_body(account, platform, firstComment="the comment")
    failed = fail_once(service, platform, "the comment", mode)
    cut = publish(account, platform, body, key="cut")
    assert cut.status_code == 503, cut.text
    assert failed == ["the comment"]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == ("partial" if mode == "before" else "unknown")

    again = publish(account, platform, body, key="cut")
    assert again.status_code == 200, again.text
    assert len(deliveries(service)) == 1
    [comment] = deliveries(service, "comment")
    assert again.json()["parts"][1]["platformPostId"] == comment.platform_post_id


COMMENT_ONLY_SCOPES = sorted(
    platform
    for platform, needed in grants.COMMENTING.items()
    if set(needed) - set(grants.PUBLISHING[platform])
)
"""The labels whose first comment needs a scope their posts do not (LinkedIn's
w_member_social covers both)."""


@pytest.mark.parametrize("platform", COMMENT_ONLY_SCOPES)
def test_a_consent_without_the_comment_scope_publishes_the_post_and_not_the_comment(
    service: Service, platform: Platform
) -> None:
    """As the network answers a token without the scope its comments edge requires: the
    post goes, the comment is refused, the post is partial."""
    email = f"{secrets.token_hex(4)}@example.com"
    account = service.account(email=email)
    [scope] = set(grants.COMMENTING[platform]) - set(grants.PUBLISHING[platform])
    connected = connect_through_sandbox(
        email,
        platform,
        name="acme",
        withheld=(scope,),
        settings=service.settings,
        **CONNECT_EXTRA.get(platform, {}),  # type: ignore[arg-type]
    )
    body = valid_body(account, platform, connection_id=connected, firstComment="hello")
    response = publish(account, platform, body, key="no-comment-scope")
    assert response.status_code in (403, 409), response.text
    assert [p["status"] for p in response.json()["parts"]] == ["published", "failed"]
    assert len(deliveries(service)) == 1
    assert deliveries(service, "comment") == []
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "partial"
