"""Ingest every archive of ../shared/corpus and print what came out.

    python scripts/corpus_survey.py [CORPUS_DIR] [--big]

Per archive: raw messages, stored, duplicates, errors, top defect codes,
threads (with ghost roots), deepest thread, patches, cover letters, series,
robot reports.  Rerun it after a change to see what moved.  The 39k-message
netfilter archive is skipped unless --big is given.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import mlx

ARCHIVES = ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz", "lists/ath10k.mbox.gz",
            "lists/openwrt-devel.mbox.gz", "public-inbox/xdp-newbies", "perf", "perf-threads",
            "hardware", "fixtures"]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corpus = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "shared" / "corpus"
    archives = ARCHIVES + (["lists/netfilter-devel.mbox.xz"] if "--big" in sys.argv else [])
    print(f"{'archive':32} {'raw':>6} {'stored':>6} {'dup':>4} {'err':>4} {'threads':>7} "
          f"{'ghost':>5} {'depth':>5} {'patch':>6} {'cover':>5} {'series':>6} {'lkp':>4}  "
          "top defects")
    for rel in archives:
        path = corpus / rel
        if not path.exists():
            print(f"{rel:32} missing")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            r = mlx.ingest([str(path)], store=tmp)
            a = mlx.load(tmp)
            t, p, m = a.threads, a.patches, a.messages
            top = ", ".join(f"{c} {n}" for c, n in r.defects.most_common(3))
            print(f"{rel:32} {r.raw:6} {r.stored:6} {r.duplicates + r.already:4} {r.errors:4} "
                  f"{len(t):7} {(t.n_ghosts > 0).sum():5} {m.depth.max():5} {len(p):6} "
                  f"{p.is_cover.sum():5} {p.series_id.nunique():6} {len(a.reports):4}  {top}")


if __name__ == "__main__":
    main()
