"""The threading rule: which id is a message's parent, and the ids it threads by.

``mlx.link.columns`` threads the whole store on these ids (the per-message pass that
states the rule step by step is the test oracle, ``tests/link_reference.py``).
Parent = In-Reply-To when it holds one well-formed id, else the last
References id (the rule notmuch uses).  A parent missing from the archive
becomes a *ghost* node whose own parent comes from the References chain, so a
reply still joins the thread of its other references; a thread whose root is
missing gets a ghost root.  Duplicate Message-IDs stay separate messages
(replies attach to the earliest).  Reference loops are cut.  The result does
not depend on the order of the input: ties are broken by (date, uid).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# An old git-send-email asked "Message-ID to be used as In-Reply-To?" and
# people answered "y": In-Reply-To: <y>
JUNK_IDS = {"y", "n", "yes", "no"}
GHOST = "ghost:"
NO_DATE = float("inf")


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
