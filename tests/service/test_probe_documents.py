"""Reading a PDF (``pressroom.probe.probe_file``): its pages counted, and what is not a
readable PDF refused with the rule it broke, in words a file's status can show."""

from __future__ import annotations

import io

import pytest

from pressroom.probe import DocumentInfo, FileKind, ProbeError, file_kind_of, probe_file
from tests.support.documents import make_pdf


def test_a_pdf_is_a_document_with_its_page_count() -> None:
    info = probe_file(io.BytesIO(make_pdf(4)), "application/pdf")
    assert isinstance(info, DocumentInfo)
    assert (info.kind, info.pages, info.facts()) == (FileKind.DOCUMENT, 4, {"pages": 4})
    assert info.format.startswith("PDF 1.")
    assert file_kind_of("application/pdf") is FileKind.DOCUMENT
    assert file_kind_of("image/png") is FileKind.IMAGE
    assert file_kind_of("application/zip") is None


def test_a_pdf_locked_by_a_password_is_refused_saying_so() -> None:
    with pytest.raises(ProbeError, match="encrypted with a password"):
        probe_file(io.BytesIO(make_pdf(1, password="s3cret")), "application/pdf")
    # Encrypted for its owner only, it opens without one: a network reads it too.
    info = probe_file(io.BytesIO(make_pdf(1, password="")), "application/pdf")
    assert isinstance(info, DocumentInfo) and info.pages == 1


@pytest.mark.parametrize("body", [b"", b"hello", b"%PDF-1.4\n%%EOF\n", make_pdf(3)[:-400]])
def test_what_is_not_a_whole_pdf_is_refused(body: bytes) -> None:
    with pytest.raises(ProbeError) as refused:
        probe_file(io.BytesIO(body), "application/pdf")
    assert str(refused.value) == (
        "the file is not a readable PDF: its bytes are not a whole PDF document"
    )
