"""Parquet parts and arrays, the helpers every reader of a store shares: the filesystem of
a store's URL, one part read as a schema, a part written whole or not at all, reads in
threads, 64-bit hashes of strings and membership in sorted keys."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from typing import Any

import fsspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from mlx.schema import empty

HASH_ROWS = 100_000  # strings hashed at a time (each a Python object while hashed)


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
