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

from mlx.link import patch_columns
from mlx.link.columns import UNKNOWN, IdCodes, nearest_marked, numpy
from mlx.link.formats import LINK_FORMAT
from mlx.link.patch_columns import ROBOT, Subjects, patch_kinds
from mlx.link.patches import POSTING_WINDOW
from mlx.link.threads import header_thread_refs
from mlx.schema import COUNT_COLUMNS, FACT_COLUMNS, MESSAGES, empty
from mlx.store import EXTRACTED, Store, hashes, in_sorted, in_threads

KEYS = pa.schema([("uid", pa.string()), ("comp", pa.int64()), ("mid", pa.int64()),
                  ("refs", pa.list_(pa.int64())), ("norm", pa.int64()),
                  ("posting", pa.bool_()), ("need", pa.bool_()), ("pclass", pa.int64()),
                  ("when", pa.int64()), ("series", pa.int64()), ("skey", pa.int64()),
                  ("part", pa.dictionary(pa.int32(), pa.string())), ("row", pa.int32()),
                  # what a later pass voids of the message: its thread, and its patch
                  # (a cover? the hash of its series_id)
                  ("thread", pa.string()), ("patch", pa.bool_()), ("cover", pa.bool_()),
                  ("sid", pa.int64())])
EXTRACTED_BIT = {name: 1 << k for k, name in enumerate(EXTRACTED)}
# the keys of every message as a table sorted by hash, a row per key: what the next
# pass looks up the stored messages a new one shares a key with by
INDEX = pa.schema([("key", pa.int64()), ("kind", pa.int8()), ("comp", pa.int64()),
                   ("when", pa.int64())])
MID, REF, NEED, POST, SERIES, SKEY, PCLASS = range(7)  # the kinds of keys
KEYS_GROUP = INDEX_GROUP = 8192  # rows per row group: a lookup reads only the groups hit
Places = dict[str, np.ndarray | None]  # {part path: row numbers there, None for all}
# what a pass over some messages reads of them (the whole store: a few at a time)
SUBSET_COLUMNS = list(dict.fromkeys([
    "uid", "message_id", "thread_refs", "date", "subject", *FACT_COLUMNS, "from_addr",
    "list_id", "from_name",  # and the claims' (MESSAGE_COLUMNS)
    *COUNT_COLUMNS]))  # and which extracted tables hold rows of it
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
    """The version of the stored link tables (``formats.LINK_FORMAT``), and pandas' (the
    keys stored are its ``hash_array``'s hashes)."""
    import pandas
    return f"link-{LINK_FORMAT}-pandas-{pandas.__version__}"


class Rows:
    """The message columns a link pass reads, in the order of the parts and of the rows
    in each: of every stored message, or of some rows of some parts (``at``: {part
    path: row numbers, or None for all}).  A whole store is read a few columns at a
    time; a subset's columns are read together, each part opened once."""

    def __init__(self, st: Store, at: Places | None = None) -> None:
        self.st, self.at = st, at
        self.paths = list(at) if at is not None else st.part_paths("messages")
        self.lengths: list[int] | None = None  # rows read of each part
        self._parts: dict[str, pa.Table] = {}  # a subset's rows of each part
        self._columns = SUBSET_COLUMNS
        self.keyed: Any = None  # what finding these rows' keys found: a pass over them reuses it

    def read(self, columns: list[str]) -> pa.Table:
        if self.at is None:
            tables = [self.st._read_as(path, _schema(columns)) for path in self.paths]
            return self._concat(tables, columns)
        self._columns = list(dict.fromkeys([*self._columns, *columns]))
        for path, rows in self.at.items():
            table = self._parts.get(path)
            have = table.column_names if table is not None else []
            if missing := [c for c in self._columns if c not in have]:
                read = self.st._read_as(path, _schema(missing))
                read = read if rows is None else read.take(pa.array(rows))
                for name in have:
                    assert table is not None
                    read = read.append_column(name, table.column(name))
                self._parts[path] = read
        return self._concat([self._parts[p].select(columns) for p in self.at], columns)

    def forget(self, columns: list[str]) -> None:
        """Columns a subset no longer needs (read again if asked for)."""
        self._columns = [c for c in self._columns if c not in columns]
        for path, table in self._parts.items():
            self._parts[path] = table.drop_columns([c for c in columns
                                                    if c in table.column_names])

    def widened(self, at: Places) -> Rows:
        """The rows of ``at`` (holding these): the parts whose rows are the same are
        not read again (these rows themselves when ``at`` holds no others)."""
        mine = self.at or {}
        if mine.keys() == at.keys() and all(_same_rows(mine[p], at[p]) for p in at):
            return self
        out = Rows(self.st, at=at)
        out._columns = self._columns
        out._parts = {p: t for p, t in self._parts.items()
                      if p in at and _same_rows(mine[p], at[p])}
        return out

    def _concat(self, tables: list[pa.Table], columns: list[str]) -> pa.Table:
        if self.lengths is None:
            self.lengths = [t.num_rows for t in tables]
        return pa.concat_tables(tables) if tables else empty(_schema(columns))

    def positions(self) -> tuple[pa.Array, pa.Array]:
        """(the name of its part, its row there) of each message read."""
        if self.lengths is None:
            self.read(["uid"])
        assert self.lengths is not None
        names = [p.rsplit("/", 1)[-1] for p in self.paths]
        part = pa.DictionaryArray.from_arrays(
            pa.array(np.repeat(np.arange(len(names), dtype=np.int32), self.lengths)),
            pa.array(names, pa.string()))
        rows = [np.arange(n) if self.at is None or (r := self.at[p]) is None else r
                for p, n in zip(self.paths, self.lengths, strict=True)]
        return part, pa.array(np.concatenate(rows) if rows else [], pa.int32())


def old_thread_refs(rows: Rows, table: pa.Table) -> pa.ChunkedArray:
    """``thread_refs``, from their headers for messages stored before the column existed."""
    old = rows.read(["from_addr", "to", "cc", "in_reply_to", "references"]).to_pydict()
    mids = table.column("message_id").to_pylist()
    refs = table.column("thread_refs").to_pylist()
    for i, r in enumerate(refs):
        if r is None:
            refs[i] = header_thread_refs(mids[i], old["from_addr"][i], old["to"][i],
                                         old["cc"][i], old["in_reply_to"][i],
                                         old["references"][i])
    return pa.chunked_array([pa.array(refs, pa.list_(pa.string()))])


def _same_rows(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    return a is None and b is None or a is not None and b is not None and np.array_equal(a, b)


def _schema(columns: list[str]) -> pa.Schema:
    return pa.schema([MESSAGES.field(c) for c in columns])


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
        comp = numpy(table.column("comp"))
        if kind == REF:
            refs = pa.chunked_array(table.column("refs").chunks, KEYS.field("refs").type)
            values = numpy(pc.list_flatten(refs), 0)
            rows = np.repeat(np.arange(len(comp)), numpy(pc.list_value_length(refs), 0))
            ghosts = ~in_sorted(values, np.unique(keyed[MID]))
            values, rows = values[ghosts], rows[ghosts]
        else:
            has = numpy(pc.is_valid(table.column(name)), None, bool)
            if flag == "when":
                has &= numpy(pc.is_valid(table.column(flag)), None, bool)
            elif flag:
                has &= numpy(table.column(flag), False, bool)
            rows = np.flatnonzero(has)
            values = numpy(table.column(name), 0)[rows]
        keyed.append(values)
        kinds.append(np.full(len(rows), kind, dtype=np.int8))
        comps.append(comp[rows])
        whens.append(numpy(table.column("when"), 0)[rows] if kind == PCLASS
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
    key, kind = numpy(found.column("key")), numpy(found.column("kind"))
    hit = (((kind == MID) | (kind == REF)) & _isin(key, ids)) | \
        ((kind == NEED) & _isin(key, norms)) | ((kind == SERIES) & _isin(key, series)) | \
        ((kind == SKEY) & _isin(key, skeys))
    # the stored parts of a new part's posting key within the window of it
    rows = np.flatnonzero(kind == PCLASS)
    when = numpy(found.column("when"))
    rows = rows[np.lexsort((when[rows], key[rows]))]
    stored_parts = _pairs(key[rows], when[rows])
    lo = np.searchsorted(stored_parts, _pairs(new.pclass[asked], new.when[asked] - WINDOW_US),
                         "left")
    hi = np.searchsorted(stored_parts, _pairs(new.pclass[asked], new.when[asked] + WINDOW_US),
                         "right")
    hit[rows[_ranges(lo, hi)]] = True
    comp = numpy(found.column("comp"))
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
            numpy(again.column("comp"))[numpy(again.column("kind")) == POST], comps))
    if len(more):
        stored = pa.concat_tables([stored, _stored(st, more)])
    base_rows = int(info.get("rows", {}).get("links", 0))
    relinked = stored.num_rows + new_count
    if info.get("delta_rows", 0) + relinked > COMPACT * max(base_rows, 1):
        return None
    gen = max([0, *st.link_gens()]) + 1
    return Plan(gen, _places(paths, stored, new_parts), stored.column("uid").combine_chunks(),
                int(info.get("next_comp", 0)), stored=stored)


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


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The positions ``lo[k]:hi[k]`` of every k, one after another."""
    size = np.maximum(hi - lo, 0)
    if not size.sum():
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo - np.concatenate(([0], np.cumsum(size)[:-1])), size)
    return starts + np.arange(size.sum())


def _isin(values: np.ndarray, of: np.ndarray) -> np.ndarray:
    """``np.isin`` for many values and few ``of``: a binary search in those."""
    return in_sorted(values, np.unique(of))


def _places(paths: list[str], stored: pa.Table, new_parts: list[str]) -> Places:
    """{part path: the rows there of the ``stored`` keys rows} in the order of ``paths``,
    with every row (None) of the new parts."""
    part = stored.column("part").cast(pa.string())
    row = numpy(stored.column("row"), 0)
    found: dict[str, np.ndarray | None] = {
        name: np.sort(rows) for name, rows in _grouped(part.to_numpy(zero_copy_only=False),
                                                       row).items()}
    found.update((p.rsplit("/", 1)[-1], None) for p in new_parts)
    return {p: found[name] for p in paths if (name := p.rsplit("/", 1)[-1]) in found}


def _grouped(keys: np.ndarray, values: np.ndarray) -> dict[str, np.ndarray]:
    """{key: the values at its places, in their order}."""
    if not len(keys):
        return {}
    order = np.argsort(keys, kind="stable")
    names, starts = np.unique(keys[order], return_index=True)
    return dict(zip(names.tolist(), np.split(values[order], starts[1:]), strict=True))


def extracted_flags(st: Store, rows: Rows) -> np.ndarray:
    """Of each message of ``rows``, a bit per extracted table that holds rows of it
    (``EXTRACTED_BIT``): from its counts (``n_results``, ...), else, for messages stored
    before those existed, from the uids of the parts of their chunks."""
    counts = rows.read(list(COUNT_COLUMNS))
    flags = np.zeros(counts.num_rows, dtype=np.int8)
    todo = np.zeros(counts.num_rows, dtype=bool)
    for table, bit in EXTRACTED_BIT.items():
        count = counts.column(f"n_{table}")
        flags[numpy(count, 0) > 0] |= bit
        todo |= numpy(pc.is_null(count), None, bool)
    if not todo.any():
        return flags
    uid = rows.read(["uid"]).column("uid").combine_chunks()
    part = rows.positions()[0].cast(pa.string()).to_numpy(zero_copy_only=False)
    names = set(np.unique(part[todo]).tolist())
    chunks = {p.rsplit("/", 1)[-1] for p in st.part_paths("messages")}
    for table, bit in EXTRACTED_BIT.items():
        paths = [p for p in st.part_paths(table)
                 if (name := p.rsplit("/", 1)[-1]) in names or name not in chunks]
        found = in_threads(lambda path: pc.unique(st._read_as(path, UID).column("uid")),
                           paths)
        if found:
            hit = pc.is_in(uid, value_set=pa.concat_arrays(found))
            flags[todo & numpy(hit, False, bool)] |= bit
    return flags


UID = pa.schema([MESSAGES.field("uid")])


class SubsetStore(Store):
    """The store as the claims of some messages see it: only their rows of the
    message and extracted tables, read from their chunks' parts alone (a chunk's
    parts share a name), the link tables given (a delta's, before it is in force); an
    extracted table's parts only of the chunks of messages it has rows of
    (``extracted_flags``)."""

    def __init__(self, st: Store, rows: Rows, tables: dict[str, pa.Table]) -> None:
        super().__init__(st.path)
        uid = rows.read(["uid"]).column("uid").combine_chunks()
        part = rows.positions()[0].cast(pa.string()).to_numpy(zero_copy_only=False)
        flags = extracted_flags(st, rows)
        self.all = uid
        self.by_part = {}
        for table, bit in EXTRACTED_BIT.items():
            rows_of = np.flatnonzero(flags & bit)
            self.by_part[table] = {name: uid.take(pa.array(at)) for name, at in
                                   _grouped(part[rows_of], rows_of).items()}
        self.chunks = {p.rsplit("/", 1)[-1] for p in st.part_paths("messages")}
        self.rows, self.tables = rows, tables
        self._listings = st._listings  # the pass's listing of the parts

    def read(self, table: str, schema: pa.Schema, columns: list[str] | None = None,
             uids: Any = None) -> pa.Table:
        want = schema if columns is None else pa.schema([schema.field(c) for c in columns])
        with_uid = want if "uid" in want.names else want.append(schema.field("uid"))
        if table == "messages":
            return self._only(self.rows.read(with_uid.names), uids).select(want.names)
        wanted = None if uids is None else pa.array(list(uids), pa.string())
        reads = []
        for path in self.part_paths(table):
            name = path.rsplit("/", 1)[-1]
            # a part of no chunk (the driver's own) may hold rows of any of them
            of = self.by_part.get(table, {}).get(name, self.all if name not in self.chunks
                                                 else None)
            if of is not None and wanted is not None:  # only the parts of those asked for
                of = of.filter(pc.is_in(of, value_set=wanted))
            if of is not None and len(of):
                reads.append((path, of))

        def rows_of(read: tuple[str, pa.Array]) -> pa.Table:
            return self._read_as(read[0], with_uid, uids=read[1])
        tables = in_threads(rows_of, reads)
        out = pa.concat_tables(tables) if tables else empty(with_uid)
        return out.select(want.names)  # each part read only the rows of ``wanted``

    @staticmethod
    def _only(table: pa.Table, uids: Any) -> pa.Table:
        if uids is None:
            return table
        return table.filter(pc.is_in(table.column("uid"),
                                     value_set=pa.array(list(uids), pa.string())))

    def read_link(self, name: str, uids: Any = None, columns: list[str] | None = None,
                  where: tuple[str, np.ndarray] | None = None) -> pa.Table | None:
        table = self.tables.get(name)
        if table is None:
            return None
        table = self._only(table, uids)
        if where is not None:
            table = table.filter(pc.is_in(table.column(where[0]),
                                          value_set=pa.array(np.unique(where[1]))))
        return table if columns is None else table.select(columns)
