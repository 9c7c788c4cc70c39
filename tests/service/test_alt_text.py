"""Alt text per file (`fileAlts`, a map from a file id to its text): taken on the labels
whose network takes it, kept by the sandbox with each file it received (a post's, a
carousel's items, a thread part's), and refused before anything is sent where the
network would not take it, naming `fileAlts.<id>` and the rule."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom.platforms import Platform
from pressroom.rules.alt_text import ALT_TEXT_RULES, takes_alt_text
from pressroom.service.publishing.schemas import REQUESTS
from tests.conftest import Service
from tests.service.test_carousels import carousel_body
from tests.support.files import make_file
from tests.support.publish import deliveries, error_of, publish, valid_body

TAKING = [p for p in Platform if takes_alt_text(p)]
NOT_TAKING = [p for p in Platform if not takes_alt_text(p)]


def test_the_labels_whose_network_takes_alt_text() -> None:
    assert set(TAKING) == {
        Platform.PHOTO_SHARING,
        Platform.PAGE_SOCIAL,
        Platform.TEXT_THREAD,
        Platform.PROFESSIONAL_NETWORK,
        Platform.PIN_BOARD,
        Platform.OPEN_MICROBLOG,
    }
    for platform, body in REQUESTS.items():
        schema = body.model_json_schema(by_alias=True)
        assert ("fileAlts" in schema["properties"]) == (platform in TAKING), platform


def test_the_openapi_document_says_the_shape_and_the_limit(service: Service) -> None:
    schemas = service.client.get("/openapi.json").json()["components"]["schemas"]
    alts = schemas["PinBoardPublish"]["properties"]["fileAlts"]
    assert alts["type"] == "object"
    assert alts["additionalProperties"]["maxLength"] == ALT_TEXT_RULES[Platform.PIN_BOARD].limit
    assert "map" in alts["description"] and "pin_board.alt_text" in alts["description"]
    assert "fileAlts" not in schemas["VideoSharingPublish"]["properties"]


def _single_image(service: Service, platform: Platform) -> tuple[Any, dict[str, Any]]:
    account = service.account()
    body = valid_body(account, platform)
    body["fileId"] = make_file(account, "image")
    return account, body


@pytest.mark.parametrize(
    "platform", [Platform.PHOTO_SHARING, Platform.PAGE_SOCIAL, Platform.PIN_BOARD]
)
def test_a_post_of_one_image_carries_its_alt_text_to_the_network(
    service: Service, platform: Platform
) -> None:
    account, body = _single_image(service, platform)
    body["fileAlts"] = {body["fileId"]: "A red kite over the hills"}
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    [post] = deliveries(service)
    assert post.payload["media"]["altText"] == "A red kite over the hills"
    assert "fileAlts" not in post.payload["fields"]
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert record["request"]["fileAlts"] == body["fileAlts"]


@pytest.mark.parametrize(
    "platform",
    [
        Platform.PHOTO_SHARING,
        Platform.PAGE_SOCIAL,
        Platform.TEXT_THREAD,
        Platform.PROFESSIONAL_NETWORK,
    ],
)
def test_each_carousel_item_carries_its_own_alt_text(service: Service, platform: Platform) -> None:
    account = service.account()
    body = carousel_body(account, platform, 3)
    first, _, third = body["fileIds"]
    body["fileAlts"] = {first: "The first picture", third: "The third picture"}
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    [post] = deliveries(service)
    assert [item.get("altText") for item in post.payload["items"]] == [
        "The first picture",
        None,
        "The third picture",
    ]


def test_a_thread_parts_files_carry_their_alt_text(service: Service) -> None:
    account = service.account()
    one, two, three = (make_file(account, "image") for _ in range(3))
    body = valid_body(account, Platform.TEXT_THREAD)
    body["thread"] = [
        {"text": "one file", "fileIds": [one]},
        {"text": "two", "fileIds": [two, three]},
    ]
    body["fileAlts"] = {one: "Alt one", three: "Alt three"}
    response = publish(account, Platform.TEXT_THREAD, body)
    assert response.status_code == 200, response.text
    first, second, third = deliveries(service)
    assert first.payload["media"] is None
    assert second.payload["media"]["altText"] == "Alt one"
    assert [item.get("altText") for item in third.payload["items"]] == [None, "Alt three"]


@pytest.mark.parametrize("platform", TAKING)
def test_a_key_that_is_none_of_the_posts_files_is_refused(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = carousel_body(account, platform, 2)
    body["fileAlts"] = {body["fileIds"][0]: "fine", "file_elsewhere": "a stray"}
    if platform is Platform.PIN_BOARD:  # a carousel Pin takes none: one image here
        body.pop("fileIds")
        body["fileId"] = make_file(account, "image")
        body["fileAlts"] = {body["fileId"]: "fine", "file_elsewhere": "a stray"}
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "fileAlts.file_elsewhere")
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", NOT_TAKING)
def test_a_label_whose_network_takes_no_alt_text_refuses_it_naming_the_rule(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = valid_body(account, platform)
    body["fileAlts"] = {body.get("fileId", "file_x"): "a description"}
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "fileAlts")
    assert error["rule"] == f"{platform.value}.alt_text"
    assert error["docUrl"] == ALT_TEXT_RULES[platform].doc_url
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", [Platform.PHOTO_SHARING, Platform.PAGE_SOCIAL])
def test_alt_text_on_a_video_where_the_network_takes_it_on_images_only_is_refused(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = valid_body(account, platform)
    body["fileId"] = video = make_file(account, "video")
    body["fileAlts"] = {video: "A video"}
    response = publish(account, platform, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", f"fileAlts.{video}")
    assert error["rule"] == f"{platform.value}.alt_text"
    assert "images only" in error["message"]
    assert deliveries(service) == []


def test_threads_takes_alt_text_on_a_carousels_video(service: Service) -> None:
    account = service.account()
    body = carousel_body(account, Platform.TEXT_THREAD, 2)
    body["fileIds"][1] = video = make_file(account, "video")
    body["fileAlts"] = {video: "A short clip"}
    response = publish(account, Platform.TEXT_THREAD, body)
    assert response.status_code == 200, response.text
    [post] = deliveries(service)
    assert post.payload["items"][1]["altText"] == "A short clip"


def test_alt_text_on_an_instagram_story_is_refused_naming_the_rule(service: Service) -> None:
    account, body = _single_image(service, Platform.PHOTO_SHARING)
    body.pop("caption", None)
    body |= {"format": "story", "fileAlts": {body["fileId"]: "A story"}}
    response = publish(account, Platform.PHOTO_SHARING, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("fileAlts", "photo_sharing.alt_text")
    assert deliveries(service) == []


def test_alt_text_on_a_carousel_pin_is_refused(service: Service) -> None:
    account = service.account()
    body = carousel_body(account, Platform.PIN_BOARD, 2)
    body["fileAlts"] = {body["fileIds"][0]: "One of two"}
    response = publish(account, Platform.PIN_BOARD, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("fileAlts", "pin_board.alt_text")
    assert deliveries(service) == []


def test_pinterest_takes_500_code_points_and_refuses_501(service: Service) -> None:
    account, body = _single_image(service, Platform.PIN_BOARD)
    file_id = body["fileId"]
    body["fileAlts"] = {file_id: "é" * 500}
    assert publish(account, Platform.PIN_BOARD, body).status_code == 200
    account, body = _single_image(service, Platform.PIN_BOARD)
    file_id = body["fileId"]
    body["fileAlts"] = {file_id: "a" * 501}
    response = publish(account, Platform.PIN_BOARD, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["field"], error["rule"]) == (f"fileAlts.{file_id}", "pin_board.alt_text")
    assert "shorten it by 1" in error["message"]
    assert len(deliveries(service)) == 1


def test_a_blank_alt_text_is_refused(service: Service) -> None:
    account, body = _single_image(service, Platform.PHOTO_SHARING)
    body["fileAlts"] = {body["fileId"]: "   "}
    response = publish(account, Platform.PHOTO_SHARING, body)
    assert response.status_code == 400, response.text
    assert error_of(response)["field"] == f"fileAlts.{body['fileId']}"
