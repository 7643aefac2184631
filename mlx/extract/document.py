"""One body read once into the structure the extractors share.

``Document`` holds each line with its quote depth and its text without the
quote prefix, marks the lines of diff hunks (code is no measurement, and no
setup), and joins lines a mail client wrapped:

- an iperf3 summary whose ``sender``/``receiver`` went to a line of its own;
- a value whose unit went to the next line (``12.7`` / ``Gbits/sec``).

The joined line keeps the number of its first line; the continuation becomes
empty, so line numbers stay those of the body.  ``indent`` and ``bullet`` give
the outline position of a line (its leading blanks, and a ``-``/``*``/``1.``
marker), which the label outline reads.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from mlx.extract import iperf
from mlx.text import Scanner, pasted_commits, split_quote

# no-break and thin spaces that HTML mail clients put into pasted tool output
SPACES = str.maketrans({"\xa0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " "})
# "diff --git a/x b/x", "@@ -1,2 +1,3 @@": a hunk starts
HUNK_START = ("diff --git ", "@@ -")
# "  12.7" then "Gbits/sec": a lone unit line continues the value above it
LONE_UNIT = re.compile(r"^[ \t]*(?:[KMGT]?bits/sec|[KMGT]bps|[KMGT]bit/s|[kKmMG]pps)[ \t]*[.,;]?$")
ENDS_WITH_NUMBER = re.compile(r"\d(?:\.\d+)?[ \t]*$")
# "(0.3%)  receiver", "2588/862067 (0.3%)  sender": the tail of a wrapped iperf3 UDP summary
UDP_TAIL = re.compile(r"^(?:\d{1,12}/\d{1,12}[ \t]+)?\(\d{1,3}(?:\.\d{1,9})?%\)[ \t]+"
                      r"(?:sender|receiver)$")
# a body without these has no wrap _join_wraps joins (sender/receiver, a UDP tail, a lone
# unit, an lspci line)
WRAP_WORDS = ("sender", "receiver", "bits/sec", "bps", "bit/s", "pps", "controller:")
FOOTER_RULE = re.compile(r"^_{20,}[ \t]*$")
SIGNATURE_LINES = 8  # a signature is short: more lines after "-- " are a message's own text
# "  - net-next (baseline):"  "* idle link:"  "1. with the patch"  "a) ..."
BULLET = re.compile(r"^([ \t]*)(?:[-*+\u2022o][ \t]+|\(?(?:\d{1,2}|[a-z])[.)][ \t]+)?")


_LAST: tuple[str, Document] | None = None
# every extractor's prefilter words, found in one pass over the head of a body
PREFILTERS = Scanner()


def head(body: str) -> str:
    """The body up to its first diff: a patch's code holds no results and states no setup."""
    cut = body.find("\ndiff --git ")
    return body if cut < 0 else body[:cut]


class Line(NamedTuple):
    """One line of a body (a tuple: a Document holds thousands, built per message)."""

    depth: int  # quote depth: 0 for own text
    text: str  # without the quote prefix; wrapped continuations joined
    in_diff: bool = False
    in_signature: bool = False  # after the "-- " line that starts a short signature


class Document:
    """The lines of one body with their quote depth, diff marks and joined wraps."""

    def __init__(self, body: str) -> None:
        if not body.isascii():
            body = body.translate(SPACES)  # "[\xa0 3] 0.0-2.0 sec\xa0 12.0 GBytes": HTML mailers
        raw = body.split("\n")
        # (a line without ">" near its start is unquoted: most lines, not split)
        split = [split_quote(ln) if ">" in ln[:16] else (0, ln) for ln in raw]
        if "\ncommit " in body:  # a pasted commit is another author's text: as if quoted
            pasted = pasted_commits(raw)
            split = [(max(d, 1), t) if i in pasted else (d, t) for i, (d, t) in enumerate(split)]
        if any(w in body for w in WRAP_WORDS):
            split = _join_wraps(split)
        self.lines = _mark_signature(_mark_diffs(split))

    @classmethod
    def of(cls, body: str) -> Document:
        """The Document of ``body``, the last one read kept: the extractors run one
        message after another and read the same text (a Document is never changed)."""
        global _LAST
        last = _LAST  # read once: another thread may replace it
        if last is not None and last[0] == body:
            return last[1]
        doc = cls(body)
        _LAST = (body, doc)
        return doc

    def __len__(self) -> int:
        return len(self.lines)

    def text(self, i: int) -> str:
        return self.lines[i].text

    def depth(self, i: int) -> int:
        return self.lines[i].depth

    def next_text(self, i: int, within: int = 5) -> int | None:
        """The next non-blank line at the same depth, at most ``within`` lines on."""
        depth = self.lines[i].depth
        for j in range(i + 1, min(len(self.lines), i + 1 + within)):
            if self.lines[j].depth == depth and self.lines[j].text.strip():
                return j
        return None


def outline_position(text: str) -> tuple[int, bool, str]:
    """(indent, has a bullet, text without indent and bullet) of one line."""
    m = BULLET.match(text)
    assert m is not None  # the pattern matches the empty string
    indent = len(m.group(1).expandtabs(4))
    return indent + (2 if m.end() > len(m.group(1)) else 0), m.end() > len(m.group(1)), \
        text[m.end():]


def _join_wraps(split: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out = list(split)
    for i in range(len(out) - 1):
        depth, text = out[i]
        nxt_depth, nxt = out[i + 1]
        if nxt_depth != depth or not text:
            continue
        word = nxt.strip()
        # "[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162" then "sender"
        if word in ("sender", "receiver") and (v := iperf.parse_line(text)) is not None \
                and v.side is None and v.jitter_ms is None:
            out[i], out[i + 1] = (depth, f"{text.rstrip()}  {word}"), (depth, "")
        elif UDP_TAIL.match(word) and (v := iperf.parse_line(text)) is not None \
                and v.side is None and v.jitter_ms is None:
            # "... 1.05 Gbits/sec  0.012 ms  2588/862067" then "(0.3%)  receiver"
            out[i], out[i + 1] = (depth, f"{text.rstrip()} {word}"), (depth, "")
        elif LONE_UNIT.match(nxt) and ENDS_WITH_NUMBER.search(text):
            out[i], out[i + 1] = (depth, f"{text.rstrip()} {word}"), (depth, "")
        elif text.endswith(" ") and "controller:" in text and word and nxt[:1] not in (" ", "\t"):
            # "06:00.0 Ethernet controller: Realtek Semiconductor Co., Ltd. " wrapped
            out[i], out[i + 1] = (depth, f"{text.rstrip()} {word}"), (depth, "")
    return out


def _mark_signature(lines: list[Line]) -> list[Line]:
    """Mark the lines after the last signature separator ("-- ") of own text, when few
    lines follow it ("FTTP is here! 80Mbps down 10Mbps up." is no measurement), and a
    mailing list's footer ("_____" over "openwrt-devel mailing list") below it."""
    end = len(lines)
    for k in range(len(lines) - 1, max(-1, len(lines) - 8), -1):
        if FOOTER_RULE.match(lines[k].text) and any(
                "mailing list" in ln.text for ln in lines[k + 1:k + 3]):
            end = k  # the list's footer: no one's text
            break
    lines = _mark_quoted_signatures(lines)
    last = next((k for k in range(end - 1, -1, -1) if lines[k].text.strip()), -1)
    for k in range(last, max(-1, last - SIGNATURE_LINES - 1), -1):
        if lines[k].depth == 0 and lines[k].text in ("-- ", "--") and not lines[k].in_diff:
            rest = [ln for ln in lines[k + 1:end] if ln.text.strip()]
            if 0 < len(rest) <= SIGNATURE_LINES and all(ln.depth == 0 for ln in rest):
                return lines[:k + 1] + [Line(*ln[:3], True) for ln in lines[k + 1:]]
            break
    return lines[:end] + [Line(*ln[:3], True) for ln in lines[end:]]


def _mark_quoted_signatures(lines: list[Line]) -> list[Line]:
    """The signature of a quoted message ("> -- " over "> FTTP is here! 80Mbps down"): the
    few lines of its depth after the separator, up to where the quote ends."""
    out = lines
    for k, line in enumerate(lines):
        if line.depth == 0 or line.text not in ("-- ", "--"):
            continue
        stop = next((j for j in range(k + 1, len(lines)) if lines[j].depth != line.depth),
                    len(lines))
        if stop - k - 1 <= SIGNATURE_LINES:
            if out is lines:
                out = list(lines)
            out[k + 1:stop] = [Line(*ln[:3], True) for ln in lines[k + 1:stop]]
    return out


def _mark_diffs(split: list[tuple[int, str]]) -> list[Line]:
    out: list[Line] = []
    new = tuple.__new__
    in_diff = False
    for depth, text in split:
        if text.startswith(HUNK_START):
            in_diff = True
        elif in_diff and not (text[:1] in ("+", "-", " ", "@", "\\") or text.startswith("index ")):
            in_diff = False
        out.append(new(Line, (depth, text, in_diff, False)))  # Line(...), a call less
    return out
