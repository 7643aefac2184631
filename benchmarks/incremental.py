"""The incremental link pass against a full one, at two store sizes, in one run.

    python benchmarks/incremental.py                      # corpus store + 20 copies
    python benchmarks/incremental.py --copies 5 --work /tmp/mlx-link-bench

For each store (the stores of ``benchmarks/link.py``: the corpus lists and epoch, and
``--copies`` shifted copies of it), each step a fresh process on its own copy:

  full     the whole store linked from nothing;
  +1%      new messages (copies of the newest 1%, with new uids and Message-IDs, still
           replying where those replied and sharing their titles) land as a new part,
           and the store is linked again: incrementally;
  +10      the same with the newest 10 messages;

and prints seconds and peak RSS of each, the share of the store each increment
re-linked, the ratio increment / full (target, issue 15: 1% under 10%), and whether
the tables equal a full re-link of the same store (rows compared sorted).  The three
steps run in turn, ``--repeat`` rounds (default 5), each run on a fresh copy, and the
medians count (the ratio of each round is printed too): on a shared machine one run
of the same pass varies by half, and a slow spell slows the steps of one round alike.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from link import (  # noqa: E402
    ROOT,
    corpus_store,
    messages_count,
    run_link,
    store_arguments,
    synthetic_store,
)

sys.path.insert(0, ROOT)
KEYS = {"messages": ["uid"], "threads": ["thread_id"], "patches": ["uid"],
        "reports": ["uid"], "claims": None}


def add_newest(store: str, count: int, tag: str) -> int:
    """A part of copies of the ``count`` newest messages (new uids and ids)."""
    import glob
    parts = sorted(glob.glob(os.path.join(store, "messages", "*.parquet")))
    tables = [pq.read_table(p) for p in parts]
    table = pa.concat_tables(tables, promote_options="default")
    order = pc.sort_indices(table, [("date", "descending")])
    new = table.take(order[:count])
    for col, sep in (("uid", "-"), ("message_id", ".")):
        at = new.schema.get_field_index(col)
        new = new.set_column(at, col, pc.binary_join_element_wise(
            new.column(col), pa.scalar(f"{sep}{tag}"), ""))
    pq.write_table(new, os.path.join(store, "messages", f"part-{tag}-c000000.parquet"),
                   compression="zstd")
    return len(new)


def live(store: str, name: str) -> pa.Table:
    from mlx.store import Store
    table = Store(store).read_link(name)
    assert table is not None
    keys = KEYS[name] or [c for c in table.column_names
                          if not pa.types.is_list(table.schema.field(c).type)]
    return table.take(pc.sort_indices(table, [(k, "ascending") for k in keys]))


def same_tables(a: str, b: str) -> bool:
    return all(live(a, name).equals(live(b, name)) for name in KEYS)


def one_run(store: str, work: str, ignore: Any = None) -> dict:
    """``run_link`` on a fresh copy of ``store`` (left in ``WORK/inc-run``)."""
    run = os.path.join(work, "inc-run")
    shutil.rmtree(run, ignore_errors=True)
    shutil.copytree(store, run, ignore=ignore)
    os.sync()  # the copy written back before the pass, not during it
    return run_link(ROOT, run)


def median(runs: list[dict]) -> dict:
    """The run of median seconds, with every run's seconds and the highest peak."""
    out = dict(sorted(runs, key=lambda r: r["secs"])[len(runs) // 2])
    out["all"] = [r["secs"] for r in runs]
    out["extra"] = max(r["extra"] for r in runs)
    return out


def bench(label: str, store: str, work: str, repeat: int) -> None:
    n = messages_count(store)
    print(f"\n{label}: {n:,} messages")
    no_link = shutil.ignore_patterns("link")
    one_run(store, work, no_link)
    base = os.path.join(work, "inc-base")
    shutil.rmtree(base, ignore_errors=True)
    shutil.move(os.path.join(work, "inc-run"), base)  # a full pass's store
    steps = {"+1%": max(1, n // 100), "+10": 10}
    grown, added = {}, {}
    for what, count in steps.items():
        grown[what] = os.path.join(work, f"inc-grown{len(grown)}")
        shutil.rmtree(grown[what], ignore_errors=True)
        shutil.copytree(base, grown[what])
        added[what] = add_newest(grown[what], count, "new")
    shutil.rmtree(base)
    # the steps of each round run one after another: a machine that slows down for a
    # while slows a full pass and the increments of the same round alike
    runs: dict[str, list[dict]] = {"full": [], **{what: [] for what in steps}}
    for _ in range(repeat):
        runs["full"].append(one_run(store, work, no_link))
        for what in steps:
            runs[what].append(one_run(grown[what], work))
    full = median(runs["full"])
    print(f"  full:  {full['secs']:6.2f} s (of {_runs(full)}), peak "
          f"+{full['extra'] / 2**20:6.0f} MiB")
    for what in steps:
        inc = median(runs[what])
        one_run(grown[what], work)  # the store an increment leaves, to check
        run = os.path.join(work, "inc-run")
        from mlx.store import Store
        info = Store(run).link_info()
        kind = "incremental" if info.get("gens") else "FULL"
        relinked = info.get("delta_rows", n)
        check = os.path.join(work, "inc-check")
        shutil.rmtree(check, ignore_errors=True)
        shutil.copytree(run, check, ignore=no_link)
        run_link(ROOT, check)
        rounds = ", ".join(f"{i['secs'] / f['secs']:.1%}"
                           for i, f in zip(runs[what], runs["full"], strict=True))
        print(f"  {what:4} ({added[what]:,} new): {inc['secs']:6.2f} s (of {_runs(inc)}; "
              f"{kind}), peak +{inc['extra'] / 2**20:5.0f} MiB, re-linked {relinked:,} "
              f"messages ({relinked / n:.1%} of the store); {inc['secs'] / full['secs']:.1%} "
              f"of a full link (each round: {rounds}); tables equal a full re-link: "
              f"{'yes' if same_tables(run, check) else 'NO'}")
        shutil.rmtree(check)
        shutil.rmtree(run)
        shutil.rmtree(grown[what])


def _runs(run: dict) -> str:
    return ", ".join(f"{s:.2f}" for s in run["all"])


def main() -> None:
    ap = store_arguments(__doc__)
    ap.add_argument("--repeat", type=int, default=5, help="runs of each step (median)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    corpus = corpus_store(args.work)
    bench("corpus store", corpus, args.work, args.repeat)
    if args.copies:
        bench(f"synthetic store ({args.copies} copies)",
              synthetic_store(corpus, args.copies, args.work), args.work, args.repeat)


if __name__ == "__main__":
    main()
