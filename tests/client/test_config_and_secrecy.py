"""Where the address and key come from, and that the key never shows."""

from __future__ import annotations

import logging
from collections.abc import Callable

import httpx
import pytest

from pressroom.client import AuthenticationError, Client, ConfigurationError, ValidationError
from tests.client.hosted import API_KEY, Hosted
from tests.conftest import Service


def test_address_and_key_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, hosted: Hosted
) -> None:
    monkeypatch.setenv("PRESSROOM_BASE_URL", "https://api.hosted.example/")
    monkeypatch.setenv("PRESSROOM_API_KEY", API_KEY)
    with Client(http_client=httpx.Client(transport=hosted.transport())) as client:
        assert client.base_url == "https://api.hosted.example"
        client.publish_microblog(connection_id="c", text="x")
    assert hosted.requests[0].headers["X-API-Key"] == API_KEY
    assert str(hosted.requests[0].url) == "https://api.hosted.example/api/v2/microblog/publish"


def test_arguments_win_over_an_injected_clients_base_url_which_wins_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PRESSROOM_BASE_URL", "http://from-env")
    monkeypatch.setenv("PRESSROOM_API_KEY", "prk_live_env")
    injected = httpx.Client(base_url="http://injected")
    assert Client(http_client=injected).base_url == "http://injected"
    assert Client(base_url="http://arg", http_client=injected).base_url == "http://arg"
    assert Client().base_url == "http://from-env"


def test_missing_configuration_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRESSROOM_BASE_URL", raising=False)
    monkeypatch.delenv("PRESSROOM_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="PRESSROOM_BASE_URL"):
        Client(api_key="k")
    with pytest.raises(ConfigurationError, match="PRESSROOM_API_KEY"):
        Client(base_url="http://x")


def test_the_key_never_appears_in_logs_reprs_or_errors(
    service: Service,
    client_for: Callable[..., Client],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger: ours, httpx's, httpcore's
    account = service.account()
    account.connect("microblog", "@acme")
    client = client_for(account)
    stale = client_for(account)

    shown: list[str] = [repr(client), str(client._settings)]
    client.list_connections()
    issued = client.get_api_key()
    shown += [repr(issued), str(issued), issued.model_dump_json()]
    rotated = client.rotate_api_key()
    new_key = rotated.api_key.get_secret_value()
    shown += [repr(rotated), repr(client), str(client._settings)]
    with pytest.raises(AuthenticationError) as caught:
        stale.get_api_key()
    shown += [str(caught.value), repr(caught.value), repr(caught.value.args)]

    # A service that quotes the key back in a message gets it masked.
    echo = {"success": False, "error": {"code": "validation_error", "message": f"bad {new_key}"}}
    quoting = Client(
        base_url="http://x",
        api_key=new_key,
        http_client=httpx.Client(
            transport=httpx.MockTransport(lambda _r: httpx.Response(400, json=echo))
        ),
    )
    with pytest.raises(ValidationError) as quoted:
        quoting.get_api_key()
    shown += [str(quoted.value), repr(quoted.value), quoted.value.message, repr(quoted.value.body)]
    assert quoted.value.message == "bad ***"

    assert caplog.records, "the client logs its requests at DEBUG"
    shown += [record.getMessage() for record in caplog.records]
    for text in shown:
        assert account.key not in text
        assert new_key not in text
