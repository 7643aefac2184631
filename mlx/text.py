"""The quote prefix of a mail line: one splitter for QP repair and every extractor."""

from __future__ import annotations

import re

# "> > [SUM] 0.00-10.04 sec ...", ">>> foo", "  > indented quote": '>' marks, each after at
# most three blanks, and one blank after the last
QUOTE = re.compile(r"^(?:[ \t]{0,3}>)+[ \t]?")


def quote_prefix(line: str) -> str:
    """The quote prefix of one line ("" for unquoted text: its leading blanks are content)."""
    m = QUOTE.match(line) if ">" in line[:16] else None
    return m.group(0) if m else ""


def split_quote(line: str) -> tuple[int, str]:
    """(quote depth, text without the prefix) of one line."""
    prefix = quote_prefix(line)
    return prefix.count(">"), line[len(prefix):]
