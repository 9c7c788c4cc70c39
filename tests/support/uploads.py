"""Uploading through the API in any domain's tests: a ready (or failed) file in one call."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from pressroom.probe import content_type_for

SETTLED = ("ready", "failed")


def upload_file(
    client: TestClient,
    headers: dict[str, str],
    source: Path,
    *,
    filename: str | None = None,
    content_type: str | None = None,
    until: tuple[str, ...] = SETTLED,
) -> dict[str, Any]:
    """Upload ``source`` through the API of an app on the local backend (e.g. the
    ``service`` fixture's) and poll until it is settled; returns the last status body.

    For other domains' tests that need a ready (or failed) file.
    """
    name = filename or source.name
    content_type = content_type or content_type_for(name)
    issued = client.post(
        "/api/upload/presigned-url",
        json={"filename": name, "contentType": content_type},
        headers=headers,
    )
    assert issued.status_code == 200, issued.text
    put = client.put(
        issued.json()["uploadUrl"],
        content=source.read_bytes(),
        headers={"Content-Type": content_type or ""},
    )
    assert put.status_code == 200, put.text
    file_id = issued.json()["fileId"]
    deadline = time.monotonic() + 30
    while True:
        status = client.get(f"/api/upload/status/{file_id}", headers=headers).json()
        if status["status"] in until or time.monotonic() > deadline:
            result: dict[str, Any] = status
            return result
        time.sleep(0.05)
