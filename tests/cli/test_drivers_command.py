"""``pressroom drivers`` says which driver serves each label and what would change it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pressroom.cli.main import app
from pressroom.settings import get_settings

runner = CliRunner()


def rows(output: str) -> dict[str, str]:
    """Each label's table row, keyed by the label."""
    found = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("│┃ ").split("│")]
        if len(cells) == 4 and cells[0] and cells[0] != "label":
            found[cells[0]] = " | ".join(cells[1:])
    return found


def test_every_label_is_sandbox_without_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MICROBLOG", "PIN_BOARD"):
        monkeypatch.delenv(f"PRESSROOM_{name}_CLIENT_ID", raising=False)
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert len(table) == 8
    assert all(row.startswith("sandbox") for row in table.values())
    assert "PRESSROOM_MICROBLOG_CLIENT_ID" in table["microblog"]
    assert "/oauth/callback/<label>" in done.output


def test_a_configured_label_names_its_network_and_the_others_stay_sandbox() -> None:
    env = {
        "COLUMNS": "200",
        "PRESSROOM_MICROBLOG_CLIENT_ID": "id",
        "PRESSROOM_MICROBLOG_CLIENT_SECRET": "secret",
        "PRESSROOM_PIN_BOARD_CLIENT_ID": "id",  # no secret: not configured
    }
    get_settings.cache_clear()
    done = runner.invoke(app, ["drivers"], env=env)
    get_settings.cache_clear()
    assert done.exit_code == 0, done.output
    table = rows(done.output)
    assert table["microblog"].startswith("X (API v2) | set")
    assert table["pin_board"].startswith("sandbox | -")
    assert "PRESSROOM_PIN_BOARD_CLIENT_ID and _CLIENT_SECRET" in table["pin_board"]
    assert (
        table["text_thread"]
        == "sandbox | - | set PRESSROOM_TEXT_THREAD_CLIENT_ID and _CLIENT_SECRET to publish to Threads (Threads API)"
    )
