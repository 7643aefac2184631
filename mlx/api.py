"""The library front end: ``mlx.ingest(...)`` and ``mlx.load(store)``.

Planning is ``mlx.ingest.plan``, taking chunk results ``mlx.commit``, reading a
store ``mlx.archive``; this module ties them to an engine and the link pass.

The library never prints or exits; it raises ``MlxError`` subclasses for
unusable input and reports progress through a callback.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial

from mlx.archive import HEADERS, LINK_COLUMNS, Archive
from mlx.commit import Taker, error_keys
from mlx.engine import Engine, local
from mlx.engine import dask as dask_engine
from mlx.errors import MlxError
from mlx.ingest import fetch
from mlx.ingest.plan import Pending, Planner
from mlx.ingest.sources import Source, discover
from mlx.ingest.summary import IngestReport
from mlx.link import link_store
from mlx.pipeline import EXTRACTOR_NAMES, Sink, run_chunk, warm_up
from mlx.rows import ErrorRecord
from mlx.store import ERRORS, Store, errors_table

__all__ = ["HEADERS", "LINK_COLUMNS", "Archive", "IngestReport", "ingest", "load"]
log = logging.getLogger(__name__)


@contextlib.contextmanager
def _strict(on: bool) -> Iterator[None]:
    """``MLX_STRICT=1`` for the run (local workers inherit the environment)."""
    if not on:
        yield
        return
    before = os.environ.get("MLX_STRICT")
    os.environ["MLX_STRICT"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["MLX_STRICT"]
        else:
            os.environ["MLX_STRICT"] = before


def ingest(paths: list[str] | str, store: str = "mlx-store", workers: int | None = None,
           engine: str = "local", progress: Callable[[int], None] | None = None,
           extract: tuple[str, ...] | bool = EXTRACTOR_NAMES,
           scheduler: str | None = None, strict: bool = False, cache: str | None = None,
           lore: str = fetch.LORE) -> IngestReport:
    """Ingest archives into ``store``; only what is new is added.

    ``extract`` names the per-message extractors to run ("results", "hardware",
    "statements"); ``False`` or ``()`` keeps messages, threads and patches only.

    ``engine="dask"`` runs the chunks on a dask.distributed cluster: the one at
    ``scheduler`` (an address such as ``tcp://10.0.0.1:8786``), or a LocalCluster.

    ``paths`` may be URLs and ids (``mlx.ingest.fetch``): an ``http(s)://`` mbox or
    ``.mbox.gz``, a public-inbox epoch ``https://HOST/LIST/N`` (a mirror in ``cache``,
    fetched incrementally), ``https://HOST/LIST/`` (every epoch), ``mid:MESSAGE-ID``
    (its thread from ``lore``).  They are fetched before the store is touched.

    ``strict=True`` (or ``MLX_STRICT=1`` in the environment, which workers on other
    machines need) stops at the first defect with ``DefectError`` instead of recording
    it: for tests and debugging.

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
    # pandas and the extractors' patterns load while git fetches (on the local engine:
    # its processes fork from this one)
    warm = warm_up(extractors) if engine == "local" else None
    with fetch.localized(list(paths), store, cache, lore, progress=progress is not None
                         and sys.stderr.isatty()) as local_paths:
        return _ingest(local_paths, list(paths), store, workers, engine, progress, extractors,
                       scheduler, strict, started, warm)


def _ingest(paths: list[str], given: list[str], store: str, workers: int | None, engine: str,
            progress: Callable[[int], None] | None, extractors: tuple[str, ...],
            scheduler: str | None, strict: bool, started: float,
            warm: threading.Thread | None) -> IngestReport:
    sources, skipped = discover(list(paths))
    st = Store(store, create=True)
    n_workers = workers or local.default_workers()
    if (n_workers > 1 or engine == "dask") and "memory" in st.fs.protocol:
        raise MlxError(f"{store}: a memory:// store lives in one process; use --workers 1 "
                       f"with the local engine")
    with st.locked(), _strict(strict):
        report = IngestReport(store=store, sources=len(sources), skipped_files=skipped)
        _run(st, sources, report, eng=(dask_engine.DaskEngine(n_workers, scheduler)
                                       if engine == "dask" else local.LocalEngine(n_workers, warm)),
             extractors=extractors, progress=progress)
        report.elapsed = time.perf_counter() - started
        st.manifest.setdefault("runs", []).append({
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "paths": given,
            "raw": report.raw, "stored": report.stored, "errors": report.errors,
            "duplicates": report.duplicates, "already": report.already})
        st.save_manifest()
    return report


def _run(st: Store, sources: list[Source], report: IngestReport, eng: Engine,
         extractors: tuple[str, ...], progress: Callable[[int], None] | None) -> None:
    """Chunks on the engine's workers, taken in order by the driver; then the link pass."""
    old_errors = error_keys(st.read("errors", ERRORS))
    st.recover()  # what a crashed run left half done
    pending: deque[Pending] = deque()
    planner = Planner(sources, st.manifest, report, pending)
    taker = Taker(st, st.stored_uids, old_errors, report)
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
                if progress is not None and hasattr(progress, "stage"):
                    progress.stage("link")  # type: ignore[attr-defined]
                report.linked = _link(st, eng, where)
                report.link_elapsed = time.perf_counter() - linking
                st.manifest["link_pending"] = "link_failed" in report.linked
    finally:
        st.clear_staging()  # after the engine stopped: no task still writes there


def _link(st: Store, eng: Engine, where: str) -> dict[str, int]:
    """The link pass on a worker (the driver stays small).  A pass that fails as a whole
    (a fault no thread's isolation caught) keeps the messages: an ``errors`` row of stage
    ``link`` says why, and the next ingest links again.  ``MLX_STRICT=1`` raises, and
    so does a worker out of memory (the machine's limit, not a fault of the data)."""
    try:
        return dict(eng.call(link_store, where))
    except Exception as exc:  # noqa: BLE001 - the messages stored stay stored
        if os.environ.get("MLX_STRICT") == "1" or isinstance(exc, MemoryError):
            raise
        log.warning("the link pass failed", exc_info=True)
        reason = f"{type(exc).__name__}: {exc}"[:300]
        st.write_link("errors", errors_table([ErrorRecord(
            None, None, 0, reason, stage="link", concerns="the whole link pass")]))
        return {"link_errors": 1, "link_failed": 1}


def load(store: str = "mlx-store") -> Archive:
    """Open a store; raises ``StoreError`` when ``store`` is not one."""
    return Archive(store)
