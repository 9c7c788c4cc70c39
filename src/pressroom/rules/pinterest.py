"""Pinterest (pin_board): the Pin's title and description as Pinterest's published API
description limits them (``PinCreate``: ``title`` maxLength 100, ``description``
maxLength 800), and the images of a carousel Pin (``PinMediaSourceImagesURL``:
``items`` minItems 2, maxItems 5).

A JSON Schema ``maxLength`` counts code points, so a title of 100 characters with
accents written as two code points is over Pinterest's limit while within the spec's.

Not in the table: image formats and sizes (not confirmed on a Pinterest page; only
third-party guides list them); ``alt_text`` (500) and ``link`` (2,048), which no publish
sends.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.counting import Unit
from pressroom.rules.model import ItemsPerPost, Rule, TextLength

PLATFORM = Platform.PIN_BOARD
NETWORK = "Pinterest"
PIN_CREATE = "https://github.com/pinterest/api-description/blob/main/v5/openapi.yaml"
"""Pinterest's OpenAPI description of API v5, schemas ``PinCreate`` and
``PinMediaSourceImagesURL``."""

RULES: tuple[Rule, ...] = (
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="title_length",
        doc_url=PIN_CREATE,
        fields=("title",),
        limit=100,
        unit=Unit.CODE_POINTS,
    ),
    TextLength(
        platform=PLATFORM,
        network=NETWORK,
        name="description_length",
        doc_url=PIN_CREATE,
        fields=("description",),
        limit=800,
        unit=Unit.CODE_POINTS,
    ),
    ItemsPerPost(
        platform=PLATFORM,
        network=NETWORK,
        name="carousel_items",
        doc_url=PIN_CREATE,
        min_items=2,
        max_items=5,
    ),
)
