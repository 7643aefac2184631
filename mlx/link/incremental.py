"""Re-linking only what new messages touch.

Every rule of the link pass reaches across messages through one of a few keys: an
id (a Message-ID or a ``thread_refs`` id: threads, ghosts, the patch of a reply); a
normalised title (a reply's patch by its subject, and the newest version of that
title), joining only a title's postings and the messages that take their patch by it;
the posting key of a patch part (author, part count, RFC-ness and set tag: parts sent
apart joined into one posting, within the posting window); an author and title (series
joined by shared titles); an author, title and set tag (postings of one series name).
The **components** of the graph of messages joined by those are independent: the pass
over a union of whole components gives their messages the rows the pass over the whole
store gives them.

So each message's key hashes, component, part and row are stored in ``link/keys``; a
later pass reads the new messages, finds the stored components they share a key with,
and re-links only those messages and the new ones, reading only their parts (the rows
of the old ones are voided by the delta, see ``Store.read_link``).
A hash collision only adds a component to the set re-linked.  ``tests/test_link_incremental.py``
checks the tables equal a full re-link.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link import subject_columns
from mlx.link.columns import UNKNOWN, IdCodes, as_numpy, nearest_marked, ranges
from mlx.link.formats import LINK_FORMAT
from mlx.link.patch_columns import patch_kinds
from mlx.link.rows import Places, Rows, grouped
from mlx.link.rules import POSTING_WINDOW
from mlx.link.subject_columns import ROBOT, Subjects
from mlx.parts import hashes, in_sorted
from mlx.store import Store

KEYS = pa.schema([("uid", pa.string()), ("comp", pa.int64()), ("mid", pa.int64()),
                  ("refs", pa.list_(pa.int64())), ("norm", pa.int64()),
                  ("posting", pa.bool_()), ("need", pa.bool_()), ("pclass", pa.int64()),
                  ("when", pa.int64()), ("series", pa.int64()), ("skey", pa.int64()),
                  ("part", pa.dictionary(pa.int32(), pa.string())), ("row", pa.int32()),
                  # what a later pass voids of the message: its thread, and its patch
                  # (a cover? the hash of its series_id)
                  ("thread", pa.string()), ("patch", pa.bool_()), ("cover", pa.bool_()),
                  ("sid", pa.int64())])
# the keys of every message as a table sorted by hash, a row per key: what the next
# pass looks up the stored messages a new one shares a key with by
INDEX = pa.schema([("key", pa.int64()), ("kind", pa.int8()), ("comp", pa.int64()),
                   ("when", pa.int64())])
MID, REF, NEED, POST, SERIES, SKEY, PCLASS = range(7)  # the kinds of keys
KEYS_GROUP = INDEX_GROUP = 8192  # rows per row group: a lookup reads only the groups hit
# parts of one key further apart than this (microseconds, with a second to spare for
# the pass's float seconds) and in other threads never meet in one posting
WINDOW_US = int((POSTING_WINDOW + 1) * 1e6)
# a pass re-links incrementally while the rows of its deltas stay under this share of
# the store; past it a full pass replaces base and deltas
COMPACT = 0.25


def link_version() -> str:
    """The versions of the link code and of the subject parser: tables linked by other
    code are linked again in full."""
    return f"{_link_code()}-{subject_columns.parser_version()}"


@cache
def _link_code() -> str:
    """The version of the stored link tables (``formats.LINK_FORMAT``), and pandas' (the
    keys stored are its ``hash_array``'s hashes)."""
    import pandas
    return f"link-{LINK_FORMAT}-pandas-{pandas.__version__}"


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

    def table(self, uid: pa.Array, comp: np.ndarray, at: tuple[pa.Array, pa.Array],
              facts: pa.Table) -> pa.Table:
        """The keys table of the messages (``at``: their parts and rows; ``facts``:
        thread, patch, cover and sid of each), sorted by component."""
        def col(values: np.ndarray, valid: np.ndarray) -> pa.Array:
            return pa.array(values, pa.int64(), mask=~valid)
        table = pa.table({
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
            "skey": col(self.skey, self.has_skey), "part": at[0], "row": at[1],
            **{name: facts.column(name) for name in ("thread", "patch", "cover", "sid")}},
            schema=KEYS)
        return table.take(pa.array(np.argsort(comp, kind="stable")))


def index_table(keys: Callable[[list[str]], pa.Table]) -> pa.Table:
    """The index of the rows of a keys table (``keys``: its columns asked for, read a few
    at a time): (key, kind, comp, when) of each key of each message, sorted by key
    (``when``: a part's date, for its posting key).  A ref to a message of the table is
    left out: the component of the refs to an id is that message's, which its own id
    finds (the refs left, a twentieth on the corpus lists, name ghosts)."""
    keyed: list[np.ndarray] = []
    kinds: list[np.ndarray] = []
    comps: list[np.ndarray] = []
    whens: list[np.ndarray] = []
    for kind, name, flag in ((MID, "mid", None), (REF, "refs", None), (NEED, "norm", "need"),
                             (POST, "norm", "posting"), (SERIES, "series", None),
                             (SKEY, "skey", None), (PCLASS, "pclass", "when")):
        table = keys(["comp", name, *([flag] if flag else [])])
        comp = as_numpy(table.column("comp"))
        if kind == REF:
            refs = pa.chunked_array(table.column("refs").chunks, KEYS.field("refs").type)
            values = as_numpy(pc.list_flatten(refs), 0)
            rows = np.repeat(np.arange(len(comp)), as_numpy(pc.list_value_length(refs), 0))
            ghosts = ~in_sorted(values, np.unique(keyed[MID]))
            values, rows = values[ghosts], rows[ghosts]
        else:
            has = as_numpy(pc.is_valid(table.column(name)), None, bool)
            if flag == "when":
                has &= as_numpy(pc.is_valid(table.column(flag)), None, bool)
            elif flag:
                has &= as_numpy(table.column(flag), False, bool)
            rows = np.flatnonzero(has)
            values = as_numpy(table.column(name), 0)[rows]
        keyed.append(values)
        kinds.append(np.full(len(rows), kind, dtype=np.int8))
        comps.append(comp[rows])
        whens.append(as_numpy(table.column("when"), 0)[rows] if kind == PCLASS
                     else np.zeros(len(rows), dtype=np.int64))
        del table, comp, values, rows
    key = np.concatenate(keyed)
    del keyed
    order = np.argsort(key, kind="stable")
    columns = {"key": key[order]}
    del key
    for name, pieces in (("kind", kinds), ("comp", comps), ("when", whens)):
        column = np.concatenate(pieces)
        pieces.clear()
        columns[name] = column[order]
        del column
    return pa.table(columns, schema=INDEX)


class Lineage(Protocol):
    """What the keys read of a threading: each row's nearest ancestor in the archive
    and its date (``Threading`` has them; a pass over hashes finds them alone)."""

    present_parent: np.ndarray
    dates: np.ndarray


def mix(author: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """One 64-bit hash of an author's hash and another's (odd multiplier: a bijection of
    the first, so distinct authors of one ``rest`` never meet)."""
    with np.errstate(over="ignore"):
        return ((author.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
                ^ rest.view(np.uint64)).view(np.int64)


def message_keys(codes: IdCodes, th: Lineage, subjects: Subjects, facts: pa.Table,
                 author: np.ndarray) -> MessageKeys:
    """The keys of messages threaded as ``th`` (whole components, or the new messages
    alone: ``need`` is then only what their own thread says); ``author``: the hash of
    each one's sender address (``author_hashes``)."""
    kind, _, is_patch, is_cover, pull = patch_kinds(subjects, facts)
    id_hash = codes.hashed()
    has_mid = codes.mid_code >= 0
    mid = np.where(has_mid, id_hash[np.maximum(codes.mid_code, 0)] if len(id_hash) else 0, 0)
    refs = id_hash[codes.ref_code] if len(codes.ref_code) else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(codes.length)))
    code = subjects.code
    norm = subjects.column("norm_key")[code]
    titled = subjects.column("titled", False)[code]
    maybe_need = ~is_patch & (kind != ROBOT) & titled
    need = maybe_need & (nearest_marked(th.present_parent, is_patch) < 0)
    has_norm = is_patch | maybe_need
    total = subjects.column("total", 0)[code]
    has_pclass = is_patch & (total != 0)

    def keyed(has: np.ndarray, name: str) -> np.ndarray:
        return np.where(has, mix(author, subjects.column(name)[code]), 0)

    when = th.dates.astype(np.int64)
    has_series = is_patch & ~is_cover & ~pull
    has_skey = is_patch & ~pull
    return MessageKeys(mid, has_mid, offsets, refs, norm, has_norm, is_patch.copy(), need,
                       keyed(has_pclass, "pclass_key"), has_pclass, when, when != UNKNOWN,
                       keyed(has_series, "norm_key"), has_series,
                       keyed(has_skey, "skey_key"), has_skey)


def author_hashes(from_addr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The hash of each message's sender address (none: the empty one)."""
    return hashes(from_addr)


def components(n: int, keys: MessageKeys, codes: IdCodes) -> np.ndarray:
    """The component of each of ``n`` messages (0, 1, ...): messages joined by a shared
    id; a title's postings and the messages that take their patch by that title; parts
    of one posting key less than the posting window apart; parts of one author and title;
    postings of one author, title and set tag."""
    # node numbers: messages, ids, then one per title, series and posting name (int32
    # while they fit: the edges are most of the pass's memory here)
    node = np.int32 if 4 * n + len(codes.ids) < 2**31 else np.int64
    a = [np.flatnonzero(codes.mid_code >= 0).astype(node),
         np.repeat(np.arange(n, dtype=node), codes.length)]
    b = [n + codes.mid_code[a[0]].astype(node), n + codes.ref_code.astype(node)]
    base = n + len(codes.ids)
    # a title some message needs and some posting has
    titled = np.flatnonzero(keys.has_norm & (keys.posting | keys.need))
    classes, inverse = np.unique(keys.norm[titled], return_inverse=True)
    needed = np.zeros(len(classes), dtype=bool)
    needed[inverse[keys.need[titled]]] = True
    posted = np.zeros(len(classes), dtype=bool)
    posted[inverse[keys.posting[titled]]] = True
    keep = (needed & posted)[inverse]
    a.append(titled[keep].astype(node))
    b.append((base + inverse[keep]).astype(node))
    base += len(classes)
    for has, values in ((keys.has_series, keys.series), (keys.has_skey, keys.skey)):
        rows = np.flatnonzero(has)
        found, inverse = np.unique(values[rows], return_inverse=True)
        a.append(rows.astype(node))
        b.append((base + inverse).astype(node))
        base += len(found)
        del rows, found, inverse
    # parts of one posting key: each with the next one in time, when within the window
    rows = np.flatnonzero(keys.has_pclass & keys.dated)
    rows = rows[np.lexsort((keys.when[rows], keys.pclass[rows]))]
    close = (keys.pclass[rows[1:]] == keys.pclass[rows[:-1]]) & \
        (keys.when[rows[1:]] - keys.when[rows[:-1]] <= WINDOW_US)
    a.append(rows[:-1][close].astype(node))
    b.append(rows[1:][close].astype(node))
    del rows, close
    edges_a = np.concatenate(a)
    del a
    edges_b = np.concatenate(b)
    del b
    label = _union(base, edges_a, edges_b)
    del edges_a, edges_b
    return np.unique(label[:n], return_inverse=True)[1].reshape(-1).astype(np.int64)


def _union(size: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest node of each node's component, the edges being ``a[k]``-``b[k]``:
    roots hooked under the smaller root of every edge, then pointers jumped to roots,
    until every edge has one root."""
    label = np.arange(size, dtype=a.dtype)
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
    at: Places  # its messages
    old: pa.Array  # the uids of the stored messages among them (their rows are voided)
    comp_base: int
    rows: Rows | None = None  # the rows of ``at``, as far as the plan read them
    stored: pa.Table | None = None  # the keys rows of the stored messages re-linked


def plan(st: Store, info: dict[str, Any], new: MessageKeys, new_parts: list[str],
         new_count: int, statuses: Callable[[Places], MessageKeys]) -> Plan | None:
    """The messages to re-link: the ``new_count`` new ones (of ``new_parts``) and the stored
    components they touch (``statuses``: the keys of some messages threaded together,
    for the titles the messages re-linked take their patch by); None when a full pass
    is due.  The stored messages are found in ``link/index`` by the hashes of the new
    ones' keys, and read from ``link/keys`` by component: only the row groups hit."""
    ids = np.unique(np.concatenate((new.mid[new.has_mid], new.refs)))
    norms = np.unique(new.norm[new.posting & new.has_norm])
    series = np.unique(new.series[new.has_series])
    skeys = np.unique(new.skey[new.has_skey])
    asked = new.has_pclass & new.dated
    # titles the new messages may take their patch by (threaded alone they lack the
    # stored ancestors that may make them replies to a patch: more than they do)
    needs = np.unique(new.norm[new.need & new.has_norm])
    found = st.read_link("index", where=("key", np.concatenate(
        (ids, norms, series, skeys, new.pclass[asked], needs))))
    if found is None:
        return None
    key, kind = as_numpy(found.column("key")), as_numpy(found.column("kind"))
    hit = (((kind == MID) | (kind == REF)) & _isin(key, ids)) | \
        ((kind == NEED) & _isin(key, norms)) | ((kind == SERIES) & _isin(key, series)) | \
        ((kind == SKEY) & _isin(key, skeys))
    hit[_parts_in_window(key, kind, as_numpy(found.column("when")), new, asked)] = True
    comp = as_numpy(found.column("comp"))
    comps = np.unique(comp[hit])
    stored = _stored(st, comps)
    paths = st.part_paths("messages")
    # the titles the messages re-linked take their patch by, threaded as they will be:
    # the postings of those titles come too.  A new message's were looked up (``needs``);
    # a stored message that took its patch by title has those postings in its component
    # already (a component holds a title's postings and the messages that need it).  A
    # stored one may need a title anew only when a new message comes between it and its
    # patch: one that some stored message refers to, or a second message of an id
    now = statuses(_places(paths, stored, new_parts))
    titles = np.unique(now.norm[now.need & now.has_norm])
    posted = (kind == POST) & _isin(key, titles)
    more = np.setdiff1d(comp[posted], comps)
    between = ((kind == REF) | (kind == MID)) & _isin(key, new.mid[new.has_mid])
    if between.any() and len(others := np.setdiff1d(titles, needs)):
        again = st.read_link("index", where=("key", others), columns=["kind", "comp"])
        assert again is not None
        more = np.union1d(more, np.setdiff1d(
            as_numpy(again.column("comp"))[as_numpy(again.column("kind")) == POST], comps))
    if len(more):
        stored = pa.concat_tables([stored, _stored(st, more)])
    base_rows = int(info.get("rows", {}).get("links", 0))
    relinked = stored.num_rows + new_count
    if info.get("delta_rows", 0) + relinked > COMPACT * max(base_rows, 1):
        return None
    gen = max([0, *st.link_gens()]) + 1
    return Plan(gen, _places(paths, stored, new_parts), stored.column("uid").combine_chunks(),
                int(info.get("next_comp", 0)), stored=stored)


def _parts_in_window(key: np.ndarray, kind: np.ndarray, when: np.ndarray, new: MessageKeys,
                     asked: np.ndarray) -> np.ndarray:
    """The index rows of the stored parts of a new part's posting key within the window of
    it (``asked``: the new messages whose parts are looked up)."""
    rows = np.flatnonzero(kind == PCLASS)
    rows = rows[np.lexsort((when[rows], key[rows]))]
    stored_parts = _pairs(key[rows], when[rows])
    lo = np.searchsorted(stored_parts, _pairs(new.pclass[asked], new.when[asked] - WINDOW_US),
                         "left")
    hi = np.searchsorted(stored_parts, _pairs(new.pclass[asked], new.when[asked] + WINDOW_US),
                         "right")
    return rows[ranges(lo, hi)]


def _stored(st: Store, comps: np.ndarray) -> pa.Table:
    """The keys rows of the stored messages of components ``comps``."""
    table = st.read_link("keys", where=("comp", comps),
                         columns=["uid", "comp", "part", "row", "thread", "patch", "cover",
                                  "sid"])
    assert table is not None
    return table


def _pairs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pairs of int64 that numpy sorts and searches in lexicographic order."""
    out = np.empty(len(first), dtype=[("first", np.int64), ("second", np.int64)])
    out["first"], out["second"] = first, second
    return out


def _isin(values: np.ndarray, of: np.ndarray) -> np.ndarray:
    """``np.isin`` for many values and few ``of``: a binary search in those."""
    return in_sorted(values, np.unique(of))


def _places(paths: list[str], stored: pa.Table, new_parts: list[str]) -> Places:
    """{part path: the rows there of the ``stored`` keys rows} in the order of ``paths``,
    with every row (None) of the new parts."""
    part = stored.column("part").cast(pa.string())
    row = as_numpy(stored.column("row"), 0)
    found: dict[str, np.ndarray | None] = {
        name: np.sort(rows) for name, rows in grouped(part.to_numpy(zero_copy_only=False),
                                                       row).items()}
    found.update((p.rsplit("/", 1)[-1], None) for p in new_parts)
    return {p: found[name] for p in paths if (name := p.rsplit("/", 1)[-1]) in found}
