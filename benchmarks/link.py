"""The link pass, old and new side by side in one run, and the commands a user runs.

    python benchmarks/link.py                # corpus store + a synthetic store
    python benchmarks/link.py --copies 20 --old 7079a16 --work /tmp/mlx-link

Stores:
  corpus     the five lists of ``../shared/corpus/lists/`` and the public-inbox
             epoch, ingested once into ``WORK/corpus`` (kept between runs);
  synthetic  ``--copies`` copies of the corpus store's rows (default 20: about 1.1M
             messages), each copy with its own uids, Message-IDs, references,
             subjects and dates eight years later, bodies dropped (the link pass
             never reads them), results, statements and hardware copied with them.

For each store it runs, each in a fresh process on its own copy of the store:
  old        the link pass of git revision ``--old`` (checked out in a worktree),
  new        the link pass of this checkout,
and prints seconds, peak RSS above the process's RSS before the pass (per message),
the speed-up, and whether every table of ``link/`` is identical; then ``mlx info``
and ``mlx claims``, whole commands in fresh processes, timed on the new store.
Targets (issue 15): peak <= 0.5 KiB per message and >= 3x faster than the old
pass; ``mlx info`` and ``mlx claims`` under 2 s.  (The old pass gives the patches of
cover letters without a diff, diffstat or trailers no commit_refs: a bug fixed with
the rewrite, so ``patches`` can differ in that column alone; ``tests/
test_link_columns.py`` compares the new pass with ``tests/link_reference.py``, which has
the fix.)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = [os.path.join(ROOT, "..", "shared", "corpus", "lists"),
          os.path.join(ROOT, "..", "shared", "corpus", "public-inbox")]
YEARS_US = int(8 * 365.25 * 86400 * 1e6)  # each copy's dates move on by eight years

# run in a fresh interpreter: RSS before the pass, the pass, peak RSS
RUN_LINK = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import pandas, pyarrow.dataset, pyarrow.parquet  # imported before the baseline
import mlx.analyse.claims, mlx.archive, mlx.link
from mlx.store import Store
def status(key):  # VmHWM, not ru_maxrss: that keeps the forking parent's RSS
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith(key)) * 1024
base = status("VmRSS")
t = time.perf_counter()
counts = mlx.link.link(Store(sys.argv[2]))
secs = time.perf_counter() - t
peak = status("VmHWM")
print(json.dumps({"secs": secs, "extra": peak - base, "counts": counts}))
"""


def run_link(code: str, store: str) -> dict:
    out = subprocess.run([sys.executable, "-c", RUN_LINK, code, store], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def corpus_store(work: str) -> str:
    store = os.path.join(work, "corpus")
    if not os.path.exists(os.path.join(store, "link")):
        shutil.rmtree(store, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "mlx.cli", "ingest", "-q", "--store", store,
                        *CORPUS], check=True)
    return store


def _copy_table(table: pa.Table, k: int, bodies: bool = False) -> pa.Table:
    """Copy ``k`` of a part: its own uids, ids, references, subjects and dates (bodies
    dropped unless ``bodies``)."""
    def suffix(col: str, text: str) -> None:
        nonlocal table
        at = table.schema.get_field_index(col)
        table = table.set_column(at, col, pc.binary_join_element_wise(
            table.column(col), pa.scalar(text), ""))
    suffix("uid", f"-{k}")
    suffix("message_id", f".{k}")
    if "thread_refs" in table.column_names:  # a messages part
        suffix("subject", f" #{k}")
        refs = table.column("thread_refs").combine_chunks()
        flat = pc.binary_join_element_wise(refs.values, pa.scalar(f".{k}"), "")
        at = table.schema.get_field_index("thread_refs")
        table = table.set_column(at, "thread_refs", pa.ListArray.from_arrays(
            refs.offsets, flat, mask=refs.is_null()))
        date = table.column("date")
        moved = pc.add(date.cast(pa.int64()), YEARS_US * k).cast(date.type)
        table = table.set_column(table.schema.get_field_index("date"), "date", moved)
        if not bodies:
            body = table.schema.get_field_index("body")
            table = table.set_column(body, "body", pa.nulls(len(table), pa.string()))
    return table


def synthetic_store(corpus: str, copies: int, work: str, bodies: bool = False) -> str:
    store = os.path.join(work, f"synthetic-{copies}" + ("-bodies" if bodies else ""))
    if os.path.exists(os.path.join(store, "mlx-store.json")):
        return store
    shutil.rmtree(store, ignore_errors=True)
    os.makedirs(store)
    for name in ("messages", "results", "statements", "hardware"):
        os.makedirs(os.path.join(store, name))
        for path in sorted(glob.glob(os.path.join(corpus, name, "*.parquet"))):
            table = pq.read_table(path)
            for k in range(copies):
                out = os.path.join(store, name, f"c{k}-{os.path.basename(path)}")
                pq.write_table(_copy_table(table, k, bodies), out, compression="zstd")
    for extra in ("mlx-store.json",):
        shutil.copy(os.path.join(corpus, extra), store)
    return store


def fresh_copy(store: str, work: str, name: str) -> str:
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(store, out, ignore=shutil.ignore_patterns("link"))
    return out


# the tables a user reads, and the columns their rows are ordered by to compare them (a
# pass in batches writes them in another order); keys, index and subjects are the
# link pass's own lookups, which other revisions lay out differently
COMPARED = {"messages": ["uid"], "threads": ["thread_id"], "patches": ["uid"],
            "reports": ["uid"], "claims": None}


def _sorted(path: str, by: list[str] | None) -> pa.Table:
    table = pq.read_table(path)
    by = by or [c for c in table.column_names if not pa.types.is_list(table.schema.field(c).type)
                and not pa.types.is_struct(table.schema.field(c).type)]
    return table.take(pc.sort_indices(table, [(c, "ascending") for c in by]))


def table_differences(a: str, b: str) -> dict[str, list[str]]:
    """For every table a user reads of ``link/``: the columns (and row counts) that
    differ, rows compared in order of their keys."""
    out = {}
    for name, by in COMPARED.items():
        path, other = (os.path.join(d, "link", f"{name}.parquet") for d in (a, b))
        if not os.path.exists(path) or not os.path.exists(other):
            out[name] = ["missing"]
            continue
        x, y = _sorted(path, by), _sorted(other, by)
        if x.num_rows != y.num_rows or x.schema != y.schema:
            out[name] = [f"rows {x.num_rows} vs {y.num_rows}, or schema"]
            continue
        out[name] = []
        for c in x.column_names:
            if not x.column(c).equals(y.column(c)):
                rows = sum(u != v for u, v in zip(x.column(c).to_pylist(),
                                                  y.column(c).to_pylist(), strict=True))
                out[name].append(f"{c} ({rows} rows)")
    return out


def old_checkout(rev: str, work: str) -> str:
    path = os.path.join(work, f"old-{rev}")
    if not os.path.exists(path):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, rev],
                       check=True, capture_output=True)
    return path


def messages_count(store: str) -> int:
    return sum(pq.read_metadata(p).num_rows
               for p in glob.glob(os.path.join(store, "messages", "*.parquet")))


def timed_command(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mlx.cli", *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def compare(label: str, store: str, old: str, work: str) -> None:
    n = messages_count(store)
    a = fresh_copy(store, work, "run-old")
    b = fresh_copy(store, work, "run-new")
    r_old = run_link(old, a)
    r_new = run_link(ROOT, b)
    differ = table_differences(a, b)
    print(f"\n{label}: {n:,} messages")
    for name, r in (("old", r_old), ("new", r_new)):
        print(f"  {name}: {r['secs']:6.2f} s, peak +{r['extra'] / 2**20:7.1f} MiB "
              f"= {r['extra'] / n:7.0f} B/message")
    print(f"  new is {r_old['secs'] / r_new['secs']:.1f}x faster, "
          f"{r_old['extra'] / max(r_new['extra'], 1):.1f}x less memory")
    print("  identical tables: " + ", ".join(
        f"{k} {'yes' if not v else 'NO: ' + ', '.join(v)}" for k, v in differ.items()))
    for cmd in (["info"], ["claims"]):
        print(f"  mlx {cmd[0]}: {timed_command([*cmd, '--store', b]):.2f} s")
    shutil.rmtree(a)
    shutil.rmtree(b)


def store_arguments(doc: str | None) -> argparse.ArgumentParser:
    """The options of a benchmark over the corpus and synthetic stores."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "mlx-link-bench"))
    return ap


def main() -> None:
    ap = store_arguments(__doc__)
    ap.add_argument("--old", default="7079a16", help="git revision of the old link pass")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    old = old_checkout(args.old, args.work)
    corpus = corpus_store(args.work)
    compare("corpus store", corpus, old, args.work)
    if args.copies:
        compare(f"synthetic store ({args.copies} copies)",
                synthetic_store(corpus, args.copies, args.work), old, args.work)


if __name__ == "__main__":
    main()
