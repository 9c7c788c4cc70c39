"""Real PDFs for tests of documents (the file of a professional_network document post)."""

from __future__ import annotations

import io


def make_pdf(pages: int, *, password: str | None = None) -> bytes:
    """A whole PDF of ``pages`` blank A4 pages, written by pypdf; encrypted with
    ``password`` when one is given."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    if password is not None:
        writer.encrypt(user_password=password, owner_password="owner", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
