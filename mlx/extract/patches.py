"""Per-message patch facts: diff size, diffstat, trailers, commit references.

Pure functions of a decoded body, run in the workers at ingest.  Only
unquoted lines count: a reply quoting a diff under "> " carries no diff.
"""

from __future__ import annotations

import re

from mlx.extract.vocab import TRAILER_KEYS
from mlx.rows import PatchFacts

# diff --git a/net/ipv4/tcp_input.c b/net/ipv4/tcp_input.c
DIFF_GIT = re.compile(r"diff --git a/(\S+) b/(\S+)")
# --- a/drivers/net/foo.c      /  --- linux-2.6/net/core/dev.c.orig  (plain diff -u)
OLD_FILE = re.compile(r"--- (\S+)")
# +++ b/drivers/net/foo.c
NEW_FILE = re.compile(r"\+\+\+ (\S+)")
# @@ -10,6 +10,7 @@ static int foo_probe(struct foo *f)
HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
# " 3 files changed, 41 insertions(+), 9 deletions(-)"; old git: "1 files changed"
DIFFSTAT = re.compile(
    r"^\s*(\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?\s*$",
    re.M)
# Reviewed-by: Eric Dumazet <edumazet@google.com>  (at the start of a line: never quoted).
# Every pattern here starts with a literal ("\n", "ommit") so the regex engine
# skips to candidates at C speed instead of trying each position of the body.
TRAILER = re.compile(r"\n(?i:(" + "|".join(TRAILER_KEYS) + r"))[ \t]*:[ \t]*(\S[^\n]*)")
# an indented line continuing a wrapped trailer value
CONTINUATION = re.compile(r"\n([ \t]+\S[^\n]*)")
CANONICAL = {k.lower(): k for k in TRAILER_KEYS}
COMMIT_REFS = (
    # commit 95951af72499 ("receive: use gro call instead of plain call")
    (("ommit",), re.compile(r"ommit\s+([0-9a-f]{12,40})\b")),
    # Fixes: 95951af72499 ("receive: ...")
    (("Fixes:",), re.compile(r"\n[ \t]*Fixes:[ \t]*([0-9a-f]{12,40})\b")),
    # https://git.zx2c4.com/WireGuard/commit/?id=95951af7249912a4356b9a03cf3addc7e3f8f724
    (("id=",), re.compile(r"id=([0-9a-f]{12,40})\b")),
    # https://github.com/torvalds/linux/commit/95951af7249912a4356b9a03cf3addc7e3f8f724
    # (not "/c" alone: every path of a diff holds one)
    (("/commit", "/c/"), re.compile(r"/(?:commits?|c)/([0-9a-f]{12,40})\b")),
)
QUOTED_LINE = re.compile(r"\n>[^\n]*")
# git request-pull's output: a pull request, whether titled [GIT PULL] or [PATCH 0/N]
REQUEST_PULL = re.compile(r"(?i)\n[ \t]*(?:are available in the git repository at|"
                          r"for you to fetch changes up to)\b")




def diff_size(lines: list[str]) -> tuple[int, int, int]:
    """(files, insertions, deletions) of the unified diffs in ``lines``.

    Hunks are consumed by the line counts in their headers, so a signature
    ("-- ") or text after the diff is never counted as a change.
    """
    files: set[str] = set()
    ins = dels = 0
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("diff --git "):
            m = DIFF_GIT.match(line)
            if m:
                files.add(m.group(2))
        elif line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            new = NEW_FILE.match(lines[i + 1])
            old = OLD_FILE.match(line)
            path = new.group(1) if new and new.group(1) != "/dev/null" else (
                old.group(1) if old else "")
            files.add(re.sub(r"^[ab]/", "", path))
            i += 2
            continue
        elif line.startswith("@@ -"):
            m = HUNK.match(line)
            if m:
                old_left = int(m.group(1) or 1)
                new_left = int(m.group(2) or 1)
                i += 1
                while i < n and (old_left > 0 or new_left > 0):
                    c = lines[i][:1]
                    if c == "+":
                        ins += 1
                        new_left -= 1
                    elif c == "-":
                        dels += 1
                        old_left -= 1
                    elif c in (" ", ""):  # mailers strip the blank of empty context lines
                        old_left -= 1
                        new_left -= 1
                    elif c != "\\":  # "\ No newline at end of file"
                        break
                    i += 1
                continue
        i += 1
    return len(files), ins, dels


def trailers(text: str) -> list[tuple[str, str]]:
    """Trailer lines, wrapped values joined: ``[("Reviewed-by", "A <a@b>"), ...]``."""
    out: list[tuple[str, str]] = []
    text = "\n" + text
    for m in TRAILER.finditer(text):
        key = CANONICAL[m.group(1).lower()]
        value = m.group(2).strip()
        pos = m.end()
        # a value wrapped onto indented lines ("Fixes: abc (\"long\n    title\")")
        while (c := CONTINUATION.match(text, pos)) and not TRAILER.match(c.group(1).strip()):
            value += " " + c.group(1).strip()
            pos = c.end()
        if key == "Cc" and "@" not in value:
            continue  # "Cc: the list" in prose
        out.append((key, value))
    return out


def commit_refs(text: str) -> list[str]:
    refs: dict[str, None] = {}
    text = "\n" + text
    for literals, rx in COMMIT_REFS:
        for w in literals:
            if w in text:
                for m in rx.finditer(text):
                    refs.setdefault(m.group(1).lower(), None)
                break
    return list(refs)


def patch_facts(body: str | None) -> PatchFacts:
    if not body:
        return PatchFacts()
    has_diff = ("\n@@ -" in body) and ("\n+++ " in body or "\ndiff --git " in body)
    if not has_diff and "diff --git " in body and "Binary files" in body:
        has_diff = True
    files = ins = dels = 0
    if has_diff or "\ndiff --git " in body:
        files, ins, dels = diff_size(body.split("\n"))
        has_diff = files > 0
    stat = DIFFSTAT.search(body) if " changed" in body else None
    own = QUOTED_LINE.sub("", "\n" + body) if (body.startswith(">") or "\n>" in body) else body
    return PatchFacts(
        has_diff=has_diff, diff_files=files, diff_insertions=ins, diff_deletions=dels,
        diffstat_files=int(stat.group(1)) if stat else None,
        diffstat_insertions=int(stat.group(2) or 0) if stat else None,
        diffstat_deletions=int(stat.group(3) or 0) if stat else None,
        trailers=(own_trailers := trailers(own)),
        commit_refs=commit_refs(own),
        signed_off=any(k == "Signed-off-by" for k, _ in own_trailers),
        request_pull=(" repository at" in own or "fetch changes" in own) and bool(
            REQUEST_PULL.search("\n" + own)),
    )
