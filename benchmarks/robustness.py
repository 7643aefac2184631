"""Every real archive within reach, end to end: nothing crashes, nothing is lost.

    python benchmarks/robustness.py [--corpus DIR] [--work DIR] [--small] [--only NAME ...]

Ingests, each with a whole ``mlx ingest`` command in a fresh process (as a user runs
it), every list of ``CORPUS/lists/``, every file of ``CORPUS/candidates/`` and the
public-inbox epoch of ``CORPUS/public-inbox/``, each into a store of its own, then all
of them into one store; and prints, per archive: the exit status, messages stored, the
errors by stage (``split``/``parse`` rows, ``extract``: messages with the
``extract-failed`` defect, ``link``/``claims`` rows), claims, seconds, the whole
process tree's peak RSS and peak PSS, and how many of the Message-IDs the archive holds
are neither stored nor at the offset of an ``errors`` row (must be 0).

The last lines give the peak RSS and PSS growth per added message of one ingest of
everything into one store: (peak of all - peak of the smallest half) / (their messages'
difference).

``--small`` leaves out the archives over 20 MB (netfilter-devel): what the test runs.
Exits 1 when an ingest failed or a Message-ID is lost.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
SMALL_BYTES = 20_000_000
MESSAGE_ID = re.compile(rb"(?i)\nmessage-id:[ \t]*((?:\r?\n[ \t]+)?[^\r\n]*)")
STAGES = ("split", "parse", "extract", "link", "claims")


@dataclass
class Outcome:
    name: str
    status: int = 0
    seconds: float = 0.0
    peak: int = 0  # bytes, the process tree's RSS (shared pages once per process)
    pss: int = 0  # bytes, the process tree's PSS (shared pages split between the sharers)
    messages: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    claims: int = 0
    lost: int = 0  # Message-IDs neither stored nor in errors
    said: str = ""  # the last line of stderr when it failed


def archives(corpus: Path, small: bool) -> list[Path]:
    found = sorted((corpus / "lists").glob("*.mbox*")) + \
        sorted((corpus / "candidates").glob("*.mboxrd*")) + \
        sorted(p.parent.parent for p in (corpus / "public-inbox").glob("*/git/0.git"))
    return [p for p in found if not small or p.is_dir() or p.stat().st_size <= SMALL_BYTES]


def peak_rss(cmd: list[str]) -> tuple[int, float, int, int, str]:
    """(exit status, seconds, peak RSS and peak PSS of the process tree, stderr) of one
    command.  RSS counts a page the workers share with the driver (forked: its imports,
    spaCy's tables) once in each; PSS splits it between them, what the machine holds."""
    import psutil
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ps = psutil.Process(proc.pid)
    peak = [0, 0]

    def sample() -> None:
        n = 0
        while proc.poll() is None:
            try:
                tree = [ps, *ps.children(recursive=True)]
                peak[0] = max(peak[0], sum(p.memory_info().rss for p in tree))
                if n % PSS_EVERY == 0:  # (reading smaps costs more than RSS)
                    peak[1] = max(peak[1], sum(p.memory_full_info().pss for p in tree))
            except psutil.Error:
                pass
            n += 1
            time.sleep(0.05)
    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, err = proc.communicate()
    th.join()
    return (proc.returncode, time.perf_counter() - t, peak[0], peak[1],
            err.decode(errors="replace"))


PSS_EVERY = 5  # PSS on every 5th sample (a quarter second)


def raw_ids(path: Path) -> dict[str, list[int | None]]:
    """Message-ID -> the offsets of the raw messages holding it (split as mlx splits)."""
    from mlx.ingest.chunks import split_stream
    from mlx.ingest.gitinbox import read_blobs, rev_list
    from mlx.ingest.parse import header_end, parse_message_id
    from mlx.ingest.sources import discover
    out: dict[str, list[int | None]] = {}
    for src in discover([str(path)])[0]:
        if src.kind == "git":
            items = ((None, blob.data) for blob in read_blobs(src.path, rev_list(src.path)))
        else:
            items = ((getattr(raw, "offset", None), getattr(raw, "data", None))
                     for raw in split_stream(src))
        for offset, data in items:
            end = header_end(data) if data else -1
            m = MESSAGE_ID.search(b"\n" + (data[:end] if end >= 0 else data)) if data else None
            if m:
                mid = parse_message_id(m.group(1).decode("utf-8", "replace"), [])
                if mid:
                    out.setdefault(mid, []).append(offset)
    return out


def ingest(name: str, paths: list[Path], store: Path) -> Outcome:
    cmd = [sys.executable, "-m", "mlx.cli", "ingest", "-q", "--store", str(store),
           *map(str, paths)]
    status, secs, peak, pss, err = peak_rss(cmd)
    out = Outcome(name, status, secs, peak, pss, said=err.strip().splitlines()[-1]
                  if err.strip() and status else "")
    if status:
        return out
    import mlx
    archive = mlx.load(str(store))
    heads = archive.table("messages", columns=["message_id", "defects"])
    out.messages = len(heads)
    errors = archive.errors
    out.errors = Counter(errors.stage)
    out.errors["extract"] = sum("extract-failed" in d for d in heads.defects)
    out.claims = len(archive.claims)
    stored = set(heads.message_id.dropna())
    at_errors = set(errors.offset.dropna().astype(int))
    for path in paths:
        for mid, offsets in raw_ids(path).items():
            if mid not in stored and not any(o in at_errors for o in offsets if o is not None):
                out.lost += 1
    return out


def row(o: Outcome) -> str:
    errs = " ".join(f"{o.errors.get(s, 0)}" for s in STAGES)
    status = "ok" if not o.status else f"FAILED ({o.status}): {o.said[:60]}"
    return (f"{o.name[:34]:34} {o.messages:>8,} {errs:>13} {o.claims:>7,} {o.seconds:>7.1f} "
            f"{o.peak / 2**20:>7.0f} {o.pss / 2**20:>7.0f} {o.lost:>5} {status}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--work", type=Path, default=None, help="where the stores go (a temp dir)")
    ap.add_argument("--small", action="store_true", help="only archives up to 20 MB")
    ap.add_argument("--only", nargs="*", default=None, help="archives whose name holds one")
    a = ap.parse_args(argv)
    found = archives(a.corpus, a.small)
    if a.only:
        found = [p for p in found if any(o in p.name for o in a.only)]
    if not found:
        print(f"Error: no archive under {a.corpus}; pass --corpus DIR", file=sys.stderr)
        return 1
    work = Path(a.work or tempfile.mkdtemp(prefix="mlx-robust-"))
    print(f"{'archive':34} {'messages':>8} {'errors ' + '/'.join(s[0] for s in STAGES):>13} "
          f"{'claims':>7} {'seconds':>7} {'MiB':>7} {'PSS MiB':>7} {'lost':>5}")
    outcomes = []
    for n, path in enumerate(found):
        outcomes.append(ingest(f"{path.parent.name}/{path.name}", [path], work / f"s{n}"))
        print(row(outcomes[-1]), flush=True)
    ok = [o for o in outcomes if not o.status]
    by_size = sorted(zip(ok, [p for p, o in zip(found, outcomes, strict=True) if not o.status],
                         strict=True), key=lambda x: x[0].messages)
    half = [p for _, p in by_size[:max(1, len(by_size) // 2)]]
    small = ingest(f"the smaller half ({len(half)})", half, work / "half")
    print(row(small), flush=True)
    every = ingest(f"all {len(found)} in one store", found, work / "all")
    print(row(every), flush=True)
    if every.messages > small.messages:
        growth = (every.peak - small.peak) / (every.messages - small.messages) / 1024
        print(f"peak RSS growth of one ingest of everything: {growth:.2f} KiB per added "
              f"message ({small.peak / 2**20:.0f} MiB at {small.messages:,} messages, "
              f"{every.peak / 2**20:.0f} MiB at {every.messages:,})")
        pss = (every.pss - small.pss) / (every.messages - small.messages) / 1024
        print(f"peak PSS growth, the same runs: {pss:.2f} KiB per added message "
              f"({small.pss / 2**20:.0f} MiB, {every.pss / 2**20:.0f} MiB)")
    failed = [o for o in [*outcomes, small, every] if o.status or o.lost]
    print(f"{len(failed)} archive run(s) failed or lost a Message-ID; stores in {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
