"""Re-linking only what new messages touch.

Every rule of the link pass reaches across messages through one of three things:
an id (a Message-ID or a ``thread_refs`` id: threads, ghosts, the patch of a reply),
a normalised patch title (a reply's patch by its subject, the newest version of a
title, series joined by shared titles), and the posting key of a patch part (author,
part count, RFC-ness and set tag: parts sent apart joined into one posting).  The
**components** of the graph of messages joined by those (a title only where some
patch posting has it) are independent: the pass over a union of whole components
gives their messages the rows the pass over the whole store gives them.

So each message's keys (its id hashes, title hash, posting key hash) and component
are stored in ``link/keys``; a later pass reads the new messages, finds the stored
components they share a key with, and re-links only those messages and the new
ones (the rows of the old ones are voided by the delta, see ``Store.read_link``).
A hash collision only adds a component to the set re-linked.  ``tests/test_link_incremental.py``
checks the tables equal a full re-link.
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link import patch_columns
from mlx.link.columns import IdCodes, numpy
from mlx.link.patch_columns import Subjects
from mlx.schema import MESSAGES
from mlx.store import Store

KEYS = pa.schema([("uid", pa.string()), ("comp", pa.int64()), ("mid", pa.int64()),
                  ("refs", pa.list_(pa.int64())), ("norm", pa.int64()),
                  ("posting", pa.bool_()), ("pclass", pa.int64())])
# a pass re-links incrementally while the rows of its deltas stay under this share of
# the store; past it a full pass replaces base and deltas
COMPACT = 0.25


def link_version() -> str:
    """The versions of the link code and of the subject parser: tables linked by other
    code are linked again in full."""
    return f"{_link_code()}-{patch_columns.parser_version()}"


@cache
def _link_code() -> str:
    from mlx import link
    from mlx.analyse import claims
    from mlx.link import columns, incremental
    h = hashlib.sha1(usedforsecurity=False)
    for module in (link, columns, patch_columns, incremental, claims):
        h.update(inspect.getsource(module).encode())
    return h.hexdigest()[:16]


class Rows:
    """The message columns a link pass reads: every stored message, or only those of
    ``uids`` (each part's rows found once, then taken from every column read)."""

    def __init__(self, st: Store, uids: pa.Array | None = None,
                 paths: list[str] | None = None) -> None:
        self.st, self.uids = st, uids
        self.paths = paths if paths is not None else st.part_paths("messages")
        self._take: list[tuple[str, pa.Array | None]] | None = None

    def read(self, columns: list[str]) -> pa.Table:
        want = pa.schema([MESSAGES.field(c) for c in columns])
        if self.uids is None and len(self.paths) == len(self.st.part_paths("messages")):
            return self.st.read("messages", MESSAGES, columns)
        if self._take is None:
            self._take = []
            for path in self.paths:
                if self.uids is None:
                    self._take.append((path, None))
                    continue
                uid = self.st._read_as(path, pa.schema([MESSAGES.field("uid")])).column("uid")
                rows = pc.indices_nonzero(pc.is_in(uid, value_set=self.uids))
                if len(rows):
                    self._take.append((path, rows))
        tables = [self.st._read_as(path, want) if rows is None
                  else self.st._read_as(path, want).take(rows) for path, rows in self._take]
        return pa.concat_tables(tables) if tables else want.empty_table()


def hashes(values: pa.Array) -> np.ndarray:
    """A 64-bit hash of each string (nulls hash as the empty string)."""
    import pandas as pd
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    objects = pc.fill_null(values.cast(pa.string()), "").to_numpy(zero_copy_only=False)
    return pd.util.hash_array(objects, categorize=False).view(np.int64)


@dataclass
class MessageKeys:
    """Per message: the hashes of its own id and refs, of its title (where it can reach
    other messages), whether it is a patch posting, of its posting key (parts only)."""

    mid: np.ndarray  # int64; valid where has_mid
    has_mid: np.ndarray
    ref_offsets: np.ndarray
    refs: np.ndarray  # int64 hashes of every row's refs, one after another
    norm: np.ndarray
    has_norm: np.ndarray
    posting: np.ndarray
    pclass: np.ndarray
    has_pclass: np.ndarray

    def table(self, uid: pa.Array, comp: np.ndarray) -> pa.Table:
        return pa.table({
            "uid": uid, "comp": pa.array(comp, pa.int64()),
            "mid": pa.array(self.mid, pa.int64(), mask=~self.has_mid),
            "refs": pa.ListArray.from_arrays(pa.array(self.ref_offsets, pa.int32()),
                                             pa.array(self.refs, pa.int64())),
            "norm": pa.array(self.norm, pa.int64(), mask=~self.has_norm),
            "posting": pa.array(self.posting, pa.bool_()),
            "pclass": pa.array(self.pclass, pa.int64(), mask=~self.has_pclass)}, schema=KEYS)


def message_keys(codes: IdCodes, subjects: Subjects, is_patch: np.ndarray,
                 from_addr: pa.Array) -> MessageKeys:
    id_hash = hashes(codes.ids)
    has_mid = codes.mid_code >= 0
    mid = np.where(has_mid, id_hash[np.maximum(codes.mid_code, 0)] if len(id_hash) else 0, 0)
    refs = id_hash[codes.ref_code] if len(codes.ref_code) else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(codes.length)))
    code = subjects.code
    parsed = subjects.parsed
    norm = hashes(parsed.column("norm"))[code]
    titled = numpy(pc.greater(pc.utf8_length(parsed.column("title")), 0), False, bool)[code]
    has_norm = numpy(pc.is_valid(parsed.column("norm")), None, bool)[code] & (titled | is_patch)
    total = subjects.column("total", 0)[code]
    has_pclass = is_patch & (total != 0)
    rows = np.flatnonzero(has_pclass)
    pclass = np.zeros(len(code), dtype=np.int64)
    if len(rows):
        at = pa.array(code[rows])
        text = pc.binary_join_element_wise(
            pc.fill_null(from_addr.take(pa.array(rows)), ""),
            pa.array(total[rows].astype(str)),
            pc.cast(pc.fill_null(parsed.column("is_rfc").take(at), False), pa.string()),
            pc.fill_null(parsed.column("set_tag").take(at), ""), "\x1f")
        pclass[rows] = hashes(text)
    return MessageKeys(mid, has_mid, offsets, refs, norm, has_norm, is_patch.copy(), pclass,
                       has_pclass)


def components(n: int, keys: MessageKeys, codes: IdCodes) -> np.ndarray:
    """The component of each of ``n`` messages (0, 1, ...): messages joined by a shared
    id, a shared title some patch posting of theirs has, a shared posting key."""
    n_ids = len(codes.ids)
    rows = [np.flatnonzero(codes.mid_code >= 0), np.repeat(np.arange(n), codes.length)]
    nodes = [n + codes.mid_code[rows[0]], n + codes.ref_code.astype(np.int64)]
    base = n + n_ids
    titled = np.flatnonzero(keys.has_norm)
    classes, inverse = np.unique(keys.norm[titled], return_inverse=True)
    posted = np.zeros(len(classes), dtype=bool)
    posted[inverse[keys.posting[titled]]] = True
    keep = posted[inverse]
    rows.append(titled[keep])
    nodes.append(base + inverse[keep])
    base += len(classes)
    parts = np.flatnonzero(keys.has_pclass)
    pclasses, pinverse = np.unique(keys.pclass[parts], return_inverse=True)
    rows.append(parts)
    nodes.append(base + pinverse)
    base += len(pclasses)
    label = _union(base, np.concatenate(rows).astype(np.int64),
                   np.concatenate(nodes).astype(np.int64))
    return np.unique(label[:n], return_inverse=True)[1].reshape(-1)


def _union(size: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest node of each node's component, the edges being ``a[k]``-``b[k]``:
    roots hooked under the smaller root of every edge, then pointers jumped to roots,
    until every edge has one root."""
    label = np.arange(size, dtype=np.int64)
    while True:
        la, lb = label[a], label[b]
        differ = la != lb
        if not differ.any():
            return label
        la, lb = la[differ], lb[differ]
        low = np.minimum(la, lb)
        np.minimum.at(label, la, low)
        np.minimum.at(label, lb, low)
        while True:
            up = label[label]
            if np.array_equal(up, label):
                break
            label = up


@dataclass
class Plan:
    """What an incremental pass re-links."""

    gen: int
    uids: pa.Array  # every message re-linked: the new ones and those they touch
    old: pa.Array  # the stored messages among them (their rows are voided)
    new_parts: list[str]
    comp_base: int


def plan(st: Store, info: dict[str, Any], new_keys: Any) -> Plan | None:
    """The messages to re-link given the new messages' keys (a ``MessageKeys`` and their
    uids), None when a full pass is due."""
    keys_new, uid_new, new_parts = new_keys
    old = st.read_link("keys")
    if old is None:
        return None
    comp = numpy(old.column("comp"))
    hit = np.zeros(0, dtype=np.int64)
    # a shared id
    ids_new = np.concatenate((keys_new.mid[keys_new.has_mid], keys_new.refs))
    if len(ids_new):
        ids_new = np.unique(ids_new)
        mid = numpy(old.column("mid"), 0)
        has_mid = numpy(pc.is_valid(old.column("mid")), None, bool)
        at = np.flatnonzero(has_mid & np.isin(mid, ids_new))
        refs = old.column("refs").combine_chunks()
        flat = numpy(pc.list_flatten(refs))
        owner = np.repeat(np.arange(len(comp)), numpy(pc.list_value_length(refs), 0))
        hit = np.concatenate((comp[at], comp[owner[np.isin(flat, ids_new)]]))
    # a shared title some posting (old or new) has
    norm_new = np.unique(keys_new.norm[keys_new.has_norm])
    if len(norm_new):
        norm = numpy(old.column("norm"), 0)
        has_norm = numpy(pc.is_valid(old.column("norm")), None, bool)
        same = has_norm & np.isin(norm, norm_new)
        posted = np.union1d(keys_new.norm[keys_new.has_norm & keys_new.posting],
                            norm[same & numpy(old.column("posting"), False, bool)])
        hit = np.concatenate((hit, comp[same & np.isin(norm, posted)]))
    # a shared posting key
    pclass_new = np.unique(keys_new.pclass[keys_new.has_pclass])
    if len(pclass_new):
        pclass = numpy(old.column("pclass"), 0)
        has_pclass = numpy(pc.is_valid(old.column("pclass")), None, bool)
        hit = np.concatenate((hit, comp[has_pclass & np.isin(pclass, pclass_new)]))
    touched = np.isin(comp, np.unique(hit))
    old_uids = old.column("uid").filter(pa.array(touched)).combine_chunks()
    relinked = len(old_uids) + len(uid_new)
    base_rows = int(info.get("rows", {}).get("links", 0))
    if info.get("delta_rows", 0) + relinked > COMPACT * max(base_rows, 1):
        return None
    gen = max([0, *st.link_gens()]) + 1
    return Plan(gen, pa.concat_arrays([old_uids, uid_new.cast(pa.string())]), old_uids,
                new_parts, int(info.get("next_comp", 0)))


class SubsetStore(Store):
    """The store as the claims of some messages see it: only their rows of the
    extracted tables, the link tables given (a delta's, before it is in force)."""

    def __init__(self, st: Store, uids: pa.Array, tables: dict[str, pa.Table]) -> None:
        super().__init__(st.path)
        self.uids = set(uids.to_pylist())
        self.tables = tables

    def read(self, table: str, schema: pa.Schema, columns: list[str] | None = None,
             uids: Any = None) -> pa.Table:
        return super().read(table, schema, columns,
                            self.uids if uids is None else self.uids.intersection(uids))

    def read_link(self, name: str, uids: Any = None,
                  columns: list[str] | None = None) -> pa.Table | None:
        table = self.tables.get(name)
        if table is None:
            return None
        if uids is not None:
            table = table.filter(pc.is_in(table.column("uid"),
                                          value_set=pa.array(list(uids), pa.string())))
        return table if columns is None else table.select(columns)
