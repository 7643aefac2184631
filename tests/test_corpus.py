"""Real mail from ../shared/corpus (skipped when absent): nothing lost, nothing crashes."""

from collections import Counter
from pathlib import Path

import pytest
from conftest import corpus_path

import mlx

SMALL = ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz", "lists/ath10k.mbox.gz",
         "public-inbox/xdp-newbies", "perf", "perf-threads", "hardware", "fixtures"]
# defects that real archives legitimately carry often, with the reason
EXPECTED_OFTEN = {
    "date-no-timezone",  # pipermail months write asctime dates
    "bad-from", "message-id-no-brackets",  # LISTSERV exports (BigBang fixtures)
    "no-message-id",  # Perceval/NNTP fixtures without ids
}


@pytest.mark.parametrize("rel", SMALL)
def test_corpus_archive(rel: str, tmp_path: Path) -> None:
    path = corpus_path(*rel.split("/"))
    report = mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2)
    assert report.raw > 0
    assert report.balanced, report
    archive = mlx.load(str(tmp_path / "s"))
    assert len(archive.messages) == report.stored
    assert len(archive.errors) == report.errors
    assert report.errors <= max(1, report.raw // 500)
    counts = Counter(code for codes in archive.messages.defects for code in codes)
    for code, n in counts.items():
        if code not in EXPECTED_OFTEN:
            assert n <= max(3, 0.03 * report.stored), (code, n)


@pytest.mark.parametrize("rel", ["lists/linux-sctp.mbox.gz", "perf-threads"])
def test_corpus_threads(rel: str, tmp_path: Path) -> None:
    path = corpus_path(*rel.split("/"))
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2)
    archive = mlx.load(str(tmp_path / "s"))
    m = archive.messages
    assert m.thread_id.notna().all() and m.depth.notna().all()
    # no cycle: following parents from any message reaches a root within depth steps
    parent = dict(zip(m.uid, m.parent_uid, strict=True))
    for uid, depth in zip(m.uid, m.depth, strict=True):
        steps, cur = 0, parent[uid]
        while isinstance(cur, str):
            cur, steps = parent[cur], steps + 1
            assert steps <= depth
    t = archive.threads
    assert t.n_messages.sum() == len(m)
    p = archive.patches
    assert len(p) and p.patch_id.notna().all() and p.series_id.notna().all()
    # robot reports are their own kind
    assert not p.title.str.contains(r"^[0-9a-f]{10}: .*% regression", regex=True).any()


def test_epoch_equals_its_mbox(tmp_path: Path) -> None:
    epoch = corpus_path("public-inbox", "xdp-newbies")
    mbox = corpus_path("lists", "xdp-newbies.mbox.gz")
    a = mlx.ingest([str(epoch)], store=str(tmp_path / "a"), workers=2)
    b = mlx.ingest([str(mbox)], store=str(tmp_path / "b"), workers=2)
    assert a.raw == b.raw == 1941
    ua = set(mlx.load(str(tmp_path / "a")).messages.uid)
    ub = set(mlx.load(str(tmp_path / "b")).messages.uid)
    assert ua == ub


def _in_diff(lines: list[str], line_no: int) -> bool:
    """Is line ``line_no`` (1-based) inside a diff hunk of its message?"""
    inside = False
    for text in lines[:line_no]:
        stripped = text.lstrip("> ")
        if stripped.startswith(("diff --git ", "@@ -")):
            inside = True
        elif inside and stripped[:1] not in ("+", "-", " ", "@", "\\"):
            inside = False
    return inside


@pytest.mark.parametrize("rel", ["perf", "perf-threads", "lists/xdp-newbies.mbox.gz"])
def test_corpus_results(rel: str, tmp_path: Path) -> None:
    path = corpus_path(*rel.split("/"))
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2)
    archive = mlx.load(str(tmp_path / "s"))
    res = archive.results
    assert len(res) > 100
    assert set(res.tool) >= {"iperf3", "netperf", "inline"}
    assert res.value_norm.notna().mean() > 0.99
    bodies = dict(zip(archive.messages.uid, archive.messages.body, strict=True))
    for uid, line_no in zip(res.uid, res.line_no, strict=True):
        assert not _in_diff(bodies[uid].split("\n"), int(line_no)), (uid, line_no)


def test_corpus_hardware(tmp_path: Path) -> None:
    path = corpus_path("hardware")
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2)
    archive = mlx.load(str(tmp_path / "s"))
    hw = archive.hardware
    # the archive was picked for CPU models plus a NIC or memory size: most messages yield rows
    assert hw.message_id.nunique() > 0.6 * len(archive.messages)
    assert {"cpu", "nic", "memory", "kernel"} <= set(hw.kind)
    mem = hw[hw.kind == "memory"].value.dropna().astype(float)
    assert (mem > 0).all()
    bodies = dict(zip(archive.messages.uid, archive.messages.body, strict=True))
    for uid, line_no in zip(hw.uid, hw.line_no, strict=True):
        assert not _in_diff(bodies[uid].split("\n"), int(line_no)), (uid, line_no)


@pytest.mark.parametrize("rel", ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz",
                                 "lists/ath10k.mbox.gz", "lists/openwrt-devel.mbox.gz"])
def test_corpus_patches_tie_to_postings(rel: str, tmp_path: Path) -> None:
    """Issue 16's figures (``benchmarks/patches.py``) stay at zero on real lists."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from patches import figures
    path = corpus_path(*rel.split("/"))
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2, extract=())
    got = figures(str(tmp_path / "s"))
    zero = ("keys shared", "outside", "split", "flag trees", "pull covers", "ghost walk",
            "split series")
    assert {k: got[k] for k in zero} == dict.fromkeys(zero, 0), got
    assert got["reply trailers attached"] > 0


@pytest.mark.parametrize("how", [[], ["--no-checkout"], ["--mirror"]])
def test_cloned_epoch_is_the_epoch(how: list[str], tmp_path: Path) -> None:
    """``git clone`` of an epoch (work tree with ``m`` checked out, no checkout, or a
    mirror), given as the clone or as its ``.git``: every message, not the one file."""
    import shutil
    import subprocess
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    epoch = corpus_path("public-inbox", "xdp-newbies", "git", "0.git")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", *how, str(epoch), str(clone)], check=True)
    bare = mlx.ingest([str(epoch)], store=str(tmp_path / "a"), workers=2, extract=())
    targets = [clone] if how == ["--mirror"] else [clone, clone / ".git"]
    for k, target in enumerate(targets):
        got = mlx.ingest([str(target)], store=str(tmp_path / f"b{k}"), workers=2, extract=())
        assert got.raw == bare.raw == 1941 and got.stored == bare.stored
