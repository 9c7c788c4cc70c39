"""Pinterest's documented requests, for ``tests.drivers.contract``, from Pinterest's own
descriptions.

- **Bodies, queries and their limits** come from Pinterest's generated client
  (``pinterest-generated-client`` on PyPI, API 5.14.0): ``PinCreate`` and
  ``PinMediaSourceImageURL`` validate the pin (lengths, id patterns, allowed values), and
  each endpoint object (``PinsApi.pins_create_endpoint`` …) lists the query parameters it
  takes and their validations. The client's models accept any extra key, so the keys
  sent are checked against each model's ``openapi_types`` here.
- **Scopes** are not in the client; they are each operation's ``security`` in Pinterest's
  published API description (github.com/pinterest/api-description ``v5/openapi.yaml``,
  5.23.0 of 2025-12-11, the same in every version since 5.11.0), kept here as data.
- **The token request's ``continuous_refresh``** came in API 5.15.0, after the client's
  5.14.0: 5.15.0 to 5.18.0 list it on ``OauthAccessTokenRequestCode``, and 5.23.0's
  ``/oauth/token`` says apps made before 2025-09-25 must send it ``true``.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import httpx
from openapi_generated.pinterest_client.api.boards_api import BoardsApi
from openapi_generated.pinterest_client.api.pins_api import PinsApi
from openapi_generated.pinterest_client.api.user_account_api import UserAccountApi
from openapi_generated.pinterest_client.api_client import ApiClient
from openapi_generated.pinterest_client.api_client import Endpoint as ClientEndpoint
from openapi_generated.pinterest_client.exceptions import OpenApiException
from openapi_generated.pinterest_client.model.oauth_access_token_request_code import (
    OauthAccessTokenRequestCode,
)
from openapi_generated.pinterest_client.model.oauth_access_token_request_refresh import (
    OauthAccessTokenRequestRefresh,
)
from openapi_generated.pinterest_client.model.pin_create import PinCreate
from openapi_generated.pinterest_client.model.pin_media_source_image_url import (
    PinMediaSourceImageURL,
)
from openapi_generated.pinterest_client.model.pin_media_source_images_url import (
    PinMediaSourceImagesURL,
)
from openapi_generated.pinterest_client.model.pin_media_source_images_url_items import (
    PinMediaSourceImagesURLItems,
)

from tests.drivers.contract import Check, Contract, Endpoint, bearer, form_body, json_body, query

CLIENT = "pinterest-generated-client 0.1.12 (Pinterest API 5.14.0)"
DESCRIPTION = "https://github.com/pinterest/api-description/blob/main/v5/openapi.yaml (5.23.0)"
AUTH_PAGE = (
    "https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/"
)

SCOPES = {
    "pins_create": frozenset({"boards:read", "boards:write", "pins:read", "pins:write"}),
    "boards_list_pins": frozenset({"boards:read", "pins:read"}),
    "user_account_get": frozenset({"user_accounts:read"}),
    "boards_list": frozenset({"boards:read"}),
    "pins_list": frozenset({"boards:read", "pins:read"}),
    "pins_analytics": frozenset({"boards:read", "pins:read"}),
}
"""DESCRIPTION: ``security: pinterest_oauth2`` of each operation (by operation id)."""
CONTINUOUS_REFRESH = "continuous_refresh"
"""DESCRIPTION 5.15.0-5.18.0 ``OauthAccessTokenRequestCode``; 5.23.0 ``/oauth/token``: "If
your app was created before September 25, 2025, make sure to set the continuous_refresh
parameter to true". pressroom cannot know when the operator's app was made, so the code
exchange always sends it."""

_api = ApiClient()
PINS_CREATE = PinsApi(_api).pins_create_endpoint
BOARDS_LIST_PINS = BoardsApi(_api).boards_list_pins_endpoint
USER_ACCOUNT_GET = UserAccountApi(_api).user_account_get_endpoint
BOARDS_LIST = BoardsApi(_api).boards_list_endpoint
PINS_LIST = PinsApi(_api).pins_list_endpoint
PINS_ANALYTICS = PinsApi(_api).pins_analytics_endpoint
ANALYTICS_PAGE = "https://developers.pinterest.com/docs/api/v5/pins-analytics"
ANALYTICS_DAYS = 90
"""ANALYTICS_PAGE: ``start_date`` and ``end_date`` within the last 90 days, no later than today."""


def _fail(what: str, exc: Exception) -> AssertionError:
    return AssertionError(f"{what} is not what Pinterest documents ({CLIENT}): {exc}")


def check_pin(body: Any) -> None:
    """``body`` as ``PinCreate`` takes it, with an ``image_url`` media source."""
    assert isinstance(body, dict), f"the pin is not a JSON object: {body!r}"
    writable = set(PinCreate.openapi_types) - set(PinCreate.read_only_vars)
    unknown = set(body) - writable
    assert not unknown, f"PinCreate has no writable field {sorted(unknown)} ({CLIENT})"
    try:
        PinCreate(**body)
    except (OpenApiException, TypeError) as exc:
        raise _fail("the pin", exc) from None
    source = body.get("media_source")
    assert isinstance(source, dict), "the pin has no media_source"
    if source.get("source_type") == "multiple_image_urls":
        _check_carousel_source(source)
        return
    unknown = set(source) - set(PinMediaSourceImageURL.openapi_types)
    assert not unknown, f"PinMediaSourceImageURL has no field {sorted(unknown)} ({CLIENT})"
    try:
        PinMediaSourceImageURL(**source)
    except (OpenApiException, TypeError) as exc:
        raise _fail("the media source", exc) from None


def _check_carousel_source(source: dict[str, Any]) -> None:
    """A carousel Pin's ``media_source``: ``PinMediaSourceImagesURL`` (2 to 5 items, each
    a ``PinMediaSourceImagesURLItems``)."""
    unknown = set(source) - set(PinMediaSourceImagesURL.openapi_types)
    assert not unknown, f"PinMediaSourceImagesURL has no field {sorted(unknown)} ({CLIENT})"
    raw = source.get("items")
    assert isinstance(raw, list), "a carousel Pin's media_source has items"
    try:
        items = []
        for item in raw:
            assert isinstance(item, dict), f"an item is not an object: {item!r}"
            extra = set(item) - set(PinMediaSourceImagesURLItems.openapi_types)
            assert not extra, f"PinMediaSourceImagesURLItems has no field {sorted(extra)}"
            items.append(PinMediaSourceImagesURLItems(**item))
        PinMediaSourceImagesURL(**(source | {"items": items}))
    except (OpenApiException, TypeError) as exc:
        raise _fail("the carousel's media source", exc) from None


def _query_of(endpoint: ClientEndpoint) -> Check:
    """The query the generated client's endpoint takes, with its validations."""
    taken = {
        endpoint.attribute_map[name]: name
        for name, where in endpoint.location_map.items()
        if where == "query"
    }

    def check(request: httpx.Request) -> None:
        bearer(request)
        for sent, value in query(request).items():
            assert sent in taken, (
                f"{endpoint.settings['operation_id']} takes no query parameter {sent!r}"
            )
            rules = endpoint.validations.get((taken[sent],), {})
            if "inclusive_maximum" in rules:
                assert rules["inclusive_minimum"] <= int(value) <= rules["inclusive_maximum"], (
                    f"{sent}={value} outside {rules} ({CLIENT})"
                )
            if "regex" in rules:
                assert re.search(rules["regex"]["pattern"], value), f"{sent}={value!r} ({CLIENT})"

    return check


def _path(endpoint: ClientEndpoint) -> str:
    """The endpoint's path under ``/v5``, ids as ``\\d+`` (the client's id pattern)."""
    return "/v5" + re.sub(r"\{[a-z_]+\}", r"\\d+", str(endpoint.settings["endpoint_path"]))


def _create_pin(request: httpx.Request) -> None:
    _query_of(PINS_CREATE)(request)
    check_pin(json_body(request))


def _pin_analytics(request: httpx.Request) -> None:
    """The client's query for ``pins_analytics``, its required parameters all sent, the
    dates as ANALYTICS_PAGE bounds them."""
    _query_of(PINS_ANALYTICS)(request)
    sent = query(request)
    required = {
        PINS_ANALYTICS.attribute_map[name]
        for name in PINS_ANALYTICS.params_map["required"]
        if PINS_ANALYTICS.location_map[name] == "query"
    }
    missing = required - set(sent)
    assert not missing, f"pins_analytics requires {sorted(missing)} ({CLIENT})"
    start, end = date.fromisoformat(sent["start_date"]), date.fromisoformat(sent["end_date"])
    today = date.today()
    assert start <= end <= today + timedelta(days=1), (
        f"start_date {start} to end_date {end} ({ANALYTICS_PAGE})"
    )
    assert start >= today - timedelta(days=ANALYTICS_DAYS), (
        f"start_date {start} is more than {ANALYTICS_DAYS} days back ({ANALYTICS_PAGE})"
    )
    assert all(re.fullmatch(r"[A-Z_0-9]+", kind) for kind in sent["metric_types"].split(",")), (
        f"metric_types {sent['metric_types']!r} is not a comma-separated list of metric names"
    )


def _token(request: httpx.Request) -> None:
    form = form_body(request)
    grant = form.get("grant_type")
    assert request.headers.get("authorization", "").startswith("Basic "), (
        f"the token endpoint authenticates the app with HTTP Basic ({DESCRIPTION})"
    )
    if grant == "authorization_code":
        fields = set(OauthAccessTokenRequestCode.openapi_types) | {CONTINUOUS_REFRESH}
        assert form.get(CONTINUOUS_REFRESH) == "true", (
            f"the code exchange must send {CONTINUOUS_REFRESH}=true ({DESCRIPTION}, /oauth/token)"
        )
        required = {"grant_type", "code", "redirect_uri"}
    else:
        assert grant == "refresh_token", f"grant_type {grant!r}"
        fields = set(OauthAccessTokenRequestRefresh.openapi_types)
        required = {"grant_type", "refresh_token"}
    unknown = set(form) - fields
    assert not unknown, f"the {grant} token request has no field {sorted(unknown)} ({CLIENT})"
    assert required <= set(form), f"the {grant} token request needs {sorted(required)}"


def contract(granted: frozenset[str] | None) -> Contract:
    return Contract(
        "Pinterest",
        (
            Endpoint("POST", "api.pinterest.com", "/v5/oauth/token", DESCRIPTION, _token),
            Endpoint(
                "POST",
                "api.pinterest.com",
                _path(PINS_CREATE),
                f"{CLIENT} PinsApi.pins_create; scopes {DESCRIPTION}",
                _create_pin,
                SCOPES["pins_create"],
            ),
            Endpoint(
                "GET",
                "api.pinterest.com",
                _path(BOARDS_LIST_PINS),
                f"{CLIENT} BoardsApi.boards_list_pins; scopes {DESCRIPTION}",
                _query_of(BOARDS_LIST_PINS),
                SCOPES["boards_list_pins"],
            ),
            Endpoint(
                "GET",
                "api.pinterest.com",
                _path(USER_ACCOUNT_GET),
                f"{CLIENT} UserAccountApi.user_account_get; scopes {DESCRIPTION}",
                _query_of(USER_ACCOUNT_GET),
                SCOPES["user_account_get"],
            ),
            Endpoint(
                "GET",
                "api.pinterest.com",
                _path(BOARDS_LIST),
                f"{CLIENT} BoardsApi.boards_list; scopes {DESCRIPTION}",
                _query_of(BOARDS_LIST),
                SCOPES["boards_list"],
            ),
            Endpoint(
                "GET",
                "api.pinterest.com",
                _path(PINS_LIST),
                f"{CLIENT} PinsApi.pins_list; scopes {DESCRIPTION}",
                _query_of(PINS_LIST),
                SCOPES["pins_list"],
            ),
            Endpoint(
                "GET",
                "api.pinterest.com",
                _path(PINS_ANALYTICS),
                f"{CLIENT} PinsApi.pins_analytics; {ANALYTICS_PAGE}; scopes {DESCRIPTION}",
                _pin_analytics,
                SCOPES["pins_analytics"],
            ),
        ),
        granted=granted,
    )
