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


class Patterns:
    """spaCy Matcher patterns read as bit masks: each distinct token text is tested once
    against every predicate, a token meets an element when it has all of its bits.

    Predicates: ``LOWER``, ``TEXT`` or ``ORTH`` holding a string, ``{"IN": [...]}`` or
    ``{"REGEX": ...}``; ``LIKE_NUM`` and ``IS_PUNCT`` (functions of the text, given by
    the caller) and ``IS_SENT_START`` (of the position: the caller adds ``starts_bits``),
    holding True or False; several in one element must all hold."""

    def __init__(self, patterns: Iterable[list[dict[str, Any]]],
                 flags: dict[str, Callable[[str], bool]] | None = None) -> None:
        self.flag_tests = flags or {}
        self.lower: dict[str, int] = {}  # token.lower_ -> bits of the predicates it meets
        self.text: dict[str, int] = {}
        self.regex: list[tuple[int, str, re.Pattern[str]]] = []  # (bit, attribute, regex)
        self.flags: list[tuple[int, Callable[[str], bool], bool]] = []  # (bit, test, value)
        self.start_bits = {True: 0, False: 0}  # IS_SENT_START's, by the position
        self._bits: dict[Any, int] = {}
        # per pattern: (elements (bits needed, least, most), bits a match can start with)
        self.patterns: list[tuple[list[tuple[int, int, int]], int]] = []
        for pattern in patterns:
            elements = [self._element(token) for token in pattern]
            first = 0
            for need, least, _ in elements:
                first |= need if need else -1  # a wildcard can start anywhere
                if least:
                    break
            self.patterns.append((elements, first))
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
        need = 0
        for attr, value in token.items():
            if attr != "OP":
                need |= self._predicate(attr, value)
        return need, least, most

    def _predicate(self, attr: str, value: Any) -> int:
        attr = "TEXT" if attr == "ORTH" else attr
        if attr not in ("LOWER", "TEXT", "IS_SENT_START", *self.flag_tests):
            raise ValueError(f"unsupported attribute {attr}")
        key = (attr, repr(value))
        if key in self._bits:
            return self._bits[key]
        bit = self._bits[key] = 1 << len(self._bits)
        table = self.lower if attr == "LOWER" else self.text
        if attr == "IS_SENT_START" and isinstance(value, bool):
            self.start_bits[value] = bit
        elif attr in self.flag_tests and isinstance(value, bool):
            self.flags.append((bit, self.flag_tests[attr], value))
        elif attr in ("IS_SENT_START", *self.flag_tests):
            raise ValueError(f"unsupported predicate {attr}: {value!r}")
        elif isinstance(value, str):
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
            for bit, test, value in self.flags:
                if test(token) == value:
                    bits |= bit
            if len(self.masks) > 200_000:
                self.masks.clear()
            self.masks[token] = bits
        return bits

    def matches(self, masks: list[int]) -> list[tuple[int, int, int]]:
        """(start, end, pattern index) of every match over tokens of these masks, in
        text order: by start, then end, then pattern (spaCy's own order follows its
        matcher's states; read in this one, statements gives what it gave in spaCy's on
        every paragraph of the corpus)."""
        seen = 0
        for m in masks:
            seen |= m
        found = []
        for p, (elements, first) in enumerate(self.patterns):
            if not first & seen and first != -1:
                continue
            for start, m in enumerate(masks):
                if m & first or first == -1:
                    found += [(start, end, p) for end in _ends(elements, masks, start)]
        return sorted(found)


class Ruler:
    """``ruler(text)`` is the list of (label, span text) entities, in text order."""

    def __init__(self, patterns: Iterable[dict[str, Any]], prefix: Callable[[str], Any],
                 suffix: Callable[[str], Any]) -> None:
        self.prefix, self.suffix = prefix, suffix
        entries = list(patterns)
        self.labels: list[str] = list(dict.fromkeys(e["label"] for e in entries))
        self.label_of = [self.labels.index(e["label"]) for e in entries]
        self.patterns = Patterns(e["pattern"] for e in entries)

    def __call__(self, text: str) -> list[tuple[str, str]]:
        tokens = tokenize(text, self.prefix, self.suffix)
        masks = [self.patterns.mask(text[s:e]) for s, e in tokens]
        # (start, end, label), in pattern order
        found = dict.fromkeys((start, end, self.label_of[p])
                              for start, end, p in self.patterns.matches(masks))
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
        need, least, most = elements[k]
        if not least:
            stack.append((k + 1, pos))
        count = 0
        while count < most and pos < n and masks[pos] & need == need:
            pos += 1
            count += 1
            if count >= least:
                stack.append((k + 1, pos))
    return out
