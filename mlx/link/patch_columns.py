"""Patches, series and each message's patch on columns: the rules of
``mlx.link.patches`` over integer-coded arrays.

Subjects are parsed once per distinct subject into a small table; a message holds
the code of its subject.  A patch_id is held as a code into the keys of the distinct
subjects (their own key, then their fallback key), made canonical where two codes
spell one key.  Replies get the patch of their nearest patch ancestor by pointer
jumping.  Python loops run only over patch postings (grouping parts, naming series,
merging trailers) and over robot reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.columns import UNKNOWN, Threading, encode, numpy, stamps, take_codes
from mlx.link.patches import REVIEW_KEYS, group_postings, patch_key, robot_report, series_key
from mlx.link.subjects import Subject, looks_like_commit_title, normalize_title, parse_subject
from mlx.schema import PATCHES, REPORTS

BATCH = 20_000  # distinct subjects parsed per batch: Python objects live only that long
OTHER, PATCH, ROBOT = 0, 1, 2
KINDS = {"other": OTHER, "patch": PATCH, "robot": ROBOT}
# the parsed columns the patches table reports, as named there
PATCH_FACTS = ["has_diff", "diff_files", "diff_insertions", "diff_deletions", "diffstat_files",
               "diffstat_insertions", "diffstat_deletions", "commit_refs"]
REPORTED = ("title", "subsystem", "subsystem_path", "prefixes", "tree", "version",
            "version_seen", "part", "total", "is_rfc", "is_resend")


@dataclass
class Subjects:
    """Distinct subjects parsed, one row each (the last row is a missing subject), and
    each message's row."""

    text: pa.Array  # the distinct subjects (without the missing one)
    parsed: pa.Table  # REPORTED columns, kind, is_reply, is_cover, commit_like
    code: np.ndarray  # per message: its row in ``parsed`` (missing: the last)

    def column(self, name: str, null: Any = 0) -> np.ndarray:
        return numpy(self.parsed.column(name), null, None)

    def at(self, rows: np.ndarray, name: str) -> np.ndarray:
        """A parsed column for messages ``rows``."""
        return self.column(name)[self.code[rows]]


def parse_subjects(subject: pa.ChunkedArray) -> Subjects:
    text, code = encode(subject)
    missing = len(text)
    code[code < 0] = missing
    batches = []
    for start in range(0, missing + 1, BATCH):
        values: list[str | None] = text.slice(start, BATCH).to_pylist()
        if start + BATCH > missing:
            values.append(None)
        batches.append(_parsed([parse_subject(v) for v in values]))
        parse_subject.cache_clear()  # its entries would outlive the batch
    return Subjects(text, pa.concat_tables(batches), code)


def _parsed(subjects: list[Subject]) -> pa.Table:
    cols: dict[str, list[Any]] = {name: [getattr(s, name) for s in subjects]
                                  for name in REPORTED}
    cols["kind"] = [KINDS[s.kind] for s in subjects]
    cols["is_reply"] = [s.is_reply for s in subjects]
    cols["is_cover"] = [s.is_cover for s in subjects]
    cols["commit_like"] = [looks_like_commit_title(s.title) for s in subjects]
    types = {f.name: f.type for f in PATCHES if f.name in REPORTED}
    types.update(kind=pa.int8(), is_reply=pa.bool_(), is_cover=pa.bool_(),
                 commit_like=pa.bool_())
    return pa.table({k: pa.array(v, types[k]) for k, v in cols.items()})


@dataclass
class Linked:
    patch_id: pa.Array  # per message
    pid: np.ndarray  # per message: its code into ``keys``, -1 for none
    keys: pa.Array
    patches: PatchColumns
    reports: pa.Table


def link_patch_columns(th: Threading, uid: pa.Array, subjects: Subjects,
                       facts: pa.Table, from_addr: pa.Array) -> Linked:
    """``facts``: the messages' has_diff, diff and diffstat sizes, trailers, commit_refs."""
    n = th.n
    kind = subjects.column("kind")[subjects.code]
    is_reply = subjects.column("is_reply", False)[subjects.code]
    has_diff = numpy(facts.column("has_diff"), False, bool)
    has_stat = numpy(pc.is_valid(facts.column("diffstat_files")), None, bool)
    has_prefixes = numpy(pc.greater(pc.list_value_length(subjects.parsed.column("prefixes")),
                                    0), False, bool)
    is_patch = ~is_reply & (kind != ROBOT) & (
        has_diff | subjects.column("is_cover", False)[subjects.code]
        | (has_stat & ((kind == PATCH) | has_prefixes[subjects.code])))
    patch_rows = np.flatnonzero(is_patch)

    pid = np.full(n, -1, dtype=np.int64)  # a subject's own key: its code; fallback: u + code
    pid[patch_rows] = subjects.code[patch_rows]
    _from_ancestors(pid, th.parent_row, is_patch)
    titled = numpy(pc.greater(pc.utf8_length(subjects.parsed.column("title")), 0), False, bool)
    rows = np.flatnonzero((pid < 0) & (kind != ROBOT) & titled[subjects.code])
    u = len(subjects.parsed)
    pid[rows] = u + subjects.code[rows]
    keys, canon = _keys(subjects, np.unique(subjects.code[patch_rows]),
                        np.unique(subjects.code[rows]))
    pid = np.where(pid >= 0, canon[np.maximum(pid, 0)], -1)  # -1 also where the key is null

    patches = _patch_columns(th, subjects, facts, from_addr, patch_rows, pid)
    return Linked(take_codes(keys, pid), pid, keys, patches,
                  _reports(th, uid, subjects, kind, is_reply))


def _keys(subjects: Subjects, patch_codes: np.ndarray, fallback_codes: np.ndarray
          ) -> tuple[pa.Array, np.ndarray]:
    """(distinct keys, the code into them of every key code, -1 for none): key code
    ``s`` is the own key of subject ``s`` (made for the subjects of patches),
    ``u + s`` its fallback key (made for the subjects of replies without a patch
    ancestor: the own key of a patch subject, the newest version's key of a patch with
    that title in the archive, version 1 of a commit-like title)."""
    parsed = subjects.parsed
    u = len(parsed)
    newest: dict[str, int] = {}  # normalised title -> the newest version posted as a patch
    own: list[pa.Array] = []
    for start in range(0, len(patch_codes), BATCH):
        at = pa.array(patch_codes[start:start + BATCH])
        made = []
        for title, version in zip(parsed.column("title").take(at).to_pylist(),
                                  parsed.column("version").take(at).to_pylist(), strict=True):
            norm = normalize_title(title)
            if norm not in newest or version > newest[norm]:
                newest[norm] = version
            made.append(patch_key(norm, version))
        own.append(pa.array(made, pa.string()))
    fallback: list[pa.Array] = []
    for start in range(0, len(fallback_codes), BATCH):
        b = parsed.select(["title", "version", "kind", "is_reply", "commit_like"]).take(
            pa.array(fallback_codes[start:start + BATCH])).to_pydict()
        other: list[str | None] = []
        for title, version, k, reply, commit_like in zip(*b.values(), strict=True):
            norm = normalize_title(title)
            if k == PATCH:
                other.append(patch_key(norm, version))
            elif norm in newest:
                other.append(patch_key(norm, newest[norm]))
            elif not reply and commit_like:
                other.append(patch_key(title, 1))
            else:
                other.append(None)
        fallback.append(pa.array(other, pa.string()))
    keys, codes = encode(pa.chunked_array(own + fallback, pa.string()))
    canon = np.full(2 * u, -1, dtype=np.int64)
    canon[patch_codes] = codes[:len(patch_codes)]
    canon[u + fallback_codes] = codes[len(patch_codes):]
    return keys, canon


def _from_ancestors(pid: np.ndarray, parent: np.ndarray, marked: np.ndarray) -> None:
    """A message that is no patch takes the patch of its nearest patch ancestor: jump
    over ancestors that are no patch, doubling the stride each round."""
    jump = parent.copy()
    while True:
        live = np.flatnonzero(jump >= 0)
        live = live[~marked[jump[live]]]
        if not len(live):
            break
        jump[live] = jump[jump[live]]
    take = np.flatnonzero(~marked & (jump >= 0))
    pid[take] = pid[jump[take]]


@dataclass
class PatchColumns:
    """What the patches table needs beyond the message columns, per patch (in message
    order): its series, and its trailers as codes into ``trailer_key``/``trailer_value``."""

    rows: np.ndarray  # the message row of each patch
    facts: pa.Table  # the patches' from_addr, has_diff, diff and diffstat sizes, commit_refs
    series: pa.Array  # series_id
    trailer_offsets: np.ndarray
    trailer_codes: np.ndarray
    trailer_key: pa.Array
    trailer_value: pa.Array


def _patch_columns(th: Threading, subjects: Subjects, facts: pa.Table, from_addr: pa.Array,
                   patch_rows: np.ndarray, pid: np.ndarray) -> PatchColumns:
    code = subjects.code[patch_rows]
    part = subjects.column("part", -1)[code]
    seconds = np.where(th.dates[patch_rows] == UNKNOWN, math.nan, th.dates[patch_rows] / 1e6)
    # parts of one posting share author, version, total and RFC-ness
    keyed = np.stack([encode(from_addr)[1][patch_rows], subjects.column("version")[code],
                      subjects.column("total", 0)[code],
                      subjects.column("is_rfc", False)[code].astype(np.int64)], axis=1)
    key = np.unique(keyed, axis=0, return_inverse=True)[1].reshape(-1)
    key[keyed[:, 2] == 0] = -1  # no total: a posting of its own
    del keyed
    posting = _postings(key, part, seconds, th.root[patch_rows], th.rank[patch_rows])
    is_cover = subjects.column("is_cover", False)[code]
    series, cover_of = _series(posting, part, seconds, th.rank[patch_rows], is_cover,
                               from_addr.take(pa.array(patch_rows)),
                               subjects.parsed.column("title").take(pa.array(code)))
    offsets, codes, key_names, values = _trailers(facts.column("trailers"), patch_rows, pid,
                                                  cover_of)
    facts = facts.select(PATCH_FACTS).take(pa.array(patch_rows)) \
        .append_column("from_addr", from_addr.take(pa.array(patch_rows)))
    return PatchColumns(patch_rows, facts, series, offsets, codes, key_names, values)


def _postings(key: np.ndarray, part: np.ndarray, seconds: np.ndarray, thread: np.ndarray,
              rank: np.ndarray) -> np.ndarray:
    """The posting of every patch: ``group_postings`` run key by key (a part only ever
    joins a posting of its own key), so Python holds one key's parts at a time."""
    posting = np.full(len(key), -1, dtype=np.int64)
    alone = np.flatnonzero(key < 0)
    posting[alone] = np.arange(len(alone))
    next_id = len(alone)
    keyed = np.flatnonzero(key >= 0)
    keyed = keyed[np.lexsort((rank[keyed], key[keyed]))]
    bounds = np.flatnonzero(np.diff(key[keyed])) + 1
    for items in np.split(keyed, bounds) if len(keyed) else []:
        local = range(len(items))
        got = group_postings(local, [0] * len(items), part[items].tolist(),
                             seconds[items].tolist(), thread[items].tolist())
        for post in got:
            posting[items[post.rows]] = next_id
            next_id += 1
    return posting


def _series(posting: np.ndarray, part: np.ndarray, seconds: np.ndarray, rank: np.ndarray,
            is_cover: np.ndarray, author: pa.Array, title: pa.Array
            ) -> tuple[pa.Array, np.ndarray]:
    """(series_id of every patch, the cover of every patch, -1 for none): a posting's
    series is keyed by the author of its first part and the cover's title, else the
    first part's (``name_series``)."""
    if not len(posting):
        return pa.array([], pa.string()), np.zeros(0, dtype=np.int64)
    # items of a posting by (part, unknown 0; date, unknown last; arrival)
    when = np.where(np.isnan(seconds), np.inf, seconds)
    order = np.lexsort((rank, when, np.where(part < 0, 0, part), posting))
    by_post = posting[order]
    starts = np.flatnonzero(np.concatenate(([True], by_post[1:] != by_post[:-1])))
    head = order[starts]
    # the first cover of each posting in that order
    covers = order[is_cover[order]]
    cover_post = posting[covers]
    first_cover = np.full(posting.max() + 1, -1, dtype=np.int64)
    first_cover[cover_post[::-1]] = covers[::-1]
    named = np.where(first_cover[by_post[starts]] >= 0, first_cover[by_post[starts]], head)
    names = []
    for start in range(0, len(head), BATCH):
        authors = author.take(pa.array(head[start:start + BATCH])).to_pylist()
        titles = title.take(pa.array(named[start:start + BATCH])).to_pylist()
        names.append(pa.array([series_key(a, t) for a, t in zip(authors, titles, strict=True)],
                              pa.string()))
    by_id = np.empty(posting.max() + 1, dtype=np.int64)
    by_id[by_post[starts]] = np.arange(len(starts))
    series = pa.chunked_array(names, pa.string()).combine_chunks().take(
        pa.array(by_id[posting]))
    cover_of = first_cover[posting]
    cover_of[cover_of == np.arange(len(posting))] = -1
    return series, cover_of


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The indexes ``starts[k] .. starts[k] + lengths[k]``, one range after another."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return np.arange(total, dtype=np.int64) + shift


def _trailers(trailers: pa.ChunkedArray, patch_rows: np.ndarray, pid: np.ndarray,
              cover_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, pa.Array, pa.Array]:
    """Each patch's own trailers, then its cover's, then the review trailers of the
    replies about it or about its cover (replies in message order), the first of equal
    ones kept: (offsets per patch, codes, key and value of every code)."""
    length = numpy(pc.list_value_length(trailers), 0)
    offsets = np.concatenate(([0], np.cumsum(length)))
    flat = pc.list_flatten(trailers)
    chunks = flat.chunks if isinstance(flat, pa.ChunkedArray) else [flat]
    names, name_code = encode(pa.chunked_array([c.field("key") for c in chunks], pa.string()))
    texts, text_code = encode(pa.chunked_array([c.field("value") for c in chunks], pa.string()))
    del flat, chunks
    # a trailer's code: its (key, value) pair among the distinct pairs
    pairs, codes = np.unique(name_code * (len(texts) + 1) + text_code, return_inverse=True)
    codes = codes.reshape(-1)
    del name_code, text_code
    key = take_codes(names, pairs // (len(texts) + 1))
    value = take_codes(texts, pairs % (len(texts) + 1))
    review = numpy(pc.is_in(key, pa.array(sorted(REVIEW_KEYS))), False, bool)
    n_patch = len(patch_rows)
    # (patch, rank of the source, code) of every trailer a patch gets; rank orders
    # own < cover's < replies'
    targets, ranks, got = [], [], []

    def add(target: np.ndarray, source_rows: np.ndarray, order: np.ndarray,
            only_review: bool) -> None:
        lengths = length[source_rows]
        at = _ranges(offsets[source_rows], lengths)
        t = np.repeat(target, lengths)
        o = np.repeat(order, lengths)
        c = codes[at]
        if only_review:
            keep = review[c]
            t, o, c = t[keep], o[keep], c[keep]
        targets.append(t)
        ranks.append(o)
        got.append(c)

    everyone = np.arange(n_patch)
    add(everyone, patch_rows, np.zeros(n_patch, dtype=np.int64), False)
    parts = np.flatnonzero(cover_of >= 0)
    add(parts, patch_rows[cover_of[parts]], np.ones(len(parts), dtype=np.int64), False)
    # replies with trailers about a patch: every patch of that patch_id, and its parts
    is_patch = np.zeros(len(pid), dtype=bool)
    is_patch[patch_rows] = True
    replies = np.flatnonzero((length > 0) & (pid >= 0) & ~is_patch)
    by_pid = np.argsort(pid[patch_rows], kind="stable")
    sorted_pid = pid[patch_rows][by_pid]
    lo = np.searchsorted(sorted_pid, pid[replies], side="left")
    hi = np.searchsorted(sorted_pid, pid[replies], side="right")
    reply_of = np.repeat(np.arange(len(replies)), hi - lo)
    target = by_pid[_ranges(lo, hi - lo)]
    part_of = np.argsort(cover_of, kind="stable")
    part_of = part_of[cover_of[part_of] >= 0]
    covered = cover_of[part_of]
    lo2 = np.searchsorted(covered, target, side="left")
    hi2 = np.searchsorted(covered, target, side="right")
    reply_of = np.concatenate((reply_of, np.repeat(reply_of, hi2 - lo2)))
    target = np.concatenate((target, part_of[_ranges(lo2, hi2 - lo2)]))
    add(target, replies[reply_of], 2 + reply_of, True)
    t, o, c = (np.concatenate(x) for x in (targets, ranks, got))
    # stable by (patch, rank): within a source the trailers keep their order
    order = np.lexsort((o, t))
    t, c = t[order], c[order]
    first = np.sort(np.unique(t * max(len(pairs), 1) + c, return_index=True)[1])
    t, c = t[first], c[first]
    sizes = np.bincount(t, minlength=n_patch)
    return np.concatenate(([0], np.cumsum(sizes))), c, key, value


def patch_batches(th: Threading, uid: pa.Array, subjects: Subjects, cols: PatchColumns,
                  pid: np.ndarray, keys: pa.Array, rows: int) -> Any:
    """The patches table, ``rows`` patches at a time."""
    for start in range(0, len(cols.rows), rows):
        part = slice(start, start + rows)
        at = cols.rows[part]
        facts = cols.facts.slice(start, rows)
        code = pa.array(subjects.code[at])
        diff = pc.fill_null(facts.column("has_diff"), False)
        sizes = {out: pc.if_else(diff, facts.column(f"diff_{name}"),
                                 facts.column(f"diffstat_{name}"))
                 for out, name in (("files_changed", "files"), ("insertions", "insertions"),
                                   ("deletions", "deletions"))}
        is_cover = pc.or_(subjects.parsed.column("is_cover").take(code),
                          pc.and_(pc.invert(diff), pc.is_valid(facts.column("diffstat_files"))))
        refs = facts.column("commit_refs")
        if refs.null_count:
            refs = pc.if_else(pc.is_valid(refs), refs,
                              pa.scalar([], PATCHES.field("commit_refs").type))
        lo, hi = cols.trailer_offsets[start], cols.trailer_offsets[start + len(at)]
        chosen = pa.array(cols.trailer_codes[lo:hi])
        items = pa.StructArray.from_arrays([cols.trailer_key.take(chosen),
                                            cols.trailer_value.take(chosen)],
                                           names=["key", "value"])
        trailers = pa.ListArray.from_arrays(
            pa.array(cols.trailer_offsets[start:start + len(at) + 1] - lo, pa.int32()), items,
            type=PATCHES.field("trailers").type)
        values = {"patch_id": take_codes(keys, pid[at]),
                  "message_id": take_codes(th.ids, th.mid_code[at]),
                  "uid": uid.take(pa.array(at)),
                  **{name: subjects.parsed.column(name).take(code) for name in REPORTED},
                  "is_cover": is_cover, "series_id": cols.series[part], **sizes,
                  "trailers": trailers, "commit_refs": refs,
                  "from_addr": facts.column("from_addr"),
                  "thread_id": th.node_names(uid, th.root[at]),
                  "date": stamps(th.dates[at], PATCHES.field("date").type)}
        yield pa.record_batch([_array(values[f.name]).cast(f.type) for f in PATCHES],
                              schema=PATCHES)


def _array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _reports(th: Threading, uid: pa.Array, subjects: Subjects, kind: np.ndarray,
             is_reply: np.ndarray) -> pa.Table:
    rows = np.flatnonzero((kind == ROBOT) & ~is_reply).tolist()
    text = subjects.text
    out = [{"uid": uid[i].as_py(), "message_id": th.ids[int(th.mid_code[i])].as_py()
            if th.mid_code[i] >= 0 else None,
            **robot_report(parse_subject(text[int(subjects.code[i])].as_py()))}
           for i in rows]
    return pa.Table.from_pylist(out, schema=REPORTS)

