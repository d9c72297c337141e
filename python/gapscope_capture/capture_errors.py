"""The capture format's error, apart so that every part of the format can raise it."""

from __future__ import annotations


class CaptureFormatError(ValueError):
    """A file or value that does not follow the AOT capture format."""
