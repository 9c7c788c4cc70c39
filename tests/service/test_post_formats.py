"""Post formats (the body's ``format``): stories and reels on photo_sharing and
page_social, photo posts on short_video, each published through the API on the sandbox
and read back; a format the label does not offer, and media or text the format does not
take, refused before anything is sent, naming the field and the rule."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom.platforms import Platform, PostFormat
from pressroom.rules.formats import FORMAT_RULES, FORMATS
from tests.conftest import AccountHandle, Service
from tests.support.files import make_file
from tests.support.publish import connect, deliveries, error_of, publish, valid_body

URLS = {
    (Platform.PHOTO_SHARING, PostFormat.STORY): "https://photo-sharing.example/stories/",
    (Platform.PHOTO_SHARING, PostFormat.REEL): "https://photo-sharing.example/reel/",
    (Platform.PAGE_SOCIAL, PostFormat.STORY): "https://page-social.example/stories/",
    (Platform.PAGE_SOCIAL, PostFormat.REEL): "https://page-social.example/reel/",
    (Platform.SHORT_VIDEO, PostFormat.PHOTO): "https://short-video.example/@",
}
"""Where each format's URL starts on the sandbox, as on its network."""

MEDIA_FORMATS = [
    (Platform.PHOTO_SHARING, PostFormat.STORY, "image"),
    (Platform.PHOTO_SHARING, PostFormat.STORY, "video"),
    (Platform.PHOTO_SHARING, PostFormat.REEL, "video"),
    (Platform.PAGE_SOCIAL, PostFormat.STORY, "image"),
    (Platform.PAGE_SOCIAL, PostFormat.STORY, "video"),
    (Platform.PAGE_SOCIAL, PostFormat.REEL, "video"),
    (Platform.SHORT_VIDEO, PostFormat.PHOTO, "image"),
]

TEXT_FIELD = {Platform.PHOTO_SHARING: "caption", Platform.PAGE_SOCIAL: "message"}


def format_body(
    account: AccountHandle, platform: Platform, post_format: PostFormat, kind: str
) -> dict[str, Any]:
    body = valid_body(account, platform, connection_id=connect(account, platform))
    body["fileId"] = make_file(account, kind)
    body["format"] = post_format.value
    for text in TEXT_FIELD.values():
        body.pop(text, None)
    return body


def read_back(service: Service, account: AccountHandle) -> dict[str, Any]:
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    return dict(record)


def test_the_table_covers_the_formats_the_labels_offer() -> None:
    assert {(rule.platform, rule.format) for rule in FORMAT_RULES} == {
        *URLS,
        (Platform.PROFESSIONAL_NETWORK, PostFormat.DOCUMENT),
    }
    assert all(rule.doc_url.startswith("https://") for rule in FORMAT_RULES)


@pytest.mark.parametrize(("platform", "post_format", "kind"), MEDIA_FORMATS)
def test_a_post_in_each_format_is_published_and_read_back_with_it(
    service: Service, platform: Platform, post_format: PostFormat, kind: str
) -> None:
    account = service.account()
    body = format_body(account, platform, post_format, kind)
    response = publish(account, platform, body, key="format")
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["format"] == post_format.value
    assert result["url"].startswith(URLS[platform, post_format])
    if post_format is PostFormat.PHOTO:
        assert "/photo/" in result["url"]
    [post] = deliveries(service)
    assert post.payload["fields"]["format"] == post_format.value
    assert post.url == result["url"]
    record = read_back(service, account)
    assert (record["format"], record["status"], record["url"]) == (
        post_format.value,
        "published",
        result["url"],
    )
    again = publish(account, platform, body, key="format")
    assert again.json() == result
    assert len(deliveries(service)) == 1


def test_a_feed_post_answers_as_before_and_its_record_says_post(service: Service) -> None:
    account = service.account()
    platform = Platform.PHOTO_SHARING
    response = publish(account, platform, valid_body(account, platform))
    assert response.status_code == 200, response.text
    assert "format" not in response.json()
    assert "/p/" in response.json()["url"]
    assert read_back(service, account)["format"] == "post"


def test_a_tiktok_photo_post_takes_several_images_in_file_ids(service: Service) -> None:
    account = service.account()
    platform = Platform.SHORT_VIDEO
    body = format_body(account, platform, PostFormat.PHOTO, "image")
    del body["fileId"]
    body["fileIds"] = [make_file(account, "image") for _ in range(3)]
    response = publish(account, platform, body)
    assert response.status_code == 200, response.text
    [post] = deliveries(service)
    assert [item["fileId"] for item in post.payload["items"]] == body["fileIds"]
    assert read_back(service, account)["format"] == "photo"


def _refused(response: Any, field: str) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", field), error
    return error


@pytest.mark.parametrize("platform", list(Platform))
@pytest.mark.parametrize("post_format", [f for f in PostFormat if f is not PostFormat.POST])
def test_a_format_the_label_does_not_offer_is_refused_naming_format(
    service: Service, platform: Platform, post_format: PostFormat
) -> None:
    if post_format in FORMATS[platform]:
        pytest.skip("offered")
    account = service.account()
    body = valid_body(account, platform, format=post_format.value)
    error = _refused(publish(account, platform, body), "format")
    assert error["rule"] == f"{platform.value}.format"
    assert error["docUrl"].startswith("https://")
    assert deliveries(service) == []


def test_a_format_that_is_none_is_refused_naming_format(service: Service) -> None:
    account = service.account()
    platform = Platform.PHOTO_SHARING
    error = _refused(
        publish(account, platform, valid_body(account, platform, format="x")), "format"
    )
    assert "story" in error["message"]


@pytest.mark.parametrize(
    ("platform", "post_format", "kind"),
    [
        (Platform.PHOTO_SHARING, PostFormat.REEL, "image"),
        (Platform.PAGE_SOCIAL, PostFormat.REEL, "image"),
        (Platform.SHORT_VIDEO, PostFormat.PHOTO, "video"),
    ],
)
def test_a_file_the_format_does_not_take_is_refused_naming_file_id(
    service: Service, platform: Platform, post_format: PostFormat, kind: str
) -> None:
    account = service.account()
    body = format_body(account, platform, post_format, kind)
    error = _refused(publish(account, platform, body), "fileId")
    assert error["rule"] == f"{platform.value}.{post_format.value}"
    assert deliveries(service) == []


@pytest.mark.parametrize(
    ("platform", "post_format"),
    [(Platform.PHOTO_SHARING, PostFormat.STORY), (Platform.PAGE_SOCIAL, PostFormat.REEL)],
)
def test_a_story_or_reel_without_a_file_is_refused_naming_file_id(
    service: Service, platform: Platform, post_format: PostFormat
) -> None:
    account = service.account()
    body = format_body(account, platform, post_format, "video")
    del body["fileId"]
    _refused(publish(account, platform, body), "fileId")
    assert deliveries(service) == []


@pytest.mark.parametrize("platform", [Platform.PHOTO_SHARING, Platform.PAGE_SOCIAL])
def test_a_reel_of_several_files_is_refused_naming_file_ids(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = format_body(account, platform, PostFormat.REEL, "video")
    del body["fileId"]
    body["fileIds"] = [make_file(account, "video") for _ in range(2)]
    error = _refused(publish(account, platform, body), "fileIds")
    assert error["rule"] == f"{platform.value}.reel"


@pytest.mark.parametrize("platform", [Platform.PHOTO_SHARING, Platform.PAGE_SOCIAL])
def test_a_story_takes_no_text_nor_first_comment(service: Service, platform: Platform) -> None:
    account = service.account()
    field = TEXT_FIELD[platform]
    body = format_body(account, platform, PostFormat.STORY, "image") | {field: "hello"}
    error = _refused(publish(account, platform, body), field)
    assert error["rule"] == f"{platform.value}.story"
    body = format_body(account, platform, PostFormat.STORY, "image") | {"firstComment": "hi"}
    _refused(publish(account, platform, body), "firstComment")
    assert deliveries(service) == []


@pytest.mark.parametrize(("seconds", "allowed"), [(90.0, True), (91.0, False), (2.0, False)])
def test_a_facebook_reel_is_held_to_facebooks_reel_length(
    service: Service, seconds: float, allowed: bool
) -> None:
    account = service.account()
    platform = Platform.PAGE_SOCIAL
    body = format_body(account, platform, PostFormat.REEL, "video")
    body["fileId"] = make_file(account, "video", duration=seconds)
    response = publish(account, platform, body)
    if allowed:
        assert response.status_code == 200, response.text
    else:
        assert _refused(response, "fileId")["rule"] == "page_social.reel"


def test_file_ids_on_short_video_go_with_format_photo_alone(service: Service) -> None:
    account = service.account()
    platform = Platform.SHORT_VIDEO
    body = valid_body(account, platform)
    del body["fileId"]
    body["fileIds"] = [make_file(account, "image") for _ in range(2)]
    _refused(publish(account, platform, body), "fileIds")
    assert deliveries(service) == []


def test_document_title_without_a_document_is_refused(service: Service) -> None:
    account = service.account()
    platform = Platform.PROFESSIONAL_NETWORK
    body = valid_body(account, platform, documentTitle="Report")
    error = _refused(publish(account, platform, body), "documentTitle")
    assert "format: document" in error["message"]
