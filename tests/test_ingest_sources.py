import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from mlx.errors import InputNotFoundError, NotMailError
from mlx.ingest import sources
from mlx.ingest.chunks import split_stream
from mlx.ingest.sources import Source, classify, discover, open_stream
from mlx.ingest.split import write_mboxrd

MBOX = write_mboxrd([b"Subject: a\nMessage-ID: <a@x>\n\nx\n",
                     b"Subject: b\nMessage-ID: <b@x>\n\ny\n"])


@pytest.mark.parametrize("compress, name", [
    (gzip.compress, "list.mbox.gz"),
    (bz2.compress, "list.mbox.bz2"),
    (lzma.compress, "list.mbox.xz"),
    # detected by content, not by name
    (gzip.compress, "2019-June.txt"),
])
def test_compressed_streams(tmp_path: Path, compress, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(compress(MBOX))
    (src,), _ = discover([str(path)])
    assert src.kind == "mbox" and src.compression
    stream = open_stream(str(path))
    assert stream.read() == MBOX
    stream.close()
    assert len(list(split_stream(src))) == 2


@pytest.mark.parametrize("head, kind", [
    (b"From mboxrd@z Thu Jan  1 00:00:00 1970\nSubject: x\n", "mbox"),
    (b"Return-Path: <a@b>\nSubject: x\nFrom: a@b\n\nbody", "eml"),
    (b"Subject: only one header\n\nbody", "eml"),
    (b"Re: [PATCH] x\n\n[Hangbin Liu <liuhangbin@example.com>]\n\nbody", "text"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", None),
    (b"just some notes\nnothing here\n", None),
])
def test_classify(head: bytes, kind) -> None:
    assert classify(head) == kind


@pytest.mark.parametrize("content, message", [
    (b"", "an empty file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
    (gzip.compress(b"hello\n"), "a compressed file with no mail in it"),
])
def test_whole_file_errors(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "f"
    path.write_bytes(content)
    with pytest.raises(NotMailError, match=message):
        discover([str(path)])


def test_missing_path() -> None:
    with pytest.raises(InputNotFoundError, match="no such file"):
        discover(["/nonexistent/archive.mbox"])


def test_directory_tree_mixes_kinds(tmp_path: Path) -> None:
    maildir = tmp_path / "inbox"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "new" / "1700000000.1.host").write_bytes(b"Subject: m\nMessage-ID: <m@x>\n\nx\n")
    (tmp_path / "a.eml").write_bytes(b"Subject: e\nMessage-ID: <e@x>\n\nx\n")
    (tmp_path / "b.mbox.gz").write_bytes(gzip.compress(MBOX))
    (tmp_path / "notes.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    found, skipped = discover([str(tmp_path)])
    assert sorted(Path(s.path).name for s in found) == ["1700000000.1.host", "a.eml", "b.mbox.gz"]
    assert [Path(p).name for p in skipped] == ["notes.png"]


def test_gzip_bomb_stops(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sources, "BOMB_FLOOR", 1 << 20)
    path = tmp_path / "bomb.mbox.gz"
    path.write_bytes(gzip.compress(MBOX + b"\0" * (64 << 20)))
    items = list(split_stream(Source(str(path), "mbox", "gzip")))
    assert "decompression bomb" in items[-1].reason
    assert items[0].data.startswith(b"Subject: a")
