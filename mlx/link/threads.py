"""Reply threading over the header columns of the whole store.

Parent = In-Reply-To when it holds one well-formed id, else the last
References id (the rule notmuch uses).  A parent missing from the archive
becomes a *ghost* node whose own parent comes from the References chain, so a
reply still joins the thread of its other references; a thread whose root is
missing gets a ghost root.  Duplicate Message-IDs stay separate messages
(replies attach to the earliest).  Reference loops are cut.  The result does
not depend on the order of the input: ties are broken by (date, uid).
Linear time with dicts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# An old git-send-email asked "Message-ID to be used as In-Reply-To?" and
# people answered "y": In-Reply-To: <y>
JUNK_IDS = {"y", "n", "yes", "no"}
GHOST = "ghost:"
NO_DATE = float("inf")


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


def _clean(ids: Sequence[str], own: str | None, addrs: set[str]) -> list[str]:
    """Ids worth following: not the message itself, no address, no "<y>"."""
    return [i for i in ids
            if i != own and i.lower() not in JUNK_IDS and i.lower() not in addrs
            and not re.search(r"\s", i)]


def choose_parent(irt: Sequence[str], refs: Sequence[str], own: str | None,
                  addrs: set[str]) -> str | None:
    irt_ids = _clean(irt, own, addrs)
    if len(irt_ids) == 1:
        return irt_ids[0]
    ref_ids = _clean(refs, own, addrs)
    if ref_ids:
        return ref_ids[-1]
    return irt_ids[0] if irt_ids else None


def thread_refs(irt: Sequence[str], refs: Sequence[str], own: str | None,
                addrs: set[str]) -> list[str]:
    """The ids threading follows, oldest first, the chosen parent last.

    Computed per message by the workers at ingest (the ``thread_refs`` column),
    so the global pass reads one short list per message.
    """
    p = choose_parent(irt, refs, own, addrs)
    chain = _clean(refs, own, addrs)
    return chain if not p or (chain and chain[-1] == p) else chain + [p]


def header_thread_refs(message_id: str | None, from_addr: str | None,
                       to: Sequence[str] | None, cc: Sequence[str] | None,
                       in_reply_to: Sequence[str] | None,
                       references: Sequence[str] | None) -> list[str]:
    """``thread_refs`` from a message's header values (From/To/Cc are no ids)."""
    addrs = {a.lower() for a in (from_addr, *(to or ()), *(cc or ())) if a}
    return thread_refs(in_reply_to or [], references or [], message_id, addrs)


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
