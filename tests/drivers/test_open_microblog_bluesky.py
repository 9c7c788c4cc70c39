"""open_microblog on Bluesky, against a real local AT Protocol network (PLC directory and
PDS, tests/support/atproto.py): no replay of the network, the network itself.

Each test drives the real app over HTTP (the dashboard's Connect form, the publish API)
on a real database, and reads what happened back from the PDS."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pressroom.platforms import Platform
from pressroom.service.app import create_app
from pressroom.service.db.models import Connection
from pressroom.service.db.session import transaction
from pressroom.service.drivers import drivers_of
from pressroom.service.drivers.open_microblog import BlueskyDriver
from pressroom.service.oauth import service as oauth
from pressroom.settings import NetworkSettings, Settings, get_settings
from tests.service.web.conftest import Browser, csrf_of
from tests.support.atproto import Account, LocalNetwork, xrpc
from tests.support.media import make_image
from tests.support.uploads import upload_file

PUBLISH = "/api/v2/open_microblog/publish"
# The first test pays for the network's install on a cold cache (minutes) and its start.
pytestmark = pytest.mark.timeout(900)


class Bluesky:
    """The app set to publish open_microblog to the local network, and a signed-in person."""

    def __init__(self, client: TestClient, network: LocalNetwork) -> None:
        self.client = client
        self.network = network
        self.browser = Browser(client)
        self.browser.sign_up()
        self.key = self.browser.api_key_shown()

    @property
    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key}

    def sign_in(self, handle: str, password: str) -> Any:
        page = self.client.get("/connections").text
        started = self.client.post(
            "/connections/connect/open_microblog",
            data={"csrf_token": csrf_of(page)},
            follow_redirects=False,
        )
        assert started.status_code == 303, started.text
        form = self.client.get(started.headers["location"])
        assert form.status_code == 200 and 'name="password"' in form.text
        return self.client.post(
            "/connections/open_microblog/sign-in",
            data={"csrf_token": csrf_of(form.text), "handle": handle, "password": password},
            follow_redirects=False,
        )

    def connect(self, account: Account) -> str:
        done = self.sign_in(account.handle, self.network.app_password(account))
        assert done.status_code == 303, done.text
        listed = self.client.get("/api/connections/unified", headers=self.headers).json()
        return str(next(c["id"] for c in listed if c["platform"] == "open_microblog"))

    def publish(self, body: dict[str, Any], key: str | None = None) -> Any:
        headers = {**self.headers, **({"Idempotency-Key": key} if key else {})}
        return self.client.post(PUBLISH, json=body, headers=headers)

    @property
    def driver(self) -> BlueskyDriver:
        driver = drivers_of(self.client.app)[Platform.OPEN_MICROBLOG]  # type: ignore[arg-type]
        assert isinstance(driver, BlueskyDriver)
        return driver


def _app(settings: Settings, network: LocalNetwork) -> Iterator[Bluesky]:
    networks = NetworkSettings(
        open_microblog_service_url=network.pds_url,
        open_microblog_plc_url=network.plc_url,
        network_timeout_seconds=20,
        **(
            {"open_microblog_appview": f"{network.appview_did}#bsky_appview"}
            if network.appview_did
            else {}
        ),
    )
    configured = settings.model_copy(update={"networks": networks})
    get_settings.cache_clear()
    app = create_app(configured)
    with TestClient(app, base_url="http://testserver") as client:
        yield Bluesky(client, network)
    app.state.engine.dispose()


@pytest.fixture
def bluesky(settings: Settings, atproto_network: LocalNetwork) -> Iterator[Bluesky]:
    yield from _app(settings, atproto_network)


@pytest.fixture
def bluesky_appview(settings: Settings, atproto_appview: LocalNetwork) -> Iterator[Bluesky]:
    """The app on the network with Bluesky's AppView, its driver set to read figures
    from it through the PDS (``atproto-proxy``), as from Bluesky's own."""
    yield from _app(settings, atproto_appview)


def _text_at(text: str, index: dict[str, int]) -> str:
    return text.encode()[index["byteStart"] : index["byteEnd"]].decode()


def test_an_app_password_connects_and_a_post_carries_its_facets_in_utf8_bytes(
    bluesky: Bluesky,
) -> None:
    author = bluesky.network.create_account("author")
    friend = bluesky.network.create_account("friend")
    connection_id = bluesky.connect(author)
    text = (
        f"Grüße 👋🏽 to @{friend.handle} and @nobody.test, "
        "read https://example.com/a?b=1. #pressroom #über!"
    )
    answer = bluesky.publish({"connectionId": connection_id, "text": text})
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["platform"] == "open_microblog"
    assert result["postId"].startswith(f"at://{author.did}/app.bsky.feed.post/")
    assert result["cid"]
    [record] = bluesky.network.records(author.did)
    assert record["uri"] == result["postId"]
    value = record["value"]
    assert value["text"] == text
    found = {
        (feature["$type"].rsplit("#", 1)[1], _text_at(text, facet["index"]))
        for facet in value["facets"]
        for feature in facet["features"]
    }
    # @nobody.test resolves to no account: it stays plain text, as in Bluesky's app.
    assert found == {
        ("mention", f"@{friend.handle}"),
        ("link", "https://example.com/a?b=1"),
        ("tag", "#pressroom"),
        ("tag", "#über"),
    }
    mention = next(
        f["features"][0] for f in value["facets"] if "mention" in f["features"][0]["$type"]
    )
    assert mention["did"] == friend.did


def test_a_wrong_app_password_is_refused_on_the_form_and_nothing_is_connected(
    bluesky: Bluesky,
) -> None:
    author = bluesky.network.create_account("refused")
    refused = bluesky.sign_in(author.handle, "wxyz-wxyz-wxyz-wxyz")
    assert refused.status_code == 400
    assert 'href="#password"' in refused.text and "app password was refused" in refused.text
    unknown = bluesky.sign_in("nobody-at-all.test", "wxyz-wxyz-wxyz-wxyz")
    assert unknown.status_code == 400 and 'href="#handle"' in unknown.text
    listed = bluesky.client.get("/api/connections/unified", headers=bluesky.headers).json()
    assert [c for c in listed if c["platform"] == "open_microblog"] == []


def test_an_image_goes_up_as_a_blob_with_its_alt_text(bluesky: Bluesky, tmp_path: Path) -> None:
    author = bluesky.network.create_account("images")
    connection_id = bluesky.connect(author)
    image = make_image(tmp_path / "red.png", size=(64, 48))
    uploaded = upload_file(bluesky.client, bluesky.headers, image)
    assert uploaded["status"] == "ready", uploaded
    answer = bluesky.publish(
        {
            "connectionId": connection_id,
            "text": "A red square",
            "fileId": uploaded["fileId"],
            "altText": "A plain red rectangle, wider than tall.",
        }
    )
    assert answer.status_code == 200, answer.text
    [record] = bluesky.network.records(author.did)
    embed = record["value"]["embed"]
    assert embed["$type"] == "app.bsky.embed.images"
    [item] = embed["images"]
    assert item["alt"] == "A plain red rectangle, wider than tall."
    assert item["aspectRatio"] == {"width": 64, "height": 48}
    cid = item["image"]["ref"]["$link"]
    url = f"{bluesky.network.pds_url}/xrpc/com.atproto.sync.getBlob?did={author.did}&cid={cid}"
    with urllib.request.urlopen(url, timeout=10) as blob:
        assert blob.read() == image.read_bytes()


def test_text_over_bluesky_limits_is_refused_before_anything_is_sent(bluesky: Bluesky) -> None:
    author = bluesky.network.create_account("limits")
    connection_id = bluesky.connect(author)
    refused = bluesky.publish({"connectionId": connection_id, "text": "é" * 301})
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert (error["code"], error["field"], error["rule"]) == (
        "validation_error",
        "text",
        "open_microblog.text_graphemes",
    )
    assert error["docUrl"].endswith("/lexicons/app/bsky/feed/post.json")
    # 150 families of four (25 bytes each): within the grapheme count, over 3,000 bytes.
    too_heavy = bluesky.publish({"connectionId": connection_id, "text": "👨‍👩‍👧‍👦" * 150})
    assert too_heavy.json()["error"]["rule"] == "open_microblog.text_bytes"
    assert bluesky.network.records(author.did) == []


def test_a_pds_killed_between_the_write_and_its_answer_publishes_exactly_once(
    bluesky: Bluesky,
) -> None:
    author = bluesky.network.create_account("crash")
    connection_id = bluesky.connect(author)
    body = {"connectionId": connection_id, "text": "Said once, whatever happens"}
    bluesky.network.kill_after_next_write()
    lost = bluesky.publish(body, key="crash-1")
    assert lost.status_code == 503, lost.text
    assert lost.json()["error"]["recordStatus"] == "unknown"
    assert bluesky.network.wait_pds_dead() != 0
    bluesky.network.restart_pds()
    again = bluesky.publish(body, key="crash-1")
    assert again.status_code == 200, again.text
    records = bluesky.network.records(author.did)
    assert [r["value"]["text"] for r in records] == ["Said once, whatever happens"]
    assert again.json()["postId"] == records[0]["uri"]
    # The same again, three times over: the record's key stays the same, so the PDS
    # keeps one post whoever asks.
    for _ in range(3):
        replay = bluesky.publish(body, key="crash-1")
        assert replay.json()["postId"] == records[0]["uri"]
    assert len(bluesky.network.records(author.did)) == 1


def test_a_resend_at_the_same_key_is_found_not_posted_twice(bluesky: Bluesky) -> None:
    """Without the service's look-up (a resend of the same delivery, as after a crash of
    pressroom itself), the PDS refuses a second record at our key and the driver reads the
    first one back."""
    from pressroom.service.db.models import Post
    from pressroom.service.publishing.unknowns import delivery_of

    author = bluesky.network.create_account("resend")
    connection_id = bluesky.connect(author)
    first = bluesky.publish({"connectionId": connection_id, "text": "Once"})
    assert first.status_code == 200, first.text
    sessions = bluesky.client.app.state.session_factory  # type: ignore[attr-defined]
    with transaction(sessions, write=False) as db:
        post = db.get(Post, first.json()["recordId"])
        assert post is not None
        delivery = delivery_of(db, post)
    resent = bluesky.driver.publish(delivery)
    assert resent.platform_post_id == first.json()["postId"]
    assert len(bluesky.network.records(author.did)) == 1


def test_a_session_is_refreshed_and_a_post_is_deleted(bluesky: Bluesky) -> None:
    author = bluesky.network.create_account("refresh")
    connection_id = bluesky.connect(author)
    app: Any = bluesky.client.app
    flow = oauth.flow_of(app)
    with transaction(flow.sessions, write=False) as db:
        before = db.get(Connection, connection_id)
        assert before is not None and before.access_expires_at is not None
        old_access = flow.vault.decrypt(before.access_token_enc or "")
        old_refresh = flow.vault.decrypt(before.refresh_token_enc or "")
    assert oauth.refresh(flow, connection_id) is True
    with transaction(flow.sessions, write=False) as db:
        after = db.get(Connection, connection_id)
        assert after is not None
        # The PDS rotates the refresh JWT (each has its own id); within the same second
        # the access JWT can come back the same.
        assert flow.vault.decrypt(after.refresh_token_enc or "") != old_refresh
    posted = bluesky.publish({"connectionId": connection_id, "text": "after a refresh"})
    assert posted.status_code == 200, posted.text
    bluesky.driver.delete(connection_id, posted.json()["postId"])
    assert bluesky.network.records(author.did) == []
    assert json.loads(old_access)["pds"] == bluesky.network.pds_url


def _thread_of(bluesky: Bluesky, did: str) -> list[dict[str, Any]]:
    """The account's posts, oldest first (our record keys are TIDs of one creation time
    and a hash of each part's reference, so order by the record's own text instead)."""
    return sorted(bluesky.network.records(did), key=lambda r: str(r["value"]["text"]))


def test_a_thread_is_a_chain_of_replies_each_naming_its_root_and_parent(
    bluesky: Bluesky,
) -> None:
    author = bluesky.network.create_account("thread")
    connection_id = bluesky.connect(author)
    body = {
        "connectionId": connection_id,
        "text": "1 of 3: the first post",
        "thread": [{"text": "2 of 3: a reply"}, {"text": "3 of 3: the last reply"}],
    }
    answer = bluesky.publish(body, key="thread-1")
    assert answer.status_code == 200, answer.text
    parts = answer.json()["parts"]
    assert [(p["index"], p["kind"], p["status"]) for p in parts] == [
        (0, "post", "published"),
        (1, "reply", "published"),
        (2, "reply", "published"),
    ]
    first, second, third = _thread_of(bluesky, author.did)
    assert [p["platformPostId"] for p in parts] == [first["uri"], second["uri"], third["uri"]]
    assert "reply" not in first["value"]
    root = {"uri": first["uri"], "cid": first["cid"]}
    assert second["value"]["reply"] == {"root": root, "parent": root}
    assert third["value"]["reply"] == {
        "root": root,
        "parent": {"uri": second["uri"], "cid": second["cid"]},
    }


def test_a_pds_killed_on_a_later_part_resumes_the_thread_with_each_part_once(
    bluesky: Bluesky,
) -> None:
    """The PDS writes part 2 and dies before answering: the retry under the same key
    finds part 2 at its own record key (each part has one: a TID of the record's
    creation time and its reference ``{post}.{index}``) and sends nothing again."""
    author = bluesky.network.create_account("tcrash")
    connection_id = bluesky.connect(author)
    body = {
        "connectionId": connection_id,
        "text": "a: first",
        "thread": [{"text": "b: second"}, {"text": "c: third"}],
    }
    bluesky.network.kill_after_next_write(skip=2)
    lost = bluesky.publish(body, key="threadcrash-1")
    assert lost.status_code == 503, lost.text
    assert [p["status"] for p in lost.json()["parts"]] == [
        "published",
        "published",
        "unknown",
    ]
    assert bluesky.network.wait_pds_dead() != 0
    bluesky.network.restart_pds()
    again = bluesky.publish(body, key="threadcrash-1")
    assert again.status_code == 200, again.text
    records = _thread_of(bluesky, author.did)
    assert [r["value"]["text"] for r in records] == ["a: first", "b: second", "c: third"]
    assert [p["platformPostId"] for p in again.json()["parts"]] == [r["uri"] for r in records]


def test_up_to_four_images_go_in_one_post_each_with_its_alt_text(
    bluesky: Bluesky, tmp_path: Path
) -> None:
    author = bluesky.network.create_account("gallery")
    connection_id = bluesky.connect(author)
    sizes = [(40, 30), (30, 40), (50, 50)]
    files = [
        upload_file(bluesky.client, bluesky.headers, make_image(tmp_path / f"{n}.png", size=size))
        for n, size in enumerate(sizes)
    ]
    ids = [f["fileId"] for f in files]
    body = {
        "connectionId": connection_id,
        "text": "Three shapes",
        "fileIds": ids,
        "fileAlts": {ids[0]: "A wide red rectangle", ids[2]: "A red square"},
    }
    answer = bluesky.publish(body)
    assert answer.status_code == 200, answer.text
    [record] = bluesky.network.records(author.did)
    images = record["value"]["embed"]["images"]
    assert [(i["alt"], i["aspectRatio"]) for i in images] == [
        ("A wide red rectangle", {"width": 40, "height": 30}),
        ("", {"width": 30, "height": 40}),  # left out of fileAlts: no alt text
        ("A red square", {"width": 50, "height": 50}),
    ]

    five = bluesky.publish({**body, "fileIds": [*ids, ids[0], ids[1]], "fileAlts": {}})
    assert five.status_code == 400
    assert (five.json()["error"]["field"], five.json()["error"]["rule"]) == (
        "fileIds",
        "open_microblog.images_per_post",
    )
    stray = bluesky.publish({**body, "fileAlts": {"file_elsewhere": "no such file here"}})
    assert (stray.status_code, stray.json()["error"]["field"]) == (
        400,
        "fileAlts.file_elsewhere",
    )
    assert len(bluesky.network.records(author.did)) == 1


def test_the_first_link_of_a_post_without_media_becomes_its_card(bluesky: Bluesky) -> None:
    author = bluesky.network.create_account("card")
    connection_id = bluesky.connect(author)
    text = "Our notes: https://example.com/spring?x=1 and https://example.org/later"
    answer = bluesky.publish({"connectionId": connection_id, "text": text})
    assert answer.status_code == 200, answer.text
    [record] = bluesky.network.records(author.did)
    assert record["value"]["embed"] == {
        "$type": "app.bsky.embed.external",
        "external": {
            "uri": "https://example.com/spring?x=1",
            "title": "example.com",
            "description": "Our notes: and https://example.org/later",
        },
    }


def _write(network: LocalNetwork, who: Account, collection: str, record: dict[str, Any]) -> None:
    xrpc(
        network.pds_url,
        "com.atproto.repo.createRecord",
        body={
            "repo": who.did,
            "collection": collection,
            "record": {"$type": collection, "createdAt": "2026-11-27T09:00:00.000Z", **record},
        },
        token=who.access_jwt,
    )


def _ref(network: LocalNetwork, uri: str) -> dict[str, str]:
    repo, collection, rkey = uri.removeprefix("at://").split("/", 2)
    found = xrpc(
        network.pds_url,
        "com.atproto.repo.getRecord",
        params={"repo": repo, "collection": collection, "rkey": rkey},
    )
    return {"uri": str(found["uri"]), "cid": str(found["cid"])}


def _round(bluesky: Bluesky, record_id: str) -> dict[str, Any]:
    started = bluesky.client.post(
        "/api/posts/metrics/refresh", json={"recordIds": [record_id]}, headers=bluesky.headers
    )
    assert started.status_code == 202, started.text
    round_id = started.json()["round"]["roundId"]
    deadline = time.monotonic() + 60
    while True:
        done = bluesky.client.get(f"/api/posts/metrics/rounds/{round_id}", headers=bluesky.headers)
        if done.json()["round"]["status"] != "running":
            break
        assert time.monotonic() < deadline, done.text
        time.sleep(0.1)
    assert done.json()["round"]["status"] == "done", done.text
    answer = bluesky.client.get(f"/api/posts/{record_id}/metrics", headers=bluesky.headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_a_metrics_round_reads_likes_reposts_quotes_and_replies_from_the_appview(
    bluesky_appview: Bluesky,
) -> None:
    """A second account likes, reposts, quotes and answers a thread pressroom published;
    once Bluesky's AppView has indexed the firehose, a metrics round (the driver's
    ``app.bsky.feed.getPosts`` through the PDS's ``atproto-proxy``) reports the AppView's
    counts for part 0 and for the thread's reply."""
    bluesky = bluesky_appview
    network = bluesky.network
    author = network.create_account("counted")
    fan = network.create_account("fan")
    connection_id = bluesky.connect(author)
    body = {
        "connectionId": connection_id,
        "text": "Counted: the first post",
        "thread": [{"text": "Counted: its reply"}],
    }
    answer = bluesky.publish(body)
    assert answer.status_code == 200, answer.text
    first, reply = (_ref(network, p["platformPostId"]) for p in answer.json()["parts"])
    _write(network, fan, "app.bsky.feed.like", {"subject": first})
    _write(network, fan, "app.bsky.feed.repost", {"subject": first})
    _write(
        network,
        fan,
        "app.bsky.feed.post",
        {"text": "well said", "reply": {"root": first, "parent": first}},
    )
    _write(
        network,
        fan,
        "app.bsky.feed.post",
        {"text": "look", "embed": {"$type": "app.bsky.embed.record", "record": first}},
    )
    _write(network, fan, "app.bsky.feed.like", {"subject": reply})
    network.process_all()

    found = _round(bluesky, answer.json()["recordId"])
    assert found["available"] is True, found
    latest = found["latest"]
    # The AppView counts the thread's own reply among part 0's replies, as Bluesky's app
    # shows it; a repost and a quote are both shares.
    assert (latest["likes"], latest["comments"], latest["shares"]) == (1, 2, 2)
    assert latest["views"] is None and latest["impressions"] is None
    [part] = found["parts"]
    assert (part["latest"]["likes"], part["latest"]["comments"], part["latest"]["shares"]) == (
        1,
        0,
        0,
    )
    assert (found["totals"]["likes"], found["totals"]["shares"]) == (2, 2)


def test_each_part_of_a_thread_carries_its_own_images_with_their_alt_text(
    bluesky: Bluesky, tmp_path: Path
) -> None:
    author = bluesky.network.create_account("tmedia")
    connection_id = bluesky.connect(author)
    sizes = [(40, 30), (30, 40), (50, 50), (60, 20), (20, 60)]
    ids = [
        upload_file(bluesky.client, bluesky.headers, make_image(tmp_path / f"{n}.png", size=size))[
            "fileId"
        ]
        for n, size in enumerate(sizes)
    ]
    body = {
        "connectionId": connection_id,
        "text": "a: the first post, one image",
        "fileId": ids[0],
        "altText": "A wide rectangle",
        "thread": [
            {"text": "b: a reply of four images", "fileIds": ids[1:5]},
            {"text": "c: a reply of text alone"},
            {"text": "d: a reply of one image", "fileIds": [ids[2]]},
        ],
        "fileAlts": {ids[1]: "A tall rectangle", ids[4]: "A thin tall strip"},
    }
    answer = bluesky.publish(body, key="thread-media-1")
    assert answer.status_code == 200, answer.text
    first, second, third, fourth = _thread_of(bluesky, author.did)
    assert [p["platformPostId"] for p in answer.json()["parts"]] == [
        r["uri"] for r in (first, second, third, fourth)
    ]

    def images(record: dict[str, Any]) -> list[tuple[str, dict[str, int]]]:
        embed = record["value"]["embed"]
        assert embed["$type"] == "app.bsky.embed.images"
        return [(i["alt"], i["aspectRatio"]) for i in embed["images"]]

    assert images(first) == [("A wide rectangle", {"width": 40, "height": 30})]
    assert images(second) == [
        ("A tall rectangle", {"width": 30, "height": 40}),
        ("", {"width": 50, "height": 50}),  # left out of fileAlts: no alt text
        ("", {"width": 60, "height": 20}),
        ("A thin tall strip", {"width": 20, "height": 60}),
    ]
    assert "embed" not in third["value"]
    assert images(fourth) == [("", {"width": 50, "height": 50})]
    root = {"uri": first["uri"], "cid": first["cid"]}
    assert second["value"]["reply"] == {"root": root, "parent": root}
    assert fourth["value"]["reply"]["parent"] == {"uri": third["uri"], "cid": third["cid"]}
    # Each image of a reply is a blob of the author's repository, as a post's is.
    cid = second["value"]["embed"]["images"][3]["image"]["ref"]["$link"]
    url = f"{bluesky.network.pds_url}/xrpc/com.atproto.sync.getBlob?did={author.did}&cid={cid}"
    with urllib.request.urlopen(url, timeout=10) as blob:
        assert blob.read() == (tmp_path / "4.png").read_bytes()

    five = bluesky.publish(
        {**body, "thread": [{"text": "b: five images", "fileIds": [*ids, ids[0]][1:]}]},
        key="thread-media-2",
    )
    assert five.status_code == 400, five.text
    assert (five.json()["error"]["field"], five.json()["error"]["rule"]) == (
        "thread[0].fileIds",
        "open_microblog.images_per_post",
    )
    assert len(bluesky.network.records(author.did)) == 4
