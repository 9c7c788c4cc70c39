"""Reading the library: status, lists, latest, ranged downloads, deletion, isolation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.conftest import AccountHandle
    from tests.support.library import Library, MediaFiles

from tests.support.backends import ON_BOTH_BACKENDS

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def get(library: Library, account: AccountHandle, path: str, **kwargs: Any) -> Any:
    return library.client.get(
        path, headers={**account.headers, **kwargs.pop("headers", {})}, **kwargs
    )


def test_status_has_the_documented_shape(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    status = library.status(account, issued["fileId"])
    assert status == {
        "success": True,
        "fileId": issued["fileId"],
        "status": "pending_upload",
        "kind": "video",
        "contentType": "video/mp4",
        "size": None,
        "filename": "clip.mp4",
        "folderId": None,
        "createdAt": status["createdAt"],
        "durationSeconds": None,
        "width": None,
        "height": None,
        "mediaFormat": None,
        "pages": None,  # our extension: a document's page count
        "failureReason": None,
        "sha256": None,
        "derivatives": [],  # our extension: files made from it for networks, none yet
    }
    assert status["createdAt"].endswith("Z")


def test_files_are_listed_newest_first_page_by_page(library: Library) -> None:
    account = library.account()
    ids = [library.presign(account, f"f{i}.png")["fileId"] for i in range(5)]
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        body = get(library, account, "/api/upload/files", params=params).json()
        assert body["success"] is True and len(body["files"]) <= 2
        seen += [f["fileId"] for f in body["files"]]
        pages += 1
        cursor = body["nextCursor"]
        if cursor is None:
            break
    assert seen == ids[::-1] and pages == 3
    everything = get(library, account, "/api/upload/files").json()
    assert [f["fileId"] for f in everything["files"]] == ids[::-1]
    assert everything["nextCursor"] is None


def test_bad_paging_is_a_400_naming_the_parameter(library: Library) -> None:
    account = library.account()
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
    ):
        for path in ("/api/upload/files", "/api/upload/folders"):
            response = get(library, account, path, params=params)
            assert response.status_code == 400, (path, params)
            assert response.json()["error"]["field"] == field


def test_latest_is_the_newest_file_or_404(library: Library) -> None:
    account = library.account()
    none = get(library, account, "/api/upload/latest")
    assert none.status_code == 404 and none.json()["error"]["code"] == "no_files"
    library.presign(account, "old.png")
    newest = library.presign(account, "new.jpg")
    latest = get(library, account, "/api/upload/latest").json()
    assert latest["success"] is True and latest["fileId"] == newest["fileId"]


def test_download_honours_one_byte_range(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.video4)
    assert library.wait(account, file_id)["status"] == "ready"
    data = media_files.video4.read_bytes()
    path = f"/api/upload/direct/{file_id}"

    whole = get(library, account, path)
    assert whole.status_code == 200 and whole.headers["accept-ranges"] == "bytes"
    assert whole.content == data

    head = get(library, account, path, headers={"Range": "bytes=0-99"})
    assert head.status_code == 206 and head.content == data[:100]
    assert head.headers["content-range"] == f"bytes 0-99/{len(data)}"
    assert head.headers["content-length"] == "100"

    tail = get(library, account, path, headers={"Range": "bytes=-10"})
    assert tail.status_code == 206 and tail.content == data[-10:]
    rest = get(library, account, path, headers={"Range": f"bytes={len(data) - 5}-"})
    assert rest.content == data[-5:]
    clipped = get(library, account, path, headers={"Range": "bytes=10-99999999"})
    assert clipped.status_code == 206 and clipped.content == data[10:]

    outside = get(library, account, path, headers={"Range": f"bytes={len(data)}-"})
    assert outside.status_code == 416
    assert outside.headers["content-range"] == f"bytes */{len(data)}"
    assert outside.json()["error"]["code"] == "range_not_satisfiable"
    ignored = get(library, account, path, headers={"Range": "bytes=0-1,5-6"})
    assert ignored.status_code == 200 and ignored.content == data


def test_deleted_file_is_gone_everywhere(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    file_id = library.upload(account, media_files.jpeg)
    assert library.wait(account, file_id)["status"] == "ready"
    assert (
        library.client.delete(f"/api/upload/file/{file_id}", headers=account.headers).status_code
        == 200
    )
    for path in (f"/api/upload/status/{file_id}", f"/api/upload/direct/{file_id}"):
        assert get(library, account, path).status_code == 404
    assert get(library, account, "/api/upload/files").json()["files"] == []
    again = library.client.delete(f"/api/upload/file/{file_id}", headers=account.headers)
    assert again.status_code == 404
    assert library.stored() == set()


def test_deleting_a_pending_file_makes_its_url_useless(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    issued = library.presign(account, "clip.mp4")
    library.client.delete(f"/api/upload/file/{issued['fileId']}", headers=account.headers)
    put = library.put(issued["uploadUrl"], media_files.video4.read_bytes(), "video/mp4")
    if library.backend == "local":
        assert put.status_code == 404
    library.media.processor.sweep()  # on s3 the store took it; the sweep removes it
    assert library.stored() == set()


def test_another_accounts_files_are_404_on_every_endpoint(
    library: Library, media_files: MediaFiles
) -> None:
    mine, theirs = library.account(), library.account()
    file_id = library.upload(theirs, media_files.png)
    assert library.wait(theirs, file_id)["status"] == "ready"
    folder = library.client.post(
        "/api/upload/folders", json={"name": "theirs"}, headers=theirs.headers
    ).json()["id"]
    client, headers = library.client, mine.headers
    answers = [
        client.get(f"/api/upload/status/{file_id}", headers=headers),
        client.get(f"/api/upload/direct/{file_id}", headers=headers),
        client.delete(f"/api/upload/file/{file_id}", headers=headers),
        client.patch(f"/api/upload/file/{file_id}", json={"folderId": None}, headers=headers),
        client.get(f"/api/upload/folders/{folder}/files", headers=headers),
        client.patch(f"/api/upload/folders/{folder}", json={"name": "mine"}, headers=headers),
        client.delete(f"/api/upload/folders/{folder}", headers=headers),
        client.post(
            "/api/upload/presigned-url",
            json={"filename": "a.png", "contentType": "image/png", "folderId": folder},
            headers=headers,
        ),
    ]
    codes = [(a.status_code, a.json()["error"]["code"]) for a in answers]
    assert codes == [(404, "file_not_found")] * 4 + [(404, "folder_not_found")] * 4
    assert get(library, mine, "/api/upload/files").json()["files"] == []
    assert get(library, mine, "/api/upload/folders").json()["folders"] == []
    assert get(library, mine, "/api/upload/latest").status_code == 404
    own = library.presign(mine, "mine.png")["fileId"]
    moved = client.patch(f"/api/upload/file/{own}", json={"folderId": folder}, headers=headers)
    assert moved.status_code == 404 and moved.json()["error"]["field"] == "folderId"
    # Nothing of theirs changed.
    assert library.status(theirs, file_id)["status"] == "ready"
    assert get(library, theirs, "/api/upload/folders").json()["folders"][0]["name"] == "theirs"


def test_openapi_documents_the_media_routes(library: Library) -> None:
    paths = library.client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/upload/presigned-url",
        "/api/upload/status/{file_id}",
        "/api/upload/files",
        "/api/upload/latest",
        "/api/upload/direct/{file_id}",
        "/api/upload/file/{file_id}",
        "/api/upload/folders",
        "/api/upload/folders/{folder_id}",
        "/api/upload/folders/{folder_id}/files",
    ):
        assert path in paths, path
    assert "429" in paths["/api/upload/presigned-url"]["post"]["responses"]
