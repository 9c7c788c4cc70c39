"""Media library, Posts and Overview pages over the same domain services as the API."""

from __future__ import annotations

import re
from pathlib import Path

from tests.service.web.conftest import Browser, connect, csrf_of
from tests.support.media import make_image, make_video
from tests.support.uploads import upload_file


def _folder_id(html: str, name: str) -> str:
    found = re.search(r'href="/media\?folder=(fld_\w+)"[^>]*>' + re.escape(name) + "<", html)
    assert found, html
    return found.group(1)


def test_media_library_folders_files_move_delete(browser: Browser, tmp_path: Path) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    headers = {"X-API-Key": key}
    image = upload_file(browser.client, headers, make_image(tmp_path / "red.png"))
    video = upload_file(browser.client, headers, make_video(tmp_path / "clip.mp4", 3.0))
    assert image["status"] == video["status"] == "ready"

    created = browser.form("/media", "/media/folders", name="Launch")
    assert created.status_code == 303  # type: ignore[attr-defined]
    page = browser.client.get("/media").text
    folder = _folder_id(page, "Launch")
    assert f'<img class="preview" src="/media/files/{image["fileId"]}/download"' in page
    assert f'<img class="preview" src="/media/files/{video["fileId"]}/poster"' in page
    poster = browser.client.get(f"/media/files/{video['fileId']}/poster")
    assert poster.status_code == 200 and poster.headers["content-type"] == "image/jpeg"
    assert poster.content.startswith(b"\xff\xd8")  # a JPEG
    assert browser.client.get(f"/media/files/{image['fileId']}/poster").status_code == 404
    assert "3.0 s" in page

    moved = browser.client.post(
        f"/media/files/{image['fileId']}/move",
        data={"csrf_token": csrf_of(page), "folder_id": folder},
        follow_redirects=False,
    )
    assert moved.status_code == 303
    inside = browser.client.get(f"/media?folder={folder}").text
    assert "red.png" in inside and "clip.mp4" not in inside
    assert (
        browser.client.get(f"/api/upload/status/{image['fileId']}", headers=headers).json()[
            "folderId"
        ]
        == folder
    )

    renamed = browser.form(f"/media?folder={folder}", f"/media/folders/{folder}/rename", rename="")
    assert renamed.status_code == 400 and 'href="#rename"' in renamed.text  # type: ignore[attr-defined]

    download = browser.client.get(f"/media/files/{video['fileId']}/download?save=1")
    assert download.status_code == 200 and download.headers["content-disposition"].startswith(
        "attachment"
    )

    confirm = browser.client.get(f"/media/folders/{folder}/delete").text
    assert "the 1 file in it are deleted for good" in confirm
    browser.client.post(f"/media/folders/{folder}/delete", data={"csrf_token": csrf_of(confirm)})
    gone = browser.client.get(f"/api/upload/status/{image['fileId']}", headers=headers)
    assert gone.status_code == 404

    confirm = browser.client.get(f"/media/files/{video['fileId']}/delete").text
    browser.client.post(
        f"/media/files/{video['fileId']}/delete", data={"csrf_token": csrf_of(confirm)}
    )
    assert "No files here yet." in browser.client.get("/media").text


def test_presign_for_the_browser_upload(browser: Browser) -> None:
    browser.sign_up()
    page = browser.client.get("/media").text
    issued = browser.client.post(
        "/media/uploads",
        data={"csrf_token": csrf_of(page), "filename": "a.png", "content_type": "image/png"},
    )
    assert issued.status_code == 200 and issued.json()["uploadUrl"].startswith("http://testserver")
    refused = browser.client.post(
        "/media/uploads",
        data={"csrf_token": csrf_of(page), "filename": "a.exe", "content_type": "application/x"},
        headers={"Accept": "application/json"},
    )
    assert refused.status_code == 400 and refused.json()["error"]["field"]


def test_other_accounts_files_are_not_found(browser: Browser, other_browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    page = browser.client.get("/media").text
    issued = browser.client.post(
        "/media/uploads",
        data={"csrf_token": csrf_of(page), "filename": "a.png", "content_type": "image/png"},
    ).json()
    del key
    other_browser.sign_up()
    response = other_browser.client.get(f"/media/files/{issued['fileId']}/download")
    assert response.status_code == 404


def test_posts_history_filters_detail_and_overview(browser: Browser) -> None:
    browser.sign_up()
    key = browser.api_key_shown()
    connect(browser, "microblog", "@acme")
    connect(browser, "professional_network", "Acme Inc.")
    unified = browser.client.get("/api/connections/unified", headers={"X-API-Key": key}).json()
    ids = {c["platform"]: c["id"] for c in unified}
    first = browser.client.post(
        "/api/v2/microblog/publish",
        headers={"X-API-Key": key},
        json={"connectionId": ids["microblog"], "text": "hello from the API"},
    ).json()
    browser.client.post(
        "/api/v2/professional_network/publish",
        headers={"X-API-Key": key},
        json={"connectionId": ids["professional_network"], "text": "we are hiring"},
    )
    history = browser.client.get("/posts").text
    assert history.index("we are hiring") < history.index("hello from the API")  # newest first
    assert first["url"] in history
    only = browser.client.get("/posts?platform=microblog&status=published").text
    assert "hello from the API" in only and "we are hiring" not in only
    assert "No posts match." in browser.client.get("/posts?status=failed").text
    detail = browser.client.get(f"/posts/{first['recordId']}").text
    assert "What was sent" in detail and first["microblogPostId"] in detail
    assert browser.client.get("/posts/nope").status_code == 404
    overview = browser.client.get("/").text
    assert "0 of 250" in overview and "1 of 15" in overview and "hello from the API" in overview


def test_the_media_page_lists_the_copies_made_for_networks(
    browser: Browser, tmp_path: Path
) -> None:
    """A PNG posted to photo_sharing is converted to a JPEG for it; the library shows the
    copy under the file: the network, its state, type, size and dimensions."""
    import time

    browser.sign_up()
    key = browser.api_key_shown()
    headers = {"X-API-Key": key}
    image = upload_file(
        browser.client, headers, make_image(tmp_path / "cover.png", size=(320, 240))
    )
    connect(browser, "photo_sharing", "acme.photos")
    [photo] = [
        c["id"]
        for c in browser.client.get("/api/connections/unified", headers=headers).json()
        if c["platform"] == "photo_sharing"
    ]
    body = {"connectionId": photo, "fileId": image["fileId"]}
    first = browser.client.post("/api/v2/photo_sharing/publish", json=body, headers=headers)
    assert first.status_code == 409
    pending = browser.client.get("/media").text
    assert "For photo_sharing" in pending
    assert "data-refresh" in pending or "status-ready" in pending  # refreshed while made
    deadline = time.monotonic() + 30
    while "image/jpeg" not in (page := browser.client.get("/media").text):
        assert time.monotonic() < deadline, page
        time.sleep(0.1)
    copy = page[page.index('data-profile="photo_sharing.image"') :]
    copy = copy[: copy.index("</li>")]
    assert 'status-ready">ready' in copy and "image/jpeg" in copy and "320x240" in copy


def test_the_media_page_shows_a_pdf_as_a_document_with_its_pages(
    browser: Browser, tmp_path: Path
) -> None:
    """A PDF has no picture: the page shows it as a document with its page count, and
    never points an image or a video element at it."""
    from tests.support.documents import make_pdf

    browser.sign_up()
    headers = {"X-API-Key": browser.api_key_shown()}
    path = tmp_path / "deck.pdf"
    path.write_bytes(make_pdf(7))
    pdf = upload_file(browser.client, headers, path)
    assert (pdf["status"], pdf["kind"], pdf["pages"]) == ("ready", "document", 7)
    page = browser.client.get("/media").text
    row = page[page.index(f'data-file="{pdf["fileId"]}"') :]
    row = row[: row.index("</tr>")]
    assert '<span class="preview">PDF' in row
    assert "<img" not in row and "<video" not in row
    assert "<td>document</td>" in row and "<td>7 pages</td>" in row
    assert 'accept="image/*,video/*,application/pdf"' in page
    download = browser.client.get(f"/media/files/{pdf['fileId']}/download")
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/pdf"
    assert download.content == path.read_bytes()
