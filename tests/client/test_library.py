"""Files, folders, downloads and the posts read-back, on hosted-shaped recordings.

The contract tests against the real app are ``test_contract_media.py`` and
``test_contract_publishing.py``; these cover what only the hosted service does.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from pressroom.client import Client, NotFoundError
from tests.client.hosted import API_KEY, BASE_URL, STORAGE, Hosted, body_of

API = re.escape(BASE_URL)


def test_file_lists_read_numeric_ids_and_missing_fields(
    hosted: Hosted, hosted_client: Client
) -> None:
    hosted.answer(
        "GET",
        API + "/api/upload/files",
        200,
        {
            "success": True,
            "files": [
                {"fileId": 2, "filename": "b.mp4", "status": "uploaded", "folderId": 31},
                {"id": 1, "filename": "a.png", "uploadedAt": "2026-10-01T00:00:00Z"},
            ],
        },
    )
    page = hosted_client.list_files(limit=2)
    assert [f.file_id for f in page.files] == ["2", "1"]
    assert page.files[0].folder_id == "31" and page.files[0].is_ready
    assert page.files[1].status is None and not page.files[1].is_ready
    assert page.next_cursor is None
    assert hosted.requests[0].url.params["limit"] == "2"


def test_iterating_files_follows_the_cursor_and_stops_on_a_repeat(
    hosted: Hosted, hosted_client: Client
) -> None:
    def page(request: httpx.Request, _m: re.Match[str]) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        number = {None: 1, "c2": 2, "c3": 3}[cursor]
        following = {1: "c2", 2: "c3", 3: "c3"}[number]  # the last page repeats its cursor
        return httpx.Response(200, json={"files": [{"fileId": number}], "nextCursor": following})

    hosted.on("GET", API + "/api/upload/files", page)
    assert [f.file_id for f in hosted_client.iter_files(page_size=1)] == ["1", "2", "3"]
    assert [r.url.params.get("cursor") for r in hosted.requests] == [None, "c2", "c3"]


def test_latest_file_and_its_absence(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer("GET", API + "/api/upload/latest", 200, {"success": True, "file": {"fileId": 9}})
    assert hosted_client.latest_file().file_id == "9"  # wrapped in "file" on some versions
    hosted.answer(
        "GET",
        API + "/api/upload/latest",
        404,
        {"success": False, "error": {"code": "no_files", "message": "No files yet."}},
    )
    with pytest.raises(NotFoundError) as caught:
        hosted_client.latest_file()
    assert caught.value.code == "no_files"


def test_download_in_memory_and_streamed_to_disk(
    hosted: Hosted, hosted_client: Client, tmp_path: Path
) -> None:
    payload = bytes(range(256)) * 5000
    hosted.on(
        "GET", API + "/api/upload/direct/12", lambda _r, _m: httpx.Response(200, content=payload)
    )
    assert hosted_client.download("12") == payload
    target = hosted_client.download_to("12", tmp_path / "copy.mp4")
    assert target.read_bytes() == payload
    assert not (tmp_path / "copy.mp4.part").exists()


def test_a_download_redirected_to_storage_does_not_take_the_key_along(
    hosted: Hosted, hosted_client: Client
) -> None:
    signed = f"{STORAGE}/uploads/12/a.png?X-Amz-Signature=zz"
    hosted.answer("GET", API + "/api/upload/direct/12", 302, {}, headers={"Location": signed})
    hosted.on(
        "GET",
        re.escape(STORAGE) + "/uploads/12/a.png",
        lambda _r, _m: httpx.Response(200, content=b"png"),
    )
    assert hosted_client.download("12") == b"png"
    first, second = hosted.requests
    assert first.headers["X-API-Key"] == API_KEY
    assert "X-API-Key" not in second.headers and second.url.host.startswith("media-bucket")


def test_a_failed_download_raises_and_leaves_no_file(
    hosted: Hosted, hosted_client: Client, tmp_path: Path
) -> None:
    hosted.answer(
        "GET",
        API + "/api/upload/direct/404",
        404,
        {"success": False, "error": {"code": "file_not_found", "message": "No such file."}},
    )
    with pytest.raises(NotFoundError):
        hosted_client.download_to("404", tmp_path / "x.bin")
    assert list(tmp_path.iterdir()) == []


def test_delete_and_move_files(hosted: Hosted, hosted_client: Client) -> None:
    hosted.on("DELETE", API + "/api/upload/file/5", lambda _r, _m: httpx.Response(204))
    assert hosted_client.delete_file("5").success is True  # an empty answer is fine

    hosted.answer("PATCH", API + "/api/upload/file/5", 200, {"success": True})
    moved = hosted_client.move_file("5", folder_id=None)
    assert (moved.file_id, moved.folder_id) == ("5", None)
    assert body_of(hosted.requests[-1]) == {"folderId": None}  # null is sent: out of any folder


def test_folders_round_trip(hosted: Hosted, hosted_client: Client) -> None:
    hosted.answer(
        "POST",
        API + "/api/upload/folders",
        201,
        {"success": True, "folder": {"id": 3, "name": "Q4"}},
    )
    hosted.answer("PATCH", API + "/api/upload/folders/3", 200, {"id": "3", "name": "Q4 launch"})
    hosted.answer(
        "GET",
        API + "/api/upload/folders",
        200,
        {"success": True, "folders": [{"id": 3, "name": "Q4 launch", "fileCount": 2}]},
    )
    hosted.answer(
        "GET",
        API + "/api/upload/folders/3/files",
        200,
        {"success": True, "files": [{"fileId": 8, "status": "ready"}], "nextCursor": None},
    )
    hosted.answer("DELETE", API + "/api/upload/folders/3", 200, {"success": True, "deleted": 2})

    folder = hosted_client.create_folder(name="Q4")
    assert (folder.id, folder.name) == ("3", "Q4")
    assert hosted_client.rename_folder(folder.id, name="Q4 launch").name == "Q4 launch"
    (listed,) = hosted_client.list_folders().folders
    assert listed.file_count == 2 and listed.model_extra == {}
    assert [f.file_id for f in hosted_client.iter_folder_files("3")] == ["8"]
    deleted = hosted_client.delete_folder("3")
    assert deleted.success and deleted.model_extra == {"deleted": 2}
    bodies = [json.loads(r.content) for r in hosted.requests if r.content]
    assert bodies == [{"name": "Q4"}, {"name": "Q4 launch"}]


def test_posts_read_back_and_lookup_by_idempotency_key(
    hosted: Hosted, hosted_client: Client
) -> None:
    def posts(request: httpx.Request, _m: re.Match[str]) -> httpx.Response:
        key = request.url.params.get("idempotencyKey")
        found = [{"recordId": 77, "platform": "microblog", "idempotencyKey": key}]
        return httpx.Response(200, json={"success": True, "posts": found if key == "k1" else []})

    hosted.on("GET", API + "/api/posts", posts)
    hosted.answer("GET", API + "/api/posts/77", 200, {"recordId": "77", "status": "published"})

    post = hosted_client.find_post(idempotency_key="k1", platform="microblog")
    assert post is not None and post.record_id == "77"
    assert hosted.requests[0].url.params["platform"] == "microblog"
    assert hosted_client.find_post(idempotency_key="other") is None
    assert hosted_client.get_post("77").status == "published"


def test_a_service_without_the_posts_read_back_answers_not_found(
    hosted: Hosted, hosted_client: Client
) -> None:
    # The hosted service has no /api/posts; its 404 body is not ours either.
    with pytest.raises(NotFoundError) as caught:
        hosted_client.find_post(idempotency_key="k1")
    assert caught.value.status == 404 and caught.value.code is None
    assert caught.value.transient is False


def test_finding_by_content_checks_each_entry_itself(hosted: Hosted, hosted_client: Client) -> None:
    """The hosted service may not know ?sha256= and list every file: none of them is a
    match unless its own sha256 says so."""
    digest = "ab" * 32
    hosted.answer(
        "GET",
        API + "/api/upload/files",
        200,
        {
            "success": True,
            "files": [
                {"fileId": 3, "status": "ready"},
                {"fileId": 2, "status": "processing", "sha256": digest},
                {"fileId": 1, "status": "ready", "sha256": digest},
            ],
        },
    )
    assert [f.file_id for f in hosted_client.find_files(sha256=digest)] == ["1"]
    assert hosted.requests[0].url.params["sha256"] == digest
