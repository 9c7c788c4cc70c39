"""``/docs`` and ``/redoc`` work with no way out to the internet: every asset is ours."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from tests.conftest import Service

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

ASSET_TYPES = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
REFERENCE = re.compile(r"""(?:src|href|spec-url)=["']([^"']+)["']|url:\s*'([^']+)'""")


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_load_only_what_the_service_serves(service: Service, page: str) -> None:
    response = service.client.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    referenced = {a or b for a, b in REFERENCE.findall(html)}
    assert referenced, html
    for target in referenced:
        parts = urlsplit(target)
        assert not parts.scheme and not parts.netloc and target.startswith("/"), target
    assert "http://" not in html and "https://" not in html and "fonts.googleapis" not in html
    assets = sorted(t for t in referenced if t.startswith("/static/"))
    assert assets, referenced
    for asset in assets:
        served = service.client.get(asset)
        assert served.status_code == 200, asset
        suffix = asset[asset.rindex(".") :]
        assert served.headers["content-type"].startswith(ASSET_TYPES[suffix]), asset
        assert served.headers["x-content-type-options"] == "nosniff"
        assert len(served.content) > 500, asset
    assert service.client.get("/openapi.json").status_code == 200


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_pages_carry_the_dashboards_headers(service: Service, page: str) -> None:
    headers = service.client.get(page).headers
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    policy = {}
    for directive in headers["content-security-policy"].split(";"):
        name, _, sources = directive.strip().partition(" ")
        policy[name] = sources
    assert policy["frame-ancestors"] == "'none'"
    assert policy["default-src"] == "'self'"
    for directive, sources in policy.items():
        for source in sources.split():
            # nothing from another origin: keywords, hashes, data: and blob: only
            assert source.startswith(("'", "data:", "blob:")), (directive, source)
    assert "'unsafe-inline'" not in policy["script-src"]
    assert "'unsafe-eval'" not in policy["script-src"]
