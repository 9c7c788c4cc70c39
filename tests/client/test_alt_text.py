"""The client carries alt text per file (``file_alts``) through each typed method whose
label's network takes it, and the service's refusal names ``fileAlts.<id>``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest

from pressroom.client import APIError
from pressroom.platforms import Platform
from pressroom.rules.alt_text import takes_alt_text
from tests.client.test_contract_publishing import MakeClient
from tests.conftest import Service
from tests.support.files import make_file
from tests.support.publish import connect, deliveries


@pytest.mark.parametrize("platform", [p for p in Platform if takes_alt_text(p)])
def test_alt_text_goes_through_the_typed_method(
    service: Service, client_for: MakeClient, platform: Platform
) -> None:
    account = service.account()
    client = client_for(account)
    connection = connect(account, platform)
    files = [make_file(account, "image") for _ in range(2)]
    methods: dict[Platform, Callable[..., Any]] = {
        Platform.PHOTO_SHARING: client.publish_photo_sharing,
        Platform.PAGE_SOCIAL: client.publish_page_social,
        Platform.PIN_BOARD: functools.partial(client.publish_pin_board, board_id="board-1"),
        Platform.TEXT_THREAD: functools.partial(client.publish_text_thread, text="two"),
        Platform.PROFESSIONAL_NETWORK: functools.partial(
            client.publish_professional_network, text="two"
        ),
        Platform.OPEN_MICROBLOG: functools.partial(client.publish_open_microblog, text="two"),
    }
    if platform is Platform.PIN_BOARD:  # a carousel Pin takes none: a Pin of one image
        methods[platform](connection_id=connection, file_id=files[0], file_alts={files[0]: "A"})
        [post] = deliveries(service)
        assert post.payload["media"]["altText"] == "A"
        return
    methods[platform](connection_id=connection, file_ids=files, file_alts={files[1]: "Second"})
    [post] = deliveries(service)
    assert [item.get("altText") for item in post.payload["items"]] == [None, "Second"]
    with pytest.raises(APIError) as refused:
        methods[platform](connection_id=connection, file_ids=files, file_alts={"nope": "x"})
    assert refused.value.field == "fileAlts.nope"
