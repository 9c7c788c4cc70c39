"""Which addresses a webhook may reach, judged by pressroom's own table (``addresses``):
by table, when an endpoint is saved, and when it is sent to, with a resolver that
answers what the test says and a connector that would route any connection to a
listening loopback socket, which must see none. Nothing leaves loopback.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest

from pressroom.service.webhooks.addresses import Address, why_not_public
from pressroom.service.webhooks.targets import TargetPolicy, TargetRefused
from pressroom.settings import Settings
from tests.conftest import Service
from tests.support.answering import Answering, answering
from tests.support.publish import error_of
from tests.support.webhooks import by_hand, log_of, running, subscribe, tuned

ON_SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

NOT_PUBLIC = [
    # NAT64, IPv4-compatible, IPv4-mapped, 6to4 and Teredo forms of inside addresses
    ("64:ff9b::a00:1", "NAT64 of 10.0.0.1, private-use"),
    ("64:ff9b::7f00:1", "NAT64 of 127.0.0.1, loopback"),
    ("64:ff9b::a9fe:a9fe", "NAT64 of 169.254.169.254, link-local"),
    ("64:ff9b:1::a00:1", "NAT64 (local-use)"),
    ("64:ff9b:1:a00:1::", "NAT64 (local-use) of 10.0.1.0"),
    ("::127.0.0.1", "IPv4-compatible of 127.0.0.1, loopback"),
    ("::10.0.0.1", "IPv4-compatible of 10.0.0.1"),
    ("::ffff:10.0.0.1", "IPv4-mapped of 10.0.0.1"),
    ("::ffff:169.254.169.254", "IPv4-mapped of 169.254.169.254"),
    ("2002:a00:1::1", "6to4 of 10.0.0.1"),
    ("2002:c0a8:101::1", "6to4 of 192.168.1.1"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo of 10.0.0.1"),
    ("2001:0:a00:1::", "Teredo of 10.0.0.1"),  # its server
    # IPv4 special-purpose blocks
    ("0.0.0.0", "'this network'"),
    ("10.1.2.3", "private-use"),
    ("100.64.0.1", "shared address space"),
    ("127.0.0.1", "loopback"),
    ("169.254.169.254", "link-local"),
    ("172.16.0.1", "private-use"),
    ("172.31.255.255", "private-use"),
    ("192.0.0.192", "IETF protocol assignments"),
    ("192.0.0.9", "IETF protocol assignments"),
    ("192.0.2.1", "documentation"),
    ("192.88.99.1", "6to4 relay anycast"),
    ("192.168.1.1", "private-use"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("198.51.100.1", "documentation"),
    ("203.0.113.1", "documentation"),
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.255", "reserved"),
    # IPv6 special-purpose blocks
    ("::1", "loopback"),
    ("::", "unspecified"),
    ("100::1", "discard-only"),
    ("2001:2::1", "IETF protocol assignments"),
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("5f00::1", "segment routing"),
    ("fc00::1", "unique-local"),
    ("fd12:3456::1", "unique-local"),
    ("fe80::1", "link-local"),
    ("fec0::1", "site-local"),
    ("ff02::1", "multicast"),
    ("4000::1", "outside IPv6 global unicast"),
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "172.32.0.1",
    "192.0.1.1",
    "198.20.0.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001::200e",
    "64:ff9b::808:808",  # NAT64 of 8.8.8.8
    "::ffff:8.8.8.8",
    "2002:808:808::1",  # 6to4 of 8.8.8.8
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7",  # Teredo: server 65.54.227.120, client 8.8.8.8
]


@pytest.mark.parametrize(("address", "what"), NOT_PUBLIC)
def test_inside_addresses_are_not_public_whatever_their_form(address: str, what: str) -> None:
    found = why_not_public(ipaddress.ip_address(address))
    assert found is not None and what in found, found


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_public_in_any_form(address: str) -> None:
    assert why_not_public(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "address", ["64:ff9b::a00:1", "::127.0.0.1", "192.0.0.192", "::ffff:10.0.0.1"]
)
def test_what_ipaddress_calls_global_is_refused_here(address: str) -> None:
    """The forms the standard library lets through (the reason for a table of our own)."""
    parsed = ipaddress.ip_address(address)
    with pytest.raises(TargetRefused, match="not a public one"):
        TargetPolicy().check_address(parsed)


@ON_SQLITE
@pytest.mark.parametrize(
    "host", ["[64:ff9b::a00:1]", "[::127.0.0.1]", "192.0.0.192", "[::ffff:a00:1]", "[2002:a00:1::]"]
)
def test_such_a_literal_is_refused_when_an_endpoint_is_saved(service: Service, host: str) -> None:
    account = service.account()
    answer = service.client.post(
        "/api/webhooks", json={"url": f"https://{host}/hook"}, headers=account.headers
    )
    assert answer.status_code == 400, answer.text
    error = error_of(answer)
    assert error["field"] == "url" and "not a public one" in error["message"]


def test_development_mode_allows_loopback_and_nothing_else_inside() -> None:
    development = TargetPolicy(development=True)
    development.check_address(ipaddress.ip_address("127.0.0.1"))
    development.check_address(ipaddress.ip_address("::1"))
    development.check_address(ipaddress.ip_address("::ffff:127.0.0.1"))
    for inside in ("10.0.0.1", "64:ff9b::7f00:1", "::127.0.0.1"):
        with pytest.raises(TargetRefused):
            development.check_address(ipaddress.ip_address(inside))


class Network:
    """DNS and routing as the test says: ``answers`` for every name, and every connection
    taken to ``listener`` on loopback, so a connection the sender should never have made
    shows as an accepted one there, and nothing leaves the machine."""

    def __init__(self, listener: Answering, answers: list[str]) -> None:
        self.listener = listener
        self.answers = answers
        self.asked: list[str] = []
        self.connected: list[str] = []

    def resolve(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        return list(self.answers)

    def connect(self, address: Address, port: int, timeout: float | None) -> socket.socket:
        self.connected.append(str(address))
        return socket.create_connection(("127.0.0.1", self.listener.port), timeout=timeout)


@pytest.fixture
def sending(settings: Settings) -> Iterator[Service]:
    """No development mode: https to public addresses only, as in production."""
    with running(tuned(settings, webhook_development=False), sender=False) as service:
        yield service


@pytest.mark.parametrize(
    ("answers", "what"),
    [
        (["64:ff9b::a00:1"], "NAT64 of 10.0.0.1"),
        (["::127.0.0.1"], "IPv4-compatible of 127.0.0.1"),
        (["192.0.0.192"], "IETF protocol assignments"),
        (["::ffff:169.254.169.254"], "IPv4-mapped of 169.254.169.254"),
        (["93.184.215.14", "10.0.0.7"], "private-use"),  # one inside answer refuses the host
    ],
)
def test_a_name_that_resolves_inside_is_refused_at_send_time_and_nothing_is_connected(
    sending: Service, answers: list[str], what: str
) -> None:
    account = sending.account()
    webhook_id = subscribe(account, "https://hooks.example.test/pressroom")  # a name: saved
    account.connect("microblog", "@acme")
    with answering() as listener:
        network = Network(listener, answers)
        assert by_hand(sending, resolve=network.resolve, connect=network.connect).send_one()
    assert network.asked == ["hooks.example.test"]
    assert network.connected == [] and listener.connections == []
    [delivery] = log_of(account, webhook_id)
    [attempt] = delivery["attempts"]
    assert attempt["status"] is None and attempt["excerpt"].startswith("not sent:")
    assert what in attempt["excerpt"]


def test_a_name_that_resolves_to_a_public_address_is_connected_to_that_address(
    sending: Service,
) -> None:
    """The control: the same network, a public answer, and the connection is made, to
    the address that was checked (then TLS fails on the plain loopback listener)."""
    account = sending.account()
    webhook_id = subscribe(account, "https://hooks.example.test/pressroom")
    account.connect("microblog", "@acme")
    with answering() as listener:
        network = Network(listener, ["93.184.215.14"])
        assert by_hand(sending, resolve=network.resolve, connect=network.connect).send_one()
    assert network.connected == ["93.184.215.14"] and len(listener.connections) == 1
    [delivery] = log_of(account, webhook_id)
    assert delivery["attempts"][0]["excerpt"].startswith("no answer: ConnectError")
