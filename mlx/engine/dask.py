"""Dask engine: the same per-chunk function on a dask.distributed cluster.

With a scheduler address it connects to a running cluster (``dask scheduler``
and ``dask worker`` on the machines, the archives and the store on shared
storage); without one it starts a LocalCluster of ``workers`` single-threaded
processes.  Results come back in submission order with a bounded number of
chunks in flight, exactly as from the local engine, so both produce the same
tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mlx.engine import in_order
from mlx.errors import MlxError
from mlx.ingest.chunks import Chunk, ChunkResult

INSTALL_HINT = ("the dask engine needs dask.distributed; install it with "
                "pip install 'mlx-mailarchive[dask]'")


def _client(workers: int, scheduler: str | None) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise MlxError(INSTALL_HINT) from exc
    if scheduler:
        try:
            return Client(scheduler, timeout="20s"), None
        except OSError as exc:
            raise MlxError(f"cannot reach the dask scheduler at {scheduler} ({exc}); start it "
                           f"with `dask scheduler` or leave --scheduler out for a local "
                           f"cluster") from exc
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def run(chunks: Iterable[Chunk], workers: int, fn: Callable[[Chunk], ChunkResult],
        scheduler: str | None = None) -> Iterator[tuple[Chunk, ChunkResult]]:
    client, cluster = _client(workers, scheduler)
    try:
        width = 2 * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        yield from in_order(chunks, lambda chunk: client.submit(fn, chunk, pure=False), width)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
