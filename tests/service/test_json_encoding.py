"""A JSON body is UTF-8 (RFC 8259) or it is refused: bytes that are not UTF-8 used to be
read as a lone surrogate and published as U+FFFD."""

from __future__ import annotations

import httpx
import pytest

from pressroom.platforms import Platform
from tests.conftest import Service
from tests.support.publish import connect, deliveries, error_of

ENCODED_SURROGATE = b"\xed\xa0\x80"
"""U+D800 as UTF-8 would spell it, were surrogates characters (they are not)."""


def post_bytes(
    service: Service, path: str, body: bytes, headers: dict[str, str], method: str = "POST"
) -> httpx.Response:
    return service.client.request(
        method, path, content=body, headers={**headers, "Content-Type": "application/json"}
    )


@pytest.mark.parametrize("idempotency_key", [None, "k-utf8"])
def test_a_publish_with_bytes_that_are_not_utf8_is_refused_and_nothing_is_stored(
    service: Service, idempotency_key: str | None
) -> None:
    account = service.account()
    connection_id = connect(account, Platform.MICROBLOG)
    body = b'{"connectionId": "%s", "text": "hello %s world"}' % (
        connection_id.encode(),
        ENCODED_SURROGATE,
    )
    headers = {
        **account.headers,
        **({"Idempotency-Key": idempotency_key} if idempotency_key else {}),
    }
    response = post_bytes(service, "/api/v2/microblog/publish", body, headers)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", "text")
    assert "not UTF-8" in error["message"] and "0xED" in error["message"]
    assert deliveries(service) == []
    assert service.client.get("/api/posts", headers=account.headers).json()["posts"] == []
    if idempotency_key:  # the key was not spent on a refused body
        fixed = body.replace(ENCODED_SURROGATE, "é".encode())
        sent = post_bytes(service, "/api/v2/microblog/publish", fixed, headers)
        assert sent.status_code == 200, sent.text
        assert deliveries(service)[0].payload["fields"]["text"] == "hello é world"


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/api/upload/folders", b'{"name": "Launch \xff"}', "name"),
        (
            "POST",
            "/api/upload/presigned-url",
            b'{"filename": "caf\xe9.png", "contentType": "image/png"}',  # Latin-1, not UTF-8
            "filename",
        ),
        (
            "POST",
            "/api/webhooks",
            b'{"url": "https://hooks.example.com/x", "description": "\xc3"}',
            "description",
        ),
        ("POST", "/api/social/post", b'{"text": "\xf0\x9f\x98", "platforms": []}', "text"),
        ("POST", "/api/upload/folders", b'{"na\xedme": "x"}', "na\\xedme"),
        ("POST", "/api/upload/folders", b'{"name": "x"} \xff', None),
    ],
)
def test_every_json_route_refuses_bytes_that_are_not_utf8(
    service: Service, method: str, path: str, body: bytes, field: str | None
) -> None:
    account = service.account()
    response = post_bytes(service, path, body, account.headers, method)
    assert response.status_code == 400, response.text
    error = error_of(response)
    assert (error["code"], error["field"]) == ("validation_error", field)
    assert "A JSON body must be UTF-8 (RFC 8259)" in error["message"]
    assert (
        service.client.get("/api/upload/folders", headers=account.headers).json()["folders"] == []
    )
    assert service.client.get("/api/upload/files", headers=account.headers).json()["files"] == []
    assert service.client.get("/api/webhooks", headers=account.headers).json()["webhooks"] == []


def test_utf16_json_is_refused_as_not_utf8(service: Service) -> None:
    """Python's parser would guess the encoding; RFC 8259 allows UTF-8 alone."""
    account = service.account()
    for encoding in ("utf-16-le", "utf-16", "utf-32"):
        body = '{"name": "Launch"}'.encode(encoding)
        response = post_bytes(service, "/api/upload/folders", body, account.headers)
        assert response.status_code == 400, (encoding, response.text)
        assert "is not UTF-8" in error_of(response)["message"]


def test_utf8_beyond_ascii_is_welcome(service: Service) -> None:
    account = service.account()
    body = '{"name": "Café 😀 新闻"}'.encode()
    response = post_bytes(service, "/api/upload/folders", body, account.headers)
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "Café 😀 新闻"
