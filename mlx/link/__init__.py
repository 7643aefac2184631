"""The link stage: global passes over the header columns of the whole store.

Runs after every ingest (a new message can complete an old thread) and
replaces the tables under ``<store>/link/``: ``messages`` (uid → thread_id,
parent_id, parent_uid, depth, patch_id), ``threads``, ``patches``, ``reports``.
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.patches import Row, link_patches
from mlx.link.threads import ThreadInput, ThreadOutput, header_thread_refs, thread
from mlx.schema import CLAIMS, FACT_COLUMNS, LINKS, MESSAGES, PATCHES, REPORTS, THREADS
from mlx.store import Store

HEADER_COLUMNS = ["uid", "message_id", "date", "subject", "from_addr", "thread_refs", "list_id",
                  *FACT_COLUMNS]
LINK_FACTS = [c for c in FACT_COLUMNS if c != "has_diff"]  # what a patch row reports

def _stamp(sec: float) -> Any:
    import datetime as dt
    if sec != sec or math.isinf(sec):
        return None
    return dt.datetime.fromtimestamp(sec, dt.timezone.utc)


def link_store(path: str) -> dict[str, int]:
    """``link`` on the store at ``path``: a task an engine can run on a worker."""
    return link(Store(path))


def link(st: Store) -> dict[str, int]:
    """Recompute threads and patches for the whole store; counts for the summary."""
    table = st.read("messages", MESSAGES, HEADER_COLUMNS)
    # POSIX seconds, NaN when unknown (without making a datetime per message)
    dates = pc.divide(table.column("date").cast(pa.int64()).cast(pa.float64()), 1e6)
    dates = pc.fill_null(dates, math.nan).to_pylist()
    cols = {c: table.column(c).to_pylist() for c in ("uid", "message_id", "subject",
                                                      "from_addr", "thread_refs", "has_diff",
                                                      "diffstat_files")}
    facts = _facts(table)
    lists = pc.count_distinct(table.column("list_id")).as_py()
    del table
    n = len(cols["uid"])
    if None in cols["thread_refs"]:
        _old_thread_refs(st, cols)
    out = thread(ThreadInput(cols["uid"], cols["message_id"], dates, cols["thread_refs"]))
    rows = [Row(uid=cols["uid"][i], message_id=cols["message_id"][i],
                subject=cols["subject"][i], from_addr=cols["from_addr"][i], date=dates[i],
                thread_id=out.thread_id[i], parent_uid=out.parent_uid[i],
                has_diff=bool(cols["has_diff"][i]), diffstat_files=cols["diffstat_files"][i],
                facts=facts.get(i, {}))
            for i in range(n)]
    patches, pid, robots = link_patches(rows)
    st.write_link("messages", pa.table({
        "uid": cols["uid"], "thread_id": out.thread_id, "parent_id": out.parent_id,
        "parent_uid": out.parent_uid, "depth": out.depth, "patch_id": pid}, schema=LINKS))
    st.write_link("threads", _threads_table(out, cols, dates))
    for p in patches:
        p["date"] = _stamp(p["date"])
        p["trailers"] = [{"key": k, "value": v} for k, v in p["trailers"]]
    st.write_link("patches", pa.Table.from_pylist(patches, schema=PATCHES))
    st.write_link("reports", pa.Table.from_pylist(robots, schema=REPORTS))
    claims = write_claims(st)
    st.write_link_info({"lists": lists})
    return {"threads": len(out.threads), "patches": len(patches), "claims": claims,
            "covers": sum(1 for p in patches if p["is_cover"]),
            "series": len({p["series_id"] for p in patches}), "reports": len(robots)}


def write_claims(st: Store) -> int:
    """The claims table, from the tables just linked: stored so readers do not pair again."""
    from mlx.analyse.claims import build_claims
    from mlx.archive import Archive
    claims = build_claims(Archive(st.path))
    st.write_link("claims", frame_table(claims, CLAIMS))
    return len(claims)


def frame_table(df: Any, table_schema: pa.Schema) -> pa.Table:
    """A pandas frame as an Arrow table of the schema (NA, NaN and NaT become nulls)."""
    import pandas as pd
    cols = {}
    for f in table_schema:
        values = df[f.name].tolist() if f.name in df.columns else [None] * len(df)
        cols[f.name] = [None if (v is None or (not isinstance(v, (list, str)) and pd.isna(v)))
                        else v for v in values]
    return pa.table(cols, schema=table_schema)


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
    """Patch facts of the rows that have any (a diff, a diffstat, trailers), by row."""
    trailers = pc.fill_null(pc.list_value_length(table.column("trailers")), 0)
    has = pc.or_(pc.or_(pc.fill_null(table.column("has_diff"), False),
                        pc.greater(trailers, 0)),
                 pc.is_valid(table.column("diffstat_files")))
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
