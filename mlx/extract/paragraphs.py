"""A body's paragraphs, by quote depth, with the body lines they stand on.

Paragraphs end at blank lines (a line of quote marks alone is blank) and where the
quote depth changes ("On ... wrote:" over "> ..." lines is two runs).  Code (a diff's
lines, a fenced block) and a diffstat's lines are left out of a run.  ``paragraphs``
keeps those the caller's test admits, first on the whole paragraph (cheap), then on each
run; ``in_changelog`` tells a version's change log ("Changes in v2:"), whose sentences
compare with an earlier version.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from mlx.text import split_quote

PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t>]*\n)+")
DIFFSTAT = re.compile(r"^\S.{0,80}?[ \t]\|[ \t]+\d{1,6}(?:[ \t]+[-+]{1,80})?[ \t]*$|"
                      r"^\d{1,5} files? changed")
# "Changes in v2:", "v1 -> v2:", "Changes since v3": a paragraph that says how this version
# differs from the last (its effects are over an earlier version, not over the old code)
CHANGELOG = re.compile(r"(?i)^[ \t>]*(?:[-*][ \t]*)?(?:changes?|changelog)(?:[ \t]+(?:in|since|"
                       r"from|for))?[ \t]+v?\d+\b|^[ \t>]*(?:changes?|changelog)[ \t]*:|"
                       r"^[ \t>]*v\d+[ \t]*(?:->|→|to|\.\.)[ \t]*v\d+\b|^[ \t>]*(?:since|"
                       r"from) v\d+[ \t]*:")


@dataclass(frozen=True)
class Para:
    """A run of one paragraph's lines at one quote depth, joined into one text."""

    depth: int
    text: str
    starts: tuple[tuple[int, int], ...]  # (offset in text, body line index) of each line

    def line_at(self, offset: int) -> int:
        """The body line (1-based) the character at ``offset`` of the text stands on."""
        at = bisect.bisect_right(self.starts, offset, key=lambda start: start[0]) - 1
        return self.starts[max(at, 0)][1] + 1


def paragraphs(head: str, wanted: Callable[[str], bool],
               run_wanted: Callable[[str], bool]) -> list[Para]:
    """The runs of each paragraph ``wanted`` admits (its raw text), that ``run_wanted``
    admits too (a run's joined text)."""
    out: list[Para] = []
    line, pos = 0, 0
    fenced = False  # inside a fenced block ("```"), which may hold blank lines
    for m in [*PARAGRAPH_BREAK.finditer(head), None]:
        end = m.start() if m else len(head)
        para = head[pos:end]
        if wanted(para) or fenced:
            runs, fenced = _runs(para, line, fenced)
            out += [run for run in runs if run_wanted(run.text)]
        elif "```" in para:
            fenced = _runs(para, line, fenced)[1]
        if m is None:
            break
        line += head.count("\n", pos, m.end())
        pos = m.end()
    return out


def in_changelog(para: Para, head: str) -> bool:
    """Is the paragraph a version's change log: "Changes in v2:" on its first line or the
    line right above it, or anywhere above it below a patch's "---" (the notes to
    reviewers, where a change log runs on to the diffstat)?"""
    if CHANGELOG.match(para.text):
        return True
    first = para.starts[0][1]  # the body line it starts on (0-based)
    lines = head.split("\n", first)[:first]
    above = next((ln for ln in reversed(lines[-2:]) if ln.strip(" \t>")), "")
    if above and CHANGELOG.match(above):
        return True
    fold = max((k for k, ln in enumerate(lines) if ln.rstrip() == "---"), default=None)
    return fold is not None and any(CHANGELOG.match(ln) for ln in lines[fold + 1:])


def _runs(para: str, first_line: int, fenced: bool = False) -> tuple[list[Para], bool]:
    """The lines of one paragraph grouped by quote depth, prefixes removed; a fenced
    block (between "```" lines) is code, and the text on either side two runs.
    ``fenced``: the paragraph starts inside a fenced block; and whether it ends in one."""
    runs: list[tuple[int, list[str], list[int]]] = []  # depth, texts, their line indexes
    broken = False
    for i, raw in enumerate(para.split("\n")):
        depth, text = split_quote(raw)
        text = text.strip()
        if text.startswith("```"):
            fenced, broken = not fenced, True
            continue
        if fenced or not text or text.startswith(("diff --git", "@@ ", "+", "-")) or \
                DIFFSTAT.match(text):
            continue  # code, and a diffstat's "path | 21 ++++----" lines
        if runs and runs[-1][0] == depth and not broken:
            runs[-1][1].append(text)
            runs[-1][2].append(first_line + i)
        else:
            runs.append((depth, [text], [first_line + i]))
        broken = False
    out = []
    for depth, texts, lines in runs:
        offsets = [0]
        for t in texts[:-1]:
            offsets.append(offsets[-1] + len(t) + 1)
        out.append(Para(depth, " ".join(texts), tuple(zip(offsets, lines, strict=True))))
    return out, fenced
