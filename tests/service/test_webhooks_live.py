"""Webhooks across a ``kill -9`` of the service: an event committed with its change and not
yet sent is in the outbox, and the restarted service delivers it."""

from __future__ import annotations

from pathlib import Path

import httpx

from pressroom.service.db.session import make_engine, make_session_factory
from pressroom.service.webhooks import queue
from tests.service.test_media_live import api_key, live_service
from tests.support.receiver import running_receiver
from tests.support.waiting import wait_until

DEVELOPMENT = {"PRESSROOM_WEBHOOK_DEVELOPMENT": "1"}


def test_an_event_committed_before_a_kill_is_delivered_after_the_restart(
    database_url: str, tmp_path: Path
) -> None:
    sessions = make_session_factory(make_engine(database_url))
    data = tmp_path / "data"
    with running_receiver() as receiver:
        # The sender looks once as the service starts, then not for an hour: whatever is
        # committed after that stays unsent until the kill.
        idle = {**DEVELOPMENT, "PRESSROOM_WEBHOOK_POLL_SECONDS": "3600"}
        with live_service(data, database_url, **idle) as service:
            key = api_key(database_url)
            made = httpx.post(
                f"{service.base_url}/api/webhooks",
                json={"url": receiver.url, "events": ["api_key.rotated"]},
                headers={"X-API-Key": key},
            )
            assert made.status_code == 201, made.text
            receiver.secrets.append(made.json()["secret"])
            rotated = httpx.post(f"{service.base_url}/api/user/api-key", headers={"X-API-Key": key})
            assert rotated.status_code == 200
            [(_, event_id, attempts, _)] = queue.pending(sessions)
            assert attempts == 0
            service.kill()
        assert receiver.received == []
        assert [(e, a) for _, e, a, _ in queue.pending(sessions)] == [(event_id, 0)]

        fast = {**DEVELOPMENT, "PRESSROOM_WEBHOOK_POLL_SECONDS": "0.05"}
        with live_service(data, database_url, **fast):
            receiver.wait_for(1)
            [event] = receiver.events()
            assert (event.id, event.type) == (event_id, "api_key.rotated")
            assert event.data["last4"] == rotated.json()["apiKey"][-4:]
            # The sender records the delivery once the receiver has answered: wait for it.
            wait_until(lambda: queue.pending(sessions) == [], "the delivery recorded delivered")
    sessions.kw["bind"].dispose()
