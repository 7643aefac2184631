"""Subjects on columns: each distinct subject parsed once into a small table.

A store's subjects repeat (a thread's replies share their patch's); ``parse_subjects``
parses the distinct ones a pass has not seen before (``known``: the table of the last
pass, kept in ``link/subjects`` under ``formats.SUBJECT_FORMAT``), and ``Subjects``
gives every message the code of its subject's row.  ``key_columns`` are the keys a
subject gives (its normalised title, its kind); ``subject_parses`` is what a worker
parses of its chunk ahead of the pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.columns import as_numpy, encode
from mlx.link.formats import SUBJECT_FORMAT
from mlx.link.rules import is_repost
from mlx.parts import hashes
from mlx.schema import PATCHES, empty
from mlx.subjects import Subject, looks_like_commit_title, normalize_title, parse_subject

BATCH = 20_000  # distinct subjects parsed per batch: Python objects live only that long
OTHER, PATCH, ROBOT = 0, 1, 2
KINDS = {"other": OTHER, "patch": PATCH, "robot": ROBOT}
REPORTED = ("title", "subsystem", "subsystem_path", "prefixes", "tree", "version",
            "version_seen", "version_minor", "part", "total", "is_rfc", "is_resend",
            "is_pull", "is_autosel", "is_rft")
# parsed per subject beyond the reported columns
EXTRA = {"kind": pa.int8(), "is_reply": pa.bool_(), "is_cover": pa.bool_(),
         "commit_like": pa.bool_(), "set_tag": pa.string(), "norm": pa.string(),
         "repost": pa.bool_()}


@dataclass
class Subjects:
    """Distinct subjects parsed, one row each (the last row is a missing subject), and
    each message's row."""

    text: pa.Array  # the distinct subjects (without the missing one; none: keys alone)
    parsed: pa.Table  # REPORTED columns, kind, is_reply, is_cover, commit_like
    code: np.ndarray  # per message: its row in ``parsed`` (missing: the last)
    _keyed: pa.Table | None = None

    def column(self, name: str, null: Any = 0) -> np.ndarray:
        """A parsed column, or one of ``key_columns``, per distinct subject."""
        if name not in self.parsed.column_names:
            if self._keyed is None:
                self._keyed = key_columns(self.parsed)
            return as_numpy(self._keyed.column(name), null, None)
        return as_numpy(self.parsed.column(name), null, None)

    def at(self, rows: np.ndarray, name: str) -> np.ndarray:
        """A parsed column for messages ``rows``."""
        return self.column(name)[self.code[rows]]


# per distinct subject, what the keys of the link pass read of its parse (``key_columns``)
KEY_FACTS = ["kind", "is_reply", "is_cover", "is_pull", "version_seen", "total"]


def key_columns(parsed: pa.Table) -> pa.Table:
    """Of each parse: ``KEY_FACTS``, whether it has prefixes and a title, and hashes of
    its normalised title (``norm``), of its part count, RFC-ness and set tag
    (``pclass``: with the author, a posting key) and of its title and set tag
    (``skey``: with the author, the name of a series): all that ``patch_kinds`` and
    ``message_keys`` read, so that a pass can hold these instead of the parses."""
    set_tag = pc.fill_null(parsed.column("set_tag"), "")
    title = pc.fill_null(parsed.column("title"), "")
    return pa.table({
        **{name: parsed.column(name) for name in KEY_FACTS},
        "has_prefixes": pc.greater(pc.list_value_length(parsed.column("prefixes")), 0),
        "titled": pc.greater(pc.utf8_length(title), 0),
        "norm_key": hashes(pc.fill_null(parsed.column("norm"), "")),
        "pclass_key": hashes(pc.binary_join_element_wise(
            pc.cast(pc.fill_null(parsed.column("total"), 0), pa.string()),
            pc.cast(pc.fill_null(parsed.column("is_rfc"), False), pa.string()), set_tag,
            "\x1f")),
        "skey_key": hashes(pc.binary_join_element_wise(title, set_tag, "\x1f"))})


@cache
def parser_version() -> str:
    """The version of the stored subject parses (``formats.SUBJECT_FORMAT``): a stored
    parse of another is stale."""
    return f"subjects-{SUBJECT_FORMAT}"


def parse_subjects(subject: pa.ChunkedArray, known: pa.Table | None = None
                   ) -> tuple[Subjects, pa.Table | None]:
    """The subjects parsed, and the parse of every distinct subject seen so far (to
    store; None when it is ``known`` unchanged: ``known`` is that table from the last
    link pass, so only subjects new since are parsed, unless the parser changed)."""
    text, code = encode(subject)
    missing = len(text)
    code[code < 0] = missing
    version = parser_version()
    if known is None or (known.schema.metadata or {}).get(b"parser") != version.encode():
        known = None
    at = (_index_in(text, known.column("subject")) if known is not None
          else pa.nulls(missing, pa.int32()))
    new_rows = np.flatnonzero(as_numpy(pc.is_null(at), True, bool)) if missing else \
        np.zeros(0, dtype=np.int64)
    batches = [subject_parses(text.take(pa.array(new_rows[start:start + BATCH])).to_pylist())
               for start in range(0, len(new_rows), BATCH)]
    schema = subject_parses([]).schema
    seen = pa.concat_tables([*([known.select(schema.names).cast(schema)] if known is not None
                                else []), *batches]) if (known is not None or batches) \
        else empty(schema)
    base = len(known) if known is not None else 0
    index = as_numpy(at, -1, np.int64).copy()
    index[new_rows] = base + np.arange(len(new_rows))
    parsed = pa.concat_tables([seen.take(pa.array(index)).drop_columns(["subject"]),
                               parsed_table([parse_subject(None)])])
    changed = known is None or len(new_rows) > 0
    seen = seen.replace_schema_metadata({"parser": version}) if changed else None
    return Subjects(text, parsed.combine_chunks(), code), seen


def _index_in(text: pa.Array, known: pa.ChunkedArray) -> pa.Array:
    """Where each of the distinct ``text`` is in ``known`` (null where not).  Few texts
    are looked up among those of ``known`` that probing it with them finds (a hash
    table of the few, not of all known)."""
    if len(text) * 4 > len(known):
        return pc.index_in(text, value_set=known)
    near = pc.indices_nonzero(pc.is_in(known, value_set=text)).cast(pa.int64())
    return near.take(pc.index_in(text, value_set=known.take(near)))


def subject_parses(subjects: Iterable[str | None]) -> pa.Table:
    """The parse of each distinct subject given (none of a missing one), with its text in
    ``subject`` and the parser's version in the schema's metadata: what a worker hands
    the link pass for its chunk's subjects, and the rows of ``link/subjects``."""
    values = [v for v in dict.fromkeys(subjects) if v is not None]
    table = parsed_table([parse_subject(v) for v in values]).append_column(
        "subject", pa.array(values, pa.string()))
    parse_subject.cache_clear()  # its entries would outlive the batch
    return table.replace_schema_metadata({"parser": parser_version()})


def keyed_parses(table: pa.Table) -> pa.Table:
    """Rows of ``link/subjects``: parses with the hash of each subject's text (``key``)."""
    return table.append_column("key", pa.array(hashes(table.column("subject")), pa.int64()))


def known_subjects(parts: list[pa.Table], disjoint: int = 0) -> pa.Table | None:
    """The parses of ``parts`` (``subject_parses`` tables: the last link pass's and the
    workers' since) of the current parser, each subject once; None if none are.  The
    first ``disjoint`` parts hold distinct subjects (the files of ``link/subjects``:
    each pass's only those new to the ones before), so only the rest are deduplicated."""
    version = parser_version().encode()
    fresh = [(k < disjoint, t) for k, t in enumerate(parts)
             if (t.schema.metadata or {}).get(b"parser") == version]
    if not fresh:
        return None
    schema = subject_parses([]).schema
    head = [t.select(schema.names).cast(schema) for unique, t in fresh if unique]
    rest = [t.select(schema.names).cast(schema) for unique, t in fresh if not unique]
    if not rest:
        return pa.concat_tables(head).combine_chunks()
    table = pa.concat_tables(rest)
    first = np.sort(np.unique(encode(table.column("subject"))[1], return_index=True)[1])
    table = table.take(pa.array(first))
    if head:
        known = pa.concat_tables(head)
        # the subjects the head has, found by probing it with the (fewer) others
        both = known.column("subject").filter(
            pc.is_in(known.column("subject"), value_set=table.column("subject")))
        table = pa.concat_tables([known, table.filter(
            pc.invert(pc.is_in(table.column("subject"), value_set=both)))])
    return table.combine_chunks()


def parsed_table(subjects: list[Subject]) -> pa.Table:
    """The columns of parsed subjects a pass stores (``link/subjects``) and keys by."""
    cols: dict[str, list[Any]] = {name: [getattr(s, name) for s in subjects]
                                  for name in REPORTED}
    cols["kind"] = [KINDS[s.kind] for s in subjects]
    cols["is_reply"] = [s.is_reply for s in subjects]
    cols["is_cover"] = [s.is_cover for s in subjects]
    cols["commit_like"] = [looks_like_commit_title(s.title) for s in subjects]
    cols["set_tag"] = [s.set_tag for s in subjects]
    cols["norm"] = [normalize_title(s.title) for s in subjects]
    cols["repost"] = [is_repost(s) for s in subjects]
    types = {f.name: f.type for f in PATCHES if f.name in REPORTED}
    types.update(EXTRA)
    return pa.table({k: pa.array(v, types[k]) for k, v in cols.items()})
