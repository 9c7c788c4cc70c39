"""What an account's email must be, and the one form it is kept in.

- **Syntax only**, by ``email-validator`` (RFC 5321/5322, internationalised addresses
  too): no DNS look-up, since pressroom sends no mail and a server without egress must
  still make accounts. ``<script>alert(1)</script>@x.co`` and ``name@host`` are refused;
  so are special-use domains (``.local``, ``.localhost``, ``.test``, ``.invalid``,
  ``.onion``, ``.arpa``), which cannot hold a mailbox.
- **One form**: the library's normalised address (Unicode NFC, domain in lower case)
  with the part before the ``@`` lower-cased too. Sign-in already matches any case, so
  two accounts told apart only by case could not both be reached; storing one form
  keeps the look-up exact and the uniqueness constraint meaningful.
"""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

from pressroom import error_codes
from pressroom.service.errors import ServiceError

EXAMPLE = "name@example.com"


def normalise(text: str) -> str:
    """The stored form of ``text``, or a ``validation_error`` naming ``email`` and why."""
    text = text.strip()
    if not text:
        raise ServiceError(error_codes.VALIDATION_ERROR, "email is required.", field="email")
    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError as exc:
        reason = str(exc).rstrip(".")
        raise ServiceError(
            error_codes.VALIDATION_ERROR,
            f"email must be an address such as {EXAMPLE}: {reason[:1].lower()}{reason[1:]}.",
            field="email",
        ) from None
    return checked.normalized.lower()
