"""The Dask engine gives the same tables as the local one (order aside)."""

import sys
from functools import partial
from pathlib import Path

import pandas as pd
import pytest
from conftest import corpus_path

import mlx
from mlx.errors import MlxError
from mlx.ingest.chunks import plan_mbox

pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parent.parent
TABLES = ("messages", "errors", "results", "hardware", "statements", "patches", "threads",
          "reports", "claims")


def _frame(archive: mlx.Archive, name: str) -> pd.DataFrame:
    as_text = getattr(archive, name).astype(str)
    return as_text.sort_values(list(as_text.columns)).reset_index(drop=True)


@pytest.mark.parametrize("paths", [
    [str(ROOT / "data")],
    ["CORPUS:perf-threads/xdp-newbies.vger.kernel.org.0.perf-threads.mboxrd"],
    ["CORPUS:public-inbox/xdp-newbies"],  # commit ranges of a public-inbox epoch
])
def test_identical_tables(tmp_path: Path, paths: list[str], monkeypatch) -> None:
    paths = [str(corpus_path(*p[7:].split("/"))) if p.startswith("CORPUS:") else p
             for p in paths]
    # 256 KiB byte ranges: the corpus mbox spreads over both workers in many chunks
    import importlib
    plan = importlib.import_module("mlx.ingest.plan")  # (mlx.ingest is also the function)
    monkeypatch.setattr(plan, "plan_mbox", partial(plan_mbox, range_bytes=256 << 10))
    local = mlx.ingest(paths, store=str(tmp_path / "l"), workers=2)
    # the workers write their parts to the store, here named by an fsspec URL
    dask = mlx.ingest(paths, store=f"file://{tmp_path}/d", workers=2, engine="dask")
    assert (local.raw, local.stored) == (dask.raw, dask.stored)
    assert len(list((tmp_path / "d" / "messages").glob("*.parquet"))) > 1
    a, b = mlx.load(str(tmp_path / "l")), mlx.load(str(tmp_path / "d"))
    for name in TABLES:
        pd.testing.assert_frame_equal(_frame(a, name), _frame(b, name), obj=name)


def test_missing_dask_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(MlxError, match=r"pip install 'mlx-mailarchive\[dask\]'"):
        mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "s"), engine="dask")
    assert not (tmp_path / "s").exists()


def test_a_running_cluster_by_its_address(tmp_path: Path) -> None:
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        report = mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "s"), engine="dask",
                            scheduler=cluster.scheduler_address)
    assert report.stored == 6 and report.linked["patches"] == 2
    mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "l"), workers=1)
    a, b = mlx.load(str(tmp_path / "s")), mlx.load(str(tmp_path / "l"))
    for name in TABLES:
        pd.testing.assert_frame_equal(_frame(a, name), _frame(b, name), obj=name)


def test_a_scheduler_without_workers_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    from distributed import LocalCluster
    monkeypatch.setattr("mlx.engine.dask.WORKER_WAIT", 1.0)
    with LocalCluster(n_workers=0, dashboard_address=None) as cluster:
        with pytest.raises(MlxError, match="no dask worker joined the scheduler"):
            mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "s"), engine="dask",
                       scheduler=cluster.scheduler_address)


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("mlx.engine.dask.CONNECT_WAIT", 1.0)
    with pytest.raises(MlxError, match="cannot reach the dask scheduler at tcp://127.0.0.1:9"):
        mlx.ingest([str(ROOT / "data")], store=str(tmp_path / "s"), engine="dask",
                   scheduler="tcp://127.0.0.1:9")
