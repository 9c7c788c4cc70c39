"""``.ci/run`` stops every server it starts, whether the tests pass or fail."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def postgres_processes(cluster: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cluster in text:
            found.append(text)
    return found


@pytest.mark.postgres
@pytest.mark.parametrize("outcome", [0, 1])
def test_ci_run_stops_its_postgres_cluster_when_the_tests_end(tmp_path: Path, outcome: int) -> None:
    if not list(Path("/usr/lib/postgresql").glob("*/bin/initdb")):
        pytest.skip("PostgreSQL's server binaries are not installed (scripts/postgres does it)")
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    (checkout / "scripts").mkdir()
    shutil.copy(ROOT / ".ci" / "run", checkout / ".ci" / "run")
    shutil.copy(ROOT / "scripts" / "postgres", checkout / "scripts" / "postgres")
    # The documentation's build passes; the suite stands in as a script that reports the
    # cluster and passes or fails.
    (checkout / "scripts" / "docs").write_text("exit 0\n")
    (checkout / "scripts" / "test").write_text(
        f'echo "cluster=$PRESSROOM_TEST_POSTGRES_DIR"\nexit {outcome}\n'
    )
    run = subprocess.run(
        ["bash", ".ci/run"], cwd=checkout, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == outcome, run.stderr
    cluster = run.stdout.split("cluster=", 1)[1].split()[0]
    assert cluster.startswith("/tmp/pressroom-pg.")
    assert not Path(cluster).exists()
    assert postgres_processes(cluster) == []
