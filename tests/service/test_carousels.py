"""Carousels on photo_sharing, page_social, text_thread, professional_network and
pin_board: the `fileIds` field, its count and files checked before anything is sent,
published as one post whose `parts` are the carousel (`post`) then its items in order
where the network gives them ids, with a first comment after them where the label takes
one."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom import rules
from pressroom.platforms import RULES, MediaKind, Platform
from pressroom.rules import all_rules, rule_by_id
from pressroom.rules.model import ItemsPerPost
from pressroom.service.publishing.schemas import REQUESTS
from tests.conftest import AccountHandle, Service
from tests.service.test_first_comments import refuse_comments
from tests.support.files import make_file
from tests.support.publish import connect, deliveries, error_of, publish, valid_body
from tests.support.rules import patch_rule

CAROUSELS = list(rules.CAROUSELS)


def carousel_body(
    account: AccountHandle, platform: Platform, count: int = 3, **overrides: Any
) -> dict[str, Any]:
    """A valid body of ``platform`` carrying a carousel of ``count`` new images."""
    body = valid_body(account, platform, connection_id=connect(account, platform))
    body.pop("fileId", None)
    body["fileIds"] = [make_file(account, "image") for _ in range(count)]
    return body | overrides


def expected_parts(platform: Platform, post: Any) -> list[dict[str, Any]]:
    """The parts a carousel's answer lists, from the sandbox's record of it."""
    parts = [
        {
            "index": 0,
            "kind": "post",
            "platformPostId": post.platform_post_id,
            "url": post.url,
            "status": "published",
        }
    ]
    if rules.CAROUSELS[platform].item_ids:
        parts += [
            {
                "index": i,
                "kind": "item",
                "platformPostId": item["platformPostId"],
                "url": item["url"],
                "status": "published",
            }
            for i, item in enumerate(post.payload["items"], start=1)
        ]
    return parts


def test_the_bodies_take_file_ids_where_the_rules_say() -> None:
    taking = {p for p, body in REQUESTS.items() if "file_ids" in body.model_fields}
    # short_video's fileIds are a TikTok photo post's images (format: photo), no carousel
    assert taking == set(rules.CAROUSELS) | {Platform.SHORT_VIDEO}


@pytest.mark.parametrize("platform", CAROUSELS)
def test_a_carousel_is_published_as_one_post_with_its_items_in_order(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = carousel_body(account, platform)
    response = publish(account, platform, body, key="carousel")
    assert response.status_code == 200, response.text
    result = response.json()

    [post] = deliveries(service)
    assert [item["fileId"] for item in post.payload["items"]] == body["fileIds"]
    assert post.payload["media"] is None
    assert "fileIds" not in post.payload["fields"]
    assert result[RULES[platform].id_field] == post.platform_post_id
    assert result["url"] == post.url
    parts = expected_parts(platform, post)
    if len(parts) > 1:
        assert result["parts"] == parts
        assert len({p["platformPostId"] for p in parts}) == 4  # the post and 3 items
    else:  # Pinterest gives a carousel's items no ids: a post of one part
        assert "parts" not in result
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "published"
    assert record["parts"] == (parts if len(parts) > 1 else [])
    assert record["request"]["fileIds"] == body["fileIds"]

    again = publish(account, platform, body, key="carousel")
    assert again.json() == result
    assert len(deliveries(service)) == 1


@pytest.mark.parametrize("platform", CAROUSELS)
def test_file_id_with_file_ids_is_refused_naming_file_ids(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = carousel_body(account, platform, fileId=make_file(account, "image"))
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "fileIds")
    assert "cannot go together" in error["message"]
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", CAROUSELS)
@pytest.mark.parametrize("count", [0, 1])
def test_a_carousel_of_fewer_than_two_files_is_refused(
    service: Service, platform: Platform, count: int
) -> None:
    account = service.account()
    response = publish(account, platform, carousel_body(account, platform, count))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "fileIds")
    assert "at least 2" in error["message"]
    assert deliveries(service) == []


@pytest.mark.parametrize(
    "rule_id", [rule.id for rule in all_rules() if isinstance(rule, ItemsPerPost)]
)
def test_every_carousel_rule_takes_its_limit_and_refuses_one_more(
    service: Service, monkeypatch: pytest.MonkeyPatch, rule_id: str
) -> None:
    """Each network's items-per-carousel rule of the table, just inside and just
    outside, at a limit lowered here to 3 (as the thread tests lower theirs)."""
    platform = rule_by_id(rule_id).platform
    patch_rule(monkeypatch, rule_id, max_items=3)
    account = service.account()
    response = publish(account, platform, carousel_body(account, platform, 3))
    assert response.status_code == 200, response.text
    response = publish(account, platform, carousel_body(account, platform, 4))
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"], error["rule"]) == (
        "validation_error",
        "fileIds",
        rule_id,
    )
    assert error["docUrl"] == rule_by_id(rule_id).doc_url
    assert "remove 1" in error["message"]
    assert len(deliveries(service)) == 1


def test_the_rule_table_bounds_instagram_carousels_at_2_to_10() -> None:
    rule = rule_by_id("photo_sharing.carousel_items")
    assert isinstance(rule, ItemsPerPost)
    assert (rule.min_items, rule.max_items) == (2, 10)
    assert rule.doc_url.startswith("https://developers.facebook.com/docs/instagram-platform/")


@pytest.mark.parametrize("platform", CAROUSELS)
def test_each_file_is_checked_and_named_by_its_place(service: Service, platform: Platform) -> None:
    account = service.account()
    body = carousel_body(account, platform)
    body["fileIds"][1] = "file_unknown"
    response = publish(account, platform, body)
    assert response.status_code == 404, response.text
    assert error_of(response)["field"] == "fileIds[1]"

    body = carousel_body(account, platform)
    body["fileIds"][2] = make_file(account, "image", status="processing")
    response = publish(account, platform, body)
    assert response.status_code == 409, response.text
    assert error_of(response)["field"] == "fileIds[2]"
    assert deliveries(service) == []


@pytest.mark.parametrize(
    "platform", [p for p, c in rules.CAROUSELS.items() if MediaKind.VIDEO not in c.kinds]
)
def test_a_video_in_a_carousel_of_images_is_refused(service: Service, platform: Platform) -> None:
    account = service.account()
    body = carousel_body(account, platform)
    body["fileIds"][0] = make_file(account, "video")
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("media_kind_not_allowed", "fileIds[0]")
    assert deliveries(service) == []


@pytest.mark.parametrize(
    "platform", [p for p, c in rules.CAROUSELS.items() if MediaKind.VIDEO in c.kinds]
)
def test_a_carousel_mixes_images_and_videos_where_the_network_does(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = carousel_body(account, platform, 2)
    body["fileIds"].insert(1, make_file(account, "video", duration=10.0))
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    [post] = deliveries(service)
    assert [item["kind"] for item in post.payload["items"]] == ["image", "video", "image"]
    assert [p["kind"] for p in response.json()["parts"]] == ["post", "item", "item", "item"]


@pytest.mark.parametrize(
    "platform", [p for p in CAROUSELS if not (RULES[p].text_only or RULES[p].media_optional)]
)
def test_a_media_label_needs_file_id_or_file_ids(service: Service, platform: Platform) -> None:
    account = service.account()
    body = valid_body(account, platform)
    del body["fileId"]
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "fileId")
    assert "fileIds" in error["message"]


@pytest.mark.parametrize("platform", [Platform.MICROBLOG, Platform.VIDEO_SHARING])
def test_a_label_without_carousels_refuses_file_ids(service: Service, platform: Platform) -> None:
    account = service.account()
    ids = [make_file(account, "image"), make_file(account, "image")]
    response = publish(account, platform, valid_body(account, platform, fileIds=ids))
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == "fileIds"
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", [p for p in CAROUSELS if rules.takes_first_comment(p)])
def test_a_carousel_with_a_first_comment_lists_the_comment_after_its_items(
    service: Service, platform: Platform
) -> None:
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = carousel_body(account, platform, firstComment="Details below")
    sent_on_loop = refuse_comments(service, platform)
    response = publish(account, platform, body, key="carousel-comment")
    assert response.status_code == 400, response.text
    [post] = deliveries(service)
    assert [(p["kind"], p["status"]) for p in response.json()["parts"]] == [
        ("post", "published"),
        ("item", "published"),
        ("item", "published"),
        ("item", "published"),
        ("comment", "failed"),
    ]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "partial"

    from pressroom.service.drivers import drivers_of

    drivers_of(service.client.app)[platform].publish_async = sent_on_loop  # type: ignore[arg-type,attr-defined]
    again = publish(account, platform, body, key="carousel-comment")
    assert again.status_code == 200, again.text
    assert len(deliveries(service)) == 1  # the carousel is not sent again
    [comment] = deliveries(service, "comment")
    assert comment.payload["commentOn"] == post.platform_post_id
    parts = again.json()["parts"]
    assert parts[:4] == expected_parts(platform, post)
    assert (parts[4]["kind"], parts[4]["index"], parts[4]["platformPostId"]) == (
        "comment",
        4,
        comment.platform_post_id,
    )
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert (record["status"], record["parts"]) == ("published", parts)


@pytest.mark.parametrize("platform", [Platform.PHOTO_SHARING, Platform.PROFESSIONAL_NETWORK])
def test_a_carousel_whose_answer_was_lost_is_found_not_sent_again(
    service: Service, platform: Platform
) -> None:
    """The network received the carousel and failed (mode ``after``): a retry with the
    key looks it up, records its items, and sends nothing."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = carousel_body(account, platform, firstComment="after the items")
    knobs = service.settings.sandbox
    knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, "after"
    cut = publish(account, platform, body, key="lost")
    knobs.sandbox_failure_rate = 0.0
    assert cut.status_code == 503, cut.text
    [post] = deliveries(service)
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["status"] == "unknown"

    again = publish(account, platform, body, key="lost")
    assert again.status_code == 200, again.text
    assert len(deliveries(service)) == 1
    parts = again.json()["parts"]
    assert parts[:4] == expected_parts(platform, post)
    assert [p["kind"] for p in parts] == ["post", "item", "item", "item", "comment"]


def test_openapi_documents_file_ids_on_the_carousel_bodies(service: Service) -> None:
    schemas = service.client.get("/openapi.json").json()["components"]["schemas"]
    for platform, body in REQUESTS.items():
        properties = schemas[body.__name__]["properties"]
        if platform is Platform.SHORT_VIDEO:  # a TikTok photo post's images
            assert "`format` `photo` only" in properties["fileIds"]["description"]
            continue
        if platform not in rules.CAROUSELS:
            assert "fileIds" not in properties, platform
            continue
        field = properties["fileIds"]
        assert field["minItems"] == 2, platform
        assert "carousel" in field["description"], platform
        assert "fileId" not in schemas[body.__name__].get("required", []), platform
    assert "item" in schemas["Part"]["properties"]["kind"]["description"]
