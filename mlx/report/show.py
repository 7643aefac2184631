"""``mlx show TEXT``: one patch in the terminal (or as JSON for scripts).

TEXT is a ``patch_id``, a Message-ID (``mid:`` and ``<...>`` optional: the patch that
message is or discusses) or a piece of a patch title.  For each patch found: its
versions (the postings of its series), its claims as a small aligned table, the result
lines they come from with line numbers, the setup hardware and the size of its thread.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from mlx.analyse.repeats import missing, version_span
from mlx.errors import MlxError

MAX_PATCHES = 5  # a title piece matching more shows the newest of them


def _plain(v: Any) -> Any:
    if missing(v):
        return None
    if isinstance(v, pd.Timestamp):
        return v.isoformat()
    if hasattr(v, "item"):
        return v.item()
    return v


def find(archive: Any, text: str) -> list[str]:
    """The patch_ids TEXT names (newest first)."""
    t = text.strip()
    t = t[len("mid:"):] if t.startswith("mid:") else t
    t = t.strip().strip("<>")
    if not t:
        raise MlxError("mlx show needs a patch title, patch_id or Message-ID")
    patches = archive.patches
    if (patches.patch_id == t).any():
        return [t]
    headers = archive.headers
    hit = headers[headers.message_id == t]
    if len(hit):
        pid = hit.patch_id.dropna()
        if not len(pid):
            raise MlxError(f"{t}: that message is about no patch")
        return [str(pid.iloc[0])]
    claims = archive.claims
    if (claims.patch_id == t).any():
        return [t]  # a patch only its replies name
    by_title = patches[patches.title.fillna("").str.contains(t, case=False, regex=False)]
    if by_title.empty:
        named = claims[claims.title.fillna("").str.contains(t, case=False, regex=False)]
        if named.empty:
            raise MlxError(f"no patch matches {text!r} (a title piece, patch_id or Message-ID)")
        return list(dict.fromkeys(named.sort_values("date", ascending=False).patch_id.dropna()))
    order = by_title.sort_values("date", ascending=False, na_position="last")
    return list(dict.fromkeys(order.patch_id.dropna()))


def describe(archive: Any, pid: str) -> dict[str, Any]:
    """Everything ``show`` prints of one patch, as plain values."""
    patches, claims, threads = archive.patches, archive.claims, archive.threads
    me = patches[patches.patch_id == pid]
    mine = claims[claims.patch_id == pid]
    first = me.iloc[0] if len(me) else None
    title = first.title if first is not None else (mine.title.iloc[0] if len(mine) else None)
    versions = []
    if first is not None:
        series = patches[patches.series_id == first.series_id]
        heads = series[series.patch_id == series.posting_id].sort_values("date")
        versions = [{"version": _plain(r.version), "date": _plain(r.date),
                     "title": r.title, "posting_id": r.posting_id,
                     "message_id": r.message_id, "this": bool(r.posting_id == first.posting_id)}
                    for r in heads.itertuples()]
    thread_size = None
    if first is not None:
        t = threads[threads.thread_id == first.thread_id]
        thread_size = int(t.n_messages.iloc[0]) if len(t) else None
    rows = []
    for r in mine.itertuples():
        rows.append({k: _plain(getattr(r, k)) for k in (
            "kind", "tool", "test", "metric", "side", "section", "config", "baseline_label",
            "baseline_value", "patched_label", "patched_value", "unit_norm", "delta_pct",
            "verdict", "statement", "stated_pct", "message_id", "author", "date",
            "baseline_line_no", "baseline_line", "patched_line_no", "patched_line",
            "claim_id", "repeat_of", "versions") if hasattr(r, k)})
    hardware = sorted({h for h in mine.hardware.dropna() if h})
    return {"patch_id": pid, "title": title,
            "version": _plain(first.version) if first is not None else None,
            "author": first.from_addr if first is not None else None,
            "date": _plain(first.date) if first is not None else None,
            "message_id": first.message_id if first is not None else None,
            "in_archive": first is not None, "thread_size": thread_size,
            "versions": versions, "claims": rows, "hardware": hardware}


def _num(v: Any) -> str:
    if v is None:
        return ""
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,.2f}"


def text(d: dict[str, Any]) -> str:
    """The terminal rendering of ``describe``."""
    out = [f"{d['title']}", f"  patch_id {d['patch_id']}"
           + (f", v{d['version']} by {d['author']} on {(d['date'] or '')[:10]}, "
              f"Message-ID {d['message_id']}" if d["in_archive"] else
              " (not in the archive: named by its replies)")]
    if d["thread_size"] is not None:
        out.append(f"  thread: {d['thread_size']} messages")
    if d["versions"]:
        out.append("versions:")
        for v in d["versions"]:
            mark = "  <- this one" if v["this"] else ""
            out.append(f"  v{v['version']}  {(v['date'] or '')[:10]}  {v['title']}  "
                       f"<{v['message_id']}>{mark}")
    claims = d["claims"]
    if not claims:
        out.append("claims: none")
    else:
        out.append(f"claims ({len(claims)}):")
        table = []
        for c in claims:
            what = " / ".join(str(c[k]) for k in ("test", "metric", "side", "section", "config")
                              if c[k])
            if c["kind"] == "measured":
                pair = (f"{c['baseline_label'] or 'baseline'} {_num(c['baseline_value'])} -> "
                        f"{c['patched_label'] or 'patched'} {_num(c['patched_value'])} "
                        f"{c['unit_norm'] or ''}")
                delta = f"{c['delta_pct']:+.1f}%" if c["delta_pct"] is not None else ""
            else:
                pair = f"\"{c['statement'] or ''}\""
                delta = f"{c['stated_pct']:+.1f}%" if c["stated_pct"] is not None else ""
            span = version_span(c.get("versions"))
            kind = f"{c['kind']} {span}" if "," in span or "-" in span else c["kind"]
            table.append((kind, what, pair, delta, c["verdict"] or ""))
        widths = [min(max(len(row[i]) for row in table), 70) for i in range(5)]
        for row in table:
            out.append("  " + "  ".join(cell[:70].ljust(w) for cell, w in zip(row, widths,
                                                                            strict=True)))
        lines = [(c, side) for c in claims for side in ("baseline", "patched")
                 if c["kind"] == "measured" and c[f"{side}_line_no"] is not None]
        if lines:
            out.append("from the lines:")
            for c, side in lines:
                out.append(f"  <{c['message_id']}> line {c[f'{side}_line_no']}: "
                           f"{(c[f'{side}_line'] or '').strip()}")
    out.append("setup hardware: " + ("; ".join(d["hardware"]) if d["hardware"] else "none named"))
    return "\n".join(out)


def show(archive: Any, query: str, as_json: bool = False) -> str:
    pids = find(archive, query)
    described = [describe(archive, p) for p in pids[:MAX_PATCHES]]
    if as_json:
        return json.dumps(described if len(pids) > 1 else described[0], indent=2,
                          ensure_ascii=False, default=str)
    parts = [text(d) for d in described]
    if len(pids) > MAX_PATCHES:
        parts.append(f"... and {len(pids) - MAX_PATCHES} more patches match {query!r}; "
                     f"give more of the title, a patch_id or a Message-ID")
    return "\n\n".join(parts)


def claim_text(r: Any) -> str:
    """One claim as a line: ``TCP_STREAM send-512 (tx): Before 5,120.40 -> After 5,098.12
    Mbit/s (-0.4%) no-change``, or a prose claim's sentence, the size it states and its
    verdict."""
    if r.kind == "measured":
        said = r.verdict if isinstance(r.verdict, str) else "no verdict"
        return (f"{claim_label(r)}: {r.baseline_label} {r.baseline_value:,.2f} -> "
                f"{r.patched_label} {r.patched_value:,.2f} {r.unit_norm or ''} "
                f"({r.delta_pct:+.1f}%) {said}")
    # (the size a sentence states; its verdict says which way)
    pct = f" (stated {abs(r.stated_pct):.1f}%)" if isinstance(r.stated_pct, float) and \
        r.stated_pct == r.stated_pct else ""
    said = f" {r.verdict}" if isinstance(r.verdict, str) else ""
    return f"[{r.kind}] {r.statement}{pct}{said}"


def claim_label(r: Any, section: bool = True) -> str:
    """What was measured, in short: the test (else the tool; for values read from prose
    or a hand-typed table, the metric), the configuration, the side in parentheses and
    the section."""
    def word(x: Any) -> str | None:
        return x.strip() if isinstance(x, str) and x.strip() else None
    tool = word(r.tool) if r.tool not in ("inline", "table") else None
    name = " ".join(t for t in (word(r.test) or tool or word(r.metric),
                                word(getattr(r, "config", None))) if t) or "result"
    side = word(r.side)
    heading = word(r.section) if section else None
    return name + (f" ({side})" if side else "") + (f" / {heading}" if heading else "")
