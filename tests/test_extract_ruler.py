"""mlx.extract.ruler against spaCy itself: the same tokens and the same entities.

spaCy is a test dependency (the reference this and mlx.extract.english are read
against): these tests build its EntityRuler from the same patterns and compare, on
hand-written lines of each hardware shape and on random lines made of the words the
patterns ask for.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.extract import hwvocab
from mlx.extract.ruler import Ruler, Tokenizer

spacy = pytest.importorskip("spacy")

LINES = [
    "Model name:            Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
    "CPU: Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz, 128 GB of ECC RAM",
    "Server: AMD EPYC 7713 64-Core Processor, 256G memory, ConnectX-6 Dx 100G",
    "  DUT:\tDell R740 (Xeon E5-2620 v4), Mellanox ConnectX-5 Ex, Ubuntu 22.04 LTS",
    "tested on a Raspberry Pi 4 Model B and a Banana Pi BPI-R3, OpenWrt 23.05",
    "kernel 6.7.0-rc1 on a ThinkPad X1 Carbon Gen 9 with an AX210 (HE80)",
    "Debian bookworm, linux v6.1+, 16 GB RAM, i.MX8MP EVK, Orin Nano devkit",
    "(Intel I211) [Netgear A8000], 'ALFA AWUS036AXML'; *PC Engines APU2*",
    "a B650 AORUS ELITE AX with 2x 25G links, channel width 80 MHz, VHT80",
    "x550-T2   and   i226-V\tand e810-c,   the 82599ES (rev 01).",
    "Red Hat Enterprise Linux 9.2, Fedora 40, virtio NICs, ICE on ice",
    "  ", "", "\t", "a\t b  c ", "((Intel(R))).", "Core(TM) i7-8650U CPU @ 1.90GHz",
]


def _spacy_ruler(patterns: list[dict[str, Any]]) -> Any:
    from spacy.tokenizer import Tokenizer
    pipe = spacy.blank("en")
    pipe.tokenizer = Tokenizer(pipe.vocab, prefix_search=hwvocab.PREFIX,
                               suffix_search=hwvocab.SUFFIX)
    pipe.add_pipe("entity_ruler", config={"overwrite_ents": True}).add_patterns(patterns)
    return pipe


HW_SPACY: list[Any] = []


def _hw_spacy() -> Any:
    if not HW_SPACY:
        HW_SPACY.append(_spacy_ruler(hwvocab._patterns() + hwvocab._gazetteer_patterns()))
    return HW_SPACY[0]


def _spacy_ents(pipe: Any, text: str) -> list[tuple[str, str]]:
    return [(e.label_, e.text) for e in pipe(text).ents]


def _same_spans(pipe: Any, ruler: Ruler, text: str) -> None:
    """The same entities; where two labels' patterns match one span exactly, spaCy picks
    by the order of a Python set, so only the span is compared there."""
    ours = ruler(text)
    theirs = _spacy_ents(pipe, text)
    assert [t for _, t in ours] == [t for _, t in theirs], text
    ties = _tied_spans(text)
    for (a, span), (b, _) in zip(ours, theirs, strict=True):
        assert a == b or span in ties, (text, span, a, b)


def _tied_spans(text: str) -> set[str]:
    """Spans two labels' patterns both match on their own."""
    out = set()
    ruler = hwvocab.ruler()
    for _, span in ruler(text):
        labels = {label for p in hwvocab._patterns() + hwvocab._gazetteer_patterns()
                  for label, s in Ruler([p], hwvocab.PREFIX, hwvocab.SUFFIX)(span) if s == span}
        if len(labels) > 1:
            out.add(span)
    return out


def test_tokens_are_spacys() -> None:
    pipe = _hw_spacy()
    for text in LINES + ["  a b", "x  ", "'\"x\",", "<a>", "a.)", "Intel(R),", "(R)", ".."]:
        ours = [text[s:e] for s, e in Tokenizer(hwvocab.PREFIX, hwvocab.SUFFIX).spans(text)]
        assert ours == [t.text for t in pipe.tokenizer(text)], text


def test_hardware_lines_give_spacys_entities() -> None:
    pipe = _hw_spacy()
    for text in LINES:
        _same_spans(pipe, hwvocab.ruler(), text)
    assert hwvocab.ruler()(LINES[1]) == [("cpu", "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz"),
                                         ("memory", "128 GB of ECC RAM")]


def _words() -> list[str]:
    return ["Intel(R)", "Intel", "Xeon(R)", "Xeon", "Gold", "6338", "CPU", "@", "2.00GHz",
            "E5-2690", "v4", "AMD", "EPYC", "7713", "64-Core", "ConnectX-6", "Dx", "100G",
            "Dell", "R740", "Raspberry", "Pi", "4", "Model", "B", "OpenWrt", "23.05", "Ubuntu",
            "22.04", "LTS", "kernel", "6.7.0-rc1", "v6.1", "16", "GB", "RAM", "of", "ECC",
            "x550-T2", "i226-V", "82599ES", "Mellanox", "channel", "80", "MHz", "virtio",
            "NICs", "ThinkPad", "X1", "Carbon", "Gen", "9", "AX210", "ICE", "evk", "(", ")",
            ",", ".", "'", "the", "on", "a"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_words()), st.sampled_from([" ", " ", " ", "  ", "\t",
                                                                        ""])), max_size=14))
def test_random_lines_give_spacys_entities(parts: list[tuple[str, str]]) -> None:
    text = "".join(w + sep for w, sep in parts)
    _same_spans(_hw_spacy(), hwvocab.ruler(), text)


OPS_PATTERNS = [
    {"label": "x", "pattern": [{"LOWER": "a"}, {"LOWER": "b", "OP": "?"},
                               {"LOWER": "c", "OP": "{0,2}"}]},
    {"label": "y", "pattern": [{"LOWER": "a", "OP": "?"}, {"TEXT": "B"}, {"OP": "?"}]},
    {"label": "z", "pattern": [{"TEXT": {"REGEX": r"^\d+$"}, "OP": "+"},
                               {"LOWER": {"IN": ["mb", "gb"]}}]},
    {"label": "w", "pattern": [{"ORTH": "q"}, {"LOWER": "c", "OP": "*"}, {"TEXT": "d"}]},
    {"label": "v", "pattern": [{"LOWER": "c", "OP": "{2}"}, {"LOWER": "d", "OP": "{1,}"}]},
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "A", "b", "B", "c", "C", "d", "q", "1", "22", "GB", "mb",
                                 " ", "\t"]), max_size=12))
def test_every_operator_matches_as_spacys(words: list[str]) -> None:
    text = " ".join(words)
    pipe = _spacy_ruler(OPS_PATTERNS) if not OPS_PIPE else OPS_PIPE[0]
    OPS_PIPE[:1] = [pipe]
    ruler = Ruler(OPS_PATTERNS, hwvocab.PREFIX, hwvocab.SUFFIX)
    # x and y both match "a B": only the spans are compared
    assert [s for _, s in ruler(text)] == [s for _, s in _spacy_ents(pipe, text)], text


OPS_PIPE: list[Any] = []


def test_patterns_it_cannot_read_are_refused() -> None:
    for token in ({"LOWER": "a", "OP": "!"}, {"POS": "NOUN"}, {"LOWER": {"NOT_IN": ["a"]}},
                  {"LEMMA": "a"}, {"LIKE_NUM": True}, {"IS_SENT_START": "yes"}):
        with pytest.raises(ValueError):
            Ruler([{"label": "x", "pattern": [token]}], re.compile("^$").search,
                  re.compile("^$").search)
