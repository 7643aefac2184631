"""Engines run the per-chunk function, and the link pass, somewhere other than the driver.

An engine is a context manager with two methods:

- ``map(fn, chunks)`` yields ``(chunk, fn(chunk))`` in submission order, with a
  bounded number of chunks in flight;
- ``call(fn, *args)`` runs one task (the link pass) on a worker and returns its
  result, so the driver's memory does not grow with the archive.

``local.LocalEngine`` runs them in-process (1 worker) or on a process pool,
``dask.DaskEngine`` on a dask.distributed cluster; both give the same tables.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from mlx.errors import MlxError
from mlx.ingest.chunks import Chunk, GitRange, MboxRange, RawBatch
from mlx.pipeline import ChunkResult

T = TypeVar("T")


class Engine(Protocol):
    def __enter__(self) -> Engine: ...

    def __exit__(self, *exc: object) -> None: ...

    def map(self, fn: Callable[[Chunk], ChunkResult],
            chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, ChunkResult]]: ...

    def call(self, fn: Callable[..., T], *args: Any) -> T: ...


def in_order(chunks: Iterable[Chunk], submit: Callable[[Chunk], Any],
             width: int) -> Iterator[tuple[Chunk, ChunkResult]]:
    """Submit chunks, yield (chunk, result) in submission order, ``width`` in flight.

    In order, so the first of two duplicates is the one kept, as in a serial run;
    bounded, so the driver's memory does not grow with the chunk stream.
    ``submit`` returns a future with ``.result()`` (concurrent.futures or dask).
    """
    window: deque[tuple[Chunk, Any]] = deque()
    for chunk in chunks:
        window.append((chunk, submit(chunk)))
        if len(window) >= width:
            done, fut = window.popleft()
            yield done, result(done, fut, window)
    while window:
        done, fut = window.popleft()
        yield done, result(done, fut, window)


def result(chunk: Chunk, fut: Any, others: deque[tuple[Chunk, Any]]) -> Any:
    """``fut.result()``; a worker that died (killed for memory, a crash) is one clear
    error naming the chunk it ran (dask) or every chunk in flight (a broken process
    pool fails them all); any other exception gets the chunk as a note."""
    try:
        return fut.result()
    except Exception as exc:
        if died(exc):
            suspects = [chunk]
            if type(exc).__name__ == "BrokenProcessPool":
                suspects += [c for c, f in others if not (f.done() and not f.cancelled()
                                                          and f.exception() is None)]
            named = describe(chunk) if len(suspects) == 1 else "one of " + "; ".join(
                describe(c) for c in suspects)
            raise MlxError(f"a worker process died with {named} in flight "
                           f"({type(exc).__name__}: out of memory?); what was read before "
                           f"it is stored: run the same command again to go on") from exc
        if hasattr(exc, "add_note"):
            exc.add_note(f"while reading {describe(chunk)}")
        raise


def died(exc: BaseException) -> bool:
    """A worker process was lost (concurrent.futures or dask.distributed)."""
    return type(exc).__name__ in ("BrokenProcessPool", "KilledWorker")


def task_result(fut: Any) -> Any:
    """``fut.result()`` of a single task (the link pass): a dead worker is one clear error."""
    try:
        return fut.result()
    except Exception as exc:
        if died(exc):
            raise MlxError(f"the worker running the link pass died ({type(exc).__name__}: out "
                           f"of memory? it needs about 1 KiB per stored message); the "
                           f"messages are stored: run the same command again to link "
                           f"them") from exc
        raise


def describe(chunk: Chunk) -> str:
    if isinstance(chunk, MboxRange):
        return f"{chunk.path} bytes {chunk.start}-{chunk.end}"
    if isinstance(chunk, RawBatch):
        where = f" from offset {chunk.items[0].offset}" if chunk.items else ""
        return f"{chunk.path} ({len(chunk.items)} messages{where})"
    if isinstance(chunk, GitRange):
        return f"{chunk.repo} commits {chunk.commits[0][:12]}..{chunk.commits[-1][:12]}"
    return f"{len(chunk.files)} files from {chunk.files[0][0]}"
