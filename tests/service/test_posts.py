"""``GET /api/posts`` and ``GET /api/posts/{recordId}``: every attempt, read back."""

from __future__ import annotations

from typing import Any

from pressroom.platforms import Platform
from tests.conftest import AccountHandle, Service
from tests.support.publish import error_of, publish, valid_body


def listed(account: AccountHandle, **params: Any) -> dict[str, Any]:
    response = account.service.client.get("/api/posts", params=params, headers=account.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_posts_are_listed_newest_first_and_page_without_gaps(service: Service) -> None:
    account = service.account()
    micro = account.connect("microblog", "@acme")
    published = [
        publish(account, Platform.MICROBLOG, {"connectionId": micro, "text": f"post {i}"}).json()
        for i in range(5)
    ]
    first = listed(account, limit=2)
    assert set(first) == {"success", "posts", "nextCursor"} and first["success"] is True
    seen = [p["recordId"] for p in first["posts"]]
    cursor = first["nextCursor"]
    while cursor:
        page = listed(account, limit=2, cursor=cursor)
        seen += [p["recordId"] for p in page["posts"]]
        cursor = page["nextCursor"]
    assert seen == [r["recordId"] for r in reversed(published)]
    assert listed(account)["nextCursor"] is None


def test_posts_filter_by_connection_platform_and_key(service: Service) -> None:
    account = service.account()
    one = account.connect("microblog", "@one")
    two = account.connect("microblog", "@two")
    pro = account.connect("professional_network", "Acme")
    publish(account, Platform.MICROBLOG, {"connectionId": one, "text": "a"}, key="k-a")
    publish(account, Platform.MICROBLOG, {"connectionId": two, "text": "b"}, key="k-b")
    publish(account, Platform.PROFESSIONAL_NETWORK, {"connectionId": pro, "text": "c"})

    def texts(**params: Any) -> list[str]:
        return [p["request"]["text"] for p in listed(account, **params)["posts"]]

    assert texts() == ["c", "b", "a"]
    assert texts(connectionId=two) == ["b"]
    assert texts(platform="microblog") == ["b", "a"]
    assert texts(idempotencyKey="k-a") == ["a"]
    assert texts(platform="microblog", connectionId=pro) == []


def test_one_post_by_its_record_id(service: Service) -> None:
    account = service.account()
    body = valid_body(account, Platform.PIN_BOARD, title="Soup")
    result = publish(account, Platform.PIN_BOARD, body, key="pin-1").json()
    response = account.service.client.get(
        f"/api/posts/{result['recordId']}", headers=account.headers
    )
    assert response.status_code == 200
    body_read = response.json()
    assert body_read["success"] is True
    post = body_read["post"]
    assert post == {
        "recordId": result["recordId"],
        "platform": "pin_board",
        "connectionId": body["connectionId"],
        "status": "published",
        "fileId": body["fileId"],
        "idempotencyKey": "pin-1",
        "platformPostId": result["pinId"],
        "url": result["url"],
        "request": body,
        "result": result,
        "createdAt": post["createdAt"],
        "publishedAt": result["publishedAt"],
        "parts": [],  # a single post; a thread lists its parts
        "campaign": None,  # the body said nothing of where it comes from
        "format": "post",  # the body gave no format: a feed post
    }
    assert post["createdAt"] <= post["publishedAt"]


def test_posts_of_other_accounts_are_invisible(service: Service) -> None:
    mine, theirs = service.account(), service.account()
    result = publish(theirs, Platform.MICROBLOG, valid_body(theirs, Platform.MICROBLOG)).json()
    assert listed(mine)["posts"] == []
    response = service.client.get(f"/api/posts/{result['recordId']}", headers=mine.headers)
    assert response.status_code == 404
    assert error_of(response)["code"] == "post_not_found"


def test_bad_list_parameters_are_clear_400s(service: Service) -> None:
    account = service.account()
    for params, field in (
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"platform": "myspace"}, "platform"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
    ):
        response = service.client.get("/api/posts", params=params, headers=account.headers)
        assert response.status_code == 400, params
        assert error_of(response)["field"] == field
    assert service.client.get("/api/posts").status_code == 401
