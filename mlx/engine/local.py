"""Local engine: run chunks in-process (1 worker) or on a process pool.

Results come back in submission order with at most ``2 * workers`` chunks in
flight (``mlx.engine.in_order``, shared with the Dask engine).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from mlx import memory
from mlx.engine import in_order, task_result
from mlx.ingest.chunks import Chunk
from mlx.pipeline import ChunkResult, mark_worker

T = TypeVar("T")


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


class LocalEngine:
    """``workers`` processes forked from the driver; none (in-process) for one worker.

    ``warm`` (``mlx.pipeline.warm_up``'s thread) is joined before the first task is
    submitted, when the pool forks its processes: they start with what it built."""

    def __init__(self, workers: int, warm: threading.Thread | None = None) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None
        self.warm = warm
        self.forked = False
        self.ctx: Any = None  # the pool's multiprocessing context
        self.released = False  # call() let the workers go

    def __enter__(self) -> LocalEngine:
        if self.workers > 1:
            # fork: no re-import of the caller's __main__ (scripts without a main
            # guard, notebooks) and no start-up cost; spawn where fork does not exist
            methods = multiprocessing.get_all_start_methods()
            self.ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self.ctx,
                                            initializer=mark_worker)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def map(self, fn: Callable[[Chunk], ChunkResult],
            chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, ChunkResult]]:
        """``fn`` (picklable: a partial of ``run_chunk``) over every chunk, in order."""
        if self.released:
            raise RuntimeError("the engine's workers were let go by call()")
        if self.pool is None:
            for chunk in chunks:
                yield chunk, fn(chunk)
            return
        yield from in_order(chunks, lambda chunk: self._submit(fn, chunk), 2 * self.workers)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn`` in a process of its own: the last task of a run (the link pass).  The chunk
        workers (each with the extractors' caches and spaCy's grown Vocab) are let go first,
        so its memory is not added to theirs; no chunk can be mapped after it."""
        if self.released:
            raise RuntimeError("the engine's workers were let go by call()")
        if self.pool is None:
            return fn(*args)
        self.pool.shutdown(wait=True)
        self.pool, self.released = None, True
        self._join_warm_up()
        # (a process of its own: its Arrow tables on the C library's heap, given back as the
        # pass goes; never the caller's process, whose allocator stays as it was)
        with ProcessPoolExecutor(max_workers=1, mp_context=self.ctx,
                                 initializer=memory.system_arrow_pool) as one:
            result: T = task_result(one.submit(fn, *args))
        return result

    def _join_warm_up(self) -> None:
        """A process must not fork while the warm-up thread runs (its import lock)."""
        if self.warm is not None:
            self.warm.join()
            self.warm = None

    def _submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        assert self.pool is not None
        if not self.forked:  # the pool forks every process on its first submit
            self.forked = True
            self._join_warm_up()
            # what the driver holds is frozen in the workers: their collections (the
            # first after their first chunk, mlx.pipeline's settle) do not walk it
            gc.freeze()
            try:
                return self.pool.submit(fn, *args)
            finally:
                gc.unfreeze()
        return self.pool.submit(fn, *args)
