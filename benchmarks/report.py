"""``mlx report``, old and new side by side in one run: seconds and megabytes.

    python benchmarks/report.py --old f23b44b [--copies 2] [--work DIR]

The store: ``--copies`` copies of the corpus store (``benchmarks/link.py``'s, the five
lists and the public-inbox epoch), bodies kept, linked once (2 copies: some 110,000
messages).  Each revision writes its report, in a fresh process, into a directory of
its own; the script prints the time, the total size and the largest files of each.
Target (issue 36): the new report under 25 MB and written in under a third of the old
one's time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from link import (
    ROOT,
    corpus_store,
    messages_count,
    old_checkout,
    store_arguments,
    synthetic_store,
)

LINKED = ("import sys; from mlx.link import link; from mlx.store import Store; "
          "link(Store(sys.argv[1]))")


def report(code: str, store: str, out: str) -> float:
    """Seconds of ``mlx report`` of checkout ``code`` on ``store``, written to ``out``."""
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": code}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mlx.cli", "report", "--store", store, "--out", out],
                   check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t


def sizes(out: str) -> list[tuple[int, str]]:
    files = [(os.path.getsize(os.path.join(d, f)), os.path.relpath(os.path.join(d, f), out))
             for d, _, names in os.walk(out) for f in names]
    return sorted(files, reverse=True)


def main() -> None:
    ap = store_arguments(__doc__)
    ap.set_defaults(copies=2, work="/tmp/mlx-report-bench")
    ap.add_argument("--old", required=True, help="git revision of the old report")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    old = old_checkout(args.old, args.work)
    store = synthetic_store(corpus_store(args.work), args.copies, args.work, bodies=True)
    if not os.path.exists(os.path.join(store, "link")):
        subprocess.run([sys.executable, "-c", LINKED, store], check=True,
                       env={**os.environ, "PYTHONPATH": ROOT})
    print(f"store: {messages_count(store):,} messages ({args.copies} copies of the corpus)")
    times, total = {}, {}
    for name, code in (("old", old), ("new", ROOT)):
        out = os.path.join(args.work, f"report-{name}")
        times[name] = report(code, store, out)
        files = sizes(out)
        total[name] = sum(s for s, _ in files)
        print(f"  {name}: {times[name]:6.1f} s, {total[name] / 1e6:7.1f} MB in "
              f"{len(files)} files; largest: " + ", ".join(
                  f"{p} {s / 1e6:.1f} MB" for s, p in files[:3]))
    print(f"  new is {times['old'] / times['new']:.1f}x faster (target >= 3x), "
          f"{total['new'] / 1e6:.1f} MB (target < 25 MB)")


if __name__ == "__main__":
    main()
