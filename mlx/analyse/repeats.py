"""Claims repeated across the postings of a series, folded to one.

A table re-posted in v2 to v6 of a series gives the same claim five times.  A claim
*repeats* an earlier one when its series (the patch title, else its thread), kind,
test, metric, side, configuration and both values are the same; a prose claim when
its series and sentence are (whitespace aside).  Three columns say so:

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


def fold(claims: pd.DataFrame) -> pd.DataFrame:
    """``claims`` with ``claim_id``, ``repeat_of`` and ``versions``; rows and their order
    unchanged."""
    out = claims.copy()
    if out.empty:
        for col in ("claim_id", "repeat_of", "versions"):
            out[col] = pd.Series(dtype=object)
        return out
    out["claim_id"] = _claim_ids(out)
    keys = [_key(r) for r in out.itertuples(index=False)]
    order = sorted(range(len(out)), key=lambda i: (_when(out.date.iat[i]), i))
    first: dict[Any, int] = {}
    versions: dict[Any, set[int]] = {}
    for i in order:
        first.setdefault(keys[i], i)
        v = out.version.iat[i]
        if not _missing(v):
            versions.setdefault(keys[i], set()).add(int(v))
    ids = out.claim_id.tolist()
    out["repeat_of"] = pd.Series([ids[first[k]] if first[k] != i else None
                                  for i, k in enumerate(keys)], index=out.index, dtype=object)
    out["versions"] = pd.Series([",".join(map(str, sorted(versions[k]))) if k in versions
                                 else None for k in keys], index=out.index, dtype=object)
    return out


def version_span(versions: Any) -> str:
    """``"2,3,4,6"`` as ``v2-v4,v6``; "" when no version is known."""
    if _missing(versions) or not versions:
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
        name = str(mid) if not _missing(mid) else f"uid:{uid}"
        seen[name] = seen.get(name, 0) + 1
        out.append(f"{name}#{seen[name]}")
    return out


def _key(r: Any) -> tuple[Any, ...]:
    """What a claim claims, and of which series: equal keys are one claim."""
    title = r.title if not _missing(r.title) else None
    series = ("title", SPACE.sub(" ", title).strip().lower()) if title is not None else (
        ("thread", r.thread_id) if not _missing(r.thread_id) else ("claim", r.message_id, r.uid))
    if r.kind == "prose":
        statement = SPACE.sub(" ", r.statement).strip() if isinstance(r.statement, str) else None
        return (series, r.kind, statement, _value(r.stated_pct))
    return (series, r.kind, *(_value(getattr(r, c)) for c in SAME))


def _value(v: Any) -> Any:
    """A cell as a key: NA as None, floats to 9 significant digits."""
    if _missing(v):
        return None
    return float(f"{v:.9g}") if isinstance(v, float) else v


def _when(date: Any) -> tuple[int, Any]:
    return (1, 0) if _missing(date) else (0, pd.Timestamp(date).value)


def _missing(v: Any) -> bool:
    return v is None or (not isinstance(v, (str, list, tuple)) and bool(pd.isna(v)))
