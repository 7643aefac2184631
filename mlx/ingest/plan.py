"""Planning an ingest: which chunks of which sources are new since the manifest.

A file the manifest knows unchanged is skipped; a grown mbox is read from where the
last run stopped, a public-inbox epoch from its last ingested commit.  Each chunk
carries the manifest entries to save once it is stored (``Pending``).
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mlx.ingest import gitinbox
from mlx.ingest.chunks import (
    BATCH_BYTES,
    BATCH_MESSAGES,
    FILES_PER_GROUP,
    Chunk,
    FileGroup,
    GitRange,
    RawBatch,
    git_batch,
    plan_mbox,
    split_stream,
)
from mlx.ingest.sources import Source
from mlx.ingest.split import RawMessage
from mlx.ingest.summary import IngestReport
from mlx.rows import ErrorRecord


@dataclass
class Pending:
    """Manifest entries to save once the chunk they ride on is stored."""

    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _file_fingerprint(path: str, head_len: int = 65536) -> dict[str, Any]:
    """Size, mtime and a hash of the first ``head_len`` bytes of a file."""
    st = os.stat(path)
    with open(path, "rb") as fh:
        head = fh.read(head_len)
    return {"size": st.st_size, "mtime": st.st_mtime, "head_len": len(head),
            "head": hashlib.sha1(head, usedforsecurity=False).hexdigest()}


def _tail_hash(path: str, end: int) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, end - 4096))
        return hashlib.sha1(fh.read(min(end, 4096)), usedforsecurity=False).hexdigest()


class Planner:
    """Turns sources into chunks, skipping what the manifest says is stored."""

    def __init__(self, sources: list[Source], manifest: dict[str, Any], report: IngestReport,
                 pending: deque[Pending]) -> None:
        self.sources = sources
        self.seen = manifest.setdefault("sources", {})
        self.report = report
        self.pending = pending

    def _yield(self, chunk: Chunk, entries: list[tuple[str, dict[str, Any]]]) -> Chunk:
        self.pending.append(Pending(entries))
        return chunk

    def chunks(self) -> Iterator[Chunk]:
        files: list[tuple[str, str]] = []
        entries: list[tuple[str, dict[str, Any]]] = []
        for src in self.sources:
            if src.kind in ("eml", "text"):
                fp = _file_fingerprint(src.path)
                old = self.seen.get(src.path)
                if old and all(old.get(k) == fp[k] for k in ("size", "mtime", "head")):
                    self.report.unchanged += 1
                    continue
                files.append((src.path, src.kind))
                entries.append((src.path, {"kind": src.kind, **fp}))
                if len(files) >= FILES_PER_GROUP:
                    yield self._yield(FileGroup(files), entries)
                    files, entries = [], []
            elif src.kind == "git":
                yield from self._git(src)
            elif src.compression:
                yield from self._stream(src)
            else:
                yield from self._mbox(src)
        if files:
            yield self._yield(FileGroup(files), entries)

    def _mbox(self, src: Source) -> Iterator[Chunk]:
        old = self.seen.get(src.path) or {}
        fp = _file_fingerprint(src.path, old.get("head_len", 65536))
        start = 0
        if old.get("head") == fp["head"] and old.get("done"):
            if old.get("size") == fp["size"]:
                self.report.unchanged += 1
                return
            if fp["size"] > old["done"] and _tail_hash(src.path, old["done"]) == old.get("tail"):
                start = old["done"]  # the file grew: read only what is new
        ranges = plan_mbox(src, start)
        entry = {"kind": "mbox", **_file_fingerprint(src.path), "done": fp["size"],
                 "tail": _tail_hash(src.path, fp["size"])}
        for i, rng in enumerate(ranges):
            yield self._yield(rng, [(src.path, entry)] if i == len(ranges) - 1 else [])

    def _stream(self, src: Source) -> Iterator[Chunk]:
        fp = _file_fingerprint(src.path)
        old = self.seen.get(src.path) or {}
        if all(old.get(k) == fp[k] for k in ("size", "head")):
            self.report.unchanged += 1
            return
        entry = {"kind": "mbox", "compression": src.compression, **fp}
        batch: list[RawMessage] = []
        errors: list[ErrorRecord] = []
        size = 0
        for item in split_stream(src):
            if isinstance(item, ErrorRecord):
                errors.append(item)
                continue
            batch.append(item)
            size += item.length
            if len(batch) >= BATCH_MESSAGES or size > BATCH_BYTES:
                yield self._yield(RawBatch(src.path, batch, errors), [])
                batch, errors, size = [], [], 0
        yield self._yield(RawBatch(src.path, batch, errors), [(src.path, entry)])

    def _git(self, src: Source) -> Iterator[Chunk]:
        old = self.seen.get(src.path) or {}
        since = old.get("last_commit")
        if since and not gitinbox.rev_exists(src.path, since):
            since = None
        commits = gitinbox.rev_list(src.path, since)
        if not commits:
            self.report.unchanged += 1
            return
        entry = {"kind": "git", "last_commit": commits[-1]}
        batch = git_batch(len(commits))
        for i in range(0, len(commits), batch):
            last = i + batch >= len(commits)
            yield self._yield(GitRange(src.path, commits[i:i + batch]),
                              [(src.path, entry)] if last else [])


