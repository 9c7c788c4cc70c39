"""Which URLs pressroom will call, so an endpoint cannot point it at the operator's own
network (server-side request forgery).

- ``https`` only; ``http`` to a loopback address in development mode
  (``PRESSROOM_WEBHOOK_DEVELOPMENT=1``), for a receiver on the developer's machine;
- addresses that are not public (``addresses``: private, loopback, link-local, carrier-grade
  NAT, multicast, reserved, documentation, and IPv6 forms that carry such an IPv4 address:
  NAT64, 6to4, Teredo, IPv4-mapped and -compatible) are refused, unless the operator allows
  them (``PRESSROOM_WEBHOOK_ALLOW_PRIVATE_TARGETS=1``, for receivers on an internal
  network); loopback is allowed in development mode;
- checked when an endpoint is saved (the URL's form, and a literal address), and again
  for every connection against what the host name resolves to then (``allowed_addresses``,
  called by ``transport``, which connects to those addresses and no other);
- no credentials in the URL; redirects are never followed (``dispatcher``).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pressroom.service.webhooks import addresses
from pressroom.service.webhooks.addresses import Address

MAX_URL_LENGTH = 2048
LOOPBACK_NAMES = ("localhost",)

Resolver = Callable[[str, int], list[str]]
"""(host, port) -> the addresses it resolves to, as text: the system's by default, and
injectable, so tests can play any DNS answer without sending anything off loopback."""


def system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


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
        loopback = host.lower() in LOOPBACK_NAMES or (
            literal is not None and addresses.is_loopback(literal)
        )
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

    def check_address(self, address: Address) -> None:
        why = addresses.why_not_public(address)
        if why is None or self.allow_private:
            return
        if self.development and addresses.is_loopback(address):
            return
        raise TargetRefused(
            f"the address {address} is not a public one ({why}): pressroom calls only "
            "public addresses unless the operator allows others "
            "(PRESSROOM_WEBHOOK_ALLOW_PRIVATE_TARGETS=1)"
        )

    def allowed_addresses(
        self, host: str, port: int, resolve: Resolver = system_resolver
    ) -> list[Address]:
        """Before a connection: what ``host`` resolves to now, every address of it allowed
        (one refused address refuses the host: a name that also points inside is not a
        receiver's). Raises ``TargetRefused``."""
        literal = _literal_address(host)
        if literal is not None:
            found = [literal]
        else:
            try:
                found = [ipaddress.ip_address(a) for a in resolve(host, port)]
            except (OSError, ValueError) as exc:
                raise TargetRefused(f"the host {host} does not resolve: {exc}") from exc
            if not found:
                raise TargetRefused(f"the host {host} resolves to no address")
        for address in found:
            self.check_address(address)
        return list(dict.fromkeys(found))


def _literal_address(host: str) -> Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None
