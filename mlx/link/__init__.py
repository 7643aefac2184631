"""The link stage: global passes over the header columns of the whole store.

Runs after every ingest (a new message can complete an old thread) and
replaces the tables under ``<store>/link/``: ``messages`` (uid → thread_id,
parent_id, parent_uid, depth, patch_id), ``threads``, ``patches``, ``reports`` and
``claims``; ``subjects`` keeps the parse of every distinct subject, so the next pass
parses only the new ones (the workers parse each chunk's into ``subject_parses`` parts,
which the pass folds in and removes).  It works on Arrow and numpy columns (``columns`` threads,
``patch_columns`` links patches), reading a few columns at a time, so its memory is
a few hundred bytes per message; ``reference`` is the same pass message by message.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mlx.link.columns import Threading, encode_ids, stamps, take_codes, thread_codes
from mlx.link.patch_columns import (
    known_subjects,
    link_patch_columns,
    parse_subjects,
    patch_batches,
)
from mlx.link.threads import header_thread_refs
from mlx.schema import CLAIMS, FACT_COLUMNS, LINKS, MESSAGES, PATCHES, THREADS
from mlx.store import SUBJECT_PARSES, Store

BATCH_ROWS = 200_000  # rows of the links table made and written at a time
PATCH_ROWS = 50_000  # rows of the patches table made and written at a time


def link_store(path: str) -> dict[str, int]:
    """``link`` on the store at ``path``: a task an engine can run on a worker."""
    return link(Store(path))


def link(st: Store) -> dict[str, int]:
    """Recompute threads and patches for the whole store; counts for the summary."""
    table = st.read("messages", MESSAGES, ["message_id", "thread_refs"])
    refs = table.column("thread_refs")
    if refs.null_count:
        refs = _old_thread_refs(st, table)
    codes = encode_ids(table.column("message_id"), refs)
    del table, refs  # the ids are codes now: the strings go
    table = st.read("messages", MESSAGES, ["uid", "date"])
    uid = table.column("uid").combine_chunks()
    th = thread_codes(uid, table.column("date"), codes)
    del table, codes
    # the subjects the workers parsed, folded into the last pass's: only the subjects of
    # messages stored before (or by another parser) are parsed here.  A chunk whose
    # messages were all stored before (or that crashed) adds subjects no message has: a
    # cache keyed by the subject's text, so they are only never looked up
    staged = st.part_paths(SUBJECT_PARSES)
    last = st.read_link("subjects")
    known = known_subjects([*([last] if last is not None else []),
                            *(st.read_part(p) for p in staged)])
    subjects, seen = parse_subjects(st.read("messages", MESSAGES, ["subject"]).column("subject"),
                                    known)
    if seen is not None or staged:
        # the next pass parses only the subjects new since
        st.write_link("subjects", seen if seen is not None else known)
    for path in staged:
        st.fs.rm(path)
    del seen, known, last
    facts = st.read("messages", MESSAGES, [*FACT_COLUMNS, "from_addr", "list_id"])
    lists = pc.count_distinct(facts.column("list_id")).as_py()
    from_addr = facts.column("from_addr").combine_chunks()
    linked = link_patch_columns(th, uid, subjects, facts, from_addr)
    del facts, from_addr
    st.write_link_batches("patches", PATCHES, patch_batches(
        th, uid, subjects, linked.patches, linked.pid, linked.keys, PATCH_ROWS))
    del linked.patches
    st.write_link_batches("messages", LINKS, _links(th, uid, linked.patch_id))
    threads = _threads_table(th, uid, subjects)
    st.write_link("threads", threads)
    st.write_link("reports", linked.reports)
    patches = st.read_link("patches", columns=["is_cover", "series_id"])
    assert patches is not None  # just written
    counts = {"threads": threads.num_rows, "patches": patches.num_rows,
              "covers": pc.sum(patches.column("is_cover")).as_py() or 0,
              "series": pc.count_distinct(patches.column("series_id")).as_py(),
              "reports": linked.reports.num_rows}
    del th, subjects, linked, threads, patches, uid
    counts["claims"] = write_claims(st)
    st.write_link_info({"lists": lists, "parts": st.part_facts(st.link_info().get("parts"))})
    return counts


def _links(th: Threading, uid: pa.Array, patch_id: pa.Array) -> Any:
    """The links table in batches of rows."""
    for start in range(0, th.n, BATCH_ROWS):
        rows = slice(start, start + BATCH_ROWS)
        yield pa.record_batch({
            "uid": uid.slice(start, BATCH_ROWS),
            "thread_id": th.thread_ids(uid, rows), "parent_id": th.parent_ids(rows),
            "parent_uid": th.parent_uids(uid, rows), "depth": pa.array(th.depth[rows], pa.int64()),
            "patch_id": patch_id.slice(start, BATCH_ROWS)}, schema=LINKS)


def _threads_table(th: Threading, uid: pa.Array, subjects: Any) -> pa.Table:
    """One row per thread, in the order of their first messages."""
    n = th.n
    order = np.lexsort((np.arange(n), th.root))
    by_root = th.root[order]
    starts = np.flatnonzero(np.concatenate(([True], by_root[1:] != by_root[:-1]))) \
        if n else np.zeros(0, dtype=np.int64)
    roots = by_root[starts]
    sizes = np.diff(np.concatenate((starts, [n])))
    dates = th.dates[order]
    first = np.minimum.reduceat(dates, starts) if n else dates
    known = np.where(dates == th.dates.dtype.type(np.iinfo(np.int64).max),
                     np.iinfo(np.int64).min, dates)
    last = np.maximum.reduceat(known, starts) if n else dates
    last = np.where(last == np.iinfo(np.int64).min, np.iinfo(np.int64).max, last)
    # the subject: the root's, else the earliest message's (shallowest on a tie)
    by_date = np.lexsort((np.arange(n), th.depth, th.dates, th.root))
    subject_row = np.where(roots < n, roots, by_date[starts])
    code = subjects.code[subject_row]
    root_code = np.where(roots < n, th.mid_code[np.minimum(roots, max(n - 1, 0))], roots - n)
    ghosts, ghost_counts = np.unique(th.ghost_roots, return_counts=True)
    at = np.searchsorted(ghosts, roots)
    hit = (at < len(ghosts)) & (ghosts[np.minimum(at, max(len(ghosts) - 1, 0))] == roots) \
        if len(ghosts) else np.zeros(len(roots), dtype=bool)
    n_ghosts = np.where(hit, ghost_counts[np.minimum(at, max(len(ghosts) - 1, 0))]
                        if len(ghosts) else 0, 0)
    place = np.argsort(order[starts], kind="stable")  # threads by their first member
    date_type = THREADS.field("first_date").type
    table = pa.table({
        "thread_id": th.node_names(uid, roots), "root_id": take_codes(th.ids, root_code),
        "subject": take_codes(subjects.text, np.where(code < len(subjects.text), code, -1)),
        "n_messages": pa.array(sizes), "first_date": stamps(first, date_type),
        "last_date": stamps(last, date_type), "n_ghosts": pa.array(n_ghosts)})
    return table.take(pa.array(place)).cast(THREADS)


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


def _old_thread_refs(st: Store, table: pa.Table) -> pa.ChunkedArray:
    """``thread_refs``, from their headers for messages stored before the column existed."""
    old = st.read("messages", MESSAGES, ["from_addr", "to", "cc", "in_reply_to",
                                         "references"]).to_pydict()
    mids = table.column("message_id").to_pylist()
    refs = table.column("thread_refs").to_pylist()
    for i, r in enumerate(refs):
        if r is None:
            refs[i] = header_thread_refs(mids[i], old["from_addr"][i], old["to"][i],
                                         old["cc"][i], old["in_reply_to"][i],
                                         old["references"][i])
    return pa.chunked_array([pa.array(refs, pa.list_(pa.string()))])
