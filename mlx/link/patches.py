"""Patches, series and which patch every message is about.

A message is a patch when it is no reply and carries a diff, or is a cover letter
(``0/N``, a diffstat without a diff), or a pull request, or is a ``[PATCH]`` posting
with a Signed-off-by whose diff was stripped (``has_diff`` false).  ``patch_id`` names one
posting, as Patchwork does: a patch's key comes from its Message-ID, and every
other message takes its nearest patch ancestor, walked through the thread and,
past messages missing from the archive, up the message's own References.  A
message whose chain holds no patch is about a patch the archive lacks, and takes
the key of its subject's title and version (``patch_key``), the key that patch's
title gives; one without any references (its chain lost) takes the posting of that
title and version in the archive (the latest not after it), else that key too.
Messages below one keyed by its subject inherit its key.

A part without a version of its own takes the version of the cover letter it is
threaded under (same author, same total, or a cover without one).  ``series_id``
is a key of the author and the series title (the cover's, else part 1's, with a
``[Set N]`` tag), the same for v1, v2, v3 whether or not they are threaded to each
other; postings of one author that share two or more patch titles are one series
too (a cover retitled between versions, or missing in one), named by the earliest.
Parts of one posting are grouped by thread, author, version, total and set tag (or
a one-hour window when unthreaded), so parts are never taken for versions.

Trailers: a patch's own, its cover's review trailers (never its ``Cc:`` or
``Fixes:``), and the review trailers of replies about it or its cover that name
the reply's sender (b4's rule; the others go to ``trailers_other``); robots'
replies give none.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mlx.extract.vocab import REVIEW_KEYS
from mlx.subjects import Subject, looks_like_commit_title, normalize_title, parse_subject

POSTING_WINDOW = 3600.0  # seconds: parts of one unthreaded posting arrive together
SHARED_TITLES = 2  # postings of one author sharing this many patch titles: one series
COMMON_TITLE = 50  # a title posted more often than this links no postings (too generic)
# the kernel test robot, syzbot, patchwork-bot+netdevbpf@...: their trailers are no review
ROBOT_SENDER = re.compile(r"(?i)^lkp@|(?:^|[^a-z])(?:syz)?bot(?:[^a-z]|$)|robot")
# a stable or release branch: "-stable", "5.10", "6.1.y", "linux-4.14.y", "openwrt-19.07"
STABLE_TREE = re.compile(r"(?i)^(?:-?stable|(?:linux-|openwrt-)?v?\d+\.\d+(?:\.[\dxy]+)?"
                         r"(?:-[\d.]+)?)$")
# the address a trailer names: "Name <addr>", else a bare address
TRAILER_ADDRESS = re.compile(r"<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+)")


def patch_key(title: str, version: int) -> str:
    """The key of a patch the archive lacks: its normalised title and version."""
    digest = hashlib.sha1(f"{normalize_title(title)}\0{version}".encode(), usedforsecurity=False)
    return "p" + digest.hexdigest()[:15]


def posting_key(message_id: str | None, uid: str) -> str:
    """The key of a patch posting in the archive: its Message-ID (its uid without one)."""
    text = f"<{message_id}>" if message_id is not None else f"uid:{uid}"
    return "p" + hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()[:15]


def series_key(author: str | None, title: str, set_tag: str | None = None,
               alone: str | None = None) -> str:
    """The key of the author's series of that title (and set tag); ``alone``: the uid of
    a pull request's posting, a series of its own."""
    text = f"{author or ''}\0{normalize_title(title)}" + (f"\0{set_tag}" if set_tag else "") \
        + (f"\0pull:{alone}" if alone is not None else "")
    digest = hashlib.sha1(text.encode(), usedforsecurity=False)
    return "s" + digest.hexdigest()[:15]


def trailer_address(value: str) -> str | None:
    m = TRAILER_ADDRESS.search(value)
    return (m.group(1) or m.group(2)).lower() if m else None


def is_repost(s: Subject) -> bool:
    """A batch that reposts patches posted before: AUTOSEL, a backport to a stable tree."""
    return s.is_autosel or bool(s.tree and STABLE_TREE.match(s.tree))


def is_robot(address: str | None) -> bool:
    return bool(address and ROBOT_SENDER.search(address))


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


@dataclass
class Posting:
    rows: list[int]
    parts: set[int | None]
    first_date: float
    thread_id: Any = ""
    seq: int = 0  # creation order


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


def part_key(author: str | None, s: Subject, version: int) -> tuple[Any, ...] | None:
    """Parts of one posting share author, version, total, RFC-ness and set tag (None: no
    total, a posting of its own)."""
    return (author, version, s.total, s.is_rfc, s.set_tag) if s.total else None


def robot_report(s: Subject) -> dict[str, Any]:
    """The columns of a kernel test robot report its subject gives."""
    return {"commit": s.robot_commit, "metric": s.robot_metric,
            "change_pct": s.robot_change_pct,
            "verdict": "regression" if (s.robot_change_pct or 0) < 0
            or "regression" in s.title.lower() else "improvement",
            "tree": s.tree, "title": s.title}


def group_postings(order: Iterable[int], key: Mapping[int, Any] | Sequence[Any],
                   part: Sequence[int | None], date: Sequence[float],
                   thread: Sequence[Any]) -> list[Posting]:
    """Group parts (items in ``order``: by date, unknown last, then uid) into postings:
    a part joins the oldest posting of the same key that lacks its number and is in its
    thread or began within the posting window.  Candidates come from two small indexes
    (by thread, and the postings of the last window), so a prolific author costs no
    more than anyone else."""
    postings: list[Posting] = []
    by_thread: dict[tuple[Any, ...], list[Posting]] = {}
    recent: dict[tuple[Any, ...], deque[Posting]] = {}
    for i in order:
        k, n, day, tid = key[i], part[i], date[i], thread[i]
        if k is None:
            postings.append(Posting([i], {n}, day, tid, len(postings)))
            continue
        # without a date only the thread can match: no window (it could not be trimmed)
        window = recent.setdefault(k, deque()) if day == day else deque()
        while window and window[0].first_date < day - POSTING_WINDOW:
            window.popleft()  # dates come in order: it can only match by thread now
        home = min((p for p in (*by_thread.get((k, tid), ()), *window)
                    if n not in p.parts
                    and (p.thread_id == tid or abs(day - p.first_date) <= POSTING_WINDOW)),
                   key=lambda p: p.seq, default=None)
        if home is None:
            home = Posting([], set(), day, tid, len(postings))
            postings.append(home)
            by_thread.setdefault((k, tid), []).append(home)
            window.append(home)
        home.rows.append(i)
        home.parts.add(n)
    return postings


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


def join_series(keys: list[str], titles: Iterable[tuple[Any, Any, int]],
                first: Sequence[Any]) -> list[str]:
    """Union of the postings that share a key, or ``SHARED_TITLES`` patch titles of one
    author (``titles``: distinct (author, title, posting) triples); each group takes the
    key of its earliest posting (the smallest ``first``)."""
    parent = list(range(len(keys)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_key: dict[str, int] = {}
    for k, key in enumerate(keys):
        union(by_key.setdefault(key, k), k)
    by_title: dict[tuple[Any, Any], list[int]] = {}
    for author, title, k in titles:
        by_title.setdefault((author, title), []).append(k)
    shared: dict[tuple[int, int], int] = {}
    for group in by_title.values():
        if 1 < len(group) <= COMMON_TITLE:
            group.sort()
            for x, a in enumerate(group):
                for b in group[x + 1:]:
                    shared[(a, b)] = shared.get((a, b), 0) + 1
    for (a, b), count in shared.items():
        if count >= SHARED_TITLES:
            union(a, b)
    earliest: dict[int, int] = {}
    for k in range(len(keys)):
        r = find(k)
        if r not in earliest or first[k] < first[earliest[r]]:
            earliest[r] = k
    return [keys[earliest[find(k)]] for k in range(len(keys))]


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
