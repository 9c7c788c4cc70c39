"""Monthly uploads: counted when a URL is issued, per calendar month in UTC, race-safe."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import select

from pressroom.plans import PLAN_LIMITS, Plan
from pressroom.service.db.models import UploadUsage
from pressroom.service.db.session import transaction

if TYPE_CHECKING:
    from tests.conftest import AccountHandle
    from tests.support.library import Library

from tests.support.backends import ON_BOTH_BACKENDS

pytest_plugins = ("tests.support.library",)
pytestmark = ON_BOTH_BACKENDS


def this_month() -> str:
    return datetime.now(UTC).strftime("%Y-%m")


def set_usage(library: Library, account: AccountHandle, month: str, uploads: int) -> None:
    with transaction(library.service.sessions) as db:
        db.merge(UploadUsage(account_id=account.id, month=month, uploads=uploads))


def usage(library: Library, account: AccountHandle) -> int:
    with transaction(library.service.sessions, write=False) as db:
        found = db.scalar(
            select(UploadUsage.uploads).where(
                UploadUsage.account_id == account.id, UploadUsage.month == this_month()
            )
        )
        return found or 0


def presign(library: Library, account: AccountHandle) -> tuple[int, dict[str, object]]:
    response = library.client.post(
        "/api/upload/presigned-url",
        json={"filename": "a.png", "contentType": "image/png"},
        headers=account.headers,
    )
    return response.status_code, {**response.json(), "headers": dict(response.headers)}


@pytest.mark.parametrize("plan", [Plan.BUSINESS, Plan.AGENCY])
def test_past_the_plans_monthly_uploads_is_a_final_429(library: Library, plan: Plan) -> None:
    account = library.account(plan)
    limit = PLAN_LIMITS[plan].monthly_uploads
    assert limit == {Plan.BUSINESS: 250, Plan.AGENCY: 550}[plan]
    set_usage(library, account, this_month(), limit - 1)
    assert presign(library, account)[0] == 200

    status, body = presign(library, account)
    assert status == 429
    error = body["error"]
    assert isinstance(error, dict) and error["code"] == "upload_quota_exceeded"
    now = datetime.now(UTC)
    resets = datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=UTC)
    stamp = resets.strftime("%Y-%m-%dT00:00:00.000Z")
    assert f"resets at {stamp}" in error["message"] and str(limit) in error["message"]
    headers = body["headers"]
    assert isinstance(headers, dict) and headers["x-upload-quota-reset"] == stamp
    assert 0 < int(headers["retry-after"]) <= 31 * 24 * 3600
    assert usage(library, account) == limit
    # Bad requests never counted, and other accounts are not affected.
    assert presign(library, library.account(plan))[0] == 200


def test_only_issued_urls_count_and_deleting_gives_nothing_back(library: Library) -> None:
    account = library.account()
    refused = library.client.post(
        "/api/upload/presigned-url",
        json={"filename": "a.txt", "contentType": "text/plain"},
        headers=account.headers,
    )
    assert refused.status_code == 400 and usage(library, account) == 0
    _, issued = presign(library, account)
    library.client.delete(f"/api/upload/file/{issued['fileId']}", headers=account.headers)
    assert usage(library, account) == 1


def test_last_months_uploads_do_not_count(library: Library) -> None:
    account = library.account()
    set_usage(library, account, "2000-01", PLAN_LIMITS[Plan.BUSINESS].monthly_uploads)
    assert presign(library, account)[0] == 200
    assert usage(library, account) == 1


def test_concurrent_requests_never_overshoot_the_quota(library: Library) -> None:
    account = library.account()
    limit = PLAN_LIMITS[Plan.BUSINESS].monthly_uploads
    set_usage(library, account, this_month(), limit - 3)
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = sorted(pool.map(lambda _: presign(library, account)[0], range(8)))
    assert statuses == [200] * 3 + [429] * 5
    assert usage(library, account) == limit


def test_the_first_uploads_of_a_month_race_safely(library: Library) -> None:
    """No row yet: several requests insert it at once; every one is counted exactly once."""
    account = library.account()
    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(lambda _: presign(library, account)[0], range(6)))
    assert statuses == [200] * 6
    assert usage(library, account) == 6
