"""Draw messages of a corpus archive at random and write them out for a labeller.

    python scripts/gold_prepare.py ARCHIVE --list NAME --count N --out DIR
        [--seed S] [--exclude tests/data/real/labels.json] [--start K] [--pattern]

Each drawn message becomes ``DIR/msgs/NNN.txt``: a few headers, then the body as mlx
decodes it, one line per body line, numbered as mlx numbers ``line_no`` (``  24| text``).
A patch's diff is cut at its first ``diff --git`` line (no result and no setup fact is
read from code); the line numbers before it stay those of the body.  ``DIR/index.json``
lists ``n``, ``message_id``, ``file`` and ``list`` for each, in the order drawn.

The draw is uniform over the archive's messages with a fixed seed, never by ease:
messages already in the gold set (``--exclude``) are left out before drawing.
``--pattern`` draws only among the messages whose own text holds a measured-looking value
near a before/after word (``PATTERN``), so that a list with few measurements still gives
claims to score; the draw among them is as uniform.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# a condition word, then within 300 characters a number with a rate, throughput or time unit
PATTERN = re.compile(
    r"(?is)\b(?:before|after|without|with|w/o|patched|unpatched|baseline|vanilla|stock|"
    r"upstream|mainline)\b.{0,300}?\d[\d.,]*[ \t]*(?:[KMGkmg]?bits?/s(?:ec)?|[KMGkmg]?bps|"
    r"[kKmMG]?pps|[KMG]i?B/s|[KMG]Bytes|trans(?:actions)?/s|ops/s|IOPS|usecs?|us|ms|ns)\b")
CORPUS = ROOT.parent / "shared" / "corpus"


def _messages(archive: Path) -> list[dict[str, object]]:
    import mlx
    with tempfile.TemporaryDirectory(prefix="mlx-gold-") as tmp:
        mlx.ingest([str(archive)], store=f"{tmp}/store", extract=())
        m = mlx.load(f"{tmp}/store").messages
    m = m.sort_values(["source", "offset"])
    return m[["message_id", "date", "from_name", "from_addr", "subject", "in_reply_to",
              "body"]].to_dict("records")


def _own(body: str) -> str:
    """The body's own text: no quoted line, nothing after the first diff."""
    cut = body.find("\ndiff --git ")
    text = body if cut < 0 else body[:cut]
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(">"))


def render(msg: dict[str, object]) -> str:
    head = [f"Message-ID: {msg['message_id']}", f"From: {msg['from_name']} <{msg['from_addr']}>",
            f"Date: {msg['date']}", f"Subject: {msg['subject']}",
            f"In-Reply-To: {msg['in_reply_to']}", ""]
    body = str(msg["body"] or "").split("\n")
    out = []
    for i, line in enumerate(body, 1):
        if line.startswith("diff --git "):
            out.append(f"{i:4d}| [diff of {len(body) - i + 1} lines not shown]")
            break
        out.append(f"{i:4d}| {line}")
    return "\n".join(head + out) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", type=Path)
    ap.add_argument("--list", required=True, help="the list's name, e.g. linux-can")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--start", type=int, default=1, help="number of the first file")
    ap.add_argument("--exclude", type=Path, action="append", default=[])
    ap.add_argument("--pattern", action="store_true", help="only messages PATTERN matches")
    a = ap.parse_args(argv)
    taken = {lab["message_id"] for path in a.exclude for lab in json.loads(path.read_text())}
    msgs = [m for m in _messages(a.archive) if m["message_id"] not in taken
            and (not a.pattern or PATTERN.search(_own(str(m["body"] or ""))))]
    drawn = random.Random(a.seed).sample(msgs, min(a.count, len(msgs)))
    (a.out / "msgs").mkdir(parents=True, exist_ok=True)
    try:
        rel = str(a.archive.resolve().relative_to(CORPUS.resolve()))
    except ValueError:
        rel = str(a.archive)
    index = []
    for n, msg in enumerate(drawn, a.start):
        (a.out / "msgs" / f"{n:03d}.txt").write_text(render(msg))
        index.append({"n": n, "message_id": msg["message_id"], "file": rel, "list": a.list})
    (a.out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(index)} messages of {len(msgs)} drawn into {a.out}/msgs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
