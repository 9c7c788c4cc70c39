"""``pressroom admin`` as a user runs it, on the same database as the service.

A command run as a separate process costs an interpreter and pressroom's imports (seconds
of CPU each); ``admin(..., process=True)`` does that where the process is the point (the
entry point, settings read from the environment, what reaches stdout). The other commands
run the same CLI application in this process (``tests.support.cli``), with the same
environment, which is what they check: the command's output, its exit status and the rows
it leaves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from pressroom.plans import Plan
from tests.conftest import Service
from tests.support.cli import run_in_process


def admin(service: Service, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    env = {
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
    }
    if process:
        return subprocess.run(
            [sys.executable, "-m", "pressroom.cli.main", "admin", *args],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
    return run_in_process(["admin", *args], {**os.environ, **env})


def admin_json(service: Service, *args: str, process: bool = False) -> Any:
    done = admin(service, *args, "--json", process=process)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_admin_creates_accounts_and_connections_the_api_then_lists(service: Service) -> None:
    created = admin_json(
        service, "create-account", "--email", "ed@example.com", "--plan", "agency", process=True
    )
    assert created["email"] == "ed@example.com" and created["plan"] == "agency"
    assert created["apiKey"].startswith("prk_live_") and created["accountId"]
    headers = {"X-API-Key": created["apiKey"]}

    photo = admin_json(
        service,
        "connect",
        "--account",
        "ed@example.com",
        "--platform",
        "photo_sharing",
        "--name",
        "ed.pics",
        "--account-type",
        "creator",
    )
    assert photo["platform"] == "photo_sharing" and photo["status"] == "active"
    listed = service.client.get("/api/connections/unified", headers=headers).json()
    assert {c["platform"] for c in listed} == {"photo_sharing", "text_thread"}

    expired = admin_json(service, "expire-token", "--connection", photo["id"])
    assert expired["status"] == "inactive"
    listed = service.client.get("/api/connections/unified", headers=headers).json()
    assert {c["status"] for c in listed} == {"inactive"}
    assert admin_json(service, "reconnect", "--connection", photo["id"])["status"] == "active"
    admin_json(service, "disconnect", "--connection", photo["id"])
    listed = service.client.get("/api/connections/unified", headers=headers).json()
    assert [(c["platform"], c["status"]) for c in listed] == [("text_thread", "inactive")]


def test_admin_refuses_past_the_profile_cap_with_exit_1(service: Service) -> None:
    # The profiles up to the cap are made in this process, on the same database: a
    # connect that works through the command is the test above's; one process each
    # was 16 interpreter start-ups a database for the one refusal shown here.
    account = service.account(Plan.BUSINESS, email="cap@example.com")
    for i in range(15):
        account.connect("pin_board", f"board{i}")
    done = admin(
        service,
        "connect",
        "--account",
        "cap@example.com",
        "--platform",
        "pin_board",
        "--name",
        "board15",
    )
    assert done.returncode == 1
    assert "allows 15 pin_board profiles" in done.stderr


def test_admin_errors_are_clear(service: Service) -> None:
    done = admin(
        service,
        "connect",
        "--account",
        "nobody@example.com",
        "--platform",
        "microblog",
        "--name",
        "@x",
    )
    assert done.returncode == 1 and "no account with email" in done.stderr
    done = admin(service, "disconnect", "--connection", "conn_missing")
    assert done.returncode == 1 and "no connection 'conn_missing'" in done.stderr
