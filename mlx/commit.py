"""Taking chunk results in order: dedup across chunks, parts moved into place, counts.

Only uids, defect codes and error records reach the driver, so its memory does not
grow with the bodies; a staged part is rewritten only when it holds a message stored
before (an earlier chunk or run), else it is renamed into place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa

from mlx import memory
from mlx.ingest.summary import IngestReport
from mlx.pipeline import ChunkResult
from mlx.rows import ErrorRecord
from mlx.store import Store, errors_table


def error_keys(table: pa.Table) -> set[tuple[Any, ...]]:
    """(source, offset, commit) of error rows: an error is stored once."""
    return set(zip(table.column("source").to_pylist(), table.column("offset").to_pylist(),
                   table.column("commit").to_pylist(), strict=True))


class Taker:
    """Takes chunk results in order: dedups across chunks, moves staged parts into place."""

    def __init__(self, st: Store, stored: Callable[[], set[str]],
                 old_errors: set[tuple[Any, ...]], report: IngestReport) -> None:
        self.st = st
        self.stored = stored  # the uids stored before this run: read at the first take
        self._before: set[str] | None = None
        self.run_uids: set[str] = set()  # (one set each: a uid is held once)
        self.old_errors = old_errors
        self.errors: list[ErrorRecord] = []
        self.report = report

    def is_stored(self, uid: str) -> bool:
        """Stored before this run (read when a first chunk is taken: a run with nothing new
        never reads them) or taken in it."""
        if self._before is None:
            self._before = self.stored()
        return uid in self.run_uids or uid in self._before

    def take(self, res: ChunkResult) -> None:
        report = self.report
        report.raw += res.raw
        report.deleted += res.deleted
        for err in res.errors:
            if (err.source, err.offset, err.commit) in self.old_errors:
                report.already += 1
            else:
                self.old_errors.add((err.source, err.offset, err.commit))
                self.errors.append(err)
                report.errors += 1
        kept = []
        for uid in res.uids:
            if self.is_stored(uid):
                self._repeat(uid)
            else:
                kept.append(uid)
        self.run_uids.update(kept)
        report.stored += len(kept)
        for uid in kept:
            report.defects.update(res.defects.get(uid, ()))
        for uid in res.copies:  # dropped by the worker: a copy of a message before it
            self._repeat(uid)
        if res.parts:
            if kept and not self.st.manifest.get("link_pending"):
                # saved before the first part lands: a run that dies after it re-links
                self.st.manifest["link_pending"] = True
                self.st.save_manifest()
            keep = None if len(kept) == len(res.uids) else pa.array(kept, pa.string())
            self.st.take(res.parts, keep)
        memory.trim()  # the chunk's raw bytes and its result, freed in the driver

    def _repeat(self, uid: str) -> None:
        """Count a message not stored again: a copy of one from this run, or an older one."""
        if uid in self.run_uids:
            self.report.duplicates += 1
        else:
            self.report.already += 1

    def settle(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Record sources whose every chunk is taken, once their error rows are written."""
        if entries:
            self.flush()
            self.st.manifest["sources"].update(entries)
            self.st.save_manifest()

    def flush(self) -> None:
        if self.errors:
            self.st.write("errors", errors_table(self.errors))
            self.errors = []


