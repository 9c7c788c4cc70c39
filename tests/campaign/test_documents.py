"""A document post in a campaign: a PDF under `media:`, named by a post whose
professional_network block says `format: document` and `document_title:`; validated at
its lines (a PDF anywhere else, a document of anything but a PDF, a file that is not a
readable PDF), planned with the PDF's upload and its fileId, previewed with its pages."""

from __future__ import annotations

from pressroom.campaign import load, plan, validate
from pressroom.probe import FileKind
from tests.campaign.conftest import Write

MEDIA = """\
media:
  deck: {path: media/deck.pdf}
  cover: {path: media/cover.jpg}
"""
LINKEDIN = [{"id": "li1", "platform": "professional_network", "name": "Ada"}]


def test_a_document_post_validates_and_plans_the_pdfs_upload_and_file_id(write: Write) -> None:
    path = write(
        """\
name: q3
media:
  deck: {path: media/deck.pdf}
posts:
  - id: report
    media: deck
    professional_network:
      text: Our quarter, in twelve pages
      format: document
      document_title: Q3 report
"""
    )
    report = validate(path)
    assert report.errors == [] and report.warnings == [], report.errors
    campaign = load(path)
    assert campaign.media["deck"].kind is FileKind.DOCUMENT
    planned_run = plan(campaign, LINKEDIN)
    [upload] = planned_run.uploads
    assert (upload.name, upload.content_type, upload.kind) == (
        "deck",
        "application/pdf",
        "document",
    )
    [planned] = planned_run.posts
    assert planned.media == "deck"
    assert planned.publish_body({"deck": "file_1"}) == {
        "connectionId": "li1",
        "text": "Our quarter, in twelve pages",
        "format": "document",
        "documentTitle": "Q3 report",
        "fileId": "file_1",
    }


def test_a_pdf_where_no_document_post_is_made_is_an_error_at_its_line(write: Write) -> None:
    path = write(
        "name: q3\n"
        + MEDIA
        + """\
  fake: {path: media/fake.pdf}
posts:
  - id: pdf-on-instagram
    media: deck
    photo_sharing: {caption: "Our quarter"}
  - id: pdf-without-format
    media: deck
    professional_network: {text: "Our quarter"}
  - id: document-of-an-image
    media: cover
    professional_network: {text: "Our quarter", format: document, document_title: Q3}
  - id: document-without-file
    professional_network: {text: "Our quarter", format: document, document_title: Q3}
  - id: pdf-in-a-carousel
    professional_network:
      text: "Our quarter"
      media: [cover, deck]
"""
    )
    report = validate(path)
    found = [(i.path, i.line, i.message) for i in report.errors]
    assert [(p, line) for p, line, _ in found] == [
        ("media.fake.path", 5),
        ("posts.0.photo_sharing", 9),
        ("posts.1.professional_network", 12),
        ("posts.2.professional_network", 15),
        ("posts.3.professional_network", 17),
        ("posts.4.professional_network.media.1", 21),
    ], found
    messages = [m for _, _, m in found]
    assert "not a readable PDF" in messages[0]
    assert "media 'deck' is a PDF (a document)" in messages[1]
    assert "format: document" in messages[1]
    assert "posts text only" in messages[2]
    assert "takes application/pdf only" in messages[3]
    assert "needs its file" in messages[4]
    assert "is a PDF (a document)" in messages[5]


def test_the_preview_shows_a_documents_pages_and_no_picture(write: Write) -> None:
    from tests.campaign.test_preview import preview

    write(
        "name: q3\n"
        + MEDIA
        + """\
posts:
  - id: report
    media: deck
    professional_network: {text: "Our quarter", format: document, document_title: Q3 report}
"""
    )
    out = preview("c.yaml")[1]
    linkedin = out.split("#### LinkedIn (professional_network)", 1)[1]
    assert "format: document" in linkedin
    assert "document, 12 pages" in linkedin
