"""Schedules: what we accept, the scheduler (Prefect) accepts too."""

from __future__ import annotations

import pytest

from pressroom.campaign.timing import cron_problem, timezone_problem

EXPRESSIONS = [
    "0 9 * * 1-5",
    "*/15 * * * *",
    "0 9 * * MON-FRI",
    "0 0 1,15 * *",
    "0 0 L * *",
    "0 0 * * 5#2",
    "0 0 * * 7",
    "@daily",
    "@hourly",
    "@weekly",
    "@monthly",
    "@yearly",
    "@annually",
    "@midnight",
    "0 0 * * 5L",
    "0 0 LW * *",
    "0 0 15W * *",
    "0 0 31 2 *",
    "0 0 * * * 30",
    "0 0 * *",
    "61 * * * *",
    "0 24 * * *",
    "H 0 * * *",
    "@reboot",
    "",
]


def test_every_expression_we_accept_prefect_accepts() -> None:
    from prefect._internal.schemas.validators import validate_cron_string

    accepted = [e for e in EXPRESSIONS if cron_problem(e) is None]
    assert "0 9 * * 1-5" in accepted and "@daily" in accepted
    for expression in accepted:
        validate_cron_string(expression)  # raises if Prefect refuses it
    # And the forms cronsim reads but Prefect refuses are refused here, with the reason.
    assert cron_problem("0 0 * * 5L") == (
        "'L' in day of week and 'LW' are not supported by the scheduler"
    )


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("0 0 31 2 *", "this schedule never fires: February never has a day 31"),
        ("0 24 * * *", "hour must be 0–23 in a cron expression; got 24"),
        (
            "@reboot",
            "a cron expression has 5 fields (minute, hour, day of month, month, day of week), "
            "this one has 1; e.g. '0 9 * * 1' is Mondays at 09:00",
        ),
    ],
)
def test_refusals_say_why(expression: str, problem: str) -> None:
    assert cron_problem(expression) == problem


def test_timezones_are_the_ones_prefect_knows() -> None:
    from prefect._internal.schemas.validators import get_timezones

    known = set(get_timezones())
    for name in ("Europe/Berlin", "UTC", "America/New_York", "Etc/GMT+2"):
        assert name in known and timezone_problem(name) is None
    for name in ("posixrules", "utc", "Mars/Olympus"):
        assert name not in known and timezone_problem(name) is not None
    assert timezone_problem("europe/berlin") == (
        "unknown timezone 'europe/berlin'; did you mean 'Europe/Berlin'?"
    )
    assert timezone_problem("Mars/Olympus") == (
        "unknown timezone 'Mars/Olympus'; use a name like 'Europe/Berlin' or 'UTC'"
    )
