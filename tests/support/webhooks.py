"""The webhook sender under test: settings tuned for speed, the service with or without
its own sender running, and the API calls the tests repeat."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pressroom.service.app import create_app
from pressroom.service.db.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from pressroom.service.db.session import transaction
from pressroom.service.webhooks.dispatcher import Dispatcher
from pressroom.settings import Settings
from tests.conftest import AccountHandle, Service
from tests.support.receiver import Receiver

T = TypeVar("T")


def tuned(settings: Settings, **changes: Any) -> Settings:
    """Retries in fractions of a second, http to loopback allowed (development)."""
    values: dict[str, Any] = {
        "webhook_development": True,
        "webhook_retry_base_seconds": 0.05,
        "webhook_retry_max_delay_seconds": 0.3,
        "webhook_retry_period_seconds": 30.0,
        "webhook_poll_seconds": 0.02,
        **changes,
    }
    return settings.model_copy(update=values)


@contextmanager
def running(settings: Settings, *, sender: bool) -> Iterator[Service]:
    """The service; with its own sender running (``sender``), or none, for a test that
    sends by hand (``by_hand``) and so decides when each attempt happens."""
    if not sender:
        settings = settings.model_copy(update={"process_in_api": False})
    app = create_app(settings)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, settings)
    app.state.engine.dispose()


def by_hand(service: Service, **kwargs: Any) -> Dispatcher:
    """A sender of the service's queue that is not running: call ``send_one``."""
    return Dispatcher(service.sessions, service.settings, **kwargs)


def subscribe(account: AccountHandle, url: str, events: list[str] | None = None) -> str:
    """A new endpoint for ``url``; its id."""
    body: dict[str, Any] = {"url": url}
    if events is not None:
        body["events"] = events
    made = account.service.client.post("/api/webhooks", json=body, headers=account.headers)
    assert made.status_code == 201, made.text
    webhook_id: str = made.json()["webhook"]["id"]
    return webhook_id


def subscribe_verified(account: AccountHandle, receiver: Receiver) -> str:
    """A new endpoint for a verifying receiver, which learns its secret; its id."""
    made = account.service.client.post(
        "/api/webhooks", json={"url": receiver.url}, headers=account.headers
    )
    assert made.status_code == 201, made.text
    receiver.secrets.append(made.json()["secret"])
    webhook_id: str = made.json()["webhook"]["id"]
    return webhook_id


def log_of(account: AccountHandle, webhook_id: str) -> list[dict[str, Any]]:
    """The endpoint's delivery log, as the API shows it."""
    answer = account.service.client.get(
        f"/api/webhooks/{webhook_id}/deliveries", headers=account.headers
    )
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["deliveries"]
    return found


def endpoint_of(account: AccountHandle, webhook_id: str) -> dict[str, Any]:
    answer = account.service.client.get(f"/api/webhooks/{webhook_id}", headers=account.headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()["webhook"]
    return found


def rows(service: Service) -> tuple[list[WebhookDelivery], list[WebhookAttempt]]:
    """Every delivery and attempt in the database, in order."""
    with transaction(service.sessions, write=False) as db:
        deliveries = list(db.scalars(select(WebhookDelivery).order_by(WebhookDelivery.seq)))
        attempts = list(db.scalars(select(WebhookAttempt).order_by(WebhookAttempt.id)))
        db.expunge_all()
    return deliveries, attempts


def endpoint_row(service: Service, webhook_id: str) -> WebhookEndpoint:
    with transaction(service.sessions, write=False) as db:
        found = db.get(WebhookEndpoint, webhook_id)
        assert found is not None
        db.expunge(found)
    return found


def connect_in(sessions: sessionmaker[Session], api_key: str, name: str) -> str:
    """Connect a microblog account for the account with ``api_key``, as the dashboard
    would (its ``connection.active`` event with it); the connection's id."""
    from pressroom.platforms import Platform
    from pressroom.service.accounts.keys import hash_key
    from pressroom.service.connections.service import NewConnection, connect
    from pressroom.service.db.models import Account

    with transaction(sessions) as db:
        account = db.scalar(select(Account).where(Account.api_key_hash == hash_key(api_key)))
        assert account is not None
        return connect(db, account, NewConnection(platform=Platform.MICROBLOG, name=name)).id


def claimers(sessions: sessionmaker[Session]) -> list[str | None]:
    """Who holds each delivery now (None: nobody)."""
    with transaction(sessions, write=False) as db:
        return list(db.scalars(select(WebhookDelivery.claimed_by)))


def wait_until(check: Callable[[], T], what: str, timeout: float = 20.0) -> T:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return found
