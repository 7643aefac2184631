"""The store: Parquet parts plus a manifest of what was ingested.

Layout of a store (a directory, or an fsspec URL such as ``s3://bucket/lore``)::

    mlx-store.json            manifest: format version, per-source progress, runs
    messages/part-*.parquet   one file per chunk of input
    results/ hardware/ statements/ errors/   the same
    link/*.parquet            the link stage's tables: a base, replaced by a full pass,
                              and deltas of the incremental passes since (mlx.linkfiles)
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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from mlx import schema
from mlx.errors import StoreError
from mlx.linkfiles import LinkFiles
from mlx.parts import filesystem, hashes, in_sorted, in_threads, read_as, write_parquet
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
CHUNK_PART = re.compile(r"part-.+-c\d+\.parquet")  # the parts of one chunk share a name

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


class Tables(Protocol):
    """What reads the tables of a store: the store itself, or the tables of the messages of
    one link pass (``mlx.link.rows.PassTables``) as their claims see them."""

    def read(self, table: str, schema: pa.Schema, columns: list[str] | None = None,
             uids: Iterable[str] | None = None) -> pa.Table: ...

    def read_link(self, name: str, uids: Iterable[str] | None = None,
                  columns: list[str] | None = None,
                  where: tuple[str, np.ndarray] | None = None) -> pa.Table | None: ...


class Store(LinkFiles):
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
            if len(keep):  # (a chunk of copies only, a re-read archive, is not read at all)
                data = self.read_part(staged[table])
                data = data.filter(pc.is_in(data.column("uid"), value_set=keep))
                if data.num_rows:
                    write_parquet(self.fs, final, data)
                del data
            self.fs.rm(staged[table])
        if keep is not None:
            # the driver read bodies it keeps no reference to: Arrow's pool would hold
            # their pages for the rest of the run
            pa.default_memory_pool().release_unused()

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

