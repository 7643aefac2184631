"""Entities from spaCy-style token patterns, read the way spaCy's EntityRuler reads them.

The hardware vocabulary (``mlx.extract.hwvocab``) is written as spaCy Matcher patterns:
token dicts with ``LOWER``, ``TEXT`` or ``ORTH`` holding a string, ``{"IN": [...]}`` or
``{"REGEX": ...}``, and ``OP`` (``?``, ``*``, ``+``, ``{m,n}``).  Hardware reads short
lines, one at a time, and loading spaCy and its EntityRuler cost a worker process about
1.2 s, more than its whole reading of a list's lines; spaCy's Matcher also tests every
pattern's regexes at every token of every line.  ``Ruler`` gives the same entities:

- tokens as spaCy's ``Tokenizer`` makes them (``Tokenizer``, here with only
  ``prefix_search`` and ``suffix_search``): split at whitespace (one space after a token
  is its trailing whitespace, any other run of whitespace is a token of its own), then
  prefixes and suffixes peeled off;
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
from collections.abc import Callable, Iterable, Iterator
from typing import Any

SPLIT = re.compile(r"\S+|\s+")
OPS = {None: (1, 1), "?": (0, 1), "*": (0, 10**9), "+": (1, 10**9)}
RANGE_OP = re.compile(r"^\{(\d*)(?:(,)(\d*))?\}$")


class Tokenizer:
    """``tokenizer.spans(text)``: the (start, end) of each token, as spaCy's ``Tokenizer``
    makes them with these rules (``prefix`` and ``suffix``: a regex's ``search``,
    ``infix``: its ``finditer``, ``url``: its ``match``, ``specials``: text -> the texts
    of its tokens; English's in ``mlx.extract.english``, hardware's only affixes)."""

    def __init__(self, prefix: Callable[[str], Any], suffix: Callable[[str], Any],
                 infix: Callable[[str], Iterator[re.Match[str]]] | None = None,
                 url: Callable[[str], Any] | None = None,
                 specials: dict[str, list[str]] | None = None) -> None:
        self.prefix, self.suffix, self.infix, self.url = prefix, suffix, infix, url
        self.specials: dict[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in (specials or {}).items()}
        self.cache: dict[str, tuple[int, ...]] = {}  # span -> token lengths
        # special cases the affix rules split ("faster heuristics"): their tokens without
        # special cases, by first token, to be found again in a text's tokens
        self.phrases: dict[str, list[tuple[str, ...]]] = {}
        for key in self.specials:
            if self.prefix(key) or self.suffix(key) or " " in key or (
                    self.infix is not None and next(self.infix(key), None)):
                words = tuple(self._words(key, specials=False))
                self.phrases.setdefault(words[0], []).append(words)

    def _words(self, text: str, specials: bool = True) -> list[str]:
        """The token texts of ``text``, whitespace tokens included."""
        return [text[s:e] for s, e in self.spans(text, specials)]

    def spans(self, text: str, specials: bool = True) -> list[tuple[int, int]]:
        """Each token's (start, end) in ``text``; ``specials=False`` as spaCy tokenizes a
        special case's own text, without the special cases."""
        out: list[tuple[int, int]] = []
        for m in SPLIT.finditer(text):
            start, end = m.span()
            if text[start].isspace():
                if text[start] == " " and start > 0:
                    start += 1  # the previous token's trailing whitespace
                if start < end:
                    out.append((start, end))
                continue
            span = text[start:end]
            lengths = self.cache.get(span) if specials else None
            if lengths is None:
                lengths = tuple(len(w) for w in self._tokenize(span, specials))
                if specials:
                    if len(self.cache) > 100_000:
                        self.cache.clear()
                    self.cache[span] = lengths
            for n in lengths:
                out.append((start, start + n))
                start += n
        return self._respecial(text, out) if specials and self.phrases else out

    def _tokenize(self, s: str, specials: bool) -> list[str]:
        special = self.specials if specials else {}
        if s in special:
            return list(special[s])
        prefixes, suffixes = [], []
        last = 0
        while s and len(s) != last:  # spaCy's Tokenizer._split_affixes
            if s in special:
                break
            last = len(s)
            m = self.prefix(s)
            pre = m.end() - m.start() if m else 0
            if pre:
                prefix, minus_pre = s[:pre], s[pre:]
                if minus_pre and minus_pre in special:
                    s = minus_pre
                    prefixes.append(prefix)
                    break
            m = self.suffix(s[pre:])
            suf = m.end() - m.start() if m else 0
            if suf:
                suffix, minus_suf = s[-suf:], s[:-suf]
                if minus_suf and minus_suf in special:
                    s = minus_suf
                    suffixes.append(suffix)
                    break
            if pre and suf and pre + suf <= len(s):
                s = s[pre:-suf]
                prefixes.append(prefix)
                suffixes.append(suffix)
            elif pre:
                s = minus_pre
                prefixes.append(prefix)
            elif suf:
                s = minus_suf
                suffixes.append(suffix)
        out = prefixes  # spaCy's Tokenizer._attach_tokens
        if s:
            if s in special:
                out += special[s]
            elif self.url is not None and self.url(s):
                out.append(s)
            else:
                start = 0
                for m in self.infix(s) if self.infix is not None else ():
                    a, b = m.span()
                    if a == 0:
                        continue
                    if a != start:
                        out.append(s[start:a])
                    if a != b:
                        out.append(s[a:b])
                    start = b
                if s[start:]:
                    out.append(s[start:])
        out += reversed(suffixes)
        return out

    def _respecial(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Special cases the affix rules split, made whole again (spaCy's
        ``_apply_special_cases``: the longest first, then the leftmost)."""
        words = [text[s:e] for s, e in spans]
        found = []
        for i, w in enumerate(words):
            for phrase in self.phrases.get(w, ()):
                n = len(phrase)
                if tuple(words[i:i + n]) == phrase:
                    found.append((i, i + n))
        if not found:
            return spans
        found.sort(key=lambda m: (m[1] - m[0], -m[0]))
        seen: set[int] = set()
        taken = []
        for start, end in reversed(found):
            if start not in seen and end - 1 not in seen:
                taken.append((start, end))
            seen.update(range(start, end))
        out: list[tuple[int, int]] = []
        at = 0
        for start, end in sorted(taken):
            out += spans[at:start]
            at = end
            key = text[spans[start][0]:spans[end - 1][1]]
            if key not in self.specials:
                out += spans[start:end]
                continue
            pos = spans[start][0]
            for orth in self.specials[key]:
                out.append((pos, pos + len(orth)))
                pos += len(orth)
        return out + spans[at:]


class Patterns:
    """spaCy Matcher patterns read as bit masks: each distinct token text is tested once
    against every predicate, a token meets an element when it has all of its bits.

    Predicates: ``LOWER``, ``TEXT`` or ``ORTH`` holding a string, ``{"IN": [...]}`` or
    ``{"REGEX": ...}``; ``LIKE_NUM`` and ``IS_PUNCT`` (functions of the text, given by
    the caller) and ``IS_SENT_START`` (of the position: the caller adds ``start_bits``),
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
        self.tokenizer = Tokenizer(prefix, suffix)
        entries = list(patterns)
        self.labels: list[str] = list(dict.fromkeys(e["label"] for e in entries))
        self.label_of = [self.labels.index(e["label"]) for e in entries]
        self.patterns = Patterns(e["pattern"] for e in entries)

    def __call__(self, text: str) -> list[tuple[str, str]]:
        tokens = self.tokenizer.spans(text)
        masks = [self.patterns.mask(text[s:e]) for s, e in tokens]
        # (start, end, label); of one span, in pattern order
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
