"""Imported before a conversion's bounds are measured: the codecs' libraries are large
and loaded once per process, and are no part of what one file costs."""

from __future__ import annotations

import av  # noqa: F401
from PIL import Image, ImageCms, ImageOps  # noqa: F401
