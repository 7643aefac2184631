"""How well the patch layer ties replies, trailers, versions and series to postings.

    python benchmarks/patches.py                 # the five corpus lists, ingested once
    python benchmarks/patches.py STORE...        # stores already ingested

Per store it prints (issue 16's figures; the targets are the zeros):
  keys shared   patch_id values held by more than one patch posting (two copies of
                one Message-ID are one posting);
  outside       review trailers that a reply gave (not in the patch's or its cover's
                own) and that landed on a patch the reply is not threaded under
                (neither the patch nor its cover is an ancestor, or named in an
                ancestor's references), and, apart, those of replies with no
                references at all (their chain is lost: the title is all there is);
  split         parts without a version of their own whose nearest cover ancestor
                (same author, same total) has a version the part does not carry;
  flag trees    ``tree`` values that are flags or internal tags (AUTOSEL, RFT, S22...);
  pull covers   ``[GIT PULL]`` / ``[PULL]`` postings counted as cover letters;
  ghost walk    messages without a patch_id whose nearest reference in the archive is
                a patch posting;
  split series  pairs of series by one author whose postings share two or more patch
                titles but not a ``series_id`` (pull requests, AUTOSEL batches and
                stable backports, which repost patches, aside);
and the most frequent tree values.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

import pandas as pd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTS = os.path.join(ROOT, "..", "shared", "corpus", "lists")
sys.path.insert(0, ROOT)

from mlx.archive import Archive  # noqa: E402
from mlx.extract.vocab import REVIEW_KEYS  # noqa: E402
from mlx.link.rules import STABLE_TREE  # noqa: E402
from mlx.subjects import normalize_title  # noqa: E402

# what no tree is: flags, internal tags, words
FLAG_TREE = re.compile(r"(?i)^(autosel|rft|rfc|resend|git|pull|set|s\d+|v\d+(\.\d+)?|"
                       r"repost|patch|\d+/\d+)$")


def figures(path: str) -> dict[str, object]:
    arc = Archive(path)
    msgs = arc.table("messages", columns=["uid", "message_id", "from_addr", "subject",
                                          "thread_refs", "trailers"])
    links = arc.table("links", columns=["uid", "patch_id", "parent_uid"])
    msgs = msgs.merge(links, on="uid", how="left")
    patches = arc.table("patches")
    out: dict[str, object] = {"messages": len(msgs), "patches": len(patches)}

    per_key = patches.groupby("patch_id")["message_id"].nunique()
    out["keys shared"] = int((per_key > 1).sum())
    out["patches under shared keys"] = int(per_key[per_key > 1].sum())

    patch_uids = set(patches["uid"])
    mid_of = dict(zip(patches["uid"], patches["message_id"], strict=True))
    uid_of_mid = dict(zip(patches["message_id"], patches["uid"], strict=True))
    by_pid = defaultdict(list)
    for uid, pid in zip(patches["uid"], patches["patch_id"], strict=True):
        by_pid[pid].append(uid)
    # the cover of each part: the cover of the same posting (series, version, thread)
    cover_mid: dict[str, str] = {}
    covers = patches[patches["is_cover"]]
    cover_at = {(r.series_id, r.version, r.thread_id): r.message_id
                for r in covers.itertuples()}
    for r in patches.itertuples():
        if not r.is_cover and (r.series_id, r.version, r.thread_id) in cover_at:
            cover_mid[r.uid] = cover_at[(r.series_id, r.version, r.thread_id)]
    parts_of = defaultdict(list)
    for r in patches.itertuples():
        if r.uid in cover_mid:
            parts_of[cover_mid[r.uid]].append(r.uid)
    trailers_of = {r.uid: {tuple(t) for t in r.trailers}
                   for r in patches.itertuples()}
    own_of = {r.uid: {tuple(t) for t in (r.trailers if r.trailers is not None else [])}
              for r in msgs.itertuples() if r.uid in patch_uids}
    parent_of = dict(zip(msgs["uid"], msgs["parent_uid"], strict=True))
    refs_of = dict(zip(msgs["uid"], msgs["thread_refs"], strict=True))
    mid_by_uid = dict(zip(msgs["uid"], msgs["message_id"], strict=True))

    def above(uid: str) -> set[str]:
        """Message-IDs of the ancestors of ``uid`` and every id their references name."""
        out: set[str] = set()
        seen = {uid}
        cur: str | None = uid
        while isinstance(cur, str):
            refs = refs_of.get(cur)
            out.update(refs if refs is not None else [])
            if cur != uid:
                out.add(mid_by_uid[cur])
            cur = parent_of.get(cur)
            if cur in seen:
                break
            seen.add(cur)
        return out

    outside = lost = given = 0
    for r in msgs.itertuples():
        if r.uid in patch_uids or r.patch_id is None or not isinstance(r.patch_id, str):
            continue
        mine = [tuple(t) for t in (r.trailers if r.trailers is not None else [])
                if t[0] in REVIEW_KEYS]
        if not mine:
            continue
        refs = above(r.uid)
        targets = list(by_pid.get(r.patch_id, []))
        targets += [p for t in targets for p in parts_of.get(mid_of[t], [])]
        for t in set(targets):
            for pair in mine:
                cover_uid = uid_of_mid.get(cover_mid.get(t, ""))
                if pair not in trailers_of[t] or pair in own_of[t] or (
                        cover_uid is not None and pair in own_of.get(cover_uid, ())):
                    continue
                given += 1
                if mid_of[t] in refs or cover_mid.get(t) in refs:
                    continue
                if refs:
                    outside += 1
                else:
                    lost += 1
    out["reply trailers attached"] = given
    out["outside"] = outside
    out["outside, chain lost"] = lost

    split = 0
    patches["part"] = patches["part"].fillna(0)
    row = patches.set_index("uid")
    for r in patches.itertuples():
        if r.is_cover or r.version_seen or not (r.part == r.part and r.part):
            continue
        cur, seen = parent_of.get(r.uid), set()
        while isinstance(cur, str) and cur not in seen:
            seen.add(cur)
            if cur in row.index and row.at[cur, "is_cover"]:
                c = row.loc[cur]
                if c.from_addr == r.from_addr and (pd.isna(c.total) or c.total == r.total) \
                        and c.version_seen and c.version != r.version:
                    split += 1
                break
            cur = parent_of.get(cur)
    out["split"] = split
    trees = Counter(t for t in patches["tree"] if isinstance(t, str))
    out["flag trees"] = sum(n for t, n in trees.items() if FLAG_TREE.match(t))
    pull = patches["prefixes"].map(lambda p: any(re.search(r"(?i)\bpull\b", x) for x in p))
    out["pull covers"] = int((pull & patches["is_cover"]).sum())
    patch_mids = set(patches["message_id"])
    present = set(msgs["message_id"])

    def nearest_present(refs: list[str]) -> str | None:
        return next((x for x in reversed(refs) if x in present), None)

    out["ghost walk"] = int(sum(
        1 for r in msgs.itertuples()
        if not isinstance(r.patch_id, str) and r.thread_refs is not None
        and nearest_present(list(r.thread_refs)) in patch_mids))
    titles = defaultdict(set)
    # pull requests, AUTOSEL batches and stable backports repost patches: no versions
    reposts = set(patches.loc[patches["is_pull"] | patches["is_autosel"]
                              | patches["tree"].fillna("").str.match(STABLE_TREE.pattern),
                              "series_id"]) if "is_pull" in patches else set()
    for r in patches[~patches["is_cover"]].itertuples():
        if r.series_id in reposts:
            continue
        titles[(r.from_addr, r.series_id)].add(normalize_title(r.title or ""))
    by_author = defaultdict(list)
    for (author, sid), ts in titles.items():
        by_author[author].append((sid, ts))
    out["split series"] = sum(1 for series in by_author.values()
                              for i, (_, a) in enumerate(series)
                              for _, b in series[i + 1:] if len(a & b) >= 2)
    out["trees"] = ", ".join(f"{t} {n}" for t, n in trees.most_common(12))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stores", nargs="*")
    ap.add_argument("--work", default="/tmp/mlx-patches")
    args = ap.parse_args()
    stores = args.stores
    if not stores:
        for name in sorted(os.listdir(LISTS)):
            store = os.path.join(args.work, name.split(".")[0])
            if not os.path.exists(os.path.join(store, "link")):
                subprocess.run([sys.executable, "-m", "mlx.cli", "ingest", "-q", "--store",
                                store, os.path.join(LISTS, name)], check=True)
            stores.append(store)
    for store in stores:
        print(f"== {os.path.basename(store.rstrip('/'))}")
        for k, v in figures(store).items():
            print(f"  {k:28} {v}")


if __name__ == "__main__":
    main()
