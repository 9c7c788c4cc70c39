"""State rules (issue 4, point 3): the file, the connection and the account behind it."""

from __future__ import annotations

import pytest

from pressroom.plans import Plan
from pressroom.platforms import Platform
from tests.conftest import Service
from tests.support.files import make_file
from tests.support.publish import (
    deliveries,
    error_of,
    post_count,
    publish,
    twin_of,
    valid_body,
)


@pytest.mark.parametrize("status", ["pending_upload", "processing"])
def test_a_file_not_ready_yet_is_a_409(service: Service, status: str) -> None:
    account = service.account()
    video = make_file(account, "video", status=status)
    response = publish(
        account, Platform.VIDEO_SHARING, valid_body(account, Platform.VIDEO_SHARING, fileId=video)
    )
    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "file_not_ready" and error["field"] == "fileId"
    assert f"/api/upload/status/{video}" in error["message"]


def test_a_failed_file_is_a_400_with_its_reason(service: Service) -> None:
    account = service.account()
    video = make_file(account, "video", status="failed", failure_reason="no video stream")
    response = publish(
        account, Platform.SHORT_VIDEO, valid_body(account, Platform.SHORT_VIDEO, fileId=video)
    )
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "file_failed" and "no video stream" in error["message"]


def test_another_accounts_file_is_unknown(service: Service) -> None:
    account, other = service.account(), service.account()
    theirs = make_file(other, "image")
    for file_id in (theirs, "file_missing"):
        response = publish(
            account, Platform.PIN_BOARD, valid_body(account, Platform.PIN_BOARD, fileId=file_id)
        )
        assert response.status_code == 404
        assert error_of(response)["code"] == "file_not_found"
        assert error_of(response)["field"] == "fileId"


def test_another_accounts_connection_is_unknown(service: Service) -> None:
    account, other = service.account(), service.account()
    theirs = other.connect("microblog", "@them")
    response = publish(account, Platform.MICROBLOG, {"connectionId": theirs, "text": "hi"})
    assert response.status_code == 404
    assert error_of(response)["code"] == "connection_not_found"
    assert error_of(response)["field"] == "connectionId"


def test_a_connection_of_another_platform_is_refused(service: Service) -> None:
    account = service.account()
    pins = account.connect("pin_board", "pins")
    response = publish(account, Platform.MICROBLOG, {"connectionId": pins, "text": "hi"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "connection_platform_mismatch" and error["field"] == "connectionId"
    assert "pin_board account, not microblog" in error["message"]


def test_an_expired_connection_must_be_reconnected(service: Service) -> None:
    account = service.account()
    pro = account.connect("professional_network", "Acme Inc.")
    account.move("expire_token", pro)
    response = publish(account, Platform.PROFESSIONAL_NETWORK, {"connectionId": pro, "text": "hi"})
    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "connection_inactive" and error["field"] == "connectionId"
    assert "reconnect it in the dashboard" in error["message"]
    account.move("reconnect", pro)
    again = publish(account, Platform.PROFESSIONAL_NETWORK, {"connectionId": pro, "text": "hi"})
    assert again.status_code == 200


def test_a_disconnected_connection_is_gone(service: Service) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    account.move("disconnect", micro)
    response = publish(account, Platform.MICROBLOG, {"connectionId": micro, "text": "hi"})
    assert response.status_code == 404
    assert error_of(response)["code"] == "connection_not_found"
    assert error_of(response)["field"] == "connectionId"


@pytest.mark.parametrize("loss", ["disconnect", "expire_token"])
def test_text_thread_cannot_publish_without_its_photo_sharing_account(
    service: Service, loss: str
) -> None:
    account = service.account()
    photo = account.connect("photo_sharing", "acme.photos", account_type="creator")
    thread = twin_of(account, photo)
    body = {"connectionId": thread, "text": "hello"}
    assert publish(account, Platform.TEXT_THREAD, body).status_code == 200

    account.move(loss, photo)
    response = publish(account, Platform.TEXT_THREAD, body)
    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "connection_inactive"
    assert "reconnect the photo_sharing account in the dashboard" in error["message"]

    if loss == "disconnect":
        account.connect("photo_sharing", "acme.photos", account_type="creator")
    else:
        account.move("reconnect", photo)
    assert publish(account, Platform.TEXT_THREAD, body).status_code == 200
    assert len(deliveries(service)) == 2


@pytest.mark.parametrize(
    ("account_type", "allowed"), [("business", True), ("creator", True), ("personal", False)]
)
def test_photo_sharing_needs_a_business_or_creator_account(
    service: Service, account_type: str, allowed: bool
) -> None:
    account = service.account()
    photo = account.connect("photo_sharing", "acme.photos", account_type=account_type)
    body = valid_body(account, Platform.PHOTO_SHARING, connectionId=photo)
    response = publish(account, Platform.PHOTO_SHARING, body)
    if allowed:
        assert response.status_code == 200
        return
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "account_type_not_allowed" and error["field"] == "connectionId"
    assert "business or creator" in error["message"]


def test_page_social_publishes_to_pages_only(service: Service) -> None:
    account = service.account()
    profile = account.connect("page_social", "Jo Bloggs", page_kind="profile")
    response = publish(
        account,
        Platform.PAGE_SOCIAL,
        valid_body(account, Platform.PAGE_SOCIAL, connectionId=profile),
    )
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "not_a_page" and "personal profile" in error["message"]


def test_page_social_needs_the_pages_permission(service: Service) -> None:
    account = service.account()
    page = account.connect("page_social", "Acme Page", pages_permission=False)
    response = publish(
        account, Platform.PAGE_SOCIAL, valid_body(account, Platform.PAGE_SOCIAL, connectionId=page)
    )
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "pages_permission_missing"
    assert "grant that permission" in error["message"]
    assert post_count(service) == 0 and deliveries(service) == []


def test_the_caller_is_known_before_the_body_is_read(service: Service) -> None:
    """A wrong key with a broken body is a 401, with or without an Idempotency-Key:
    the body is nobody's business until the caller is known."""
    broken = {"connectionId": 42}
    for headers in ({}, {"Idempotency-Key": "k1"}):
        wrong = service.client.post(
            "/api/v2/microblog/publish",
            json=broken,
            headers={"X-API-Key": "prk_live_nope", **headers},
        )
        assert wrong.status_code == 401 and error_of(wrong)["code"] == "invalid_api_key"


def test_publishing_needs_a_key_and_a_plan_with_api_access(service: Service) -> None:
    body = {"connectionId": "conn_x", "text": "hi"}
    missing = service.client.post("/api/v2/microblog/publish", json=body)
    assert missing.status_code == 401 and error_of(missing)["code"] == "missing_api_key"
    wrong = service.client.post(
        "/api/v2/microblog/publish", json=body, headers={"X-API-Key": "prk_live_nope"}
    )
    assert wrong.status_code == 401 and error_of(wrong)["code"] == "invalid_api_key"
    blogger = service.account(Plan.BLOGGER)
    refused = publish(blogger, Platform.MICROBLOG, body)
    assert refused.status_code == 403 and error_of(refused)["code"] == "plan_without_api_access"
