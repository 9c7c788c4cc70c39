"""Cron expressions and timezones, checked the way the scheduler will read them.

Prefect validates cron with a vendored croniter, and importing it would load Prefect,
far too slow for a pre-commit hook. We check with ``cronsim`` (small, already installed
with Prefect) and accept only what both understand: five fields or a nickname, without
the ``L`` weekday forms croniter refuses. ``cronsim`` also rejects expressions that can
never fire (``0 0 31 2 *``), which is what an editor wants to hear. A test compares the
verdicts with Prefect's own validator.
"""

from __future__ import annotations

import difflib
import re
from datetime import datetime
from functools import lru_cache

NICKNAMES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_FIELDS = ("minute", "hour", "day of month", "month", "day of week")
_RANGES = {
    "minute": (0, 59),
    "hour": (0, 23),
    "day of month": (1, 31),
    "month": (1, 12),
    "day of week": (0, 7),
}
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
)  # fmt: skip
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_WEEKDAY_LAST = re.compile(r"L", re.IGNORECASE)


def cron_problem(expression: str) -> str | None:
    """Why the expression is not a schedule we can run, or None when it is fine."""
    from cronsim import CronSim, CronSimError

    text = NICKNAMES.get(expression.strip().lower(), expression.strip())
    parts = text.split()
    if len(parts) != len(_FIELDS):
        return (
            f"a cron expression has 5 fields ({', '.join(_FIELDS)}), this one has "
            f"{len(parts)}; e.g. '0 9 * * 1' is Mondays at 09:00"
        )
    if _WEEKDAY_LAST.search(parts[4]) or parts[2].upper() == "LW":
        return "'L' in day of week and 'LW' are not supported by the scheduler"
    try:
        CronSim(text, datetime(2000, 1, 1))
    except CronSimError as exc:
        return _explain(parts, str(exc))
    return None


def _explain(parts: list[str], detail: str) -> str:
    """Name the field, its allowed range, or why the schedule can never fire."""
    for name, field in zip(_FIELDS, parts, strict=True):
        low, high = _RANGES[name]
        for number in _numbers(field):
            if not low <= number <= high:
                return f"{name} must be {low}–{high} in a cron expression; got {number}"
    if "day-of-month" in detail:
        days, months = _numbers(parts[2]), _numbers(parts[3])
        if days and months and all(1 <= m <= 12 for m in months):
            named = " or ".join(_MONTHS[m - 1] for m in sorted(set(months)))
            return (
                f"this schedule never fires: {named} never "
                f"{'has' if len(set(months)) == 1 else 'have'} a day {min(days)}"
            )
    for name in _FIELDS:
        if name.replace(" ", "-") in detail.lower():
            low, high = _RANGES[name]
            return f"invalid {name} in the cron expression (allowed: {low}–{high}, ranges a-b, steps */n, lists a,b)"
    detail = detail.rstrip(".")
    return f"invalid cron expression: {detail[0].lower()}{detail[1:]}"


def _numbers(field: str) -> list[int]:
    """The plain numbers a cron field names (ranges' ends, not steps); names are skipped."""
    found = []
    for item in field.split(","):
        for end in item.split("/", 1)[0].split("-"):
            if end.isdigit():
                found.append(int(end))
    return found


def timezone_problem(name: str) -> str | None:
    """Why the name is not an IANA timezone, with the closest real one if any."""
    names = _timezones()
    if name in names:
        return None
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    close = close or [zone for zone in names if zone.lower() == name.lower()]
    hint = f"did you mean '{close[0]}'?" if close else "use a name like 'Europe/Berlin' or 'UTC'"
    return f"unknown timezone '{name}'; {hint}"


@lru_cache(maxsize=1)
def _timezones() -> frozenset[str]:
    # The list Prefect checks against; ZoneInfo alone also loads stray files (posixrules).
    from zoneinfo import available_timezones

    return frozenset(available_timezones())


def next_runs(cron: str, timezone: str, after: datetime, count: int) -> list[datetime]:
    """The next ``count`` times the schedule fires after ``after``, in its timezone.

    Read as the scheduler reads it: the cron's fields are wall-clock times of the
    campaign's zone (09:00 in Berlin stays 09:00 across a change of clocks); ``after``
    may be in any zone. An expression or zone ``cron_problem`` / ``timezone_problem``
    refuses gives no runs rather than an error: the validator reports those.
    """
    from zoneinfo import ZoneInfo

    from cronsim import CronSim

    if cron_problem(cron) is not None or timezone_problem(timezone) is not None:
        return []
    zone = ZoneInfo(timezone)
    start = after.astimezone(zone) if after.tzinfo else after.replace(tzinfo=zone)
    expression = NICKNAMES.get(cron.strip().lower(), cron.strip())
    runs = CronSim(expression, start.replace(second=0, microsecond=0))
    return [next(runs) for _ in range(count)]
