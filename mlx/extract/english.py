"""English tokens and sentences as spaCy's blank English pipeline makes them, without spaCy.

``statements`` cuts its candidate paragraphs into sentences and matches token patterns
on them.  It did so with ``spacy.blank("en")``, the sentencizer and spaCy's Matcher, but
importing spaCy costs a process 0.7-1.0 s, more than reading a day's new mail of a list.
This module reads the same:

- tokens as spaCy's ``Tokenizer`` makes them (``mlx.extract.ruler.Tokenizer``: one space
  after a token is its trailing whitespace, any other whitespace a token of its own;
  prefixes, suffixes, special cases, the URL match, infixes; then the special cases the
  affix rules split, found again in the tokens), with English's rules as spaCy has
  them, kept in ``data/english.json`` (``python -m mlx.extract.english`` writes it from
  the installed spaCy; a test checks they are equal);
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

from mlx.extract.ruler import Tokenizer

RULES = Path(__file__).parent / "data" / "english.json"


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
        self.tokenizer = Tokenizer(
            re.compile(rules["prefix"]).search, re.compile(rules["suffix"]).search,
            re.compile(rules["infix"]).finditer, re.compile(rules["url"]).match,
            rules["specials"])
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
