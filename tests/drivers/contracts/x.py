"""X's documented requests, for ``tests.drivers.contract``, from X's own descriptions.

- **Bodies** are validated with the official SDK's pydantic models (``xdk`` on PyPI,
  generated from X's OpenAPI): ``POST /2/tweets`` with ``CreatePostsRequest``. The SDK's
  models all allow unknown fields, so every ``model_extra`` is checked, recursively: an
  unknown field at any depth fails, as X's ``additionalProperties: false`` says.
- **Query parameters** are the SDK methods' own arguments (``UsersClient.get_me``,
  ``UsersClient.get_posts``), named as the SDK sends them, with the values their
  ``Literal`` types allow.
- **What the SDK drops from X's OpenAPI** is kept here as data, from
  https://api.x.com/2/openapi.json (X API v2 2.167, the copy in github.com/xdevplatform/docs
  ``openapi.json`` of 2026-08-22): id patterns, ``media.media_ids`` 1 to 4, the bounds of
  ``max_results``, and the OAuth 2.0 scopes of each operation (its ``security``).
"""

from __future__ import annotations

import re
import sys
import typing
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ValidationError
from xdk import schemas
from xdk.posts import client as posts_client
from xdk.users import client as users_client

from tests.drivers.contract import Check, Contract, Endpoint, bearer, form_body, json_body, query

OPENAPI = "https://api.x.com/2/openapi.json (X API v2 2.167)"
TOKEN_PAGE = "https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token"
TIMELINES_GUIDE = "https://docs.x.com/x-api/posts/timelines/integrate"

ID = r"[0-9]{1,19}"
"""OPENAPI: every Post, User and Media id (``^[0-9]{1,19}$``)."""
PATTERNS: dict[tuple[str, ...], str] = {
    ("community_id",): ID,
    ("quote_tweet_id",): ID,
    ("reply", "in_reply_to_tweet_id"): ID,
    ("edit_options", "previous_post_id"): ID,
    ("media", "preview_media_id"): ID,
}
"""OPENAPI ``CreatePostsRequest`` and its parts: string fields with a pattern."""
ITEM_PATTERNS: dict[tuple[str, ...], str] = {
    ("media", "media_ids"): ID,
    ("media", "tagged_user_ids"): ID,
}
ITEM_COUNTS: dict[tuple[str, ...], tuple[int, int]] = {
    ("media", "media_ids"): (1, 4),
    ("media", "tagged_user_ids"): (0, 10),
    ("poll", "options"): (2, 4),
}
"""OPENAPI ``minItems`` / ``maxItems`` of the lists in ``CreatePostsRequest``."""
MAX_RESULTS = (5, 100)
"""OPENAPI ``GET /2/users/{id}/tweets`` ``max_results`` minimum and maximum."""
SCOPES_CREATE = frozenset({"tweet.write", "users.read", "tweet.read"})
"""OPENAPI ``POST /2/tweets`` security ``OAuth2UserToken``."""
SCOPES_READ = frozenset({"tweet.read", "users.read"})
"""OPENAPI ``GET /2/users/me``, ``GET /2/users/{id}/tweets`` and ``GET /2/tweets/{id}``
security ``OAuth2UserToken``."""
TWEET_FIELDS_ALIAS = {"tweet.fields": "post.fields"}
"""OPENAPI 2.167 names the parameter ``post.fields`` (earlier versions, to 2.159, and the
TIMELINES_GUIDE still send ``tweet.fields``). Which of the two the live API takes is not
confirmed here, so both are accepted, with the same values."""


def extras(model: BaseModel, at: str = "") -> Iterator[str]:
    """Every field an xdk model accepted without knowing it, at any depth."""
    for name in model.model_extra or {}:
        yield f"{at}{name}"
    for name in type(model).model_fields:
        yield from _extras_in(getattr(model, name), f"{at}{name}.")


def _extras_in(value: object, at: str) -> Iterator[str]:
    if isinstance(value, BaseModel):
        yield from extras(value, at)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _extras_in(item, f"{at}{index}.")


def _at(body: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = body
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def check_post(body: Any) -> None:
    """``body`` as X's ``CreatePostsRequest`` takes it, or an AssertionError naming why."""
    assert isinstance(body, dict), f"the post is not a JSON object: {body!r}"
    try:
        model = schemas.CreatePostsRequest.model_validate(body)
    except ValidationError as exc:
        raise AssertionError(f"CreatePostsRequest refuses the post: {exc}") from None
    unknown = list(extras(model))
    assert not unknown, f"CreatePostsRequest has no field {unknown} ({OPENAPI})"
    for path, pattern in PATTERNS.items():
        value = _at(body, path)
        assert value is None or re.fullmatch(pattern, value), (
            f"{'.'.join(path)} {value!r} is not ^{pattern}$ ({OPENAPI})"
        )
    for path, pattern in ITEM_PATTERNS.items():
        for item in _at(body, path) or []:
            assert re.fullmatch(pattern, item), (
                f"{'.'.join(path)} item {item!r} is not ^{pattern}$ ({OPENAPI})"
            )
    for path, (least, most) in ITEM_COUNTS.items():
        items = _at(body, path)
        assert items is None or least <= len(items) <= most, (
            f"{'.'.join(path)} holds {len(items)}; X takes {least} to {most} ({OPENAPI})"
        )


def sdk_query(method: Callable[..., Any]) -> dict[str, frozenset[str] | None]:
    """The query parameters an xdk method sends (``post_fields`` as ``post.fields``, as
    the SDK names them) and, for list parameters, the values its ``Literal`` allows."""
    module = vars(sys.modules[method.__module__])
    hints = typing.get_type_hints(method, {**module, "Literal": Literal})
    allowed: dict[str, frozenset[str] | None] = {}
    for name, hint in hints.items():
        if name in ("return", "id"):
            continue
        sent = re.sub(r"_fields$", ".fields", name)
        values = [a for arg in typing.get_args(hint) for a in typing.get_args(arg)]
        literals = [v for arg in values for v in typing.get_args(arg)]
        allowed[sent] = frozenset(literals) if literals else None
    return allowed


def _query_of(method: Callable[..., Any], *, bounded: bool) -> Check:
    allowed = sdk_query(method)

    def check(request: httpx.Request) -> None:
        for name, value in query(request).items():
            name = TWEET_FIELDS_ALIAS.get(name, name)
            assert name in allowed, f"{method.__name__} has no query parameter {name!r}"
            values = allowed[name]
            if values is not None:
                unknown = set(value.split(",")) - values
                assert not unknown, f"{name} takes no {sorted(unknown)} ({OPENAPI})"
            if name == "max_results" and bounded:
                least, most = MAX_RESULTS
                assert least <= int(value) <= most, f"max_results {value} ({OPENAPI})"
            if name in ("start_time", "end_time"):
                datetime.fromisoformat(value.replace("Z", "+00:00"))
        bearer(request)

    return check


def _create(request: httpx.Request) -> None:
    assert not query(request), "POST /2/tweets takes no query"
    bearer(request)
    check_post(json_body(request))


def _token(request: httpx.Request) -> None:
    # TOKEN_PAGE: form-encoded; a confidential client authenticates with HTTP Basic.
    form = form_body(request)
    fields = {
        "authorization_code": {"grant_type", "code", "redirect_uri", "code_verifier", "client_id"},
        "refresh_token": {"grant_type", "refresh_token", "client_id"},
    }.get(form.get("grant_type", ""))
    assert fields is not None, f"grant_type {form.get('grant_type')!r} ({TOKEN_PAGE})"
    assert set(form) == fields, (
        f"the token request sends {sorted(form)}, X documents {sorted(fields)}"
    )
    assert request.headers.get("authorization", "").startswith("Basic "), (
        f"a confidential client authenticates with HTTP Basic ({TOKEN_PAGE})"
    )


def contract(granted: frozenset[str] | None) -> Contract:
    return Contract(
        "X",
        (
            Endpoint("POST", "api.x.com", "/2/oauth2/token", TOKEN_PAGE, _token),
            Endpoint("POST", "api.x.com", "/2/tweets", OPENAPI, _create, SCOPES_CREATE),
            Endpoint(
                "GET",
                "api.x.com",
                "/2/users/me",
                OPENAPI,
                _query_of(users_client.UsersClient.get_me, bounded=False),
                SCOPES_READ,
            ),
            Endpoint(
                "GET",
                "api.x.com",
                f"/2/tweets/{ID}",
                OPENAPI,
                _query_of(posts_client.PostsClient.get_by_id, bounded=False),
                SCOPES_READ,
            ),
            Endpoint(
                "GET",
                "api.x.com",
                f"/2/users/{ID}/tweets",
                OPENAPI,
                _query_of(users_client.UsersClient.get_posts, bounded=True),
                SCOPES_READ,
            ),
        ),
        granted=granted,
    )
