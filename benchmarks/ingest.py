"""Ingest speed and memory, side by side in one run (the machine is noisy).

    python benchmarks/ingest.py ../shared/corpus/lists/netfilter-devel.mbox.xz

Times on the same plain mbox (a compressed archive is decompressed once to a
temp file first, so all three read the same bytes):

  (a) naive: stdlib ``mailbox.mbox`` + ``mailparser.parse_from_bytes``
  (b) ``mlx ingest`` with default settings (parallel workers), into a new store,
      and (b') the same with ``--no-extract``, (b'') with ``--extract results`` and
      (b''') with ``--extract results,hardware``, for what each extractor costs
  (c) Perceval's mbox backend (``perceval mbox file://DIR DIR --json-line``),
      the peer a user would pick instead; it only parses

and prints messages/s of each, the ratios (b)/(a) and (b)/(c), and the peak
RSS of (b) summed over its process tree.  Targets: (b) >= 6x (a), >= 2x (c),
peak RSS < 1 GiB.  Perceval is looked up as ``--perceval`` or on PATH
(``pip install perceval``, best in a venv of its own); without it (c) is skipped.
"""

from __future__ import annotations

import argparse
import logging
import mailbox
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import mailparser
import psutil

from mlx.ingest.sources import open_stream


def decompress(path: str, tmp: str) -> str:
    out = os.path.join(tmp, "archive.mbox")
    stream = open_stream(path)
    with open(out, "wb") as fh:
        shutil.copyfileobj(stream, fh, 1 << 20)  # type: ignore[misc]
    stream.close()
    return out


def naive(path: str, limit: int | None) -> tuple[int, float]:
    logging.getLogger("mailparser").setLevel(logging.ERROR)  # one warning per PGP part
    t = time.perf_counter()
    n = 0
    for msg in mailbox.mbox(path, create=False):
        mailparser.parse_from_bytes(msg.as_bytes())
        n += 1
        if limit and n >= limit:
            break
    return n, time.perf_counter() - t


def run_watched(cmd: list[str], stdout: int | None = None) -> tuple[float, int, str]:
    """Wall time and peak RSS summed over the process tree of ``cmd``."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout or subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    ps = psutil.Process(proc.pid)

    def watch() -> None:
        nonlocal peak
        while proc.poll() is None:
            try:
                rss = ps.memory_info().rss + sum(c.memory_info().rss
                                                 for c in ps.children(recursive=True))
            except psutil.Error:
                rss = 0
            peak = max(peak, rss)
            time.sleep(0.1)

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    _, err = proc.communicate()
    th.join()
    if proc.returncode:
        sys.exit(f"{cmd[0]} failed: {err.decode(errors='replace')[-500:]}")
    return time.perf_counter() - t, peak, err.decode(errors="replace")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--naive-limit", type=int, default=None,
                    help="stop the naive loop after N messages (its rate is what is compared)")
    ap.add_argument("--perceval", default=shutil.which("perceval"))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain = decompress(args.archive, tmp)
        size = os.path.getsize(plain)
        print(f"archive: {args.archive} ({size / 2**20:.0f} MiB plain)", flush=True)

        store = os.path.join(tmp, "store")
        cmd = [sys.executable, "-m", "mlx.cli", "ingest", plain, "--store", store]
        if args.workers:
            cmd += ["--workers", str(args.workers)]
        secs_x, _, _ = run_watched(cmd[:-1] + [store + "-x", "--no-extract"])
        print(f"(b') mlx ingest --no-extract: {secs_x:7.1f}s", flush=True)
        secs_r, _, _ = run_watched(cmd[:-1] + [store + "-r", "--extract", "results"])
        print(f"(b'') mlx ingest --extract results: {secs_r:7.1f}s", flush=True)
        secs_h, _, _ = run_watched(cmd[:-1] + [store + "-h", "--extract", "results,hardware"])
        print(f"(b''') mlx ingest --extract results,hardware: {secs_h:7.1f}s", flush=True)
        secs_b, peak_b, summary = run_watched(cmd)
        import mlx
        n_b = mlx.load(store).messages.shape[0] + mlx.load(store).errors.shape[0]
        raw = int(summary.split(" raw messages")[0].replace(",", "").split()[-1])
        rate_b = raw / secs_b
        print(f"(b) mlx ingest:      {raw:>7} msgs {secs_b:7.1f}s {rate_b:8.0f} msg/s "
              f"peak RSS {peak_b / 2**20:.0f} MiB  ({n_b} rows stored)", flush=True)

        n_a, secs_a = naive(plain, args.naive_limit)
        rate_a = n_a / secs_a
        print(f"(a) mailbox+mailparser: {n_a:>7} msgs {secs_a:7.1f}s {rate_a:8.0f} msg/s",
              flush=True)

        rate_c = None
        if args.perceval:
            pdir = os.path.join(tmp, "perceval")
            os.makedirs(pdir)
            os.link(plain, os.path.join(pdir, "archive.mbox"))
            out = os.path.join(tmp, "perceval.jsonl")
            with open(out, "wb") as fh:
                secs_c, _, _ = run_watched([args.perceval, "mbox", f"file://{pdir}", pdir,
                                            "--json-line"], stdout=fh.fileno())
            with open(out, "rb") as fh:
                n_c = sum(1 for _ in fh)
            rate_c = n_c / secs_c
            print(f"(c) perceval mbox:   {n_c:>7} msgs {secs_c:7.1f}s {rate_c:8.0f} msg/s",
                  flush=True)
        print(f"result extraction adds {100 * (secs_r / secs_x - 1):.0f}% to ingest "
              f"(target <= 25%)")
        print(f"hardware extraction adds {100 * (secs_h / secs_r - 1):.0f}% to ingest "
              f"(target < 15%)")
        print(f"statement extraction adds {100 * (secs_b / secs_h - 1):.0f}% to ingest")
        print(f"(b)/(a) = {rate_b / rate_a:.1f}x  (target >= 6x)")
        if rate_c:
            print(f"(b)/(c) = {rate_b / rate_c:.1f}x  (target >= 2x)")
        print(f"peak RSS of (b) = {peak_b / 2**20:.0f} MiB  (target < 1024 MiB)")


if __name__ == "__main__":
    main()
