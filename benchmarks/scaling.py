"""Parallel efficiency of the local and Dask engines, and the driver's memory.

    python benchmarks/scaling.py ../shared/corpus/lists/netfilter-devel.mbox.xz

Decompresses the archive once (so byte ranges apply), then ingests it with 1 and
2 workers of each engine (``--no-extract`` is not used: the default job), and
prints messages/s, the speed-up of 2 workers over 1 (target >= 1.7x) and the
driver's peak RSS for the whole archive and for its first half (flat = RSS per
message falls as the archive grows).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from mlx.ingest.sources import open_stream

DRIVER = """
import resource, sys, time, mlx
t = time.perf_counter()
r = mlx.ingest([sys.argv[1]], store=sys.argv[2], workers=int(sys.argv[3]), engine=sys.argv[4])
print(r.raw, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run(path: str, workers: int, engine: str, tmp: str) -> tuple[int, float, int]:
    store = os.path.join(tmp, f"s-{engine}-{workers}")
    out = subprocess.run([sys.executable, "-c", DRIVER, path, store, str(workers), engine],
                         capture_output=True, text=True, check=True).stdout.split()
    shutil.rmtree(store, ignore_errors=True)
    return int(out[0]), float(out[1]), int(out[2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--engines", default="local,dask")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "archive.mbox")
        with open(plain, "wb") as fh:
            shutil.copyfileobj(open_stream(args.archive), fh, 1 << 20)  # type: ignore[misc]
        half = os.path.join(tmp, "half.mbox")
        size = os.path.getsize(plain)
        with open(plain, "rb") as src, open(half, "wb") as dst:
            data = src.read(size // 2)
            dst.write(data[:data.rfind(b"\nFrom mboxrd@z") + 1])
        for engine in args.engines.split(","):
            rates = {}
            for workers in (1, 2):
                n, secs, rss = run(plain, workers, engine, tmp)
                rates[workers] = n / secs
                print(f"{engine:5} {workers} worker(s): {n} msgs {secs:6.1f}s "
                      f"{n / secs:7.0f} msg/s, driver peak RSS {rss / 1024:.0f} MiB", flush=True)
            print(f"{engine:5} 2 workers / 1 worker = {rates[2] / rates[1]:.2f}x "
                  f"(parallel efficiency {rates[2] / rates[1] / 2:.0%}; target >= 1.7x)")
        n_half, _, rss_half = run(half, 2, "local", tmp)
        n_full, _, rss_full = run(plain, 2, "local", tmp)
        print(f"driver RSS: {rss_half / 1024:.0f} MiB for {n_half} msgs "
              f"({rss_half / n_half:.1f} KiB/msg), {rss_full / 1024:.0f} MiB for {n_full} msgs "
              f"({rss_full / n_full:.1f} KiB/msg)")


if __name__ == "__main__":
    t = time.perf_counter()
    main()
    print(f"({time.perf_counter() - t:.0f} s in all; {resource.getpagesize()} B pages)")
