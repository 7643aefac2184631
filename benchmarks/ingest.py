"""Ingest speed and memory, side by side in one run (the machine is noisy).

    python benchmarks/ingest.py ../shared/corpus/lists/netfilter-devel.mbox.xz --repeat 3
    python benchmarks/ingest.py ARCHIVE --engine local,dask --workers 1,2

Times on the same plain mbox (a compressed archive is decompressed once to a
temp file first, so all three read the same bytes):

  (a) naive: stdlib ``mailbox.mbox`` + ``mailparser.parse_from_bytes``
  (b) ``mlx ingest`` with default settings (parallel workers), into a new store,
      and (b') the same with ``--no-extract``, (b'') with ``--extract results`` and
      (b''') with ``--extract results,statements``, for what each extractor costs: what
      it adds to the run without it (hardware: the default run over (b'''), which loads
      spaCy for the statements too; statements: (b''') over (b''))
  (c) Perceval's mbox backend (``perceval mbox file://DIR DIR --json-line``),
      the peer a user would pick instead; it only parses

and prints messages/s of each (``--repeat N``: the median of N rounds, each running
every variant but (a) once, interleaved), the ratios (b)/(a) and (b)/(c), and the peak
RSS of (b) summed over its process tree.  Targets: (b) >= 6x (a), >= 2x (c),
peak RSS < 1 GiB.  Perceval is looked up as ``--perceval`` or on PATH
(``pip install perceval``, best in a venv of its own); without it (c) is skipped.

With ``--engine`` it measures scaling instead: messages/s of the default job for
each engine (``local``; ``dask``, where mlx starts a LocalCluster inside the
timing; ``dask-cluster``, a cluster already running, as on real machines) and
worker count, the parallel efficiency (most workers over one;
target for 2 workers >= 1.7x), how the time splits (start-up until the first
chunk, chunks, the link pass), and the driver's peak RSS alone and with its
workers.  Then, for the first engine and the most workers, the driver's peak RSS
on the first half of the archive and on all of it, per message: flat means the
per-message figure halves when the archive doubles.
"""

from __future__ import annotations

import argparse
import json
import logging
import mailbox
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

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


@dataclass
class Watched:
    secs: float
    driver: int  # peak RSS of the process itself, bytes
    tree: int  # peak RSS summed over it and its children
    out: str
    err: str


def run_watched(cmd: list[str], stdout: int | None = None) -> Watched:
    """Run ``cmd`` to its end, sampling the RSS of it and its process tree.

    The pipes are drained by ``communicate`` while a thread samples, so a child
    that writes much (dask's warnings) never blocks on a full pipe.
    """
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    ps = psutil.Process(proc.pid)
    peak = {"driver": 0, "tree": 0}

    def sample() -> None:
        while proc.poll() is None:
            try:
                own = ps.memory_info().rss
                kids = sum(c.memory_info().rss for c in ps.children(recursive=True))
            except psutil.Error:
                own = kids = 0
            peak["driver"] = max(peak["driver"], own)
            peak["tree"] = max(peak["tree"], own + kids)
            time.sleep(0.05)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    th.join()
    if proc.returncode:
        sys.exit(f"{cmd[0]} {cmd[-1]} failed: {err.decode(errors='replace')[-800:]}")
    return Watched(time.perf_counter() - t, peak["driver"], peak["tree"],
                   (out or b"").decode(errors="replace"), err.decode(errors="replace"))


DRIVER = """
import json, sys, time, mlx
t = time.perf_counter()
first = []
def progress(n):
    first or first.append(time.perf_counter() - t)
r = mlx.ingest([sys.argv[1]], store=sys.argv[2], workers=int(sys.argv[3]), engine=sys.argv[4],
               scheduler=sys.argv[5] or None, progress=progress)
print(json.dumps({"raw": r.raw, "secs": time.perf_counter() - t, "first": first[0],
                  "link": r.link_elapsed}))
"""


LINK = """
import json, sys, time
t = time.perf_counter()
from mlx.link import link_store
link_store(sys.argv[1])
print(json.dumps({"secs": time.perf_counter() - t}))
"""


def run_driver(path: str, store: str, workers: int, engine: str,
               keep: bool = False) -> dict[str, float]:
    """One ingest in a fresh process: its report, and peak RSS of the driver and tree.

    ``dask-cluster`` is the Dask engine on a cluster already running (started
    and warmed here, outside the timing), as on a real cluster.
    """
    if engine == "dask-cluster":
        from distributed import LocalCluster
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None,
                          memory_limit=0) as cluster:  # as the README starts workers
            address = cluster.scheduler_address
            warm = [sys.executable, "-m", "mlx.cli", "ingest", "-q", "--engine", "dask",
                    "--scheduler", address, "--store", store + "-warm", "data"]
            subprocess.run(warm, check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
            shutil.rmtree(store + "-warm", ignore_errors=True)
            res = watch([sys.executable, "-c", DRIVER, path, store, str(workers), "dask",
                         address])
    else:
        res = watch([sys.executable, "-c", DRIVER, path, store, str(workers), engine, ""])
    if not keep:
        shutil.rmtree(store, ignore_errors=True)
    return res


def watch(cmd: list[str]) -> dict[str, float]:
    """Run ``cmd``; the JSON of its last stdout line, wall time, peak RSS (MiB) of it
    and its tree."""
    w = run_watched(cmd)
    res: dict[str, float] = json.loads(w.out.strip().splitlines()[-1])
    res.update(wall=w.secs, driver=w.driver / 2**20, tree=w.tree / 2**20)
    return res


def first_half(plain: str, tmp: str) -> str:
    """The messages of the first half of ``plain`` (cut at a From_ line), streamed."""
    half = os.path.join(tmp, "half.mbox")
    size = os.path.getsize(plain)
    with open(plain, "rb") as src, open(half, "wb") as dst:
        src.seek(size // 2)
        src.readline()
        while (line := src.readline()) and not line.startswith(b"From "):
            pass
        cut = src.tell() - len(line)
        src.seek(0)
        while cut > 0 and (block := src.read(min(cut, 1 << 20))):
            dst.write(block)
            cut -= len(block)
    return half


def scale(plain: str, engines: list[str], workers: list[int], tmp: str, repeat: int) -> None:
    for engine in engines:
        runs: dict[int, list[dict[str, float]]] = {n: [] for n in workers}
        for _ in range(repeat):  # interleaved, so a slow spell hits every worker count
            for n in workers:
                r = run_driver(plain, os.path.join(tmp, f"s-{engine}-{n}"), n, engine)
                runs[n].append(r)
                chunks = r["secs"] - r["first"] - r["link"]
                print(f"{engine:5} {n} worker(s): {r['raw']} msgs {r['secs']:6.1f}s "
                      f"{r['raw'] / r['secs']:6.0f} msg/s  (first chunk {r['first']:.1f}s, "
                      f"chunks {chunks:.1f}s, link {r['link']:.1f}s)  peak RSS driver "
                      f"{r['driver']:.0f} MiB, with workers {r['tree']:.0f} MiB", flush=True)
        rates = {n: statistics.median(r["raw"] / r["secs"] for r in runs[n]) for n in workers}
        lo, hi = min(workers), max(workers)
        if hi > lo:
            gain = rates[hi] / rates[lo]
            print(f"{engine:5} {hi} workers / {lo}: {gain:.2f}x  (medians of {repeat} run(s): "
                  f"{rates[lo]:.0f} and {rates[hi]:.0f} msg/s; parallel efficiency "
                  f"{gain / (hi / lo):.0%}; target for 2 workers >= 1.7x)", flush=True)
    half = first_half(plain, tmp)
    sizes = []
    for i, path in enumerate((half, plain)):
        store = os.path.join(tmp, f"s-mem-{i}")
        r = run_driver(path, store, max(workers), engines[0], keep=True)
        link = watch([sys.executable, "-c", LINK, store])
        shutil.rmtree(store, ignore_errors=True)
        sizes.append((r["raw"], r["driver"], r["tree"], link["driver"], link["secs"]))
    print(f"driver peak RSS ({engines[0]}, {max(workers)} workers): " + ", ".join(
        f"{mib:.0f} MiB for {n} msgs ({mib * 1024 / n:.1f} KiB/msg; with workers "
        f"{tree:.0f} MiB)" for n, mib, tree, _, _ in sizes))
    (n1, m1, _, l1, s1), (n2, m2, _, l2, s2) = sizes
    print(f"driver growth: {(m2 - m1) * 1024 / (n2 - n1):.2f} KiB per added message")
    print(f"link pass alone (a process of its own): {l1:.0f} MiB, {s1:.1f}s for {n1} msgs; "
          f"{l2:.0f} MiB, {s2:.1f}s for {n2} msgs: {(l2 - l1) * 1024 / (n2 - n1):.1f} KiB and "
          f"{(s2 - s1) * 1e6 / (n2 - n1):.0f} us per added message")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("archive")
    ap.add_argument("--naive-limit", type=int, default=None,
                    help="stop the naive loop after N messages (its rate is what is compared)")
    ap.add_argument("--perceval", default=shutil.which("perceval"))
    ap.add_argument("--engine", default=None,
                    help="measure scaling of these engines instead: local, dask (mlx starts "
                         "a LocalCluster, timed), dask-cluster (a running one), comma-separated")
    ap.add_argument("--workers", default=None,
                    help="worker counts, e.g. 1,2 (with --engine; default 1,2) or one count "
                         "for (b)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each variant (with --engine: per worker count), "
                         "interleaved; medians compared")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be 1 or more")
    with tempfile.TemporaryDirectory() as tmp:
        plain = decompress(args.archive, tmp)
        size = os.path.getsize(plain)
        print(f"archive: {args.archive} ({size / 2**20:.0f} MiB plain)", flush=True)
        if args.engine:
            counts = [int(w) for w in (args.workers or "1,2").split(",")]
            scale(plain, args.engine.split(","), counts, tmp, args.repeat)
            return

        store = os.path.join(tmp, "store")
        base = [sys.executable, "-m", "mlx.cli", "ingest", plain,
                *(["--workers", args.workers] if args.workers else [])]
        pdir = os.path.join(tmp, "perceval")
        if args.perceval:
            os.makedirs(pdir)
            os.link(plain, os.path.join(pdir, "archive.mbox"))
        # each variant once per round, interleaved, medians compared: on a shared machine
        # a variant run alone may meet a slow minute the others did not
        secs: dict[str, list[float]] = {"x": [], "r": [], "s": [], "b": [], "c": []}
        for rnd in range(args.repeat):
            for key, extra in (("x", ["--no-extract"]), ("r", ["--extract", "results"]),
                               ("s", ["--extract", "results,statements"])):
                shutil.rmtree(store + "-" + key, ignore_errors=True)
                secs[key].append(run_watched([*base, "--store", store + "-" + key, *extra]).secs)
            shutil.rmtree(store, ignore_errors=True)
            b = run_watched([*base, "--store", store])
            secs["b"].append(b.secs)
            if rnd == 0:
                peak_b, summary = b.tree, b.err
            if args.perceval:
                with open(os.path.join(tmp, "perceval.jsonl"), "wb") as fh:
                    secs["c"].append(run_watched([args.perceval, "mbox", f"file://{pdir}", pdir,
                                                  "--json-line"], stdout=fh.fileno()).secs)
            print(f"round {rnd + 1}: " + ", ".join(f"{k} {v[-1]:.1f}s" for k, v in secs.items()
                                                 if v), flush=True)
        med = {k: statistics.median(v) for k, v in secs.items() if v}
        secs_x, secs_r, secs_s, secs_b = med["x"], med["r"], med["s"], med["b"]
        print(f"(b') mlx ingest --no-extract: {secs_x:7.1f}s", flush=True)
        print(f"(b'') mlx ingest --extract results: {secs_r:7.1f}s", flush=True)
        print(f"(b''') mlx ingest --extract results,statements: {secs_s:7.1f}s", flush=True)
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
            with open(os.path.join(tmp, "perceval.jsonl"), "rb") as fh:
                n_c = sum(1 for _ in fh)
            rate_c = n_c / med["c"]
            print(f"(c) perceval mbox:   {n_c:>7} msgs {med['c']:7.1f}s {rate_c:8.0f} msg/s",
                  flush=True)
        print(f"result extraction adds {100 * (secs_r / secs_x - 1):.0f}% to ingest "
              f"(target <= 25%)")
        print(f"hardware extraction adds {100 * (secs_b / secs_s - 1):.0f}% to ingest "
              f"(target < 15%)")
        print(f"statement extraction adds {100 * (secs_s / secs_r - 1):.0f}% to ingest "
              "(spaCy's load with it)")
        print(f"(b)/(a) = {rate_b / rate_a:.1f}x  (target >= 6x)")
        if rate_c:
            print(f"(b)/(c) = {rate_b / rate_c:.1f}x  (target >= 2x)")
        print(f"peak RSS of (b) = {peak_b / 2**20:.0f} MiB  (target < 1024 MiB)")


if __name__ == "__main__":
    main()
