"""Streaming mbox splitter: strict From_ lines, mboxrd/mboxo unescaping.

Only a *strict* From_ line separates two messages, the shape public-inbox's and
git's mbox readers require: ``From <token> <weekday> <month> <day> <hh:mm:ss>
<year>``.  A body line such as ``From my testing, the handshake...`` is text.
``mailbox.mbox`` is never used: it splits on any ``From `` line and never
unescapes mboxrd.

The splitter works on blocks of bytes (C-speed ``find``), never on Python
lines, and holds at most one message (capped at ``max_message``) in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# From mboxrd@z Thu Jan  1 00:00:00 1970                      (public-inbox, lore)
# From alice at example.org  Mon Jun  3 09:12:44 2019         (pipermail month)
# From 9f3c1a0b2e4d Mon Sep 17 00:00:00 2001                  (git format-patch)
# From MAILER-DAEMON Thu Aug 26 16:49:36 2021                 (LISTSERV export)
# From benh@kernel.crashing.org Fri Oct 22 11:51:02 2010 +0000 (timezone after year)
FROM_LINE = re.compile(
    rb"From (?:\S+ at \S+|\S+) +"
    rb"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? +"
    rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +"
    rb"\d{1,2} +\d{1,2}:\d\d(?::\d\d)? +"
    rb"(?:[A-Z]{1,5} +|[+-]\d{4} +)?"
    rb"\d{4}\b[^\n]*\n"
)

# ">From x" -> "From x", ">>From x" -> ">From x" (mboxrd: one '>' removed)
MBOXRD_ESCAPED = re.compile(rb"^>(>*From )", re.M)
# ">From x" -> "From x" only (mboxo/pipermail: only unquoted From was escaped)
MBOXO_ESCAPED = re.compile(rb"^>(From )", re.M)
# a line that needs escaping when written back as mboxrd
MBOXRD_TO_ESCAPE = re.compile(rb"^(>*From )", re.M)

BLOCK_SIZE = 1 << 20
MAX_MESSAGE = 32 << 20


@dataclass(frozen=True)
class RawMessage:
    """One message's bytes as split, with where it came from."""

    data: bytes
    offset: int  # byte offset of its From_ line in the (decompressed) stream
    length: int  # bytes from the From_ line up to the next From_ line
    truncated: int = 0  # bytes dropped past max_message (0 = whole)
    defects: tuple[str, ...] = field(default=())


def is_from_line(line: bytes) -> bool:
    """True when ``line`` (with its newline) is a strict From_ separator."""
    return FROM_LINE.fullmatch(line if line.endswith(b"\n") else line + b"\n") is not None


def detect_mode(first_line: bytes) -> str:
    """``mboxrd`` for public-inbox/b4 exports, ``mboxo`` for everything else."""
    # From mboxrd@z Thu Jan  1 00:00:00 1970
    # From git@z Thu Jan  1 00:00:00 1970   (b4 writes mboxrd under this token)
    token = first_line[5:].split(b" ", 1)[0]
    return "mboxrd" if token in (b"mboxrd@z", b"git@z") else "mboxo"


def unescape(data: bytes, mode: str) -> bytes:
    """Undo From-line quoting inside one message."""
    if b"From " not in data:
        return data
    pattern = MBOXRD_ESCAPED if mode == "mboxrd" else MBOXO_ESCAPED
    return pattern.sub(rb"\1", data)


def escape_mboxrd(data: bytes) -> bytes:
    """Quote From lines of one message as an mboxrd writer does."""
    return MBOXRD_TO_ESCAPE.sub(rb">\1", data)


def _finish(chunk: bytes, offset: int, length: int, mode: str, truncated: int) -> RawMessage:
    # the writer's separator: one blank line after each message
    if chunk.endswith(b"\n\n"):
        chunk = chunk[:-1]
    elif chunk.endswith(b"\r\n\r\n"):
        chunk = chunk[:-2]
    defects = ("truncated",) if truncated else ()
    return RawMessage(unescape(chunk, mode), offset, length, truncated, defects)


class Splitter:
    """Incremental splitter: feed blocks, get messages.

    Bytes before the first From_ line are the *preamble*: counted in
    ``preamble_len`` with the first 4 KiB kept in ``preamble``, so the caller
    can report them (junk at the head of a file, or a file that is no mbox).
    """

    def __init__(self, mode: str | None = None, start_offset: int = 0,
                 max_message: int = MAX_MESSAGE) -> None:
        self.mode = mode
        self.max_message = max_message
        # a virtual newline before the stream: a From_ line at offset 0 is found
        # by the same "\nFrom " search as every other one
        self._buf = bytearray(b"\n")
        self._buf_offset = start_offset - 1  # stream offset of _buf[0]
        self._msg_start: int | None = None  # index in _buf of current From_ line
        self._body_start = 1
        self._scan = 0
        self._dropped = 0  # bytes of the current message dropped past the cap
        self.preamble = bytearray()
        self.preamble_len = 0
        self.preamble_offset = start_offset

    def feed(self, block: bytes) -> Iterator[RawMessage]:
        self._buf += block
        yield from self._drain(final=False)

    def close(self) -> Iterator[RawMessage]:
        yield from self._drain(final=True)
        if self._msg_start is not None:
            yield self._emit(len(self._buf))
        else:
            self._to_preamble(len(self._buf))
        self._buf = bytearray()

    def _emit(self, end: int) -> RawMessage:
        assert self._msg_start is not None
        with memoryview(self._buf) as view:
            chunk = bytes(view[self._body_start:end])
        offset = self._buf_offset + self._msg_start
        length = end - self._msg_start + self._dropped
        msg = _finish(chunk, offset, length, self.mode or "mboxo", self._dropped)
        self._dropped = 0
        return msg

    def _to_preamble(self, n: int) -> None:
        """Move the first n bytes of the buffer (after the virtual newline) away."""
        data = self._buf[1:n] if self._buf_offset < self.preamble_offset else self._buf[:n]
        if len(self.preamble) < 4096:
            self.preamble += data[: 4096 - len(self.preamble)]
        self.preamble_len += len(data)

    def _drain(self, final: bool) -> Iterator[RawMessage]:
        buf = self._buf
        while (found := self._next_separator(final)) is not None:
            pos, line_end = found
            dropped = self._dropped  # bytes cut out of the buffer before pos
            if self._msg_start is not None:
                yield self._emit(pos)
            else:
                self._to_preamble(pos)
            if self.mode is None:
                self.mode = detect_mode(bytes(buf[pos:line_end]))
            # keep the newline before the From_ line so the next search can see it
            del buf[:pos - 1]
            self._buf_offset += pos - 1 + dropped
            self._msg_start = 1
            self._body_start = line_end - pos + 1
            self._scan = self._body_start
        self._cap()

    def _next_separator(self, final: bool) -> tuple[int, int] | None:
        """Start and end of the next strict From_ line at or after the scan point."""
        buf = self._buf
        while True:
            nl = buf.find(b"\nFrom ", max(self._scan - 1, 0))
            if nl < 0:
                # the last 5 bytes may be the start of a separator
                self._scan = max(len(buf) - 5, self._scan)
                return None
            cand = nl + 1
            line_end = buf.find(b"\n", cand)
            if line_end < 0:
                if not final:
                    self._scan = cand
                    return None
                # a last line without its newline
                if FROM_LINE.fullmatch(bytes(buf[cand:]) + b"\n"):
                    return cand, len(buf)
                self._scan = len(buf)
                return None
            if FROM_LINE.match(buf, cand, line_end + 1):
                return cand, line_end + 1
            self._scan = line_end + 1

    def _cap(self) -> None:
        """Drop bytes of an oversized message or preamble, keeping the scan tail."""
        keep_from = max(self._scan - 8, 0)
        if self._msg_start is None:
            if keep_from > (1 << 20):
                self._to_preamble(keep_from)
                del self._buf[:keep_from]
                self._buf_offset += keep_from
                self._scan -= keep_from
            return
        limit = self._body_start + self.max_message
        if keep_from > limit + (1 << 20):
            del self._buf[limit:keep_from]
            self._dropped += keep_from - limit
            self._scan -= keep_from - limit


def split_blocks(blocks: Iterable[bytes], mode: str | None = None,
                 max_message: int = MAX_MESSAGE) -> Iterator[RawMessage]:
    """Split an iterable of byte blocks into messages (preamble is dropped)."""
    sp = Splitter(mode, max_message=max_message)
    for block in blocks:
        yield from sp.feed(block)
    yield from sp.close()


def split_bytes(data: bytes, mode: str | None = None) -> list[RawMessage]:
    """Split a whole mbox held in memory; convenience for tests and small files."""
    return list(split_blocks([data], mode))


def write_mboxrd(bodies: Iterable[bytes]) -> bytes:
    """Write messages as public-inbox writes mboxrd (used by tests and export)."""
    out = bytearray()
    for body in bodies:
        out += b"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
        out += escape_mboxrd(body)
        if not body.endswith(b"\n"):
            out += b"\n"
        out += b"\n"
    return bytes(out)
