"""Errors by kind: status and code to class and transience, Retry-After, transport."""

from __future__ import annotations

import email.utils
import pickle
from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from pressroom import error_codes
from pressroom.client import (
    APIError,
    AuthenticationError,
    Client,
    ConflictError,
    ConnectError,
    ConnectTimeout,
    NetworkError,
    NotFoundError,
    PermissionDeniedError,
    PoolTimeout,
    PressroomError,
    RateLimitError,
    ReadTimeout,
    ServerError,
    Timeout,
    TransportError,
    UnexpectedResponseError,
    ValidationError,
    WriteTimeout,
)
from pressroom.client._base import retry_after
from pressroom.error_codes import ErrorCode


def client_answering(handler: Callable[[httpx.Request], httpx.Response]) -> Client:
    http = httpx.Client(transport=httpx.MockTransport(handler))
    return Client(base_url="http://pressroom.test", api_key="prk_live_k", http_client=http)


def error_body(code: str, message: str = "No.", field: str | None = None) -> dict[str, object]:
    return {"success": False, "error": {"code": code, "message": message, "field": field}}


@pytest.mark.parametrize(
    ("status", "code", "expected", "transient"),
    [
        (400, "text_too_long", ValidationError, False),
        (401, "invalid_api_key", AuthenticationError, False),
        (403, "plan_without_api_access", PermissionDeniedError, False),
        (404, "file_not_found", NotFoundError, False),
        (409, "file_not_ready", ConflictError, True),  # processing, or fitted for a network
        (409, "idempotency_request_in_progress", ConflictError, True),
        (429, "rate_limited", RateLimitError, True),
        (429, "upload_quota_exceeded", RateLimitError, False),  # final, though a 429
        (500, "internal_error", ServerError, True),
        (503, "platform_unavailable", ServerError, True),
        (413, "upload_too_large", APIError, False),
        (405, "method_not_allowed", APIError, False),
    ],
)
def test_status_and_code_map_to_a_kind_that_knows_its_transience(
    status: int, code: str, expected: type[APIError], transient: bool
) -> None:
    client = client_answering(lambda _r: httpx.Response(status, json=error_body(code)))
    with pytest.raises(expected) as caught:
        client.file_status("1")
    error = caught.value
    assert type(error) is expected
    assert (error.status, error.code, error.transient) == (status, code, transient)
    assert error.transient == error_codes.is_transient(status, code)


def test_every_registered_code_gets_the_class_of_its_status() -> None:
    by_status = {400: ValidationError, 401: AuthenticationError, 403: PermissionDeniedError}
    by_status |= {404: NotFoundError, 409: ConflictError, 429: RateLimitError}
    for entry in error_codes.BY_CODE.values():

        def answer(_r: httpx.Request, entry: ErrorCode = entry) -> httpx.Response:
            return httpx.Response(entry.status, json=error_body(entry.code))

        client = client_answering(answer)
        with pytest.raises(APIError) as caught:
            client.get_api_key()
        want = by_status.get(entry.status, ServerError if entry.status >= 500 else APIError)
        assert type(caught.value) is want, entry.code
        assert caught.value.transient is entry.transient, entry.code


def test_a_validation_error_names_the_field_and_reads_well() -> None:
    body = error_body("text_too_long", "text is 281 characters; at most 280.", "text")
    client = client_answering(lambda _r: httpx.Response(400, json=body))
    with pytest.raises(ValidationError) as caught:
        client.publish_microblog(connection_id="c", text="x" * 281)
    assert caught.value.field == "text"
    assert str(caught.value) == (
        "400 text_too_long: text is 281 characters; at most 280. [field: text] "
        "(POST http://pressroom.test/api/v2/microblog/publish)"
    )


def test_an_error_without_our_body_still_maps_by_status() -> None:
    client = client_answering(
        lambda _r: httpx.Response(
            502, text="<html>Bad Gateway</html>", headers={"X-Request-ID": "r1"}
        )
    )
    with pytest.raises(ServerError) as caught:
        client.latest_file()
    assert (caught.value.code, caught.value.transient) == (None, True)
    assert caught.value.message == "Bad Gateway" and caught.value.request_id == "r1"


def test_retry_after_is_read_in_seconds_and_as_an_http_date() -> None:
    assert retry_after("7") == 7.0
    assert retry_after(" 1.5 ") == 1.5
    assert retry_after("-3") == 0.0
    now = datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC).timestamp()
    assert retry_after("Mon, 02 Nov 2026 10:02:00 GMT", now=now) == 120.0
    assert retry_after("Mon, 02 Nov 2026 09:00:00 GMT", now=now) == 0.0
    assert retry_after("soon") is None
    assert retry_after(None) is None


def test_retry_after_reaches_the_error_on_429_and_503() -> None:
    future = email.utils.format_datetime(datetime.now(UTC).replace(microsecond=0), usegmt=True)
    answers = iter(
        [
            httpx.Response(429, json=error_body("rate_limited"), headers={"Retry-After": "12"}),
            httpx.Response(
                503, json=error_body("platform_unavailable"), headers={"Retry-After": future}
            ),
        ]
    )
    client = client_answering(lambda _r: next(answers))
    with pytest.raises(RateLimitError) as limited:
        client.list_connections()
    assert limited.value.retry_after == 12.0
    with pytest.raises(ServerError) as unavailable:
        client.publish_text_thread(connection_id="c", text="x")
    assert unavailable.value.retry_after is not None and 0 <= unavailable.value.retry_after <= 1


@pytest.mark.parametrize(
    ("raised", "expected", "sent"),
    [
        (httpx.ConnectError("refused"), ConnectError, False),
        (httpx.ConnectTimeout("slow connect"), ConnectTimeout, False),
        (httpx.PoolTimeout("pool"), PoolTimeout, False),
        (httpx.WriteTimeout("slow write"), WriteTimeout, True),
        (httpx.ReadTimeout("slow answer"), ReadTimeout, True),
        (httpx.RemoteProtocolError("server hung up"), NetworkError, True),
        (httpx.ReadError("reset"), NetworkError, True),
    ],
)
def test_transport_failures_say_whether_the_outcome_is_unknown(
    raised: httpx.TransportError, expected: type[TransportError], sent: bool
) -> None:
    def handler(_r: httpx.Request) -> httpx.Response:
        raise raised

    client = client_answering(handler)
    with pytest.raises(expected) as caught:
        client.publish_microblog(connection_id="c", text="hi", idempotency_key="k")
    error = caught.value
    assert error.transient is True
    assert error.request_sent is sent and error.outcome_unknown is sent
    assert error.__cause__ is raised
    assert "POST http://pressroom.test/api/v2/microblog/publish" in str(error)
    assert isinstance(error, Timeout) == isinstance(raised, httpx.TimeoutException)


def test_a_success_with_a_body_that_is_not_the_promised_shape() -> None:
    client = client_answering(lambda _r: httpx.Response(200, text="<html>login</html>"))
    with pytest.raises(UnexpectedResponseError, match="not JSON"):
        client.get_api_key()
    client = client_answering(lambda _r: httpx.Response(200, json={"uploadUrl": "x"}))
    with pytest.raises(UnexpectedResponseError, match=r"PresignedUpload \(file_?[iI]d"):
        client.presign(filename="a.png", content_type="image/png")
    client = client_answering(lambda _r: httpx.Response(200, json={"nope": 1}))
    with pytest.raises(UnexpectedResponseError, match="not an array"):
        client.list_connections()


def test_everything_the_client_raises_is_a_pressroom_error() -> None:
    for kind in (ValidationError, ReadTimeout, UnexpectedResponseError, NetworkError):
        assert issubclass(kind, PressroomError)


def test_every_error_crosses_a_process_boundary_whole() -> None:
    """A campaign task on a Dask worker, or a persisted task result, is pickled: the failure
    must arrive with its status, code, field and transience, not as an unpickling error."""
    answers = iter(
        [
            httpx.Response(400, json=error_body("text_too_long", "Too long.", "text")),
            httpx.Response(429, json=error_body("rate_limited"), headers={"Retry-After": "7"}),
        ]
    )
    client = client_answering(lambda _r: next(answers))
    raised: list[PressroomError] = []
    for _ in range(2):
        with pytest.raises(APIError) as caught:
            client.publish_microblog(connection_id="c", text="hi", idempotency_key="k")
        raised.append(caught.value)

    def unreachable(_r: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow answer")

    with pytest.raises(ReadTimeout) as timed_out:
        client_answering(unreachable).publish_microblog(
            connection_id="c", text="hi", idempotency_key="k"
        )
    raised.append(timed_out.value)
    raised.append(UnexpectedResponseError("not JSON", status=200, method="GET", url="u"))

    for error in raised:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)
        assert copy.transient == error.transient
        for name in ("status", "code", "field", "retry_after", "request_sent", "method"):
            assert getattr(copy, name, None) == getattr(error, name, None), name
    too_long, limited = (pickle.loads(pickle.dumps(e)) for e in raised[:2])
    assert (too_long.field, too_long.code, too_long.response) == ("text", "text_too_long", None)
    assert limited.retry_after == 7 and limited.transient


def test_the_pipelines_failures_cross_a_process_boundary_whole() -> None:
    from pressroom.pipeline.outcomes import PublishFailed, ResultRow, Status
    from pressroom.pipeline.retrying import TransientFailure

    row = ResultRow(
        "launch", "microblog", "@acme", Status.FAILED, error="text_too_long", attempts=3
    )
    failed = pickle.loads(pickle.dumps(PublishFailed(row)))
    assert failed.row == row and str(failed) == str(PublishFailed(row))
    cause = ServerError("down", status=503, code="platform_unavailable")
    transient = pickle.loads(pickle.dumps(TransientFailure("try again", cause=cause)))
    assert str(transient) == "try again" and isinstance(transient.cause, ServerError)
    assert transient.cause.status == 503
