"""Ingest from servers, never leaving the machine: a local ``http.server`` on 127.0.0.1
serves generated mboxes and bare public-inbox epochs (git's dumb HTTP, after
``git update-server-info``), and a few bad answers."""

import gzip
import http.server
import json
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_ingest_git import commit, mail

import mlx
from mlx.cli import main
from mlx.errors import MlxError
from mlx.ingest.fetch import cache_path, url_kind

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def mbox(first: int, n: int) -> bytes:
    return b"".join(b"From mboxrd@z Thu Jan  1 00:00:00 1970\n" + mail(i) + b"\n"
                    for i in range(first, first + n))


class Handler(http.server.SimpleHTTPRequestHandler):
    """Files from the served folder, and some bad answers."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/to-file.mbox":
            self._redirect("file:///etc/passwd")
        elif self.path == "/to-ftp.mbox":
            self._redirect("ftp://127.0.0.1/x.mbox")
        elif self.path == "/to-mbox.mbox":
            self._redirect("/lists/a.mbox")
        elif self.path == "/short.mbox":  # promises more bytes than it sends
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(mbox(0, 1))
        else:
            super().do_GET()

    def _redirect(self, where: str) -> None:
        self.send_response(302)
        self.send_header("Location", where)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    (root / "lists").mkdir(parents=True)
    (root / "lists" / "a.mbox").write_bytes(mbox(0, 3))
    (root / "lists" / "a.mbox.gz").write_bytes(gzip.compress(mbox(3, 2)))
    whole = gzip.compress(mbox(5, 40))
    (root / "lists" / "cut.mbox.gz").write_bytes(whole[: len(whole) // 2])
    thread = root / "lore" / "all" / "m7@example.org"
    thread.mkdir(parents=True)
    (thread / "t.mbox.gz").write_bytes(gzip.compress(mbox(7, 1)))
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: Handler(*a, directory=str(root)))
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def epoch(root: Path, inbox: str, n: int, messages: range) -> Path:
    repo = root / inbox / "git" / f"{n}.git"
    if not repo.exists():
        repo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    for i in messages:
        commit(repo, "m", mail(i))
    subprocess.run(["git", "--git-dir", str(repo), "update-server-info"], check=True)
    return repo


def test_url_kinds() -> None:
    assert url_kind("https://lore.kernel.org/netdev/0") == "epoch"
    assert url_kind("https://lore.kernel.org/netdev/git/3.git") == "epoch"
    assert url_kind("https://lore.kernel.org/netdev/") == "list"
    assert url_kind("https://lore.kernel.org/netdev/?q=wireguard&x=m") == "file"
    assert url_kind("https://lore.kernel.org/all/x@y/t.mbox.gz") == "file"
    assert url_kind("https://example.org/archive/2024-01.mbox") == "file"
    assert url_kind("https://lore.kernel.org/netdev") == "list"  # no trailing slash
    assert url_kind("https://example.org/2024.mbox") == "file"
    assert cache_path("https://lore.kernel.org/netdev/0", "/c") == \
        "/c/lore.kernel.org/netdev/0.git"
    assert cache_path("http://127.0.0.1:8000/x/git/2.git", "/c") == "/c/127.0.0.1_8000/x/2.git"


def test_mbox_urls(served: tuple[str, Path], tmp_path: Path) -> None:
    base, _ = served
    store = tmp_path / "s"
    report = mlx.ingest([f"{base}/lists/a.mbox", f"{base}/lists/a.mbox.gz",
                         f"{base}/to-mbox.mbox"], store=str(store), workers=1)
    assert (report.raw, report.stored, report.duplicates) == (8, 5, 3)
    assert sorted(mlx.load(str(store)).messages.subject) == [f"m{i}" for i in range(5)]
    assert not list(tmp_path.glob(".mlx-download-*"))  # downloads removed after
    runs = json.loads((store / "mlx-store.json").read_text())["runs"]
    assert runs[-1]["paths"][0] == f"{base}/lists/a.mbox"  # the URL, not the temporary file


def test_thread_by_message_id(served: tuple[str, Path], tmp_path: Path) -> None:
    base, _ = served
    report = mlx.ingest(["mid:<m7@example.org>"], store=str(tmp_path / "s"), workers=1,
                        lore=f"{base}/lore")
    assert report.stored == 1


def test_epoch_cloned_then_fetched(served: tuple[str, Path], tmp_path: Path) -> None:
    base, root = served
    repo = epoch(root, "inbox", 0, range(0, 20))
    cache, store = tmp_path / "cache", str(tmp_path / "s")
    url = f"{base}/inbox/git/0.git"
    first = mlx.ingest([url], store=store, workers=1, cache=str(cache))
    assert (first.raw, first.stored) == (20, 20)
    assert (cache / f"127.0.0.1_{base.rsplit(':', 1)[1]}" / "inbox" / "0.git" / "HEAD").exists()
    epoch(root, "inbox", 0, range(20, 23))  # new mail lands on the server
    again = mlx.ingest([url], store=store, workers=1, cache=str(cache))
    assert (again.raw, again.stored, again.already) == (3, 3, 0)  # only the new commits
    assert len(mlx.load(store).messages) == 23
    assert repo.exists()


def test_every_epoch_of_a_list(served: tuple[str, Path], tmp_path: Path) -> None:
    base, root = served
    epoch(root, "probed", 0, range(0, 2))
    epoch(root, "probed", 1, range(2, 5))  # no manifest: epochs 0, 1 probed, 2 missing
    got = mlx.ingest([f"{base}/probed/"], store=str(tmp_path / "a"), workers=1,
                     cache=str(tmp_path / "c"))
    assert (got.sources, got.stored) == (2, 5)
    epoch(root, "listed", 0, range(0, 1))
    epoch(root, "listed", 1, range(1, 3))
    manifest = {"/listed/git/1.git": {"fingerprint": "x"}, "/listed/git/0.git": {},
                "/other/git/0.git": {}}
    (root / "listed" / "manifest.js.gz").write_bytes(gzip.compress(json.dumps(manifest).encode()))
    got = mlx.ingest([f"{base}/listed/"], store=str(tmp_path / "b"), workers=1,
                     cache=str(tmp_path / "c"))
    assert (got.sources, got.stored) == (2, 3)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("where, said", [
    ("/nothing.mbox", "HTTP 404"),
    ("/lists/cut.mbox.gz", "damaged or cut short"),
    ("/short.mbox", "stopped at"),
    ("/to-file.mbox", "is not allowed"),  # urllib's own refusal
    ("/to-ftp.mbox", r"no http\(s\) URL: not followed"),
    ("/inbox/git/7.git", "git clone failed"),
])
def test_failed_fetches_leave_the_store_untouched(served: tuple[str, Path], tmp_path: Path,
                                                  where: str, said: str) -> None:
    base, root = served
    epoch(root, "inbox", 0, range(0, 1))
    store = tmp_path / "s"
    with pytest.raises(MlxError, match=said):
        mlx.ingest([f"{base}{where}"], store=str(store), workers=1, cache=str(tmp_path / "c"))
    assert not store.exists()
    assert not list(tmp_path.glob(".mlx-download-*"))


@pytest.mark.parametrize("arg, said", [
    ("ext::sh -c touch% /tmp/mlx-pwned", "only http:// and https://"),
    ("fd::3", "only http:// and https://"),
    ("file:///etc/passwd", "only http:// and https://"),
    ("ftp://127.0.0.1/a.mbox", "only http:// and https://"),
    ("http://nothing.invalid/a.mbox", "nothing.invalid"),
    ("mid:", "expected mid:MESSAGE-ID"),
    ("http://127.0.0.1:abc/list/0", "the port is no number"),
    ("http://../victim/0", "without a valid host name"),
])
def test_refused_and_unreachable_urls(arg: str, said: str, tmp_path: Path) -> None:
    with pytest.raises(MlxError, match=said):
        mlx.ingest([arg], store=str(tmp_path / "s"), workers=1, cache=str(tmp_path / "c"))
    assert not (tmp_path / "s").exists()
    assert not Path("/tmp/mlx-pwned").exists()


def test_refused_connection_is_one_error_line(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/a.mbox"
    result = CliRunner().invoke(main, ["ingest", url, "--store", str(tmp_path / "s")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "refused" in lines[0].lower()
    assert not (tmp_path / "s").exists()
