"""Units of work: plan chunks of the sources, and read the messages of one chunk.

``mlx.pipeline.run_chunk`` runs a chunk (in-process, a local process pool,
Dask); this module only cuts the sources into chunks and reads them.

Chunks:
- ``MboxRange``: a byte range of a plain mbox file, cut at From_ lines, so one
  big file spreads over all workers;
- ``RawBatch``: messages already split by the driver (compressed streams
  cannot be cut by byte range);
- ``GitRange``: commits of a public-inbox epoch;
- ``FileGroup``: small files (.eml, Maildir entries, text renderings).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from mlx.ingest import gitinbox
from mlx.ingest.parse import Where, parse_message, parse_text_rendering
from mlx.ingest.sources import DecompressionBombError, Source, open_stream, read_blocks
from mlx.ingest.split import FROM_LINE, MAX_MESSAGE, RawMessage, Splitter, detect_mode
from mlx.rows import ErrorRecord, MessageRecord

RANGE_BYTES = 8 << 20  # bytes of plain mbox per chunk: ~1,000 messages, ~0.5 s of work
BATCH_MESSAGES = 500  # messages per chunk split by the driver (also at most BATCH_BYTES)
# the raw bytes of a chunk at most: the driver holds those of the chunks in flight, so their
# size, not the archive's, bounds its memory
BATCH_BYTES = 2 << 20
FILES_PER_GROUP = 200
# commits per chunk of a public-inbox epoch, at most: a part per chunk and table, so an
# epoch of 400,000 commits is 200 parts, not 800 (every reader of the store opens each
# part); below 16,000 commits chunks hold an eighth of them, at least BATCH_MESSAGES, so
# every worker has work
GIT_COMMITS = 2_000


def git_batch(commits: int) -> int:
    """Commits per chunk for a range of ``commits`` new commits."""
    return min(GIT_COMMITS, max(BATCH_MESSAGES, -(-commits // 8)))


@dataclass(frozen=True)
class MboxRange:
    path: str
    start: int
    end: int
    mode: str | None


@dataclass(frozen=True)
class RawBatch:
    path: str
    items: list[RawMessage]
    errors: list[ErrorRecord] = field(default_factory=list)  # found by the driver

@dataclass(frozen=True)
class GitRange:
    repo: str
    commits: list[str]


@dataclass(frozen=True)
class FileGroup:
    files: list[tuple[str, str]]  # (path, kind)


Chunk = MboxRange | RawBatch | GitRange | FileGroup


def _parse_raw(raw: RawMessage, path: str) -> MessageRecord | ErrorRecord:
    return parse_message(raw.data, Where(path, raw.offset, raw.length), raw.defects)


def _preamble_error(sp: Splitter, path: str) -> list[ErrorRecord]:
    if sp.preamble_len and sp.preamble.strip():
        return [ErrorRecord(path, sp.preamble_offset, sp.preamble_len,
                            "data before the first From_ line", stage="split")]
    return []


def first_from_line(path: str) -> bytes | None:
    stream = open_stream(path)
    try:
        for block in read_blocks(stream, 1 << 16):
            for line in block.split(b"\n")[:-1]:
                if FROM_LINE.match(line + b"\n"):
                    return line
            break
    finally:
        stream.close()
    return None


def plan_mbox(src: Source, start: int = 0, range_bytes: int = RANGE_BYTES) -> list[MboxRange]:
    """Cut a plain mbox into ranges that start at From_ lines.

    The last ``4 * range_bytes`` are cut four times finer, so the workers finish
    together instead of one working through a last big range alone.
    """
    first = first_from_line(src.path)
    mode = detect_mode(first) if first else None
    size = os.path.getsize(src.path)

    def step(at: int) -> int:
        return range_bytes if size - at > 4 * range_bytes else max(1, range_bytes // 4)

    cuts = [start]
    with open(src.path, "rb") as fh:
        target = start + step(start)
        while target < size:
            cut = _next_from_line(fh, target)
            if cut is None or cut >= size:
                break
            if cut > cuts[-1]:
                cuts.append(cut)
            target = cut + step(cut)
    cuts.append(size)
    return [MboxRange(src.path, a, b, mode) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def _next_from_line(fh, pos: int) -> int | None:  # type: ignore[no-untyped-def]
    """Offset of the first strict From_ line starting after ``pos``."""
    fh.seek(pos - 1)
    carry = b""
    base = pos - 1
    while block := fh.read(1 << 20):
        data = carry + block
        i = 0
        while (nl := data.find(b"\nFrom ", i)) >= 0:
            end = data.find(b"\n", nl + 1)
            if end < 0:
                break
            if FROM_LINE.match(data, nl + 1, end + 1):
                return base + nl + 1
            i = end
        keep = max(len(data) - 4096, i)
        carry = data[keep:]
        base += keep
    return None


def split_stream(src: Source, skip_to: int = 0) -> Iterator[RawMessage | ErrorRecord]:
    """Split a (compressed) mbox in the driver; yields messages and preamble errors."""
    stream = open_stream(src.path)
    sp = Splitter()
    try:
        for block in read_blocks(stream):
            for raw in sp.feed(block):
                if raw.offset >= skip_to:
                    yield raw
        for raw in sp.close():
            if raw.offset >= skip_to:
                yield raw
    except (OSError, EOFError, DecompressionBombError, ValueError) as exc:
        # a truncated .gz or a bomb: what was split so far stands, the rest is an error row
        for raw in sp.close():
            if raw.offset >= skip_to:
                yield raw
        yield ErrorRecord(src.path, sp._buf_offset, 0, f"stream stopped: {exc}"[:300],
                          stage="split")
    finally:
        stream.close()
    if skip_to == 0:
        yield from _preamble_error(sp, src.path)


@dataclass
class ReadStats:
    """What reading one chunk counted besides its messages."""

    bytes: int = 0
    deleted: int = 0  # public-inbox deletions skipped


def read_chunk(chunk: Chunk, stats: ReadStats) -> Iterator[MessageRecord | ErrorRecord]:
    """Every message (or error record) of one chunk, in order."""
    if isinstance(chunk, MboxRange):
        yield from _read_range(chunk, stats)
    elif isinstance(chunk, RawBatch):
        yield from chunk.errors
        for raw in chunk.items:
            yield _parse_raw(raw, chunk.path)
            stats.bytes += raw.length
    elif isinstance(chunk, GitRange):
        for blob in gitinbox.read_blobs(chunk.repo, chunk.commits):
            if blob.data is None:
                stats.deleted += 1
                continue
            where = Where(chunk.repo, None, blob.size, blob.commit)
            yield parse_message(blob.data, where, ("truncated",) if blob.truncated else ())
            stats.bytes += blob.size
    else:
        for path, kind in chunk.files:
            yield _parse_file(path, kind)
            stats.bytes += os.path.getsize(path)


def _read_range(chunk: MboxRange, stats: ReadStats) -> Iterator[MessageRecord | ErrorRecord]:
    sp = Splitter(chunk.mode, start_offset=chunk.start)
    with open(chunk.path, "rb") as fh:
        fh.seek(chunk.start)
        left = chunk.end - chunk.start
        while left > 0 and (block := fh.read(min(left, 1 << 20))):
            left -= len(block)
            for raw in sp.feed(block):
                yield _parse_raw(raw, chunk.path)
        for raw in sp.close():
            yield _parse_raw(raw, chunk.path)
    stats.bytes = chunk.end - chunk.start
    yield from _preamble_error(sp, chunk.path)


def _parse_file(path: str, kind: str) -> MessageRecord | ErrorRecord:
    try:
        stream = open_stream(path)
        try:
            data = stream.read(MAX_MESSAGE + 1)
        finally:
            stream.close()
    except (OSError, EOFError, DecompressionBombError, ValueError) as exc:
        return ErrorRecord(path, 0, 0, f"unreadable file: {exc}"[:300], stage="split")
    defects: tuple[str, ...] = ()
    if len(data) > MAX_MESSAGE:
        data, defects = data[:MAX_MESSAGE], ("truncated",)
    if data.startswith(b"From ") and FROM_LINE.match(data, 0, data.find(b"\n") + 1):
        data = data[data.find(b"\n") + 1:]  # a Maildir file saved with its From_ line
    where = Where(path, 0, len(data))
    if kind == "text":
        return parse_text_rendering(data, where)
    return parse_message(data, where, defects)
