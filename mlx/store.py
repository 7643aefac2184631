"""The store: Parquet parts plus a manifest of what was ingested.

Layout of a store (a directory, or an fsspec URL such as ``s3://bucket/lore``)::

    mlx-store.json            manifest: format version, per-source progress, runs
    messages/part-*.parquet   one file per chunk of input
    results/ hardware/ statements/ errors/   the same
    link/*.parquet            the link stage's tables: a base, replaced by a full pass,
                              and deltas of the incremental passes since (see below)
    staging/<run>/            parts the workers wrote, not yet taken by the driver

Workers write their parts under ``staging/``; the driver, taking chunks in
order, dedups them and moves them into place (rewriting a part only when it
held a duplicate), so the store never holds a row twice and a crash leaves
nothing half written where readers look.  The dedup keys (``uid``) are read
back from the parts themselves, so a run that died half way is completed, not
duplicated, by the next one.  Dask, Spark and DuckDB read the parts as they are.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from mlx import schema
from mlx.errors import StoreError
from mlx.schema import empty

if TYPE_CHECKING:
    from mlx.rows import ErrorRecord, MessageRecord, PatchFacts

MANIFEST = "mlx-store.json"
LOCK = "ingest.lock"  # an ingest at work: {"host", "pid", "since"}
FORMAT = 1
TABLES = ("messages", "errors", "results", "hardware", "statements")
EXTRACTED = ("results", "hardware", "statements")  # rows keyed by the uid of a message
# the parse of each chunk's distinct subjects (no rows of a message: not deduplicated),
# folded into link/subjects and removed by the next link pass
SUBJECT_PARSES = "subject_parses"
HASH_ROWS = 100_000  # strings hashed at a time (each a Python object while hashed)
CHUNK_PART = re.compile(r"part-.+-c\d+\.parquet")  # the parts of one chunk share a name
LINK_DELTA = re.compile(r".+\.\d+\.parquet(?:\.tmp)?")  # link/<name>.<gen>.parquet
# the key of a link table's rows, which dead files void (None: rows are never voided)
LINK_KEYS: dict[str, str | None] = {"threads": "thread_id", "subjects": None,
                                    "subject-keys": None,
                                    "keys": "comp", "index": "comp"}
DEAD = {"uid": "dead", "thread_id": "dead-threads", "comp": "dead-comps"}  # their files

TRAILER, MESSAGES, FACT_COLUMNS = schema.TRAILER, schema.MESSAGES, schema.FACT_COLUMNS
RESULTS, HARDWARE, STATEMENTS, ERRORS = (schema.RESULTS, schema.HARDWARE, schema.STATEMENTS,
                                         schema.ERRORS)


def messages_table(records: list[MessageRecord], facts: list[PatchFacts],
                   refs: list[list[str]], counts: dict[str, list[int]]) -> pa.Table:
    """Rows of ``messages``: each record with the patch facts of its body, its
    ``thread_refs`` and its ``counts`` of extracted rows (``n_results``, ...)."""
    cols: dict[str, list[Any]] = {name: [] for name in MESSAGES.names}
    cols["thread_refs"] = refs
    cols.update(counts)
    fields = [n for n in MESSAGES.names
              if n not in FACT_COLUMNS and n not in counts and n != "thread_refs"]
    for rec, fact in zip(records, facts, strict=True):
        for name in fields:
            value = getattr(rec, name)
            if name == "attachments":
                value = [a.__dict__ for a in value]
            cols[name].append(value)
        for name in FACT_COLUMNS:
            value = getattr(fact, name)
            if name == "trailers":
                value = [{"key": k, "value": v} for k, v in value]
            cols[name].append(value)
    return pa.table(cols, schema=MESSAGES)


def rows_table(schema: pa.Schema, records: list[MessageRecord],
               rows_per_record: list[list[Any]]) -> pa.Table:
    """Extracted rows (results, hardware) with the uid and Message-ID they came from."""
    cols: dict[str, list[Any]] = {name: [] for name in schema.names}
    for rec, rows in zip(records, rows_per_record, strict=True):
        for row in rows:
            cols["uid"].append(rec.uid)
            cols["message_id"].append(rec.message_id)
            for name in schema.names[2:]:
                cols[name].append(getattr(row, name))
    return pa.table(cols, schema=schema)


def errors_table(records: Iterable[ErrorRecord]) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [] for name in ERRORS.names}
    for rec in records:
        for name, values in cols.items():
            values.append(getattr(rec, name))
    return pa.table(cols, schema=ERRORS)


def filesystem(url: str) -> tuple[fsspec.AbstractFileSystem, str]:
    """(filesystem, root path) of a store path or URL (fsspec caches the instances)."""
    fs, root = fsspec.core.url_to_fs(url)
    return fs, root.rstrip("/") or "/"


def hashes(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A 64-bit hash of each string (nulls hash as the empty string), a slice at a time:
    each string is a Python object while it is hashed."""
    import pandas as pd
    out = np.zeros(len(values), dtype=np.int64)
    for start in range(0, len(values), HASH_ROWS):
        part = values.slice(start, HASH_ROWS)
        objects = pc.fill_null(part.cast(pa.string()), "").to_numpy(zero_copy_only=False)
        out[start:start + len(part)] = pd.util.hash_array(objects, categorize=False).view(np.int64)
    return out


def in_sorted(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is among ``keys`` (sorted): a binary search, for many
    values and fewer keys."""
    if not len(keys):
        return np.zeros(len(values), dtype=bool)
    if len(values) > 4 * len(keys) and bool((values[1:] >= values[:-1]).all()):
        # sorted values too (a column of a file sorted by it): the keys searched in them,
        # and the runs of each key found marked
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        lo, hi = np.searchsorted(values, keys, "left"), np.searchsorted(values, keys, "right")
        found = lo < hi
        marks = np.zeros(len(values) + 1, dtype=np.int32)
        marks[lo[found]] += 1
        marks[hi[found]] -= 1
        return np.cumsum(marks[:-1]) > 0
    return keys[np.minimum(np.searchsorted(keys, values), len(keys) - 1)] == values


# row groups a lookup reads a call (``Store.read_where``): a call per group cost a third
# of a lookup that hit every group of link/index; all at once would hold them all
GROUPS_READ = 16
# fewer items than this are read in the caller's thread: the reads of a few small parts
# (a delta's claims read four of 50 rows) take less than starting a pool and handing
# each back under the GIL
POOLED = 8


def in_threads(read: Callable[[Any], pa.Table], items: Iterable[Any]) -> list[pa.Table]:
    """``read`` of each item, in order, one thread per core: Parquet decodes without the
    GIL."""
    from concurrent.futures import ThreadPoolExecutor
    items = list(items)
    if len(items) < POOLED:
        return [read(item) for item in items]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(read, items))


def read_as(fs: fsspec.AbstractFileSystem, path: str, want: pa.Schema,
            uids: pa.Array | None = None) -> pa.Table:
    """One part with the columns of ``want`` (null where the part lacks one); with
    ``uids``, only their rows (the other columns read only when the part has one)."""
    # a local part opened by Arrow itself: through fsspec's file object each of its
    # reads is a Python call
    with nullcontext(path) if isinstance(fs, LocalFileSystem) else fs.open(path, "rb") as fh:
        pf = pq.ParquetFile(fh, pre_buffer=False)
        have = set(pf.schema_arrow.names)
        names = [f.name for f in want if f.name in have]
        if uids is None:
            data = pf.read(columns=names, use_threads=False)
        else:
            hit = pc.is_in(pf.read(columns=["uid"], use_threads=False).column("uid"),
                           value_set=uids)
            rows = pc.indices_nonzero(hit)
            data = pf.read(columns=names, use_threads=False).take(rows) if len(rows) \
                else empty(pa.schema([pf.schema_arrow.field(c) for c in names]))
    if data.schema.equals(want):
        return data
    cols = [(c if (c := data.column(f.name)).type == f.type else c.cast(f.type))
            if f.name in have else pa.nulls(len(data), f.type) for f in want]
    return pa.Table.from_arrays(cols, schema=want)


def write_parquet(fs: fsspec.AbstractFileSystem, path: str, data: pa.Table,
                  row_group: int | None = None) -> None:
    """Write under a temporary name, then rename: readers never see half a file."""
    pq.write_table(data, path + ".tmp", compression="zstd", filesystem=fs,
                   row_group_size=row_group)
    fs.mv(path + ".tmp", path)


def stage(url: str, run: str, tables: dict[str, pa.Table]) -> dict[str, str]:
    """Write a worker's tables under ``staging/<run>/``; {table: path} of those written."""
    fs, root = filesystem(url)
    base = f"{root}/staging/{run}"
    fs.makedirs(base, exist_ok=True)
    name = uuid.uuid4().hex
    out = {}
    for table, data in tables.items():
        if data is not None and data.num_rows:
            out[table] = f"{base}/{name}-{table}.parquet"
            write_parquet(fs, out[table], data)
    return out


class Store:
    """A store: reading the manifest and keys, writing parts (local path or fsspec URL)."""

    def __init__(self, path: str, create: bool = False) -> None:
        self.path = path
        self.fs, self.root = filesystem(path)
        self._local = isinstance(self.fs, LocalFileSystem)
        self._info: tuple[tuple[int, int], dict[str, Any]] | None = None  # link_info
        manifest = self.path_of(MANIFEST)
        if not self.fs.exists(manifest):
            if not create:
                raise StoreError(f"{path}: not an mlx store (no {MANIFEST}); "
                                 f"run `mlx ingest ARCHIVE --store {path}` first")
            self.manifest: dict[str, Any] = {"format": FORMAT, "sources": {}, "runs": []}
        else:
            try:
                with self.fs.open(manifest, "r", encoding="utf-8") as fh:
                    self.manifest = json.load(fh)
            except (OSError, ValueError) as exc:
                raise StoreError(f"{manifest}: unreadable manifest ({exc}); "
                                 f"move the store aside and ingest again") from exc
        self.run = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
        self._seq = 0
        self._ensured = False
        self.listings: dict[str, list[str]] | None = None  # see listed_once

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One ingest at a time: a second one stops with one line instead of
        removing the first one's staged parts.  A lock left by a process that
        died on this host is taken over; on another host, the line says how to
        remove it."""
        path = self.path_of(LOCK)
        if self.fs.exists(path):
            try:
                with self.fs.open(path, "r", encoding="utf-8") as fh:
                    other = json.load(fh)
            except (OSError, ValueError):
                other = {}
            here = other.get("host") == socket.gethostname()
            if not (here and not _alive(other.get("pid"))):
                raise StoreError(
                    f"{self.path}: another mlx ingest is writing this store (pid "
                    f"{other.get('pid', '?')} on {other.get('host', '?')} since "
                    f"{other.get('since', '?')}); wait for it, or remove {path} if it died")
        self.fs.makedirs(self.root, exist_ok=True)
        with self.fs.open(path, "w", encoding="utf-8") as fh:
            json.dump({"host": socket.gethostname(), "pid": os.getpid(),
                       "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}, fh)
        try:
            yield
        finally:
            if self.fs.exists(path):
                self.fs.rm(path)

    def path_of(self, *parts: str) -> str:
        """The path of ``parts`` inside the store (a table's folder, a link file)."""
        return "/".join((self.root, *parts))

    def ensure(self) -> None:
        """The table folders, made once per Store (not once per chunk taken)."""
        if not self._ensured:
            for sub in (*TABLES, SUBJECT_PARSES):
                self.fs.makedirs(self.path_of(sub), exist_ok=True)
            self._ensured = True

    @contextmanager
    def listed_once(self) -> Iterator[None]:
        """Each folder of parts listed once while inside (a link pass, which adds none)."""
        self.listings = {}
        try:
            yield
        finally:
            self.listings = None

    def _listing(self, table: str) -> list[str]:
        if self.listings is not None:
            if table not in self.listings:
                self.listings[table] = self._list(table)
            return self.listings[table]
        return self._list(table)

    def _list(self, table: str) -> list[str]:
        d = self.path_of(table)
        if self._local:  # fsspec's listing costs 30 µs a file: a store has thousands
            try:
                return sorted(f"{d}/{name}" for name in os.listdir(d))
            except (FileNotFoundError, NotADirectoryError):
                return []
        return sorted(self.fs.ls(d, detail=False)) if self.fs.isdir(d) else []

    def sizes(self, paths: list[str]) -> list[int]:
        """The size of each file."""
        if self._local:
            return [os.stat(path).st_size for path in paths]
        return list(self.fs.sizes(paths)) if paths else []

    def part_paths(self, table: str) -> list[str]:
        """The parts readers see: an extracted part only once its chunk's messages part
        is in place (until ``recover`` removes it, a crashed chunk's rows are not read)."""
        if self.listings is not None:  # inside listed_once: found once
            key = f"parts of {table}"
            if key not in self.listings:
                self.listings[key] = self._part_paths(table)
            return self.listings[key]
        return self._part_paths(table)

    def _part_paths(self, table: str) -> list[str]:
        parts = [p for p in self._listing(table) if p.endswith(".parquet")]
        if table in EXTRACTED:
            committed = {p.rsplit("/", 1)[-1] for p in self._listing("messages")}
            parts = [p for p in parts if not CHUNK_PART.fullmatch(p.rsplit("/", 1)[-1])
                     or p.rsplit("/", 1)[-1] in committed]
        return parts

    def parts_since_link(self, info: dict[str, Any] | None = None) -> list[str] | None:
        """The messages parts stored since the last link pass (``info``: its
        ``link/info.json``; every part before the first pass), None when a part it linked
        is gone or changed."""
        linked = (self.link_info() if info is None else info).get("parts", {}).get(
            "messages", {})
        paths = self.part_paths("messages")
        sizes = dict(zip((p.rsplit("/", 1)[-1] for p in paths), self.sizes(paths),
                         strict=True))
        if any(sizes.get(name) != facts[0] for name, facts in linked.items()):
            return None
        return [p for p in paths if p.rsplit("/", 1)[-1] not in linked]

    def stored_uids(self) -> set[str]:
        """The uids of the stored messages: of the parts the last link pass linked, from
        its ``link/messages`` (one column of a few files, where a read of every part costs
        one per part: 1.4 s on a store of 1.09M messages in 2,200 parts), and of the parts
        stored since; from every part when a linked part is gone or changed."""
        since = self.parts_since_link()
        table = None
        if since is not None and self.link_info().get("parts", {}).get("messages"):
            table = self.read_link("messages", columns=["uid"])
        if table is None or since is None:
            return set(self.read("messages", MESSAGES, ["uid"]).column("uid").to_pylist())
        uid = pa.schema([MESSAGES.field("uid")])
        return set(pa.concat_tables([table, *(self.read_part_as(p, uid) for p in since)])
                   .column("uid").to_pylist())

    def write(self, table: str, data: pa.Table) -> str | None:
        """A part of the driver's own (error rows): ``part-<run>-e<seq>.parquet``."""
        if data.num_rows == 0:
            return None
        self.ensure()
        self._seq += 1
        final = self.path_of(table, f"part-{self.run}-e{self._seq:06d}.parquet")
        write_parquet(self.fs, final, data)
        return final

    def take(self, staged: dict[str, str], keep: pa.Array | None = None) -> None:
        """Move one chunk's staged parts into place as ``part-<run>-c<seq>.parquet``;
        with ``keep`` (uids), rewrite them with only those uids' rows.

        The messages part goes last: it is the commit point.  A crash before it
        leaves extracted parts without their messages part, which ``recover``
        removes; the chunk's messages are then not stored, and are read again.
        """
        self.ensure()
        self._seq += 1
        name = f"part-{self.run}-c{self._seq:06d}.parquet"
        for table in sorted(staged, key=lambda t: t == "messages"):
            final = self.path_of(table, name)
            if keep is None or table == SUBJECT_PARSES:
                self.fs.mv(staged[table], final)
                continue
            data = self.read_part(staged[table])
            data = data.filter(pc.is_in(data.column("uid"), value_set=keep))
            if data.num_rows:
                write_parquet(self.fs, final, data)
            self.fs.rm(staged[table])

    def recover(self) -> None:
        """Undo what a crashed run left half done: staged parts no run will take,
        half-written files, and extracted parts whose chunk's messages part was never
        moved into place."""
        self.clear_staging()
        for table in TABLES:
            seen = set(self.part_paths(table))
            for path in self._listing(table):
                if path.endswith(".tmp") or (path.endswith(".parquet") and path not in seen):
                    self.fs.rm(path)

    def read_part(self, path: str, columns: list[str] | None = None) -> pa.Table:
        """One file as it is (``pq.ParquetFile``: ``pq.read_table`` imports
        ``pyarrow.dataset``, 0.17 s, and pandas with it, which a driver need not pay)."""
        with self.fs.open(path, "rb") as fh:
            return pq.ParquetFile(fh, pre_buffer=False).read(columns=columns)

    def clear_staging(self) -> None:
        """Remove staged parts (after the engine stopped, no task writes there)."""
        if self.fs.exists(self.path_of("staging")):
            self.fs.rm(self.path_of("staging"), recursive=True)

    def save_manifest(self) -> None:
        self.fs.makedirs(self.root, exist_ok=True)
        path = self.path_of(MANIFEST)
        with self.fs.open(path + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(self.manifest, fh, indent=1, sort_keys=True)
        self.fs.mv(path + ".tmp", path)

    def read(self, table: str, schema: pa.Schema, columns: list[str] | None = None,
             uids: Iterable[str] | None = None) -> pa.Table:
        """All parts of a table, only the rows of ``uids`` if given; columns a part
        lacks (older parts) come back null.

        Parts are read one after another, each without read-ahead: on a store of
        thousands of parts that needs half the memory of a parallel dataset scan, and
        is no slower."""
        parts = self.part_paths(table)
        want = schema if columns is None else pa.schema([schema.field(c) for c in columns])
        if not parts:
            return empty(want)
        if uids is not None:
            return self._read_uids(parts, want, schema.field("uid"), set(uids))
        return pa.concat_tables([self.read_part_as(path, want) for path in parts])

    def _read_uids(self, parts: list[str], want: pa.Schema, uid_field: pa.Field,
                   wanted: set[str]) -> pa.Table:
        """The rows of ``wanted`` uids, a part at a time (a dataset scan with a filter
        held hundreds of MiB on a store of millions): each part's uids matched by hash
        against the wanted ones, then exactly."""
        keys = np.unique(hashes(pa.array(sorted(wanted), pa.string())))
        with_uid = want if "uid" in want.names else want.append(uid_field)

        def rows_of(path: str) -> pa.Table:
            data = self.read_part_as(path, with_uid)
            rows = np.flatnonzero(in_sorted(hashes(data.column("uid")), keys))
            rows = rows[[u in wanted for u in data.column("uid").take(pa.array(rows)).to_pylist()]]
            return data.take(pa.array(rows)).select(want.names)
        if not wanted:
            return empty(want)
        tables = [t for t in in_threads(rows_of, parts) if t.num_rows]
        return pa.concat_tables(tables) if tables else empty(want)

    def read_part_as(self, path: str, want: pa.Schema, uids: pa.Array | None = None) -> pa.Table:
        return read_as(self.fs, path, want, uids)

    # The link tables are a base file, replaced by a full link pass, and one delta file
    # per incremental pass since (``link/<name>.<gen>.parquet``, the generations listed
    # in ``link/info.json``): a delta holds the rows of every message its pass re-linked,
    # and ``link/dead.<gen>.parquet`` the uids (and thread ids) whose rows in the files
    # before it are void.  ``read_link`` gives the live rows.

    def link_file(self, name: str, gen: int = 0) -> str:
        """The file of a link table: its base (``gen`` 0) or a delta."""
        return self.path_of("link", f"{name}.parquet" if not gen else f"{name}.{gen}.parquet")

    def write_link(self, name: str, data: pa.Table, gen: int = 0,
                   row_group: int | None = None) -> None:
        """Write one table of the link stage: the base (``gen`` 0) or a delta."""
        self.fs.makedirs(self.path_of("link"), exist_ok=True)
        write_parquet(self.fs, self.link_file(name, gen), data, row_group)

    def link_writer(self, gen: int = 0) -> LinkWriter:
        """Streams of the link tables of generation ``gen``, in place once closed."""
        self.fs.makedirs(self.path_of("link"), exist_ok=True)
        return LinkWriter(self, gen)

    def write_dead(self, gen: int, uids: pa.Array, thread_ids: pa.Array,
                   comps: np.ndarray) -> None:
        """What delta ``gen`` voids in the files before it: rows of these uids (threads:
        of these thread ids; the keys and their index: of these components)."""
        self.write_link("dead", pa.table({"uid": uids.cast(pa.string())}), gen)
        self.write_link("dead-threads", pa.table({"thread_id": thread_ids.cast(pa.string())}),
                        gen)
        self.write_link("dead-comps", pa.table({"comp": pa.array(comps, pa.int64())}), gen)

    def link_gens(self) -> list[int]:
        """The deltas in force, oldest first."""
        return [int(g) for g in self.link_info().get("gens", [])]

    def clear_link_deltas(self) -> None:
        """Remove every delta and dead file (a full pass replaces the base)."""
        d = self.path_of("link")
        if self.fs.isdir(d):
            for path in self.fs.ls(d, detail=False):
                if LINK_DELTA.fullmatch(path.rsplit("/", 1)[-1]):
                    self.fs.rm(path)

    def link_files(self, name: str) -> list[tuple[str, list[str]]]:
        """(file, the dead files voiding rows of it) of a link table, base first; []
        when it was never written (a delta that added no row of it wrote no file)."""
        base = self.link_file(name)
        if not self.fs.exists(base):
            return []
        gens = self.link_gens()
        key = LINK_KEYS.get(name, "uid")
        files = [(0, base)] + [(g, path) for g in gens
                               if self.fs.exists(path := self.link_file(name, g))]
        return [(path, [self.link_file(DEAD[key], later) for later in gens if later > g]
                 if key is not None else []) for g, path in files]

    def read_link(self, name: str, uids: Iterable[str] | None = None,
                  columns: list[str] | None = None,
                  where: tuple[str, np.ndarray] | None = None) -> pa.Table | None:
        """The live rows of a table of the link stage (only the rows of ``uids``, or
        whose column ``where[0]`` holds one of ``where[1]``, only ``columns``, if given),
        None when it was never written.  ``where`` reads only the row groups whose
        statistics admit a value: few on a file sorted by that column."""
        files = self.link_files(name)
        if not files:
            return None
        key = LINK_KEYS.get(name, "uid")
        if not any(dead for _, dead in files):
            key = None  # no rows void: the key is not needed
        cols = columns if columns is None or key is None or key in columns \
            else [*columns, key]
        wanted = None if uids is None else pa.array(list(uids), pa.string())
        voided: dict[str, pa.Array] = {}
        tables = []
        for path, dead in files:
            if where is not None:
                table = self.read_where(path, cols, *where)
            else:
                table = self.read_part(path, cols) if wanted is None else pq.read_table(
                    path, filesystem=self.fs, columns=cols, filters=[("uid", "in", wanted)])
            if dead:
                for d in dead:
                    if d not in voided:
                        voided[d] = self.read_part(d).column(0)
                keys = pa.chunked_array([voided[d] for d in dead]).combine_chunks()
                if len(keys):
                    table = table.filter(pc.invert(pc.is_in(table.column(key), value_set=keys)))
            tables.append(table)
        out = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
        if columns is not None and key is not None and key not in columns:
            out = out.drop_columns([key])
        return out

    def read_where(self, path: str, columns: list[str] | None, column: str,
                    values: np.ndarray) -> pa.Table:
        """The rows of a file whose ``column`` (integers) holds one of ``values``, read a
        row group at a time from the groups whose minimum and maximum admit one (few in a
        file sorted by ``column``)."""
        values = np.unique(values)

        def hits(keys: pa.ChunkedArray) -> pa.Array:
            return pa.array(in_sorted(keys.to_numpy(), values))
        with self.fs.open(path, "rb") as fh:
            pf = pq.ParquetFile(fh, pre_buffer=False)
            at = [pf.metadata.schema.column(i).path
                  for i in range(pf.metadata.num_columns)].index(column)  # a leaf's place
            read = columns if columns is None or column in columns else [*columns, column]
            groups = []
            for g in range(pf.num_row_groups if len(values) else 0):
                stats = pf.metadata.row_group(g).column(at).statistics
                if stats is not None and stats.has_min_max:
                    lo = np.searchsorted(values, stats.min, "left")
                    if lo == len(values) or values[lo] > stats.max:
                        continue
                groups.append(g)
            tables = []
            for start in range(0, len(groups), GROUPS_READ):  # a few groups a call
                some = pf.read_row_groups(groups[start:start + GROUPS_READ], columns=read,
                                          use_threads=False)
                tables.append(some.filter(hits(some.column(column))))
            names = read or pf.schema_arrow.names
            schema = pa.schema([pf.schema_arrow.field(c) for c in names],
                               metadata=pf.schema_arrow.metadata)
        table = pa.concat_tables(tables) if tables else empty(schema)
        return table if columns is None or column in columns else table.drop_columns([column])

    def part_facts(self, known: dict[str, Any] | None = None,
                   trusted: bool = False) -> dict[str, dict[str, list]]:
        """{table: {part file: [bytes, rows, first date, last date]}} of the parts readers
        see, from their Parquet footers; a part ``known`` holds with the same name and
        size is not opened again (the link pass keeps them in ``link/info.json``, so
        ``mlx info`` opens no footer on a store linked since its last change).  With
        ``trusted`` (the caller checked the known messages parts: a part is never
        changed under its name), a known part is not even measured again."""
        out: dict[str, dict[str, list]] = {}
        for table in TABLES:
            have = (known or {}).get(table, {})
            paths = self.part_paths(table)
            if trusted:
                new = [p for p in paths if p.rsplit("/", 1)[-1] not in have]
                sized = dict(zip(new, self.sizes(new), strict=True))
                sizes = [sized[p] if p in sized else have[p.rsplit("/", 1)[-1]][0]
                         for p in paths]
            else:
                sizes = self.sizes(paths)
            facts = {}
            for path, size in zip(paths, sizes, strict=True):
                name = path.rsplit("/", 1)[-1]
                old = have.get(name)
                facts[name] = old if old and old[0] == size else [size, *self._footer(path)]
            out[table] = facts
        return out

    def _footer(self, path: str) -> list[Any]:
        """[rows, first date, last date] of a part (dates as ISO text, None without)."""
        meta = pq.read_metadata(path, filesystem=self.fs)
        first = last = None
        col = meta.schema.names.index("date") if "date" in meta.schema.names else -1
        for i in range(meta.num_row_groups if col >= 0 else 0):
            stats = meta.row_group(i).column(col).statistics
            if stats is not None and stats.has_min_max:
                first = stats.min if first is None else min(first, stats.min)
                last = stats.max if last is None else max(last, stats.max)
        return [meta.num_rows, first and first.isoformat(), last and last.isoformat()]

    def row_count(self, table: str, facts: dict[str, dict[str, list]] | None = None) -> int:
        """Rows of a table from Parquet footers alone (no column is read)."""
        if table in TABLES:
            facts = facts or self.part_facts(self.link_info().get("parts"))
            return sum(f[1] for f in facts[table].values())
        rows = self.link_info().get("rows", {})
        if table in rows:  # the link pass counted the live rows (deltas and all)
            return int(rows[table])
        path = self.link_path(table)
        return pq.read_metadata(path, filesystem=self.fs).num_rows if path else 0

    def date_range(self, facts: dict[str, dict[str, list]] | None = None) -> tuple[Any, Any]:
        """(first, last) message date from the Parquet statistics of the parts."""
        import datetime as dt
        facts = facts or self.part_facts(self.link_info().get("parts"))
        firsts = [dt.datetime.fromisoformat(f[2]) for f in facts["messages"].values() if f[2]]
        lasts = [dt.datetime.fromisoformat(f[3]) for f in facts["messages"].values() if f[3]]
        return (min(firsts) if firsts else None), (max(lasts) if lasts else None)

    def write_link_info(self, info: dict[str, Any]) -> None:
        """Facts of the link pass that ``mlx info`` shows without reading a column."""
        self.fs.makedirs(self.path_of("link"), exist_ok=True)
        with self.fs.open(self.path_of("link", "info.json"), "w") as fh:
            fh.write(json.dumps(info))  # dumps: C's encoder (dump's is Python's: 0.1 s at 1M)
        self._info = None

    def link_info(self) -> dict[str, Any]:
        """``link/info.json``, not to be changed (on a local store read again only when
        its size or time changed: a pass asks often, and it lists every part)."""
        path = self.path_of("link", "info.json")
        if not self._local:
            if not self.fs.exists(path):
                return {}
            with self.fs.open(path) as fh:
                return dict(json.load(fh))
        try:
            facts = os.stat(path)
        except FileNotFoundError:
            return {}
        stamp = (facts.st_size, facts.st_mtime_ns)
        if self._info is None or self._info[0] != stamp:
            with open(path, encoding="utf-8") as fh:
                self._info = stamp, dict(json.load(fh))
        return self._info[1]

    def link_path(self, name: str) -> str | None:
        """Where the base of a table of the link stage is, when it was written."""
        path = self.link_file(name)
        return path if self.fs.exists(path) else None


class LinkWriter:
    """The files of one generation of the link tables, each written as a stream (a full
    pass in batches of components adds every batch's rows to the same files), under
    temporary names until ``close`` renames them into place.  A delta (gen > 0) writes
    no file of a table it adds no row to."""

    def __init__(self, st: Store, gen: int) -> None:
        self.st, self.gen = st, gen
        self._writers: dict[str, pq.ParquetWriter] = {}

    def write(self, name: str, data: pa.Table | Iterable[pa.RecordBatch],
              schema: pa.Schema | None = None, keep: list[str] | None = None,
              row_group: int | None = None) -> pa.Table:
        """Add ``data`` (a table, or batches of ``schema``) to table ``name``; the rows
        added, as one table of the ``keep`` columns (all if None): what a batch's claims
        and counts read."""
        if isinstance(data, pa.Table):
            schema = data.schema
            if self.gen and not data.num_rows and name not in self._writers:
                return data if keep is None else data.select(keep)  # a delta: no file
        assert schema is not None
        writer = self._writers.get(name)
        if writer is None:
            path = self.st.link_file(name, self.gen) + ".tmp"
            writer = pq.ParquetWriter(path, schema, compression="zstd", filesystem=self.st.fs)
            self._writers[name] = writer
        if isinstance(data, pa.Table):
            writer.write_table(data, row_group_size=row_group)
            return data if keep is None else data.select(keep)
        kept = []
        for batch in data:
            writer.write_batch(batch)
            kept.append(batch if keep is None else batch.select(keep))
        return pa.Table.from_batches(kept, schema=schema if keep is None else pa.schema(
            [schema.field(c) for c in keep]))

    def close(self) -> None:
        for name, writer in self._writers.items():
            writer.close()
            path = self.st.link_file(name, self.gen)
            self.st.fs.mv(path + ".tmp", path)
        self._writers = {}


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True

