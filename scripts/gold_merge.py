"""Add a labeller's labels to the gold set, or set the lists and splits of the labels.

    python scripts/gold_merge.py DIR --split dev|heldout     # DIR/labels.json + DIR/index.json
    python scripts/gold_merge.py --lists                     # list of every label, from its file

A label carries ``list`` (the list's name: ``linux-can``) and ``split`` (``dev`` or
``heldout``).  A list is on one side only: adding labels of a list the gold set has on the
other side is refused.  Claims keep no mail text (a prose claim's ``text`` is dropped);
``notes`` are cut to 600 characters.  The labels are checked for the guide's fields.

A message cross-posted to several lists is in the archives of each: a held-out label is
skipped when its Message-ID is in a corpus manifest of a list on the dev side (it may be
read while rules are written), and so is any label of a message labelled already.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "data" / "real" / "labels.json"
CORPUS = ROOT.parent / "shared" / "corpus"
FIELDS = ("n", "message_id", "file", "list", "split", "negative", "results", "claims",
          "hardware", "notes")
# "perf/linux-s390.vger.kernel.org.0.perf.mboxrd", "lists/ath10k.mbox.gz",
# "candidates/linux-can.mboxrd.gz": the list is the file's first name
LIST_OF_FILE = re.compile(r"^[\w-]+/([\w-]+?)(?:\.(?:vger\.kernel\.org|lists\.|st-md|mbox)|"
                          r"\.mboxrd|\.lists)")
SINGLE = "single-messages/index-singles.mboxrd"


def list_of(label: dict) -> str:
    if label["file"] == SINGLE:
        return _single_lists()[label["message_id"]]
    m = LIST_OF_FILE.match(label["file"])
    if not m:
        raise SystemExit(f"Error: no list name in {label['file']!r}")
    return m.group(1)


def _single_lists() -> dict[str, str]:
    """Message-ID -> list of the single messages (by their List-Id)."""
    data = (CORPUS / "fixtures" / SINGLE).read_bytes()
    out = {}
    for chunk in re.split(rb"\nFrom mboxrd@z", data):
        mid = re.search(rb"(?im)^message-id:\s*<([^>]+)>", chunk)
        lid = re.search(rb"(?im)^list-id:\s*<?([\w-]+)", chunk)
        if mid and lid:
            out[mid.group(1).decode()] = lid.group(1).decode()
    return out


def dev_side_ids(dev_lists: set[str]) -> set[str]:
    """The Message-IDs of every corpus manifest of a list on the dev side."""
    out: set[str] = set()
    for path in CORPUS.glob("**/*manifest.tsv"):
        if any(path.name.startswith(name + ".") for name in dev_lists):
            out |= {line.split("\t")[1] for line in path.read_text().splitlines()[1:]
                    if "\t" in line}
    return out


def clean(label: dict, file: str, name: str, split: str) -> dict:
    out = {"n": label["n"], "message_id": label["message_id"], "file": file, "list": name,
           "split": split, "negative": bool(label["negative"]),
           "results": label.get("results", []),
           "claims": [{k: v for k, v in c.items() if k != "text"}
                      for c in label.get("claims", [])],
           "hardware": label.get("hardware", []), "notes": label.get("notes", "")[:600]}
    if out["negative"] and (out["results"] or out["claims"]):
        raise SystemExit(f"Error: n={label['n']} is negative but has results or claims")
    for c in out["claims"]:
        if c.get("kind") not in ("measured", "prose", "robot"):
            raise SystemExit(f"Error: n={label['n']}: claim kind {c.get('kind')!r}")
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, nargs="?")
    ap.add_argument("--split", choices=["dev", "heldout"])
    ap.add_argument("--lists", action="store_true", help="set list and split of every label")
    a = ap.parse_args(argv)
    gold = json.loads(LABELS.read_text())
    if a.lists:
        gold = [{**lab, "list": lab.get("list") or list_of(lab),
                 "split": "dev" if lab.get("split") in ("dev", "test") else lab["split"]}
                for lab in gold]
    if a.dir:
        if not a.split:
            raise SystemExit("Error: pass --split dev or --split heldout")
        index = {x["message_id"]: x for x in json.loads((a.dir / "index.json").read_text())}
        labels = json.loads((a.dir / "labels.json").read_text())
        if {lab["message_id"] for lab in labels} != set(index):
            raise SystemExit(f"Error: {a.dir}: labels.json and index.json name other messages")
        sides = {lab["list"]: lab["split"] for lab in gold}
        have = {lab["message_id"] for lab in gold}
        if a.split == "heldout":
            have |= dev_side_ids({name for name, side in sides.items() if side == "dev"})
        skipped = 0
        for lab in labels:
            where = index[lab["message_id"]]
            if sides.setdefault(where["list"], a.split) != a.split:
                raise SystemExit(f"Error: {where['list']} is on the {sides[where['list']]} side")
            if lab["message_id"] in have:
                skipped += 1  # labelled already, or cross-posted to a list of the dev side
                continue
            gold.append(clean(lab, where["file"], where["list"], a.split))
        print(f"{a.dir}: {len(labels) - skipped} labels added, {skipped} skipped (labelled "
              f"already or cross-posted to the dev side)", file=sys.stderr)
    gold = [{k: lab[k] for k in FIELDS} for lab in gold]
    LABELS.write_text(json.dumps(gold, indent=1, ensure_ascii=False) + "\n")
    lists = {}
    for lab in gold:
        lists.setdefault((lab["split"], lab["list"]), []).append(lab["negative"])
    for (split, name), neg in sorted(lists.items()):
        print(f"{split:8} {name:22} {len(neg):4} messages, {sum(neg):3} negatives",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
