"""mlx.extract.english and the statements' patterns against spaCy itself: the same
tokens, sentences and matches, on composed texts, random ones and the corpus' paragraphs.

spaCy is a test dependency only: statements no longer load it."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.extract import statements
from mlx.extract.english import RULES, english, like_num, spacy_rules

spacy = pytest.importorskip("spacy")

PIPE: list[Any] = []


def _spacy() -> tuple[Any, Any]:
    """spaCy's blank English with its sentencizer, and a Matcher of the effect patterns
    (one key per pattern)."""
    if not PIPE:
        from spacy.matcher import Matcher
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
        matcher = Matcher(nlp.vocab)
        for i, pattern in enumerate(statements.effect_patterns()):
            matcher.add(str(i), [pattern])
        PIPE[:] = [nlp, matcher]
    return PIPE[0], PIPE[1]


def _same(text: str) -> None:
    nlp, matcher = _spacy()
    doc = nlp(text)
    mine = english()(text)
    assert [(t.idx, t.text) for t in doc] == \
        [(s, text[s:e]) for s, e in zip(mine.starts, mine.ends, strict=True)], text
    assert [(s.start, s.end) for s in doc.sents] == mine.sents, text
    theirs = {(s, e) for _, s, e in matcher(doc)}
    assert set(statements._matched(text)[1]) == theirs, text


def test_the_rules_are_spacys() -> None:
    """data/english.json is what the installed spaCy has (else: python -m
    mlx.extract.english writes it again)."""
    stored = json.loads(RULES.read_text(encoding="utf-8"))
    now = spacy_rules()
    assert {k: v for k, v in stored.items() if k != "spacy"} == \
        {k: v for k, v in now.items() if k != "spacy"}


@pytest.mark.parametrize("text", [
    "This patch improves throughput by about 7% on our rig.",
    "I saw a 7 % improvement (e.g. 10,000 pps vs. 9,300) in the U.S. lab :) don't  you?",
    "x86_64: ~2x faster!! See https://example.org/perf?id=1. Thanks.",
    "Changes in v6: Patch 4 (was 3 in v5): * reworded",
    "in_atomic(): 0, irqs_disabled(): 1 at ./include/linux/filter.h:703",
    "(a.m.) and (p.m.), Mr. Smith's 15-20 % gain; latency-sensitive loads.",
    " leading space, then\ta tab,  two spaces \n\n and a blank line...",
    "Results: +3.5%/-1.2% and 1/2 the cost; twice as fast; doubles the bandwidth.",
    "It's 3 times better -- really?! \"Quoted\" 'single' <angle> [bracket] {brace}",
    "ERROR: 30% regression... no. 12th run, 1st try; ±5% noise ~ 2.5x",
    "",
])
def test_composed_texts_read_as_spacy_reads_them(text: str) -> None:
    _same(text)


PIECES = ["improves", "throughput", "by", "7", "7%", "%", "15-20", "-25.7%", "2x", "x2",
          "faster", "regression", "of", "and", "/", "to", "-", "performance", "drop",
          "a", "big", "significant", "the", "twice", "as", "fast", "doubles", "bandwidth",
          "3", "times", "better", ".", ",", "(", ")", ":", ";", "?", "!", "...", "e.g.",
          "U.S.", "don't", "):", ":)", "ten", "1st", "10,000", "1/2", "~7", "±3%", "\t",
          "\n", " ", "  ", "latency", "cut", "no", "impact", "x86-64", "'", '"', "i.e.,"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25), st.lists(st.booleans(), max_size=25))
def test_random_texts_read_as_spacy_reads_them(words: list[str], glue: list[bool]) -> None:
    # pieces joined by a space or by nothing: affixes and special cases meet
    text = "".join(w + (" " if i >= len(glue) or glue[i] else "") for i, w in enumerate(words))
    _same(text)


@pytest.mark.parametrize("word,expected", [
    ("10", True), ("10,000", True), ("3.5", True), ("-7", True), ("±3", True), ("1/2", True),
    ("seven", True), ("Twenty", True), ("21st", True), ("first", True), ("7%", False),
    ("x2", False), ("1/2/3", False), ("v6", False), ("", False)])
def test_like_num_is_englishs(word: str, expected: bool) -> None:
    from spacy.lang.en.lex_attrs import like_num as theirs
    assert like_num(word) is expected
    assert theirs(word) is expected


def test_statements_load_no_spacy() -> None:
    code = ("import sys; from mlx.extract.statements import extract_statements; "
            "s = extract_statements('This patch improves throughput by 7% here.\\n', "
            "'[PATCH] net: x'); assert [x.stated_pct for x in s] == [7.0], s; "
            "assert 'spacy' not in sys.modules and 'thinc' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_corpus_paragraphs_read_as_spacy_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every paragraph statements reads in two corpus lists: the same tokens, sentences
    and matches as spaCy's."""
    from conftest import corpus_path

    from mlx.ingest.parse import MessageRecord, Where, parse_message
    from mlx.ingest.sources import open_stream
    from mlx.ingest.split import split_blocks

    texts: dict[str, None] = {}
    read = statements._read
    monkeypatch.setattr(statements, "_read", lambda ts: (texts.update(dict.fromkeys(ts)),
                                                         read(ts))[1])
    for name in ("ath10k.mbox.gz", "linux-sctp.mbox.gz"):
        stream = open_stream(str(corpus_path("lists", name)))
        try:
            for block in split_blocks(iter(partial(stream.read, 1 << 20), b"")):
                r = parse_message(block.data, Where(name, 0, len(block.data)))
                if isinstance(r, MessageRecord) and r.body:
                    statements.extract_statements(r.body, r.subject)
        finally:
            stream.close()
    assert len(texts) > 150
    for text in texts:
        _same(text)
