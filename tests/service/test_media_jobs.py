"""Media job leases (``media.jobs``): a worker that renews its lease keeps its job."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from pressroom.service.app import create_app
from pressroom.service.db.base import utcnow
from pressroom.service.db.session import transaction
from pressroom.service.media import jobs
from pressroom.settings import Settings
from tests.conftest import Service
from tests.support.files import make_file

MINUTE = timedelta(minutes=1)


@pytest.fixture
def idle(settings: Settings) -> Iterator[Service]:
    """The service without media workers of its own: the test plays the workers."""
    tuned = settings.model_copy(update={"process_in_api": False})
    app = create_app(tuned)
    with TestClient(app) as client:
        yield Service(client, app.state.session_factory, tuned)
    app.state.engine.dispose()


def test_a_renewed_lease_keeps_the_job_from_other_workers(idle: Service) -> None:
    """Worker a's lease has run out, but a renews it before anyone else looks: the job stays
    a's for the new lease, and worker b finds nothing to claim."""
    file_id = make_file(idle.account(), "video", status="processing")
    with transaction(idle.sessions) as db:
        jobs.enqueue(db, file_id)
    assert jobs.claim(idle.sessions, "worker-a", timedelta(seconds=-1)) == jobs.Job(file_id)
    assert jobs.renew(idle.sessions, "worker-a", MINUTE) == 1
    assert jobs.claim(idle.sessions, "worker-b", MINUTE) is None
    [(job, owner, lease_end, attempts)] = jobs.waiting(idle.sessions)
    assert (job, owner, attempts) == (file_id, "worker-a", 1)
    assert lease_end is not None and lease_end > utcnow() + MINUTE / 2
