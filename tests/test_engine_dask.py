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
])
def test_identical_tables(tmp_path: Path, paths: list[str], monkeypatch) -> None:
    paths = [str(corpus_path(*p[7:].split("/"))) if p.startswith("CORPUS:") else p
             for p in paths]
    # 256 KiB byte ranges: the corpus mbox spreads over both workers in many chunks
    monkeypatch.setattr("mlx.api.plan_mbox", partial(plan_mbox, range_bytes=256 << 10))
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
