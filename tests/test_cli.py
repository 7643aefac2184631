import re
from pathlib import Path

from click.testing import CliRunner

from mlx.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_ingest_and_info(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    res = run("ingest", str(ROOT / "data"), "--store", store, "--workers", "1")
    assert res.exit_code == 0
    assert "6 raw messages from 3 source(s)" in res.output
    assert "stored 6 new, 0 already stored, 0 duplicates, 0 errors" in res.output
    res = run("ingest", str(ROOT / "data"), "--store", store, "--quiet")
    assert res.exit_code == 0 and res.output == ""
    res = run("info", "--store", store)
    assert res.exit_code == 0
    assert re.search(r"messages: +6\n", res.output)
    assert re.search(r"claims: +15\n", res.output)
    assert "data/seeds/000_cbd9e73dbf496169.txt (text)" in res.output


def test_missing_path_one_line_error(tmp_path: Path) -> None:
    res = run("ingest", str(tmp_path / "nope.mbox"), "--store", str(tmp_path / "s"))
    assert res.exit_code == 1
    assert res.output == (f"Error: {tmp_path / 'nope.mbox'}: no such file or directory (pass an "
                          "mbox, Maildir, .eml, public-inbox epoch or a folder of them)\n")
    assert not (tmp_path / "s").exists()


def test_png_is_refused(tmp_path: Path) -> None:
    png = tmp_path / "graph.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    res = run("ingest", str(png), "--store", str(tmp_path / "s"))
    assert res.exit_code == 1
    assert res.output.startswith(f"Error: {png}: a PNG image; expected an mbox")
    assert res.output.count("\n") == 1


def test_info_without_store(tmp_path: Path) -> None:
    res = run("info", "--store", str(tmp_path))
    assert res.exit_code == 1
    assert "not an mlx store" in res.output


def test_every_command_has_help_and_is_documented() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, cmd in main.commands.items():
        assert cmd.help, name
        assert run(name, "--help").exit_code == 0
        assert f"mlx {name}" in readme, f"README does not mention `mlx {name}`"


def test_sql_command(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert run("ingest", str(ROOT / "data"), "--store", store, "--quiet").exit_code == 0
    res = run("sql", "select count(*) as n from messages", "--store", store, "--csv")
    assert (res.exit_code, res.output) == (0, "n\n6\n")
    res = run("sql", "select nope from messages", "--store", store)
    assert res.exit_code == 1 and res.output.startswith("Error: SQL: ")


def test_progress_on_a_terminal(tmp_path: Path) -> None:
    """With stderr a terminal, ingest shows its bar and the link stage, and report its
    page bar: none of them may break the command."""
    import os
    import subprocess
    import sys
    store = str(tmp_path / "s")
    for args in (["ingest", str(ROOT / "data"), "--store", store],
                 ["report", "--store", store, "--out", str(tmp_path / "r")]):
        leader, follower = os.openpty()
        try:
            proc = subprocess.run([sys.executable, "-m", "mlx.cli", *args], stderr=follower,
                                  stdout=subprocess.PIPE, timeout=300)
            os.close(follower)
            said = b""
            while True:
                try:
                    chunk = os.read(leader, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                said += chunk
        finally:
            os.close(leader)
        assert proc.returncode == 0, said.decode(errors="replace")[-2000:]
        assert b"Traceback" not in said
    assert b"patch pages" in said or (tmp_path / "r" / "index.html").exists()


def test_claim_lines_name_the_version_where_a_title_has_several() -> None:
    import pandas as pd

    from mlx.cli import claim_lines
    measured = {"kind": "measured", "tool": "iperf3", "test": "tcp", "side": "receiver",
                "section": None, "config": None, "metric": "throughput",
                "baseline_label": "without", "baseline_value": 240.0,
                "patched_label": "with", "patched_value": 390.0, "unit_norm": "Mbit/s",
                "delta_pct": 62.5, "verdict": "improvement", "statement": None,
                "stated_pct": None}
    prose = {**measured, "kind": "prose", "statement": "It is faster.", "stated_pct": -7.0,
             "verdict": "improvement"}
    c = pd.DataFrame([
        {**measured, "title": "sdio: napi on RX", "version": 1},
        {**measured, "title": "sdio: napi on RX", "version": 2, "patched_value": 400.0},
        {**prose, "title": "tcp: one version", "version": 3},
        {**prose, "title": "sdio: napi on RX", "version": None},
        {**prose, "title": None, "version": None}])
    c["version"] = c.version.astype("Int64")
    assert claim_lines(c) == [
        "\nsdio: napi on RX",
        "  v1  tcp (receiver): without 240.00 -> with 390.00 Mbit/s (+62.5%) improvement",
        "  v2  tcp (receiver): without 240.00 -> with 400.00 Mbit/s (+62.5%) improvement",
        "  [prose] It is faster. (stated 7.0%) improvement",
        "\ntcp: one version",
        "  [prose] It is faster. (stated 7.0%) improvement",
        "\n(no patch)",
        "  [prose] It is faster. (stated 7.0%) improvement"]
    c["version"] = [1.0, 2.0, None, None, None]  # a float column prints as written
    assert claim_lines(c)[1].startswith("  v1  tcp")


def test_claim_lines_fold_repeats_and_all_prints_every_row() -> None:
    """A pair re-posted in v2 to v4 is one line, its versions first; ``every`` prints
    each row with its own version.  No two lines of a title are the same."""
    import pandas as pd

    from mlx.analyse.repeats import fold
    from mlx.cli import claim_lines
    row = {"kind": "measured", "tool": "netperf", "test": "TCP_STREAM", "side": "tx",
           "stream": None, "statistic": None, "section": None, "config": "send-512",
           "metric": "throughput", "baseline_label": "Before", "baseline_value": 5120.40,
           "patched_label": "After", "patched_value": 5098.12, "unit_norm": "Mbit/s",
           "delta_pct": -0.435, "verdict": "no-change", "statement": None, "stated_pct": None,
           "title": "net: batch tx", "thread_id": None, "uid": "u"}
    c = fold(pd.DataFrame([{**row, "version": v, "message_id": f"v{v}@x",
                            "date": pd.Timestamp(f"2025-01-0{v}", tz="UTC")}
                           for v in (2, 3, 4)]))
    line = ("TCP_STREAM send-512 (tx): Before 5,120.40 -> After 5,098.12 Mbit/s (-0.4%) "
            "no-change")
    assert claim_lines(c) == ["\nnet: batch tx", f"  v2-v4  {line}"]
    assert claim_lines(c, every=True) == ["\nnet: batch tx", f"  v2  {line}", f"  v3  {line}",
                                          f"  v4  {line}"]


def test_the_summary_counts_link_errors() -> None:
    """A thread whose claims a rule failed on is counted; a failed link pass says what
    to do next."""
    from mlx.api import IngestReport
    from mlx.cli import format_report
    linked = {"threads": 3, "patches": 1, "covers": 0, "series": 1, "reports": 0,
              "claims": 2, "link_errors": 1}
    text = format_report(IngestReport(store="s", raw=3, stored=3, linked=linked))
    assert "  link errors: 1 thread(s) whose claims a rule failed on were skipped" in text
    failed = format_report(IngestReport(store="s", raw=1, stored=1,
                                        linked={"link_errors": 1, "link_failed": 1}))
    assert "link pass failed" in failed and "next ingest links again" in failed
    assert "linked:" not in failed
