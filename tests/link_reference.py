"""The link stage message by message: the readable reference for ``mlx.link`` (a test oracle).

Python objects per message (a ``Row``, a parsed ``Subject``, dicts of nodes), so its
memory grows by kilobytes per message; ``mlx.link`` computes the same tables on
integer-coded columns.  ``tests/test_link_columns.py`` and ``benchmarks/link.py`` check
that the two give identical tables.
"""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.patches import Row, link_patches
from mlx.link.threads import ThreadInput, ThreadOutput, header_thread_refs, thread
from mlx.schema import FACT_COLUMNS, LINKS, MESSAGES, PATCHES, REPORTS, THREADS
from mlx.store import Store

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
