"""The two digests by which a capture names the ETRecord it was made from.

``etrecord_sha256`` is the whole file's; ``etrecord_entries_sha256`` is its
table of contents', which Gapscope reads from the ZIP's central directory when
it opens the ETRecord, so its provenance check never hashes the whole file
(docs/formats/aot-capture.md).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path


def etrecord_entries_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a ZIP archive's table of contents (the capture's ``etrecord_entries_sha256``).

    For each entry, in order of its name's raw bytes: ``"<uncompressed size>
    <CRC-32 as 8 lower-case hex> <name length> <name>\\n"``, read from the central
    directory. Gapscope checks a capture against the ETRecord it is compared
    with by this digest, which it reads when it opens the ETRecord, instead of
    hashing the whole file (docs/formats/aot-capture.md).
    """
    with zipfile.ZipFile(path) as archive:
        entries = sorted(
            (
                info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"),
                info.file_size,
                info.CRC,
            )
            for info in archive.infolist()
        )
    digest = hashlib.sha256()
    for name, size, crc in entries:
        digest.update(f"{size} {crc:08x} {len(name)} ".encode() + name + b"\n")
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file (the capture's ``etrecord_sha256``), read a MiB at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
