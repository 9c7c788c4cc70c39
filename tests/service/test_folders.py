"""Spec 4.2: folders, how files join and leave them, and deleting them with their files."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pressroom.service.storage import StorageError

if TYPE_CHECKING:
    from tests.conftest import AccountHandle
    from tests.support.library import Library, MediaFiles

from tests.support.backends import ON_BOTH_BACKENDS

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def make_folder(library: Library, account: AccountHandle, name: str) -> dict[str, Any]:
    response = library.client.post(
        "/api/upload/folders", json={"name": name}, headers=account.headers
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def folder_files(library: Library, account: AccountHandle, folder_id: str) -> list[str]:
    response = library.client.get(f"/api/upload/folders/{folder_id}/files", headers=account.headers)
    assert response.status_code == 200
    return [f["fileId"] for f in response.json()["files"]]


def folders(library: Library, account: AccountHandle) -> list[dict[str, Any]]:
    body = library.client.get("/api/upload/folders", headers=account.headers).json()
    assert body["success"] is True and body["nextCursor"] is None
    result: list[dict[str, Any]] = body["folders"]
    return result


def test_create_list_and_rename(library: Library) -> None:
    account = library.account()
    created = make_folder(library, account, "  Launch week  ")
    assert created["success"] is True and created["id"].startswith("fld_")
    assert (created["name"], created["fileCount"]) == ("Launch week", 0)
    second = make_folder(library, account, "Evergreen")
    assert [f["id"] for f in folders(library, account)] == [second["id"], created["id"]]

    renamed = library.client.patch(
        f"/api/upload/folders/{created['id']}", json={"name": "Launch"}, headers=account.headers
    )
    assert renamed.status_code == 200
    assert renamed.json()["id"] == created["id"] and renamed.json()["name"] == "Launch"
    assert renamed.json()["createdAt"] == created["createdAt"]


def test_folder_names_are_checked(library: Library) -> None:
    account = library.account()
    for name, words in (("   ", "empty"), ("x" * 201, "at most 200"), ("a\tb", "control")):
        response = library.client.post(
            "/api/upload/folders", json={"name": name}, headers=account.headers
        )
        assert response.status_code == 400
        assert response.json()["error"]["field"] == "name"
        assert words in response.json()["error"]["message"]
    missing = library.client.post("/api/upload/folders", json={}, headers=account.headers)
    assert missing.status_code == 400 and missing.json()["error"]["field"] == "name"


def test_files_join_at_presign_and_move_later(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    launch = make_folder(library, account, "Launch")["id"]
    other = make_folder(library, account, "Other")["id"]
    joined = library.upload(account, media_files.png, folder_id=launch)
    loose = library.upload(account, media_files.jpeg)
    assert library.wait(account, joined)["folderId"] == launch
    assert folder_files(library, account, launch) == [joined]

    moved = library.client.patch(
        f"/api/upload/file/{loose}", json={"folderId": launch}, headers=account.headers
    )
    assert moved.status_code == 200 and moved.json()["folderId"] == launch
    assert folder_files(library, account, launch) == [loose, joined]
    library.client.patch(
        f"/api/upload/file/{joined}", json={"folderId": other}, headers=account.headers
    )
    out = library.client.patch(
        f"/api/upload/file/{loose}", json={"folderId": None}, headers=account.headers
    )
    assert out.json()["folderId"] is None
    assert folder_files(library, account, launch) == []
    assert folder_files(library, account, other) == [joined]
    counts = {f["id"]: f["fileCount"] for f in folders(library, account)}
    assert counts == {launch: 0, other: 1}

    needs_field = library.client.patch(
        f"/api/upload/file/{loose}", json={}, headers=account.headers
    )
    assert needs_field.status_code == 400 and needs_field.json()["error"]["field"] == "folderId"


def test_renaming_changes_only_the_name(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    folder = make_folder(library, account, "Before")["id"]
    file_id = library.upload(account, media_files.png, folder_id=folder)
    library.client.patch(
        f"/api/upload/folders/{folder}", json={"name": "After"}, headers=account.headers
    )
    assert folder_files(library, account, folder) == [file_id]
    assert folders(library, account) == [
        {
            "id": folder,
            "name": "After",
            "createdAt": folders(library, account)[0]["createdAt"],
            "fileCount": 1,
        }
    ]


def test_deleting_a_folder_deletes_its_files_and_bytes(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    doomed = make_folder(library, account, "Doomed")["id"]
    inside = [
        library.upload(account, media_files.png, folder_id=doomed),
        library.upload(account, media_files.video2, folder_id=doomed),
    ]
    pending = library.presign(account, "later.jpg", folderId=doomed)["fileId"]
    outside = library.upload(account, media_files.jpeg)
    for file_id in (*inside, outside):
        assert library.wait(account, file_id)["status"] == "ready"

    response = library.client.delete(f"/api/upload/folders/{doomed}", headers=account.headers)
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "folderId": doomed,
        "deleted": True,
        "deletedFiles": 3,
    }
    for file_id in (*inside, pending):
        gone = library.client.get(f"/api/upload/direct/{file_id}", headers=account.headers)
        assert gone.status_code == 404
    listed = library.client.get("/api/upload/files", headers=account.headers).json()["files"]
    assert [f["fileId"] for f in listed] == [outside]
    assert library.stored() == {f"files/{outside}"}
    assert folders(library, account) == []
    again = library.client.get(f"/api/upload/folders/{doomed}/files", headers=account.headers)
    assert again.status_code == 404 and again.json()["error"]["code"] == "folder_not_found"


class RefusingDeletes:
    """The real storage, except that deleting fails, as when the store is unreachable."""

    def __init__(self, storage: Any) -> None:
        self._storage = storage

    def delete(self, key: str) -> None:
        raise StorageError(f"delete {key} failed: the store did not answer")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._storage, name)


def test_bytes_that_cannot_be_removed_are_swept_later(
    library: Library, media_files: MediaFiles
) -> None:
    account = library.account()
    folder = make_folder(library, account, "Flaky")["id"]
    file_id = library.upload(account, media_files.png, folder_id=folder)
    assert library.wait(account, file_id)["status"] == "ready"

    real = library.media.storage
    library.media.storage = RefusingDeletes(real)  # type: ignore[assignment]
    try:
        response = library.client.delete(f"/api/upload/folders/{folder}", headers=account.headers)
        assert response.status_code == 200
        # The records went at once: nothing lists the file whose bytes remain.
        listed = library.client.get("/api/upload/files", headers=account.headers).json()
        assert listed["files"] == []
        assert (
            library.client.get(f"/api/upload/status/{file_id}", headers=account.headers).status_code
            == 404
        )
        assert library.stored() == {f"files/{file_id}"}
    finally:
        library.media.storage = real
    assert library.media.processor.sweep() == 1
    assert library.stored() == set()


def test_folders_are_paginated_newest_first(library: Library) -> None:
    account = library.account()
    ids = [make_folder(library, account, f"F{i}")["id"] for i in range(3)]

    def pages() -> Iterator[list[str]]:
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
            body = library.client.get(
                "/api/upload/folders", params=params, headers=account.headers
            ).json()
            yield [f["id"] for f in body["folders"]]
            cursor = body["nextCursor"]
            if cursor is None:
                return

    assert list(pages()) == [ids[:0:-1], ids[:1]]
