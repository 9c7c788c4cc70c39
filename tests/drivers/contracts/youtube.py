"""YouTube's contract, from YouTube's own machine-readable description of its API.

google-api-python-client ships the Data API v3 discovery document
(``googleapiclient/discovery_cache/documents/youtube.v3.json``): each method's HTTP verb,
path, query parameters (which are required, which values an enum allows), the request
body's schema, for uploads the accepted content types, and the scopes that authorize
it (any one of them). Every request the video_sharing driver makes in the tests is held
to it through ``tests/drivers/contract.py``, so a misspelt parameter or body field, a
content type YouTube does not take or a scope the consent did not ask for fails here
and not on YouTube.

The token's own information (``oauth2.tokeninfo``, which ``drivers check`` reads for the
scopes granted) is held to the OAuth2 API's discovery document the same package ships
(``oauth2.v2.json``).

What the documents do not describe is written from the page it comes from: the chunks
of a resumable upload (the resumable upload guide) and Google's token endpoint (OAuth
2.0 for web server apps), as typed models that forbid unknown fields.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict

from tests.drivers.contract import Contract, Endpoint, form_body, json_body, query

UPLOAD_PREFIX = "upload/"
HOST = "www.googleapis.com"
"""The host the reference pages give for every method (https://www.googleapis.com/...)."""
DISCOVERY = "google-api-python-client youtube.v3.json"
OAUTH2_DISCOVERY = "google-api-python-client oauth2.v2.json"
RESUMABLE_GUIDE = "https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol"
TOKEN_PAGE = "https://developers.google.com/identity/protocols/oauth2/web-server"
COMMENT_PAGE = "https://developers.google.com/youtube/v3/docs/commentThreads/insert"


@cache
def document(name: str = "youtube.v3.json") -> dict[str, Any]:
    path = resources.files("googleapiclient") / f"discovery_cache/documents/{name}"
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _tokeninfo(request: httpx.Request) -> None:
    """``oauth2.tokeninfo`` as OAUTH2_DISCOVERY describes it: its verb and path, and
    only its parameters, all in the query (the description puts them nowhere else)."""
    described = document("oauth2.v2.json")
    spec = described["methods"]["tokeninfo"]
    assert request.method == spec["httpMethod"], (request.method, spec["httpMethod"])
    assert request.url.path.lstrip("/") == spec["path"], request.url.path
    allowed = spec["parameters"] | described["parameters"]
    sent = query(request)
    unknown = set(sent) - set(allowed)
    assert not unknown, f"oauth2.tokeninfo has no parameter {sorted(unknown)}"
    assert sent.get("access_token"), "oauth2.tokeninfo: the token to describe, access_token"
    assert request.content == b"", "oauth2.tokeninfo's parameters are in the query"


def method(resource: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = document()["resources"][resource]["methods"][name]
    return found


def check(request: httpx.Request, resource: str, name: str, *, upload: bool = False) -> None:
    """Raise AssertionError naming what in ``request`` the document does not allow."""
    spec = method(resource, name)
    assert request.method == spec["httpMethod"], (request.method, spec["httpMethod"])
    path = request.url.path.lstrip("/")
    expected = (UPLOAD_PREFIX if upload else "") + spec["path"]
    assert path == expected, (path, expected)
    allowed = spec.get("parameters", {}) | document()["parameters"]
    sent = query(request)
    for parameter in sent:
        assert parameter in allowed, f"{resource}.{name} has no parameter {parameter!r}"
        enum = allowed[parameter].get("enum")
        assert enum is None or sent[parameter] in enum, (parameter, sent[parameter], enum)
    for parameter, described in spec.get("parameters", {}).items():
        if described.get("required"):
            assert parameter in sent, f"{resource}.{name} requires {parameter!r}"
    if upload:
        media = spec["mediaUpload"]
        assert sent.get("uploadType") in {*media["protocols"], "media"}, sent.get("uploadType")


def check_upload_type(content_type: str, resource: str, name: str) -> None:
    accepted = method(resource, name)["mediaUpload"]["accept"]
    major = content_type.split("/")[0]
    assert content_type in accepted or f"{major}/*" in accepted, (content_type, accepted)


def check_body(body: dict[str, Any], schema: str) -> None:
    """Every field of ``body`` exists in ``schema`` (recursively), enum values allowed."""
    properties = document()["schemas"][schema]["properties"]
    for field, value in body.items():
        assert field in properties, f"{schema} has no field {field!r}"
        described = properties[field]
        if "$ref" in described and isinstance(value, dict):
            check_body(value, described["$ref"])
        elif "enum" in described:
            assert value in described["enum"], (schema, field, value, described["enum"])
        elif described.get("type") == "boolean":
            assert isinstance(value, bool), (schema, field, value)
        elif described.get("type") == "string":
            assert isinstance(value, str), (schema, field, value)


def scopes_of(resource: str, name: str) -> frozenset[str]:
    """The scopes of which any one authorizes the method."""
    return frozenset(method(resource, name)["scopes"])


# The endpoints' checks.


def _insert(request: httpx.Request) -> None:
    """``videos.insert`` opening a resumable session: the metadata as a ``Video``, each
    of its parts named in ``part``, and the coming file's type one the method accepts."""
    check(request, "videos", "insert", upload=True)
    body = json_body(request)
    check_body(body, "Video")
    parts = set(query(request)["part"].split(","))
    assert set(body) <= parts, f"the body has parts {sorted(set(body) - parts)} not in part"
    check_upload_type(request.headers["X-Upload-Content-Type"], "videos", "insert")
    assert request.headers["X-Upload-Content-Length"].isdigit()


_CHUNK_RANGE = re.compile(r"bytes (\d+-\d+|\*)/\d+")


def _chunk(request: httpx.Request) -> None:
    """A PUT to the session URI: a chunk with its ``Content-Range``, or the status
    query ``bytes */size`` with an empty body (resumable upload guide, steps 3 and 4)."""
    sent = query(request)
    assert sent.get("uploadType") == "resumable" and sent.get("upload_id"), sent
    assert set(sent) <= {"uploadType", "upload_id"}, sent
    content_range = request.headers.get("Content-Range", "")
    assert _CHUNK_RANGE.fullmatch(content_range), content_range
    if content_range.startswith("bytes */"):
        assert request.content == b"", "a status query has no body"


def _comment_thread(request: httpx.Request) -> None:
    """``commentThreads.insert``: a ``CommentThread`` whose parts are named in ``part``,
    with the values its reference page requires (snippet.channelId, snippet.videoId,
    snippet.topLevelComment.snippet.textOriginal); the document marks none required."""
    check(request, "commentThreads", "insert")
    body = json_body(request)
    check_body(body, "CommentThread")
    parts = set(query(request)["part"].split(","))
    assert set(body) <= parts, f"the body has parts {sorted(set(body) - parts)} not in part"
    snippet = body.get("snippet") or {}
    text = ((snippet.get("topLevelComment") or {}).get("snippet") or {}).get("textOriginal")
    assert snippet.get("videoId") and snippet.get("channelId") and text, (
        f"commentThreads.insert needs channelId, videoId and the text ({COMMENT_PAGE})"
    )


def _thumbnail(request: httpx.Request) -> None:
    check(request, "thumbnails", "set", upload=True)
    check_upload_type(request.headers["Content-Type"], "thumbnails", "set")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CodeExchange(_Strict):
    """Step 5 of the web-server flow, "Exchange authorization code for refresh and
    access tokens" (TOKEN_PAGE)."""

    client_id: str
    client_secret: str
    code: str
    code_verifier: str | None = None  # with PKCE (TOKEN_PAGE, "code_verifier")
    grant_type: Literal["authorization_code"]
    redirect_uri: str


class Refresh(_Strict):
    """ "Refreshing an access token (offline access)" (TOKEN_PAGE)."""

    client_id: str
    client_secret: str
    grant_type: Literal["refresh_token"]
    refresh_token: str


def _token(request: httpx.Request) -> None:
    form = form_body(request)
    model = CodeExchange if form.get("grant_type") == "authorization_code" else Refresh
    model.model_validate(form)


def contract(granted: frozenset[str] | None) -> Contract:
    """YouTube's endpoints the driver may call; ``granted`` the scopes it consented to."""

    def documented(verb: str, path: str, resource: str, name: str, **kw: Any) -> Endpoint:
        return Endpoint(
            verb,
            HOST,
            path,
            f"{DISCOVERY} {resource}.{name}",
            any_scope=scopes_of(resource, name),
            **kw,
        )

    return Contract(
        "YouTube",
        (
            documented("POST", r"/upload/youtube/v3/videos", "videos", "insert", check=_insert),
            Endpoint(
                "PUT",
                HOST,
                r"/upload/youtube/v3/videos",
                RESUMABLE_GUIDE,
                check=_chunk,
                any_scope=scopes_of("videos", "insert"),
            ),
            documented(
                "GET",
                r"/youtube/v3/videos",
                "videos",
                "list",
                check=lambda r: check(r, "videos", "list"),
            ),
            documented(
                "GET",
                r"/youtube/v3/channels",
                "channels",
                "list",
                check=lambda r: check(r, "channels", "list"),
            ),
            documented(
                "GET",
                r"/youtube/v3/playlistItems",
                "playlistItems",
                "list",
                check=lambda r: check(r, "playlistItems", "list"),
            ),
            documented(
                "POST",
                r"/youtube/v3/commentThreads",
                "commentThreads",
                "insert",
                check=_comment_thread,
            ),
            documented(
                "GET",
                r"/youtube/v3/commentThreads",
                "commentThreads",
                "list",
                check=lambda r: check(r, "commentThreads", "list"),
            ),
            documented(
                "POST",
                r"/upload/youtube/v3/thumbnails/set",
                "thumbnails",
                "set",
                check=_thumbnail,
            ),
            Endpoint("POST", "oauth2.googleapis.com", r"/token", TOKEN_PAGE, check=_token),
            Endpoint(
                "POST", HOST, r"/oauth2/v2/tokeninfo", f"{OAUTH2_DISCOVERY} tokeninfo", _tokeninfo
            ),
        ),
        granted=granted,
    )
