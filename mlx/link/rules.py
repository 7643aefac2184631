"""The link pass's rules for patches and series, each a function that reads as the rule.

The columnar pass (``mlx.link.patch_columns``) applies these to its keys and groups:
a patch's key (``patch_key``, ``posting_key``), a series' (``series_key``), which parts
make one posting (``group_postings``, within ``POSTING_WINDOW`` or one thread), which
postings are one series (``join_series``: a key, or ``SHARED_TITLES`` titles of one
author), reposts, robots and a trailer's address.  What the rules are, in words:
Patches, series and which patch every message is about.

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

import hashlib
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mlx.subjects import Subject, normalize_title

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


@dataclass
class Posting:
    rows: list[int]
    parts: set[int | None]
    first_date: float
    thread_id: Any = ""
    seq: int = 0  # creation order


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
