"""Document posts (``format: document`` on professional_network, LinkedIn's PDF posts):
a PDF published through the API on the sandbox and read back; a PDF anywhere else, and
anything but a PDF as a document, refused before anything is sent, naming the field and
the rule; LinkedIn's document limits (100 MB, 300 pages) from the rule table."""

from __future__ import annotations

from typing import Any

import pytest

from pressroom.platforms import RULES, Platform, PostFormat
from pressroom.rules.formats import FORMATS
from tests.conftest import AccountHandle, Service
from tests.support.files import make_document, make_file
from tests.support.publish import deliveries, error_of, publish, valid_body

LINKEDIN = Platform.PROFESSIONAL_NETWORK
DOCUMENT_RULE = FORMATS[LINKEDIN][PostFormat.DOCUMENT]


def document_body(account: AccountHandle, file_id: str, **overrides: Any) -> dict[str, Any]:
    return valid_body(
        account,
        LINKEDIN,
        text="Our quarter, in twelve pages",
        fileId=file_id,
        format="document",
        documentTitle="Q3 report",
        **overrides,
    )


def refused(response: Any, field: str, code: str = "validation_error") -> dict[str, Any]:
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == (code, field), error
    assert error["docUrl"].startswith("https://"), error
    return error


def test_a_document_post_is_published_and_read_back(service: Service) -> None:
    account = service.account()
    pdf = make_document(account, pages=12)
    body = document_body(account, pdf)
    response = publish(account, LINKEDIN, body, key="deck")
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["format"] == "document"
    [post] = deliveries(service)
    assert post.payload["fields"]["format"] == "document"
    assert post.payload["fields"]["documentTitle"] == "Q3 report"
    assert post.payload["media"]["fileId"] == pdf
    assert post.payload["media"]["kind"] == "document"
    [record] = service.client.get("/api/posts", headers=account.headers).json()["posts"]
    assert (record["format"], record["status"], record["url"]) == (
        "document",
        "published",
        result["url"],
    )
    again = publish(account, LINKEDIN, body, key="deck")
    assert again.json() == result
    assert len(deliveries(service)) == 1


@pytest.mark.parametrize(
    ("pages", "size", "allowed"),
    [
        (DOCUMENT_RULE.max_pages, DOCUMENT_RULE.max_bytes, True),
        ((DOCUMENT_RULE.max_pages or 0) + 1, 1_000, False),
        (1, (DOCUMENT_RULE.max_bytes or 0) + 1, False),
    ],
)
def test_a_document_is_held_to_linkedins_pages_and_size(
    service: Service, pages: int, size: int, allowed: bool
) -> None:
    account = service.account()
    body = document_body(account, make_document(account, pages=pages, size=size))
    response = publish(account, LINKEDIN, body)
    if allowed:
        assert response.status_code == 200, response.text
        return
    error = refused(response, "fileId")
    assert error["rule"] == "professional_network.document"
    assert error["docUrl"] == DOCUMENT_RULE.doc_url
    assert f"the file has {pages if pages > 1 else size:,}" in error["message"]
    assert deliveries(service) == []


@pytest.mark.parametrize("kind", ["image", "video"])
def test_a_document_of_an_image_or_a_video_is_refused(service: Service, kind: str) -> None:
    account = service.account()
    body = document_body(account, make_file(account, kind))
    error = refused(publish(account, LINKEDIN, body), "fileId")
    assert error["rule"] == "professional_network.document"
    assert "application/pdf" in error["message"]
    assert deliveries(service) == []


def test_a_pdf_without_format_document_is_refused_saying_how(service: Service) -> None:
    account = service.account()
    body = valid_body(account, LINKEDIN, fileId=make_document(account))
    error = refused(publish(account, LINKEDIN, body), "fileId", "media_kind_not_allowed")
    assert error["rule"] == "professional_network.document"
    assert "format: document" in error["message"]
    assert deliveries(service) == []


def test_a_pdf_in_a_linkedin_carousel_is_refused_naming_its_place(service: Service) -> None:
    account = service.account()
    body = valid_body(
        account,
        LINKEDIN,
        fileIds=[make_file(account, "image"), make_document(account)],
    )
    error = refused(publish(account, LINKEDIN, body), "fileIds[1]", "media_kind_not_allowed")
    assert error["rule"] == "professional_network.document"
    assert "alone in fileId" in error["message"]
    assert deliveries(service) == []


MEDIA_LABELS = [p for p, rules in RULES.items() if not rules.text_only]


@pytest.mark.parametrize("platform", MEDIA_LABELS)
def test_a_pdf_on_any_other_label_is_refused_naming_its_formats(
    service: Service, platform: Platform
) -> None:
    account = service.account()
    body = valid_body(account, platform, fileId=make_document(account))
    error = refused(publish(account, platform, body), "fileId", "media_kind_not_allowed")
    assert error["rule"] == f"{platform.value}.format"
    assert "only a document post takes one" in error["message"]
    assert deliveries(service) == []


@pytest.mark.parametrize(
    ("platform", "post_format"),
    [(Platform.PHOTO_SHARING, PostFormat.STORY), (Platform.PAGE_SOCIAL, PostFormat.REEL)],
)
def test_a_pdf_in_another_format_is_refused(
    service: Service, platform: Platform, post_format: PostFormat
) -> None:
    account = service.account()
    body = valid_body(account, platform, fileId=make_document(account), format=post_format.value)
    for text in ("caption", "message"):
        body.pop(text, None)
    error = refused(publish(account, platform, body), "fileId", "media_kind_not_allowed")
    assert error["rule"] == f"{platform.value}.format"
    assert deliveries(service) == []


def test_a_pdf_is_no_thumbnail_nor_a_thread_parts_file(service: Service) -> None:
    account = service.account()
    platform = Platform.TEXT_THREAD
    body = valid_body(
        account,
        platform,
        thread=[{"text": "part two", "fileIds": [make_document(account)]}],
    )
    error = refused(
        publish(account, platform, body), "thread[0].fileIds[0]", "media_kind_not_allowed"
    )
    assert error["rule"] == "text_thread.format"
    video = publish(account, Platform.VIDEO_SHARING, valid_body(account, Platform.VIDEO_SHARING))
    assert video.status_code == 200, video.text
    thumbnail = service.client.post(
        f"/api/v2/video_sharing/thumbnail/{video.json()['videoId']}",
        json={"thumbnailFileId": make_document(account)},
        headers=account.headers,
    )
    error = refused(thumbnail, "thumbnailFileId", "media_kind_not_allowed")
    assert error["rule"] == "video_sharing.format"
    assert len(deliveries(service)) == 1  # the video alone


def test_a_document_post_whose_answer_was_lost_is_found_not_sent_again(service: Service) -> None:
    """The network received the document post and failed (mode ``after``): a retry with
    the key looks it up by the PDF it carried, and sends nothing."""
    service.settings.sandbox.sandbox_dedupe = False
    account = service.account()
    body = document_body(account, make_document(account))
    knobs = service.settings.sandbox
    knobs.sandbox_failure_rate, knobs.sandbox_failure_mode = 1.0, "after"
    cut = publish(account, LINKEDIN, body, key="lost")
    knobs.sandbox_failure_rate = 0.0
    assert cut.status_code == 503, cut.text
    [post] = deliveries(service)
    again = publish(account, LINKEDIN, body, key="lost")
    assert again.status_code == 200, again.text
    assert again.json()["url"] == post.url
    assert len(deliveries(service)) == 1


def test_alt_text_on_a_document_is_refused_as_linkedin_takes_it_on_images_only(
    service: Service,
) -> None:
    account = service.account()
    pdf = make_document(account)
    body = document_body(account, pdf, fileAlts={pdf: "Cover page of the report"})
    response = publish(account, LINKEDIN, body)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert error["rule"] == "professional_network.alt_text", error
    assert "no alt text on a document" in error["message"]
    assert deliveries(service) == []
