"""Each network's page is laid out by what a reader needs, and its scopes and what the
sandbox answers as that network come from the code that asks and answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pressroom.docs import networks_page
from pressroom.docs.pages import DOCS, network_page
from pressroom.platforms import Platform
from pressroom.rules.table import NETWORKS
from pressroom.service.drivers import grants, sandbox_network

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["What it needs", "Scopes", "Rules", "What the sandbox models"]


def _page(platform: Platform) -> str:
    return (ROOT / DOCS / network_page(NETWORKS[platform])).read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("platform", list(Platform), ids=lambda p: p.value)
def test_each_network_page_has_the_readers_sections_in_order(platform: Platform) -> None:
    headings = re.findall(r"^## (.+)$", _page(platform), re.MULTILINE)
    assert [h for h in headings if h in SECTIONS] == SECTIONS
    needs = _section(_page(platform), "What it needs")
    for part in ("**App registration**", "**Review**"):
        assert part in needs, (platform, part)
    assert f"oauth/callback/{platform.value}" in needs
    if platform is Platform.OPEN_MICROBLOG:  # OAuth, and an app password as the fallback
        assert "**App password**" in needs


@pytest.mark.parametrize("platform", list(Platform), ids=lambda p: p.value)
def test_every_scope_asked_at_consent_is_a_row_of_its_network_page(platform: Platform) -> None:
    scopes = _section(_page(platform), "Scopes")
    rows = re.findall(r"^\| `([^`]+)` \|", scopes, re.MULTILINE)
    assert rows == [scope.rsplit("/", 1)[-1] for scope in grants.CONSENT[platform]]


@pytest.mark.parametrize("platform", list(Platform), ids=lambda p: p.value)
def test_the_sandbox_section_gives_the_networks_own_refusal(platform: Platform) -> None:
    models = _section(_page(platform), "What the sandbox models")
    answer = sandbox_network.SCOPE_REFUSALS[platform]
    assert f"]({answer.source})" in models
    assert f"`{answer.status}`" in models
    if platform is Platform.SHORT_VIDEO:
        assert "unaudited_client_can_only_post_to_private_accounts" in models
        assert "naming `privacyLevel`" in models


def test_a_scope_asked_for_no_reason_stops_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = (*grants.CONSENT[Platform.MICROBLOG], "dm.write")
    monkeypatch.setitem(grants.CONSENT, Platform.MICROBLOG, asked)
    with pytest.raises(LookupError, match=r"dm\.write"):
        networks_page.scopes_lines(Platform.MICROBLOG)


def test_the_sandbox_overview_links_to_each_networks_section() -> None:
    text = (ROOT / DOCS / "networks" / "sandbox.md").read_text(encoding="utf-8")
    for network in NETWORKS.values():
        assert f"({network_page(network).split('/')[1]}#what-the-sandbox-models)" in text
