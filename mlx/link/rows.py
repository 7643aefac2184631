"""The message rows a link pass reads: of the whole store or of some of its parts.

``Rows`` reads the message columns a pass needs, in the order of the parts and of the
rows in each; ``PassTables`` are the tables as the claims of some messages see them (their
rows of the message and extracted tables, the link tables of their pass);
``extracted_flags`` tells which extracted tables hold rows of each message.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.columns import as_numpy
from mlx.link.threads import header_thread_refs
from mlx.parts import in_threads
from mlx.schema import COUNT_COLUMNS, FACT_COLUMNS, MESSAGES, empty
from mlx.store import EXTRACTED, Store

Places = dict[str, np.ndarray | None]  # {part path: row numbers there, None for all}
# what a pass over some messages reads of them (the whole store: a few at a time)
SUBSET_COLUMNS = list(dict.fromkeys([
    "uid", "message_id", "thread_refs", "date", "subject", *FACT_COLUMNS, "from_addr",
    "list_id", "from_name",  # and the claims' (MESSAGE_COLUMNS)
    *COUNT_COLUMNS]))  # and which extracted tables hold rows of it
# a bit per extracted table, in a message's flags (``extracted_flags``)
EXTRACTED_BIT = {name: 1 << k for k, name in enumerate(EXTRACTED)}


class Rows:
    """The message columns a link pass reads, in the order of the parts and of the rows
    in each: of every stored message, or of some rows of some parts (``at``: {part
    path: row numbers, or None for all}).  A whole store is read a few columns at a
    time; a subset's columns are read together, each part opened once."""

    def __init__(self, st: Store, at: Places | None = None) -> None:
        self.st, self.at = st, at
        self.paths = list(at) if at is not None else st.part_paths("messages")
        self.lengths: list[int] | None = None  # rows read of each part
        self._parts: dict[str, pa.Table] = {}  # a subset's rows of each part
        self._columns = SUBSET_COLUMNS
        self.keyed: Any = None  # what finding these rows' keys found: a pass over them reuses it

    def read(self, columns: list[str]) -> pa.Table:
        if self.at is None:
            tables = [self.st.read_part_as(path, schema_of(columns)) for path in self.paths]
            return self._concat(tables, columns)
        self._columns = list(dict.fromkeys([*self._columns, *columns]))
        for path, rows in self.at.items():
            table = self._parts.get(path)
            have = table.column_names if table is not None else []
            if missing := [c for c in self._columns if c not in have]:
                read = self.st.read_part_as(path, schema_of(missing))
                read = read if rows is None else read.take(pa.array(rows))
                for name in have:
                    assert table is not None
                    read = read.append_column(name, table.column(name))
                self._parts[path] = read
        return self._concat([self._parts[p].select(columns) for p in self.at], columns)

    def forget(self, columns: list[str]) -> None:
        """Columns a subset no longer needs (read again if asked for)."""
        self._columns = [c for c in self._columns if c not in columns]
        for path, table in self._parts.items():
            self._parts[path] = table.drop_columns([c for c in columns
                                                    if c in table.column_names])

    def widened(self, at: Places) -> Rows:
        """The rows of ``at`` (holding these): the parts whose rows are the same are
        not read again (these rows themselves when ``at`` holds no others)."""
        mine = self.at or {}
        if mine.keys() == at.keys() and all(_same_rows(mine[p], at[p]) for p in at):
            return self
        out = Rows(self.st, at=at)
        out._columns = self._columns
        out._parts = {p: t for p, t in self._parts.items()
                      if p in at and _same_rows(mine[p], at[p])}
        return out

    def _concat(self, tables: list[pa.Table], columns: list[str]) -> pa.Table:
        if self.lengths is None:
            self.lengths = [t.num_rows for t in tables]
        return pa.concat_tables(tables) if tables else empty(schema_of(columns))

    def positions(self) -> tuple[pa.Array, pa.Array]:
        """(the name of its part, its row there) of each message read."""
        if self.lengths is None:
            self.read(["uid"])
        assert self.lengths is not None
        names = [p.rsplit("/", 1)[-1] for p in self.paths]
        part = pa.DictionaryArray.from_arrays(
            pa.array(np.repeat(np.arange(len(names), dtype=np.int32), self.lengths)),
            pa.array(names, pa.string()))
        rows = [np.arange(n) if self.at is None or (r := self.at[p]) is None else r
                for p, n in zip(self.paths, self.lengths, strict=True)]
        return part, pa.array(np.concatenate(rows) if rows else [], pa.int32())


def old_thread_refs(rows: Rows, table: pa.Table) -> pa.ChunkedArray:
    """``thread_refs``, from their headers for messages stored before the column existed."""
    old = rows.read(["from_addr", "to", "cc", "in_reply_to", "references"]).to_pydict()
    mids = table.column("message_id").to_pylist()
    refs = table.column("thread_refs").to_pylist()
    for i, r in enumerate(refs):
        if r is None:
            refs[i] = header_thread_refs(mids[i], old["from_addr"][i], old["to"][i],
                                         old["cc"][i], old["in_reply_to"][i],
                                         old["references"][i])
    return pa.chunked_array([pa.array(refs, pa.list_(pa.string()))])


def _same_rows(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return a is None and b is None or a is not None and b is not None and np.array_equal(a, b)


def schema_of(columns: list[str]) -> pa.Schema:
    """The messages schema of ``columns``."""
    return pa.schema([MESSAGES.field(c) for c in columns])


def extracted_flags(st: Store, rows: Rows) -> np.ndarray:
    """Of each message of ``rows``, a bit per extracted table that holds rows of it
    (``EXTRACTED_BIT``): from its counts (``n_results``, ...), else, for messages stored
    before those existed, from the uids of the parts of their chunks."""
    counts = rows.read(list(COUNT_COLUMNS))
    flags = np.zeros(counts.num_rows, dtype=np.int8)
    todo = np.zeros(counts.num_rows, dtype=bool)
    for table, bit in EXTRACTED_BIT.items():
        count = counts.column(f"n_{table}")
        flags[as_numpy(count, 0) > 0] |= bit
        todo |= as_numpy(pc.is_null(count), None, bool)
    if not todo.any():
        return flags
    uid = rows.read(["uid"]).column("uid").combine_chunks()
    part = rows.positions()[0].cast(pa.string()).to_numpy(zero_copy_only=False)
    names = set(np.unique(part[todo]).tolist())
    chunks = {p.rsplit("/", 1)[-1] for p in st.part_paths("messages")}
    for table, bit in EXTRACTED_BIT.items():
        paths = [p for p in st.part_paths(table)
                 if (name := p.rsplit("/", 1)[-1]) in names or name not in chunks]
        found = in_threads(lambda path: pc.unique(st.read_part_as(path, UID).column("uid")),
                           paths)
        if found:
            hit = pc.is_in(uid, value_set=pa.concat_arrays(found))
            flags[todo & as_numpy(hit, False, bool)] |= bit
    return flags


UID = pa.schema([MESSAGES.field("uid")])


class PassTables:
    """The tables of a store as the claims of some messages see them (``mlx.store.
    Tables``): only their rows of the message and extracted tables, read from their
    chunks' parts alone (a chunk's parts share a name), the link tables given (a
    delta's, before it is in force); an extracted table's parts only of the chunks of
    messages it has rows of (``extracted_flags``)."""

    def __init__(self, st: Store, rows: Rows, tables: dict[str, pa.Table]) -> None:
        self.st = st
        uid = rows.read(["uid"]).column("uid").combine_chunks()
        part = rows.positions()[0].cast(pa.string()).to_numpy(zero_copy_only=False)
        flags = extracted_flags(st, rows)
        self.all = uid
        self.by_part = {}
        for table, bit in EXTRACTED_BIT.items():
            rows_of = np.flatnonzero(flags & bit)
            self.by_part[table] = {name: uid.take(pa.array(at)) for name, at in
                                   grouped(part[rows_of], rows_of).items()}
        self.chunks = {p.rsplit("/", 1)[-1] for p in st.part_paths("messages")}
        self.rows, self.tables = rows, tables

    def read(self, table: str, schema: pa.Schema, columns: list[str] | None = None,
             uids: Any = None) -> pa.Table:
        want = schema if columns is None else pa.schema([schema.field(c) for c in columns])
        with_uid = want if "uid" in want.names else want.append(schema.field("uid"))
        if table == "messages":
            return self._only(self.rows.read(with_uid.names), uids).select(want.names)
        wanted = None if uids is None else pa.array(list(uids), pa.string())
        reads = []
        for path in self.st.part_paths(table):
            name = path.rsplit("/", 1)[-1]
            # a part of no chunk (the driver's own) may hold rows of any of them
            of = self.by_part.get(table, {}).get(name, self.all if name not in self.chunks
                                                 else None)
            if of is not None and wanted is not None:  # only the parts of those asked for
                of = of.filter(pc.is_in(of, value_set=wanted))
            if of is not None and len(of):
                reads.append((path, of))

        def rows_of(read: tuple[str, pa.Array]) -> pa.Table:
            return self.st.read_part_as(read[0], with_uid, uids=read[1])
        tables = in_threads(rows_of, reads)
        out = pa.concat_tables(tables) if tables else empty(with_uid)
        return out.select(want.names)  # each part read only the rows of ``wanted``

    @staticmethod
    def _only(table: pa.Table, uids: Any) -> pa.Table:
        if uids is None:
            return table
        return table.filter(pc.is_in(table.column("uid"),
                                     value_set=pa.array(list(uids), pa.string())))

    def read_link(self, name: str, uids: Any = None, columns: list[str] | None = None,
                  where: tuple[str, np.ndarray] | None = None) -> pa.Table | None:
        table = self.tables.get(name)
        if table is None:
            return None
        table = self._only(table, uids)
        if where is not None:
            table = table.filter(pc.is_in(table.column(where[0]),
                                          value_set=pa.array(np.unique(where[1]))))
        return table if columns is None else table.select(columns)


def grouped(keys: np.ndarray, values: np.ndarray) -> dict[str, np.ndarray]:
    """{key: the values at its places, in their order}."""
    if not len(keys):
        return {}
    order = np.argsort(keys, kind="stable")
    names, starts = np.unique(keys[order], return_index=True)
    return dict(zip(names.tolist(), np.split(values[order], starts[1:]), strict=True))
