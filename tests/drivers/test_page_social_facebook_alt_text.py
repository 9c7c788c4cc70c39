"""Facebook's alt text: ``alt_text_custom`` on each photo's upload (the Photo reference's
creating parameters, https://developers.facebook.com/docs/graph-api/reference/photo/),
a feed photo's and each photo's of a multi-photo post; refused before any request on a
video or a story. Every request is held to Facebook's contract (the module's fixtures)."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest
import respx

from pressroom.platforms import MediaKind
from pressroom.service.drivers.base import PlatformRefused
from pressroom.service.drivers.page_social import FacebookPagesDriver
from tests.drivers.test_page_social_facebook import (  # noqa: F401 (fixtures)
    GRAPH,
    PAGE,
    delivery,
    driver,
    facebook,
    form,
    multi_photo,
    page_id_route,
)


def test_a_photos_alt_text_goes_with_its_upload(
    facebook: respx.MockRouter,  # noqa: F811
    driver: FacebookPagesDriver,  # noqa: F811
) -> None:
    page_id_route(facebook)
    photos = facebook.post(f"{GRAPH}/{PAGE}/photos").respond(
        200, json={"id": "1223", "post_id": f"{PAGE}_5678"}
    )
    sent = delivery()
    assert sent.media is not None
    driver.publish(replace(sent, media=replace(sent.media, alt_text="Our oven at dawn")))
    assert form(photos.calls.last.request)["alt_text_custom"] == "Our oven at dawn"


def test_each_photo_of_a_multi_photo_post_carries_its_alt_text(
    facebook: respx.MockRouter,  # noqa: F811
    driver: FacebookPagesDriver,  # noqa: F811
) -> None:
    page_id_route(facebook)
    photos = facebook.post(f"{GRAPH}/{PAGE}/photos")
    photos.side_effect = [httpx.Response(200, json={"id": p}) for p in ("701", "702", "703")]
    feed = facebook.post(f"{GRAPH}/{PAGE}/feed").respond(200, json={"id": f"{PAGE}_9001"})
    sent = multi_photo()
    first, second, third = sent.items
    items = (replace(first, alt_text="Rye"), second, replace(third, alt_text="Spelt"))

    driver.publish(replace(sent, items=items))

    assert [form(call.request).get("alt_text_custom") for call in photos.calls] == [
        "Rye",
        None,
        "Spelt",
    ]
    assert "alt_text_custom" not in form(feed.calls.last.request)


@pytest.mark.parametrize("story", [False, True])
def test_alt_text_on_a_video_or_a_story_is_refused_before_any_request(
    driver: FacebookPagesDriver,  # noqa: F811
    story: bool,
) -> None:
    sent = delivery(MediaKind.IMAGE if story else MediaKind.VIDEO, message=None)
    assert sent.media is not None
    sent = replace(sent, media=replace(sent.media, alt_text="Described"))
    if story:
        sent = replace(sent, fields={"format": "story"})
    with pytest.raises(PlatformRefused) as refused:
        driver.publish(sent)
    assert refused.value.rule is not None and refused.value.rule.id == "page_social.alt_text"
    assert refused.value.field == "fileAlts.file_1"
