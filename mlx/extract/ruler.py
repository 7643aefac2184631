"""Entities from spaCy-style token patterns, read the way spaCy's EntityRuler reads them.

The hardware vocabulary (``mlx.extract.hwvocab``) is written as spaCy Matcher patterns:
token dicts with ``LOWER``, ``TEXT`` or ``ORTH`` holding a string, ``{"IN": [...]}`` or
``{"REGEX": ...}``, and ``OP`` (``?``, ``*``, ``+``, ``{m,n}``).  Hardware reads short
lines, one at a time, and loading spaCy and its EntityRuler cost a worker process about
1.2 s, more than its whole reading of a list's lines; spaCy's Matcher also tests every
pattern's regexes at every token of every line.  ``Ruler`` gives the same entities:

- tokens as spaCy's ``Tokenizer`` with only ``prefix_search`` and ``suffix_search`` makes
  them: split at whitespace (one space after a token is its trailing whitespace, any
  other run of whitespace is a token of its own), then prefixes and suffixes peeled off;
- each distinct token text is tested once against every predicate (kept as a bit mask);
- every match of every pattern, then, as the EntityRuler does, the longest first (the
  leftmost of equal length), skipping any that overlaps one taken.

``tests/test_extract_ruler.py`` checks it against spaCy itself on lines of each shape.
Where two labels' patterns match one span exactly, the first pattern's label is kept;
spaCy's pick there follows the order of a Python set of (label hash, start, end), so on
the corpus the same chip got either label at two places of one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

SPLIT = re.compile(r"\S+|\s+")
OPS = {None: (1, 1), "?": (0, 1), "*": (0, 10**9), "+": (1, 10**9)}
RANGE_OP = re.compile(r"^\{(\d*)(?:(,)(\d*))?\}$")


def tokenize(text: str, prefix: Callable[[str], Any], suffix: Callable[[str], Any]
             ) -> list[tuple[int, int]]:
    """(start, end) of each token of ``text``, as spaCy's Tokenizer splits it."""
    out: list[tuple[int, int]] = []
    for m in SPLIT.finditer(text):
        start, end = m.span()
        if text[start].isspace():
            if start and text[start] == " ":
                start += 1  # the previous token's trailing space
            if start < end:
                out.append((start, end))
            continue
        out += _affixes(text, start, end, prefix, suffix)
    return out


def _affixes(text: str, start: int, end: int, prefix: Callable[[str], Any],
             suffix: Callable[[str], Any]) -> list[tuple[int, int]]:
    """spaCy's ``_split_affixes`` on one whitespace-free span."""
    heads: list[tuple[int, int]] = []
    tails: list[tuple[int, int]] = []
    last = -1
    while start < end and end - start != last:
        last = end - start
        s = text[start:end]
        m = prefix(s)
        pre = m.end() - m.start() if m else 0
        m = suffix(s[pre:])
        suf = m.end() - m.start() if m else 0
        if pre and suf and pre + suf <= len(s):
            heads.append((start, start + pre))
            tails.append((end - suf, end))
            start, end = start + pre, end - suf
        elif pre:
            heads.append((start, start + pre))
            start += pre
        elif suf:
            tails.append((end - suf, end))
            end -= suf
    return heads + ([(start, end)] if start < end else []) + tails[::-1]


class Ruler:
    """``ruler(text)`` is the list of (label, span text) entities, in text order."""

    def __init__(self, patterns: Iterable[dict[str, Any]], prefix: Callable[[str], Any],
                 suffix: Callable[[str], Any]) -> None:
        self.prefix, self.suffix = prefix, suffix
        self.lower: dict[str, int] = {}  # token.lower_ -> bits of the predicates it meets
        self.text: dict[str, int] = {}
        self.regex: list[tuple[int, str, re.Pattern[str]]] = []  # (bit, attribute, regex)
        self._bits: dict[Any, int] = {}
        self.labels: list[str] = []
        # per pattern: (label index, elements (bit, least, most), bits a match can start with)
        self.patterns: list[tuple[int, list[tuple[int, int, int]], int]] = []
        for entry in patterns:
            if entry["label"] not in self.labels:
                self.labels.append(entry["label"])
            elements = [self._element(token) for token in entry["pattern"]]
            first = 0
            for bit, least, _ in elements:
                first |= bit if bit else -1  # a wildcard can start anywhere
                if least:
                    break
            self.patterns.append((self.labels.index(entry["label"]), elements, first))
        rx = [r.pattern for _, _, r in self.regex]
        self.any_regex = re.compile("|".join(f"(?:{r})" for r in rx)) if rx else None
        self.masks: dict[str, int] = {}

    def _element(self, token: dict[str, Any]) -> tuple[int, int, int]:
        op = token.get("OP")
        if op in OPS:
            least, most = OPS[op]
        elif op and (m := RANGE_OP.match(op)):
            least = int(m.group(1) or 0)
            most = least if not m.group(2) else int(m.group(3)) if m.group(3) else 10**9
        else:
            raise ValueError(f"unsupported OP {op!r}")
        tests = [(k, v) for k, v in token.items() if k != "OP"]
        if not tests:
            return 0, least, most
        if len(tests) > 1:
            raise ValueError(f"one attribute per token pattern: {token!r}")
        return self._predicate(*tests[0]), least, most

    def _predicate(self, attr: str, value: Any) -> int:
        attr = "TEXT" if attr == "ORTH" else attr
        if attr not in ("LOWER", "TEXT"):
            raise ValueError(f"unsupported attribute {attr}")
        key = (attr, repr(value))
        if key in self._bits:
            return self._bits[key]
        bit = self._bits[key] = 1 << len(self._bits)
        table = self.lower if attr == "LOWER" else self.text
        if isinstance(value, str):
            table[value] = table.get(value, 0) | bit
        elif set(value) == {"IN"}:
            for word in value["IN"]:
                table[word] = table.get(word, 0) | bit
        elif set(value) == {"REGEX"}:
            self.regex.append((bit, attr, re.compile(value["REGEX"])))
        else:
            raise ValueError(f"unsupported predicate {value!r}")
        return bit

    def mask(self, token: str) -> int:
        """The bits of every predicate ``token`` meets (kept per distinct token)."""
        bits = self.masks.get(token)
        if bits is None:
            low = token.lower()
            bits = self.lower.get(low, 0) | self.text.get(token, 0)
            rx = self.any_regex
            if rx is not None and (rx.search(token) or (low != token and rx.search(low))):
                for bit, attr, rx in self.regex:
                    if rx.search(low if attr == "LOWER" else token):
                        bits |= bit
            if len(self.masks) > 200_000:
                self.masks.clear()
            self.masks[token] = bits
        return bits

    def __call__(self, text: str) -> list[tuple[str, str]]:
        tokens = tokenize(text, self.prefix, self.suffix)
        masks = [self.mask(text[s:e]) for s, e in tokens]
        seen = 0
        for m in masks:
            seen |= m
        found: dict[tuple[int, int, int], None] = {}  # (start, end, label), in pattern order
        for label, elements, first in self.patterns:
            if not first & seen and first != -1:
                continue
            for start, m in enumerate(masks):
                if m & first or first == -1:
                    for end in _ends(elements, masks, start):
                        found.setdefault((start, end, label))
        # the longest first, then the leftmost; of one span, the first pattern's label
        # (spaCy's order there is a set's)
        taken: list[tuple[int, int, int]] = []
        used: set[int] = set()
        for start, end, label in sorted(found, key=lambda m: (m[1] - m[0], -m[0]), reverse=True):
            if start not in used and end - 1 not in used:
                taken.append((start, end, label))
                used.update(range(start, end))
        taken.sort()
        return [(self.labels[label], text[tokens[s][0]:tokens[e - 1][1]]) for s, e, label in taken]


def _ends(elements: list[tuple[int, int, int]], masks: list[int], start: int) -> set[int]:
    """Where a pattern's matches from token ``start`` end (none of zero length)."""
    out: set[int] = set()
    n = len(masks)
    stack = [(0, start)]
    while stack:
        k, pos = stack.pop()
        if k == len(elements):
            if pos > start:
                out.add(pos)
            continue
        bit, least, most = elements[k]
        if not least:
            stack.append((k + 1, pos))
        count = 0
        while count < most and pos < n and (not bit or masks[pos] & bit):
            pos += 1
            count += 1
            if count >= least:
                stack.append((k + 1, pos))
    return out
