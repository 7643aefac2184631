"""Claims repeated across the postings of a series, folded to one.

A table re-posted in v2 to v6 of a series gives the same claim five times.  A claim
*repeats* an earlier one when its series, kind, test, metric, side, configuration and
both values are the same; a prose claim when its series and sentence are (whitespace
aside).  Claims are of one series when their patches share a title or a ``series_id``
(a sentence of the cover letter copied into each patch of a posting; a series whose v1
the link pass put in a series of its own), or when their author posts the same claim
under both (a series renamed between versions), else when they share a thread.  Three
columns say so:

- ``claim_id``: ``<Message-ID>#<n>``, the n-th claim of its message (a key that reads);
- ``repeat_of``: the ``claim_id`` of the first posting's claim (by date), NA for it;
- ``versions``: every version that carries the claim, as ``"2,3,4,5,6"``.

``version_span("2,3,4,6")`` is how the CLI and the report print them: ``v2-v4,v6``.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

# what makes two measured (or robot) claims one, besides their series and kind
SAME = ("tool", "test", "metric", "side", "stream", "statistic", "config", "unit_norm",
        "baseline_value", "patched_value")
SPACE = re.compile(r"\s+")


def fold(claims: pd.DataFrame, series_of: dict[Any, Any] | None = None) -> pd.DataFrame:
    """``claims`` with ``claim_id``, ``repeat_of`` and ``versions``; rows and their order
    unchanged.  ``series_of``: the ``series_id`` of each ``patch_id`` (the patches
    table's)."""
    out = claims.copy()
    if out.empty:
        for col in ("claim_id", "repeat_of", "versions"):
            out[col] = pd.Series(dtype=object)
        return out
    out["claim_id"] = _claim_ids(out)
    series = _series(out, series_of or {})
    keys = [_key(r, s) for r, s in zip(out.itertuples(index=False), series, strict=True)]
    order = sorted(range(len(out)), key=lambda i: (_when(out.date.iat[i]), i))
    first: dict[Any, int] = {}
    versions: dict[Any, set[int]] = {}
    for i in order:
        first.setdefault(keys[i], i)
        v = out.version.iat[i]
        if not missing(v):
            versions.setdefault(keys[i], set()).add(int(v))
    ids = out.claim_id.tolist()
    out["repeat_of"] = pd.Series([ids[first[k]] if first[k] != i else None
                                  for i, k in enumerate(keys)], index=out.index, dtype=object)
    out["versions"] = pd.Series([",".join(map(str, sorted(versions[k]))) if k in versions
                                 else None for k in keys], index=out.index, dtype=object)
    return out


def version_span(versions: Any) -> str:
    """``"2,3,4,6"`` as ``v2-v4,v6``; "" when no version is known."""
    if missing(versions) or not versions:
        return ""
    nums = sorted({int(v) for v in str(versions).split(",")})
    runs: list[list[int]] = []
    for n in nums:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ",".join(f"v{r[0]}" if len(r) == 1 else f"v{r[0]}-v{r[-1]}" for r in runs)


def _claim_ids(claims: pd.DataFrame) -> list[str]:
    """``<Message-ID>#<n>``: the n-th claim (1-based, in table order) of its message."""
    seen: dict[str, int] = {}
    out = []
    for mid, uid in zip(claims.message_id, claims.uid, strict=True):
        name = str(mid) if not missing(mid) else f"uid:{uid}"
        seen[name] = seen.get(name, 0) + 1
        out.append(f"{name}#{seen[name]}")
    return out


def _series(claims: pd.DataFrame, series_of: dict[Any, Any]) -> list[Any]:
    """The series of each claim: one per group of titles and series ids that share a
    claim (union-find), else the claim's thread, else the claim alone."""
    parent: dict[Any, Any] = {}

    def root(x: Any) -> Any:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    nodes = []
    pids = claims.patch_id if "patch_id" in claims.columns else [None] * len(claims)
    for title, pid in zip(claims.title, pids, strict=True):
        mine = ([("title", SPACE.sub(" ", title).strip().lower())] if isinstance(title, str)
                else []) + ([("series", series_of[pid])] if not missing(pid) and
                            not missing(series_of.get(pid)) else [])
        for other in mine[1:]:
            parent[root(other)] = root(mine[0])
        nodes.append(mine[0] if mine else None)
    # a series renamed between versions ("... when snat change sport" -> "... after SNAT
    # port rewrite"): its author posts the very same claim under both titles
    seen: dict[Any, Any] = {}
    authors = claims.author if "author" in claims.columns else [None] * len(claims)
    for node, author, r in zip(nodes, authors, claims.itertuples(index=False), strict=True):
        if node is None or missing(author):
            continue
        what = _key(r, None)
        if r.kind != "prose" and (what[-1] is None or what[-2] is None):
            continue  # (a claim without both values tells no measurement apart)
        first = seen.setdefault((author, what), node)
        if first != node:
            parent[root(node)] = root(first)
    return [root(n) if n is not None else (("thread", t) if not missing(t) else ("claim", c))
            for n, t, c in zip(nodes, claims.thread_id, claims.claim_id, strict=True)]


def _key(r: Any, series: Any) -> tuple[Any, ...]:
    """What a claim claims, and of which series: equal keys are one claim."""
    if r.kind == "prose":
        statement = SPACE.sub(" ", r.statement).strip() if isinstance(r.statement, str) else None
        return (series, r.kind, statement, _value(r.stated_pct))
    return (series, r.kind, *(_value(getattr(r, c)) for c in SAME))


def _value(v: Any) -> Any:
    """A cell as a key: NA as None, floats to 9 significant digits."""
    if missing(v):
        return None
    return float(f"{v:.9g}") if isinstance(v, float) else v


def _when(date: Any) -> tuple[int, Any]:
    return (1, 0) if missing(date) else (0, pd.Timestamp(date).value)


def missing(value: Any) -> bool:
    """None, NaN, NA or NaT (a list or a string is never missing): a cell of a claim."""
    return value is None or (not isinstance(value, (list, tuple, str)) and bool(pd.isna(value)))
