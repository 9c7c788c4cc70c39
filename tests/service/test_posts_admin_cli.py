"""``pressroom admin posts``: another process reads what the sandbox platforms received."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from pressroom.platforms import Platform
from tests.conftest import Service
from tests.support.files import make_file
from tests.support.publish import publish, valid_body


def admin_posts(service: Service, *args: str) -> str:
    env = {
        **os.environ,
        "PRESSROOM_DATA_DIR": str(service.settings.data_dir),
        "PRESSROOM_DATABASE_URL": service.settings.database_url,
    }
    done = subprocess.run(
        [sys.executable, "-m", "pressroom.cli.main", "admin", "posts", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_admin_posts_lists_every_delivery_newest_first(service: Service) -> None:
    account = service.account()
    micro = publish(
        account, Platform.MICROBLOG, valid_body(account, Platform.MICROBLOG, text="hello world")
    ).json()
    video = publish(
        account, Platform.VIDEO_SHARING, valid_body(account, Platform.VIDEO_SHARING)
    ).json()
    service.client.post(
        f"/api/v2/video_sharing/thumbnail/{video['videoId']}",
        json={"thumbnailFileId": make_file(account, "image")},
        headers=account.headers,
    ).raise_for_status()

    rows = json.loads(admin_posts(service, "--json"))
    assert [(r["platform"], r["kind"]) for r in rows] == [
        ("video_sharing", "thumbnail"),
        ("video_sharing", "post"),
        ("microblog", "post"),
    ]
    assert rows[2]["platformPostId"] == micro["microblogPostId"]
    assert rows[2]["url"] == micro["url"] and rows[2]["recordId"] == micro["recordId"]
    assert rows[2]["fields"] == {"text": "hello world"}
    assert rows[1]["media"]["kind"] == "video"

    mine = json.loads(admin_posts(service, "--json", "--connection", micro["connectionId"]))
    assert [r["platformPostId"] for r in mine] == [micro["microblogPostId"]]
    text = admin_posts(service, "--platform", "video_sharing", "--limit", "1")
    assert text.count("\n") == 1
    assert "video_sharing  thumbnail" in text and video["videoId"] in text
