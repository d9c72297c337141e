"""The exporter's two errors, apart so that every module can raise them without an import cycle."""

from __future__ import annotations


class CaptureFormatError(ValueError):
    """A file or value that does not follow the AOT capture format."""


class CaptureError(Exception):
    """A problem with the ETRecord, program or inputs the user gave, worded for them."""
