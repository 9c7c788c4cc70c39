"""One source, shown: one rule changed in the table changes what the API, ``campaign
validate``, the sandbox driver and a real driver's check before sending accept.

X's weighted length is lowered from 280 to 100 for the test; a text of 150 Latin
letters (150 of X's weighted characters, within the spec's 280) is accepted by all four
before and refused by all four after, each naming ``microblog.weighted_length``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import respx

from pressroom.campaign import validate
from pressroom.platforms import Platform
from pressroom.rules import TABLE
from pressroom.service.drivers import build_drivers
from pressroom.service.drivers.base import Account, Delivery, PlatformRefused
from pressroom.service.drivers.http import NetworkClient
from pressroom.service.drivers.microblog import XDriver
from tests.conftest import Service
from tests.support.publish import deliveries, error_of, publish, valid_body

RULE = "microblog.weighted_length"
TEXT = "a" * 150


class Tokens:
    def access_token(self, connection_id: str) -> str:
        return "x-token"


@pytest.fixture
def x() -> Iterator[respx.MockRouter]:
    with respx.mock(
        base_url="https://api.x.com", assert_all_mocked=True, assert_all_called=False
    ) as router:
        router.post("/2/tweets").respond(201, json={"data": {"id": "1445880548472328192"}})
        yield router


def lower_the_limit(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    rules = TABLE[Platform.MICROBLOG]
    changed = tuple(replace(r, limit=limit) if r.id == RULE else r for r in rules)  # type: ignore[call-arg]
    monkeypatch.setitem(TABLE, Platform.MICROBLOG, changed)


def what_each_accepts(service: Service, x: respx.MockRouter, tmp_path: Path) -> dict[str, object]:
    """What the four consumers make of the same text: True, or the rule they name."""
    account = service.account()
    answer = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, text=TEXT)
    )
    api = True if answer.status_code == 200 else error_of(answer).get("rule")

    campaign = tmp_path / "c.yaml"
    campaign.write_text(f"name: one\nposts:\n  - id: p\n    microblog:\n      text: {TEXT}\n")
    errors = [issue for issue in validate(campaign).issues if issue.is_error]
    validated = True if not errors else [(e.rule, e.line) for e in errors]

    delivery = Delivery(
        platform=Platform.MICROBLOG,
        account=Account("conn_1", "@acme"),
        fields={"text": TEXT},
        media=None,
        reference="post_1",
    )
    sandbox = build_drivers(service.settings, service.sessions)[Platform.MICROBLOG]
    try:
        sandbox.publish(delivery)
        sandboxed: object = True
    except PlatformRefused as exc:
        sandboxed = exc.rule.id if exc.rule else None

    http = NetworkClient(Platform.MICROBLOG, timeout_seconds=5, backoff_seconds=0)
    calls_before = x.calls.call_count
    try:
        XDriver("x-client", "x-secret", Tokens(), http).publish(delivery)
        real: object = True
    except PlatformRefused as exc:
        real = (exc.rule.id if exc.rule else None, x.calls.call_count - calls_before)
    finally:
        http.close()
    return {"api": api, "validate": validated, "sandbox": sandboxed, "driver": real}


def test_one_rule_changed_in_the_table_changes_every_consumer(
    service: Service, x: respx.MockRouter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert what_each_accepts(service, x, tmp_path) == {
        "api": True,
        "validate": True,
        "sandbox": True,
        "driver": True,
    }
    sent = (len(deliveries(service)), x.calls.call_count)
    assert sent == (2, 1)  # the API's post and the sandbox driver's; X's one

    lower_the_limit(monkeypatch, 100)
    assert what_each_accepts(service, x, tmp_path) == {
        "api": RULE,
        "validate": [(RULE, 5)],  # line 5: the text
        "sandbox": RULE,
        "driver": (RULE, 0),  # no request reached X
    }
    assert (len(deliveries(service)), x.calls.call_count) == sent  # nothing more was sent
    assert isinstance(x.calls.last.response, httpx.Response)
