"""The post's page lists its files in order, each with the alt text sent with it."""

from __future__ import annotations

import re
from pathlib import Path

from pressroom.platforms import RULES, Platform
from tests.service.web.conftest import Browser, connect
from tests.service.web.test_posts_pages import signed_up
from tests.support.media import make_image
from tests.support.uploads import upload_file


def test_a_posts_page_shows_each_files_alt_text(browser: Browser, tmp_path: Path) -> None:
    headers, _ = signed_up(browser)
    files = [
        upload_file(browser.client, headers, make_image(tmp_path / f"{n}.png"))["fileId"]
        for n in (1, 2)
    ]
    connect(browser, "professional_network", "Acme Inc.")
    unified = browser.client.get("/api/connections/unified", headers=headers).json()
    network = next(c["id"] for c in unified if c["platform"] == "professional_network")
    sent = browser.client.post(
        RULES[Platform.PROFESSIONAL_NETWORK].publish_path,
        headers=headers,
        json={
            "connectionId": network,
            "text": "our new office",
            "fileIds": files,
            "fileAlts": {files[1]: "The team <at lunch>"},
        },
    )
    assert sent.status_code == 200, sent.text
    page = browser.client.get(f"/posts/{sent.json()['recordId']}").text
    rows = re.findall(
        r'<tr data-file="([^"]+)">\s*<td>([^<]+)</td>\s*<td><code>[^<]+</code></td>\s*'
        r"<td>([^<]*)</td>",
        page,
    )
    assert rows == [
        (files[0], "item 1", "none"),
        (files[1], "item 2", "The team &lt;at lunch&gt;"),
    ]
