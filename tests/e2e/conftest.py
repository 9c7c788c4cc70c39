"""Browser tests: Debian's Chromium driven by Playwright against one live server.

One browser and one server per session; each test gets a fresh browser context (its
own cookies). Chromium comes from the system (``apt-get install chromium``), since
Playwright cannot download its own builds here. Without it the tests skip and say how
to install it, except under ``CI=true`` (``.ci/run`` installs it), where they fail.
Set ``PRESSROOM_SCREENSHOTS=docs/screenshots`` to refresh the documentation's screenshots
(``bash scripts/docs generate`` does).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from sqlalchemy.orm import Session, sessionmaker

from pressroom.docs import screenshots
from pressroom.service.app import create_app
from pressroom.service.db.migrate import upgrade
from pressroom.service.http_protocol import PROTOCOL
from pressroom.settings import DatabaseSettings, SandboxSettings, Settings, StorageSettings
from tests.client.live import free_port

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = os.environ.get("PRESSROOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = os.environ.get("PRESSROOM_SCREENSHOTS")


def _require_chromium() -> str:
    if Path(CHROMIUM).exists():
        return CHROMIUM
    if IN_CI:
        pytest.fail(f"Chromium not found at {CHROMIUM}: CI must run the browser tests")
    pytest.skip(
        "browser tests need Chromium: `sudo apt-get install -y chromium` "
        "(or set PRESSROOM_CHROMIUM to its path)"
    )


@dataclass
class LiveServer:
    address: str
    settings: Settings
    sessions: sessionmaker[Session]
    app: FastAPI
    """The served app itself, for a test to reach its platform drivers."""


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("browser-data")
    port = free_port()
    address = f"http://127.0.0.1:{port}"
    database = f"sqlite:///{data / 'pressroom.db'}"
    upgrade(database)
    settings = Settings(
        data_dir=data,
        base_url=address,
        secret_key="browser-test-secret",
        db=DatabaseSettings(database_url=database),
        store=StorageSettings(),
        sandbox=SandboxSettings(),
        webhook_development=True,  # the tests' webhook receiver listens on loopback http
    )
    app = create_app(settings)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", http=PROTOCOL)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        threading.Event().wait(0.02)
    assert server.started, "the service did not start"
    yield LiveServer(address, settings, app.state.session_factory, app)
    server.should_exit = True
    thread.join(timeout=10)
    app.state.engine.dispose()


@pytest.fixture(scope="package")
def chromium() -> Iterator[Any]:
    """One browser for the browser tests, gone before any other test runs: Playwright's
    sync API keeps an event loop running in the main thread while it lives, and Prefect
    then runs flows as if called from async code (the pipeline tests saw no results)."""
    executable = _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any, live_server: LiveServer) -> Iterator[Any]:
    context = chromium.new_context(base_url=live_server.address)
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def axe() -> Any:
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def check_page(page: Any, axe: Any, name: str | None = None) -> None:
    """No serious or critical accessibility violation on this page; a screenshot too."""
    results = axe.run(page)
    bad = [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{page.url}: {bad}"
    if SCREENSHOTS and name in screenshots.SHOTS:  # only the pictures the docs show
        directory = Path(SCREENSHOTS)
        directory.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(directory / f"{name}.png"), full_page=True)
        screenshots.record(name, directory, ROOT)
