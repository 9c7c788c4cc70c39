"""A page fetched with GET that writes waits its turn for SQLite's write lock.

The API Keys page clears the key it shows once. Begun as a read, its transaction took
a snapshot; when another process committed before the page wrote, SQLite refused the
write at once (SQLITE_BUSY_SNAPSHOT) and the page answered 503 with the key lost from
view. The page now begins as a writer and simply waits for the lock.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time

import pytest

from pressroom.settings import Settings
from tests.service.web.conftest import Browser


def test_the_api_keys_page_waits_for_a_writer_that_commits_meanwhile(
    browser: Browser, settings: Settings
) -> None:
    if not settings.database_url.startswith("sqlite"):
        pytest.skip("PostgreSQL reads committed rows: a read that turns into a write waits")
    browser.sign_up()  # the new key waits on the session, to be shown once
    other = sqlite3.connect(settings.database_url.removeprefix("sqlite:///"), timeout=10)
    other.isolation_level = None
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock ...
    other.execute("UPDATE web_sessions SET created_at = created_at")
    answers: list[object] = []
    page = threading.Thread(target=lambda: answers.append(browser.client.get("/settings/api-keys")))
    page.start()
    time.sleep(1.0)  # ... while the page reads, and commits before the page writes
    other.execute("COMMIT")
    other.close()
    page.join(timeout=30)

    (answer,) = answers
    assert answer.status_code == 200, answer.text  # type: ignore[attr-defined]
    shown = re.search(r'id="new-key"[^>]*value="([^"]+)"', answer.text)  # type: ignore[attr-defined]
    assert shown, "the key waiting to be shown was not shown"
    again = browser.client.get("/settings/api-keys").text
    assert 'id="new-key"' not in again  # shown once, then cleared
