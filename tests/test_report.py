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


def test_report_carries_the_claims_and_what_they_rest_on(tmp_path: Path) -> None:
    """The report's tables are the claims and the results and hardware of the messages
    they cite, not copies of every table (``mlx export`` writes those); its index lists
    one row per distinct claim."""
    import json
    import re
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["report", "--store", store, "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    tables = tmp_path / "r" / "tables"
    assert sorted(p.name for p in tables.iterdir()) == ["claims.csv", "hardware.csv",
                                                         "results.csv"]
    archive = mlx.load(store)
    claims = pd.read_csv(tables / "claims.csv")
    assert len(claims) == len(archive.claims) and "repeat_of" in claims.columns
    results = pd.read_csv(tables / "results.csv")
    assert 0 < len(results) <= len(archive.results)
    assert set(results.uid) <= set(archive.claims.uid)
    page = (tmp_path / "r" / "index.html").read_text()
    data = json.loads(re.search(r'id="claims-data">(.*?)</script>', page).group(1))
    assert len(data) == archive.claims.repeat_of.isna().sum()
    assert all("versions" in row for row in data)


def test_report_escapes_and_has_plots(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["report", "--store", store, "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "r" / "index.html").read_text()
    assert "<script>alert" not in page and "alert(1)" in page  # only inside escaped JSON
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in page
    pngs = sorted(p.name for p in (tmp_path / "r" / "plots").iterdir())
    assert {"deltas.png", "over-time-1.png", "hardware.png"} <= set(pngs)
    assert all((tmp_path / "r" / "plots" / p).stat().st_size > 5000 for p in pngs)
    pages = list((tmp_path / "r" / "patches").glob("*.html"))
    plotted = [p for p in pages if "<h2>Plot</h2>" in p.read_text()]
    assert plotted and all(p.with_suffix(".png").stat().st_size > 5000 for p in plotted)
    # a page of prose claims alone has no plot (nothing measured to draw)
    assert all(p.with_suffix(".png").exists() == (p in plotted) for p in pages)
    for page_path in [*pages, *(tmp_path / "r" / "messages").glob("*.html")]:
        text = page_path.read_text()
        assert "<script" not in text and "<b>Eve" not in text, page_path


def test_claims_command(tmp_path: Path) -> None:
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["claims", "--store", store, "--patch", "gro call"])
    assert res.exit_code == 0
    assert "tcp (receiver): 0.0.20180708 251.00 -> 0.0.20180708 w/napi_gro_receive patch 498.00 " \
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


def test_show_a_patch(tmp_path: Path) -> None:
    import json
    store = store_with_sample(tmp_path)
    res = CliRunner().invoke(main, ["show", "gro call", "--store", store])
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.startswith("receive: use gro call instead of plain call\n")
    assert "claims (3):" in out
    assert "0.0.20180708 251 -> 0.0.20180708 w/napi_gro_receive patch 498 Mbit/s" in out
    assert "line 24: [SUM]   0.00-10.00  sec   300 MBytes   251 Mbits/sec" in out
    assert "setup hardware: PC Engines APU2" in out
    # by Message-ID (the reply that measured it), as JSON
    res = CliRunner().invoke(main, ["show", "mid:<F0797C8C-D288-4531-A21F-4FD38764544A@"
                                    "lonnie.abelbeck.com>", "--store", store, "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["title"] == "receive: use gro call instead of plain call"
    assert len(got["claims"]) == 3 and got["claims"][0]["baseline_line_no"] == 23
    res = CliRunner().invoke(main, ["show", "no such patch anywhere", "--store", store])
    assert res.exit_code == 1 and res.output.startswith("Error: no patch matches")


def test_message_urls() -> None:
    from mlx.report.site import message_url
    assert message_url("a@b", "netdev.vger.kernel.org") == "https://lore.kernel.org/netdev/a@b/"
    assert message_url("a@b", "ath10k.lists.infradead.org", None, "https://x.org/a") == \
        "https://lore.kernel.org/ath10k/a@b/"
    assert message_url("a b@c", "x.example.org", "https://arch.example.org/m/1") == \
        "https://arch.example.org/m/1"  # Archived-At first
    assert message_url("a@b", "x.example.org", None, "https://lists.example.org/x/") == \
        "https://lists.example.org/x/"
    assert message_url("a@b", "x.example.org", "javascript:alert(1)", "javascript:x") is None
    assert message_url("<a/b>@c", "netdev.vger.kernel.org") == \
        "https://lore.kernel.org/netdev/%3Ca%2Fb%3E@c/"
