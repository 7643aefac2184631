"""Every Arrow schema of the store, built from the record dataclasses.

A table's columns are the fields of its record, in order; the extracted tables
(``results``, ``hardware``, ``statements``) lead with the ``uid`` and
``message_id`` of the message each row came from.  Type hints map to Arrow
types one to one (``str`` -> string, ``int`` -> int64, ``list[str]`` -> a list
of strings, ``dt.datetime`` -> a UTC timestamp, ...), so a new field is a new
column without a second place to edit.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import types
import typing
from typing import Any

import pyarrow as pa

from mlx.rows import (
    Attachment,
    ClaimRow,
    ErrorRecord,
    HardwareRow,
    LinkRow,
    MessageRecord,
    PatchFacts,
    PatchRow,
    ReportRow,
    ResultRow,
    RowCounts,
    Statement,
    ThreadRow,
)

TRAILER = pa.struct([("key", pa.string()), ("value", pa.string())])
ATTACHMENT = pa.struct([("filename", pa.string()), ("content_type", pa.string()),
                        ("size", pa.int64())])
TIMESTAMP = pa.timestamp("us", tz="UTC")
SCALARS: dict[Any, pa.DataType] = {str: pa.string(), int: pa.int64(), float: pa.float64(),
                                   bool: pa.bool_(), dt.datetime: TIMESTAMP}


def empty(schema: pa.Schema) -> pa.Table:
    """A table of no rows (``Schema.empty_table`` imports pandas: 0.3 s of every ingest)."""
    return pa.Table.from_batches([], schema=schema)


def arrow_type(hint: Any) -> pa.DataType:
    """The Arrow type of one field's type hint (``X | None`` is a nullable X)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return arrow_type(inner)
    if typing.get_origin(hint) is typing.Literal:  # the words of a column: text
        assert all(isinstance(a, str) for a in typing.get_args(hint)), hint
        return pa.string()
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        if typing.get_origin(item) is tuple:
            return pa.list_(TRAILER)  # (key, value) pairs
        if item is Attachment:
            return pa.list_(ATTACHMENT)
        return pa.list_(arrow_type(item))
    return SCALARS[hint]


def fields_of(cls: type) -> list[pa.Field]:
    hints = typing.get_type_hints(cls)
    return [pa.field(f.name, arrow_type(hints[f.name])) for f in dataclasses.fields(cls)]


def schema_of(cls: type, lead: list[pa.Field] | None = None) -> pa.Schema:
    return pa.schema((lead or []) + fields_of(cls))


KEYS = [pa.field("uid", pa.string()), pa.field("message_id", pa.string())]


def _messages() -> pa.Schema:
    fields = fields_of(MessageRecord)
    at = [f.name for f in fields].index("references") + 1
    # the ids threading follows, parent last (mlx.link.threads.thread_refs)
    fields.insert(at, pa.field("thread_refs", pa.list_(pa.string())))
    return pa.schema(fields + fields_of(PatchFacts) + fields_of(RowCounts))


MESSAGES = _messages()
FACT_COLUMNS = tuple(f.name for f in dataclasses.fields(PatchFacts))
COUNT_COLUMNS = tuple(f.name for f in dataclasses.fields(RowCounts))  # n_results, ...
ERRORS = schema_of(ErrorRecord)
RESULTS = schema_of(ResultRow, KEYS)
HARDWARE = schema_of(HardwareRow, KEYS)
STATEMENTS = schema_of(Statement, KEYS)
LINKS = schema_of(LinkRow)
THREADS = schema_of(ThreadRow)
PATCHES = schema_of(PatchRow)
REPORTS = schema_of(ReportRow)
CLAIMS = schema_of(ClaimRow)

# table name -> (record class, schema): what the schema test walks
TABLES: dict[str, tuple[type, pa.Schema]] = {
    "errors": (ErrorRecord, ERRORS), "results": (ResultRow, RESULTS),
    "hardware": (HardwareRow, HARDWARE), "statements": (Statement, STATEMENTS),
    "links": (LinkRow, LINKS), "threads": (ThreadRow, THREADS), "patches": (PatchRow, PATCHES),
    "reports": (ReportRow, REPORTS), "claims": (ClaimRow, CLAIMS),
}
