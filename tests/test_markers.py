"""Every suite that needs a server carries its marker, so ``-m "not s3"`` and the like
deselect exactly those; an unknown marker is an error (``--strict-markers``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = [
    "tests/service/test_media_library.py",
    "tests/pipeline/test_outcomes.py",
    "tests/cli/test_demo.py",
    "tests/cli/test_habits.py",
    "tests/drivers/test_atproto_network.py",
]


def collected(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: all deselected
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_server_suites_are_marked_and_deselectable() -> None:
    everything = collected(*SAMPLE)
    s3 = collected("-m", "s3", *SAMPLE)
    prefect = collected("-m", "prefect", *SAMPLE)
    postgres = collected("-m", "postgres", *SAMPLE)
    atproto = collected("-m", "atproto", *SAMPLE)
    on_s3 = {t for t in everything if "[s3-" in t or "-s3]" in t}
    assert s3 and s3 == on_s3
    assert prefect == {
        t for t in everything if t.startswith(("tests/pipeline/", "tests/cli/test_demo.py"))
    }
    assert postgres and all("postgres" in t for t in postgres)
    assert atproto and atproto == {
        t for t in everything if t.startswith("tests/drivers/test_atproto_network.py")
    }
    plain = collected(
        "-m", "not s3 and not prefect and not postgres and not browser and not atproto", *SAMPLE
    )
    assert plain == everything - s3 - prefect - postgres - atproto
    assert any(t.startswith("tests/cli/test_habits.py") for t in plain)


def test_an_unknown_marker_is_an_error(tmp_path: Path) -> None:
    test = tmp_path / "test_typo.py"
    test.write_text("import pytest\n\n@pytest.mark.postgress\ndef test_x():\n    pass\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pyproject.toml"),
            str(test),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode != 0 and "'postgress' not found in `markers`" in done.stdout
