"""The Campaigns page's calendar: a week or a month of a campaign's runs, laid out in
the campaign's own time zone (a 09:00 Europe/Paris run stays 09:00 across a
daylight-saving change, its UTC hour moving instead)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pressroom.service.web.prefect_api import Run

VIEWS = ("week", "month")


@dataclass(frozen=True)
class Entry:
    run: Run
    local: datetime
    """When the run is expected, in the campaign's time zone."""


@dataclass
class Day:
    day: date
    entries: list[Entry] = field(default_factory=list)


def zone(name: str) -> ZoneInfo:
    """The campaign's zone; UTC for a name this machine does not know."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def span(view: str, today: date) -> tuple[date, date]:
    """The first and the day after the last day shown: the week from ``today``'s Monday,
    or ``today``'s month, in whole weeks."""
    if view == "month":
        first = today.replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        start = first - timedelta(days=first.weekday())
        end = following + timedelta(days=(7 - following.weekday()) % 7)
        return start, end
    start = today - timedelta(days=today.weekday())
    return start, start + timedelta(days=7)


def bounds(view: str, today: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """The span as instants, for asking Prefect for the runs in it."""
    start, end = span(view, today)
    return datetime.combine(start, time(), tz), datetime.combine(end, time(), tz)


def weeks(view: str, today: date, tz: ZoneInfo, runs: list[Run]) -> list[list[Day]]:
    """The span's days, Monday first, each with its runs in the zone's local time."""
    start, end = span(view, today)
    days = {
        start + timedelta(days=n): Day(start + timedelta(days=n)) for n in range((end - start).days)
    }
    for run in runs:
        if run.expected_start is None:
            continue
        local = run.expected_start.astimezone(tz)
        if local.date() in days:
            days[local.date()].entries.append(Entry(run, local))
    ordered = list(days.values())
    return [ordered[i : i + 7] for i in range(0, len(ordered), 7)]
