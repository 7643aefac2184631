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
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link import patch_columns
from mlx.link.columns import UNKNOWN, IdCodes, Threading, nearest_marked, numpy
from mlx.link.patch_columns import ROBOT, Subjects, patch_kinds
from mlx.link.patches import POSTING_WINDOW
from mlx.schema import MESSAGES
from mlx.store import Store

KEYS = pa.schema([("uid", pa.string()), ("comp", pa.int64()), ("mid", pa.int64()),
                  ("refs", pa.list_(pa.int64())), ("norm", pa.int64()),
                  ("posting", pa.bool_()), ("need", pa.bool_()), ("pclass", pa.int64()),
                  ("when", pa.int64()), ("series", pa.int64()), ("skey", pa.int64())])
# parts of one key further apart than this (microseconds, with a second to spare for
# the pass's float seconds) and in other threads never meet in one posting
WINDOW_US = int((POSTING_WINDOW + 1) * 1e6)
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
    """Per message, what can reach other messages: the hashes of its own id and refs;
    its title's (a patch posting's, or a message's that takes its patch by its title:
    ``need``); of its posting key and its date (patch parts); of its author and title
    (parts, for series joined by shared titles) and of its author, title and set tag
    (postings, for series of one name).  A ``has_*`` mask says where a hash is."""

    mid: np.ndarray
    has_mid: np.ndarray
    ref_offsets: np.ndarray
    refs: np.ndarray  # int64 hashes of every row's refs, one after another
    norm: np.ndarray
    has_norm: np.ndarray
    posting: np.ndarray
    need: np.ndarray  # a titled non-patch without a patch ancestor: its patch by title
    pclass: np.ndarray
    has_pclass: np.ndarray
    when: np.ndarray  # microseconds; valid where has_pclass and dated
    dated: np.ndarray
    series: np.ndarray
    has_series: np.ndarray
    skey: np.ndarray
    has_skey: np.ndarray

    def table(self, uid: pa.Array, comp: np.ndarray) -> pa.Table:
        def col(values: np.ndarray, valid: np.ndarray) -> pa.Array:
            return pa.array(values, pa.int64(), mask=~valid)
        return pa.table({
            "uid": uid, "comp": pa.array(comp, pa.int64()),
            "mid": col(self.mid, self.has_mid),
            "refs": pa.ListArray.from_arrays(pa.array(self.ref_offsets, pa.int32()),
                                             pa.array(self.refs, pa.int64())),
            "norm": col(self.norm, self.has_norm),
            "posting": pa.array(self.posting, pa.bool_()),
            "need": pa.array(self.need, pa.bool_()),
            "pclass": col(self.pclass, self.has_pclass),
            "when": col(self.when, self.has_pclass & self.dated),
            "series": col(self.series, self.has_series),
            "skey": col(self.skey, self.has_skey)}, schema=KEYS)


def message_keys(codes: IdCodes, th: Threading, subjects: Subjects, facts: pa.Table,
                 from_addr: pa.Array) -> MessageKeys:
    """The keys of messages threaded as ``th`` (whole components, or the new messages
    alone: ``need`` is then only what their own thread says)."""
    kind, _, is_patch, is_cover, pull = patch_kinds(subjects, facts)
    id_hash = hashes(codes.ids)
    has_mid = codes.mid_code >= 0
    mid = np.where(has_mid, id_hash[np.maximum(codes.mid_code, 0)] if len(id_hash) else 0, 0)
    refs = id_hash[codes.ref_code] if len(codes.ref_code) else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(codes.length)))
    code = subjects.code
    parsed = subjects.parsed
    norm_text = pc.fill_null(parsed.column("norm"), "")
    norm = hashes(norm_text)[code]
    titled = numpy(pc.greater(pc.utf8_length(parsed.column("title")), 0), False, bool)[code]
    maybe_need = ~is_patch & (kind != ROBOT) & titled
    need = maybe_need & (nearest_marked(th.present_parent, is_patch) < 0)
    has_norm = is_patch | maybe_need
    total = subjects.column("total", 0)[code]
    has_pclass = is_patch & (total != 0)
    author = pc.fill_null(from_addr, "")

    def hashed(rows: np.ndarray, *texts: Any) -> np.ndarray:
        out = np.zeros(len(code), dtype=np.int64)
        if len(rows):
            at = pa.array(code[rows])
            parts = [author.take(pa.array(rows)),
                     *(t if isinstance(t, pa.Array) else t.take(at) for t in texts)]
            out[rows] = hashes(pc.binary_join_element_wise(*parts, "\x1f"))
        return out

    rows = np.flatnonzero(has_pclass)
    pclass = hashed(rows, pa.array(total[rows].astype(str)),
                    pc.cast(pc.fill_null(parsed.column("is_rfc"), False), pa.string()),
                    pc.fill_null(parsed.column("set_tag"), ""))
    when = th.dates.astype(np.int64)
    has_series = is_patch & ~is_cover & ~pull
    series = hashed(np.flatnonzero(has_series), norm_text)
    has_skey = is_patch & ~pull
    skey = hashed(np.flatnonzero(has_skey), pc.fill_null(parsed.column("title"), ""),
                  pc.fill_null(parsed.column("set_tag"), ""))
    return MessageKeys(mid, has_mid, offsets, refs, norm, has_norm, is_patch.copy(), need,
                       pclass, has_pclass, when, when != UNKNOWN, series,
                       has_series, skey, has_skey)


def components(n: int, keys: MessageKeys, codes: IdCodes) -> np.ndarray:
    """The component of each of ``n`` messages (0, 1, ...): messages joined by a shared
    id; a title's postings and the messages that take their patch by that title; parts
    of one posting key less than the posting window apart; parts of one author and title;
    postings of one author, title and set tag."""
    a = [np.flatnonzero(codes.mid_code >= 0), np.repeat(np.arange(n), codes.length)]
    b = [n + codes.mid_code[a[0]], n + codes.ref_code.astype(np.int64)]
    base = n + len(codes.ids)
    # a title some message needs and some posting has
    titled = np.flatnonzero(keys.has_norm & (keys.posting | keys.need))
    classes, inverse = np.unique(keys.norm[titled], return_inverse=True)
    needed = np.zeros(len(classes), dtype=bool)
    needed[inverse[keys.need[titled]]] = True
    posted = np.zeros(len(classes), dtype=bool)
    posted[inverse[keys.posting[titled]]] = True
    keep = (needed & posted)[inverse]
    a.append(titled[keep])
    b.append(base + inverse[keep])
    base += len(classes)
    for has, values in ((keys.has_series, keys.series), (keys.has_skey, keys.skey)):
        rows = np.flatnonzero(has)
        found, inverse = np.unique(values[rows], return_inverse=True)
        a.append(rows)
        b.append(base + inverse)
        base += len(found)
    # parts of one posting key: each with the next one in time, when within the window
    rows = np.flatnonzero(keys.has_pclass & keys.dated)
    rows = rows[np.lexsort((keys.when[rows], keys.pclass[rows]))]
    close = (keys.pclass[rows[1:]] == keys.pclass[rows[:-1]]) & \
        (keys.when[rows[1:]] - keys.when[rows[:-1]] <= WINDOW_US)
    a.append(rows[:-1][close])
    b.append(rows[1:][close])
    label = _union(base, np.concatenate(a).astype(np.int64), np.concatenate(b).astype(np.int64))
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


def plan(st: Store, info: dict[str, Any], new: MessageKeys, new_uids: pa.Array,
         new_parts: list[str], statuses: Callable[[pa.Array], MessageKeys]) -> Plan | None:
    """The messages to re-link: the new ones and the stored components they touch
    (``statuses``: the keys of some messages threaded together, for the titles the
    messages re-linked take their patch by); None when a full pass is due."""
    old = st.read_link("keys")
    if old is None:
        return None
    comp = numpy(old.column("comp"))

    def col(name: str) -> tuple[np.ndarray, np.ndarray]:
        column = old.column(name)
        return numpy(column, 0), numpy(pc.is_valid(column), None, bool)

    hit = [np.zeros(0, dtype=np.int64)]
    ids = np.unique(np.concatenate((new.mid[new.has_mid], new.refs)))
    mid, has_mid = col("mid")
    refs = old.column("refs").combine_chunks()
    owner = np.repeat(np.arange(len(comp)), numpy(pc.list_value_length(refs), 0))
    hit += [comp[has_mid & np.isin(mid, ids)],
            comp[owner[np.isin(numpy(pc.list_flatten(refs)), ids)]]]
    norm, has_norm = col("norm")
    need = numpy(old.column("need"), False, bool) & has_norm
    posting = numpy(old.column("posting"), False, bool) & has_norm
    hit.append(comp[need & np.isin(norm, new.norm[new.posting & new.has_norm])])
    for name, has, values in (("series", new.has_series, new.series),
                              ("skey", new.has_skey, new.skey)):
        stored, valid = col(name)
        hit.append(comp[valid & np.isin(stored, values[has])])
    pclass, has_pclass = col("pclass")
    when, dated = col("when")
    rows = np.flatnonzero(has_pclass & dated)
    rows = rows[np.lexsort((when[rows], pclass[rows]))]
    by_class = pclass[rows]
    for p, t in zip(new.pclass[new.has_pclass & new.dated].tolist(),
                    new.when[new.has_pclass & new.dated].tolist(), strict=True):
        same = rows[np.searchsorted(by_class, p, "left"):np.searchsorted(by_class, p, "right")]
        hit.append(comp[same[np.abs(when[same] - t) <= WINDOW_US]])
    touched = np.isin(comp, np.unique(np.concatenate(hit)))
    uids = pa.concat_arrays([old.column("uid").filter(pa.array(touched)).combine_chunks(),
                             new_uids.cast(pa.string())])
    # the titles the messages re-linked take their patch by, threaded as they will be:
    # the postings of those titles come too
    now = statuses(uids)
    titles = np.unique(now.norm[now.need & now.has_norm])
    touched |= np.isin(comp, np.unique(comp[~touched & posting & np.isin(norm, titles)]))
    old_uids = old.column("uid").filter(pa.array(touched)).combine_chunks()
    relinked = len(old_uids) + len(new_uids)
    base_rows = int(info.get("rows", {}).get("links", 0))
    if info.get("delta_rows", 0) + relinked > COMPACT * max(base_rows, 1):
        return None
    gen = max([0, *st.link_gens()]) + 1
    return Plan(gen, pa.concat_arrays([old_uids, new_uids.cast(pa.string())]), old_uids,
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
