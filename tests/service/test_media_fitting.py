"""Media fitted to each network, on real uploads, real storage (local and SeaweedFS) and
both databases: a file a network would refuse as it is, but that conversion can make
acceptable, is converted once per (file, network profile) by a job, stored beside the
original, and sent in its place; publishes answer 409 ``file_not_ready`` with
``Retry-After`` while it is made.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import respx
from PIL import Image
from sqlalchemy import func, select

from pressroom.platforms import RULES, Platform
from pressroom.service.db.models import Connection, Derivative, Post
from pressroom.service.db.session import transaction
from pressroom.service.media import jobs
from pressroom.service.oauth.vault import Vault
from pressroom.service.ops.metrics import REGISTRY
from pressroom.settings import NetworkSettings
from tests.support.backends import ON_BOTH_BACKENDS
from tests.support.media import make_clip, make_gif, make_image, make_transparent_png, make_video
from tests.support.publish import deliveries, error_of, publish, publish_when_fitted
from tests.support.waiting import wait_until

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.conftest import AccountHandle, Service
    from tests.support.library import Library

pytest_plugins = ("tests.support.library",)

PHOTO = Platform.PHOTO_SHARING


def ready(library: Library, account: AccountHandle, path: Path) -> str:
    file_id = library.upload(account, path)
    status = library.wait(account, file_id)
    assert status["status"] == "ready", status
    return file_id


def photo_connection(account: AccountHandle) -> str:
    return account.connect("photo_sharing", "@acme.photos", account_type="business")


def conversions(outcome: str = "ready") -> float:
    """Derived files made by this process so far (the conversion metric's count)."""
    found = REGISTRY.get_sample_value(
        "pressroom_conversion_duration_seconds_count", {"outcome": outcome}
    )
    return found or 0.0


def derivative_rows(service: Service, file_id: str) -> list[Derivative]:
    with transaction(service.sessions, write=False) as db:
        return list(db.scalars(select(Derivative).where(Derivative.file_id == file_id)))


def post_rows(service: Service) -> int:
    with transaction(service.sessions, write=False) as db:
        return db.scalar(select(func.count()).select_from(Post)) or 0


def opened(data: bytes) -> Image.Image:
    picture = Image.open(io.BytesIO(data))
    picture.load()
    return picture


@ON_BOTH_BACKENDS
def test_a_png_to_photo_sharing_is_sent_as_a_jpeg_made_once_and_reused(
    library: Library, tmp_path: Path
) -> None:
    account = library.account()
    source = make_transparent_png(tmp_path / "cover.png")
    file_id = ready(library, account, source)
    connection = photo_connection(account)
    made_before = conversions()
    body = {"connectionId": connection, "fileId": file_id, "caption": "New cover"}

    first = publish(account, PHOTO, body)
    assert first.status_code == 409, first.text
    error = error_of(first)
    assert (error["code"], error["field"]) == ("file_not_ready", "fileId")
    assert "photo_sharing" in error["message"]
    assert int(first.headers["Retry-After"]) >= 1
    assert deliveries(library.service) == [] and post_rows(library.service) == 0
    (asked,) = library.status(account, file_id)["derivatives"]
    assert (asked["network"], asked["profile"]) == ("photo_sharing", "photo_sharing.image")
    assert asked["status"] in ("pending", "ready")

    published = publish_when_fitted(account, PHOTO, body)
    assert published.status_code == 200, published.text
    (sent,) = deliveries(library.service)
    media = sent.payload["media"]
    assert (media["fileId"], media["contentType"]) == (file_id, "image/jpeg")
    assert media["storageKey"].startswith("derived/drv_")
    jpeg = library.stored_bytes(media["storageKey"])
    picture = opened(jpeg)
    assert (picture.format, picture.size, picture.mode) == ("JPEG", (320, 240), "RGB")
    assert min(picture.getpixel((20, 120))) > 240  # the transparent half, flattened on white
    red, _, blue = picture.getpixel((300, 120))
    assert blue > 150 and red < 80  # the opaque half kept its colour

    status = library.status(account, file_id)
    assert status["contentType"] == "image/png"  # the original is never changed
    assert library.stored_bytes(f"files/{file_id}") == source.read_bytes()
    assert status["derivatives"] == [
        {
            "network": "photo_sharing",
            "profile": "photo_sharing.image",
            "status": "ready",
            "contentType": "image/jpeg",
            "size": len(jpeg),
            "width": 320,
            "height": 240,
            "failureReason": None,
        }
    ]

    # Later posts of the file to the network send the same JPEG at once: nothing is made.
    again = publish(account, PHOTO, {**body, "caption": "Again"})
    assert again.status_code == 200, again.text
    other = photo_connection(account)
    third = publish(account, PHOTO, {**body, "connectionId": other})
    assert third.status_code == 200, third.text
    keys = {d.payload["media"]["storageKey"] for d in deliveries(library.service)}
    assert keys == {media["storageKey"]} and len(deliveries(library.service)) == 3
    assert len(derivative_rows(library.service, file_id)) == 1
    assert conversions() - made_before == 1
    # The worker deletes its finished job just after recording the derived file ready.
    wait_until(lambda: jobs.waiting(library.service.sessions, jobs.DERIVE) == [], "no derive job")


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_publishes_wait_while_the_derived_file_is_made_by_its_job(
    library_factory: Callable[..., Library], tmp_path: Path
) -> None:
    """Held by the processing delay, the derive job is on the queue, the file's status
    says pending, and every publish meanwhile is a 409 with Retry-After; then it goes."""
    library = library_factory(processing_delay_ms=1500)
    account = library.account()
    file_id = ready(library, account, make_image(tmp_path / "red.png", size=(320, 240)))
    body = {"connectionId": photo_connection(account), "fileId": file_id}

    first = publish(account, PHOTO, body)
    assert first.status_code == 409 and first.headers["Retry-After"] == "1"
    queued = jobs.waiting(library.service.sessions, jobs.DERIVE)
    assert [file for file, _, _, _ in queued] == [file_id]
    (pending,) = library.status(account, file_id)["derivatives"]
    assert (pending["status"], pending["contentType"], pending["size"]) == ("pending", None, None)
    second = publish(account, PHOTO, body)
    assert second.status_code == 409 and error_of(second)["code"] == "file_not_ready"
    assert len(derivative_rows(library.service, file_id)) == 1  # asked for once

    published = publish_when_fitted(account, PHOTO, body)
    assert published.status_code == 200, published.text
    assert deliveries(library.service)[-1].payload["media"]["contentType"] == "image/jpeg"
    # The worker deletes its finished job just after recording the derived file ready.
    wait_until(lambda: jobs.waiting(library.service.sessions, jobs.DERIVE) == [], "no derive job")


@ON_BOTH_BACKENDS
def test_a_gif_thumbnail_is_set_on_youtube_as_a_png(library: Library, tmp_path: Path) -> None:
    account = library.account()
    channel = account.connect("video_sharing", "@acme", verified=True)
    video = ready(library, account, make_video(tmp_path / "clip.mp4", 2, width=320, height=240))
    gif = ready(library, account, make_gif(tmp_path / "thumb.gif"))
    made = publish(
        account,
        Platform.VIDEO_SHARING,
        {"connectionId": channel, "fileId": video, "title": "Launch"},
    )
    assert made.status_code == 200, made.text  # an H.264 MP4 YouTube takes as it is
    assert deliveries(library.service)[0].payload["media"]["storageKey"] == f"files/{video}"
    path = f"/api/v2/video_sharing/thumbnail/{made.json()['videoId']}"

    def set_thumbnail() -> httpx.Response:
        return library.client.post(path, json={"thumbnailFileId": gif}, headers=account.headers)

    first = set_thumbnail()
    assert first.status_code == 409, first.text
    assert error_of(first)["field"] == "thumbnailFileId" and first.headers["Retry-After"]
    answer = _until_fitted(set_thumbnail)
    assert answer.status_code == 200, answer.text
    (thumbnail,) = deliveries(library.service, "thumbnail")
    assert thumbnail.payload["contentType"] == "image/png"
    picture = opened(library.stored_bytes(thumbnail.payload["storageKey"]))
    assert (picture.format, picture.size) == ("PNG", (64, 36))
    (derived,) = library.status(account, gif)["derivatives"]
    assert (derived["profile"], derived["contentType"]) == ("video_sharing.thumbnail", "image/png")


def _until_fitted(send: Callable[[], httpx.Response]) -> httpx.Response:
    import time

    deadline = time.monotonic() + 30
    while True:
        answer = send()
        if answer.status_code != 409 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_pad_and_crop_make_the_shape_instagram_takes(library: Library, tmp_path: Path) -> None:
    """A 320x100 banner (3.2:1) where Instagram takes 4:5 to 1.91:1: refused unless the
    post says pad (letterboxed to 1.91:1) or crop (its centre at 1.91:1)."""
    account = library.account()
    banner = ready(library, account, make_image(tmp_path / "banner.png", size=(320, 100)))
    connection = photo_connection(account)

    refused = publish(account, PHOTO, {"connectionId": connection, "fileId": banner})
    assert refused.status_code == 400
    assert error_of(refused)["rule"] == "photo_sharing.image_aspect_ratio"
    explicit = publish(
        account, PHOTO, {"connectionId": connection, "fileId": banner, "fit": "refuse"}
    )
    assert error_of(explicit)["rule"] == "photo_sharing.image_aspect_ratio"
    unknown = publish(account, PHOTO, {"connectionId": connection, "fileId": banner, "fit": "zoom"})
    assert unknown.status_code == 400 and error_of(unknown)["field"] == "fit"

    shapes: dict[str, Image.Image] = {}
    for fit in ("pad", "crop"):
        body = {"connectionId": connection, "fileId": banner, "fit": fit}
        answer = publish_when_fitted(account, PHOTO, body)
        assert answer.status_code == 200, answer.text
        media = deliveries(library.service)[-1].payload["media"]
        shapes[fit] = opened(library.stored_bytes(media["storageKey"]))
        assert shapes[fit].format == "JPEG"
        width, height = shapes[fit].size
        assert 0.8 <= width / height <= 1.91, (fit, shapes[fit].size)
    assert shapes["pad"].size == (320, 168)  # the whole banner, bars above and below
    assert max(shapes["pad"].getpixel((160, 5))) < 20  # a black bar
    assert shapes["pad"].getpixel((160, 84))[0] > 150  # the banner's red in the middle
    assert shapes["crop"].size == (191, 100)  # its centre, full height
    assert shapes["crop"].getpixel((95, 5))[0] > 150
    profiles = [d["profile"] for d in library.status(account, banner)["derivatives"]]
    assert profiles == ["photo_sharing.image.crop", "photo_sharing.image.pad"]
    # The request that asked for the shape is kept; it never reaches the network.
    assert "fit" not in deliveries(library.service)[-1].payload["fields"]


@pytest.mark.parametrize("backend", ["local"], indirect=True)
@pytest.mark.parametrize(
    ("platform", "clip", "expected_size"),
    [
        # Instagram takes H.264 or HEVC with AAC sound, at 23 to 60 frames a second.
        (
            Platform.PHOTO_SHARING,
            {"codec": "libvpx", "container": "webm", "sound": "libopus"},
            (320, 240),
        ),
        # TikTok takes no MPEG-4 Part 2, nothing under 23 fps, and no side under 360 px.
        (Platform.SHORT_VIDEO, {"codec": "mpeg4", "container": "mp4"}, (480, 360)),
    ],
    ids=["vp8-webm-to-instagram", "mpeg4-to-tiktok"],
)
def test_a_video_in_another_codec_and_rate_is_transcoded_to_h264_for_the_network(
    library: Library,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    platform: Platform,
    clip: dict[str, Any],
    expected_size: tuple[int, int],
) -> None:
    # Clips stay at 2 s for speed: both networks' shortest allowed length is lowered here,
    # as a shorter limit in the tables would be.
    from pressroom.rules import TABLE, rule_by_id
    from pressroom.rules.model import Duration

    monkeypatch.setitem(
        RULES, Platform.SHORT_VIDEO, replace(RULES[Platform.SHORT_VIDEO], min_video_seconds=1.0)
    )
    duration = rule_by_id("photo_sharing.video_duration")
    assert isinstance(duration, Duration)
    monkeypatch.setitem(
        TABLE,
        PHOTO,
        tuple(replace(r, min_seconds=1.0) if r is duration else r for r in TABLE[PHOTO]),
    )
    account = library.account()
    suffix = ".webm" if clip["container"] == "webm" else ".mp4"
    source = ready(library, account, make_clip(tmp_path / f"clip{suffix}", 2, fps=15, **clip))
    connection = account.connect(platform.value, "@acme", account_type="business")
    body: dict[str, Any] = {"connectionId": connection, "fileId": source}
    if platform is Platform.SHORT_VIDEO:
        body |= {"platform": "short_video", "privacyLevel": "SELF_ONLY"}  # TikTok's choice

    answer = publish_when_fitted(account, platform, body)
    assert answer.status_code == 200, answer.text
    media = deliveries(library.service)[-1].payload["media"]
    assert media["contentType"] == "video/mp4" and media["storageKey"].startswith("derived/")
    (derived,) = library.status(account, source)["derivatives"]
    assert derived["status"] == "ready" and (derived["width"], derived["height"]) == expected_size

    import av

    with library.media.storage.local_copy(media["storageKey"]) as path, av.open(str(path)) as made:
        video = made.streams.video[0]
        assert made.format.name.split(",")[0] == "mov"
        assert video.codec_context.name == "h264"
        assert float(video.average_rate or 0) == 24.0  # 15 fps clamped into 23 to 60
        assert abs(float(made.duration or 0) / 1_000_000 - 2.0) < 0.15  # as long as before
        sound = [s.codec_context.name for s in made.streams.audio]
        assert sound == (["aac"] if "sound" in clip else [])


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_pad_and_crop_make_a_video_the_shape_instagram_takes(
    library: Library, tmp_path: Path
) -> None:
    """A 1100x100 strip (11:1) where Instagram takes video from 0.01:1 to 10:1: refused
    by that rule unless the post says pad (letterboxed to 10:1, the whole strip kept) or
    crop (its centre at 10:1), and then sent as the H.264 made for that shape."""
    import av

    def strip(index: int, frames: int) -> Image.Image:
        picture = Image.new("RGB", (1100, 100), (220, 30, 30))
        picture.paste((30, 30, 220), (0, 0, 50, 100))  # a blue band at the left edge
        return picture

    account = library.account()
    clip = make_video(tmp_path / "strip.mp4", 3.5, width=1100, height=100, fps=24, paint=strip)
    source = ready(library, account, clip)
    connection = photo_connection(account)

    refused = publish(account, PHOTO, {"connectionId": connection, "fileId": source})
    assert refused.status_code == 400, refused.text
    assert error_of(refused)["rule"] == "photo_sharing.video_aspect_ratio"

    def first_frame(fit: str) -> Image.Image:
        body = {"connectionId": connection, "fileId": source, "fit": fit}
        answer = publish_when_fitted(account, PHOTO, body)
        assert answer.status_code == 200, answer.text
        media = deliveries(library.service)[-1].payload["media"]
        assert media["storageKey"].startswith("derived/")
        with (
            library.media.storage.local_copy(media["storageKey"]) as path,
            av.open(str(path)) as made,
        ):
            assert made.streams.video[0].codec_context.name == "h264"
            return next(made.decode(video=0)).to_image()

    padded = first_frame("pad")
    assert padded.size == (1100, 110)  # 10:1, the strip whole between two bars
    assert max(padded.getpixel((550, 1))) < 40  # a black bar above
    assert padded.getpixel((550, 55))[0] > 150  # the strip's red in the middle
    assert padded.getpixel((10, 55))[2] > 150  # and its blue edge kept
    cropped = first_frame("crop")
    assert cropped.size == (1000, 100)  # 10:1, its centre at full height
    assert cropped.getpixel((10, 50))[0] > 150  # the blue edge cut away
    profiles = [d["profile"] for d in library.status(account, source)["derivatives"]]
    assert profiles == ["photo_sharing.video.crop", "photo_sharing.video.pad"]


@ON_BOTH_BACKENDS
def test_a_conversion_over_its_memory_bound_fails_the_derived_file_not_the_worker(
    library_factory: Callable[..., Library], tmp_path: Path
) -> None:
    """A 4000x4000 PNG (a few kB of bytes, 64 MB of pixels) with 32 MiB allowed: the
    derived file fails naming the bound, the publish is a 400 naming the rule it was
    for, and the same workers go on to process and convert other files."""
    library = library_factory(conversion_memory_mb=32)
    account = library.account()
    huge = ready(library, account, make_image(tmp_path / "huge.png", size=(4000, 4000)))
    connection = photo_connection(account)

    refused = publish_when_fitted(account, PHOTO, {"connectionId": connection, "fileId": huge})
    assert refused.status_code == 400, refused.text
    error = error_of(refused)
    assert (error["code"], error["field"], error["rule"]) == (
        "validation_error",
        "fileId",
        "photo_sharing.image_format",
    )
    assert "PRESSROOM_CONVERSION_MEMORY_MB" in error["message"]
    (failed,) = library.status(account, huge)["derivatives"]
    assert failed["status"] == "failed" and "32 MiB" in failed["failureReason"]
    assert deliveries(library.service) == []

    # The worker lives on: a new upload is processed, and converted, as before.
    small = ready(library, account, make_image(tmp_path / "small.png", size=(320, 240)))
    fine = publish_when_fitted(account, PHOTO, {"connectionId": connection, "fileId": small})
    assert fine.status_code == 200, fine.text
    assert deliveries(library.service)[-1].payload["media"]["contentType"] == "image/jpeg"


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_file_with_more_pixels_than_allowed_is_not_even_decoded(
    library_factory: Callable[..., Library], tmp_path: Path
) -> None:
    library = library_factory(conversion_max_pixels=10_000)
    account = library.account()
    image = ready(library, account, make_image(tmp_path / "wide.png", size=(320, 240)))
    refused = publish_when_fitted(
        account, PHOTO, {"connectionId": photo_connection(account), "fileId": image}
    )
    assert refused.status_code == 400
    assert "PRESSROOM_CONVERSION_MAX_PIXELS" in error_of(refused)["message"]
    (failed,) = library.status(account, image)["derivatives"]
    assert "76,800 pixels" in failed["failureReason"]


@ON_BOTH_BACKENDS
def test_deleting_a_file_or_its_folder_deletes_its_derived_files_and_their_bytes(
    library: Library, tmp_path: Path
) -> None:
    account = library.account()
    connection = photo_connection(account)
    folder = library.client.post(
        "/api/upload/folders", json={"name": "Covers"}, headers=account.headers
    ).json()["id"]
    alone = ready(library, account, make_image(tmp_path / "a.png", size=(320, 240)))
    in_folder = library.upload(
        account, make_image(tmp_path / "b.png", size=(300, 240)), folder_id=folder
    )
    assert library.wait(account, in_folder)["status"] == "ready"
    keys = []
    for file_id in (alone, in_folder):
        answer = publish_when_fitted(
            account, PHOTO, {"connectionId": connection, "fileId": file_id}
        )
        assert answer.status_code == 200, answer.text
        keys.append(deliveries(library.service)[-1].payload["media"]["storageKey"])
    storage = library.media.storage
    assert all(storage.stat(key) is not None for key in keys)

    gone = library.client.delete(f"/api/upload/file/{alone}", headers=account.headers)
    assert gone.status_code == 200
    assert storage.stat(keys[0]) is None and derivative_rows(library.service, alone) == []
    assert storage.stat(keys[1]) is not None
    gone = library.client.delete(f"/api/upload/folders/{folder}", headers=account.headers)
    assert gone.status_code == 200
    assert storage.stat(keys[1]) is None and derivative_rows(library.service, in_folder) == []
    assert {o.key for o in storage.list("derived/")} == set()


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_the_sweep_keeps_derived_bytes_only_while_their_record_lives(
    library: Library, tmp_path: Path
) -> None:
    account = library.account()
    file_id = ready(library, account, make_image(tmp_path / "a.png", size=(320, 240)))
    answer = publish_when_fitted(
        account, PHOTO, {"connectionId": photo_connection(account), "fileId": file_id}
    )
    assert answer.status_code == 200
    kept = deliveries(library.service)[-1].payload["media"]["storageKey"]
    orphan = "derived/drv_" + "0" * 24
    library.media.storage.put(orphan, b"left by a crash", "image/jpeg")
    library.media.processor.sweep()  # type: ignore[attr-defined]
    storage = library.media.storage
    assert storage.stat(kept) is not None and storage.stat(orphan) is None


NETWORKS = NetworkSettings(
    photo_sharing_client_id="990602627938098",
    photo_sharing_client_secret="ig-secret",
    video_sharing_client_id="google-client",
    video_sharing_client_secret="google-secret",
)
GRAPH = "https://graph.instagram.com/v23.0"
IG_USER = "17841405822304914"


def _token(service: Service, connection_id: str, token: str) -> None:
    with transaction(service.sessions) as db:
        connection = db.get(Connection, connection_id)
        assert connection is not None
        connection.access_token_enc = Vault.from_settings(service.settings).encrypt(token)


@pytest.mark.parametrize(
    ("backend", "database_url"), [("local", "sqlite"), ("s3", "sqlite")], indirect=True
)
def test_instagram_fetches_the_jpeg_made_for_it_from_its_link(
    library_factory: Callable[..., Library], tmp_path: Path
) -> None:
    """The real Instagram driver (respx plays Instagram) is given a link to the derived
    JPEG, never to the PNG: fetched without an API key, its bytes are a JPEG."""
    library = library_factory(networks=NETWORKS)
    account = library.account()
    png = ready(library, account, make_transparent_png(tmp_path / "cover.png"))
    connection = photo_connection(account)
    _token(library.service, connection, "IGAAtoken")
    fetched: list[bytes] = []

    def instagram_makes_a_container(request: httpx.Request) -> httpx.Response:
        from urllib.parse import parse_qs

        link = parse_qs(request.content.decode())["image_url"][0]
        if link.startswith(library.settings.public_base_url):
            assert "/storage/derived/drv_" in link
            download = library.client.get(link)  # no X-API-Key
        else:
            download = httpx.get(link, timeout=10)  # a presigned GET of the S3 object
        assert download.status_code == 200, download.text
        assert download.headers["content-type"] == "image/jpeg"
        fetched.append(download.content)
        return httpx.Response(200, json={"id": "17889455560051444"})

    body = {"connectionId": connection, "fileId": png, "caption": "New cover"}
    assert publish(account, PHOTO, body).status_code == 409
    _until_fitted(lambda: _status_ready(library, account, png))
    with respx.mock(assert_all_called=True) as instagram:
        if library.seaweed is not None:
            instagram.route(host="127.0.0.1").pass_through()
        instagram.get(f"{GRAPH}/me").respond(200, json={"user_id": IG_USER, "id": "1"})
        instagram.get(f"{GRAPH}/{IG_USER}/content_publishing_limit").respond(
            200, json={"data": [{"quota_usage": 1, "config": {"quota_total": 100}}]}
        )
        instagram.post(f"{GRAPH}/{IG_USER}/media").mock(side_effect=instagram_makes_a_container)
        instagram.get(f"{GRAPH}/17889455560051444").respond(200, json={"status_code": "FINISHED"})
        instagram.post(f"{GRAPH}/{IG_USER}/media_publish").respond(200, json={"id": "1792"})
        instagram.get(f"{GRAPH}/1792").respond(
            200,
            json={
                "permalink": "https://www.instagram.com/p/C1/",
                "timestamp": "2026-11-27T10:00:00+0000",
            },
        )
        answer = publish(account, PHOTO, body)
    assert answer.status_code == 200, answer.text
    (jpeg,) = fetched
    assert opened(jpeg).format == "JPEG"


def _status_ready(library: Library, account: AccountHandle, file_id: str) -> httpx.Response:
    derived = library.status(account, file_id)["derivatives"]
    done = derived and derived[0]["status"] == "ready"
    return httpx.Response(200 if done else 409)


@pytest.mark.parametrize(("backend", "database_url"), [("local", "sqlite")], indirect=True)
def test_youtube_receives_the_png_made_from_a_gif_thumbnail(
    library_factory: Callable[..., Library], tmp_path: Path
) -> None:
    """The real YouTube driver (respx plays YouTube) uploads the derived PNG's bytes."""
    library = library_factory(networks=NETWORKS)
    account = library.account()
    channel = account.connect("video_sharing", "@acme", verified=True)
    _token(library.service, channel, "ya29")
    with transaction(library.service.sessions) as db:
        from datetime import UTC, datetime

        db.add(
            Post(
                id="post_v1",
                account_id=account.id,
                connection_id=channel,
                platform="video_sharing",
                request={},
                status="published",
                platform_post_id="dQw4w9WgXcQ",
                created_at=datetime.now(UTC),
            )
        )
    gif = ready(library, account, make_gif(tmp_path / "thumb.gif"))
    path = "/api/v2/video_sharing/thumbnail/dQw4w9WgXcQ"

    def set_thumbnail() -> httpx.Response:
        return library.client.post(path, json={"thumbnailFileId": gif}, headers=account.headers)

    assert set_thumbnail().status_code == 409
    _until_fitted(lambda: _status_ready(library, account, gif))
    with respx.mock(assert_all_called=True) as google:
        upload = google.post("https://www.googleapis.com/upload/youtube/v3/thumbnails/set").respond(
            200,
            json={
                "items": [{"default": {"url": "https://i.ytimg.com/vi/dQw4w9WgXcQ/default.jpg"}}]
            },
        )
        answer = set_thumbnail()
    assert answer.status_code == 200, answer.text
    sent = upload.calls.last.request
    assert sent.headers["Content-Type"] == "image/png"
    assert opened(sent.content).format == "PNG"
    assert json.loads(answer.text)["thumbnailUrl"].startswith("https://i.ytimg.com/")
