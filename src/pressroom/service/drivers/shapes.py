"""Ids and URLs shaped like each platform's own, so clients parse what they will meet.

Hosts are under ``.example`` (reserved for documentation, RFC 2606): a sandbox URL is
never mistaken for a live post.
"""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from pressroom.platforms import Platform, PostFormat

_ID_ALPHABET = string.ascii_letters + string.digits + "-_"
_LEADING_DIGITS = string.digits[1:]


def _picks(rng: random.Random, alphabet: str, count: int) -> str:
    """``count`` draws of ``rng.choice(alphabet)``, the very same ones (a seed gives the
    ids and failures it gave before), without two calls of Python per character: an id
    of 19 digits cost 10 us, the most of anything the sandbox does for a text post."""
    bits, size = rng.getrandbits, len(alphabet)
    width = size.bit_length()
    drawn = []
    for _ in range(count):
        value = bits(width)
        while value >= size:
            value = bits(width)
        drawn.append(alphabet[value])
    return "".join(drawn)


def _digits(rng: random.Random, count: int) -> str:
    return _picks(rng, _LEADING_DIGITS, 1) + _picks(rng, string.digits, count - 1)


def _token(rng: random.Random, count: int) -> str:
    return _picks(rng, _ID_ALPHABET, count)


def _handle(name: str) -> str:
    """A URL-safe handle from a display name or ``@handle``."""
    cleaned = "".join(c if c.isalnum() or c in "._-" else "-" for c in name.lstrip("@"))
    return cleaned.strip("-").lower() or "account"


def _page_id(connection_id: str) -> str:
    """A page's numeric id, stable for its connection."""
    digest = int(hashlib.sha256(connection_id.encode()).hexdigest(), 16)
    return str(100000000000000 + digest % 900000000000000)


@dataclass(frozen=True)
class Created:
    post_id: str
    url: str


Shape = Callable[[random.Random, str, str], Created]
"""(rng, account name, connection id) -> the new item's id and public URL."""


def _microblog(rng: random.Random, name: str, _: str) -> Created:
    post_id = _digits(rng, 19)
    return Created(post_id, f"https://microblog.example/{_handle(name)}/status/{post_id}")


def _video_sharing(rng: random.Random, _name: str, _conn: str) -> Created:
    video_id = _token(rng, 11)
    return Created(video_id, f"https://video-sharing.example/watch?v={video_id}")


def _short_video(rng: random.Random, name: str, _: str) -> Created:
    post_id = _digits(rng, 19)
    return Created(post_id, f"https://short-video.example/@{_handle(name)}/video/{post_id}")


def _photo_sharing(rng: random.Random, _name: str, _conn: str) -> Created:
    return Created(_digits(rng, 17), f"https://photo-sharing.example/p/{_token(rng, 11)}/")


def _page_social(rng: random.Random, _name: str, connection_id: str) -> Created:
    page, story = _page_id(connection_id), _digits(rng, 15)
    return Created(f"{page}_{story}", f"https://page-social.example/{page}/posts/{story}")


def _pin_board(rng: random.Random, _name: str, _conn: str) -> Created:
    pin_id = _digits(rng, 18)
    return Created(pin_id, f"https://pin-board.example/pin/{pin_id}/")


def _text_thread(rng: random.Random, name: str, _: str) -> Created:
    return Created(
        _digits(rng, 17), f"https://text-thread.example/@{_handle(name)}/post/{_token(rng, 11)}"
    )


def _professional_network(rng: random.Random, _name: str, _conn: str) -> Created:
    urn = f"urn:li:share:{_digits(rng, 19)}"
    return Created(urn, f"https://professional-network.example/feed/update/{urn}/")


def _open_microblog(rng: random.Random, name: str, connection_id: str) -> Created:
    """An AT URI (``at://did/app.bsky.feed.post/rkey``) and its web page, as Bluesky's."""
    base32 = "abcdefghijklmnopqrstuvwxyz234567"
    did_digest = hashlib.sha256(connection_id.encode()).digest()
    did = "did:plc:" + "".join(base32[b % 32] for b in did_digest[:24])
    rkey = "3" + "".join(rng.choice("234567abcdefghijklmnopqrstuvwxyz") for _ in range(12))
    return Created(
        f"at://{did}/app.bsky.feed.post/{rkey}",
        f"https://open-microblog.example/profile/{_handle(name)}/post/{rkey}",
    )


SHAPES: dict[Platform, Shape] = {
    Platform.MICROBLOG: _microblog,
    Platform.VIDEO_SHARING: _video_sharing,
    Platform.SHORT_VIDEO: _short_video,
    Platform.PHOTO_SHARING: _photo_sharing,
    Platform.PAGE_SOCIAL: _page_social,
    Platform.PIN_BOARD: _pin_board,
    Platform.TEXT_THREAD: _text_thread,
    Platform.PROFESSIONAL_NETWORK: _professional_network,
    Platform.OPEN_MICROBLOG: _open_microblog,
}


def _photo_sharing_reel(rng: random.Random, _name: str, _conn: str) -> Created:
    return Created(_digits(rng, 17), f"https://photo-sharing.example/reel/{_token(rng, 11)}/")


def _photo_sharing_story(rng: random.Random, name: str, _conn: str) -> Created:
    media_id = _digits(rng, 17)
    return Created(media_id, f"https://photo-sharing.example/stories/{_handle(name)}/{media_id}/")


def _page_social_reel(rng: random.Random, _name: str, _conn: str) -> Created:
    video_id = _digits(rng, 15)
    return Created(video_id, f"https://page-social.example/reel/{video_id}")


def _page_social_story(rng: random.Random, _name: str, connection_id: str) -> Created:
    page, story = _page_id(connection_id), _digits(rng, 15)
    return Created(story, f"https://page-social.example/stories/{page}/{story}/")


def _short_video_photo(rng: random.Random, name: str, _: str) -> Created:
    post_id = _digits(rng, 19)
    return Created(post_id, f"https://short-video.example/@{_handle(name)}/photo/{post_id}")


FORMAT_SHAPES: dict[tuple[Platform, PostFormat], Shape] = {
    (Platform.PHOTO_SHARING, PostFormat.REEL): _photo_sharing_reel,
    (Platform.PHOTO_SHARING, PostFormat.STORY): _photo_sharing_story,
    (Platform.PAGE_SOCIAL, PostFormat.REEL): _page_social_reel,
    (Platform.PAGE_SOCIAL, PostFormat.STORY): _page_social_story,
    (Platform.SHORT_VIDEO, PostFormat.PHOTO): _short_video_photo,
}
"""Posts in a format whose URL differs from a feed post's: an Instagram reel's
``/reel/`` and story's ``/stories/<handle>/<id>/``, a Facebook reel's ``/reel/<video
id>`` and story's ``/stories/<page>/<id>/``, a TikTok photo post's ``/photo/``. A
LinkedIn document post is a share like any other."""


def shape_of(platform: Platform, post_format: PostFormat) -> Shape:
    """The id and URL of a new post on ``platform`` in ``post_format``."""
    return FORMAT_SHAPES.get((platform, post_format), SHAPES[platform])


def thumbnail_url(video_id: str, version: int) -> str:
    return f"https://i.video-sharing.example/vi/{video_id}/maxresdefault.jpg?v={version}"


def comment_shape(platform: Platform, post_id: str) -> Shape:
    """A first comment on the post ``post_id``: its id and a URL that opens the post at
    the comment, shaped as each network's (an Instagram or Facebook comment id, a
    LinkedIn comment URN, a YouTube comment thread id and its ``lc=`` link)."""

    def made(rng: random.Random, _name: str, _conn: str) -> Created:
        if platform == Platform.VIDEO_SHARING:
            thread = "Ugz" + _token(rng, 23)
            return Created(thread, f"https://video-sharing.example/watch?v={post_id}&lc={thread}")
        if platform == Platform.PROFESSIONAL_NETWORK:
            number = _digits(rng, 19)
            urn = f"urn:li:comment:({post_id},{number})"
            return Created(
                urn,
                f"https://professional-network.example/feed/update/{post_id}/?commentUrn={urn}",
            )
        if platform == Platform.PAGE_SOCIAL:
            story = post_id.rpartition("_")[2]
            comment = _digits(rng, 16)
            return Created(
                f"{story}_{comment}",
                f"https://page-social.example/{post_id}?comment_id={comment}",
            )
        comment = _digits(rng, 17)
        return Created(comment, f"https://photo-sharing.example/p/{post_id}/c/{comment}/")

    return made


def item_shape(platform: Platform, post: Created, index: int) -> Shape:
    """Item ``index`` (from 1) of the carousel ``post``, shaped as its network names a
    carousel's items: an Instagram or Threads child media id (the post's URL opening at
    the item), a Facebook photo id and its page, a LinkedIn image URN (no page of its
    own: the post's)."""

    def made(rng: random.Random, _name: str, _conn: str) -> Created:
        if platform == Platform.PAGE_SOCIAL:
            photo = _digits(rng, 16)
            return Created(photo, f"https://page-social.example/photo/?fbid={photo}")
        if platform == Platform.PROFESSIONAL_NETWORK:
            return Created(f"urn:li:image:{_token(rng, 20)}", post.url)
        return Created(_digits(rng, 17), f"{post.url}?img_index={index}")

    return made
