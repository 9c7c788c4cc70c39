"""The Posts pages over the service's own posts: pages with no cap, a bad page marker,
and what may be done about a post that did not go out (retry with its key, look up)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pressroom.platforms import RULES, Platform
from pressroom.settings import Settings
from tests.service.web.conftest import Browser, connect, csrf_of
from tests.support.media import make_image
from tests.support.uploads import upload_file

PUBLISH = RULES[Platform.MICROBLOG].publish_path


def signed_up(browser: Browser) -> tuple[dict[str, str], str]:
    """A signed-in account's API key headers and its microblog connection."""
    browser.sign_up()
    headers = {"X-API-Key": browser.api_key_shown()}
    connect(browser, "microblog", "@acme")
    unified = browser.client.get("/api/connections/unified", headers=headers).json()
    return headers, next(c["id"] for c in unified if c["platform"] == "microblog")


def texts(html: str) -> list[str]:
    return re.findall(r"<td>(post number \d+)</td>", html)


def link(html: str, name: str) -> str | None:
    found = re.search(r'<a href="([^"]+)"[^>]*>' + name + "</a>", html)
    return found.group(1).replace("&amp;", "&") if found else None


def test_the_history_walks_every_page_with_its_filters(browser: Browser) -> None:
    headers, microblog = signed_up(browser)
    for n in range(1, 54):
        sent = browser.client.post(
            PUBLISH, headers=headers, json={"connectionId": microblog, "text": f"post number {n}"}
        )
        assert sent.status_code == 200, sent.text
    connect(browser, "professional_network", "Acme Inc.")
    unified = browser.client.get("/api/connections/unified", headers=headers).json()
    network = next(c["id"] for c in unified if c["platform"] == "professional_network")
    for n in (54, 55):
        browser.client.post(
            RULES[Platform.PROFESSIONAL_NETWORK].publish_path,
            headers=headers,
            json={"connectionId": network, "text": f"post number {n}"},
        )

    first = browser.client.get("/posts?platform=microblog&status=published").text
    assert texts(first) == [f"post number {n}" for n in range(53, 3, -1)]
    assert link(first, "Newer posts") is None
    older = link(first, "Older posts")
    assert older is not None and "platform=microblog" in older and "status=published" in older

    second = browser.client.get(older).text
    assert texts(second) == [f"post number {n}" for n in range(3, 0, -1)]
    assert link(second, "Older posts") is None
    newer = link(second, "Newer posts")
    assert newer is not None and "platform=microblog" in newer
    assert texts(browser.client.get(newer).text) == texts(first)

    # Without filters the same walk covers all 55; a status filter is applied before paging.
    everything = browser.client.get("/posts").text
    assert len(texts(everything)) == 50
    rest = browser.client.get(link(everything, "Older posts") or "").text
    assert texts(rest) == [f"post number {n}" for n in range(5, 0, -1)]
    assert "No posts match." in browser.client.get("/posts?status=partial").text


@pytest.mark.parametrize(
    "query",
    [
        "cursor=nope",
        "before=nope",
        "cursor=1.a%20b",
        "cursor=12345678901234567.post_x",  # past the 16 digits a cursor may have
        "cursor=1.post_x&before=1.post_y",  # one way at a time
    ],
)
def test_a_bad_page_marker_is_a_clear_400_page(browser: Browser, query: str) -> None:
    signed_up(browser)
    response = browser.client.get(f"/posts?{query}")
    assert response.status_code == 400
    assert "This page of posts does not exist" in response.text
    assert '<a href="/posts">Newest posts</a>' in response.text
    named = "before" if "before=" in query else "cursor"
    assert f"page marker ({named})" in response.text  # the parameter at fault, named


def test_a_well_formed_marker_past_the_end_is_an_empty_page(browser: Browser) -> None:
    signed_up(browser)
    response = browser.client.get("/posts?cursor=1.post_gone")
    assert response.status_code == 200
    assert "No posts match." in response.text
    assert link(response.text, "Newest posts") == "/posts"


def _fail_next(settings: Settings, mode: str) -> None:
    settings.sandbox.sandbox_failure_rate = 1.0
    settings.sandbox.sandbox_failure_mode = mode  # type: ignore[assignment]


def _publish_failing(
    browser: Browser, settings: Settings, mode: str, key: str
) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
    headers, microblog = signed_up(browser)
    body = {"connectionId": microblog, "text": "launch day"}
    _fail_next(settings, mode)
    try:
        sent = browser.client.post(PUBLISH, headers={**headers, "Idempotency-Key": key}, json=body)
    finally:
        settings.sandbox.sandbox_failure_rate = 0.0
    assert sent.status_code == 503, sent.text
    [record] = browser.client.get("/api/posts", headers=headers).json()["posts"]
    return headers, body, record


def test_an_unknown_post_is_looked_up_from_its_page(browser: Browser, settings: Settings) -> None:
    headers, body, record = _publish_failing(browser, settings, "after", "launch-1")
    assert record["status"] == "unknown"
    page = browser.client.get(f"/posts/{record['recordId']}").text
    assert "outcome unknown" in page
    assert "Look it up on microblog" in page and "Retry with its key" not in page

    forged = browser.client.post(
        f"/posts/{record['recordId']}/look-up", data={"csrf_token": "forged"}
    )
    assert forged.status_code == 403
    assert browser.client.get("/api/posts", headers=headers).json()["posts"][0]["status"] == (
        "unknown"
    )

    looked = browser.client.post(
        f"/posts/{record['recordId']}/look-up",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    assert looked.status_code == 303
    assert looked.headers["location"] == f"/posts/{record['recordId']}"
    shown = browser.client.get(looked.headers["location"]).text
    assert "microblog has this post: it is now recorded published." in shown
    assert "Look it up" not in shown
    [after] = browser.client.get("/api/posts", headers=headers).json()["posts"]
    assert after["status"] == "published" and after["platformPostId"]
    # The key was settled as the reconciler settles it: its retry is a replay.
    again = browser.client.post(
        PUBLISH, headers={**headers, "Idempotency-Key": "launch-1"}, json=body
    )
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"


def test_a_failed_post_is_retried_with_its_key_from_its_page(
    browser: Browser, settings: Settings
) -> None:
    headers, _, record = _publish_failing(browser, settings, "before", "launch-2")
    assert record["status"] == "failed"
    page = browser.client.get(f"/posts/{record['recordId']}").text
    assert "Why it was not published" in page and "Retry with its key" in page

    retried = browser.client.post(
        f"/posts/{record['recordId']}/retry",
        data={"csrf_token": csrf_of(page)},
        follow_redirects=False,
    )
    assert retried.status_code == 303
    posts = browser.client.get("/api/posts", headers=headers).json()["posts"]
    assert [p["status"] for p in posts] == ["published", "failed"]
    assert posts[0]["idempotencyKey"] == "launch-2"  # sent under the same key
    assert retried.headers["location"] == f"/posts/{posts[0]['recordId']}"
    shown = browser.client.get(retried.headers["location"]).text
    assert f"Retried: published on microblog as a new post record {posts[0]['recordId']}." in (
        shown
    )

    # A second retry from the old record gets the key's answer: nothing is sent twice.
    twice = browser.client.post(
        f"/posts/{record['recordId']}/retry", data={"csrf_token": csrf_of(page)}
    )
    assert twice.status_code == 200  # the redirect's page
    assert "Already published on microblog: nothing was sent again." in twice.text
    assert len(browser.client.get("/api/posts", headers=headers).json()["posts"]) == 2


def test_a_published_post_offers_nothing_and_refuses_a_forged_action(
    browser: Browser,
) -> None:
    headers, microblog = signed_up(browser)
    sent = browser.client.post(
        PUBLISH,
        headers={**headers, "Idempotency-Key": "k"},
        json={"connectionId": microblog, "text": "fine"},
    ).json()
    page = browser.client.get(f"/posts/{sent['recordId']}").text
    assert "What you can do" not in page
    for action in ("retry", "look-up"):
        refused = browser.client.post(
            f"/posts/{sent['recordId']}/{action}", data={"csrf_token": csrf_of(page)}
        )
        assert refused.status_code == 409 and "Nothing was done" in refused.text
    missing = browser.client.post("/posts/post_nope/retry", data={"csrf_token": csrf_of(page)})
    assert missing.status_code == 404


def test_every_kind_of_part_is_shown_in_words(browser: Browser, tmp_path: Path) -> None:
    """A carousel with a first comment: the post, an item per file and the comment, the
    same part list on the history and on the post's page."""
    headers, _ = signed_up(browser)
    files = [
        upload_file(browser.client, headers, make_image(tmp_path / f"{n}.png"))["fileId"]
        for n in (1, 2)
    ]
    connect(browser, "professional_network", "Acme Inc.")
    unified = browser.client.get("/api/connections/unified", headers=headers).json()
    network = next(c["id"] for c in unified if c["platform"] == "professional_network")
    sent = browser.client.post(
        RULES[Platform.PROFESSIONAL_NETWORK].publish_path,
        headers=headers,
        json={
            "connectionId": network,
            "text": "our new office",
            "fileIds": files,
            "firstComment": "Photos by our team",
        },
    )
    assert sent.status_code == 200, sent.text
    parts = sent.json()["parts"]
    assert [p["kind"] for p in parts] == ["post", "item", "item", "comment"]
    shown = [
        "Part 0, post",
        "Part 1, carousel item",
        "Part 2, carousel item",
        "Part 3, first comment",
    ]
    history = browser.client.get("/posts").text
    assert re.findall(r"(Part \d, [a-z ]+): ", history) == shown
    for part in parts:
        assert f'<a href="{part["url"]}" rel="noopener">open' in history
    detail = browser.client.get(f"/posts/{sent.json()['recordId']}").text
    rows = re.findall(r"<td>(\d)</td>\s*<td>([a-z ]+)</td>", detail)
    assert [f"Part {i}, {kind}" for i, kind in rows] == shown
    assert "What you can do" not in detail


RUN = "0b9d3c1e-5f7a-4c2b-9e8d-1a2b3c4d5e6f"
OTHER_RUN = "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2910"


def test_campaign_runs_are_shown_and_filtered_page_by_page(
    browser: Browser, settings: Settings
) -> None:
    settings.prefect_ui_url = "http://prefect.test:4200/"
    headers, microblog = signed_up(browser)

    def publish(n: int, campaign: dict[str, str] | None) -> None:
        body: dict[str, Any] = {"connectionId": microblog, "text": f"post number {n}"}
        if campaign:
            body["campaign"] = campaign
        sent = browser.client.post(PUBLISH, headers=headers, json=body)
        assert sent.status_code == 200, sent.text

    launch = {"name": "spring-launch", "edition": "scheduled-2026-03-29T09:00+02:00"}
    for n in range(1, 54):
        publish(n, {**launch, "postId": f"p{n}", "flowRunId": RUN})
    publish(54, {"name": "spring-launch", "edition": "manual", "flowRunId": OTHER_RUN})
    publish(55, None)

    everything = browser.client.get("/posts").text
    assert (
        '<th scope="col">Campaign</th>' in everything and '<th scope="col">Run</th>' in everything
    )
    assert link(everything, "spring-launch") == "/posts?campaign=spring-launch"
    assert link(everything, "manual") == "/posts?campaign=spring-launch&edition=manual"
    assert f'href="http://prefect.test:4200/runs/flow-run/{RUN}"' in everything
    assert f'href="/posts?flowRunId={RUN}"' in everything

    # The run's 53 posts, 50 then 3, the filter kept on both page links.
    first = browser.client.get(f"/posts?flowRunId={RUN}").text
    assert f'id="flowRunId" name="flowRunId" value="{RUN}"' in first
    assert texts(first) == [f"post number {n}" for n in range(53, 3, -1)]
    older = link(first, "Older posts")
    assert older is not None and f"flowRunId={RUN}" in older
    second = browser.client.get(older).text
    assert texts(second) == [f"post number {n}" for n in range(3, 0, -1)]
    newer = link(second, "Newer posts")
    assert newer is not None and f"flowRunId={RUN}" in newer
    assert texts(browser.client.get(newer).text) == texts(first)

    # Campaign and edition filters, alone and together with the others.
    by_campaign = browser.client.get("/posts?campaign=spring-launch&status=published").text
    assert texts(by_campaign)[:2] == ["post number 54", "post number 53"]
    assert "status=published" in (link(by_campaign, "Older posts") or "")
    by_edition = browser.client.get("/posts?campaign=spring-launch&edition=manual").text
    assert texts(by_edition) == ["post number 54"]
    assert "No posts match." in browser.client.get("/posts?campaign=autumn").text

    # Without the Prefect UI's address the run id is shown with no link out.
    settings.prefect_ui_url = None
    assert "runs/flow-run" not in browser.client.get(f"/posts?flowRunId={RUN}").text


def test_a_posts_page_shows_its_format(browser: Browser, tmp_path: Path) -> None:
    headers, _ = signed_up(browser)
    connect(browser, "short_video", "@acme")
    unified = browser.client.get("/api/connections/unified", headers=headers).json()
    tiktok = next(c["id"] for c in unified if c["platform"] == "short_video")
    make_image(tmp_path / "still.jpg", size=(640, 640), fmt="JPEG")
    image = upload_file(browser.client, headers, tmp_path / "still.jpg")
    sent = browser.client.post(
        RULES[Platform.SHORT_VIDEO].publish_path,
        headers=headers,
        json={
            "platform": "short_video",
            "connectionId": tiktok,
            "fileId": image["fileId"],
            "privacyLevel": "SELF_ONLY",
            "format": "photo",
        },
    )
    assert sent.status_code == 200, sent.text
    page = browser.client.get(f"/posts/{sent.json()['recordId']}").text
    assert "<dt>Format</dt><dd>photo</dd>" in page
