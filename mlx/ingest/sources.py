"""Find and open inputs: files, compressed files, Maildirs, public-inbox epochs.

Compression is detected by content (magic bytes), never by file name, and
streamed: nothing is unpacked to a temporary file.  A decompression-ratio guard
stops gzip bombs.  The kind of a plain file is decided by sniffing its head.
"""

from __future__ import annotations

import bz2
import gzip
import logging
import lzma
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from mlx.errors import InputNotFoundError, NotMailError
from mlx.ingest.split import FROM_LINE

log = logging.getLogger(__name__)

GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"

# A header line: "Subject: foo", "Return-Path: <x@y>", "X-Mailer: git-send-email"
HEADER_LINE = re.compile(rb"[!-9;-~]+:[ \t]*\S?")
# The plain-text rendering of one message (seed 000): subject line, blank, then
# "[Hangbin Liu <liuhangbin@gmail.com>]"
TEXT_AUTHOR_LINE = re.compile(rb"\[[^\]\n]*<[^>\n]+@[^>\n]+>\]\r?\n")

BOMB_RATIO = 200  # decompressed:compressed bytes beyond which we stop ...
BOMB_FLOOR = 1 << 30  # ... once this much has come out (real mail packs ~5-10x)


class DecompressionBombError(ValueError):
    """Raised inside a stream whose output outgrows its input implausibly."""


@dataclass(frozen=True)
class Source:
    """One input to ingest. ``kind``: mbox, eml, text, maildir-file, git."""

    path: str
    kind: str
    compression: str = ""  # "", "gzip", "bz2", "xz"


class _GuardedReader:
    """Counts decompressed bytes against the compressed bytes read so far."""

    def __init__(self, raw: BinaryIO, stream: BinaryIO, path: str) -> None:
        self.raw = raw
        self.stream = stream
        self.path = path
        self.out = 0

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        self.out += len(data)
        if self.out > BOMB_FLOOR and self.out > BOMB_RATIO * max(self.raw.tell(), 1):
            raise DecompressionBombError(
                f"decompressed {self.out} bytes from {self.raw.tell()}: "
                f"ratio over {BOMB_RATIO}, stopped (decompression bomb?)")
        return data

    def close(self) -> None:
        self.stream.close()
        self.raw.close()


def compression_of(head: bytes) -> str:
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(BZ2_MAGIC):
        return "bz2"
    if head.startswith(XZ_MAGIC):
        return "xz"
    return ""


def open_stream(path: str) -> BinaryIO:
    """Open ``path`` for reading, decompressing by content, streaming."""
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    head = raw.read(6)
    raw.seek(0)
    kind = compression_of(head)
    if not kind:
        return raw
    stream: BinaryIO
    if kind == "gzip":
        stream = gzip.GzipFile(fileobj=raw)  # type: ignore[assignment]
    elif kind == "bz2":
        stream = bz2.BZ2File(raw)  # type: ignore[assignment]
    else:
        stream = lzma.LZMAFile(raw)  # type: ignore[assignment]
    return _GuardedReader(raw, stream, path)  # type: ignore[return-value]


def read_blocks(stream: BinaryIO, size: int = 1 << 20) -> Iterator[bytes]:
    while block := stream.read(size):
        yield block


def sniff_head(path: str, size: int = 65536) -> tuple[bytes, str]:
    """The first ``size`` decompressed bytes of a file and its compression."""
    with open(path, "rb") as raw:
        compression = compression_of(raw.read(6))
    stream = open_stream(path)
    try:
        return stream.read(size), compression
    except (OSError, EOFError, lzma.LZMAError, DecompressionBombError):
        return b"", compression
    finally:
        stream.close()


def classify(head: bytes) -> str | None:
    """mbox, eml or text for a file head; None when it holds no mail."""
    start = head.lstrip(b"\r\n")
    first = start.split(b"\n", 1)[0] + b"\n"
    if FROM_LINE.match(first.replace(b"\r\n", b"\n")):
        return "mbox"
    if b"\nFrom " in head and _has_from_line(head):
        return "mbox"  # junk or a preamble before the first message
    if HEADER_LINE.match(start) and _header_block(start):
        return "eml"
    lines = start.split(b"\n", 3)
    if len(lines) >= 3 and lines[1].strip() == b"" and TEXT_AUTHOR_LINE.match(lines[2] + b"\n"):
        return "text"
    return None


def _has_from_line(head: bytes) -> bool:
    return any(FROM_LINE.match(line + b"\n")
               for line in head.split(b"\n") if line.startswith(b"From "))


def _header_block(head: bytes) -> bool:
    """At least two header lines before the first blank line (or end)."""
    block = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    lines = [ln for ln in block.split(b"\n") if ln and not ln[:1].isspace()]
    if len(lines) < 2 and not (lines and re.match(rb"(?i)(subject|from|message-id):", lines[0])):
        return False
    good = sum(1 for ln in lines if HEADER_LINE.match(ln))
    return good >= max(1, int(0.8 * len(lines)))


def is_git_dir(path: str) -> bool:
    return (os.path.isfile(os.path.join(path, "HEAD"))
            and os.path.isdir(os.path.join(path, "objects")))


def inbox_clone(path: str) -> str | None:
    """The ``.git`` folder of a non-bare clone of a public-inbox epoch (``git clone
    URL/0``, a mirror tool's checkout, ``--no-checkout``): a work tree whose commits
    carry blob ``m`` (or ``d``, a deletion); None for any other folder."""
    gdir = os.path.join(path, ".git")
    if not (os.path.isdir(gdir) and is_git_dir(gdir)):
        return None
    return gdir if is_inbox_repo(gdir) else None


def is_inbox_repo(gdir: str) -> bool:
    """Does the tip of this repository hold a public-inbox message blob?"""
    git = shutil.which("git")
    if git is None:
        return False
    proc = subprocess.run([git, "--git-dir", gdir, "ls-tree", "--name-only", "HEAD"],
                          capture_output=True, check=False)
    names = proc.stdout.decode("utf-8", "replace").split()
    return proc.returncode == 0 and (names == ["m"] or names == ["d"])


def is_maildir(path: str) -> bool:
    return all(os.path.isdir(os.path.join(path, d)) for d in ("cur", "new"))


def _epochs(path: str) -> list[str]:
    """``git/0.git``, ``git/1.git`` ... of a public-inbox v2 inbox, in epoch order."""
    gdir = os.path.join(path, "git")
    if not os.path.isdir(gdir):
        return []
    found = [(int(m.group(1)), os.path.join(gdir, n)) for n in os.listdir(gdir)
             if (m := re.fullmatch(r"(\d+)\.git", n)) and is_git_dir(os.path.join(gdir, n))]
    return [p for _, p in sorted(found)]


def discover(paths: list[str]) -> tuple[list[Source], list[str]]:
    """Sources for the given paths, and the files skipped inside directories.

    A path given directly must be usable: a missing path or a file with no mail
    raises an ``MlxError`` before anything is read or written.  Inside a
    directory tree, files that hold no mail are skipped (and reported).
    """
    sources: list[Source] = []
    skipped: list[str] = []
    for path in paths:
        if not os.path.exists(path):
            raise InputNotFoundError(path)
        if os.path.isdir(path):
            found = _walk(path, skipped)
            if not found:
                raise NotMailError(path, "a directory with no mail files in it")
            sources.extend(found)
        else:
            sources.append(_file_source(path))
    return sources, skipped


def _file_source(path: str) -> Source:
    if os.path.getsize(path) == 0:
        raise NotMailError(path, "an empty file")
    head, compression = sniff_head(path)
    kind = classify(head)
    if kind is None:
        what = "a compressed file with no mail in it" if compression else _describe(head)
        raise NotMailError(path, what)
    return Source(os.path.abspath(path), kind, compression)


def _describe(head: bytes) -> str:
    if head.startswith(b"\x89PNG"):
        return "a PNG image"
    if head.startswith(b"%PDF"):
        return "a PDF document"
    if b"\x00" in head[:1024]:
        return "a binary file"
    return "a text file with no mail headers or From_ lines"


def _walk(root: str, skipped: list[str]) -> list[Source]:
    if is_git_dir(root):
        return [Source(os.path.abspath(root), "git")]
    if (gdir := inbox_clone(root)) is not None:
        return [Source(os.path.abspath(gdir), "git")]  # not the one message checked out
    epochs = _epochs(root)
    if epochs:
        return [Source(os.path.abspath(p), "git") for p in epochs]
    out: list[Source] = []
    if is_maildir(root):
        for sub in ("new", "cur"):
            d = os.path.join(root, sub)
            for name in sorted(os.listdir(d)):
                p = os.path.join(d, name)
                if os.path.isfile(p) and os.path.getsize(p):
                    out.append(Source(os.path.abspath(p), "eml"))
        return out
    for name in sorted(os.listdir(root)):
        if name.startswith("."):
            continue
        p = os.path.join(root, name)
        if os.path.isdir(p):
            out.extend(_walk(p, skipped))
        elif os.path.isfile(p):
            try:
                out.append(_file_source(p))
            except NotMailError as exc:
                log.info("skipping %s", exc)
                skipped.append(p)
    return out
