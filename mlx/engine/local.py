"""Local engine: run chunks in-process (1 worker) or on a process pool.

Results come back in submission order with at most ``2 * workers`` chunks in
flight (``mlx.engine.in_order``, shared with the Dask engine).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

from mlx.engine import in_order
from mlx.ingest.chunks import Chunk, ChunkResult


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def run(chunks: Iterable[Chunk], workers: int,
        fn: Callable[[Chunk], ChunkResult]) -> Iterator[tuple[Chunk, ChunkResult]]:
    """``fn`` (picklable: a partial of ``run_chunk``) over every chunk, in order."""
    if workers <= 1:
        for chunk in chunks:
            yield chunk, fn(chunk)
        return
    # fork: no re-import of the caller's __main__ (scripts without a main guard,
    # notebooks) and no start-up cost; spawn where fork does not exist
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        yield from in_order(chunks, lambda chunk: pool.submit(fn, chunk), 2 * workers)
