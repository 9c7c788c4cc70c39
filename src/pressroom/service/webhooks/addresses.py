"""Which IP addresses are public, judged by a table of our own.

``ipaddress``'s ``is_global`` is not enough: it calls ``64:ff9b::a00:1`` (NAT64 of
10.0.0.1), ``::127.0.0.1`` (IPv4-compatible loopback) and ``192.0.0.192`` global. Here:

- an IPv6 address that carries an IPv4 one (IPv4-mapped ``::ffff:0:0/96``,
  IPv4-compatible ``::/96``, NAT64 ``64:ff9b::/96`` and the local-use ``64:ff9b:1::/48``,
  6to4 ``2002::/16``, Teredo ``2001::/32``) is judged by the IPv4 address it carries
  (every one it may carry: Teredo's server and client, both readings of a local-use
  NAT64 address);
- an IPv4 address is public unless it is in ``SPECIAL_V4``, the IANA IPv4
  Special-Purpose Address Registry's blocks that are not globally reachable, with
  multicast and the reserved 240/4 (which holds 255.255.255.255);
- an IPv6 address is public only inside global unicast (``2000::/3``) and outside
  ``SPECIAL_V6`` (the IANA IPv6 Special-Purpose Address Registry's blocks that are not
  globally reachable, and the documentation prefixes).

https://www.iana.org/assignments/iana-ipv4-special-registry/
https://www.iana.org/assignments/iana-ipv6-special-registry/
"""

from __future__ import annotations

import ipaddress
from typing import Final

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Table = tuple[tuple[Network, str], ...]


def _table(rows: list[tuple[str, str]]) -> Table:
    return tuple((ipaddress.ip_network(block), what) for block, what in rows)


SPECIAL_V4: Final = _table(
    [
        ("0.0.0.0/8", "'this network'"),
        ("10.0.0.0/8", "private-use"),
        ("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("172.16.0.0/12", "private-use"),
        ("192.0.0.0/24", "IETF protocol assignments"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private-use"),
        ("198.18.0.0/15", "benchmarking"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved (with the broadcast address 255.255.255.255)"),
    ]
)

SPECIAL_V6: Final = _table(
    [
        ("::1/128", "loopback"),
        ("::/128", "unspecified"),
        ("100::/64", "discard-only"),
        ("2001::/23", "IETF protocol assignments"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
        ("5f00::/16", "segment routing (SRv6) SIDs"),
        ("fc00::/7", "unique-local"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local"),
        ("ff00::/8", "multicast"),
    ]
)

GLOBAL_UNICAST_V6: Final = ipaddress.IPv6Network("2000::/3")
MAPPED: Final = ipaddress.IPv6Network("::ffff:0:0/96")
COMPATIBLE: Final = ipaddress.IPv6Network("::/96")
NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
NAT64_LOCAL: Final = ipaddress.IPv6Network("64:ff9b:1::/48")
SIX_TO_FOUR: Final = ipaddress.IPv6Network("2002::/16")
TEREDO: Final = ipaddress.IPv6Network("2001::/32")
LOOPBACK_V4: Final = ipaddress.IPv4Network("127.0.0.0/8")


def carried(address: ipaddress.IPv6Address) -> tuple[str, list[ipaddress.IPv4Address]] | None:
    """The IPv4 addresses an IPv6 address stands for, with the form's name; None when it
    carries none."""
    value = int(address)
    last32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address in MAPPED:
        return "IPv4-mapped", [last32]
    if address in COMPATIBLE and value > 1:  # :: and ::1 are IPv6's own
        return "IPv4-compatible", [last32]
    if address in NAT64:
        return "NAT64", [last32]
    if address in NAT64_LOCAL:
        # RFC 6052: a /48 prefix puts the IPv4 address in bits 48-63 and 72-87; a /96
        # one (inside the /48) in the last 32 bits. The network chooses: judge both.
        split = ((value >> 64) & 0xFFFF) << 16 | ((value >> 40) & 0xFFFF)
        return "NAT64 (local-use)", [ipaddress.IPv4Address(split), last32]
    if address in SIX_TO_FOUR and address.sixtofour is not None:
        return "6to4", [address.sixtofour]
    if address in TEREDO and address.teredo is not None:
        server, client = address.teredo
        return "Teredo", [server, client]
    return None


def why_not_public(address: Address) -> str | None:
    """None when the address is public; otherwise what it is, in words
    (``private-use``, ``NAT64 of 10.0.0.1, private-use``)."""
    if isinstance(address, ipaddress.IPv4Address):
        return _special(address, SPECIAL_V4)
    address = ipaddress.IPv6Address(address.compressed.split("%", 1)[0])  # no scope id
    inner = carried(address)
    if inner is not None:
        form, v4s = inner
        for v4 in v4s:
            if (what := _special(v4, SPECIAL_V4)) is not None:
                return f"{form} of {v4}, {what}"
        return None
    if (what := _special(address, SPECIAL_V6)) is not None:
        return what
    if address not in GLOBAL_UNICAST_V6:
        return "outside IPv6 global unicast (2000::/3)"
    return None


def is_loopback(address: Address) -> bool:
    """127/8 and ::1, and 127/8 as an IPv4-mapped address (the same socket reaches it)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped in LOOPBACK_V4
        return address == ipaddress.IPv6Address("::1")
    return address in LOOPBACK_V4


def _special(address: Address, table: Table) -> str | None:
    for block, what in table:
        if address in block:
            return what
    return None
