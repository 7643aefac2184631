"""Patches, series and which patch every message is about.

A message is a patch when it is no reply and carries a diff, or is a cover
letter (``0/N``, or a diffstat without a diff).  ``patch_id`` is a key of the
normalised title and the version, so a reply whose patch is not in the archive
still gets the key its patch would have.  ``series_id`` is a key of the author
and the series title (the cover's, else part 1's), the same for v1, v2, v3
whether or not they are threaded to each other; parts of one posting are
grouped by thread, author, version and total (or a one-hour window when
unthreaded), so parts are never taken for versions.
"""

from __future__ import annotations

import hashlib
import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mlx.link.subjects import Subject, looks_like_commit_title, normalize_title, parse_subject

POSTING_WINDOW = 3600.0  # seconds: parts of one unthreaded posting arrive together
REVIEW_KEYS = {"Reviewed-by", "Acked-by", "Tested-by", "Reported-by", "Suggested-by",
               "Nacked-by"}


def patch_key(title: str, version: int) -> str:
    digest = hashlib.sha1(f"{normalize_title(title)}\0{version}".encode(), usedforsecurity=False)
    return "p" + digest.hexdigest()[:15]


def series_key(author: str | None, title: str) -> str:
    digest = hashlib.sha1(f"{author or ''}\0{normalize_title(title)}".encode(),
                          usedforsecurity=False)
    return "s" + digest.hexdigest()[:15]


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


@dataclass
class Posting:
    rows: list[int]
    parts: set[int | None]
    first_date: float
    thread_id: Any = ""
    seq: int = 0  # creation order


def is_patch(subj: Subject, row: Row) -> bool:
    if subj.is_reply or subj.kind == "robot":
        return False
    return row.has_diff or subj.is_cover or (row.diffstat_files is not None and bool(
        subj.kind == "patch" or subj.prefixes))


def link_patches(rows: list[Row]) -> tuple[list[dict[str, Any]], list[str | None],
                                           list[dict[str, Any]]]:
    """(patches table rows, patch_id per message, robot report rows)."""
    subjects = [parse_subject(r.subject) for r in rows]
    patch_rows = [i for i, (s, r) in enumerate(zip(subjects, rows, strict=True)) if is_patch(s, r)]
    pid: list[str | None] = [None] * len(rows)
    for i in patch_rows:
        pid[i] = patch_key(subjects[i].title, subjects[i].version)

    def when(i: int) -> float:
        return rows[i].date if rows[i].date == rows[i].date else math.inf  # NaN last

    postings = group_postings(
        sorted(patch_rows, key=lambda i: (when(i), rows[i].uid)),
        {i: posting_key(rows[i].from_addr, subjects[i]) for i in patch_rows},
        [s.part for s in subjects], [r.date for r in rows], [r.thread_id for r in rows])
    sids, cover_of = name_series(postings, [s.part for s in subjects],
                                 [s.is_cover for s in subjects], [r.from_addr for r in rows],
                                 [s.title for s in subjects], [r.date for r in rows])
    series_of = {i: sid for post, sid in zip(postings, sids, strict=True) for i in post.rows}
    _attribute(rows, subjects, pid)
    trailers = _collect_trailers(rows, subjects, pid, patch_rows, cover_of)
    patches = [_patch_row(i, rows[i], subjects[i], pid[i], series_of[i], trailers[i])
               for i in patch_rows]
    robots = [{"uid": r.uid, "message_id": r.message_id, **robot_report(s)}
              for r, s in zip(rows, subjects, strict=True) if s.kind == "robot" and not s.is_reply]
    return patches, pid, robots


def robot_report(s: Subject) -> dict[str, Any]:
    """The columns of a kernel test robot report its subject gives."""
    return {"commit": s.robot_commit, "metric": s.robot_metric,
            "change_pct": s.robot_change_pct,
            "verdict": "regression" if (s.robot_change_pct or 0) < 0
            or "regression" in s.title.lower() else "improvement",
            "tree": s.tree, "title": s.title}


def posting_key(author: str | None, s: Subject) -> tuple[Any, ...] | None:
    """Parts of one posting share author, version, total and RFC-ness (None: no total,
    a posting of its own)."""
    return (author, s.version, s.total, s.is_rfc) if s.total else None


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


def name_series(postings: list[Posting], part: Sequence[int | None],
                is_cover: Sequence[bool], author: Sequence[str | None],
                title: Sequence[str], date: Sequence[float]
                ) -> tuple[list[str], dict[int, int]]:
    """The series key of every posting (its author and the cover's title, else part
    1's), and the cover of every other item of a posting that has one."""
    keys = []
    cover_of: dict[int, int] = {}
    for post in postings:
        ordered = sorted(post.rows, key=lambda i: (part[i] or 0, date[i] if date[i] == date[i]
                                                   else math.inf))  # unknown dates last
        covers = [i for i in ordered if is_cover[i]]
        keys.append(series_key(author[ordered[0]], title[covers[0] if covers else ordered[0]]))
        for i in post.rows:
            if covers and i != covers[0]:
                cover_of[i] = covers[0]
    return keys, cover_of


def _attribute(rows: list[Row], subjects: list[Subject], pid: list[str | None]) -> None:
    """patch_id of replies: nearest patch ancestor, else from the subject."""
    row_of = {r.uid: i for i, r in enumerate(rows)}
    by_title: dict[str, tuple[int, str]] = {}
    for i, p in enumerate(pid):
        if p is not None:
            t = normalize_title(subjects[i].title)
            if t not in by_title or subjects[i].version > by_title[t][0]:
                by_title[t] = (subjects[i].version, p)
    memo: dict[int, str | None] = {}
    for i in range(len(rows)):
        if pid[i] is None:
            pid[i] = _ancestor_patch(i, rows, row_of, pid, memo)
    for i, s in enumerate(subjects):
        if pid[i] is not None or s.kind == "robot" or not s.title:
            continue
        if s.kind == "patch":
            pid[i] = patch_key(s.title, s.version)
        elif (hit := by_title.get(normalize_title(s.title))) is not None:
            pid[i] = hit[1]  # "Re: tcp: foo" without a tag, the patch is in the archive
        elif not s.is_reply and looks_like_commit_title(s.title):
            pid[i] = patch_key(s.title, 1)  # a reply titled with the commit (seed 002)


def _ancestor_patch(i: int, rows: list[Row], row_of: dict[str, int], pid: list[str | None],
                    memo: dict[int, str | None]) -> str | None:
    path = []
    cur: int | None = i
    found: str | None = None
    seen: set[int] = set()
    while cur is not None and cur not in seen:
        if cur in memo:
            found = memo[cur]
            break
        seen.add(cur)
        if cur != i and pid[cur] is not None:
            found = pid[cur]
            break
        path.append(cur)
        up = rows[cur].parent_uid
        cur = row_of.get(up) if up else None
    for p in path:
        memo[p] = found
    return found


def _collect_trailers(rows: list[Row], subjects: list[Subject], pid: list[str | None],
                      patch_rows: list[int], cover_of: dict[int, int]
                      ) -> dict[int, list[tuple[str, str]]]:
    """Own trailers, the cover's, and review trailers from replies."""
    own = {i: list(rows[i].facts.get("trailers") or []) for i in patch_rows}
    by_pid: dict[str, list[int]] = {}
    for i in patch_rows:
        by_pid.setdefault(pid[i] or "", []).append(i)
    parts_of: dict[int, list[int]] = {}
    for part, cover in cover_of.items():
        parts_of.setdefault(cover, []).append(part)
    extra: dict[int, list[tuple[str, str]]] = {i: [] for i in patch_rows}
    for i, r in enumerate(rows):
        key = pid[i]
        if i in own or key is None:
            continue
        given = [(k, v) for k, v in (r.facts.get("trailers") or []) if k in REVIEW_KEYS]
        for target in by_pid.get(key, []):
            extra[target].extend(given)
            for part in parts_of.get(target, []):
                extra[part].extend(given)
    out = {}
    for i in patch_rows:
        merged = own[i] + (own.get(cover_of[i], []) if i in cover_of else []) + extra[i]
        out[i] = list(dict.fromkeys(merged))
    return out


def _patch_row(i: int, r: Row, s: Subject, pid: str | None, sid: str,
               trailers: list[tuple[str, str]]) -> dict[str, Any]:
    f = r.facts
    if r.has_diff:
        files, ins, dels = f.get("diff_files"), f.get("diff_insertions"), f.get("diff_deletions")
    else:
        files, ins, dels = (f.get("diffstat_files"), f.get("diffstat_insertions"),
                            f.get("diffstat_deletions"))
    return {
        "patch_id": pid, "message_id": r.message_id, "uid": r.uid, "title": s.title,
        "subsystem": s.subsystem, "subsystem_path": s.subsystem_path, "prefixes": s.prefixes,
        "tree": s.tree, "version": s.version, "version_seen": s.version_seen,
        "part": s.part, "total": s.total, "is_rfc": s.is_rfc, "is_resend": s.is_resend,
        "is_cover": s.is_cover or (not r.has_diff and r.diffstat_files is not None),
        "series_id": sid, "files_changed": files, "insertions": ins, "deletions": dels,
        "trailers": trailers, "commit_refs": list(f.get("commit_refs") or []),
        "from_addr": r.from_addr, "thread_id": r.thread_id, "date": r.date,
    }
