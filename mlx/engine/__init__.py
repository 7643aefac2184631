"""Engines run the per-chunk function; both hand results back in submission order."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mlx.ingest.chunks import Chunk, ChunkResult


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
