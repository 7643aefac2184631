"""Small text helpers the extractors share."""

from __future__ import annotations

import re

# "> > [SUM] 0.00-10.04 sec ...": the quote prefix of a reply line
QUOTE = re.compile(r"^(?:[ \t]{0,3}>)+[ \t]?")


def split_quote(line: str) -> tuple[int, str]:
    """(quote depth, text without the prefix) of one line."""
    m = QUOTE.match(line) if ">" in line[:12] else None
    if m is None:
        return 0, line
    return m.group(0).count(">"), line[m.end():]
