"""The local AT Protocol network the Bluesky driver is tested against does what the
driver's tests rely on: accounts, records read back, and a PDS that dies between a
committed write and its answer, then comes back with the write."""

from __future__ import annotations

import urllib.error

import pytest

from tests.support.atproto import LocalNetwork, xrpc

# The first test pays for the network's install on a cold cache (minutes) and its start.
pytestmark = pytest.mark.timeout(900)


def _post(network: LocalNetwork, did: str, token: str, rkey: str, text: str) -> dict[str, object]:
    return xrpc(
        network.pds_url,
        "com.atproto.repo.createRecord",
        body={
            "repo": did,
            "collection": "app.bsky.feed.post",
            "rkey": rkey,
            "record": {
                "$type": "app.bsky.feed.post",
                "text": text,
                "createdAt": "2026-11-26T12:00:00.000Z",
            },
        },
        token=token,
    )


def test_an_account_posts_and_reads_its_record_back(atproto_network: LocalNetwork) -> None:
    account = atproto_network.create_account("smoke")
    made = _post(atproto_network, account.did, account.access_jwt, "3lbsmoke2222a", "hello")
    assert made["uri"] == f"at://{account.did}/app.bsky.feed.post/3lbsmoke2222a"
    texts = [r["value"]["text"] for r in atproto_network.records(account.did)]
    assert texts == ["hello"]


def test_a_pds_killed_after_the_write_keeps_it_and_refuses_the_same_key(
    atproto_network: LocalNetwork,
) -> None:
    account = atproto_network.create_account("kill")
    atproto_network.kill_after_next_write()
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        _post(atproto_network, account.did, account.access_jwt, "3lbkill22222a", "once")
    assert atproto_network.wait_pds_dead() != 0
    atproto_network.restart_pds()
    assert [r["value"]["text"] for r in atproto_network.records(account.did)] == ["once"]
    with pytest.raises(urllib.error.HTTPError) as refused:
        _post(atproto_network, account.did, account.access_jwt, "3lbkill22222a", "twice")
    # The PDS refuses a second record at the same key (it answers 500: the repository's
    # unique constraint), so a retry with the same key can never post twice.
    assert refused.value.code >= 400
    assert [r["value"]["text"] for r in atproto_network.records(account.did)] == ["once"]
