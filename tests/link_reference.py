"""The link stage message by message: the readable oracle of ``mlx.link`` (tests only).

Python objects per message (a ``Row``, a parsed ``Subject``, dicts of nodes), so its
memory grows by kilobytes per message; ``mlx.link`` computes the same tables on
integer-coded columns with the rules of ``mlx.link.rules``.  ``tests/test_link_columns.py``
and ``benchmarks/link.py`` check that the two give identical tables.  Threading here is
the rule ``mlx.link.threads`` states (In-Reply-To, else the last reference; ghosts for
missing parents; loops cut), one message at a time.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mlx.extract.vocab import REVIEW_KEYS
from mlx.link.rules import (
    Posting,
    group_postings,
    is_repost,
    is_robot,
    join_series,
    patch_key,
    posting_key,
    robot_report,
    series_key,
    trailer_address,
)
from mlx.link.threads import GHOST, NO_DATE, header_thread_refs
from mlx.schema import FACT_COLUMNS, LINKS, MESSAGES, PATCHES, REPORTS, THREADS
from mlx.store import Store
from mlx.subjects import Subject, looks_like_commit_title, normalize_title, parse_subject

# ---------------------------------------------------------------- threads


@dataclass(frozen=True)
class ThreadInput:
    """The columns threading reads, one list per column."""

    uid: Sequence[str]
    message_id: Sequence[str | None]
    date: Sequence[float]  # POSIX seconds, NaN/inf when unknown
    refs: Sequence[Sequence[str]]  # ``thread_refs`` of each message: parent last


@dataclass(frozen=True)
class ThreadOutput:
    """Per message (input order) and per thread."""

    thread_id: list[str]
    parent_id: list[str | None]  # the parent's Message-ID (a ghost's id included)
    parent_uid: list[str | None]  # the parent's uid, None for ghosts and roots
    depth: list[int]
    threads: dict[str, dict]  # thread_id -> root_id, n_ghosts, members (row indexes)


def thread(inp: ThreadInput) -> ThreadOutput:
    n = len(inp.uid)
    key_date = [(d if d == d else NO_DATE, u) for d, u in zip(inp.date, inp.uid, strict=True)]
    order = sorted(range(n), key=key_date.__getitem__)
    first: dict[str, int] = {}  # Message-ID -> row of its earliest message
    for i in order:
        mid = inp.message_id[i]
        if mid is not None and mid not in first:
            first[mid] = i

    # nodes: row index (int) for messages, "ghost:<id>" for missing ones
    parent: dict[object, object] = {}
    parent_id: list[str | None] = [None] * n
    for i in order:
        chain = inp.refs[i]
        if not chain:
            continue
        p = parent_id[i] = chain[-1]
        parent[i] = first[p] if p in first and first[p] != i else GHOST + p
        # the References chain gives ghosts their parents (first message wins)
        for a, b in zip(chain, chain[1:], strict=False):
            if b not in first and a != b and GHOST + b not in parent:
                parent[GHOST + b] = first[a] if a in first else GHOST + a
    _cut_cycles(parent, key_date)

    root: dict[object, object] = {}
    depth_of: dict[object, int] = {}
    for node in list(range(n)) + [k for k in parent if isinstance(k, str)]:
        _resolve(node, parent, root, depth_of)

    threads: dict[str, dict] = {}
    thread_id: list[str] = []
    for i in range(n):
        r = root[i]
        tid = _thread_key(inp, r)
        thread_id.append(tid)
        t = threads.setdefault(tid, {"root_id": inp.message_id[r] if isinstance(r, int)
                                     else str(r)[len(GHOST):], "members": [], "ghosts": set()})
        t["members"].append(i)
    for ghost, top in root.items():
        if isinstance(ghost, str) and (tid := _thread_key(inp, top)) in threads:
            threads[tid]["ghosts"].add(ghost)
    for t in threads.values():
        t["n_ghosts"] = len(t.pop("ghosts"))
    parent_uid: list[str | None] = []
    for i in range(n):
        up = parent.get(i)
        parent_uid.append(inp.uid[up] if isinstance(up, int) else None)
    return ThreadOutput(thread_id, parent_id, parent_uid, [depth_of[i] for i in range(n)], threads)


def _thread_key(inp: ThreadInput, root: object) -> str:
    """A thread is named by its root: the root's uid, or "ghost:<id>"."""
    return inp.uid[root] if isinstance(root, int) else str(root)


def _cut_cycles(parent: dict[object, object], key_date: list[tuple[float, str]]) -> None:
    """Break every parent cycle at its earliest message (ghosts last)."""
    state: dict[object, int] = {}  # 1: on the current path, 2: done
    for start in list(parent):
        path: list[object] = []
        node: object = start
        while node is not None and state.get(node) is None:
            state[node] = 1
            path.append(node)
            node = parent.get(node)
        if node is not None and state.get(node) == 1:
            cycle = path[path.index(node):]
            cut = min(cycle, key=lambda x: key_date[x] if isinstance(x, int)
                      else (NO_DATE, str(x)))
            del parent[cut]
        for p in path:
            state[p] = 2


def _resolve(node: object, parent: dict[object, object], root: dict[object, object],
             depth: dict[object, int]) -> None:
    path: list[object] = []
    cur: object = node
    while cur not in root:
        nxt = parent.get(cur)
        if nxt is None:
            root[cur] = cur
            depth[cur] = 0
            break
        path.append(cur)
        cur = nxt
    for p in reversed(path):
        nxt = parent[p]
        root[p] = root[nxt]
        depth[p] = depth[nxt] + 1


# ---------------------------------------------------------------- patches


@dataclass(slots=True)
class Row:
    """The columns of one message the patch pass reads."""

    uid: str
    message_id: str | None
    subject: str | None
    from_addr: str | None
    date: float
    thread_id: str
    parent_uid: str | None
    has_diff: bool
    diffstat_files: int | None
    facts: dict[str, Any] = field(default_factory=dict)
    refs: list[str] | None = None  # thread_refs, parent last (None: parent_uid alone)


def is_patch(subj: Subject, row: Row) -> bool:
    """A non-reply with a diff; a cover letter; a pull request; a ``[PATCH]`` posting
    with a Signed-off-by whose diff a mail client or web archive stripped."""
    if subj.is_reply or subj.kind == "robot":
        return False
    return row.has_diff or subj.is_cover or subj.is_pull or (
        row.diffstat_files is not None and bool(
            subj.kind == "patch" or subj.prefixes or subj.version_seen)) or (
        subj.kind == "patch" and bool(row.facts.get("signed_off")))


def is_cover_row(subj: Subject, row: Row) -> bool:
    """A cover letter: ``0/N``, or a diffstat without a diff (no pull request)."""
    return not subj.is_pull and (subj.is_cover or (
        not row.has_diff and row.diffstat_files is not None))


def part_key(author: str | None, s: Subject, version: int) -> tuple[Any, ...] | None:
    """Parts of one posting share author, version, total, RFC-ness and set tag (None: no
    total, a posting of its own)."""
    return (author, version, s.total, s.is_rfc, s.set_tag) if s.total else None


def link_patches(rows: list[Row]) -> tuple[list[dict[str, Any]], list[str | None],
                                           list[dict[str, Any]]]:
    """(patches table rows, patch_id per message, robot report rows)."""
    n = len(rows)
    subjects = [parse_subject(r.subject) for r in rows]
    up = present_parents(rows)
    marked = [is_patch(s, r) for s, r in zip(subjects, rows, strict=True)]
    patch_rows = [i for i in range(n) if marked[i]]
    cover = [marked[i] and is_cover_row(subjects[i], rows[i]) for i in range(n)]
    thread_cover: dict[int, int] = {}
    version = [s.version for s in subjects]
    for i in patch_rows:
        c = nearest(i, up, cover)
        s, cs = subjects[i], subjects[c] if c is not None else None
        if c is None or cs is None or cover[i] or rows[c].from_addr != rows[i].from_addr \
                or (cs.total is not None and cs.total != s.total):
            continue
        thread_cover[i] = c
        if not s.version_seen and cs.version_seen:
            version[i] = cs.version
    pid: list[str | None] = [None] * n
    for i in patch_rows:
        pid[i] = posting_key(rows[i].message_id, rows[i].uid)

    postings = group_postings(
        sorted(patch_rows, key=lambda i: (_when(rows[i].date), rows[i].uid)),
        {i: part_key(rows[i].from_addr, subjects[i], version[i]) for i in patch_rows},
        [s.part for s in subjects], [r.date for r in rows], [r.thread_id for r in rows])
    cover_of = posting_covers(postings, [s.part for s in subjects], cover,
                              [r.date for r in rows])
    for i, c in thread_cover.items():
        if subjects[c].total is None:
            cover_of.setdefault(i, c)  # a cover without a part count ("... v2"): alone
    pull = [s.is_pull or bool(r.facts.get("request_pull"))
            for s, r in zip(subjects, rows, strict=True)]
    sids = name_series(postings, [s.part for s in subjects], cover, cover_of,
                       [r.from_addr for r in rows], [s.title for s in subjects],
                       [s.set_tag for s in subjects], [r.date for r in rows],
                       [r.uid for r in rows], pull, [is_repost(s) for s in subjects])
    series_of = {i: sid for post, sid in zip(postings, sids, strict=True) for i in post.rows}
    parts, dates = [s.part for s in subjects], [r.date for r in rows]
    first: dict[int, int] = {}  # each patch's posting head (its cover, else part 1)
    for post in postings:
        head = _first(post, parts, cover, dates)
        first.update(dict.fromkeys(post.rows, head))
    _attribute(rows, subjects, up, marked, version, pid)
    trailers, others = _collect_trailers(rows, pid, patch_rows, cover_of)
    patches = [_patch_row(i, rows[i], subjects[i], version[i], cover[i], pull[i], pid[i],
                          pid[first[i]], series_of[i], trailers[i], others[i])
               for i in patch_rows]
    robots = [{"uid": r.uid, "message_id": r.message_id, **robot_report(s)}
              for r, s in zip(rows, subjects, strict=True) if s.kind == "robot" and not s.is_reply]
    return patches, pid, robots


def present_parents(rows: list[Row]) -> list[int | None]:
    """Each message's nearest ancestor in the archive: the last of its ``thread_refs``
    that a message here carries (the earliest such message, by date then uid), not
    itself; the parent's row where the refs are not known."""
    order = sorted(range(len(rows)), key=lambda i: (_when(rows[i].date), rows[i].uid))
    first: dict[str, int] = {}
    for i in order:
        mid = rows[i].message_id
        if mid is not None and mid not in first:
            first[mid] = i
    row_of = {r.uid: i for i, r in enumerate(rows)}
    up: list[int | None] = []
    for i, r in enumerate(rows):
        if r.refs is None:
            up.append(row_of.get(r.parent_uid) if r.parent_uid else None)
            continue
        found = None
        for ref in reversed(r.refs):
            if (j := first.get(ref)) is not None and j != i:
                found = j
                break
        up.append(found)
    return up


def nearest(i: int, up: Sequence[int | None], marked: Sequence[bool]) -> int | None:
    """The nearest strict ancestor of ``i`` that is ``marked`` (None on a loop)."""
    seen = {i}
    cur = up[i]
    while cur is not None and cur not in seen:
        if marked[cur]:
            return cur
        seen.add(cur)
        cur = up[cur]
    return None


def posting_covers(postings: list[Posting], part: Sequence[int | None],
                   is_cover: Sequence[bool], date: Sequence[float]) -> dict[int, int]:
    """The cover of every other item of a posting that has one: its first cover by
    (part, date, unknown last)."""
    cover_of: dict[int, int] = {}
    for post in postings:
        covers = [i for i in _ordered(post, part, date) if is_cover[i]]
        for i in post.rows:
            if covers and i != covers[0]:
                cover_of[i] = covers[0]
    return cover_of


def _first(post: Posting, part: Sequence[int | None], is_cover: Sequence[bool],
           date: Sequence[float]) -> int:
    """What names a posting: its first cover, else its first part."""
    ordered = _ordered(post, part, date)
    return next((i for i in ordered if is_cover[i]), ordered[0])


def _ordered(post: Posting, part: Sequence[int | None], date: Sequence[float]) -> list[int]:
    return sorted(post.rows, key=lambda i: (part[i] or 0, date[i] if date[i] == date[i]
                                            else math.inf))  # unknown dates last


def name_series(postings: list[Posting], part: Sequence[int | None],
                is_cover: Sequence[bool], cover_of: Mapping[int, int],
                author: Sequence[str | None], title: Sequence[str],
                set_tag: Sequence[str | None], date: Sequence[float],
                uid: Sequence[str], pull: Sequence[bool], repost: Sequence[bool]
                ) -> list[str]:
    """The series key of every posting: its author, its title (its first cover's, else
    the cover it is threaded under, else part 1's) and set tag; a pull request (a
    maintainer's batch of others' patches) is a series of its own.  Postings of one
    author that share ``SHARED_TITLES`` patch titles take the key of the earliest of
    them (pull requests, AUTOSEL batches and stable backports, which repost patches, are
    never joined so)."""
    keys = []
    heads = []
    joinable = []
    for post in postings:
        ordered = _ordered(post, part, date)
        head = ordered[0]
        named = next((i for i in ordered if is_cover[i]), cover_of.get(head, head))
        alone = any(pull[i] for i in post.rows) or pull[named]
        keys.append(series_key(author[head], title[named], set_tag[named],
                               uid[named] if alone else None))
        heads.append(head)
        joinable.append(not alone and not any(repost[i] for i in post.rows))
    titles = {(author[heads[k]], normalize_title(title[i]), k)
              for k, post in enumerate(postings) if joinable[k]
              for i in post.rows if not is_cover[i]}
    return join_series(keys, sorted(titles, key=lambda t: t[2]),
                       [(_when(date[h]), uid[h]) for h in heads])


def _attribute(rows: list[Row], subjects: list[Subject], up: list[int | None],
               marked: list[bool], version: list[int], pid: list[str | None]) -> None:
    """patch_id of every message that is no patch: its nearest patch ancestor's; else its
    subject's; else the nearest ancestor's that has one."""
    n = len(rows)
    for i in range(n):
        if not marked[i] and (a := nearest(i, up, marked)) is not None:
            pid[i] = pid[a]
    # the postings in the archive by (title, version as the subject gives it)
    newest: dict[str, int] = {}
    posted: dict[tuple[str, int], list[tuple[float, str, str]]] = {}
    by_version: dict[tuple[str, int], list[tuple[float, str, str]]] = {}
    for i in range(n):
        if marked[i]:
            t = normalize_title(subjects[i].title)
            stamp = (_when(rows[i].date), rows[i].uid, pid[i] or "")
            posted.setdefault((t, subjects[i].version), []).append(stamp)
            by_version.setdefault((t, version[i]), []).append(stamp)
            newest[t] = max(newest.get(t, version[i]), version[i])
    for group in (*posted.values(), *by_version.values()):
        group.sort()
    for i, s in enumerate(subjects):
        if pid[i] is not None or marked[i] or s.kind == "robot" or not s.title:
            continue
        # a message with references whose chain holds no patch is about a patch the
        # archive lacks: its title's key; only one without any is matched to a posting
        lost = not (rows[i].refs if rows[i].refs is not None else rows[i].parent_uid)
        t = normalize_title(s.title)
        if s.kind == "patch":
            pid[i] = (_latest(posted.get((t, s.version)), rows[i].date) if lost else None) \
                or patch_key(s.title, s.version)
        elif t in newest:  # "Re: tcp: foo" without a tag
            pid[i] = (_latest(by_version[(t, newest[t])], rows[i].date) if lost else None) \
                or patch_key(s.title, newest[t])
        elif not s.is_reply and looks_like_commit_title(s.title):
            pid[i] = patch_key(s.title, 1)  # a reply titled with the commit (seed 002)
    keyed = [p is not None for p in pid]
    for i in range(n):
        if pid[i] is None and (a := nearest(i, up, keyed)) is not None:
            pid[i] = pid[a]  # below a message keyed by its subject: "Re: other (was: ...)"


def _when(date: float) -> float:
    return date if date == date else math.inf


def _latest(group: list[tuple[float, str, str]] | None, date: float) -> str | None:
    """The posting of ``group`` (sorted by date, uid) last posted not after ``date``,
    else the first."""
    if not group:
        return None
    at = bisect.bisect_right([g[0] for g in group], _when(date))
    return group[max(at - 1, 0)][2]


def _collect_trailers(rows: list[Row], pid: list[str | None], patch_rows: list[int],
                      cover_of: dict[int, int]
                      ) -> tuple[dict[int, list[tuple[str, str]]],
                                 dict[int, list[tuple[str, str]]]]:
    """(trailers, trailers_other) of every patch: its own, its cover's review trailers,
    and the review trailers of replies about it or its cover, by whether they name the
    reply's sender."""
    own = {i: list(rows[i].facts.get("trailers") or []) for i in patch_rows}
    by_pid: dict[str, list[int]] = {}
    for i in patch_rows:
        by_pid.setdefault(pid[i] or "", []).append(i)
    parts_of: dict[int, list[int]] = {}
    for part, its_cover in sorted(cover_of.items()):
        parts_of.setdefault(its_cover, []).append(part)
    mine: dict[int, list[tuple[str, str]]] = {i: [] for i in patch_rows}
    other: dict[int, list[tuple[str, str]]] = {i: [] for i in patch_rows}
    for i, r in enumerate(rows):
        key = pid[i]
        if i in own or key is None or is_robot(r.from_addr):
            continue
        given = [(k, v) for k, v in (r.facts.get("trailers") or []) if k in REVIEW_KEYS]
        sender = (r.from_addr or "").lower()
        for target in by_pid.get(key, []):
            for t in (target, *parts_of.get(target, ())):
                for k, v in given:
                    (mine if trailer_address(v) == sender else other)[t].append((k, v))
    out, rest = {}, {}
    for i in patch_rows:
        from_cover = [kv for kv in own.get(cover_of[i], []) if kv[0] in REVIEW_KEYS] \
            if i in cover_of else []
        out[i] = list(dict.fromkeys(own[i] + from_cover + mine[i]))
        rest[i] = list(dict.fromkeys(other[i]))
    return out, rest


def _patch_row(i: int, r: Row, s: Subject, version: int, is_cover: bool, is_pull: bool,
               pid: str | None, posting: str | None, sid: str, trailers: list[tuple[str, str]],
               others: list[tuple[str, str]]) -> dict[str, Any]:
    f = r.facts
    if r.has_diff:
        files, ins, dels = f.get("diff_files"), f.get("diff_insertions"), f.get("diff_deletions")
    else:
        files, ins, dels = (f.get("diffstat_files"), f.get("diffstat_insertions"),
                            f.get("diffstat_deletions"))
    return {
        "patch_id": pid, "message_id": r.message_id, "uid": r.uid, "title": s.title,
        "subsystem": s.subsystem, "subsystem_path": s.subsystem_path, "prefixes": s.prefixes,
        "tree": s.tree, "version": version, "version_seen": s.version_seen,
        "version_minor": s.version_minor, "part": s.part, "total": s.total,
        "is_rfc": s.is_rfc, "is_resend": s.is_resend, "is_cover": is_cover,
        "is_pull": is_pull, "is_autosel": s.is_autosel, "is_rft": s.is_rft,
        "series_id": sid, "posting_id": posting, "files_changed": files, "insertions": ins,
        "deletions": dels,
        "trailers": trailers, "trailers_other": others,
        "commit_refs": list(f.get("commit_refs") or []),
        "from_addr": r.from_addr, "thread_id": r.thread_id, "date": r.date,
    }


# ---------------------------------------------------------------- tables


HEADER_COLUMNS = ["uid", "message_id", "date", "subject", "from_addr", "thread_refs",
                  *FACT_COLUMNS]
LINK_FACTS = [c for c in FACT_COLUMNS if c != "has_diff"]  # what a patch row reports


def _stamp(sec: float) -> Any:
    import datetime as dt
    if sec != sec or math.isinf(sec):
        return None
    return dt.datetime.fromtimestamp(sec, dt.timezone.utc)


def link_tables(st: Store) -> dict[str, pa.Table]:
    """The tables ``mlx.link.link`` writes (``messages`` for the links), claims aside."""
    table = st.read("messages", MESSAGES, HEADER_COLUMNS)
    # POSIX seconds, NaN when unknown (without making a datetime per message)
    dates = pc.divide(table.column("date").cast(pa.int64()).cast(pa.float64()), 1e6)
    dates = pc.fill_null(dates, math.nan).to_pylist()
    cols = {c: table.column(c).to_pylist() for c in ("uid", "message_id", "subject",
                                                      "from_addr", "thread_refs", "has_diff",
                                                      "diffstat_files")}
    facts = _facts(table)
    del table
    n = len(cols["uid"])
    if None in cols["thread_refs"]:
        _old_thread_refs(st, cols)
    out = thread(ThreadInput(cols["uid"], cols["message_id"], dates, cols["thread_refs"]))
    rows = [Row(uid=cols["uid"][i], message_id=cols["message_id"][i],
                subject=cols["subject"][i], from_addr=cols["from_addr"][i], date=dates[i],
                thread_id=out.thread_id[i], parent_uid=out.parent_uid[i],
                has_diff=bool(cols["has_diff"][i]), diffstat_files=cols["diffstat_files"][i],
                facts=facts.get(i, {}), refs=cols["thread_refs"][i] or [])
            for i in range(n)]
    patches, pid, robots = link_patches(rows)
    for p in patches:
        p["date"] = _stamp(p["date"])
        for col in ("trailers", "trailers_other"):
            p[col] = [{"key": k, "value": v} for k, v in p[col]]
    return {
        "messages": pa.table({"uid": cols["uid"], "thread_id": out.thread_id,
                              "parent_id": out.parent_id, "parent_uid": out.parent_uid,
                              "depth": out.depth, "patch_id": pid}, schema=LINKS),
        "threads": _threads_table(out, cols, dates),
        "patches": pa.Table.from_pylist(patches, schema=PATCHES),
        "reports": pa.Table.from_pylist(robots, schema=REPORTS)}


def _old_thread_refs(st: Store, cols: dict[str, list[Any]]) -> None:
    """``thread_refs`` of messages stored before the column existed, from their headers."""
    old = st.read("messages", MESSAGES, ["from_addr", "to", "cc", "in_reply_to",
                                         "references"]).to_pydict()
    for i, refs in enumerate(cols["thread_refs"]):
        if refs is None:
            cols["thread_refs"][i] = header_thread_refs(
                cols["message_id"][i], old["from_addr"][i], old["to"][i], old["cc"][i],
                old["in_reply_to"][i], old["references"][i])


def _facts(table: pa.Table) -> dict[int, dict[str, Any]]:
    """Patch facts of the rows that have any (a diff, a diffstat, trailers, commit
    references), by row."""
    trailers = pc.fill_null(pc.list_value_length(table.column("trailers")), 0)
    refs = pc.fill_null(pc.list_value_length(table.column("commit_refs")), 0)
    has = pc.or_(pc.or_(pc.or_(pc.fill_null(table.column("has_diff"), False),
                               pc.greater(trailers, 0)),
                        pc.is_valid(table.column("diffstat_files"))),
                 pc.or_(pc.greater(refs, 0), pc.fill_null(table.column("request_pull"), False)))
    rows = pc.indices_nonzero(has)
    out = {}
    for i, f in zip(rows.to_pylist(), table.select(LINK_FACTS).take(rows).to_pylist(),
                    strict=True):
        f["trailers"] = [(t["key"], t["value"]) for t in f["trailers"] or []]
        out[i] = f
    return out


def _threads_table(out: ThreadOutput, cols: dict[str, list[Any]], dates: list[float]) -> pa.Table:
    rows = []
    for tid, t in out.threads.items():
        members = t["members"]
        known = [dates[i] for i in members if dates[i] == dates[i]]
        first = min(members, key=lambda i: (dates[i] if dates[i] == dates[i] else math.inf,
                                            out.depth[i]))
        root_rows = [i for i in members if out.depth[i] == 0]
        subject_row = root_rows[0] if root_rows else first
        rows.append({"thread_id": tid, "root_id": t["root_id"],
                     "subject": cols["subject"][subject_row], "n_messages": len(members),
                     "first_date": _stamp(min(known)) if known else None,
                     "last_date": _stamp(max(known)) if known else None,
                     "n_ghosts": t["n_ghosts"]})
    return pa.Table.from_pylist(rows, schema=THREADS)
