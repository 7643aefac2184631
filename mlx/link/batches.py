"""A full link pass over a big store, a batch of whole components at a time.

A pass over every message at once holds every message's ids, subject parse and link
rows together: about 1 KiB a message.  But the pass over a union of whole components
(``mlx.link.incremental``) gives their messages the rows the pass over the whole
store gives, so a big store is linked in batches of components, each holding only
its own messages.

To find the components, ``component_batches`` reads the store once, a part at a
time, and keeps of each message only what its keys are made of, as 64-bit hashes and
small integers (about 100 bytes): its Message-ID and refs, date, sender, the hash of
its subject and the facts that make it a patch (and its uid, for the order of
duplicate Message-IDs).  The subjects' parses stream into a
new ``link/subjects`` (the stored ones of this parser, the workers' since, and those
parsed here, each subject once), each reduced to its ``key_columns``; then
``message_keys`` and ``components`` run on those as on a pass's own.  Ids and subjects
are told apart by their 64-bit hashes here, as the keys an incremental pass stores
are: two of a store's million texts colliding (odds about 1e-8) could join two
components, or give one subject another's parse in the scan and so miss a join; each
batch then links from the texts themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mlx.link.columns import UNKNOWN, IdCodes, as_numpy, present_parents, release
from mlx.link.incremental import author_hashes, components, message_keys
from mlx.link.known import KEY_GROUP, SUBJECT_GROUP, read_rows, subject_keys
from mlx.link.patch_columns import KIND_FACTS
from mlx.link.rows import Places, Rows, old_thread_refs, schema_of
from mlx.link.subject_columns import (
    BATCH,
    Subjects,
    key_columns,
    keyed_parses,
    parsed_table,
    parser_version,
    subject_parses,
)
from mlx.parts import hashes, in_sorted
from mlx.store import SUBJECT_PARSES, Store
from mlx.subjects import parse_subject

# what the components are found from, read a part at a time
SCAN = ["uid", "message_id", "thread_refs", "date", "subject", "from_addr", *KIND_FACTS]


def message_count(st: Store) -> int:
    """Messages in the store, from the parts' footers."""
    return sum(pq.read_metadata(p, filesystem=st.fs).num_rows
               for p in st.part_paths("messages"))


@dataclass
class Scan:
    """Per message, in store order, what its keys are made of (``add`` a part at a time)."""

    uid: list[pa.Array] = field(default_factory=list)
    mid: list[np.ndarray] = field(default_factory=list)  # hash of its Message-ID
    has_mid: list[np.ndarray] = field(default_factory=list)
    refs: list[np.ndarray] = field(default_factory=list)  # hashes of its thread_refs
    length: list[np.ndarray] = field(default_factory=list)
    dates: list[np.ndarray] = field(default_factory=list)
    subject: list[np.ndarray] = field(default_factory=list)  # hash of its subject's text
    has_subject: list[np.ndarray] = field(default_factory=list)
    author: list[np.ndarray] = field(default_factory=list)
    facts: list[pa.Table] = field(default_factory=list)  # KIND_FACTS
    part: list[np.ndarray] = field(default_factory=list)
    row: list[np.ndarray] = field(default_factory=list)

    @property
    def n(self) -> int:
        return sum(len(d) for d in self.dates)

    def take(self, name: str, dtype: Any, keep: bool = False) -> np.ndarray:
        """A column of every part as one array; the parts' arrays go (``keep``: stay)."""
        parts = getattr(self, name)
        out = np.concatenate(parts).astype(dtype, copy=False) if parts else \
            np.zeros(0, dtype=dtype)
        if not keep:
            setattr(self, name, [])
        return out

    def add(self, k: int, table: pa.Table, subject: np.ndarray) -> None:
        n = table.num_rows
        mid = table.column("message_id")
        self.uid.append(table.column("uid").combine_chunks())
        self.mid.append(hashes(mid))
        self.has_mid.append(as_numpy(pc.is_valid(mid), None, bool))
        refs = table.column("thread_refs")
        self.refs.append(hashes(pc.list_flatten(refs)))
        self.length.append(as_numpy(pc.list_value_length(refs), 0, np.int32))
        self.dates.append(as_numpy(table.column("date").cast(pa.int64()), UNKNOWN))
        self.subject.append(subject)
        self.has_subject.append(as_numpy(pc.is_valid(table.column("subject")), None, bool))
        self.author.append(author_hashes(table.column("from_addr")))
        self.facts.append(table.select(KIND_FACTS))
        self.part.append(np.full(n, k, dtype=np.int32))
        self.row.append(np.arange(n, dtype=np.int32))


class KeySet:
    """A growing set of 64-bit keys: a sorted array, and the keys added since in a set,
    merged into the array once they are many (a sort per part added would cost as much
    as the store has parts)."""

    MERGE = 65_536

    def __init__(self) -> None:
        self.sorted = np.zeros(0, dtype=np.int64)
        self.recent: set[int] = set()

    def add(self, keys: np.ndarray) -> None:
        self.recent.update(keys.tolist())
        if len(self.recent) > self.MERGE:
            recent = np.sort(np.fromiter(self.recent, np.int64, len(self.recent)))
            recent = recent[~in_sorted(recent, self.sorted)]
            # a merge of two sorted arrays (np.union1d hashes and sorts the whole union)
            self.sorted = np.insert(self.sorted, np.searchsorted(self.sorted, recent), recent)
            self.recent = set()

    def has(self, values: np.ndarray) -> np.ndarray:
        out = in_sorted(values, self.sorted)
        if self.recent:
            out |= np.fromiter((v in self.recent for v in values.tolist()), bool, len(values))
        return out


class SubjectFile:
    """``link/subjects`` written again as a stream: the stored parses of this parser,
    the workers' since and the subjects ``need`` finds unparsed, each subject (by the
    hash of its text) once, in row groups of ``SUBJECT_GROUP``; of each, its ``key`` and
    ``key_columns`` kept."""

    def __init__(self, st: Store) -> None:
        self.st = st
        self.path = st.link_file("subjects")
        schema = keyed_parses(subject_parses([])).schema
        st.fs.makedirs(st.path_of("link"), exist_ok=True)
        self.writer = pq.ParquetWriter(self.path + ".tmp", schema, compression="zstd",
                                       filesystem=st.fs)
        self.known = KeySet()
        self.keys: list[np.ndarray] = []  # in the file's order
        self.columns: list[pa.Table] = []
        self.unwritten: list[pa.Table] = []  # rows short of a row group
        self.pending: dict[int, str] = {}  # to parse: hash -> text
        version = parser_version().encode()
        if st.fs.exists(self.path):
            with st.fs.open(self.path, "rb") as fh:
                stored = pq.ParquetFile(fh)
                meta = stored.schema_arrow.metadata or {}
                if meta.get(b"parser") == version and "key" in stored.schema_arrow.names:
                    for group in range(stored.num_row_groups):
                        self._add(stored.read_row_group(group))
        for path in st.part_paths(SUBJECT_PARSES):
            staged = st.read_part(path)
            if (staged.schema.metadata or {}).get(b"parser") == version:
                self._add(keyed_parses(staged))

    def _add(self, table: pa.Table) -> None:
        """Write the rows of ``table`` whose subject is new."""
        keys = as_numpy(table.column("key"), 0)
        first = np.zeros(len(keys), dtype=bool)
        first[np.unique(keys, return_index=True)[1]] = True
        keep = first & ~self.known.has(keys)
        if not keep.all():
            table, keys = table.filter(pa.array(keep)), keys[keep]
        if not len(keys):
            return
        table = table.select(self.writer.schema.names).cast(self.writer.schema)
        self._write(table)
        self.keys.append(keys)
        self.columns.append(key_columns(table))
        self.known.add(keys)

    def _write(self, table: pa.Table | None) -> None:
        """Rows to the file in whole row groups (None: the last ones too)."""
        if table is not None:
            self.unwritten.append(table)
        rows = sum(t.num_rows for t in self.unwritten)
        if rows >= SUBJECT_GROUP or (table is None and rows):
            whole = pa.concat_tables(self.unwritten).combine_chunks()
            cut = rows if table is None else rows - rows % SUBJECT_GROUP
            self.writer.write_table(whole.slice(0, cut), row_group_size=SUBJECT_GROUP)
            self.unwritten = [whole.slice(cut)] if cut < rows else []

    def need(self, subject: pa.ChunkedArray | pa.Array) -> np.ndarray:
        """The hash of each subject's text; those not parsed yet are parsed, a batch at a
        time."""
        h = hashes(subject)
        new = np.flatnonzero(~self.known.has(h) & as_numpy(pc.is_valid(subject), None, bool))
        if len(new):
            for key, text in zip(h[new].tolist(), subject.take(pa.array(new)).to_pylist(),
                                 strict=True):
                self.pending.setdefault(key, text)
            if len(self.pending) >= BATCH:
                self._parse()
        return h

    def _parse(self) -> None:
        if self.pending:
            self._add(keyed_parses(subject_parses(list(self.pending.values()))))
            self.pending = {}

    def close(self) -> tuple[np.ndarray, pa.Table]:
        """Put the file in place; (the key of each of its rows, their key columns, with
        one more row: a missing subject's)."""
        self._parse()
        self._write(None)
        self.writer.close()
        keys = np.concatenate([*self.keys, np.zeros(0, dtype=np.int64)])
        # the keys first: a crash between the two leaves keys of rows the file lacks,
        # which a lookup skips (Known._stored)
        self.st.write_link("subject-keys", subject_keys(keys), row_group=KEY_GROUP)
        self.st.fs.mv(self.path + ".tmp", self.path)
        none = key_columns(parsed_table([parse_subject(None)]))
        return keys, pa.concat_tables([*self.columns, none]).combine_chunks()


@dataclass
class HashedLineage:
    """A threading as a pass over hashes finds it (``incremental.Lineage``)."""

    present_parent: np.ndarray
    dates: np.ndarray


@dataclass
class Batches:
    """Whole components of the store in batches of about ``limit`` messages: ``plan``
    gives each batch's rows, and the stored parses of their subjects."""

    st: Store
    paths: list[str]
    part: np.ndarray  # per message, in store order: its part and its row there
    row: np.ndarray
    batch: np.ndarray
    subject: np.ndarray  # hash of its subject's text
    file_keys: np.ndarray  # the key of each row of link/subjects
    count: int

    def plan(self) -> Iterator[tuple[Places, pa.Table]]:
        """(the rows of a batch, the rows of ``link/subjects`` its subjects have)."""
        with self.st.fs.open(self.st.link_file("subjects"), "rb") as fh:
            stored = pq.ParquetFile(fh)
            for b in range(self.count):
                yield self._batch(b, stored)

    def _batch(self, b: int, stored: pq.ParquetFile) -> tuple[Places, pa.Table]:
        rows = np.flatnonzero(self.batch == b)
        at: Places = {}
        for k in np.unique(self.part[rows]).tolist():
            at[self.paths[k]] = np.sort(self.row[rows[self.part[rows] == k]])
        wanted = np.flatnonzero(in_sorted(self.file_keys, np.unique(self.subject[rows])))
        return at, read_rows(stored, wanted)


def component_batches(st: Store, limit: int) -> Batches:
    """The store's messages read once for their keys, their components found, and the
    components grouped in store order into batches of about ``limit`` messages (a
    component is never split: a batch takes every component that starts within its
    ``limit`` messages, so a large one makes its batch larger); writes
    ``link/subjects``."""
    paths = st.part_paths("messages")
    subjects = SubjectFile(st)
    scan = Scan()
    for k, path in enumerate(paths):
        table = st.read_part_as(path, schema_of(SCAN))
        if table.column("thread_refs").null_count:
            refs = old_thread_refs(Rows(st, at={path: None}), table)
            table = table.set_column(table.schema.get_field_index("thread_refs"),
                                     "thread_refs", refs)
        scan.add(k, table, subjects.need(table.column("subject")))

    file_keys, parsed = subjects.close()

    comp = _components(scan, file_keys, parsed)

    # components in the order of their first message, cut into batches
    found, first, sizes = np.unique(comp, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    before = np.concatenate(([0], np.cumsum(sizes[order])[:-1]))
    batch_of = np.empty(len(found), dtype=np.int64)
    batch_of[order] = before // max(limit, 1)
    _, batch = np.unique(batch_of[comp], return_inverse=True)  # batches 0, 1, ... in order
    return Batches(st, paths, scan.take("part", np.int32), scan.take("row", np.int32),
                   batch.reshape(-1), scan.take("subject", np.int64), file_keys,
                   int(batch.max()) + 1 if len(batch) else 0)


def _components(scan: Scan, file_keys: np.ndarray, parsed: pa.Table) -> np.ndarray:
    """The component of each message of ``scan`` (``parsed``: the key columns of the rows
    of ``link/subjects``, whose keys are ``file_keys``, and of a missing subject); what
    it reads of ``scan`` goes as it is read."""
    n = scan.n
    has_mid = scan.take("has_mid", bool)
    mid = scan.take("mid", np.int64)[has_mid]
    ids, inverse = np.unique(np.concatenate([mid, *scan.refs]), return_inverse=True)
    scan.refs = []
    idx = np.int32 if n + len(ids) < 2**31 - 1 else np.int64
    mid_code = np.full(n, -1, dtype=idx)
    mid_code[has_mid] = inverse[:len(mid)]
    ref_code = inverse[len(mid):].astype(idx)
    del mid, inverse, has_mid
    codes = IdCodes(pa.array(ids, pa.int64()), mid_code, ref_code,
                    scan.take("length", np.int64))
    del ids

    dates = scan.take("dates", np.int64)
    present = present_parents(pa.chunked_array(scan.uid, pa.string()), dates, codes)
    scan.uid = []

    # each message's subject: its row of link/subjects (found by key), else a missing one's
    order = np.argsort(file_keys, kind="stable")
    subject = scan.take("subject", np.int64, keep=True)
    at = np.minimum(np.searchsorted(file_keys[order], subject), max(len(order) - 1, 0))
    found = scan.take("has_subject", bool)
    found &= file_keys[order[at]] == subject if len(order) else False
    code = np.where(found, order[at] if len(order) else 0, len(file_keys))
    del order, subject, at, found
    facts = pa.concat_tables(scan.facts) if scan.facts else schema_of(KIND_FACTS).empty_table()
    scan.facts = []
    keys = message_keys(codes, HashedLineage(present, dates), Subjects(pa.array([], pa.string()),
                                                                 parsed, code),
                        facts, scan.take("author", np.int64))
    del present, dates, code, facts
    release()

    return components(n, keys, codes)
