"""The most frequent hardware values per kind on ../shared/corpus, to spot false positives.

    python scripts/hardware_survey.py [CORPUS_DIR] [--top N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import mlx

ARCHIVES = ["hardware", "perf", "perf-threads", "fixtures/single-messages",
            "lists/xdp-newbies.mbox.gz", "lists/ath10k.mbox.gz", "lists/openwrt-devel.mbox.gz"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("corpus", nargs="?",
                    default=Path(__file__).resolve().parents[2] / "shared" / "corpus")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    corpus, top = Path(args.corpus), args.top
    if not corpus.exists():
        sys.exit(f"{corpus}: no corpus there; pass its path")
    paths = [str(corpus / a) for a in ARCHIVES if (corpus / a).exists()]
    with tempfile.TemporaryDirectory() as tmp:
        mlx.ingest(paths, store=tmp, extract=("hardware",))
        archive = mlx.load(tmp)
        hw = archive.hardware
        print(f"{len(hw)} rows from {hw.message_id.nunique()} of {len(archive.messages)} messages")
        for kind, rows in hw.groupby("kind"):
            print(f"\n== {kind}: {len(rows)} rows, {rows.host.notna().sum()} with a host")
            for text, n in rows.text.value_counts().head(top).items():
                print(f"  {n:5}  {text}")


if __name__ == "__main__":
    main()
