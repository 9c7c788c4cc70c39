"""Probing in worker processes: a hung or crashing decoder costs one file, not the service."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

from pressroom.probe import ProbeError
from pressroom.service.media import processing
from pressroom.service.media.probing import probe_isolated
from tests.support.stalls import crash, hang

if TYPE_CHECKING:
    from tests.support.library import Library

pytest_plugins = ("tests.support.library",)


@pytest.fixture
def image(tmp_path: Path) -> Path:
    path = tmp_path / "pic.png"
    Image.new("RGB", (32, 16), "red").save(path)
    return path


def test_a_probe_past_its_timeout_is_stopped_and_the_pool_goes_on(image: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ProbeError, match=r"did not finish reading the file within 1 s"):
        probe_isolated(image, "image/png", workers=1, timeout=1, run=hang)
    assert time.monotonic() - started < 30
    # The hung worker was killed; the next file is probed as usual.
    info = probe_isolated(image, "image/png", workers=1, timeout=30)
    assert (info.width, info.height) == (32, 16)


def test_a_decoder_crash_fails_its_file_only(image: Path) -> None:
    with pytest.raises(ProbeError, match="crashed"):
        probe_isolated(image, "image/png", workers=1, timeout=30, run=crash)
    info = probe_isolated(image, "image/png", workers=1, timeout=30)
    assert info.width == 32


@pytest.mark.parametrize("backend", ["local"], indirect=True)
def test_a_file_whose_decoder_hangs_fails_with_a_reason(
    library: Library, image: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stalling(path: Path, content_type: str, **options: Any) -> Any:
        return probe_isolated(path, content_type, **{**options, "timeout": 1, "run": hang})

    monkeypatch.setattr(processing, "probe_isolated", stalling)
    account = library.account()
    file_id = library.upload(
        account, image.read_bytes(), content_type="image/png", filename="a.png"
    )
    status = library.wait(account, file_id)
    assert status["status"] == "failed"
    assert "did not finish reading the file within 1 s" in status["failureReason"]
