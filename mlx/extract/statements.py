"""Effects stated in words, and the kernel test robot's comparison tables.

Prose: "improves throughput by about 7%", "a big performance improvement",
"throughput improvement of 15-20 %", "2x faster", "-25.7% regression of
netperf.Throughput_Mbps".  The candidate paragraphs are cut into sentences and
tokens by spaCy's blank English pipeline with its sentencizer, and the effect phrases are
found by spaCy's Matcher (``mlx.extract.nlp``); only paragraphs holding an effect word are
read so.

Robot tables: the ``%stddev %change %stddev`` comparison of an LKP report
(``mlx.extract.robot``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from mlx.extract.direction import direction
from mlx.extract.document import PREFILTERS
from mlx.extract.document import head as body_head
from mlx.extract.nlp import Tokens, effect_docs
from mlx.extract.paragraphs import Para, in_changelog, paragraphs
from mlx.extract.robot import robot_rows
from mlx.extract.rules import Rule, rejected_by
from mlx.extract.sizes import (
    FROM_TO_PCT,
    MORE_PCT,
    PAREN_PCT,
    RANGE,
    SIZE,
    VARY_RANGE,
    percent,
    sized,
)
from mlx.extract.vocab import (
    EFFECT_BODY_WORDS,
    EFFECT_REGEX,
    EFFECT_STEMS,
    LOWER_BETTER_WORDS,
    NAMES_CHANGE,
    TRAILER_LINE,
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
              "within noise")
# what a performance effect is an effect on
# ("higher throughput scenarios", "high performance workloads": a kind of use, no effect)
PERF_NOUN = Folded(r"\b(?:performance|throughput|bandwidth|latency|latencies|"
                   r"(?<!clock )(?<!bus )(?<!spi )(?<!link )(?<!fan )(?<!port )speed|"
                   r"pps|packet rate|transfer rate|bitrate|cpu (?:load|usage|utili[sz]ation)|"
                   r"overhead|jitter|rtt)\b(?![ \t\n]+(?:scenarios?|environments?|use[ -]?cases?|"
                   r"workloads?|deployments?|applications?)\b)")
# "Previously traffic control suffered a degradation with this series": an earlier
# version's effect, not this one's
EARLIER_VERSION = re.compile(r"(?i)^[ \t]*(?:previously\b(?=[^.;]*\b(?:with|in) this (?:series|"
                             r"patchset|patch)\b)|in (?:the )?(?:previous|earlier|last|first) "
                             r"(?:version|iteration|revision|round|posting)s?\b|the (?:previous|"
                             r"earlier|last) (?:version|iteration|revision)s?\b)")
# stable-backport boilerplate and other sentences that state no effect of the change
NO_EFFECT = re.compile(r"(?i)regression potential|risk of regression|no (?:known )?regressions?\b|"
                       r"correctness and performance|stable (?:tree|kernel)|backport|"
                       # another commit's title: fdb8e12cc2cc ("ipset: fix performance regression")
                       r"[0-9a-f]{7,40}[ \t]*\(\"|"
                       r"readability|without (?:any )?regressions?|to avoid (?:a )?regression|"
                       r"fix(?:es|ed)? (?:a|the|this) regression|regression (?:was )?introduced|"
                       r"causes? (?:a|the) regression|regression test|selftest|\?[ \t]*$")


# what performance is: runtime throughput, latency, CPU, memory use ... (not a binary's size)
RUNTIME = re.compile("(?i)" + PERF_NOUN.rx.pattern + r"|(?i:\bmemory\b|\bcpu\b|cycles|instructions|"
                     r"cache|power|\bpps\b|iops|lookups?|insert(?:ion)?s?|packets?|requests?|"
                     r"transactions|per second|/s\b|\bruntime\b|run-time|faster|slower|"
                     r"speed-?up|scal(?:e|es|ing|ability)|throughput|regress|"
                     r"quicker|as fast\b|(?:hash|packet|frame|message|transfer|bit|data|"
                     r"request|transaction)[ -]?rates?\b|"
                     # "the context switch time drops by 8%", "boot time"
                     r"(?:switch|boot|response|completion|execution|processing|wall|system|"
                     r"user|run)[ -]?times?\b)|"
                     r"\d[ \t]?(?:[KMGT]?bps|[KMGT]?bits?/s|[KMGT]?B/s|[kKmM]?pps)\b")
# a profile listing ("28.69%  [kernel]  [k] copy_user ... 5.68% ..."): perf's markers, or
# five percents or more in one "sentence"
LISTING = re.compile(r"\[(?:k|kernel|\.)\][ \t]|(?:\d%[^%]{0,80}){5,}")


# the body test for effects without a size (plain substrings: C speed)
PERF_WORDS = ("erformance", "hroughput", "andwidth", "atency", "peed", "pps", "CPU", "cpu",
              "verhead", "jitter", "RTT", "rtt")

# both in one pass over a head, shared with the other extractors' prefilters
PREFILTER = Words({"effect": BODY_WORDS, "perf": PERF_WORDS}, PREFILTERS)


def stated(text: str, low: str | None = None) -> bool:
    """Does the text state an effect: sized, or an effect word on a performance noun?"""
    low = text.lower() if low is None else low
    return sized(text, low) or PERF_NOUN.search(text, low) is not None


# "7%", "~7 %", "15-20 %", "-25.7%"
PCT = r"^[-+~]?\d{1,4}(?:\.\d{1,3})?%?$"




def effect_patterns() -> list[list[dict[str, Any]]]:
    """The effect phrases, as spaCy Matcher patterns (``mlx.extract.nlp.effects``)."""
    effect = {"LOWER": {"REGEX": EFFECT_WORDS.rx.pattern}}
    pct = {"TEXT": {"REGEX": PCT}}
    pct_sign = {"TEXT": "%", "OP": "?"}
    # "double the bandwidth", "twice as fast", "triples the rate" (not "double vlan",
    # "freed twice": the factor must name a performance)
    factor = {"LOWER": {"REGEX": r"^(?:doubl(?:e|es|ed|ing)|twice|tripl(?:e|es|ed))$"}}
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
        # "2x faster", "3 times better"
        [{"TEXT": {"REGEX": r"^(?:\d{1,3}(?:\.\d{1,2})?x|x\d{1,3})$"}}, effect],
        [{"LIKE_NUM": True}, {"LOWER": {"IN": ["x", "times"]}}, effect],
        [effect_noun, {"OP": "{0,4}", "IS_PUNCT": False}, perf],
        [perf, {"OP": "{0,3}", "IS_PUNCT": False}, effect_noun],
        # "a big performance improvement", "significant regression"
        [{"LOWER": {"IN": ["big", "huge", "significant", "noticeable", "nice", "major",
                           "measurable", "substantial", "small", "slight", "minor"]}},
         {"OP": "{0,2}", "LIKE_NUM": False},
         {"LOWER": {"REGEX": r"^(improvement|regression|speedup|speed-up|degradation|"
                             r"gain|boost)s?$"}}],
    ]


NEGATORS = {"without", "no", "not", "never", "nor", "any", "nothing", "n't"}
# "Re: [PATCH ...]", "AW:": a reply
# "0.0.20180708", "v6.1", "1a2b3c4d5e6f": a version or a commit other than the change
OTHER_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|\bv\d+\.\d+\b|\b[0-9a-f]{10,40}\b")
# "identical within statistical errors", "no noticeable difference": no change stated
NO_CHANGE = Folded(r"\b(?:results?|performance|throughput|numbers?|latency|it)\b[^.]{0,40}"
                   r"\b(?:are|is|was|were|look|looks|stay|stays)\b[^.]{0,20}\b(?:identical|"
                   r"unchanged|the same|on par|within (?:the )?noise)|\bno (?:noticeable |"
                   r"measurable |significant |visible |real )?(?:performance )?(?:difference|"
                   r"change in performance|impact on performance)\b",
                   needs=("identical", "unchanged", "the same", "on par", "noise", "difference",
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
COMPARED_WORDS = ("higher with", "better with", "lower with", "worse with", "faster with",
                  "slower with")
# what a change is for or might do: "in order to", "aims to", "should", "would"
GOAL_WORDS = (r"in order to|so as to|aim(?:s|ed|ing)?(?: to| at)?|intend\w*|meant|goals?|"
              r"purpose|plan(?:s|ned)? to|would like to|hop(?:e|es|ed|ing)|tr(?:y|ies|ying) to|"
              r"designed to|should|would|might|expect\w*|(?:approach|attempt)(?:es|s)? "
              r"(?:at|to)|to (?:achieve|get|gain|obtain|bring|provide|enable|allow)")
# "To measure the performance degradation", "whether it improves": no effect asserted (in
# a sentence with no size, anything that hedges it: GOAL_WORDS and these)
HEDGE = re.compile(r"(?i)\b(?:" + GOAL_WORDS + r"|to (?:measure|check|see|test|verify|avoid|"
                   r"find)|whether|if (?:there|this|it|we|you)|any|may|hope\w*|"
                   r"possibl\w*|potential\w*|try\w*|want\w*|wonder\w*|likely|probably|"
                   r"maybe|perhaps|guess|suspect\w*|if|concern\w*|worr\w*|afraid|risk\w*|"
                   r"fear\w*|once|aim\w*|need|needs|request\w*|seem\w*|"
                   # "I propose to apply ...", "Preparing for upcoming ... improvements"
                   r"(?:i|we) propose|proposal|proposing|upcoming|future|"
                   r"prepar(?:e|es|ing) for)\b|"
                   r"\bcould\b(?![ \t\n]+(?:notice|see|measure|tell|find|detect))")
# "(and possibly other side-effects)": an aside hedges nothing of its sentence
ASIDE = re.compile(r"\([^()]*\)")
# "speed-up" names no performance by itself ("to enable her speed-up.your payment")
SPEEDUP = re.compile(r"(?i)speed-?ups?")
# tool output, not a sentence: "overhead: syscall  bcalls ...", "==========="
# and "ath10k: improve power save performance for sdio": a patch title listed in a cover
NOT_PROSE = re.compile(r"={3,}|-{3,}|(?::[^:]*){3}|^[ \t]*(?:\[?\d+/\d+\]?[ \t]+)?[\w./-]{2,30}: "
                       r"[a-z]")


def _asserted(sentence: str) -> bool:
    """Is a sentence without a size a plain statement of an effect (prose, no hedge)?"""
    words = sentence.split()
    numeric = sum(any(c.isdigit() for c in w) for w in words)
    return len(words) >= 4 and numeric <= len(words) // 4 and \
        not HEDGE.search(ASIDE.sub(" ", sentence)) \
        and not sentence.lstrip().startswith(("$", "#", ">")) and not NOT_PROSE.search(sentence) \
        and not TRAILER_LINE.match(sentence)


def _effect_paragraph(para: str) -> bool:
    """Does a paragraph state an effect: sized, a no-change, or a comparison with the
    change's absence (cheapest tests first)?"""
    low = para.lower()
    return (any(w in low for w in EFFECT_STEMS) and stated(para, low) and
            EFFECT_WORDS.search(para, low) is not None) \
        or ("%" in para and SIZED_COMPARATIVE.search(para) is not None) \
        or (("identical" in low or "difference" in low or "same" in low) and
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
    return READ.get(texts, effect_docs)


def is_reply(subject: str | None) -> bool:
    """A reply or forward by its subject, list tags and all ("[OpenWrt-Devel] Re: ...")."""
    return parse_subject(subject).is_reply


@dataclass
class _Effect:
    """An effect phrase (tokens start:end) in its sentence (tokens first:last), as the
    rules read it."""

    doc: Tokens
    first: int
    last: int
    start: int
    end: int
    posting: bool  # the paragraph is a patch's own text, not a reply's
    cover: bool = False  # ... a cover letter's, which speaks for every patch of its series

    @cached_property
    def sent(self) -> str:
        return self.doc.span(self.first, self.last)

    @cached_property
    def span(self) -> str:
        return self.doc.span(self.start, self.end)

    @cached_property
    def before(self) -> str:
        """The words of its clause before the effect phrase."""
        before = self.doc.span(self.first, self.start)
        starts = [m.end() for m in CLAUSE_START.finditer(before)]
        return before[starts[-1]:] if starts else before

    @cached_property
    def around(self) -> str:
        """The effect phrase with a few words of its clause on either side (where the
        noun it is an effect on stands: "reduces memory consumption by ~32%", "the used
        memory decreased by 20%", but not "reducing RAM usage and improving performance")."""
        doc = self.doc
        lo, hi = self.start, self.end
        while lo > max(self.first, self.start - 4) and not BOUNDARY.fullmatch(doc.token(lo - 1)):
            lo -= 1
        while hi < min(self.last, self.end + 6) and not BOUNDARY.fullmatch(doc.token(hi)):
            hi += 1
        return doc.span(lo, hi)

    @cached_property
    def conditional(self) -> bool:
        """Is its clause, or its sentence, under an "if"?"""
        return CONDITIONAL.search(self.before) is not None or \
            CONDITIONAL.search(self.sent) is not None

    @cached_property
    def pct(self) -> float | None:
        """The size it states, in percent (None for an effect without a size)."""
        sent, span = self.sent, self.span
        pct = percent(span) if SIZE.search(span) else None
        if pct is not None and (m := FROM_TO_PCT.search(sent)) and \
                float(m.group(1)) == abs(pct):
            pct = float(m.group(2))  # "the regression is changed from 69.4% to 73.7%"
        elif pct is not None and (m := VARY_RANGE.search(sent)) and \
                abs(pct) in (float(m.group(1)), float(m.group(2))):
            pct = (float(m.group(1)) + float(m.group(2))) / 2  # "ranging from 5% to 2500%"
        if pct is not None:
            for r in RANGE.finditer(sent):  # "5% to 2500%": one effect, its middle
                if abs(pct) in (float(r.group(1)), float(r.group(2))):
                    pct = (float(r.group(1)) + float(r.group(2))) / 2
        return pct

    def denied(self) -> bool:
        doc, first, start = self.doc, self.first, self.start
        return any(doc.token(i).lower() in NEGATORS for i in range(max(first, start - 3), start)) \
            or any(doc.token(i).lower() == "nothing" for i in range(max(first, start - 6), start))

    def no_runtime(self) -> bool:
        """No run-time measure named in the sentence or just after ("netperf." ends no
        sentence)."""
        return not RUNTIME.search(self.doc.span(self.first, min(len(self.doc), self.last + 6)))

    def other_doer(self) -> bool:
        """In a reply: does the clause name a doer of the effect before its verb that is
        not the change ("you", "a single tc rule", "another patch")?"""
        if self.posting:
            return False
        clause = f"{self.before} {self.span}"
        verb = DOER_VERB.search(clause)
        doer = clause[:verb.start()] if verb else ""
        return OTHER_DOER.search(doer) is not None and CHANGE_DOER.search(doer) is None and \
            NAMES_CHANGE.search(self.doc.span(self.first, self.end)) is None

    def aside(self) -> bool:
        at = self.doc.starts[self.start] - self.doc.starts[self.first]
        return any(a.start() < at < a.end() for a in ASIDE.finditer(self.sent))


# what comes before an effect phrase in its sentence that makes it no claim of the change:
# "in order to speed up", "aims to reduce", "is not meant as a speed-up", "should improve":
# what the change is for or might do
GOAL = re.compile(r"(?i)\b(?:" + GOAL_WORDS + r"|could)\b")
# "I'd expect the same mean and the tail reduced": what the writer expects, over the
# clauses of the sentence that follow
EXPECTED = re.compile(r"(?i)\b(?:i|we)(?:'d|[ \t\n]+would)[ \t\n]+(?:\w+[ \t\n]+)?(?:expect|guess|"
                      r"think|assume|hope)\b")
# "If ...", "Even if ...", "Unless ...": an effect under a condition
CONDITIONAL = re.compile(r"(?i)^\W*(?:even )?(?:if|unless|whether|in case)\b")
# where the clause of an effect starts: "I tried to raise the client count, and the
# regression changed from ..." (the effect's clause is the one after ", and")
CLAUSE_START = re.compile(r"(?i)[,;:(]|\b(?:and|but|so|then|while|whereas)\b")
# "Currently ...", "Today the existing path ...": the code the change replaces
STATUS_QUO = re.compile(r"(?i)\b(?:currently|today|at the moment|right now|at present|"
                        r"presently|nowadays|the (?:current|existing|old) (?:code|"
                        r"implementation|path|approach|behaviou?r|design|scheme|way))\b")
# "a small 16-byte overhead", "an overhead of 8 bytes per entry": memory, no run time
BYTES_OVERHEAD = re.compile(r"(?i)\d[ \t-]?(?:bytes?|[KMG]i?B)\b[^.]{0,30}\boverhead|"
                            r"\boverhead\b[^.]{0,20}\b\d+[ \t-]?(?:bytes?|[KMG]i?B)\b")
# "reduces memory consumption by ~75%", "the used memory decreased by 20%": a footprint, no
# run time (memory traffic is: "fewer cache misses", "memory bandwidth")
MEMORY_SIZE = re.compile(r"(?i)\b(?:memory|ram)[ \t]+(?:consumption|footprint|usage|use|size|"
                         r"reduction|savings?)\b|\bused[ \t]+memory\b|\bfootprint\b|"
                         r"\bsav(?:e|es|ed|ing)\b[^.]{0,30}\b(?:memory|ram)\b")
# where a clause ends, for the words around an effect
BOUNDARY = re.compile(r"(?i)[,;:()]|and|but|or|while|whereas|so|due|because")
# "Tracing results === syscall-257 ...": a ruler of tool output in the "sentence"
RULER = re.compile(r"={3,}|-{4,}")
# "... socket to increase performance": a purpose, said by "to" and a verb
# ("is able to reduce latency", "helps to improve": a capability, said as an effect)
PURPOSE = re.compile(r"(?i)(?<!able )(?<!helps )(?<!helped )(?<!manages )(?<!managed )\bto[ \t]*$")
BASE_VERB = re.compile(r"(?i)^(?:improve|increase|reduce|speed|boost|lower|decrease|cut|"
                       r"double|minimi[sz]e|maximi[sz]e|avoid|gain)\b")
# "Dropped patches 7-9: they regressed on arm64", "Patch 3 was removed from the series":
# other patches than the ones posted
# "Last year I wrote a patch that ...", "a different approach gave 5%": another change
OTHER_PATCHES = re.compile(r"(?i)^\W*(?:dropped|removed|reverted)\b|\b(?:dropped|removed|"
                           r"reverted)\b[^.]{0,20}\bpatch(?:es)?\b|\bpatch(?:es)? [\d, and-]+ "
                           r"(?:was|were|are|is) (?:dropped|removed)\b|"
                           r"\b(?:i|we)\b[^.]{0,30}?\b(?:made|wrote|tried|posted|sent|did)\s+"
                           r"(?:a|an|another)\s+(?:\w+\s+)?(?:patch|change|hack|commit)\b|"
                           r"\b(?:another|a different|a separate|an? (?:earlier|older|previous|"
                           r"prior|similar|alternative))\s+(?:\w+\s+)?(?:patch|change|"
                           r"approach|series|commit|hack)\b")
THIS_CHANGE = re.compile(r"(?i)\bthis[ \t\n]+(?:\w+[ \t\n]+)?(?:patch\w*|series|change|commit)\b")
# "This is a preparation patch: a followup change uses the helper ...": the effect its
# paragraph tells is a later patch's (a cover letter's "the next patch" is of its series)
LATER_PATCH = re.compile(r"(?i)\b(?:follow-?up|next|later|subsequent)\s+(?:\w+\s+)?(?:patch|"
                         r"change|commit)(?:es|s)?\b|\bpreparat(?:ion|ory)\s+(?:patch|change|"
                         r"step|work)\b")
# "Improved performance compared to v6": against the series' own earlier version
VERSUS_EARLIER = re.compile(r"(?i)\b(?:compared (?:to|with)|than|over|vs\.?|versus|relative to|"
                            r"against)[ \t\n]+(?:the[ \t\n]+)?(?:v\d{1,2}\b|(?:previous|earlier|"
                            r"last|prior|first|old) (?:version|iteration|revision|posting|series|"
                            r"rfc|patch(?:set)?)\b)")
# in a reply, an effect another doer has, named before a verb of its clause ("On my box a
# single tc rule added 7% overhead", "You can cut latency by 20% by ..."): not the change's
DOER_VERB = re.compile(r"(?i)\b(?:adds?|added|causes?|caused|gives?|gave|brings?|brought|"
                       r"costs?|yields?|yielded|introduces?|introduced|improves?|improved|"
                       r"increases?|increased|reduces?|reduced|boosts?|boosted|cuts?|lowers?|"
                       r"lowered|raises?|raised|can|could|will|results?|resulted|leads?|led)\b")
OTHER_DOER = re.compile(r"(?i)\b(?:you|an?|another|other)\b(?![ \t\n]+(?:lot|bit|few|little)\b)")
CHANGE_DOER = re.compile(r"(?i)\b(?:this|it|these|that|which|they|with)\b")


# In order: the first rule that turns an effect phrase down names why (``rejections``);
# each example is a sentence it turns down (``tests/test_extract_statements.py``).
EFFECT_RULES: tuple[Rule[_Effect], ...] = (
    Rule("states no effect of the change", lambda e: NO_EFFECT.search(e.sent) is not None,
         "This fixes a performance regression introduced by the last merge."),
    Rule("effect denied", _Effect.denied, "It works without negative impact on throughput."),
    Rule("no run-time measure", _Effect.no_runtime, "Code size reduced by 24.9%."),
    Rule("profile listing", lambda e: LISTING.search(e.sent) is not None,
         "Throughput improvement: 28.69% [k] copy_user"),
    Rule("trailer", lambda e: TRAILER_LINE.match(e.sent) is not None,
         "Tested-by: Jo Doe <jo@example.org> # 10% throughput improvement"),
    Rule("earlier version", lambda e: EARLIER_VERSION.match(e.sent) is not None,
         "In the previous version throughput improved by 5%."),
    Rule("other patches", lambda e: OTHER_PATCHES.search(e.sent) is not None and
         THIS_CHANGE.search(e.sent) is None,
         "Dropped patches 7-9: they regressed throughput on arm64 by 4%."),
    Rule("a later patch's effect", lambda e: not e.cover and THIS_CHANGE.search(e.sent) is None
         and LATER_PATCH.search(e.doc.span(0, len(e.doc))) is not None,
         "A followup patch will use the helper. This greatly improves insertion speed by 30%."),
    Rule("against an earlier version", lambda e: VERSUS_EARLIER.search(e.sent) is not None,
         "Throughput is 4% better than v2 with the lock split."),
    Rule("another doer", _Effect.other_doer,
         "On my box a single tc rule added ~5% overhead at 10 Mpps."),
    Rule("a goal or a hope", lambda e: GOAL.search(f"{e.before} {e.span}") is not None or
         EXPECTED.search(e.doc.span(e.first, e.start)) is not None,
         "It should improve throughput by about 10% on big machines."),
    Rule("a condition", lambda e: e.conditional,
         "Even if it is not as fast, the 10% overhead is fine."),
    Rule("the code it replaces", lambda e: STATUS_QUO.search(e.before) is not None,
         "Currently the copy adds 12% overhead to each packet."),
    Rule("memory size", lambda e: BYTES_OVERHEAD.search(e.sent) is not None or
         MEMORY_SIZE.search(e.around) is not None,
         "This patch reduces memory consumption by ~32% in this case."),
    Rule("a purpose", lambda e: PURPOSE.search(e.before) is not None and
         BASE_VERB.match(e.span) is not None,
         "Use one socket for the batch to increase throughput by 5%."),
    Rule("tool output", lambda e: RULER.search(e.sent) is not None,
         "openat: 1.88 -> 2.3 (+24.0% overhead) ====="),
)
# "A bunch of small performance improvements and bugfixes were applied": changes counted
# as pieces of work, no effect
WORK_ITEMS = re.compile(r"(?i)\b(?:bunch|number|couple|lot|set|handful|few|several|various|"
                        r"some|many|other|minor|small)[ \t]+(?:of[ \t]+)?(?:\w+[ \t]+){0,2}?"
                        r"(?:improvements|optimi[sz]ations|enhancements|speed-?ups)\b")
# ... and what turns down an effect stated without a size
UNSIZED_RULES: tuple[Rule[_Effect], ...] = (
    Rule("changes counted as work", lambda e: WORK_ITEMS.search(e.sent) is not None,
         "A bunch of small performance improvements and bugfixes were applied."),
    Rule("no size and nothing asserted", lambda e: not (
        _asserted(e.sent) and PERF_NOUN.search(SPEEDUP.sub(" ", e.sent))),
         "A performance improvement would be nice."),
    Rule("another version's effect", lambda e: not NAMES_CHANGE.search(e.sent) and (
        not e.posting or OTHER_VERSION.search(e.sent) is not None),
         "WG 0.0.20180708 w/NAPI actually slowed down throughput."),
    Rule("an aside", _Effect.aside,
         "Fix the lock (the rest of the series is a performance improvement)."),
)


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
        e = _Effect(doc, first, last, start, end, posting, cover)
        sent, span = e.sent, e.span
        line = para.line_at(doc.starts[first])
        if why := rejected_by(EFFECT_RULES, e):
            if rejected is not None:
                rejected.append((line, span, why))
            continue
        # "degradation on TX: -466 pps (-0.2%) on RX: -338 pps (-1.2%)": one per percent
        for pm in PAREN_PCT.finditer(sent):
            p = float(pm.group(1))
            found.setdefault((first, p), Statement(
                "prose", sent.strip()[:500], p, direction(sent, p, span),
                quoted=para.depth > 0, line_no=line))
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
            found[(first, pct)] = Statement(
                "prose", sent.strip()[:500], pct, direction(sent, pct, span),
                quoted=para.depth > 0, line_no=line)
            width[(first, pct)] = end - start
        # "by about 8.1% in the case of A and 15.6% in the case of B": one effect each
        for pm in MORE_PCT.finditer(sent, max(0, doc.starts[end - 1] - doc.starts[first])):
            p = float(pm.group(1))
            found.setdefault((first, p), Statement(
                "prose", sent.strip()[:500], p, direction(sent, p, span),
                quoted=para.depth > 0, line_no=line))
    for first, last in doc.sents:
        sent = doc.span(first, last)
        if any(k[0] == first for k in found) or not _asserted(sent) or \
                EARLIER_VERSION.match(sent):
            continue
        if verdict := _compared(sent):
            found[(first, None)] = Statement(
                "prose", sent.strip()[:500], None, verdict, quoted=para.depth > 0,
                line_no=para.line_at(doc.starts[first]))
    return list(found.values())


def _compared(sent: str) -> Verdict | None:
    """The verdict of a sentence that compares the change with its absence in words, no
    effect phrase of its own: "Results are identical within statistical errors." (no
    change), "... is higher without that code" (by what is higher)."""
    low = sent.lower()
    if NO_CHANGE.search(sent, low) and (
            RUNTIME.search(sent) or "benchmark" in low or (
                "result" in low and MEASURING.search(low))):
        return "no-change"
    if m := COMPARED.search(sent, low):
        better = m.group(2).lower() in ("higher", "faster", "better")
        if m.group(2).lower() in ("higher", "lower") and LOWER_BETTER_WORDS.search(m.group(1)):
            better = not better
        return "improvement" if better == (m.group(3).lower() == "with") else "regression"
    return None
