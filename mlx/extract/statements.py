"""Effects stated in words, and the kernel test robot's comparison tables.

Prose: "improves throughput by about 7%", "a big performance improvement",
"throughput improvement of 15-20 %", "2x faster", "-25.7% regression of
netperf.Throughput_Mbps".  The candidate paragraphs are cut into sentences and
tokens by spaCy's blank English pipeline with its sentencizer, and the effect phrases are
found by spaCy's Matcher (``mlx.extract.nlp``); only paragraphs holding an effect word are
read so.  The named rules of ``mlx.extract.effect_rules`` turn down the effects that are
not the change's; ``mlx.extract.direction`` tells which way each goes.

Robot tables: the ``%stddev %change %stddev`` comparison of an LKP report
(``mlx.extract.robot``).
"""

from __future__ import annotations

import re
from typing import Any

from mlx.extract.direction import direction
from mlx.extract.document import PREFILTERS
from mlx.extract.document import head as body_head
from mlx.extract.effect_rules import (
    EARLIER_VERSION,
    EFFECT_RULES,
    PERF_NOUN,
    RUNTIME,
    UNSIZED_RULES,
    EffectPhrase,
    alternatives,
    asserted,
    versus_earlier,
)
from mlx.extract.nlp import Tokens, effect_docs
from mlx.extract.paragraphs import Para, in_changelog, paragraphs
from mlx.extract.robot import robot_rows
from mlx.extract.rules import rejected_by
from mlx.extract.sizes import MORE_PCT, PAREN_PCT, sized
from mlx.extract.vocab import (
    EFFECT_BODY_WORDS,
    EFFECT_REGEX,
    EFFECT_STEMS,
    LOWER_BETTER_WORDS,
)
from mlx.rows import Statement, Verdict
from mlx.subjects import parse_subject
from mlx.text import Folded, TextCache, Words, pasted_commits

EFFECT_WORDS = Folded(EFFECT_REGEX)
# a body is read only if it holds one of these (plain substring tests, C speed)
# ("14% higher", "12 % lower": a comparative sized by a percent right before it)
COMPARATIVES = ("higher", "lower", "better", "worse", "more", "less")
SIZED_COMPARATIVE = re.compile(r"(?i)\d[ \t]?%[ \t]+(?:" + "|".join(COMPARATIVES) + r")\b")
BODY_WORDS = (*EFFECT_BODY_WORDS, *(f"%{sep}{w}" for w in COMPARATIVES for sep in (" ", "\t")),
              "identical", "difference", "igher with", "etter with",
              "ower with", "orse with", "aster with", "same within", "within the noise",
              "within noise", "ame with", "ame regardless", "nchanged with", "ly equal",
              "re equal",
              "ndistinguishable")


# the body test for effects without a size (plain substrings: C speed)
PERF_WORDS = ("erformance", "hroughput", "andwidth", "atency", "peed", "pps", "CPU", "cpu",
              "verhead", "jitter", "RTT", "rtt")

# both in one pass over a head, shared with the other extractors' prefilters
PREFILTER = Words({"effect": BODY_WORDS, "perf": PERF_WORDS}, PREFILTERS)


def stated(text: str, low: str | None = None) -> bool:
    """Does the text state an effect: sized, or an effect word on a performance noun?"""
    low = text.lower() if low is None else low
    return sized(text, low) or PERF_NOUN.search(text, low) is not None


# "7%", "~7 %", "15-20 %", "-25.7%", "70%+" (at least)
PCT = r"^[-+~]?\d{1,4}(?:\.\d{1,3})?(?:%\+?)?$"


def effect_patterns() -> list[list[dict[str, Any]]]:
    """The effect phrases, as spaCy Matcher patterns (``mlx.extract.nlp.effects``)."""
    effect = {"LOWER": {"REGEX": EFFECT_WORDS.rx.pattern}}
    pct = {"TEXT": {"REGEX": PCT}}
    pct_sign = {"TEXT": "%", "OP": "?"}
    # "double the bandwidth", "twice as fast", "triples the rate" (not "double vlan",
    # "freed twice": the factor must name a performance)
    factor = {"LOWER": {"REGEX": r"^(?:doubl(?:e|es|ed|ing)|twice|tripl(?:e|es|ed))$"}}
    times = {"LOWER": {"REGEX": r"^(?:\d{1,3}(?:\.\d{1,2})?x|x\d{1,3})$"}}  # "2x", "x2"
    n_times: list[dict[str, Any]] = [{"LIKE_NUM": True}, {"LOWER": {"IN": ["x", "times"]}}]
    # "provides an improvement in performance", "the performance drop is significant"
    perf = {"LOWER": {"REGEX": PERF_NOUN.rx.pattern}}
    effect_noun = {"LOWER": {"REGEX": r"^(?:improv(?:es|ed|ing|ement|ements)|regress(?:ed|ing|"
                                      r"ion|ions)|degrad(?:es|ed|ing|ation)|boost(?:s|ed|ing)?|"
                                      r"speed-?ups?|faster|slower|slowed|hurts?|impact|"
                                      r"reduc(?:es|ed|e|ing|tion)|lower(?:s|ed)?|"
                                      r"increas(?:es|ed|e|ing)|drops?|dropped)$"}}
    speeds_up: list[dict[str, Any]] = [{"LOWER": {"IN": ["speed", "speeds", "sped", "speeding"]}},
                                       {"LOWER": "up"}]
    num: dict[str, Any] = {"LIKE_NUM": True}
    return [
        # "speeds up memcpy by about 30%"
        [*speeds_up, {"OP": "{0,6}", "LIKE_NUM": False}, pct, pct_sign],
        # "throughput is roughly doubled", "improves the hash rate by a factor of 3", "a 4-fold
        # speedup", "reduced by half", "cuts the overhead in half"
        [perf, {"OP": "{0,3}", "IS_PUNCT": False}, factor],
        [effect, {"OP": "{0,6}", "LIKE_NUM": False}, {"LOWER": "factor"}, {"LOWER": "of"}, num],
        [num, {"TEXT": "-", "OP": "?"}, {"LOWER": "fold"}, {"OP": "{0,2}"}, effect],
        [effect, {"OP": "{0,4}", "LIKE_NUM": False}, {"LOWER": {"IN": ["by", "in"]}},
         {"LOWER": "half"}],
        # "improves throughput by about 7%", "a 7% improvement", "improvement of 15-20 %"
        [effect, {"OP": "{0,6}", "IS_SENT_START": False, "LIKE_NUM": False}, pct, pct_sign],
        # "reduces latency by 14-20%": a range, its middle
        [effect, {"OP": "{0,6}", "IS_SENT_START": False, "LIKE_NUM": False}, pct,
         {"TEXT": {"IN": ["-", "–", "~", "to"]}}, pct, {"TEXT": "%"}],
        [pct, pct_sign, {"OP": "{0,3}", "LIKE_NUM": False}, effect],
        # "14.5% higher throughput", "12 % less CPU"
        [pct, {"TEXT": "%"}, {"LOWER": {"IN": list(COMPARATIVES)}}],
        # "saw 75% and 53% regression": the first of two
        [pct, pct_sign, {"LOWER": {"IN": ["and", "or", "/"]}}, pct, pct_sign,
         {"OP": "{0,3}", "LIKE_NUM": False}, effect],
        [effect, {"LOWER": "of"}, pct, {"TEXT": {"IN": ["-", "to"]}, "OP": "?"},
         {"TEXT": {"REGEX": PCT}, "OP": "?"}, pct_sign],
        [factor, {"LOWER": {"IN": ["the", "its", "our", "their", "of"]}, "OP": "?"},
         {"LOWER": {"IN": ["throughput", "bandwidth", "performance", "rate", "speed",
                           "pps", "iops"]}}],
        [factor, {"LOWER": "as"}, {"LOWER": {"IN": ["fast", "quick", "quickly", "much"]}}],
        # "2x faster", "2X faster", "3 times better"; "improves throughput by x2 ~ x4"; "a 3x
        # speed increase", "a 2 times throughput gain"
        [times, effect], [times, perf, effect_noun], [*n_times, effect],
        [*n_times, perf, effect_noun],
        [effect, {"OP": "{0,6}", "IS_SENT_START": False, "LIKE_NUM": False},
         {"LOWER": "by"}, times],
        [effect_noun, {"OP": "{0,4}", "IS_PUNCT": False}, perf],
        [perf, {"OP": "{0,3}", "IS_PUNCT": False}, effect_noun],
        # "a big performance improvement", "significant regression"
        [SIZE_WORD, {"OP": "{0,2}", "LIKE_NUM": False}, SIZED_NOUN],
    ]


# a size in words, and the effect nouns it sizes ("a big performance improvement")
SIZE_WORD = {"LOWER": {"IN": ["big", "huge", "significant", "noticeable", "nice", "major",
                              "measurable", "substantial", "small", "slight", "minor"]}}
SIZED_NOUN = {"LOWER": {"REGEX": r"^(improvement|regression|speedup|speed-up|degradation|"
                                 r"gain|boost)s?$"}}


# "identical within statistical errors", "no noticeable difference": no change stated
NO_CHANGE = Folded(r"\b(?:results?|performance|perf|throughput|numbers?|latency|it)\b[^.]{0,40}"
                   r"\b(?:are|is|was|were|look|looks|stay|stays)\b[^.]{0,20}\b(?:identical|"
                   r"unchanged|the same|on par|within (?:the )?noise|(?:statistically )?equal|"
                   r"indistinguishable)|\bno (?:noticeable |"
                   r"measurable |significant |visible |real )?(?:performance )?(?:difference|"
                   r"change in performance|impact on performance)\b",
                   needs=("identical", "unchanged", "the same", "on par", "noise", "difference",
                          "equal", "indistinguishable",
                          "change in performance", "impact on performance"))
# "performance is higher without that code", "latency is lower with this patch": the
# effect said by comparing the change with its absence
COMPARED = Folded(
    r"\b(performance|throughput|bandwidth|latency|latencies|speed|pps|cpu (?:load|usage))\b"
    r"[^.;]{0,30}?\b(?:is|are|was|were|gets?|got|seems?|stays?)[ \t\n]+(?:\w+[ \t\n]+)?"
    r"(higher|better|lower|worse|faster|slower)[ \t\n]+(with|without)[ \t\n]+(?:this|that|the|"
    r"your|his|her|these|those|my)[ \t\n]+(?:\w+[ \t\n]+)?(?:patch\w*|change\w*|code|series|"
    r"commits?|fix\w*)\b")
# "results are identical within statistical errors": results of a measurement ("the result
# was the same" of a functional test is none)
MEASURING = re.compile(r"statistic|noise|error|margin|variance|deviation|run-to-run")
# "about the same with or without the changes", "unchanged with this patch": the change's
# presence named beside a no-change
WITH_CHANGE = re.compile(r"(?i)\b(?:with|without|w/o|regardless[ \t\n]+of)\b"
                         r"(?:[ \t\n]+or[ \t\n]+without)?[ \t\n]+"
                         r"(?:(?:the|this|these|that|your|my|our)[ \t\n]+)?(?:\w+[ \t\n]+)?"
                         r"(?:patch\w*|series|changes?|fix|commits?)\b|"
                         # "the numbers with and without alloc tagging were statistically equal"
                         r"\bwith[ \t\n]+(?:and|or)[ \t\n]+without\b")
COMPARED_WORDS = ("higher with", "better with", "lower with", "worse with", "faster with",
                  "slower with")


def _effect_paragraph(para: str) -> bool:
    """Does a paragraph state an effect: sized, a no-change, or a comparison with the
    change's absence (cheapest tests first)?"""
    low = para.lower()
    return (any(w in low for w in EFFECT_STEMS) and stated(para, low) and
            EFFECT_WORDS.search(para, low) is not None) \
        or ("%" in para and SIZED_COMPARATIVE.search(para) is not None) \
        or (("identical" in low or "difference" in low or "same" in low or
             "unchanged" in low or "equal" in low) and
            NO_CHANGE.search(para, low) is not None) \
        or (any(w in low for w in COMPARED_WORDS) and COMPARED.search(para, low) is not None)


def _effect_run(text: str) -> bool:
    low = text.lower()
    return stated(text, low) or NO_CHANGE.search(text, low) is not None or \
        COMPARED.search(text, low) is not None


# a pull request or a summary of other patches states no effect of its own
PULL = re.compile(r"(?i)\[(?:GIT )?PULL\b|\bpull request\b|^(?:re: )?(?:\[[^]]*\] )*[\w-]+ "
                  r"(?:updates|fixes) for\b")


def extract_statements(body: str | None, subject: str | None = None) -> list[Statement]:
    return _statements(body, subject)


def rejections(body: str | None, subject: str | None = None) -> list[tuple[int, str, str]]:
    """(line, phrase, rule) of every effect phrase a named rule turned down: what
    ``benchmarks/accuracy.py --misses`` tells of a missed prose claim."""
    out: list[tuple[int, str, str]] = []
    _statements(body, subject, out)
    return out


def _statements(body: str | None, subject: str | None,
                rejected: list[tuple[int, str, str]] | None = None) -> list[Statement]:
    if not body:
        return []
    if subject and PULL.search(subject):
        return robot_rows(body) if "%change" in body else []
    out = robot_rows(body) if "%change" in body else []
    head = body_head(body)
    words = PREFILTER.tags(head)
    if "effect" not in words:
        return out
    low = head.lower()
    if not ("perf" in words or sized(head, low) or NO_CHANGE.search(head, low)):
        return out
    if "\ncommit " in head:  # a pasted commit is another author's text: as if quoted
        pasted = pasted_commits(head.split("\n"))
        head = "\n".join("> " + ln if i in pasted else ln
                         for i, ln in enumerate(head.split("\n")))
    paras = [p for p in paragraphs(head, _effect_paragraph, _effect_run)
             if not in_changelog(p, head)][:200]
    # a patch's own text speaks of the patch; a reply's sentence must name the change
    parsed = parse_subject(subject)
    posting, cover = not parsed.is_reply, parsed.part == 0 and not parsed.is_reply
    for para, (doc, matches) in zip(paras, _read([p.text[:5000] for p in paras]), strict=True):
        out += _effects(doc, matches, para, posting, rejected, cover=cover)
    return out


# paragraph text -> (its tokens, the effect patterns' (start, end) token spans); tokens cost
# some 40 bytes a character, so 500,000 characters of texts are kept
READ: TextCache[tuple[Tokens, list[tuple[int, int]]]] = TextCache(500_000, len)


def _read(texts: list[str]) -> list[tuple[Tokens, list[tuple[int, int]]]]:
    """The tokens and the effect matches of each paragraph, read by spaCy (one read before
    in this process, quoted in the replies of a thread, is not read again)."""
    return READ.get(texts, lambda todo: effect_docs(todo, effect_patterns))


def is_reply(subject: str | None) -> bool:
    """A reply or forward by its subject, list tags and all ("[OpenWrt-Devel] Re: ...")."""
    return parse_subject(subject).is_reply


def _effects(doc: Tokens, matches: list[tuple[int, int]], para: Para, posting: bool = True,
             rejected: list[tuple[int, str, str]] | None = None, cover: bool = False
             ) -> list[Statement]:
    """One statement per effect a paragraph states: per percent or factor it gives, or one
    per sentence that states an effect without a size.  ``rejected`` gets (line, phrase,
    rule) of each effect phrase a rule turned down."""
    found: dict[tuple[int, float | None], Statement] = {}
    width: dict[tuple[int, float | None], int] = {}  # tokens of the phrase that gave it
    for start, end in matches:
        first, last = doc.sentence(start)
        e = EffectPhrase(doc, first, last, start, end, posting, cover)
        sent, span = e.sent, e.span
        line = para.line_at(doc.starts[first])
        if why := rejected_by(EFFECT_RULES, e):
            if rejected is not None:
                rejected.append((line, span, why))
            continue
        # "degradation on TX: -466 pps (-0.2%) on RX: -338 pps (-1.2%)": one per percent
        for pm in PAREN_PCT.finditer(sent):
            p = float(pm.group(1))
            found.setdefault((first, p), _prose(e, p, para, line))
        pct = e.pct
        if pct is None and (why := rejected_by(UNSIZED_RULES, e)):
            if rejected is not None:
                rejected.append((line, span, why))
            continue
        if pct is None and any(k[0] == first for k in found):
            continue  # the sentence already states this effect
        if pct is not None:
            found.pop((first, None), None)  # the sized phrase says more
        # of two phrases around one size, the tighter is its effect ("the tc drop rule adds
        # ~7% overhead": "7% overhead", not "drop rule adds ~7%")
        if (first, pct) not in found or end - start < width.get((first, pct), 0):
            found[(first, pct)] = _prose(e, pct, para, line)
            width[(first, pct)] = end - start
        # "by about 8.1% in the case of A and 15.6% in the case of B": one effect each
        for pm in MORE_PCT.finditer(sent, max(0, doc.starts[end - 1] - doc.starts[first])):
            p = float(pm.group(1))
            found.setdefault((first, p), _prose(e, p, para, line))
    for first, last in doc.sents:
        sent = doc.span(first, last)
        if any(k[0] == first for k in found) or not asserted(sent) or \
                EARLIER_VERSION.match(sent) or alternatives(sent):
            continue
        if verdict := _compared(sent):
            found[(first, None)] = Statement(
                "prose", sent.strip()[:500], None, verdict, quoted=para.depth > 0,
                line_no=para.line_at(doc.starts[first]))
    return list(found.values())


def _prose(e: EffectPhrase, pct: float | None, para: Para, line: int) -> Statement:
    """The statement of an effect phrase's sentence stating ``pct`` percent."""
    return Statement("prose", e.sent.strip()[:500], pct, direction(e.sent, pct, e.span),
                     quoted=para.depth > 0, line_no=line, versus=versus_earlier(e.sent))


def _compared(sent: str) -> Verdict | None:
    """The verdict of a sentence that compares the change with its absence in words, no
    effect phrase of its own: "Results are identical within statistical errors." (no
    change), "... is higher without that code" (by what is higher)."""
    low = sent.lower()
    if NO_CHANGE.search(sent, low) and (
            RUNTIME.search(sent) or "benchmark" in low or (
                "result" in low and MEASURING.search(low)) or WITH_CHANGE.search(sent)):
        return "no-change"
    if m := COMPARED.search(sent, low):
        better = m.group(2).lower() in ("higher", "faster", "better")
        if m.group(2).lower() in ("higher", "lower") and LOWER_BETTER_WORDS.search(m.group(1)):
            better = not better
        return "improvement" if better == (m.group(3).lower() == "with") else "regression"
    return None
