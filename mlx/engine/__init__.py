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

from mlx.ingest.chunks import Chunk, ChunkResult

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
            yield done, fut.result()
    while window:
        done, fut = window.popleft()
        yield done, fut.result()
