"""Archives from servers: mbox downloads, public-inbox epochs over git's HTTP, threads by id.

``localize`` turns the URL arguments of an ingest into local paths before anything else
runs, so a failed download leaves the store untouched:

- ``http(s)://.../file`` (an mbox, mboxrd or ``.mbox.gz``: a thread's ``t.mbox.gz``, a
  search's ``?x=m`` export, a list's ``all.mbox.gz``) streams to a temporary file next
  to the store, is checked whole (its length, and a compressed file to its end), is
  ingested as a local file and removed;
- ``https://HOST/LIST/N`` or ``.../LIST/git/N.git``: a public-inbox epoch, cloned as a
  mirror into the cache (``~/.cache/mlx/HOST/LIST/N.git``) and ``git fetch``-ed on the
  next run, so only the new commits are read (the store's manifest keeps the last one);
- ``https://HOST/LIST/``: every epoch the server lists (public-inbox's
  ``manifest.js.gz``), else epochs 0, 1, ... until one is missing;
- ``mid:MESSAGE-ID``: the thread of one message, ``BASE/all/MESSAGE-ID/t.mbox.gz``
  (``--lore BASE``, default ``https://lore.kernel.org``), the way b4 finds a thread.

No command runs from a URL: only ``http://`` and ``https://`` reach git and the
downloader (git runs with every other transport disallowed, the URL after ``--``),
redirects to other schemes are refused, and git never prompts for credentials.
"""

from __future__ import annotations

import gzip
import http.client
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from mlx.errors import MlxError
from mlx.ingest.sources import DecompressionBombError, compression_of, open_stream

LORE = "https://lore.kernel.org"
TIMEOUT = 60.0  # seconds without a byte before a download or a git request gives up
BLOCK = 1 << 16
# git's transports other than http(s) stay off, whatever the URL asks for
GIT_SAFE = ["-c", "protocol.allow=never", "-c", "protocol.https.allow=always",
            "-c", "protocol.http.allow=always",
            # a server that stalls (under 1 KB/s for a minute) fails the request
            "-c", "http.lowSpeedLimit=1000", "-c", "http.lowSpeedTime=60"]
# "ext::sh -c ...", "fd::3": git's remote helpers, never taken from an argument
HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")
SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# https://HOST/LIST/0, https://HOST/LIST/git/0.git
EPOCH_PATH = re.compile(r"^(.*?)/(?:git/)?(\d+)(?:\.git)?/?$")
# a host name or address as a URL may hold it (no "..", no "/")
HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?|\[?[0-9A-Fa-f:.]+\]?")
MANIFEST_MAX = 64 << 20  # bytes of manifest.js.gz read, and at most that much unpacked


class FetchError(MlxError):
    """A download or a clone failed: nothing was stored."""


@dataclass
class Fetched:
    """Local paths for the arguments (in order), and the downloads to remove after."""

    paths: list[str] = field(default_factory=list)
    temporary: list[str] = field(default_factory=list)

    def cleanup(self) -> None:
        for path in self.temporary:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass


def is_remote(arg: str) -> bool:
    """A URL or ``mid:`` id rather than a local path (an existing path is always local)."""
    if os.path.exists(arg):
        return False
    return arg.startswith("mid:") or bool(SCHEME.match(arg) or HELPER.match(arg))


def default_cache() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlx")


def localize(args: list[str], store: str, cache: str | None = None, lore: str = LORE,
             progress: bool | None = None) -> Fetched:
    """Fetch every remote argument; local ones pass through unchanged.  On any failure
    the downloads made so far are removed and ``FetchError`` says what failed."""
    out = Fetched()
    show = sys.stderr.isatty() if progress is None else progress
    try:
        for arg in args:
            if not is_remote(arg):
                out.paths.append(arg)
            elif arg.startswith("mid:"):
                out.paths.append(_download(thread_url(arg, lore), _download_dir(store), show,
                                           out))
            else:
                url = _checked_url(arg)
                kind = url_kind(url)
                if kind == "file":
                    out.paths.append(_download(url, _download_dir(store), show, out))
                elif kind == "epoch":
                    out.paths.append(fetch_epoch(url, cache or default_cache(), show))
                else:
                    out.paths.extend(fetch_epoch(u, cache or default_cache(), show)
                                     for u in list_epochs(url))
    except BaseException:
        out.cleanup()
        raise
    return out


def _checked_url(arg: str) -> str:
    m = SCHEME.match(arg)
    if HELPER.match(arg) or not m or m.group(1).lower() not in ("http", "https"):
        raise FetchError(f"{arg}: only http:// and https:// URLs (and mid:MESSAGE-ID) are "
                         f"fetched; give other archives as local paths")
    parts = urllib.parse.urlsplit(arg)
    try:
        parts.port  # noqa: B018 - raises on a port that is no number
    except ValueError:
        raise FetchError(f"{arg}: the port is no number") from None
    if not parts.hostname or not HOST.fullmatch(parts.hostname) or ".." in parts.hostname:
        raise FetchError(f"{arg}: a URL without a valid host name")
    return arg


def url_kind(url: str) -> str:
    """``epoch`` (``.../LIST/N``, ``.../LIST/git/N.git``), ``list`` (``https://HOST/LIST/``,
    or ``https://HOST/LIST`` without a dot) or ``file`` (anything else: a download)."""
    parts = urllib.parse.urlsplit(url)
    if parts.query:
        return "file"  # a search export: ?q=...&x=m
    segments = [p for p in parts.path.split("/") if p]
    if EPOCH_PATH.match(parts.path) and len(segments) >= 2:
        return "epoch"
    if len(segments) == 1 and (parts.path.endswith("/") or "." not in segments[0]):
        return "list"  # https://HOST/LIST/ or https://HOST/LIST
    return "file"


def thread_url(arg: str, lore: str) -> str:
    mid = arg[len("mid:"):].strip().strip("<>")
    if not mid or any(c.isspace() for c in mid):
        raise FetchError(f"{arg}: expected mid:MESSAGE-ID, e.g. mid:20240101.1234@example.org")
    base = _checked_url(lore.rstrip("/"))
    return f"{base}/all/{urllib.parse.quote(mid, safe='@+=~!$&*')}/t.mbox.gz"


# ------------------------------------------------------------------ downloads


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http(s) only (urllib would follow ftp:// too)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Any:
        scheme = urllib.parse.urlsplit(newurl).scheme.lower()
        if scheme not in ("http", "https"):
            raise FetchError(f"{req.full_url}: redirected to {newurl!r}, which is no "
                             f"http(s) URL: not followed")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_HttpOnlyRedirects)


def _download_dir(store: str) -> str:
    """Next to the store (a local one), so the file is on the disk the user chose."""
    if SCHEME.match(store) and not store.startswith("file://"):
        return tempfile.gettempdir()
    path = store[len("file://"):] if store.startswith("file://") else store
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    return parent


def _download(url: str, where: str, show: bool, out: Fetched) -> str:
    """Stream ``url`` to a temporary file in ``where``; check it is whole."""
    name = os.path.basename(urllib.parse.urlsplit(url).path) or "download"
    fd, tmp = tempfile.mkstemp(prefix=".mlx-download-", suffix="-" + name[-60:], dir=where)
    out.temporary.append(tmp)
    request = urllib.request.Request(url, headers={"User-Agent": "mlx", "Accept-Encoding":
                                                   "identity"})
    try:
        with os.fdopen(fd, "wb") as fh, _opener().open(request, timeout=TIMEOUT) as resp:
            expected = resp.headers.get("Content-Length")
            got = _copy(resp, fh, int(expected) if expected and expected.isdigit() else None,
                        name, show)
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise FetchError(f"{url}: {_reason(exc.reason)}") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # reset, timeout, cut
        raise FetchError(f"{url}: download failed: {_reason(exc)}") from None
    if expected and expected.isdigit() and got != int(expected):
        raise FetchError(f"{url}: download stopped at {got:,} of {int(expected):,} bytes")
    if got == 0:
        raise FetchError(f"{url}: the server sent an empty file")
    _check_whole(tmp, url)
    return tmp


def _copy(src: BinaryIO, dst: BinaryIO, total: int | None, name: str, show: bool) -> int:
    bar: Any = None
    if show:
        from tqdm import tqdm
        bar = tqdm(total=total, unit="B", unit_scale=True, desc=f"download {name}",
                   file=sys.stderr)
    got = 0
    try:
        while block := src.read(BLOCK):
            dst.write(block)
            got += len(block)
            if bar is not None:
                bar.update(len(block))
    finally:
        if bar is not None:
            bar.close()
    return got


def _check_whole(path: str, url: str) -> None:
    """A compressed download is read to its end: a truncated one is an error now, not
    a short archive later."""
    with open(path, "rb") as fh:
        kind = compression_of(fh.read(6))
    if not kind:
        return
    stream = open_stream(path)
    try:
        while stream.read(1 << 20):
            pass
    except (EOFError, OSError, ValueError, DecompressionBombError) as exc:
        raise FetchError(f"{url}: the {kind} download is damaged or cut short "
                         f"({_reason(exc)})") from None
    finally:
        stream.close()


def _reason(exc: object) -> str:
    text = str(getattr(exc, "strerror", None) or exc)
    return text.strip() or type(exc).__name__


# ------------------------------------------------------------------ git epochs


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true",
               GIT_PROTOCOL_FROM_USER="0", GIT_CONFIG_NOSYSTEM="1")
    env.pop("GIT_DIR", None)
    return env


def _git(*args: str, show: bool = False) -> subprocess.CompletedProcess[bytes]:
    git = shutil.which("git")
    if git is None:
        raise FetchError("git is not installed; install git to fetch public-inbox epochs")
    try:
        return subprocess.run([git, *GIT_SAFE, *args], env=_git_env(), check=False,
                              stdout=subprocess.PIPE,
                              stderr=None if show else subprocess.PIPE, timeout=24 * 3600)
    except subprocess.TimeoutExpired:
        raise FetchError(f"git {args[0] if args else ''} ran for a day: stopped") from None


def _git_failed(url: str, what: str, proc: subprocess.CompletedProcess[bytes]) -> FetchError:
    lines = (proc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
    last = lines[-1].removeprefix("fatal: ").strip() if lines else f"exit status {proc.returncode}"
    return FetchError(f"{url}: git {what} failed: {last}")


def cache_path(url: str, cache: str) -> str:
    """``CACHE/HOST/LIST/N.git`` for an epoch URL (host with its port)."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "host") + (f"_{parts.port}" if parts.port else "")
    m = EPOCH_PATH.match(parts.path)
    base, n = (m.group(1), m.group(2)) if m else (parts.path, "0")
    segments = [s for s in base.split("/") if s and s not in (".", "..")]
    safe = [re.sub(r"[^A-Za-z0-9._+-]", "_", s) for s in [host, *segments]]
    return os.path.join(cache, *safe, f"{n}.git")


def fetch_epoch(url: str, cache: str, show: bool = False) -> str:
    """The epoch at ``url`` as a bare mirror in the cache: cloned the first time,
    fetched after.  Returns the mirror's path."""
    dest = cache_path(url, cache)
    if os.path.isfile(os.path.join(dest, "HEAD")):
        origin = _git("--git-dir", dest, "config", "--get", "remote.origin.url")
        if origin.stdout.decode("utf-8", "replace").strip() != url:
            raise FetchError(f"{url}: the cache {dest} mirrors "
                             f"{origin.stdout.decode('utf-8', 'replace').strip() or 'nothing'}; "
                             f"give the same URL, or another --cache")
        proc = _git("--git-dir", dest, "fetch", "--prune", "--quiet", "origin", show=show)
        if proc.returncode != 0:
            raise _git_failed(url, "fetch", proc)
        return dest
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".clone-", dir=os.path.dirname(dest))
    try:
        proc = _git("clone", "--mirror", "--progress" if show else "--quiet", "--", url,
                    os.path.join(tmp, "epoch.git"), show=show)
        if proc.returncode != 0:
            raise _git_failed(url, "clone", proc)
        try:
            os.replace(os.path.join(tmp, "epoch.git"), dest)
        except OSError:
            if not os.path.isfile(os.path.join(dest, "HEAD")):
                raise FetchError(f"{url}: cannot move the clone into {dest}") from None
            # another run cloned it first: use that one
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def list_epochs(url: str) -> list[str]:
    """The epoch URLs of an inbox: from its ``manifest.js.gz``, else 0, 1, ... probed
    with ``git ls-remote`` until one is missing."""
    base = url.rstrip("/") + "/"
    listed = _manifest_epochs(base)
    if listed:
        return listed
    found = []
    n = 0
    while True:
        for candidate in (f"{base}{n}", f"{base}git/{n}.git"):
            if _git("ls-remote", "--", candidate).returncode == 0:
                found.append(candidate)
                break
        else:
            break
        n += 1
    if not found:
        raise FetchError(f"{url}: no public-inbox epoch found (neither a manifest.js.gz "
                         f"nor {base}0 nor {base}git/0.git)")
    return found


def _manifest_epochs(base: str) -> list[str]:
    request = urllib.request.Request(base + "manifest.js.gz", headers={"User-Agent": "mlx"})
    try:
        with _opener().open(request, timeout=TIMEOUT) as resp:
            data = resp.read(MANIFEST_MAX)
        if data[:2] == b"\x1f\x8b":
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
                data = gz.read(MANIFEST_MAX + 1)
            if len(data) > MANIFEST_MAX:
                return []  # no manifest is that big: probe instead
        manifest = json.loads(data)
    except (urllib.error.URLError, OSError, ValueError, EOFError, http.client.HTTPException):
        return []
    if not isinstance(manifest, dict):
        return []
    root = urllib.parse.urlsplit(base)
    inbox = root.path.rstrip("/")
    epochs = []
    for key in manifest:
        m = re.fullmatch(r"(.*)/git/(\d+)\.git", str(key))
        if m and m.group(1) == inbox:
            epochs.append((int(m.group(2)), f"{root.scheme}://{root.netloc}{inbox}/git/"
                                             f"{m.group(2)}.git"))
    return [u for _, u in sorted(epochs)]


@contextmanager
def localized(args: list[str], store: str, cache: str | None = None, lore: str = LORE,
              progress: bool | None = None) -> Iterator[list[str]]:
    """``localize`` as a context: the downloads are removed when it ends."""
    fetched = localize(args, store, cache, lore, progress)
    try:
        yield fetched.paths
    finally:
        fetched.cleanup()
