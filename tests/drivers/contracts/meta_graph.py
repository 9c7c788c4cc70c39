"""What the three Meta contracts share: typed request models and where a token may go.

Meta publishes no machine-readable description of these APIs for our use: its
``facebook-business`` SDK carries parameter names per edge (``param_types``) for Page
photos and videos and Instagram media, with no required flags, enums or limits and
nothing for Threads, and it would bring aiohttp, pycountry, curlify and
capi-param-builder into the test environment for those names alone. So each endpoint
is a pydantic model written from Meta's pages, ``extra="forbid"``, each field with the
page it comes from. The models' parameter names were compared with facebook-business
26.0.3's ``param_types`` for ``Page.create_photo``, ``Page.create_video``,
``Page.create_feed``, ``Page.get_published_posts``, ``IGUserForIGOnlyAPI.create_media``,
``create_media_publish`` and ``get_content_publishing_limit``: every name here is there.

A request is read as Meta would read it: the documented method and the parameters,
wherever they travel. A read sent as a POST with ``method=GET`` is checked as the GET
it stands for. How the token travels is checked per host (``BEARER`` or ``PARAMETER``,
as ``pressroom.service.drivers.meta`` documents); on every host no secret is in the URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from tests.drivers.contract import Endpoint, bearer, form_body, query

GRAPH_PAGES = "https://developers.facebook.com/docs/graph-api/results"
"""Cursor paging (``limit``, ``after``, ``before``) and time paging (``since``,
``until``), shared by every Graph edge that lists."""
FIELDS_PAGE = "https://developers.facebook.com/docs/graph-api/overview#fields"
"""``fields``: a comma-separated list of the node's fields to return."""

URL_SECRETS = frozenset(
    {"access_token", "client_secret", "code", "fb_exchange_token", "appsecret_proof", "input_token"}
)

Access = Literal["bearer", "parameter"]
Observer = Callable[[str, str, dict[str, str]], None]
"""Called with the method Meta reads, the path and the parameters of a valid request."""


class Request(BaseModel):
    """One endpoint's parameters; unknown ones are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Read(Request):
    """A read whose ``fields`` must be among the node's documented fields."""

    FIELDS: ClassVar[frozenset[str]] = frozenset()

    fields: str | None = None  # FIELDS_PAGE

    @field_validator("fields")
    @classmethod
    def _known_fields(cls, value: str | None) -> str | None:
        if value is not None:
            unknown = set(value.split(",")) - cls.FIELDS
            assert not unknown, f"{cls.__name__} has no fields {sorted(unknown)}"
        return value


def no_secret_in_url(request: httpx.Request) -> None:
    leaked = URL_SECRETS & set(query(request))
    assert not leaked, f"{sorted(leaked)} in the URL of {request.method} {request.url.path}"


def _valid(model: type[Request], params: dict[str, str], where: str) -> None:
    try:
        model.model_validate(params)
    except ValidationError as exc:
        raise AssertionError(f"{where}: {exc}") from None


def parameters(request: httpx.Request, access: Access) -> tuple[str, dict[str, str]]:
    """The method Meta reads the request as, and its parameters (token removed), after
    checking that the token travels as ``access`` says and nothing secret is in the URL."""
    no_secret_in_url(request)
    where = f"{request.method} {request.url.host}{request.url.path}"
    if request.method == "GET":
        params = query(request)
        method = "GET"
    else:
        params = form_body(request)
        method = params.pop("method", "POST").upper()
        assert method in ("GET", "POST"), f"{where}: method={method}"
        assert not query(request), f"{where}: a POST's parameters go in its body"
    if access == "bearer":
        bearer(request)
        assert "access_token" not in params, f"{where}: the token goes in Authorization only"
    else:
        assert "authorization" not in request.headers, (
            f"{where}: this host documents the access_token parameter, not a header"
        )
        assert params.pop("access_token", ""), f"{where}: no access_token parameter"
    return method, params


def edge(
    host: str,
    path: str,
    source: str,
    access: Access,
    *,
    get: type[Request] | None = None,
    post: type[Request] | None = None,
    scopes: frozenset[str] = frozenset(),
    then: Observer | None = None,
) -> tuple[Endpoint, ...]:
    """The endpoints of one Graph edge: its documented GET and POST, each checked with its
    model. Under ``parameter`` access a GET is sent as a POST with ``method=GET``.
    ``then`` sees each valid request in order, for rules across requests."""

    def check(request: httpx.Request) -> None:
        method, params = parameters(request, access)
        model = {"GET": get, "POST": post}[method]
        assert model is not None, f"{host}{request.url.path} documents no {method} ({source})"
        if access == "bearer":
            assert method == request.method, f"method={method} on a {request.method}"
        _valid(model, params, f"{method} {request.url.path}")
        if then is not None:
            then(method, request.url.path, params)

    endpoints = []
    if get is not None and access == "bearer":
        endpoints.append(Endpoint("GET", host, path, source, check, scopes))
    if post is not None or (get is not None and access == "parameter"):
        endpoints.append(Endpoint("POST", host, path, source, check, scopes))
    return tuple(endpoints)


def token_endpoint(
    host: str,
    path: str,
    source: str,
    models: tuple[type[Request], ...],
    *,
    override: bool,
    bearer_token: bool = False,
    method: str = "POST",
) -> Endpoint:
    """A token exchange or renewal: its body must be one of ``models``. ``override``: a
    GET-documented edge sent as a POST with ``method=GET``; ``bearer_token``: the token
    in ``Authorization`` (where the host documents it), the rest in the query."""

    def check(request: httpx.Request) -> None:
        no_secret_in_url(request)
        if bearer_token:
            bearer(request)
            params = query(request)
        else:
            params = form_body(request)
            sent = params.pop("method", None)
            assert (sent == "GET") == override, f"method={sent} on {path} ({source})"
        errors = []
        for model in models:
            try:
                model.model_validate(params)
                return
            except ValidationError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{request.url.path}: " + " / ".join(errors))

    return Endpoint(method, host, path, source, check)


class ContainerOrder:
    """Meta's order for a media container: its status is read before it is published
    ("check the container's status ... before publishing" on the Instagram and Threads
    pages). ``read`` sees status reads of a node, ``published`` the publish calls."""

    def __init__(self, status_field: str, source: str) -> None:
        self.status_field = status_field
        self.source = source
        self.read_ids: set[str] = set()

    def read(self, method: str, path: str, params: dict[str, str]) -> None:
        if self.status_field in (params.get("fields") or "").split(","):
            self.read_ids.add(path.rsplit("/", 1)[-1])

    def published(self, method: str, path: str, params: dict[str, str]) -> None:
        if method == "POST":
            container = params.get("creation_id", "")
            assert container in self.read_ids, (
                f"container {container} published without reading its {self.status_field} "
                f"first ({self.source})"
            )
