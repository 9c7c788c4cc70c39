"""Spec 4.3 and the connection moves of section 3, on both databases."""

from __future__ import annotations

import pytest

from pressroom.plans import Plan
from pressroom.service.connections.service import ConnectionRuleError
from tests.conftest import AccountHandle, Service


def unified(account: AccountHandle) -> dict[str, dict[str, str]]:
    response = account.service.client.get("/api/connections/unified", headers=account.headers)
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    return {entry["id"]: entry for entry in body}


def test_unified_list_is_a_bare_array_of_every_platform(service: Service) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    video = account.connect("video_sharing", "Acme TV")
    entries = unified(account)
    assert entries[micro] == {
        "id": micro,
        "platform": "microblog",
        "name": "@acme",
        "status": "active",
    }
    assert entries[video]["platform"] == "video_sharing"
    assert len(entries) == 2


def test_microblog_list_has_the_spec_shape_and_only_active_entries(service: Service) -> None:
    account = service.account()
    active = account.connect("microblog", "@acme", display_name="Acme Corp")
    expired = account.connect("microblog", "@old")
    account.connect("video_sharing", "Acme TV")
    account.move("expire_token", expired)

    response = service.client.get("/api/v2/microblog/connections", headers=account.headers)
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert [c["connectionId"] for c in body["connections"]] == [active]
    entry = body["connections"][0]
    assert entry["username"] == "@acme"
    assert entry["displayName"] == "Acme Corp"
    assert entry["status"] == "active"
    assert entry["connectedAt"].endswith("Z")


def test_accounts_never_see_each_others_connections(service: Service) -> None:
    mine, theirs = service.account(), service.account()
    theirs.connect("microblog", "@them")
    assert unified(mine) == {}


def test_photo_sharing_brings_an_active_text_thread_twin(service: Service) -> None:
    account = service.account()
    photo = account.connect("photo_sharing", "acme.photos")
    entries = unified(account)
    twins = [e for e in entries.values() if e["platform"] == "text_thread"]
    assert len(twins) == 1
    assert twins[0]["name"] == "acme.photos" and twins[0]["status"] == "active"
    assert entries[photo]["status"] == "active"


@pytest.mark.parametrize("action", ["disconnect", "expire_token"])
def test_losing_the_photo_sharing_account_makes_the_twin_inactive_until_reconnected(
    service: Service, action: str
) -> None:
    account = service.account()
    photo = account.connect("photo_sharing", "acme.photos")
    twin = next(i for i, e in unified(account).items() if e["platform"] == "text_thread")

    account.move(action, photo)
    entries = unified(account)
    assert entries[twin]["status"] == "inactive"
    if action == "disconnect":
        assert photo not in entries
        # Connecting the same account again reactivates the same twin.
        again = account.connect("photo_sharing", "acme.photos")
        assert again != photo
    else:
        assert entries[photo]["status"] == "inactive"
        account.move("reconnect", photo)
    entries = unified(account)
    assert entries[twin]["status"] == "active"
    assert [e["platform"] for e in entries.values()].count("text_thread") == 1


def test_expired_professional_network_token_makes_it_inactive(service: Service) -> None:
    account = service.account()
    pro = account.connect("professional_network", "Acme Inc.")
    account.move("expire_token", pro)
    assert unified(account)[pro]["status"] == "inactive"
    account.move("reconnect", pro)
    assert unified(account)[pro]["status"] == "active"


def test_disconnected_connection_disappears(service: Service) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    account.move("disconnect", micro)
    assert micro not in unified(account)
    body = service.client.get("/api/v2/microblog/connections", headers=account.headers).json()
    assert body == {"success": True, "connections": []}


def test_text_thread_cannot_be_connected_directly(service: Service) -> None:
    account = service.account()
    with pytest.raises(ConnectionRuleError, match="photo_sharing"):
        account.connect("text_thread", "@direct")


@pytest.mark.parametrize(("plan", "cap"), [(Plan.BUSINESS, 15), (Plan.AGENCY, 30)])
def test_profiles_per_platform_are_capped_by_plan_counting_inactive(
    service: Service, plan: Plan, cap: int
) -> None:
    account = service.account(plan)
    ids = [account.connect("microblog", f"@m{i}") for i in range(cap)]
    account.move("expire_token", ids[0])
    with pytest.raises(ConnectionRuleError, match=f"allows {cap} microblog"):
        account.connect("microblog", "@one-too-many")
    # Other platforms have their own cap, and removing one frees a place.
    account.connect("pin_board", "pins")
    account.move("disconnect", ids[1])
    account.connect("microblog", "@fits-again")


def test_connection_list_is_rate_limited_per_key(service: Service) -> None:
    service.client.app.state.rate_limiter.per_minute = 3  # type: ignore[attr-defined]
    account, other = service.account(), service.account()
    for _ in range(3):
        assert account.get("/api/connections/unified").status_code == 200  # type: ignore[attr-defined]
    limited = service.client.get("/api/v2/microblog/connections", headers=account.headers)
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert other.get("/api/connections/unified").status_code == 200  # type: ignore[attr-defined]
