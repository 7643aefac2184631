"""The stored subject parses: what a link pass looks its messages' subjects up in.

``link/subjects`` holds the parse of every distinct subject (with ``key``, the hash of
its text), written by a full pass and added to by each incremental one (a file per
generation), so that no subject is parsed twice.  ``link/subject-keys`` holds, per
file of it, each key and its row there, sorted by key in small row groups: a pass over
a few messages finds whether a subject is stored, and where, by reading only the row
groups that can hold its key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mlx.link.columns import as_numpy
from mlx.link.subject_columns import keyed_parses, known_subjects, parser_version, subject_parses
from mlx.parts import hashes, in_sorted
from mlx.store import SUBJECT_PARSES, Store

# rows per row group of link/subjects (a batch of a full pass, or a lookup, reads only
# the groups holding its subjects) and of link/subject-keys
SUBJECT_GROUP = KEY_GROUP = 8192
# parsing a subject again costs about what reading this many stored parses does
PARSE_COST = 50
READ_WHOLE = 200_000  # stored parses an incremental pass reads whole (more: it looks up)


def subject_keys(keys: np.ndarray) -> pa.Table:
    """The rows of ``link/subject-keys`` of a file of parses whose keys are ``keys``."""
    order = np.argsort(keys, kind="stable")
    return pa.table({"key": pa.array(keys[order], pa.int64()),
                     "row": pa.array(order, pa.int64())})


def write_subjects(write: Callable[..., Any], parses: pa.Table) -> None:
    """``parses`` (``subject_parses`` rows) as a file of ``link/subjects`` and its
    ``link/subject-keys``, through ``write`` (``Store.write_link`` or a LinkWriter's)."""
    table = keyed_parses(parses)
    # the keys first: after a crash between the two, a lookup skips rows the file lacks
    write("subject-keys", subject_keys(as_numpy(table.column("key"), 0)), row_group=KEY_GROUP)
    write("subjects", table, row_group=SUBJECT_GROUP)


@dataclass
class Known:
    """The subject parses a pass looks its subjects up in (``for_subjects``): ``table``,
    those of ``link/subjects`` and the workers' since (``stored``: how many rows of
    ``table`` are the first); or, for an incremental pass (``st``), the workers' and,
    looked up by the hashes of the subjects asked for, the stored rows that have them,
    unless they are so few that parsing them again costs less (of ``stored_rows``)."""

    table: pa.Table | None
    stored: int
    st: Store | None = None  # the store whose link/subjects to look subjects up in
    stored_rows: int = 0

    def for_subjects(self, subject: pa.ChunkedArray) -> pa.Table | None:
        """The parses known of ``subject``'s texts (and maybe others)."""
        texts = pc.unique(subject.drop_null())
        if self.st is None or len(texts) * PARSE_COST < self.stored_rows:
            return self.table  # the stored ones parsed again
        found = [self._stored(path, rows) for path, rows in
                 self._where(hashes(texts), ["key", "row"])]
        return known_subjects([*found, *([self.table] if self.table is not None else [])],
                              len(found))

    def lacking(self, seen: pa.Table | None) -> pa.Table:
        """The rows of ``seen`` (the parses known and new this pass) that
        ``link/subjects`` lacks."""
        if seen is None:
            return subject_parses([])
        if self.st is None:
            return seen.slice(self.stored)
        keys = hashes(seen.column("subject"))
        have = [as_numpy(found.column("key"), 0) for _, found in self._where(keys, ["key"])]
        stored = np.unique(np.concatenate([np.zeros(0, dtype=np.int64), *have]))
        return seen.filter(pa.array(~in_sorted(keys, stored)))

    def _where(self, keys: np.ndarray, columns: list[str]) -> list[tuple[str, pa.Table]]:
        """(file of link/subjects, its subject-keys rows of ``keys``) of each file."""
        assert self.st is not None
        files = zip((p for p, _ in self.st.link_files("subjects")),
                    (p for p, _ in self.st.link_files("subject-keys")), strict=True)
        return [(path, self.st.read_where(keys_path, columns, "key", keys))
                for path, keys_path in files]

    def _stored(self, path: str, found: pa.Table) -> pa.Table:
        """The rows ``found`` (subject-keys rows) of a file of link/subjects."""
        with self.st.fs.open(path, "rb") as fh:  # type: ignore[union-attr]
            return read_rows(pq.ParquetFile(fh, pre_buffer=False),
                             np.sort(as_numpy(found.column("row"), 0)))


def read_rows(pf: pq.ParquetFile, rows: np.ndarray) -> pa.Table:
    """The rows ``rows`` (sorted) of an open file of link/subjects, with its schema's
    metadata, read a row group at a time from the groups that hold them; rows past its
    end (keys written, their rows not: a crash) are skipped."""
    bounds = np.cumsum([0] + [pf.metadata.row_group(g).num_rows
                              for g in range(pf.num_row_groups)])
    rows = rows[rows < bounds[-1]]
    parts = []
    for g in np.unique(np.searchsorted(bounds, rows, "right") - 1).tolist():
        local = rows[np.searchsorted(rows, bounds[g]):np.searchsorted(rows, bounds[g + 1])]
        parts.append(pf.read_row_group(g, use_threads=False).take(pa.array(local - bounds[g])))
    table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table()
    return table.replace_schema_metadata(pf.schema_arrow.metadata)


def known_parses(st: Store, few: int | None = None) -> Known:
    """The parses of the current parser a pass knows, each subject once: ``Known``;
    with ``few`` (the subjects a pass over some messages parses, about), unless the
    stored ones are few enough to read whole (``READ_WHOLE``) and more than parsing
    ``few`` again would cost, only the workers' are read: the stored ones are looked up
    by the subjects asked for, or parsed again (``Known.for_subjects``).  A chunk whose
    messages were all stored before (or that crashed) adds subjects no message has: a
    cache keyed by the subject's text, so they are only never looked up."""
    paths = [path for path, _ in st.link_files("subjects")]
    staged = [st.read_part(p) for p in st.part_paths(SUBJECT_PARSES)]
    if few is not None and paths and len(st.link_files("subject-keys")) == len(paths):
        metas = [pq.read_metadata(p, filesystem=st.fs) for p in paths]
        version = parser_version().encode()
        stored_rows = sum(m.num_rows for m in metas)
        if all("key" in m.schema.names and (m.schema.to_arrow_schema().metadata or {})
               .get(b"parser") == version for m in metas) \
                and (few * PARSE_COST < stored_rows or stored_rows > READ_WHOLE):
            return Known(known_subjects(staged), 0, st, stored_rows)
    files = [pq.read_table(path, filesystem=st.fs) for path in paths]
    stored = known_subjects(files, len(files))
    known = known_subjects([*([stored] if stored is not None else []), *staged],
                           int(stored is not None)) if staged else stored
    return Known(known, len(stored) if stored is not None else 0)
