"""A run's posts know their campaign: the service finds them by campaign, edition and
the Prefect flow run that sent them."""

from __future__ import annotations

from pressroom.client import Client, PostCampaign
from pressroom.pipeline.runner import run_campaign_file
from tests.pipeline.conftest import LiveService, WriteCampaign

TWO_POSTS = """\
name: launch-words
posts:
  - id: teaser
    microblog: {text: "Something is coming."}
  - id: reveal
    microblog: {text: "It is here."}
    professional_network: {text: "It is here: the spring collection."}
"""


def test_a_runs_posts_carry_campaign_edition_and_run_found_by_the_filters(
    live_service: LiveService, write_campaign: WriteCampaign
) -> None:
    live_service.connect("microblog", "@acme")
    live_service.connect("professional_network", "Acme Inc.")

    outcome = run_campaign_file(write_campaign(TWO_POSTS), edition="2026-w48")

    assert outcome.ok, outcome.message
    run_id = outcome.flow_run_id
    assert run_id
    with Client(base_url=live_service.base_url, api_key=live_service.key) as client:
        found = client.list_posts(campaign="launch-words", edition="2026-w48", flow_run_id=run_id)
        assert client.list_posts(flow_run_id="another-run").posts == []
    targets = (("microblog", "teaser"), ("microblog", "reveal"), ("professional_network", "reveal"))
    assert {
        (p.platform, p.campaign.post_id if p.campaign else None): p.campaign for p in found.posts
    } == {
        target: PostCampaign(
            name="launch-words", edition="2026-w48", post_id=target[1], flow_run_id=run_id
        )
        for target in targets
    }
