"""A campaign's document post run through the pipeline: the PDF uploaded once and waited
for, then posted to professional_network as a document (``format: document``), its
title and file in the publish the sandbox recorded."""

from __future__ import annotations

from pathlib import Path

from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline.conftest import LiveService, WriteCampaign
from tests.support.documents import make_pdf


def test_a_campaigns_pdf_is_uploaded_and_posted_as_a_document(
    live_service: LiveService, write_campaign: WriteCampaign, tmp_path: Path
) -> None:
    (tmp_path / "q3.pdf").write_bytes(make_pdf(6))
    live_service.connect("professional_network", "Ada Lovelace")
    campaign = write_campaign(
        """\
name: quarterly
media:
  deck: {path: q3.pdf}
posts:
  - id: report
    media: deck
    professional_network:
      text: "Our quarter, in six pages"
      format: document
      document_title: Q3 report
"""
    )
    outcome = run_campaign_file(campaign)
    assert outcome.ok, outcome.message
    assert [r["status"] for r in outcome.rows] == ["published"]
    [delivery] = live_service.deliveries()
    assert delivery.platform == "professional_network"
    fields, media = delivery.payload["fields"], delivery.payload["media"]
    assert (fields["format"], fields["documentTitle"]) == ("document", "Q3 report")
    assert (media["kind"], media["contentType"]) == ("document", "application/pdf")
    assert (
        live_service.stored_path(media["storageKey"]).read_bytes()
        == (tmp_path / "q3.pdf").read_bytes()
    )
