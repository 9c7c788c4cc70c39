"""Every suite that needs a server carries its marker, so ``-m "not s3"`` and the like
deselect exactly those; an unknown marker is an error (``--strict-markers``)."""

from __future__ import annotations

import os
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


SERVER_MARKERS = ("s3", "prefect", "postgres", "browser", "atproto")

# Loaded into the collecting pytest with -p: prints each collected test with its markers.
MARKER_DUMP = """
def pytest_collection_finish(session):
    for item in session.items:
        print("MARKED", item.nodeid, ",".join(m.name for m in item.iter_markers()), sep="\\t")
"""


def collected(*args: str, plugin_dir: Path | None = None) -> dict[str, set[str]]:
    """The tests a collection with ``args`` selects, each with its markers (read only when
    ``plugin_dir`` holds the dump plugin)."""
    plugin = ["-p", "marker_dump"] if plugin_dir else []
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(plugin_dir or ""), os.environ.get("PYTHONPATH", "")])
        ),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            *plugin,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: all deselected
    if plugin_dir:
        marked = [
            line.split("\t") for line in done.stdout.splitlines() if line.startswith("MARKED\t")
        ]
        return {nodeid: set(filter(None, names.split(","))) for _, nodeid, names in marked}
    return {line: set() for line in done.stdout.splitlines() if "::" in line}


def test_server_suites_are_marked_and_deselectable(tmp_path: Path) -> None:
    """One collection reads every test's markers; one more shows ``-m`` deselects by them
    (each collection imports the whole suite, so there are two, not one per marker)."""
    (tmp_path / "marker_dump.py").write_text(MARKER_DUMP)
    everything = collected(*SAMPLE, plugin_dir=tmp_path)
    by_marker = {m: {t for t, marks in everything.items() if m in marks} for m in SERVER_MARKERS}
    s3, prefect, postgres, atproto = (
        by_marker[m] for m in ("s3", "prefect", "postgres", "atproto")
    )
    on_s3 = {t for t in everything if "[s3-" in t or "-s3]" in t}
    assert s3 and s3 == on_s3
    assert prefect == {
        t for t in everything if t.startswith(("tests/pipeline/", "tests/cli/test_demo.py"))
    }
    assert postgres and all("postgres" in t for t in postgres)
    assert atproto and atproto == {
        t for t in everything if t.startswith("tests/drivers/test_atproto_network.py")
    }
    plain = set(collected("-m", " and ".join(f"not {m}" for m in SERVER_MARKERS), *SAMPLE))
    assert plain == set(everything) - s3 - prefect - postgres - atproto - by_marker["browser"]
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
