"""The link stage's files in a store: a base per table and the deltas of incremental
passes since, and what reads their live rows.

The link tables are a base file, replaced by a full link pass, and one delta file per
incremental pass since (``link/<name>.<gen>.parquet``, the generations listed in
``link/info.json``): a delta holds the rows of every message its pass re-linked, and
``link/dead.<gen>.parquet`` the uids (and thread ids) whose rows in the files before it
are void.  ``read_link`` gives the live rows.  ``LinkFiles`` is the part of ``Store``
that does this; ``LinkWriter`` streams one generation's tables into place.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mlx.parts import GROUPS_READ, in_sorted, write_parquet
from mlx.schema import empty

LINK_DELTA = re.compile(r".+\.\d+\.parquet(?:\.tmp)?")  # link/<name>.<gen>.parquet
# the key of a link table's rows, which dead files void (None: rows are never voided)
LINK_KEYS: dict[str, str | None] = {"threads": "thread_id", "subjects": None,
                                    "subject-keys": None,
                                    "keys": "comp", "index": "comp"}
DEAD = {"uid": "dead", "thread_id": "dead-threads", "comp": "dead-comps"}  # their files


class LinkFiles:
    """The link files of a store (``Store`` is one): what it needs of the store is its
    filesystem, its paths and its parts' reads."""

    fs: fsspec.AbstractFileSystem
    _local: bool
    _info: tuple[tuple[int, int], dict[str, Any]] | None

    def path_of(self, *parts: str) -> str:
        raise NotImplementedError

    def read_part(self, path: str, columns: list[str] | None = None) -> pa.Table:
        raise NotImplementedError

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

    def __init__(self, st: LinkFiles, gen: int) -> None:
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
