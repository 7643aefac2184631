"""The extracted tables of two revisions side by side: every row that differs.

    python benchmarks/compare.py --old REV [--work DIR] [--tables results,claims,hardware]
                                 [ARCHIVE ...]

Ingests the archives (default: every archive of ``../shared/corpus/`` but the big
netfilter-devel and the held-out lists: the four other lists, the dev lists' candidates,
``perf/``, ``perf-threads/``, ``hardware/`` and the single messages) once with git
revision ``--old`` (checked out in a
worktree) and once with this checkout, each in a fresh process, and prints for each
table the rows only the old or only the new store has (by message and the columns that
make a row: value, unit, label, condition, config, ... for results; the pair and its
verdict for claims; kind, text, role and host for hardware), then a count per table.
What a change to extraction must show before it lands: every row it moves, explained.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
# (the candidates of the dev lists only: the held-out lists' messages are never read while
# rules are written, and this script prints rows with their lines)
DEFAULT = ["lists/ath10k.mbox.gz", "lists/linux-sctp.mbox.gz", "lists/openwrt-devel.mbox.gz",
           "lists/xdp-newbies.mbox.gz", "perf", "perf-threads", "hardware",
           "fixtures/single-messages", *(f"candidates/{name}.mboxrd.gz" for name in (
               "io-uring", "linux-renesas-soc", "linux-s390", "linux-stm32", "linux-usb"))]
ROWS = {  # the columns that make a row of each table
    "results": ["message_id", "line_no", "tool", "test", "metric", "side", "value_norm",
                "unit_norm", "label", "condition", "config", "is_summary", "quoted"],
    "claims": ["message_id", "kind", "tool", "test", "metric", "side", "config",
               "baseline_value", "patched_value", "unit_norm", "verdict", "stated_pct"],
    "hardware": ["message_id", "line_no", "kind", "text", "role", "host", "quoted"],
    "statements": ["message_id", "line_no", "kind", "direction", "stated_pct", "quoted"],
}
INGEST = "import sys, mlx; mlx.ingest(sys.argv[2:], store=sys.argv[1], workers=2)"


def ingest(src: Path, store: Path, archives: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([sys.executable, "-c", INGEST, str(store), *archives], check=True, env=env,
                   cwd=src)


def rows(store: Path, table: str) -> set[tuple[str, ...]]:
    import mlx
    archive = mlx.load(str(store))
    df = archive.claims if table == "claims" else archive.table(table)
    cols = [c for c in ROWS[table] if c in df.columns]
    out = set()
    for rec in df[cols].itertuples(index=False):
        out.add(tuple("" if v is None or (isinstance(v, float) and v != v) else
                      f"{v:.6g}" if isinstance(v, float) else str(v) for v in rec))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="*")
    ap.add_argument("--old", required=True, help="the git revision to compare with")
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--tables", default="results,claims,hardware")
    a = ap.parse_args(argv)
    archives = [os.path.abspath(p) for p in a.archives] or [
        str(CORPUS / p) for p in DEFAULT if (CORPUS / p).exists()]
    work = a.work or Path(tempfile.mkdtemp(prefix="mlx-compare-"))
    tree = work / "old-tree"
    if not tree.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), a.old], cwd=ROOT,
                       check=True, capture_output=True)
    try:
        for name, src in (("old", tree), ("new", ROOT)):
            if not (work / name).exists():
                ingest(src, work / name, archives)
        for table in a.tables.split(","):
            old, new = rows(work / "old", table), rows(work / "new", table)
            print(f"== {table}: {len(old - new)} rows only old, {len(new - old)} only new "
                  f"(of {len(old)} / {len(new)})")
            for tag, only in (("-", old - new), ("+", new - old)):
                for r in sorted(only):
                    print(tag, " | ".join(r)[:300])
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                       capture_output=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
