"""spaCy, the extractors' NLP engine: its pipelines, built once per process.

- ``english()``: ``spacy.blank("en")`` with the ``sentencizer``; ``statements`` reads its
  candidate paragraphs with it (``effect_docs``), and spaCy's ``Matcher`` (``effects``)
  finds the effect phrases on the same ``Vocab``.
- ``hardware()``: a second pipeline on that ``Vocab`` whose tokenizer splits at whitespace
  and peels brackets, quotes and a sentence's punctuation off a token (so ``E5-2620``,
  ``Cortex-A53`` and ``6.7.0-rc1`` stay whole), and a ``span_ruler`` holding the token
  patterns of ``mlx.extract.hwvocab`` and the gazetteer (its one-token NIC and wifi models
  as phrases, matched by spaCy's ``PhraseMatcher`` on ``LOWER``); ``hardware_entities``
  reads candidate lines with it.  Of overlapping matches the longest is kept (the
  leftmost of equal length); of matches of one span, the first pattern's label
  (``first_pattern_longest``: spaCy's own filter would pick by set order there).

spaCy is imported here only, on first use: ``mlx info``, ``claims``, ``sql``, ``show`` and
``report`` never load it.  The local engine builds both pipelines on a thread before its
pool forks (``mlx.pipeline.warm_up``), so its workers share them; a Dask worker builds
them once.  Once a worker's ``Vocab`` has grown by ``ZONE_FREE_STRINGS``, it reads each
chunk in a ``memory_zone`` (``zone``), so the strings of later chunks do not pile up.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mlx.extract import hwvocab

if TYPE_CHECKING:  # spaCy loads on first use
    from spacy.language import Language
    from spacy.matcher import Matcher
    from spacy.tokens import Doc, Span

_BUILT = threading.Lock()  # a warm-up thread may be building them
_ENGLISH: Any = None
_EFFECTS: Any = None
_HARDWARE: Any = None
_BASE_STRINGS = 0  # the Vocab's strings once both pipelines were built (``zone``)
BATCH = 256  # texts per nlp.pipe batch


def english() -> Language:
    """``spacy.blank("en")`` with the sentencizer (the effect matcher's pipeline)."""
    global _ENGLISH
    with _BUILT:
        if _ENGLISH is None:
            import spacy
            nlp = spacy.blank("en")
            nlp.add_pipe("sentencizer")
            _ENGLISH = nlp
            global _BASE_STRINGS
            _BASE_STRINGS = len(nlp.vocab.strings)
    return _ENGLISH


Patterns = list[list[dict[str, Any]]]


def effects(patterns: Callable[[], Patterns]) -> Matcher:
    """spaCy's Matcher holding the effect patterns ``patterns`` gives (the statements',
    ``statements.effect_patterns``: the caller names them, this floor imports no
    extractor), on ``english()``'s Vocab; built on the first call."""
    global _EFFECTS
    nlp = english()
    with _BUILT:
        if _EFFECTS is None:
            from spacy.matcher import Matcher

            # (patterns with lexeme flags are not the schema's: checked by their tests)
            matcher = Matcher(nlp.vocab, validate=False)
            flags: dict[tuple[str, str], int] = {}
            matcher.add("EFFECT", [[_flagged(nlp.vocab, tok, flags) for tok in pattern]
                                   for pattern in patterns()])
            _EFFECTS = matcher
    return _EFFECTS


def _flagged(vocab: Any, token: dict[str, Any], flags: dict[tuple[str, str], int]
             ) -> dict[Any, Any]:
    """A token pattern whose ``{"LOWER"|"TEXT": {"REGEX": ...}}`` is a lexeme flag: the
    regex then runs once per word the Vocab holds, not once per token it is tried on."""
    out: dict[Any, Any] = {}
    for key, value in token.items():
        if key in ("LOWER", "TEXT") and isinstance(value, dict) and set(value) == {"REGEX"}:
            if (key, value["REGEX"]) not in flags:
                rx = re.compile(value["REGEX"])
                flags[key, value["REGEX"]] = vocab.add_flag(
                    (lambda text, rx=rx: rx.search(text.lower()) is not None) if key == "LOWER"
                    else (lambda text, rx=rx: rx.search(text) is not None))
            out[flags[key, value["REGEX"]]] = True
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class Tokens:
    """What ``statements`` keeps of a spaCy Doc (a Doc does not outlive its memory zone):
    the text, each token's (start, end) offsets and each sentence's token range."""

    text: str
    starts: list[int]
    ends: list[int]
    sents: list[tuple[int, int]]  # (first token, end token) of each sentence, in order
    sent_of: list[int]  # each token's sentence index

    @classmethod
    def of(cls, doc: Doc) -> Tokens:
        from spacy.attrs import IDX, LENGTH, SENT_START
        if not len(doc):
            return cls(doc.text, [], [], [], [])
        # one array read (a Token object per token costs more than the tokenizer)
        cols = doc.to_array([IDX, LENGTH, SENT_START]).T.tolist()
        starts, ends = cols[0], [a + n for a, n in zip(cols[0], cols[1], strict=True)]
        firsts = [0] + [i for i, v in enumerate(cols[2]) if v == 1 and i]
        sents = list(zip(firsts, [*firsts[1:], len(doc)], strict=True))
        sent_of = [0] * len(doc)
        for k, (a, b) in enumerate(sents):
            sent_of[a:b] = [k] * (b - a)
        return cls(doc.text, starts, ends, sents, sent_of)

    def __len__(self) -> int:
        return len(self.starts)

    def token(self, i: int) -> str:
        return self.text[self.starts[i]:self.ends[i]]

    def span(self, start: int, end: int) -> str:
        """The text of tokens ``start`` to ``end`` (spaCy's ``doc[start:end].text``)."""
        return self.text[self.starts[start]:self.ends[end - 1]] if end > start else ""

    def sentence(self, i: int) -> tuple[int, int]:
        """The sentence token ``i`` stands in."""
        return self.sents[self.sent_of[i]]


def effect_docs(texts: list[str], patterns: Callable[[], Patterns]
                ) -> Iterator[tuple[Tokens, list[tuple[int, int]]]]:
    """Each paragraph's tokens and sentences, with the (start, end) token spans of every
    effect phrase in it (``effects(patterns)``), in text order (by start, then end)."""
    matcher = effects(patterns)
    for doc in english().pipe(texts, batch_size=BATCH):
        yield Tokens.of(doc), sorted({(start, end) for _, start, end in matcher(doc)})


def first_pattern_longest(ents: Iterable[Span], spans: Iterable[Span]) -> list[Span]:
    """The entities of a line: the longest match first, then the leftmost, skipping any
    that overlaps one taken; of matches of one span, the first pattern's (its id)."""
    taken: list[Span] = []
    used: set[int] = set()
    for span in sorted([*ents, *spans], key=lambda s: (s.start - s.end, s.start,
                                                      int(s.id_ or 0))):
        if not used.intersection(range(span.start, span.end)):
            taken.append(span)
            used.update(range(span.start, span.end))
    return sorted(taken, key=lambda s: s.start)


def hardware() -> Language:
    """The hardware pipeline: its tokenizer and its span ruler (rules and gazetteer)."""
    global _HARDWARE
    vocab = english().vocab
    with _BUILT:
        if _HARDWARE is None:
            _HARDWARE = _hardware(vocab)
            global _BASE_STRINGS
            _BASE_STRINGS = len(vocab.strings)
    return _HARDWARE


def _hardware(vocab: Any) -> Language:
    import spacy
    from spacy.tokenizer import Tokenizer

    _register()
    nlp = spacy.blank("en", vocab=vocab)
    nlp.tokenizer = Tokenizer(vocab, prefix_search=hwvocab.PREFIX, suffix_search=hwvocab.SUFFIX)
    ruler: Any = nlp.add_pipe("span_ruler", config={
        "annotate_ents": True, "spans_key": None, "phrase_matcher_attr": "LOWER",
        "ents_filter": {"@misc": "mlx.first_pattern_longest.v1"}})
    ruler.add_patterns([{**p, "id": str(k)} for k, p in enumerate(hwvocab.patterns())])
    return nlp


def _register() -> None:
    from spacy.util import registry
    if "mlx.first_pattern_longest.v1" not in registry.misc:
        registry.misc.register("mlx.first_pattern_longest.v1",
                               func=lambda: first_pattern_longest)


def hardware_entities(texts: list[str]) -> Iterator[list[tuple[str, str]]]:
    """The (label, text) entities of each line, in text order."""
    for doc in hardware().pipe(texts, batch_size=BATCH):
        yield [(ent.label_, ent.text) for ent in doc.ents]


# strings the Vocab may gain outside memory zones (60,000 let one process reading the whole
# corpus end some 14 MiB higher, at the same speed)
ZONE_FREE_STRINGS = 10_000


@contextlib.contextmanager
def zone() -> Iterator[None]:
    """A memory zone of the shared Vocab for one chunk, once the Vocab has grown by
    ``ZONE_FREE_STRINGS`` since the pipelines were built: the strings that chunk's texts
    add go when it ends, so a long-lived worker's Vocab stays bounded.  Until then
    chunks read outside a zone: inside one spaCy's tokenizers cache no word, and the
    words of a process's first chunks (the list's common words) are the ones worth
    keeping cached for the rest."""
    nlp = _ENGLISH
    if nlp is None or len(nlp.vocab.strings) < _BASE_STRINGS + ZONE_FREE_STRINGS:
        yield
        return
    with nlp.memory_zone():
        yield
