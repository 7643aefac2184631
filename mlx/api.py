"""The library front end: ``mlx.ingest(...)`` and ``mlx.load(store)``.

The library never prints or exits; it raises ``MlxError`` subclasses for
unusable input and reports progress through a callback.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mlx.engine import Engine, local
from mlx.engine import dask as dask_engine
from mlx.errors import MlxError
from mlx.ingest import gitinbox
from mlx.ingest.chunks import (
    BATCH_MESSAGES,
    FILES_PER_GROUP,
    Chunk,
    FileGroup,
    GitRange,
    RawBatch,
    plan_mbox,
    split_stream,
)
from mlx.ingest.parse import ErrorRecord
from mlx.ingest.sources import Source, discover
from mlx.ingest.split import RawMessage
from mlx.link import LINKS, PATCHES, REPORTS, THREADS, link_store
from mlx.pipeline import EXTRACTOR_NAMES, ChunkResult, Sink, run_chunk
from mlx.store import (
    ERRORS,
    HARDWARE,
    MESSAGES,
    RESULTS,
    STATEMENTS,
    TRAILER,
    Store,
    errors_table,
)

if TYPE_CHECKING:  # pandas is imported on first use: workers and the CLI start faster
    import pandas as pd

LINK_COLUMNS = ("thread_id", "parent_id", "depth", "patch_id")
HEADERS = ["uid", "message_id", "date", "from_name", "from_addr", "subject", "list_id", "source",
           "offset", "defects"]


@dataclass
class IngestReport:
    """Counts of one ingest run. ``raw == stored + errors + duplicates + already``."""

    store: str
    sources: int = 0
    unchanged: int = 0  # sources skipped: nothing new since the last run
    skipped_files: list[str] = field(default_factory=list)
    raw: int = 0
    stored: int = 0
    errors: int = 0
    duplicates: int = 0  # byte-identical copies within this run
    already: int = 0  # already in the store from an earlier run
    deleted: int = 0  # public-inbox deletions
    defects: Counter[str] = field(default_factory=Counter)
    linked: dict[str, int] = field(default_factory=dict)  # threads, patches, series ...
    elapsed: float = 0.0
    link_elapsed: float = 0.0  # of ``elapsed``: the link pass over the whole store

    @property
    def rate(self) -> float:
        return self.raw / self.elapsed if self.elapsed else 0.0

    @property
    def balanced(self) -> bool:
        return self.raw == self.stored + self.errors + self.duplicates + self.already


@dataclass
class _Pending:
    """Manifest entries to save once the chunk they ride on is stored."""

    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def _file_fingerprint(path: str, head_len: int = 65536) -> dict[str, Any]:
    """Size, mtime and a hash of the first ``head_len`` bytes of a file."""
    st = os.stat(path)
    with open(path, "rb") as fh:
        head = fh.read(head_len)
    return {"size": st.st_size, "mtime": st.st_mtime, "head_len": len(head),
            "head": hashlib.sha1(head, usedforsecurity=False).hexdigest()}


def _tail_hash(path: str, end: int) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, end - 4096))
        return hashlib.sha1(fh.read(min(end, 4096)), usedforsecurity=False).hexdigest()


class _Planner:
    """Turns sources into chunks, skipping what the manifest says is stored."""

    def __init__(self, sources: list[Source], manifest: dict[str, Any], report: IngestReport,
                 pending: deque[_Pending]) -> None:
        self.sources = sources
        self.seen = manifest.setdefault("sources", {})
        self.report = report
        self.pending = pending

    def _yield(self, chunk: Chunk, entries: list[tuple[str, dict[str, Any]]]) -> Chunk:
        self.pending.append(_Pending(entries))
        return chunk

    def chunks(self) -> Iterator[Chunk]:
        files: list[tuple[str, str]] = []
        entries: list[tuple[str, dict[str, Any]]] = []
        for src in self.sources:
            if src.kind in ("eml", "text"):
                fp = _file_fingerprint(src.path)
                old = self.seen.get(src.path)
                if old and all(old.get(k) == fp[k] for k in ("size", "mtime", "head")):
                    self.report.unchanged += 1
                    continue
                files.append((src.path, src.kind))
                entries.append((src.path, {"kind": src.kind, **fp}))
                if len(files) >= FILES_PER_GROUP:
                    yield self._yield(FileGroup(files), entries)
                    files, entries = [], []
            elif src.kind == "git":
                yield from self._git(src)
            elif src.compression:
                yield from self._stream(src)
            else:
                yield from self._mbox(src)
        if files:
            yield self._yield(FileGroup(files), entries)

    def _mbox(self, src: Source) -> Iterator[Chunk]:
        old = self.seen.get(src.path) or {}
        fp = _file_fingerprint(src.path, old.get("head_len", 65536))
        start = 0
        if old.get("head") == fp["head"] and old.get("done"):
            if old.get("size") == fp["size"]:
                self.report.unchanged += 1
                return
            if fp["size"] > old["done"] and _tail_hash(src.path, old["done"]) == old.get("tail"):
                start = old["done"]  # the file grew: read only what is new
        ranges = plan_mbox(src, start)
        entry = {"kind": "mbox", **_file_fingerprint(src.path), "done": fp["size"],
                 "tail": _tail_hash(src.path, fp["size"])}
        for i, rng in enumerate(ranges):
            yield self._yield(rng, [(src.path, entry)] if i == len(ranges) - 1 else [])

    def _stream(self, src: Source) -> Iterator[Chunk]:
        fp = _file_fingerprint(src.path)
        old = self.seen.get(src.path) or {}
        if all(old.get(k) == fp[k] for k in ("size", "head")):
            self.report.unchanged += 1
            return
        entry = {"kind": "mbox", "compression": src.compression, **fp}
        batch: list[RawMessage] = []
        errors: list[ErrorRecord] = []
        size = 0
        for item in split_stream(src):
            if isinstance(item, ErrorRecord):
                errors.append(item)
                continue
            batch.append(item)
            size += item.length
            if len(batch) >= BATCH_MESSAGES or size > (8 << 20):
                yield self._yield(RawBatch(src.path, batch, errors), [])
                batch, errors, size = [], [], 0
        yield self._yield(RawBatch(src.path, batch, errors), [(src.path, entry)])

    def _git(self, src: Source) -> Iterator[Chunk]:
        old = self.seen.get(src.path) or {}
        since = old.get("last_commit")
        if since and not gitinbox.rev_exists(src.path, since):
            since = None
        commits = gitinbox.rev_list(src.path, since)
        if not commits:
            self.report.unchanged += 1
            return
        entry = {"kind": "git", "last_commit": commits[-1]}
        for i in range(0, len(commits), BATCH_MESSAGES):
            last = i + BATCH_MESSAGES >= len(commits)
            yield self._yield(GitRange(src.path, commits[i:i + BATCH_MESSAGES]),
                              [(src.path, entry)] if last else [])


def ingest(paths: list[str] | str, store: str = "mlx-store", workers: int | None = None,
           engine: str = "local", progress: Callable[[int], None] | None = None,
           extract: tuple[str, ...] | bool = EXTRACTOR_NAMES,
           scheduler: str | None = None) -> IngestReport:
    """Ingest archives into ``store``; only what is new is added.

    ``extract`` names the per-message extractors to run ("results", "hardware",
    "statements"); ``False`` or ``()`` keeps messages, threads and patches only.

    ``engine="dask"`` runs the chunks on a dask.distributed cluster: the one at
    ``scheduler`` (an address such as ``tcp://10.0.0.1:8786``), or a LocalCluster.

    Raises ``MlxError`` before touching the store when an input is unusable.
    """
    if isinstance(paths, str):
        paths = [paths]
    if not paths:
        raise MlxError("no archive given; pass one or more mbox files, Maildirs, "
                       ".eml files or public-inbox epochs")
    if engine not in ("local", "dask"):
        raise MlxError(f"unknown engine {engine!r}; use --engine local or --engine dask")
    if engine == "dask":
        dask_engine.check_installed()  # fail before any work when dask is missing
    extractors = EXTRACTOR_NAMES if extract is True else tuple(extract or ())
    unknown = set(extractors) - set(EXTRACTOR_NAMES)
    if unknown:
        raise MlxError(f"unknown extractor {sorted(unknown)[0]!r}; "
                       f"use {', '.join(EXTRACTOR_NAMES)}")
    started = time.perf_counter()
    sources, skipped = discover(list(paths))
    st = Store(store, create=True)
    n_workers = workers or local.default_workers()
    if (n_workers > 1 or engine == "dask") and "memory" in st.fs.protocol:
        raise MlxError(f"{store}: a memory:// store lives in one process; use --workers 1 "
                       f"with the local engine")
    with st.locked():
        report = IngestReport(store=store, sources=len(sources), skipped_files=skipped)
        _run(st, sources, report, eng=(dask_engine.DaskEngine(n_workers, scheduler)
                                       if engine == "dask" else local.LocalEngine(n_workers)),
             extractors=extractors, progress=progress)
        report.elapsed = time.perf_counter() - started
        st.manifest.setdefault("runs", []).append({
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "paths": list(paths),
            "raw": report.raw, "stored": report.stored, "errors": report.errors,
            "duplicates": report.duplicates, "already": report.already})
        st.save_manifest()
    return report


def _run(st: Store, sources: list[Source], report: IngestReport, eng: Engine,
         extractors: tuple[str, ...], progress: Callable[[int], None] | None) -> None:
    """Chunks on the engine's workers, taken in order by the driver; then the link pass."""
    uids = st.stored_uids()
    old_errors = _error_keys(st.read("errors", ERRORS))
    st.recover()  # what a crashed run left half done
    pending: deque[_Pending] = deque()
    planner = _Planner(sources, st.manifest, report, pending)
    taker = _Taker(st, uids, old_errors, report)
    # workers on other machines would resolve a relative path (or ~) on their own
    where = st.path if "://" in st.path else st.root
    fn = partial(run_chunk, sink=Sink(where, st.run), extract=extractors)
    try:
        with eng:
            for _chunk, res in eng.map(fn, planner.chunks()):
                taker.take(res)
                taker.settle(pending.popleft().entries)
                if progress:
                    progress(res.raw)
            taker.flush()
            if st.manifest.get("link_pending") or st.read_link("messages") is None:
                st.save_manifest()  # the link task opens the store by its manifest
                linking = time.perf_counter()
                report.linked = eng.call(link_store, where)  # on a worker: the driver stays small
                report.link_elapsed = time.perf_counter() - linking
                st.manifest["link_pending"] = False
    finally:
        st.clear_staging()  # after the engine stopped: no task still writes there


def _error_keys(table: pa.Table) -> set[tuple[Any, ...]]:
    return set(zip(table.column("source").to_pylist(), table.column("offset").to_pylist(),
                   table.column("commit").to_pylist(), strict=True))


class _Taker:
    """Takes chunk results in order: dedups across chunks, moves staged parts into place.

    Only uids, defect codes and error records reach the driver, so its memory
    does not grow with the bodies; a staged part is rewritten only when it holds
    a message stored before (an earlier chunk or run), else it is renamed.
    """

    def __init__(self, st: Store, uids: set[str], old_errors: set[tuple[Any, ...]],
                 report: IngestReport) -> None:
        self.st = st
        self.uids = uids  # stored before this run, and taken in it
        self.run_uids: set[str] = set()
        self.old_errors = old_errors
        self.errors: list[ErrorRecord] = []
        self.report = report

    def take(self, res: ChunkResult) -> None:
        report = self.report
        report.raw += res.raw
        report.deleted += res.deleted
        for err in res.errors:
            if (err.source, err.offset, err.commit) in self.old_errors:
                report.already += 1
            else:
                self.old_errors.add((err.source, err.offset, err.commit))
                self.errors.append(err)
                report.errors += 1
        kept = []
        for uid in res.uids:
            if uid in self.uids:
                self._repeat(uid)
            else:
                kept.append(uid)
        self.uids.update(kept)
        self.run_uids.update(kept)
        report.stored += len(kept)
        for uid in kept:
            report.defects.update(res.defects.get(uid, ()))
        for uid in res.copies:  # dropped by the worker: a copy of a message before it
            self._repeat(uid)
        if res.parts:
            if kept and not self.st.manifest.get("link_pending"):
                # saved before the first part lands: a run that dies after it re-links
                self.st.manifest["link_pending"] = True
                self.st.save_manifest()
            keep = None if len(kept) == len(res.uids) else pa.array(kept, pa.string())
            self.st.take(res.parts, keep)

    def _repeat(self, uid: str) -> None:
        """Count a message not stored again: a copy of one from this run, or an older one."""
        if uid in self.run_uids:
            self.report.duplicates += 1
        else:
            self.report.already += 1

    def settle(self, entries: list[tuple[str, dict[str, Any]]]) -> None:
        """Record sources whose every chunk is taken, once their error rows are written."""
        if entries:
            self.flush()
            self.st.manifest["sources"].update(entries)
            self.st.save_manifest()

    def flush(self) -> None:
        if self.errors:
            self.st.write("errors", errors_table(self.errors))
            self.errors = []


class Archive:
    """The tables of a store as pandas DataFrames (read on first use)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.store = Store(path)
        self._cache: dict[str, pd.DataFrame] = {}

    def __repr__(self) -> str:
        return f"Archive({self.path!r})"

    @property
    def messages(self) -> pd.DataFrame:
        """One row per stored message, with its thread and patch."""
        if "messages" not in self._cache:
            self._cache["messages"] = self._messages(None)
        return self._cache["messages"]

    @property
    def headers(self) -> pd.DataFrame:
        """``messages`` without bodies, address lists and references: what the claims
        and ``mlx info`` read, small enough for a store of millions of messages."""
        if "headers" not in self._cache:
            self._cache["headers"] = (self._cache["messages"][HEADERS + list(LINK_COLUMNS)]
                                      if "messages" in self._cache else self._messages(HEADERS))
        return self._cache["headers"]

    def _messages(self, columns: list[str] | None) -> pd.DataFrame:
        import pandas as pd
        df = _to_pandas(self.store.read("messages", MESSAGES, columns))
        links = self._link_table("messages", LINKS)
        if len(links):
            df = df.merge(links, on="uid", how="left")
        for col in LINK_COLUMNS:
            if col not in df.columns:
                df[col] = pd.Series(pd.NA, index=df.index,
                                    dtype="Int64" if col == "depth" else "string")
        return df

    def _link_table(self, name: str, schema: pa.Schema) -> pd.DataFrame:
        """A table of the link stage, read once (cached under "link:<name>")."""
        key = f"link:{name}"
        if key not in self._cache:
            table = self.store.read_link(name)
            self._cache[key] = _to_pandas(table if table is not None else schema.empty_table())
        return self._cache[key]

    @property
    def threads(self) -> pd.DataFrame:
        """thread_id, root_id, subject, n_messages, first_date, last_date, n_ghosts."""
        return self._link_table("threads", THREADS)

    @property
    def patches(self) -> pd.DataFrame:
        """One row per patch posting (cover letters included)."""
        return self._link_table("patches", PATCHES)

    def _extracted(self, name: str, schema: pa.Schema) -> pd.DataFrame:
        """An extracted table with the patch_id of the message each row came from."""
        if name not in self._cache:
            df = _to_pandas(self.store.read(name, schema))
            patch = self._link_table("messages", LINKS)[["uid", "patch_id"]]
            df = df.merge(patch, on="uid", how="left")
            cols = list(df.columns)
            cols.insert(2, cols.pop(cols.index("patch_id")))
            self._cache[name] = df[cols]
        return self._cache[name]

    @property
    def results(self) -> pd.DataFrame:
        """One row per measured value (iperf3, iperf2, netperf, summary lines, prose)."""
        return self._extracted("results", RESULTS)

    @property
    def hardware(self) -> pd.DataFrame:
        """One row per stated hardware fact: host, kind, text, value (memory in MiB)."""
        return self._extracted("hardware", HARDWARE)

    @property
    def statements(self) -> pd.DataFrame:
        """Effects stated in words, and rows of kernel test robot comparison tables."""
        return self._extracted("statements", STATEMENTS)

    def claims_table(self, noise_pct: float = 1.0) -> pd.DataFrame:
        """Claims with a chosen noise threshold (percent); ``.claims`` uses 1%."""
        from mlx.analyse.claims import build_claims
        return build_claims(self, noise_pct)

    @property
    def claims(self) -> pd.DataFrame:
        """Baseline/patched pairs per patch, stated effects and robot reports."""
        if "claims" not in self._cache:
            self._cache["claims"] = self.claims_table()
        return self._cache["claims"]

    def plot_patch(self, patch: str) -> Any:
        """Baseline vs patched bars per test of a patch (patch_id or title substring)."""
        from mlx.report import plots
        return plots.patch_bars(self.claims, patch)

    def plot_deltas(self) -> Any:
        from mlx.report import plots
        return plots.delta_histogram(self.claims)

    def plot_over_time(self) -> Any:
        from mlx.report import plots
        return plots.claims_over_time(self.claims)

    def plot_hardware(self) -> Any:
        from mlx.report import plots
        return plots.hardware_mix(self.hardware)

    @property
    def reports(self) -> pd.DataFrame:
        """Kernel test robot reports: commit, metric, change_pct, verdict."""
        return self._link_table("reports", REPORTS)

    @property
    def errors(self) -> pd.DataFrame:
        if "errors" not in self._cache:
            self._cache["errors"] = _to_pandas(self.store.read("errors", ERRORS))
        return self._cache["errors"]


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    import pandas as pd
    df = table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
    for f in table.schema:
        if f.type == pa.list_(TRAILER):  # (key, value) pairs, as the contract says
            df[f.name] = [[(t["key"], t["value"]) for t in v] if v is not None else []
                          for v in df[f.name]]
        elif pa.types.is_list(f.type):
            df[f.name] = [list(v) if v is not None else [] for v in df[f.name]]
    return df


def load(store: str = "mlx-store") -> Archive:
    """Open a store; raises ``StoreError`` when ``store`` is not one."""
    return Archive(store)
