"""The one error a conversion raises for a file it cannot fit."""

from __future__ import annotations


class ConversionError(ValueError):
    """The file cannot be converted to meet the target; the message says why, in words
    for the file's owner (it becomes the derived file's failure reason)."""
