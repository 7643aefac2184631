"""The link stage: global passes over the header columns of the whole store.

Runs after every ingest (a new message can complete an old thread) and
replaces the tables under ``<store>/link/``: ``messages`` (uid → thread_id,
parent_id, parent_uid, depth, patch_id), ``threads``, ``patches``, ``reports`` and
``claims``; ``subjects`` keeps the parse of every distinct subject, so the next pass
parses only the new ones (the workers parse each chunk's into ``subject_parses`` parts,
which the pass folds in and removes).  It works on Arrow and numpy columns (``columns`` threads,
``patch_columns`` links patches); ``reference`` is the same pass message by message.
A store of more than ``BATCH_MESSAGES`` is linked a batch of whole components at a
time (``batches``), so the pass holds about 0.4 KiB per message whatever the store's
size; a pass after an ingest re-links only what the new messages touch (``incremental``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mlx.link.batches import component_batches, message_count
from mlx.link.columns import (
    IdCodes,
    Threading,
    as_numpy,
    encode_ids,
    release,
    stamps,
    take_codes,
    thread_codes,
)
from mlx.link.incremental import (
    INDEX_GROUP,
    KEYS_GROUP,
    MessageKeys,
    Plan,
    author_hashes,
    components,
    index_table,
    link_version,
    message_keys,
    plan,
)
from mlx.link.known import Known, known_parses, write_subjects
from mlx.link.patch_columns import KIND_FACTS, link_patch_columns, patch_batches
from mlx.link.rows import PassTables, Places, Rows, old_thread_refs
from mlx.link.subject_columns import Subjects, known_subjects, parse_subjects
from mlx.linkfiles import LinkWriter
from mlx.parts import hashes
from mlx.rows import ErrorRecord
from mlx.schema import CLAIMS, FACT_COLUMNS, LINKS, MESSAGES, PATCHES, THREADS
from mlx.store import EXTRACTED, SUBJECT_PARSES, Store, Tables, errors_table

# an incremental pass re-links about this many messages per new one (2-3 measured)
RELINKED = 4
BATCH_ROWS = 200_000  # rows of the links table made and written at a time
PATCH_ROWS = 50_000  # rows of the patches table made and written at a time
# the columns of a pass's patches its claims and counts read
PATCHES_KEPT = ["uid", "patch_id", "title", "version", "is_cover", "series_id"]
# a store of more messages is linked in batches of whole components of about this many
BATCH_MESSAGES = 100_000


def link_store(path: str) -> dict[str, int]:
    """``link`` on the store at ``path``: a task an engine can run on a worker."""
    return link(Store(path))


def link(st: Store, full: bool = False) -> dict[str, int]:
    """Link the store: re-link only the messages new since the last pass and those they
    touch (``mlx.link.incremental``), or the whole store (``full``, the first pass, a
    pass with other code, a store whose parts changed, or deltas grown past
    ``COMPACT`` of it); counts for the summary."""
    with st.listed_once():
        info = st.link_info()
        planned = None if full else _incremental_plan(st, info)
        if planned is None:
            return _full(st, info)
        todo, parsed = planned
        if not todo.at:  # nothing new
            return dict(info["counts"])
        return _incremental(st, info, todo, parsed)


def _full(st: Store, info: dict[str, Any]) -> dict[str, int]:
    if len(files := st.link_files("subjects")) > 1:  # the deltas' parses kept, in the base
        stored = known_subjects([pq.read_table(p, filesystem=st.fs) for p, _ in files],
                                len(files))
        if stored is not None:
            write_subjects(st.write_link, stored)
    st.write_link_info({})  # the deltas go: until this pass ends no delta is in force
    st.clear_link_deltas()
    out = st.link_writer()
    if message_count(st) <= BATCH_MESSAGES:
        done = _pass(st, Rows(st), out, 0)
        out.close()
        done.counts["claims"], done.counts["link_errors"] = write_claims(st)
    else:
        done = _batched(st, out)
        out.close()
        _write_index(st)
    counts = done.counts
    facts = st.read("messages", MESSAGES, ["list_id"])
    lists = sorted(v for v in pc.unique(facts.column("list_id")).to_pylist() if v is not None)
    _commit(st, info, counts, lists, [], done.comps, 0, done.n)
    return counts


def _batched(st: Store, out: LinkWriter) -> Pass:
    """The full pass a batch of whole components at a time (``mlx.link.batches``): only
    one batch's messages, subjects and link tables are held at once."""
    total = Pass(0, 0, dict.fromkeys((*COUNTED, "link_errors"), 0))
    for rows, known in _batches(st):
        done = _pass(st, rows, out, total.comps, known, batch=True)
        done.counts["claims"] = _write_claims_of(st, rows, done, out)
        total = Pass(total.n + done.n, done.comps,
                     {k: total.counts[k] + done.counts[k] for k in total.counts})
        del rows, done
        release()
    return total


def _write_index(st: Store) -> None:
    """``link/index`` of the keys a batched pass wrote."""
    def columns(names: list[str]) -> pa.Table:
        table = st.read_link("keys", columns=names)
        assert table is not None
        return table
    index = index_table(columns)
    out = st.link_writer()
    out.write("index", index, row_group=INDEX_GROUP)
    out.close()


def _commit(st: Store, old: dict[str, Any], counts: dict[str, int], lists: list[str],
            gens: list[int], next_comp: int, delta_rows: int, messages: int) -> None:
    """The pass in force: ``link/info.json`` names its deltas (written last; ``old``, the
    last pass's, holds the part facts already read)."""
    rows = {"threads": counts["threads"], "patches": counts["patches"],
            "reports": counts["reports"], "claims": counts["claims"], "links": messages}
    st.write_link_info({
        "lists": len(lists), "list_ids": lists,
        # an incremental pass checked the messages parts linked before (parts_since_link)
        "parts": st.part_facts(old.get("parts"), trusted=bool(gens)),
        "link": link_version(), "gens": gens, "next_comp": next_comp,
        "delta_rows": delta_rows, "rows": rows, "counts": counts})
    for path in st.part_paths(SUBJECT_PARSES):  # folded into link/subjects
        st.fs.rm(path)


COUNTED = ("threads", "patches", "covers", "series", "reports", "claims")


@dataclass
class Pass:
    n: int  # messages linked
    comps: int  # the next component label
    counts: dict[str, int]
    # of the rows written, what their claims and the counts read (``PassTables``)
    tables: dict[str, pa.Table] = field(default_factory=dict)


def _batches(st: Store) -> Iterator[tuple[Rows, Known]]:
    """The rows of each batch of ``component_batches``, and their subjects' parses."""
    for at, parses in component_batches(st, BATCH_MESSAGES).plan():
        known = Known(parses, 0)  # its parses go when the pass has read them
        del parses
        yield Rows(st, at=at), known


def _threaded(rows: Rows) -> tuple[IdCodes, pa.Array, Threading]:
    """(the ids as codes, uid, threading) of the messages of ``rows``."""
    table = rows.read(["message_id", "thread_refs"])
    refs = table.column("thread_refs")
    if refs.null_count:
        refs = old_thread_refs(rows, table)
    codes = encode_ids(table.column("message_id"), refs)
    del table, refs  # the ids are codes now: the strings go
    table = rows.read(["uid", "date"])
    uid = table.column("uid").combine_chunks()
    return codes, uid, thread_codes(uid, table.column("date"), codes)


def _pass(st: Store, rows: Rows, out: LinkWriter, comp_base: int,
          parsed: Known | None = None, batch: bool = False) -> Pass:
    """Link the messages of ``rows`` (the whole store, or whole components of it) into
    the tables of ``out`` (the base, gen 0, or a delta; ``parsed``: the known subjects,
    when the caller read them; ``batch``: a batch of a full pass, whose caller writes
    ``link/subjects`` and ``link/index``)."""
    pre, rows.keyed = rows.keyed, None  # the plan found the keys of these very rows
    codes, uid, th = (pre.codes, pre.uid, pre.th) if pre is not None else _threaded(rows)
    rows.forget(["thread_refs"])
    known = parsed if parsed is not None else known_parses(st)
    parses, seen = (pre.subjects, pre.seen) if pre is not None else _parsed(rows, known)
    if not batch and out.gen == 0:
        if seen is not None and (seen is not known.table or st.part_paths(SUBJECT_PARSES)
                                 or not st.link_path("subject-keys")):  # (an older pass's)
            # the next pass parses only new ones
            write_subjects(st.write_link, seen)
    elif not batch:  # only what the stored parses lack
        write_subjects(out.write, known.lacking(seen))
    known.table = seen = None  # the parses go once read (the caller's ``parsed`` too)
    release()
    facts = rows.read([*FACT_COLUMNS, "from_addr"])
    from_addr = facts.column("from_addr").combine_chunks()
    linked = link_patch_columns(th, uid, parses, facts, from_addr)
    facts = facts.select(KIND_FACTS)  # what the keys read: the trailers and refs go
    rows.forget([c for c in FACT_COLUMNS if c not in KIND_FACTS])
    tables = {"patches": out.write("patches", patch_batches(
        th, uid, parses, linked.patches, linked.pid, linked.keys, PATCH_ROWS), PATCHES,
        keep=PATCHES_KEPT)}
    del linked.patches  # before the keys and components, the pass's largest arrays
    release()
    keys = pre.keys if pre is not None else \
        message_keys(codes, th, parses, facts, author_hashes(from_addr))
    del pre
    release()
    comp = components(th.n, keys, codes)
    keyed = keys.table(uid, comp_base + comp, rows.positions(),
                       _message_facts(th, uid, tables["patches"]))
    out.write("keys", keyed, row_group=KEYS_GROUP)
    if not batch:
        out.write("index", index_table(keyed.select), row_group=INDEX_GROUP)
    n_comps = int(comp.max()) + 1 if len(comp) else 0
    del facts, codes, keys, comp, keyed
    tables["messages"] = out.write("messages", _links(th, uid, linked.patch_id), LINKS)
    threads = out.write("threads", _threads_table(th, uid, parses)).num_rows
    tables["reports"] = out.write("reports", linked.reports)
    patches = tables["patches"]
    counts = {"threads": threads, "patches": patches.num_rows,
              "covers": pc.sum(patches.column("is_cover")).as_py() or 0,
              "series": pc.count_distinct(patches.column("series_id")).as_py(),
              "reports": linked.reports.num_rows}
    release()  # before the claims
    return Pass(th.n, comp_base + n_comps, counts, tables)


def _message_facts(th: Threading, uid: pa.Array, patches: pa.Table) -> pa.Table:
    """Of each message, what a later pass that re-links it voids: its thread id, and
    whether it is a patch, a cover letter, and the hash of its series_id."""
    at = pc.index_in(uid, value_set=patches.column("uid"))
    sid = pa.array(hashes(patches.column("series_id")), pa.int64(),
                   mask=as_numpy(pc.is_null(patches.column("series_id")), None, bool))
    return pa.table({"thread": th.thread_ids(uid), "patch": pc.is_valid(at),
                     "cover": pc.fill_null(patches.column("is_cover").take(at), False),
                     "sid": sid.take(at)})


def _incremental_plan(st: Store, info: dict[str, Any]) -> tuple[Plan, Known] | None:
    """What an incremental pass re-links, and the subjects known (``_known_subjects``);
    None when a full pass is due."""
    if info.get("link") != link_version() or not st.link_files("keys"):
        return None
    new_parts = st.parts_since_link(info)
    if new_parts is None:
        return None  # a part linked before is gone or changed
    if not new_parts:
        return Plan(0, {}, pa.array([], pa.string()), 0), Known(None, 0)
    names = {*info.get("parts", {}).get("messages", {}), *(p.rsplit("/", 1)[-1]
                                                          for p in new_parts)}
    for table in EXTRACTED:  # rows the claims read, of messages linked before
        old = info.get("parts", {}).get(table, {})
        if any(name not in names for name in (p.rsplit("/", 1)[-1] for p in
                                              st.part_paths(table)) if name not in old):
            return None
    # each part read once: the new ones, the stored components they touch, and more
    read = [Rows(st, at=dict.fromkeys(new_parts))]
    known = known_parses(st, RELINKED * read[0].read(["uid"]).num_rows)

    def statuses(at: Places) -> MessageKeys:
        read.append(read[-1].widened(at))
        return _keys_of(read[-1], known)[1]

    uid, keys = _keys_of(read[0], known)
    todo = plan(st, info, keys, new_parts, len(uid), statuses)
    if todo is None:
        return None
    todo.rows = read[-1].widened(todo.at)
    return todo, known


@dataclass
class Keyed:
    """What finding the keys of some rows found: a pass over the same rows starts here."""

    codes: IdCodes
    uid: pa.Array
    th: Threading
    subjects: Subjects
    seen: pa.Table | None  # the parses known and new (``_parsed``)
    keys: MessageKeys


def _parsed(rows: Rows, known: Known) -> tuple[Subjects, pa.Table | None]:
    """The subjects of ``rows`` parsed (``parse_subjects``), and the parses known of them
    and new (None when none are)."""
    subject = rows.read(["subject"]).column("subject")
    table = known.for_subjects(subject)
    parses, seen = parse_subjects(subject, table)
    return parses, seen if seen is not None else table


def _keys_of(rows: Rows, known: Known) -> tuple[pa.Array, MessageKeys]:
    """(uid, keys) of the messages of ``rows``, threaded together (kept in ``rows.keyed``)."""
    codes, uid, th = _threaded(rows)
    subjects, seen = _parsed(rows, known)
    facts = rows.read([*KIND_FACTS, "from_addr"])
    keys = message_keys(codes, th, subjects, facts, author_hashes(facts.column("from_addr")))
    rows.keyed = Keyed(codes, uid, th, subjects, seen, keys)
    return uid, keys


def _incremental(st: Store, info: dict[str, Any], todo: Plan,
                 parsed: Known) -> dict[str, int]:
    """Re-link the messages of ``todo`` into delta ``todo.gen``."""
    gen = todo.gen
    old = todo.old.to_pylist()
    stored = todo.stored
    assert stored is not None  # linked before
    old_patches = stored.filter(stored.column("patch"))
    old_reports = st.read_link("reports", uids=old, columns=["uid"])
    old_claims = st.read_link("claims", uids=old, columns=["uid"])
    rows = todo.rows
    assert rows is not None
    out = st.link_writer(gen)
    done = _pass(st, rows, out, todo.comp_base, parsed)
    tables = done.tables
    claims = _write_claims_of(st, rows, done, out)
    out.close()
    dead_threads = pc.unique(stored.column("thread").drop_null())
    st.write_dead(gen, todo.old, dead_threads, np.unique(as_numpy(stored.column("comp"))))
    before = info.get("counts", {})
    new_patches = tables["patches"]
    counts = {
        "threads": before.get("threads", 0) - len(dead_threads) + done.counts["threads"],
        "patches": before.get("patches", 0) - _rows(old_patches) + done.counts["patches"],
        "covers": before.get("covers", 0) - _sum(old_patches, "cover")
        + done.counts["covers"],
        # a series lies within one component: the old ones re-linked go, the new come
        "series": before.get("series", 0) - _distinct(old_patches, "sid")
        + _distinct(new_patches, "series_id"),
        "reports": before.get("reports", 0) - _rows(old_reports) + done.counts["reports"],
        "claims": before.get("claims", 0) - _rows(old_claims) + claims,
        "link_errors": done.counts.get("link_errors", 0)}  # of this pass
    new_lists = rows.read(["list_id"])
    lists = sorted({*info.get("list_ids", []),
                    *(v for v in pc.unique(new_lists.column("list_id")).to_pylist()
                      if v is not None)})
    messages = int(info.get("rows", {}).get("links", 0)) - len(todo.old) + done.n
    _commit(st, info, counts, lists, [*st.link_gens(), gen], done.comps,
            int(info.get("delta_rows", 0)) + done.n, messages)
    return counts


def _rows(table: pa.Table | None) -> int:
    return table.num_rows if table is not None else 0


def _sum(table: pa.Table | None, name: str) -> int:
    return (pc.sum(table.column(name)).as_py() or 0) if table is not None else 0


def _distinct(table: pa.Table | None, name: str) -> int:
    return pc.count_distinct(table.column(name)).as_py() if table is not None else 0


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


def write_claims(st: Store) -> tuple[int, int]:
    """The claims table of the whole store, from the tables just linked: stored so
    readers do not pair again (with the faults of the rules that failed)."""
    claims, faults = build_claims_table(st)
    st.write_link("claims", claims)
    st.write_link("errors", faults)
    return claims.num_rows, faults.num_rows


def _write_claims_of(st: Store, rows: Rows, done: Pass, out: LinkWriter) -> int:
    """The claims of the messages of a pass over some of them (a batch, or a delta's),
    added to ``out``; how many."""
    claims, faults = build_claims_table(st, PassTables(st, rows, done.tables))
    done.counts["link_errors"] = done.counts.get("link_errors", 0) + \
        out.write("errors", faults).num_rows
    return out.write("claims", claims).num_rows


def build_claims_table(st: Store, source: Tables | None = None) -> tuple[pa.Table, pa.Table]:
    """The claims of the store's messages (``source``: only some messages, and the link
    tables of their pass), as an Arrow table, and the ``errors`` rows of the threads a
    rule failed on (``mlx.analyse.claims.isolated_claims``)."""
    from mlx.analyse.claims import claim_frames, isolated_claims
    from mlx.archive import Archive
    claims, faults = isolated_claims(claim_frames(Archive(st.path, source)))
    errors = [ErrorRecord(None, None, 0, f.reason, stage="claims", uid=f.uid,
                          concerns=f.concerns) for f in faults]
    return frame_table(claims, CLAIMS), errors_table(errors)


def frame_table(df: Any, table_schema: pa.Schema) -> pa.Table:
    """A pandas frame as an Arrow table of the schema (NA, NaN and NaT become nulls)."""
    import pandas as pd
    cols = {}
    for f in table_schema:
        values = df[f.name].tolist() if f.name in df.columns else [None] * len(df)
        cols[f.name] = [None if (v is None or (not isinstance(v, (list, str)) and pd.isna(v)))
                        else v for v in values]
    return pa.table(cols, schema=table_schema)
