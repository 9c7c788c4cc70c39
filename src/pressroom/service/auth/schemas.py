"""What the sign-in forms carry, and the errors they answer with."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FormError(Exception):
    """A form the user must correct: one message per field, in the API's words.

    ``status`` is the HTTP status of the page that shows it; ``retry_after`` goes out
    as ``Retry-After`` (throttling)."""

    errors: dict[str, str] = field(default_factory=dict)
    status: int = 400
    retry_after: int | None = None

    def __str__(self) -> str:
        return "; ".join(f"{k}: {v}" for k, v in self.errors.items())


@dataclass(frozen=True)
class SignedIn:
    account_id: str
    token: str
    """The session token for the cookie; only its hash is stored."""
    csrf_token: str
