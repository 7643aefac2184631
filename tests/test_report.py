from pathlib import Path

import pandas as pd
from click.testing import CliRunner

import mlx
from mlx.cli import main
from mlx.ingest.split import write_mboxrd

ROOT = Path(__file__).resolve().parent.parent


def store_with_sample(tmp_path: Path) -> str:
    store = str(tmp_path / "s")
    hostile = (b"From: <b>Eve</b> <eve@x.org>\nSubject: Re: [PATCH] <script>alert(1)</script>\n"
               b"Message-ID: <h@x>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n"
               b"Before patch:\n=== 1in1 TCP_STREAM: 100.00 Mbits/sec ===\n"
               b"After patch:\n=== 1in1 TCP_STREAM: 150.00 Mbits/sec ===\n")
    (tmp_path / "h.mbox").write_bytes(write_mboxrd([hostile]))
    mlx.ingest([str(ROOT / "data"), str(tmp_path / "h.mbox")], store=store, workers=1)
    return store


def test_export_csv_reads_back(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["export", "--store", store, "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    archive = mlx.load(store)
    for name in ("messages", "threads", "patches", "results", "hardware", "claims", "errors"):
        df = pd.read_csv(tmp_path / "out" / f"{name}.csv")
        expected = getattr(archive, name)
        assert len(df) == len(expected), name
        extra = {"body"} if name == "messages" else set()
        assert list(df.columns) == [c for c in expected.columns if c not in extra], name
    claims = pd.read_csv(tmp_path / "out" / "claims.csv")
    assert claims.date.dropna().str.match(r"\d{4}-\d\d-\d\dT").all()  # ISO 8601
    patches = pd.read_csv(tmp_path / "out" / "patches.csv")
    assert patches.trailers.str.contains("Signed-off-by: Alice Novak").any()


def test_export_parquet_and_bad_table(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    out = str(tmp_path / "pq")
    res = CliRunner().invoke(main, ["export", "--store", store, "--out", out, "--format",
                                    "parquet", "--table", "claims"])
    assert res.exit_code == 0 and pd.read_parquet(Path(out) / "claims.parquet").shape[0] > 0
    res = CliRunner().invoke(main, ["export", "--store", store, "--out", out, "--table", "x"])
    assert res.exit_code == 1
    assert res.output.startswith("Error: unknown table 'x'; choose from messages, threads")


def test_report_escapes_and_has_plots(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["report", "--store", store, "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "r" / "index.html").read_text()
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    pngs = sorted(p.name for p in (tmp_path / "r" / "plots").iterdir())
    assert {"deltas.png", "over-time.png", "hardware.png", "patch-1.png"} <= set(pngs)
    assert all((tmp_path / "r" / "plots" / p).stat().st_size > 5000 for p in pngs)


def test_claims_command(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["claims", "--store", store, "--patch", "gro call"])
    assert res.exit_code == 0
    assert "receiver: 0.0.20180708 251.00 -> 0.0.20180708 w/napi_gro_receive patch 498.00 " \
           "Mbit/s (+98.4%) improvement" in res.output
    res = CliRunner().invoke(main, ["claims", "--store", store, "--verdict", "regression"])
    assert res.exit_code == 0 and res.stdout == "" and res.stderr == "no claims\n"


def test_missing_store_exact_error(tmp_path: Path) -> None:
    for cmd in (["claims"], ["info"], ["report", "--out", str(tmp_path / "r")],
                ["export", "--out", str(tmp_path / "e")]):
        res = CliRunner().invoke(main, [*cmd, "--store", str(tmp_path / "none")])
        assert res.exit_code == 1
        assert res.output == (f"Error: {tmp_path / 'none'}: not an mlx store (no mlx-store.json); "
                              f"run `mlx ingest ARCHIVE --store {tmp_path / 'none'}` first\n")


def test_plot_helpers_return_figures(tmp_path: Path) -> None:
    archive = mlx.load(store_with_sample(tmp_path))
    from matplotlib.figure import Figure
    for fig in (archive.plot_patch("gro call"), archive.plot_deltas(), archive.plot_over_time(),
                archive.plot_hardware()):
        assert isinstance(fig, Figure)
