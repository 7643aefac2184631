"""The per-chunk work: read a chunk, run the extractors, stage the tables.

``run_chunk`` is the one function every engine runs (in-process, a local
process pool, Dask): chunk in, Parquet parts staged in the store and a small
summary out (uids, defects, error records, counts).  Message bodies never pass
through the driver; it dedups across chunks and moves the parts into place.

An extractor is one entry of ``EXTRACTORS``: a name (what ``mlx ingest
--extract`` takes), the table its rows go to, that table's schema and a pure
function from a body (and its subject) to rows whose field names are the table's
columns.
"""

from __future__ import annotations

import gc
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pyarrow as pa

from mlx import memory
from mlx.extract import nlp
from mlx.extract.hardware import extract_hardware
from mlx.extract.patches import patch_facts
from mlx.extract.results import extract_results
from mlx.extract.statements import extract_statements
from mlx.ingest.chunks import Chunk, ReadStats, read_chunk
from mlx.ingest.defects import strict
from mlx.link.subject_columns import subject_parses
from mlx.link.threads import header_thread_refs
from mlx.rows import ErrorRecord, MessageRecord
from mlx.store import (
    HARDWARE,
    RESULTS,
    STATEMENTS,
    SUBJECT_PARSES,
    messages_table,
    rows_table,
    stage,
)


@dataclass(frozen=True)
class Extractor:
    """One per-message extractor: body in, rows of one table out."""

    name: str
    table: str
    schema: pa.Schema
    fn: Callable[[str | None, str | None], list[Any]]  # (body, subject) -> rows


EXTRACTORS: dict[str, Extractor] = {e.name: e for e in (
    Extractor("results", "results", RESULTS, extract_results),
    Extractor("hardware", "hardware", HARDWARE, extract_hardware),
    Extractor("statements", "statements", STATEMENTS, extract_statements),
)}
EXTRACTOR_NAMES = tuple(EXTRACTORS)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Sink:
    """Where workers stage their parts: the store's path or URL and the run."""

    store: str
    run: str


@dataclass
class ChunkResult:
    """What one chunk gave: staged parts, and what the driver needs to dedup and count."""

    parts: dict[str, str] = field(default_factory=dict)  # table -> staged path
    uids: list[str] = field(default_factory=list)  # of the staged messages, in order
    defects: dict[str, list[str]] = field(default_factory=dict)  # uid -> codes, when any
    errors: list[ErrorRecord] = field(default_factory=list)
    raw: int = 0  # raw messages split (messages + errors, before dedup)
    copies: list[str] = field(default_factory=list)  # uids of copies dropped in the chunk
    deleted: int = 0  # public-inbox deletions skipped
    bytes: int = 0


def run_chunk(chunk: Chunk, sink: Sink,
              extract: tuple[str, ...] = EXTRACTOR_NAMES) -> ChunkResult:
    """Parse every message of one chunk, run the ``extract``-ors named on its bodies
    and stage the tables in the store of ``sink``."""
    res = ChunkResult()
    stats = ReadStats()
    records: list[MessageRecord] = []
    seen: set[str] = set()
    for item in read_chunk(chunk, stats):
        res.raw += 1
        if isinstance(item, ErrorRecord):
            res.errors.append(item)
        elif item.uid in seen:
            res.copies.append(item.uid)  # first copy wins, as in a serial run
        else:
            seen.add(item.uid)
            records.append(item)
    res.bytes, res.deleted = stats.bytes, stats.deleted
    rows: dict[str, list[list[Any]]] = {name: [] for name in EXTRACTORS}
    with nlp.zone():  # in a grown worker, the strings this chunk adds to spaCy's Vocab go
        for n, r in enumerate(records):  # message by message: the extractors share its read
            for ex in EXTRACTORS.values():
                got = _extracted(ex, r) if ex.name in extract else []
                if got is None:  # recorded on the message, kept with its other rows
                    if "extract-failed" not in r.defects:
                        records[n] = r = replace(r, defects=[*r.defects, "extract-failed"])
                    got = []
                rows[ex.name].append(got)
    res.uids = [r.uid for r in records]
    res.defects = {r.uid: list(r.defects) for r in records if r.defects}
    tables = {"messages": messages_table(
        records, [patch_facts(r.body) for r in records],
        [header_thread_refs(r.message_id, r.from_addr, r.to, r.cc, r.in_reply_to, r.references)
         for r in records],
        {f"n_{ex.table}": [len(got) for got in rows[ex.name]] for ex in EXTRACTORS.values()})}
    for ex in EXTRACTORS.values():
        tables[ex.table] = rows_table(ex.schema, records, rows[ex.name])
    tables[SUBJECT_PARSES] = subject_parses(r.subject for r in records)  # the link's, here
    res.parts = stage(sink.store, sink.run, tables)
    _settle()
    return res


def _extracted(ex: Extractor, r: MessageRecord) -> list[Any] | None:
    """The rows of one extractor for one message; None where it raised (a bug: logged, and
    in strict mode raised, but one body never stops a run)."""
    try:
        return ex.fn(r.body, r.subject)
    except Exception:  # noqa: BLE001 - one body must never stop a run
        if strict():
            raise
        log.warning("%s extractor failed on %s", ex.name, r.message_id, exc_info=True)
        return None


def warm_up(extract: tuple[str, ...]) -> threading.Thread:
    """Load on a thread what the run loads on first use (pandas for the link stage's
    claims, 0.3 s; spaCy and the statements and hardware pipelines, ``mlx.extract.nlp``)
    while the driver waits on git or plans; processes forked once it has finished start
    with it loaded.  A process must not fork while the thread runs (the child would
    inherit its import lock, held): the local engine joins it before its first fork."""
    thread = threading.Thread(target=_warm, args=(extract,), name="mlx-warm-up", daemon=True)
    thread.start()
    return thread


# a message the warm-up reads, so that what the extractors build on first use (the
# gazetteer's tables, lexeme flags, compiled rules) is built once, before the fork
WARM_SUBJECT = "[PATCH net-next] net: foo: batch the tx path"
WARM_BODY = ("Tested on an Intel Xeon Gold 6338 with a ConnectX-5 NIC, 64GB RAM, kernel 6.12.\n"
             "\nThis improves throughput by 7%.\n")


def _warm(extract: tuple[str, ...]) -> None:
    try:
        import pandas  # noqa: F401
        if "statements" in extract:  # (builds the effect matcher)
            extract_statements(WARM_BODY, WARM_SUBJECT)
        if "hardware" in extract:
            nlp.hardware()
            extract_hardware(WARM_BODY, WARM_SUBJECT)  # its tables built on first use
    except Exception:  # noqa: BLE001 - the run's own first use raises it where it is used
        log.debug("warm-up failed", exc_info=True)


_WORKER = False  # set in the local engine's worker processes (``mark_worker``)
_SETTLED = False


def mark_worker() -> None:
    """The local engine's pool initializer: this process runs chunks and nothing else."""
    global _WORKER
    _WORKER = True
    memory.system_arrow_pool()


def _settle() -> None:
    """After a worker's first chunk: what the extractors built then (their tokenizers'
    caches and patterns, the automata, the imported modules) lives as long as the process, so
    ``gc.freeze()`` keeps the cyclic collector from walking it on every full collection
    (some 0.7 s of CPU per 40,000 messages).  Only in the local engine's workers: a
    caller's own process (a notebook ingesting in-process, a user's own Pool worker)
    keeps its collector as it was."""
    global _SETTLED
    if _WORKER and not _SETTLED:
        _SETTLED = True
        gc.collect()  # what the first chunk left in cycles, before the rest is frozen
        gc.freeze()
    if _WORKER:
        memory.trim()  # glibc keeps the pages a chunk's bodies freed: give them back
