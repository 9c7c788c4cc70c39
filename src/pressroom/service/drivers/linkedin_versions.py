"""Whether LinkedIn still serves the ``LinkedIn-Version`` pressroom is set to send.

LinkedIn releases a version of its Marketing APIs (the Posts API among them) every month,
named by its month (``YYYYMM``), and "these API versions are supported and stable for a
minimum of one year before sunset"
(https://learn.microsoft.com/en-us/linkedin/marketing/versioning). Each sunset date is
listed at https://learn.microsoft.com/en-us/linkedin/marketing/integrations/migrations
(202511 went on 2026-11-16, 202510 on 2026-10-15). A request with a version past its
sunset is answered 426 ``NONEXISTENT_VERSION`` and nothing is posted; LinkedIn sends no
``Sunset`` header ahead of it, so the only warning is the version's own age.

So pressroom counts a version's age in whole months from its ``YYYYMM``: from
``WARN_MONTHS`` it warns (at start-up, in ``pressroom drivers`` and ``drivers check``),
and from ``SERVED_MONTHS``, when LinkedIn no longer promises to serve it, it refuses to
send and says how to set a newer one. A version from a month still to come is refused
too: LinkedIn has not released it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum

VERSIONING_URL = "https://learn.microsoft.com/en-us/linkedin/marketing/versioning"
MIGRATIONS_URL = "https://learn.microsoft.com/en-us/linkedin/marketing/integrations/migrations"
SETTING = "PRESSROOM_PROFESSIONAL_NETWORK_API_VERSION"
"""Where an operator sets the version (``settings.NetworkSettings``)."""
SERVED_MONTHS = 12
"""LinkedIn's promise: every version is served at least this many months."""
WARN_MONTHS = SERVED_MONTHS - 1
"""A month's notice before the promise runs out."""


class Standing(StrEnum):
    SERVED = "served"
    AGEING = "ageing"
    """Still served, but LinkedIn's promise runs out within a month."""
    UNSERVED = "unserved"
    """Past LinkedIn's promise, or not released yet: nothing is sent with it."""


@dataclass(frozen=True)
class VersionCheck:
    version: str
    age_months: int
    standing: Standing

    @property
    def message(self) -> str:
        """What an operator reads: the version's state and, when it matters, what to do."""
        if self.standing is Standing.SERVED:
            return f"LinkedIn-Version {self.version} is {self.age_months} months old; served"
        fix = (
            f"set {SETTING} to a newer YYYYMM (the latest is listed at {VERSIONING_URL}, "
            f"sunsets at {MIGRATIONS_URL})"
        )
        if self.age_months < 0:
            return f"LinkedIn-Version {self.version} is a month LinkedIn has not released: {fix}"
        if self.standing is Standing.AGEING:
            return (
                f"LinkedIn-Version {self.version} is {self.age_months} months old and LinkedIn "
                f"promises each version {SERVED_MONTHS} months: {fix} before it is sunset"
            )
        return (
            f"LinkedIn-Version {self.version} is {self.age_months} months old, past the "
            f"{SERVED_MONTHS} months LinkedIn serves a version, so nothing is sent with it: {fix}"
        )


def month_of(version: str) -> date:
    """The first day of a ``YYYYMM`` version's month; ValueError when it is not one."""
    if len(version) != 6 or not version.isdigit():
        raise ValueError(f"LinkedIn-Version {version!r} is not YYYYMM")
    return date(int(version[:4]), int(version[4:]), 1)


def check(version: str, today: date) -> VersionCheck:
    """How ``version`` stands on ``today`` under LinkedIn's one-year policy."""
    released = month_of(version)
    age = (today.year - released.year) * 12 + (today.month - released.month)
    if age < 0 or age >= SERVED_MONTHS:
        standing = Standing.UNSERVED
    elif age >= WARN_MONTHS:
        standing = Standing.AGEING
    else:
        standing = Standing.SERVED
    return VersionCheck(version, age, standing)
