"""What a network says about a connection, read without posting: ``drivers check``'s report.

A driver's ``inspect`` makes read-only calls only (a profile, a token's introspection
where the network offers one, a quota) and answers an ``Inspection``: which of the
scopes asked for at consent the network granted, the account's type, its audit or
verification status where the network says, the publishing quota left where its API
tells, and for each a line saying what it means for publishing. What a network does not
say is reported as such (``ScopeState.UNKNOWN``, ``Standing.UNKNOWN``), never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class ScopeState(StrEnum):
    GRANTED = "granted"
    MISSING = "missing"
    UNKNOWN = "unknown"
    """The network says which scopes it granted only when it issues the token, and no
    read call shows this one."""


class Standing(StrEnum):
    """What a finding means for publishing."""

    OK = "ok"
    WARNING = "warning"
    """Publishing works, within a limit or with a caveat the line names."""
    BLOCKED = "blocked"
    """Publishing is refused until what the line names changes."""
    UNKNOWN = "unknown"
    """The network does not say; the line says what it would mean."""


@dataclass(frozen=True)
class Finding:
    topic: str
    """``scopes``, ``account type``, ``audit``, ``verification``, ``quota``, ..."""
    says: str
    """What the network says (or that it says nothing)."""
    meaning: str
    """What that means for publishing, and what to do when it stops it."""
    standing: Standing


@dataclass(frozen=True)
class QuotaLeft:
    """A publishing quota as the network reports it."""

    used: int
    total: int
    window_seconds: int | None = None

    @property
    def left(self) -> int:
        return max(0, self.total - self.used)


@dataclass(frozen=True)
class Inspection:
    network: str
    account: str
    """The account as the network names it."""
    scopes: Mapping[str, ScopeState]
    """Each scope asked for at consent, in the driver's order."""
    scopes_source: str
    """How the network told them: introspection, a token debugger, read calls."""
    account_type: str | None = None
    audit: str | None = None
    """The app's audit or the account's verification, in the network's words, or why
    it cannot be read."""
    quota: QuotaLeft | None = None
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def can_publish(self) -> bool | None:
        """False when a finding blocks publishing; None when nothing blocks it but the
        network leaves something that could unsaid; True otherwise."""
        standings = {f.standing for f in self.findings}
        if Standing.BLOCKED in standings:
            return False
        return None if Standing.UNKNOWN in standings else True

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(s for s, state in self.scopes.items() if state is ScopeState.MISSING)


def scope_states(
    asked: Iterable[str], *, granted: Iterable[str] = (), missing: Iterable[str] = ()
) -> dict[str, ScopeState]:
    """Each scope asked for: granted, missing, or unknown when neither is shown."""
    have, lack = set(granted), set(missing)
    return {
        scope: ScopeState.GRANTED
        if scope in have
        else ScopeState.MISSING
        if scope in lack
        else ScopeState.UNKNOWN
        for scope in asked
    }


def scope_finding(
    scopes: Mapping[str, ScopeState], publishing: Iterable[str], source: str
) -> Finding:
    """The scopes line: publishing blocked by a missing scope it needs, uncertain while
    one it needs is unknown, else fine."""
    needed = list(publishing)
    missing = [s for s in needed if scopes.get(s) is ScopeState.MISSING]
    unknown = [s for s in needed if scopes.get(s) is ScopeState.UNKNOWN]
    granted = [s for s, state in scopes.items() if state is ScopeState.GRANTED]
    says = f"granted: {' '.join(granted) or 'none shown'} ({source})"
    if missing:
        return Finding(
            "scopes",
            says,
            f"publishing needs {' '.join(missing)}, not granted: reconnect and allow every "
            "permission asked",
            Standing.BLOCKED,
        )
    if unknown:
        return Finding(
            "scopes",
            says,
            f"publishing also needs {' '.join(unknown)}, which the network shows only when "
            "it issues the token; a post without it is refused and the connection turns "
            "inactive",
            Standing.UNKNOWN,
        )
    return Finding("scopes", says, "every scope publishing needs is granted", Standing.OK)


def quota_finding(network: str, quota: QuotaLeft | None) -> Finding:
    if quota is None:
        return Finding(
            "quota",
            f"{network} does not tell an app its posts left",
            "a post over its limit is answered 429 rate_limited with the network's wait",
            Standing.UNKNOWN,
        )
    hours = f" per {quota.window_seconds // 3600} h" if quota.window_seconds else ""
    says = f"{quota.used} of {quota.total} API posts used{hours}; {quota.left} left"
    if quota.left == 0:
        return Finding(
            "quota",
            says,
            "the next post is refused 429 rate_limited until the oldest leaves the window",
            Standing.BLOCKED,
        )
    return Finding("quota", says, f"{quota.left} more posts can go now", Standing.OK)
