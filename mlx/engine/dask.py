"""Dask engine: the same per-chunk function on a dask.distributed cluster.

With a scheduler address it connects to a running cluster (``dask scheduler``
and ``dask worker`` on the machines, the archives and the store on shared
storage); without one it starts a LocalCluster of ``workers`` single-threaded
processes.  Results come back in submission order with a bounded number of
chunks in flight, exactly as from the local engine, so both produce the same
tables.  The link pass runs as one task on a worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from mlx.engine import in_order, task_result
from mlx.errors import MlxError
from mlx.ingest.chunks import Chunk
from mlx.pipeline import ChunkResult

T = TypeVar("T")
CONNECT_WAIT = 20.0  # seconds to reach a running cluster's scheduler
WORKER_WAIT = 60.0  # seconds to wait for its first worker
INSTALL_HINT = ("the dask engine needs dask.distributed; install it with "
                "pip install 'mlx-mailarchive[dask]'")


def check_installed() -> None:
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise MlxError(INSTALL_HINT) from exc


class DaskEngine:
    def __init__(self, workers: int, scheduler: str | None = None) -> None:
        self.workers = workers
        self.scheduler = scheduler
        self.client: Any = None
        self.cluster: Any = None

    def __enter__(self) -> DaskEngine:
        check_installed()
        from distributed import Client, LocalCluster
        if self.scheduler:
            try:
                self.client = Client(self.scheduler, timeout=f"{CONNECT_WAIT}s")
            except OSError as exc:
                raise MlxError(f"cannot reach the dask scheduler at {self.scheduler} ({exc}); "
                               f"start it with `dask scheduler` or leave --scheduler out for "
                               f"a local cluster") from exc
            try:  # a scheduler without workers would take the chunks and never run them
                self.client.wait_for_workers(1, timeout=WORKER_WAIT)
            except TimeoutError as exc:
                self.client.close()
                raise MlxError(f"no dask worker joined the scheduler at {self.scheduler} in "
                               f"{WORKER_WAIT:.0f}s; start some with `dask worker "
                               f"{self.scheduler}`") from exc
        else:
            # no per-worker share of RAM: chunk workers stay small by design, and
            # the one link task needs what the whole store's header columns take
            self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                        processes=True, dashboard_address=None,
                                        memory_limit=0)
            try:
                self.client = Client(self.cluster)
            except BaseException:
                self.cluster.close()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def map(self, fn: Callable[[Chunk], ChunkResult],
            chunks: Iterable[Chunk]) -> Iterator[tuple[Chunk, ChunkResult]]:
        n = len(self.client.scheduler_info().get("workers", {})) or self.workers
        client = self.client
        yield from in_order(chunks, lambda chunk: client.submit(fn, chunk, pure=False), 2 * n)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        result: T = task_result(self.client.submit(fn, *args, pure=False))
        return result
