"""Patches, series and each message's patch on columns: the rules of
``mlx.link.rules`` over integer-coded arrays.

Subjects are parsed once per distinct subject into a small table
(``mlx.link.subject_columns``); a message holds the code of its subject.  A patch_id
is held as a code into the keys of the distinct subjects (their own key, then their
fallback key), made canonical where two codes spell one key.  Replies get the patch
of their nearest patch ancestor by pointer jumping.  Python loops run only over patch
postings (grouping parts, naming series, merging trailers) and over robot reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.extract.vocab import REVIEW_KEYS
from mlx.link.columns import (
    UNKNOWN,
    Threading,
    as_numpy,
    encode,
    nearest_marked,
    ranges,
    stamps,
    take_codes,
)
from mlx.link.rules import (
    COMMON_TITLE,
    group_postings,
    is_robot,
    join_series,
    patch_key,
    posting_key,
    robot_report,
    series_key,
    trailer_address,
)
from mlx.link.subject_columns import BATCH, PATCH, REPORTED, ROBOT, Subjects
from mlx.schema import PATCHES, REPORTS
from mlx.subjects import parse_subject

# the parsed columns the patches table reports, as named there
PATCH_FACTS = ["has_diff", "diff_files", "diff_insertions", "diff_deletions", "diffstat_files",
               "diffstat_insertions", "diffstat_deletions", "commit_refs"]


@dataclass
class Linked:
    patch_id: pa.Array  # per message
    pid: np.ndarray  # per message: its code into ``keys``, -1 for none
    keys: pa.Array
    patches: PatchColumns
    reports: pa.Table
    is_patch: np.ndarray  # per message: a patch posting (cover letters included)


def link_patch_columns(th: Threading, uid: pa.Array, subjects: Subjects,
                       facts: pa.Table, from_addr: pa.Array) -> Linked:
    """``facts``: the messages' has_diff, diff and diffstat sizes, trailers, commit_refs."""
    kind, is_reply, is_patch, is_cover, pull = patch_kinds(subjects, facts)
    patch_rows = np.flatnonzero(is_patch)
    senders, author = encode(from_addr)
    version, thread_cover = _versions(th.present_parent, patch_rows, is_cover, author,
                                      subjects)
    pid, keys = _attribute(th, uid, subjects, kind, is_patch, patch_rows, version)
    patches = _patch_columns(th, uid, subjects, facts, from_addr, senders, author, patch_rows,
                             pid, version, is_cover, pull, thread_cover)
    return Linked(take_codes(keys, pid), pid, keys, patches,
                  _reports(th, uid, subjects, kind, is_reply), is_patch)


KIND_FACTS = ["has_diff", "diffstat_files", "signed_off", "request_pull"]  # patch_kinds reads


def patch_kinds(subjects: Subjects, facts: pa.Table
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per message, from its subject and its own facts alone: (kind, is_reply, is_patch,
    is_cover, is a pull request)."""
    code = subjects.code

    def per_message(name: str, null: Any = 0) -> np.ndarray:
        return subjects.column(name, null)[code]

    kind = per_message("kind")
    is_reply = per_message("is_reply", False)
    has_diff = as_numpy(facts.column("has_diff"), False, bool)
    has_stat = as_numpy(pc.is_valid(facts.column("diffstat_files")), None, bool)
    has_prefixes = per_message("has_prefixes", False)
    cover_subject = per_message("is_cover", False)
    is_pull = per_message("is_pull", False)
    is_patch = ~is_reply & (kind != ROBOT) & (
        has_diff | cover_subject | is_pull
        | (has_stat & ((kind == PATCH) | has_prefixes | per_message("version_seen", False)))
        | ((kind == PATCH) & as_numpy(facts.column("signed_off"), False, bool)))
    is_cover = is_patch & ~is_pull & (cover_subject | (~has_diff & has_stat))
    pull = is_pull | as_numpy(facts.column("request_pull"), False, bool)
    return kind, is_reply, is_patch, is_cover, pull


def _versions(up: np.ndarray, patch_rows: np.ndarray, is_cover: np.ndarray,
              author: np.ndarray, subjects: Subjects) -> tuple[np.ndarray, np.ndarray]:
    """(each message's version: a part without one takes its cover's; each message's
    cover letter in its thread, -1 for none): the nearest cover ancestor of a part that
    is no cover, by the same author, of the part's total or of none."""
    code = subjects.code
    version = subjects.column("version", 1)[code]
    seen = subjects.column("version_seen", False)[code]
    total = subjects.column("total", -1)[code]
    cover = nearest_marked(up, is_cover)
    parts = patch_rows[~is_cover[patch_rows]]
    c = cover[parts]
    parts, c = parts[c >= 0], c[c >= 0]
    same = (author[parts] == author[c]) & ((total[c] < 0) | (total[c] == total[parts]))
    parts, c = parts[same], c[same]
    thread_cover = np.full(len(up), -1, dtype=np.int64)
    thread_cover[parts] = c
    take = ~seen[parts] & seen[c]
    version[parts[take]] = version[c[take]]
    return version, thread_cover


def _attribute(th: Threading, uid: pa.Array, subjects: Subjects, kind: np.ndarray,
               is_patch: np.ndarray, patch_rows: np.ndarray, version: np.ndarray
               ) -> tuple[np.ndarray, pa.Array]:
    """(each message's patch code, -1 for none; the keys the codes name): a patch is
    its posting; any other message takes its nearest patch ancestor's, else its
    subject's (``tests/link_reference._attribute``), else its nearest keyed ancestor's."""
    up = th.present_parent
    mids = take_codes(th.ids, th.mid_code[patch_rows]).to_pylist()
    uids = uid.take(pa.array(patch_rows)).to_pylist()
    own = [posting_key(m, u) for m, u in zip(mids, uids, strict=True)]
    del mids, uids
    pid = np.full(th.n, -1, dtype=np.int64)
    pid[patch_rows] = np.arange(len(patch_rows))
    anc = nearest_marked(up, is_patch)
    take = np.flatnonzero(~is_patch & (anc >= 0))
    pid[take] = pid[anc[take]]
    del anc, take
    titled = as_numpy(pc.greater(pc.utf8_length(subjects.parsed.column("title")), 0), False, bool)
    need = np.flatnonzero((pid < 0) & ~is_patch & (kind != ROBOT) & titled[subjects.code])
    fallback = _by_subject(th, subjects, need, patch_rows, version, len(own), pid)
    keyed = pid >= 0
    anc = nearest_marked(up, keyed)
    take = np.flatnonzero(~keyed & (anc >= 0))
    pid[take] = pid[anc[take]]
    keys, codes = encode(pa.array(own + fallback, pa.string()))
    if not len(codes):
        return pid, keys  # no key at all: every code is -1
    return np.where(pid >= 0, codes[np.maximum(pid, 0)], -1), keys


def _by_subject(th: Threading, subjects: Subjects, need: np.ndarray, patch_rows: np.ndarray,
                version: np.ndarray, base: int, pid: np.ndarray) -> list[str]:
    """Give messages ``need`` the patch their subject names: the key of its title and
    version (the newest version posted, for a title without a tag; codes from ``base``
    up, into the returned keys), or for a message without references the posting of
    that title and version last posted not after it."""
    parsed = subjects.parsed
    wanted = np.unique(subjects.code[need])
    b = parsed.select(["title", "norm", "version", "kind", "is_reply", "commit_like"]) \
        .take(pa.array(wanted)).to_pydict()
    norms = set(b["norm"])
    # the patches of those titles: (norm, subject's version) and (norm, version)
    norm_of = parsed.column("norm")
    hit = np.flatnonzero(as_numpy(pc.is_in(norm_of, pa.array(sorted(norms), pa.string())),
                               False, bool)[subjects.code[patch_rows]])
    idx = hit[np.argsort(th.rank[patch_rows[hit]], kind="stable")]  # by date, then uid
    rows = patch_rows[idx]
    posted: dict[tuple[str, int], list[int]] = {}
    by_version: dict[tuple[str, int], list[int]] = {}
    newest: dict[str, int] = {}
    for j, norm, own_version, v in zip(
            idx.tolist(), norm_of.take(pa.array(subjects.code[rows])).to_pylist(),
            subjects.column("version", 1)[subjects.code[rows]].tolist(),
            version[rows].tolist(), strict=True):
        posted.setdefault((norm, own_version), []).append(j)
        by_version.setdefault((norm, v), []).append(j)
        newest[norm] = max(newest.get(norm, v), v)
    group: dict[int, list[int]] = {}  # subject code -> the postings it may name
    keys: list[str] = []
    key_of = np.full(len(parsed), -1, dtype=np.int64)  # subject code -> its title key's
    for s, title, norm, v, k, reply, commit_like in zip(wanted.tolist(), *b.values(),
                                                         strict=True):
        if k == PATCH:
            if (norm, v) in posted:
                group[s] = posted[(norm, v)]
            key_of[s] = len(keys)
            keys.append(patch_key(norm, v))
        elif norm in newest:
            group[s] = by_version[(norm, newest[norm])]
            key_of[s] = len(keys)
            keys.append(patch_key(norm, newest[norm]))
        elif not reply and commit_like:
            key_of[s] = len(keys)
            keys.append(patch_key(title, 1))
    # only a message without references (its chain lost) is matched to a posting
    lost = th.parent_code[need] < 0
    dated = {s: (np.array(g), th.dates[patch_rows[g]]) for s, g in group.items()}
    for i, s in zip(need[lost].tolist(), subjects.code[need[lost]].tolist(), strict=True):
        if s in dated:
            g, when = dated[s]
            at = int(np.searchsorted(when, th.dates[i], side="right"))
            pid[i] = g[max(at - 1, 0)]
    rest = need[pid[need] < 0]
    key = key_of[subjects.code[rest]]
    pid[rest] = np.where(key >= 0, base + key, -1)
    return keys


@dataclass
class PatchColumns:
    """What the patches table needs beyond the message columns, per patch (in message
    order): its version, whether it is a cover, its series, and its trailers (those a
    reply gave in someone else's name apart) as codes into ``trailer_key``/``_value``."""

    rows: np.ndarray  # the message row of each patch
    facts: pa.Table  # the patches' from_addr, has_diff, diff and diffstat sizes, commit_refs
    version: np.ndarray
    is_cover: np.ndarray
    is_pull: np.ndarray
    series: pa.Array  # series_id
    posting: np.ndarray  # the patch code of each patch's posting (its cover or first part)
    trailer_offsets: np.ndarray
    trailer_codes: np.ndarray
    other_offsets: np.ndarray
    other_codes: np.ndarray
    trailer_key: pa.Array
    trailer_value: pa.Array


def _patch_columns(th: Threading, uid: pa.Array, subjects: Subjects, facts: pa.Table,
                   from_addr: pa.Array, senders: pa.Array, author: np.ndarray,
                   patch_rows: np.ndarray, pid: np.ndarray,
                   version: np.ndarray, is_cover: np.ndarray, pull: np.ndarray,
                   thread_cover: np.ndarray) -> PatchColumns:
    code = subjects.code[patch_rows]
    part = subjects.column("part", -1)[code]
    seconds = np.where(th.dates[patch_rows] == UNKNOWN, math.nan, th.dates[patch_rows] / 1e6)
    # parts of one posting share author, version, total, RFC-ness and set tag
    keyed = np.stack([author[patch_rows], version[patch_rows],
                      subjects.column("total", 0)[code],
                      subjects.column("is_rfc", False)[code].astype(np.int64),
                      encode(subjects.parsed.column("set_tag"))[1][code]], axis=1)
    key = np.unique(keyed, axis=0, return_inverse=True)[1].reshape(-1)
    key[keyed[:, 2] == 0] = -1  # no total: a posting of its own
    del keyed
    posting = _postings(key, part, seconds, th.root[patch_rows], th.rank[patch_rows])
    cover = is_cover[patch_rows]
    index = np.full(th.n, -1, dtype=np.int64)  # row -> its place among the patches
    index[patch_rows] = np.arange(len(patch_rows))
    outside = thread_cover[patch_rows]
    # only a cover without a part count ("... v2") is a part's cover outside its posting
    alone = subjects.column("total", -1)[subjects.code[np.maximum(outside, 0)]] < 0
    outside = np.where((outside >= 0) & alone, index[np.maximum(outside, 0)], -1)
    patch_from = from_addr.take(pa.array(patch_rows))
    series, cover_of, first = _series(posting, part, seconds, th.rank[patch_rows], cover,
                                      outside, pull[patch_rows], author[patch_rows],
                                      patch_from, uid, patch_rows, subjects, code)
    trailers = _trailers(facts.column("trailers"), senders, author, patch_rows, pid, cover_of)
    facts = facts.select(PATCH_FACTS).take(pa.array(patch_rows)) \
        .append_column("from_addr", patch_from)
    return PatchColumns(patch_rows, facts, version[patch_rows], cover, pull[patch_rows], series,
                        pid[patch_rows[first]], *trailers)


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
            is_cover: np.ndarray, outside: np.ndarray, pull: np.ndarray,
            author_code: np.ndarray, author: pa.Array, uid: pa.Array, patch_rows: np.ndarray,
            subjects: Subjects, code: np.ndarray) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(series_id of every patch, the cover of every patch, -1 for none, the patch that
    names its posting: its first cover, else its first part), as
    ``name_series``: a posting's cover is its first, else (for each part) the one it is
    threaded under (``outside``); a pull request is a series of its own; other postings
    sharing patch titles are joined."""
    if not len(posting):
        return pa.array([], pa.string()), np.zeros(0, dtype=np.int64), np.zeros(0, np.int64)
    # items of a posting by (part, unknown 0; date, unknown last; arrival)
    when = np.where(np.isnan(seconds), np.inf, seconds)
    order = np.lexsort((rank, when, np.where(part < 0, 0, part), posting))
    by_post = posting[order]
    starts = np.flatnonzero(np.concatenate(([True], by_post[1:] != by_post[:-1])))
    head = order[starts]
    # the first cover of each posting in that order
    covers = order[is_cover[order]]
    first_cover = np.full(posting.max() + 1, -1, dtype=np.int64)
    first_cover[posting[covers][::-1]] = covers[::-1]
    cover_of = first_cover[posting]
    cover_of[cover_of == np.arange(len(posting))] = -1
    cover_of = np.where(cover_of >= 0, cover_of, outside)
    own = first_cover[by_post[starts]]
    named = np.where(own >= 0, own, np.where(cover_of[head] >= 0, cover_of[head], head))
    n_post = len(head)
    alone = np.zeros(n_post, dtype=bool)  # a pull request's posting
    np.logical_or.at(alone, posting, pull)
    alone |= pull[named]
    repost = np.zeros(n_post, dtype=bool)
    np.logical_or.at(repost, posting, subjects.column("repost", False)[code])
    names: list[str] = []
    for start in range(0, n_post, BATCH):
        at = pa.array(code[named[start:start + BATCH]])
        owners = uid.take(pa.array(patch_rows[named[start:start + BATCH]])).to_pylist()
        for a, t, tag, owner, single in zip(
                author.take(pa.array(head[start:start + BATCH])).to_pylist(),
                subjects.parsed.column("title").take(at).to_pylist(),
                subjects.parsed.column("set_tag").take(at).to_pylist(), owners,
                alone[start:start + BATCH].tolist(), strict=True):
            names.append(series_key(a, t, tag, owner if single else None))
    # (author, title, posting) of every part, where two to COMMON_TITLE postings share it
    items = np.flatnonzero(~is_cover & ~(alone | repost)[posting])
    triples = np.unique(np.stack([author_code[head[posting[items]]],
                                  encode(subjects.parsed.column("norm"))[1][code[items]],
                                  posting[items]], axis=1), axis=0)
    pair = triples[:, 0] * (int(triples[:, 1].max(initial=0)) + 2) + triples[:, 1] \
        if len(triples) else np.zeros(0, dtype=np.int64)
    _, group, count = np.unique(pair, return_inverse=True, return_counts=True)
    size = count[group.reshape(-1)] if len(pair) else np.zeros(0, dtype=np.int64)
    triples = triples[(size > 1) & (size <= COMMON_TITLE)]
    joined = join_series(names, [tuple(t) for t in triples.tolist()], rank[head].tolist())
    series = pa.array(joined, pa.string()).take(pa.array(posting))
    return series, cover_of, np.where(own >= 0, own, head)[posting]


def _trailers(trailers: pa.ChunkedArray, sender_names: pa.Array, author: np.ndarray,
              patch_rows: np.ndarray, pid: np.ndarray, cover_of: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, pa.Array, pa.Array]:
    """Each patch's own trailers, then its cover's review trailers, then the review
    trailers of the replies about it or about its cover that name the reply's sender
    (replies in message order, robots' skipped), the first of equal ones kept; apart,
    the replies' review trailers naming someone else: (offsets and codes per patch, of
    both, and the key and value of every code)."""
    length = as_numpy(pc.list_value_length(trailers), 0)
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
    review = as_numpy(pc.is_in(key, pa.array(sorted(REVIEW_KEYS))), False, bool)
    # the address each pair names and each sender's, as codes of one dictionary
    senders = sender_names.to_pylist()  # the distinct From addresses ``author`` codes
    named, mail = encode(pa.array(
        [trailer_address(v) if v is not None else None for v in value.to_pylist()]
        + [a.lower() if a is not None else "" for a in senders], pa.string()))
    del named
    pair_mail, sender_mail = mail[:len(pairs)], mail[len(pairs):]
    robot = np.array([is_robot(a) for a in senders], dtype=bool)
    n_patch = len(patch_rows)

    def sources(target: np.ndarray, source_rows: np.ndarray, order: np.ndarray,
                only_review: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(patch, rank of the source, code, source row) of every trailer it gives."""
        lengths = length[source_rows]
        at = ranges(offsets[source_rows], offsets[source_rows] + lengths)
        t, o, r = (np.repeat(x, lengths) for x in (target, order, source_rows))
        c = codes[at]
        if only_review:
            keep = review[c]
            t, o, c, r = t[keep], o[keep], c[keep], r[keep]
        return t, o, c, r

    everyone = np.arange(n_patch)
    own = sources(everyone, patch_rows, np.zeros(n_patch, dtype=np.int64), False)
    parts = np.flatnonzero(cover_of >= 0)
    cover = sources(parts, patch_rows[cover_of[parts]], np.ones(len(parts), dtype=np.int64),
                    True)
    replies, reply_of, target = _reply_targets(length, pid, patch_rows, cover_of,
                                               _at(robot, author, False))
    t, o, c, r = sources(target, replies[reply_of], 2 + reply_of, True)
    sender = _at(sender_mail, author[r], -2)
    theirs = (pair_mail[c] >= 0) & (pair_mail[c] == sender)
    given = (t[theirs], o[theirs], c[theirs])
    others = (t[~theirs], o[~theirs], c[~theirs])
    offsets_mine, mine = _merge([own[:3], cover[:3], given], n_patch, len(pairs))
    offsets_other, other = _merge([others], n_patch, len(pairs))
    return offsets_mine, mine, offsets_other, other, key, value


def _reply_targets(length: np.ndarray, pid: np.ndarray, patch_rows: np.ndarray,
                   cover_of: np.ndarray, by_robot: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The replies with trailers about a patch (not a robot's: ``by_robot`` per message),
    and per (reply, patch) pair the reply's index among them and the patch: every patch
    of the reply's patch_id, and the parts of a cover among them."""
    is_patch = np.zeros(len(pid), dtype=bool)
    is_patch[patch_rows] = True
    replies = np.flatnonzero((length > 0) & (pid >= 0) & ~is_patch)
    replies = replies[~by_robot[replies]]
    by_pid = np.argsort(pid[patch_rows], kind="stable")
    sorted_pid = pid[patch_rows][by_pid]
    lo = np.searchsorted(sorted_pid, pid[replies], side="left")
    hi = np.searchsorted(sorted_pid, pid[replies], side="right")
    reply_of = np.repeat(np.arange(len(replies)), hi - lo)
    target = by_pid[ranges(lo, hi)]
    part_of = np.argsort(cover_of, kind="stable")
    part_of = part_of[cover_of[part_of] >= 0]
    covered = cover_of[part_of]
    lo2 = np.searchsorted(covered, target, side="left")
    hi2 = np.searchsorted(covered, target, side="right")
    reply_of = np.concatenate((reply_of, np.repeat(reply_of, hi2 - lo2)))
    target = np.concatenate((target, part_of[ranges(lo2, hi2)]))
    return replies, reply_of, target


def _at(values: np.ndarray, codes: np.ndarray, missing: Any) -> np.ndarray:
    """``values[codes]``, ``missing`` where a code is -1 (no sender: ``values`` may be
    empty when no message has one)."""
    out = np.full(len(codes), missing, dtype=values.dtype if len(values) else
                  np.asarray(missing).dtype)
    known = codes >= 0
    out[known] = values[codes[known]]
    return out


def _merge(sources: list[tuple[np.ndarray, np.ndarray, np.ndarray]], n_patch: int,
           n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """The codes each patch gets from (patch, rank, code) triples, in order of rank (a
    source's trailers keep their order), the first of equal ones kept."""
    t, o, c = (np.concatenate([s[k] for s in sources]) for k in range(3))
    order = np.lexsort((o, t))
    t, c = t[order], c[order]
    first = np.sort(np.unique(t * max(n_codes, 1) + c, return_index=True)[1])
    t, c = t[first], c[first]
    sizes = np.bincount(t, minlength=n_patch)
    return np.concatenate(([0], np.cumsum(sizes))), c


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
        refs = facts.column("commit_refs")
        if refs.null_count:
            refs = pc.if_else(pc.is_valid(refs), refs,
                              pa.scalar([], PATCHES.field("commit_refs").type))
        trailers = _pairs(cols.trailer_offsets, cols.trailer_codes, cols, start, len(at))
        others = _pairs(cols.other_offsets, cols.other_codes, cols, start, len(at))
        values = {"patch_id": take_codes(keys, pid[at]),
                  "message_id": take_codes(th.ids, th.mid_code[at]),
                  "uid": uid.take(pa.array(at)),
                  **{name: subjects.parsed.column(name).take(code) for name in REPORTED},
                  "version": pa.array(cols.version[part], pa.int64()),
                  "is_cover": pa.array(cols.is_cover[part], pa.bool_()),
                  "is_pull": pa.array(cols.is_pull[part], pa.bool_()),
                  "series_id": cols.series[part],
                  "posting_id": take_codes(keys, cols.posting[part]), **sizes,
                  "trailers": trailers, "trailers_other": others, "commit_refs": refs,
                  "from_addr": facts.column("from_addr"),
                  "thread_id": th.node_names(uid, th.root[at]),
                  "date": stamps(th.dates[at], PATCHES.field("date").type)}
        yield pa.record_batch([_array(values[f.name]).cast(f.type) for f in PATCHES],
                              schema=PATCHES)


def _pairs(offsets: np.ndarray, codes: np.ndarray, cols: PatchColumns, start: int,
           count: int) -> pa.ListArray:
    """The (key, value) lists of patches ``start .. start + count``."""
    lo, hi = offsets[start], offsets[start + count]
    chosen = pa.array(codes[lo:hi])
    items = pa.StructArray.from_arrays([cols.trailer_key.take(chosen),
                                        cols.trailer_value.take(chosen)],
                                       names=["key", "value"])
    return pa.ListArray.from_arrays(pa.array(offsets[start:start + count + 1] - lo, pa.int32()),
                                    items, type=PATCHES.field("trailers").type)


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

