"""``held_to`` holds every request to the contract, the ones no route answers included:
respx refuses those as "not mocked" and never records them, so without a look at them
an undocumented endpoint or a refused field surfaced as a missing mock, not as what the
network would say.
"""

from __future__ import annotations

import contextlib

import httpx
import pytest
import respx

from tests.drivers.contract import Contract, Endpoint, held_to, query

PAGE = "https://example.com/docs/videos"


def _videos(request: httpx.Request) -> None:
    sent = query(request)
    assert set(sent) <= {"fields"}, f"videos takes no {sorted(set(sent) - {'fields'})} ({PAGE})"


def example() -> Contract:
    return Contract(
        "Example",
        (Endpoint("GET", "api.example.com", r"/v1/videos/", PAGE, check=_videos),),
    )


def test_an_undocumented_endpoint_no_route_answers_fails_with_the_contract() -> None:
    with (
        pytest.raises(AssertionError, match=r"Example documents no GET api\.example\.com/v2/"),
        respx.mock(assert_all_called=False) as router,
        held_to(router, example()),
    ):
        httpx.get("https://api.example.com/v2/video/list/")
        pytest.fail("sent and not refused")  # the refusal comes as it is sent


def test_a_refused_field_no_route_answers_fails_with_the_contract() -> None:
    with (
        pytest.raises(AssertionError, match=r"videos takes no \['cursor'\]"),
        respx.mock(assert_all_called=False) as router,
        held_to(router, example()),
    ):
        httpx.get("https://api.example.com/v1/videos/?cursor=2")
        pytest.fail("sent and not refused")


def test_a_documented_request_no_route_answers_is_still_not_mocked() -> None:
    with (
        respx.mock(assert_all_called=False) as router,
        held_to(router, example()) as held,
        pytest.raises(AssertionError, match="not mocked"),
    ):
        httpx.get("https://api.example.com/v1/videos/?fields=id")
    assert [request.url.path for request in held.checked] == ["/v1/videos/"]


def test_a_refusal_the_code_under_test_swallows_fails_when_the_block_ends() -> None:
    with (
        pytest.raises(AssertionError, match="Example documents no POST"),
        respx.mock(assert_all_called=False) as router,
        held_to(router, example()),
        contextlib.suppress(AssertionError),  # as a CLI runner or an app's error page would
    ):
        httpx.post("https://api.example.com/v1/videos/")


def test_a_route_added_inside_the_block_still_answers_and_is_held_at_the_end() -> None:
    with (
        pytest.raises(AssertionError, match=r"videos takes no \['cursor'\]"),
        respx.mock() as router,
        held_to(router, example()),
    ):
        router.get("https://api.example.com/v1/videos/").respond(200, json={"data": []})
        answer = httpx.get("https://api.example.com/v1/videos/?cursor=2")
        assert answer.json() == {"data": []}  # the route answered; the contract speaks at the end
