"""The store: Parquet parts plus a manifest of what was ingested.

Layout of a store directory::

    mlx-store.json            manifest: format version, per-source progress, runs
    messages/part-*.parquet   one file per written batch
    errors/part-*.parquet

Parts are written under a temporary name and renamed, so a crash leaves no
half file; the dedup keys (``uid``) are read back from the parts themselves,
so a run that died half way is completed, not duplicated, by the next one.
Dask, Spark and DuckDB read the parts as they are.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mlx.errors import StoreError
from mlx.ingest.parse import ErrorRecord, MessageRecord

MANIFEST = "mlx-store.json"
FORMAT = 1

ATTACHMENT = pa.struct([("filename", pa.string()), ("content_type", pa.string()),
                        ("size", pa.int64())])
MESSAGES = pa.schema([
    ("uid", pa.string()),
    ("message_id", pa.string()),
    ("date", pa.timestamp("us", tz="UTC")),
    ("from_name", pa.string()),
    ("from_addr", pa.string()),
    ("to", pa.list_(pa.string())),
    ("cc", pa.list_(pa.string())),
    ("subject", pa.string()),
    ("in_reply_to", pa.list_(pa.string())),
    ("references", pa.list_(pa.string())),
    ("list_id", pa.string()),
    ("body", pa.string()),
    ("source", pa.string()),
    ("offset", pa.int64()),
    ("length", pa.int64()),
    ("commit", pa.string()),
    ("defects", pa.list_(pa.string())),
    ("attachments", pa.list_(ATTACHMENT)),
    ("content_type", pa.string()),
    ("raw_size", pa.int64()),
])
ERRORS = pa.schema([
    ("source", pa.string()),
    ("offset", pa.int64()),
    ("length", pa.int64()),
    ("reason", pa.string()),
    ("commit", pa.string()),
])


def messages_table(records: Iterable[MessageRecord]) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [] for name in MESSAGES.names}
    for rec in records:
        for name, values in cols.items():
            value = getattr(rec, name)
            if name == "attachments":
                value = [a.__dict__ for a in value]
            values.append(value)
    return pa.table(cols, schema=MESSAGES)


def errors_table(records: Iterable[ErrorRecord]) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [] for name in ERRORS.names}
    for rec in records:
        for name, values in cols.items():
            values.append(getattr(rec, name))
    return pa.table(cols, schema=ERRORS)


class Store:
    """A store directory: reading the manifest and keys, writing parts."""

    def __init__(self, path: str, create: bool = False) -> None:
        self.path = path
        manifest = os.path.join(path, MANIFEST)
        if not os.path.exists(manifest):
            if not create:
                raise StoreError(f"{path}: not an mlx store (no {MANIFEST}); "
                                 f"run `mlx ingest ARCHIVE --store {path}` first")
            self.manifest: dict[str, Any] = {"format": FORMAT, "sources": {}, "runs": []}
        else:
            try:
                with open(manifest, encoding="utf-8") as fh:
                    self.manifest = json.load(fh)
            except (OSError, ValueError) as exc:
                raise StoreError(f"{manifest}: unreadable manifest ({exc}); "
                                 f"move the store aside and ingest again") from exc
        self._run = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"
        self._seq = 0

    def ensure(self) -> None:
        for sub in ("messages", "errors"):
            os.makedirs(os.path.join(self.path, sub), exist_ok=True)

    def part_paths(self, table: str) -> list[str]:
        d = os.path.join(self.path, table)
        if not os.path.isdir(d):
            return []
        return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".parquet"))

    def stored_uids(self) -> set[str]:
        uids: set[str] = set()
        for part in self.part_paths("messages"):
            uids.update(pq.read_table(part, columns=["uid"]).column("uid").to_pylist())
        return uids

    def write(self, table: str, data: pa.Table) -> str | None:
        if data.num_rows == 0:
            return None
        self.ensure()
        self._seq += 1
        final = os.path.join(self.path, table, f"part-{self._run}-{self._seq:05d}.parquet")
        tmp = final + ".tmp"
        pq.write_table(data, tmp, compression="zstd")
        os.replace(tmp, final)
        return final

    def save_manifest(self) -> None:
        os.makedirs(self.path, exist_ok=True)
        path = os.path.join(self.path, MANIFEST)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(self.manifest, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)

    def read(self, table: str, schema: pa.Schema) -> pa.Table:
        parts = self.part_paths(table)
        if not parts:
            return schema.empty_table()
        return pa.concat_tables([pq.read_table(p, schema=schema) for p in parts])
