"""Which URLs pressroom will call, so an endpoint cannot point it at the operator's own
network (server-side request forgery).

- ``https`` only; ``http`` to a loopback address in development mode
  (``PRESSROOM_WEBHOOK_DEVELOPMENT=1``), for a receiver on the developer's machine;
- addresses that are not globally routable (private, loopback, link-local, carrier-grade
  NAT, multicast, reserved) are refused, unless the operator allows them
  (``PRESSROOM_WEBHOOK_ALLOW_PRIVATE_TARGETS=1``, for receivers on an internal network);
  loopback is allowed in development mode;
- checked when an endpoint is saved (the URL's form, and a literal address), and again
  before every send against what the host name resolves to then, since DNS can change;
- no credentials in the URL; redirects are never followed (``dispatcher``).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
LOOPBACK_NAMES = ("localhost",)


class TargetRefused(ValueError):
    """The URL may not be called; the message says why and what to do."""


@dataclass(frozen=True)
class TargetPolicy:
    development: bool = False
    allow_private: bool = False

    def check_url(self, url: str) -> str:
        """The URL if its form is allowed; raises ``TargetRefused``."""
        if len(url) > MAX_URL_LENGTH:
            raise TargetRefused(f"the URL is longer than {MAX_URL_LENGTH} characters")
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("https", "http") or not host:
            raise TargetRefused("the URL must be an absolute https:// URL")
        if parts.username is not None or parts.password is not None:
            raise TargetRefused("the URL may not carry credentials; authenticate by signature")
        try:
            parts.port  # noqa: B018  # raises on a port out of range
        except ValueError as exc:
            raise TargetRefused("the URL's port is not a number from 1 to 65535") from exc
        literal = _literal_address(host)
        loopback = host.lower() in LOOPBACK_NAMES or (literal is not None and literal.is_loopback)
        if parts.scheme == "http" and not (self.development and loopback):
            raise TargetRefused(
                "the URL must use https (http is allowed only to a loopback address in "
                "development mode, PRESSROOM_WEBHOOK_DEVELOPMENT=1)"
            )
        if literal is not None:
            self.check_address(literal)
        elif loopback:
            self.check_address(ipaddress.ip_address("127.0.0.1"))
        return url

    def check_address(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        if address.is_global and not address.is_multicast:
            return
        if self.allow_private or (self.development and address.is_loopback):
            return
        raise TargetRefused(
            f"the address {address} is not a public one (private, loopback, link-local or "
            "reserved): pressroom calls only public addresses unless the operator allows "
            "others (PRESSROOM_WEBHOOK_ALLOW_PRIVATE_TARGETS=1)"
        )

    def check_resolved(self, url: str) -> None:
        """Before a send: every address the host resolves to now must be allowed."""
        self.check_url(url)
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise TargetRefused(f"the host {host} does not resolve: {exc}") from exc
        for *_, sockaddr in found:
            self.check_address(ipaddress.ip_address(sockaddr[0]))


def _literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
