"""PDFs in the media library (our extension, the file of a document post): presigned,
PUT, read to be sure they are whole PDFs and to count their pages, then ready; a file
that is not a readable PDF fails with the rule it broke in its status, never a 500."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.backends import ON_BOTH_BACKENDS
from tests.support.documents import make_pdf

if TYPE_CHECKING:
    from tests.support.library import Library, MediaFiles

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def test_a_pdf_is_uploaded_read_and_ready_with_its_page_count(library: Library) -> None:
    account = library.account()
    issued = library.presign(account, "q3-report.pdf", "application/pdf")
    assert library.status(account, issued["fileId"])["kind"] == "document"
    body = make_pdf(3)
    put = library.put(issued["uploadUrl"], body, "application/pdf")
    assert put.status_code == 200, put.text
    status = library.wait(account, issued["fileId"])
    assert status["status"] == "ready", status
    assert (status["kind"], status["contentType"], status["pages"], status["size"]) == (
        "document",
        "application/pdf",
        3,
        len(body),
    )
    assert status["mediaFormat"].startswith("PDF")
    assert (status["width"], status["height"], status["durationSeconds"]) == (None, None, None)
    listed = library.client.get("/api/upload/files", headers=account.headers).json()["files"]
    assert [(f["fileId"], f["kind"], f["pages"]) for f in listed] == [
        (issued["fileId"], "document", 3)
    ]


@pytest.mark.parametrize(
    ("what", "body"),
    [
        ("text", b"Quarterly report: see attached.\n"),
        ("truncated", make_pdf(2)[:200]),
        ("header only", b"%PDF-1.7\n"),
    ],
)
def test_a_file_that_is_not_a_whole_pdf_fails_with_the_reason(
    library: Library, what: str, body: bytes
) -> None:
    account = library.account()
    file_id = library.upload(account, body, filename="report.pdf", content_type="application/pdf")
    status = library.wait(account, file_id)
    assert status["status"] == "failed", (what, status)
    assert status["failureReason"] == (
        "The file is not a readable PDF: its bytes are not a whole PDF document."
    )
    assert status["pages"] is None


def test_an_image_named_pdf_fails_as_not_a_pdf(library: Library, media_files: MediaFiles) -> None:
    account = library.account()
    file_id = library.upload(
        account, media_files.png.read_bytes(), filename="scan.pdf", content_type="application/pdf"
    )
    status = library.wait(account, file_id)
    assert status["status"] == "failed"
    assert "not a readable PDF" in status["failureReason"]


def test_a_pdf_extension_must_go_with_the_pdf_content_type(library: Library) -> None:
    account = library.account()
    for filename, content_type in (("report.png", "application/pdf"), ("report.pdf", "image/png")):
        response = library.client.post(
            "/api/upload/presigned-url",
            json={"filename": filename, "contentType": content_type},
            headers=account.headers,
        )
        assert response.status_code == 400, response.text
        assert response.json()["error"]["field"] == "filename"
