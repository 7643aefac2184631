"""English tokens and sentences as spaCy's blank English pipeline makes them, without spaCy.

``statements`` cuts its candidate paragraphs into sentences and matches token patterns
on them.  It did so with ``spacy.blank("en")``, the sentencizer and spaCy's Matcher, but
importing spaCy costs a process 0.7-1.0 s, more than reading a day's new mail of a list.
This module reads the same:

- tokens as spaCy's ``Tokenizer`` makes them (``_tokenize_affixes``: one space after a
  token is its trailing whitespace, any other whitespace a token of its own; prefixes,
  suffixes, special cases, the URL match, infixes; then the special cases the affix rules
  split, found again in the tokens), with English's rules as spaCy has them, kept in
  ``data/english.json`` (``python -m mlx.extract.english`` writes it from the installed
  spaCy; a test checks they are equal);
- sentences by the Sentencizer's rule: a sentence starts at the first token after a
  sentence-final character that is neither punctuation nor such a character;
- the token attributes patterns test (``mlx.extract.ruler``): ``LOWER``, ``TEXT``,
  ``LIKE_NUM`` (English's), ``IS_PUNCT``, ``IS_SENT_START``.

``tests/test_extract_english.py`` checks tokens, sentences and matches against spaCy on
the corpus' paragraphs and on composed ones.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

RULES = Path(__file__).parent / "data" / "english.json"
SPLIT = re.compile(r"\S+|\s+")


@dataclass(frozen=True)
class Doc:
    """A text's tokens (character spans) and sentences (token ranges)."""

    text: str
    starts: list[int]
    ends: list[int]
    sents: list[tuple[int, int]]  # (first token, end token) of each sentence, in order
    sent_of: list[int]  # each token's sentence index

    def __len__(self) -> int:
        return len(self.starts)

    def token(self, i: int) -> str:
        return self.text[self.starts[i]:self.ends[i]]

    def span(self, start: int, end: int) -> str:
        """The text of tokens ``start`` to ``end`` (as spaCy's ``doc[start:end].text``)."""
        return self.text[self.starts[start]:self.ends[end - 1]] if end > start else ""

    def sentence(self, i: int) -> tuple[int, int]:
        """The sentence token ``i`` stands in."""
        return self.sents[self.sent_of[i]]


class Tokenizer:
    """``tokenizer.spans(text)``: the (start, end) of each token, as spaCy's English
    tokenizer makes them."""

    def __init__(self, rules: dict[str, Any]) -> None:
        self.prefix = re.compile(rules["prefix"]).search
        self.suffix = re.compile(rules["suffix"]).search
        self.infix = re.compile(rules["infix"]).finditer
        self.url = re.compile(rules["url"]).match
        self.specials: dict[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in rules["specials"].items()}
        self.cache: dict[str, tuple[int, ...]] = {}  # span -> token lengths
        # special cases the affix rules split ("faster heuristics"): their tokens without
        # special cases, by first token, to be found again in a text's tokens
        self.phrases: dict[str, list[tuple[str, ...]]] = {}
        for key in self.specials:
            if self.prefix(key) or self.suffix(key) or next(self.infix(key), None) or \
                    " " in key:
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
            elif self.url(s):
                out.append(s)
            else:
                start = 0
                for m in self.infix(s):
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


def is_punct(text: str) -> bool:
    """spaCy's ``IS_PUNCT``: every character a punctuation character."""
    return all(unicodedata.category(c).startswith("P") for c in text)


NUM_WORDS = frozenset((
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand million billion trillion quadrillion quintillion "
    "sextillion septillion octillion nonillion decillion gajillion bazillion").split())
ORDINAL_WORDS = frozenset((
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth "
    "thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth hundredth "
    "thousandth millionth billionth trillionth quadrillionth quintillionth sextillionth "
    "septillionth octillionth nonillionth decillionth gajillionth bazillionth").split())


def like_num(text: str) -> bool:
    """English's ``LIKE_NUM``: "10,000", "3.5", "1/2", "seven", "21st"."""
    if text.startswith(("+", "-", "±", "~")):
        text = text[1:]
    text = text.replace(",", "").replace(".", "")
    if text.isdigit():
        return True
    if text.count("/") == 1:
        num, denom = text.split("/")
        if num.isdigit() and denom.isdigit():
            return True
    low = text.lower()
    return low in NUM_WORDS or low in ORDINAL_WORDS or (
        low.endswith(("st", "nd", "rd", "th")) and low[:-2].isdigit())


class English:
    """``english(text)``: the ``Doc`` of a text, tokens and sentences."""

    def __init__(self, rules: dict[str, Any]) -> None:
        self.tokenizer = Tokenizer(rules)
        self.punct_chars = frozenset(rules["punct_chars"])
        self.punct: dict[str, bool] = {}

    def __call__(self, text: str) -> Doc:
        spans = self.tokenizer.spans(text)
        starts = [s for s, _ in spans]
        ends = [e for _, e in spans]
        sents: list[tuple[int, int]] = []
        start, seen_period = 0, False
        for i, (s, e) in enumerate(spans):  # spaCy's Sentencizer.predict
            word = text[s:e]
            in_chars = word in self.punct_chars
            if seen_period and not in_chars and not self._is_punct(word):
                sents.append((start, i))
                start, seen_period = i, False
            elif in_chars:
                seen_period = True
        if spans:
            sents.append((start, len(spans)))
        sent_of = [0] * len(spans)
        for k, (a, b) in enumerate(sents):
            sent_of[a:b] = [k] * (b - a)
        return Doc(text, starts, ends, sents, sent_of)

    def _is_punct(self, word: str) -> bool:
        known = self.punct.get(word)
        if known is None:
            known = self.punct[word] = is_punct(word)
        return known


@cache
def english() -> English:
    """The English pipeline, built once per process (its rules read from ``RULES``)."""
    return English(json.loads(RULES.read_text(encoding="utf-8")))


def spacy_rules() -> dict[str, Any]:
    """English's tokenizer rules and the Sentencizer's characters, from spaCy itself."""
    import spacy
    from spacy.attrs import ORTH
    from spacy.pipeline.sentencizer import Sentencizer
    tok: Any = spacy.blank("en").tokenizer
    assert tok.token_match is None  # English has none; _tokenize would need it
    return {
        "spacy": spacy.__version__,
        "prefix": tok.prefix_search.__self__.pattern,
        "suffix": tok.suffix_search.__self__.pattern,
        "infix": tok.infix_finditer.__self__.pattern,
        "url": tok.url_match.__self__.pattern,
        "specials": {k: [t.get(ORTH, t.get("ORTH")) for t in v]
                     for k, v in sorted(tok.rules.items())},
        "punct_chars": sorted(Sentencizer.default_punct_chars),
    }


if __name__ == "__main__":  # pragma: no cover - regenerates data/english.json
    rules = spacy_rules()
    RULES.write_text(json.dumps(rules, ensure_ascii=False, indent=0, sort_keys=True) + "\n",
                     encoding="utf-8")
    print(f"{RULES}: spaCy {rules['spacy']}, {len(rules['specials'])} special cases")
