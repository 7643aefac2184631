"""An epoch fetched over HTTP, then fetched again after 1% new commits, in one run.

    python benchmarks/fetch.py                      # netfilter-devel as one epoch
    python benchmarks/fetch.py --archive A.mbox.xz --percent 1 --work /tmp/mlx-fetch
    python benchmarks/fetch.py --copies 10        # a 394,000-commit epoch

Builds a public-inbox epoch (one commit per message, blob ``m``) from the archive's
messages with ``git fast-import``, serves it from a local ``http.server`` (git's dumb
HTTP, after ``git update-server-info``), and times, each as a whole ``mlx ingest URL``
command in a fresh process:

  first   clone into an empty cache, ingest every message, link;
  again   the server's epoch gained ``--percent`` new commits (copies of messages with
          new Message-IDs): ``git fetch``, ingest only the new commits, link;
  noop    nothing new: fetch, nothing to read, link.

and prints seconds and the ratio again/first (target, issue 13: well under 10%).
``again`` runs ``--repeat`` times from copies of the store and cache as the first left
them (this machine is shared and noisy): each time and their median are printed.  The
link pass after ``again`` re-links only what the new messages touch; a full pass of the
store is timed apart.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
ARCHIVE = os.path.join(ROOT, "..", "shared", "corpus", "lists", "netfilter-devel.mbox.xz")

from mlx.ingest.sources import open_stream  # noqa: E402
from mlx.ingest.split import split_blocks  # noqa: E402


def messages(path: str) -> list[bytes]:
    stream = open_stream(path)
    try:
        return [m.data for m in split_blocks(iter(lambda: stream.read(1 << 20), b""))]
    finally:
        stream.close()


def fast_import(repo: str, bodies: list[bytes], parent: str | None, first: int = 0) -> None:
    """One commit per body (blob ``m``), on top of ``parent``; commit times one second
    apart from ``first`` seconds on, later than the parent's as on a real epoch (git walks
    a range by commit time: older new commits would make it walk the whole history)."""
    proc = subprocess.Popen(["git", "--git-dir", repo, "fast-import", "--quiet"],
                            stdin=subprocess.PIPE)
    assert proc.stdin is not None
    out = proc.stdin
    for k, body in enumerate(bodies):
        out.write(b"commit refs/heads/master\n")
        out.write(b"committer mlx <mlx@example.org> %d +0000\n" % (1700000000 + first + k))
        out.write(b"data 1\nm\n")
        if k == 0 and parent:
            out.write(b"from %s\n" % parent.encode())
        out.write(b"M 100644 inline m\ndata %d\n" % len(body) + body + b"\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")


def tip(repo: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, "rev-parse", "refs/heads/master"],
                          check=True, capture_output=True, text=True).stdout.strip()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve(directory: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def ingest(url: str, store: str, cache: str) -> tuple[float, str]:
    os.sync()  # what the last step wrote goes to disk before, not during, this one
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "mlx.cli", "ingest", url, "--store", store,
                          "--cache", cache], check=True, capture_output=True, text=True)
    return time.perf_counter() - t, out.stderr.strip().splitlines()[0]


def link_seconds(store: str) -> float:
    code = ("import sys, time; from mlx.link import link; from mlx.store import Store; "
            "t = time.perf_counter(); link(Store(sys.argv[1]), full=True); "
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code, store], check=True, capture_output=True,
                         text=True, cwd=ROOT)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--archive", default=ARCHIVE)
    ap.add_argument("--percent", type=float, default=1.0)
    ap.add_argument("--copies", type=int, default=1,
                    help="the archive's messages this many times (new Message-IDs each)")
    ap.add_argument("--work", default="/tmp/mlx-fetch")
    ap.add_argument("--repeat", type=int, default=5, help="runs of again (the median counts)")
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    www = os.path.join(args.work, "www")
    repo = os.path.join(www, "list", "git", "0.git")
    os.makedirs(os.path.dirname(repo))
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    one = messages(args.archive)
    bodies = [b if k == 0 else b.replace(b"Message-ID: <", b"Message-ID: <c%d." % k, 1)
              .replace(b"Message-Id: <", b"Message-Id: <c%d." % k, 1)
              for k in range(args.copies) for b in one]
    del one
    t = time.perf_counter()
    fast_import(repo, bodies, None)
    subprocess.run(["git", "--git-dir", repo, "repack", "-adq"], check=True)
    subprocess.run(["git", "--git-dir", repo, "update-server-info"], check=True)
    print(f"epoch: {len(bodies):,} commits built in {time.perf_counter() - t:.1f} s")
    server, base = serve(www)
    url = f"{base}/list/git/0.git"
    store, cache = os.path.join(args.work, "store"), os.path.join(args.work, "cache")
    try:
        first, said = ingest(url, store, cache)
        print(f"first: {first:6.1f} s   {said}")
        for path in (store, cache):
            shutil.copytree(path, path + ".first", symlinks=True)
        n_new = max(1, int(len(bodies) * args.percent / 100))
        new = [b.replace(b"Message-ID: <", b"Message-ID: <again.", 1)
               .replace(b"Message-Id: <", b"Message-Id: <again.", 1) for b in bodies[:n_new]]
        fast_import(repo, new, tip(repo), first=len(bodies))
        subprocess.run(["git", "--git-dir", repo, "update-server-info"], check=True)
        times = []
        for _ in range(args.repeat):  # each from the store and cache the first left
            for path in (store, cache):
                shutil.rmtree(path)
                shutil.copytree(path + ".first", path, symlinks=True)
            took, said = ingest(url, store, cache)
            times.append(took)
        again = sorted(times)[len(times) // 2]
        print(f"again: {again:6.1f} s   {said}   (+{n_new:,} commits, {args.percent}%; "
              f"runs {', '.join(f'{t:.2f}' for t in times)} s, the median counts)")
        noop, said = ingest(url, store, cache)
        print(f"noop:  {noop:6.1f} s   {said}")
        linked = link_seconds(store)
    finally:
        server.shutdown()
    print(f"again / first = {again / first:.1%} (target: well under 10%); a full link "
          f"pass alone takes {linked:.1f} s (again links incrementally)")


if __name__ == "__main__":
    main()
