"""Which stated effects are claims of the change: the named rules.

An effect phrase the Matcher found (``mlx.extract.statements``) is read in its sentence
(``EffectPhrase``: the words before it in its clause, around it, its size) and turned
down by the first rule of ``EFFECT_RULES`` (any effect) or ``UNSIZED_RULES`` (one without
a size) that holds: the change's own effect is what remains.  Each rule has a name
(``benchmarks/accuracy.py --misses`` tells it) and a sentence it turns down (its test).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from mlx.extract.conditions import condition_of, names_change
from mlx.extract.nlp import Tokens
from mlx.extract.rules import Rule
from mlx.extract.sizes import FACTOR_TAIL, FROM_TO_PCT, RANGE, SIZE, VARY_RANGE, percent
from mlx.extract.vocab import NAMES_CHANGE, TRAILER_LINE
from mlx.text import Folded

# what a performance effect is an effect on
# ("higher throughput scenarios", "high performance workloads": a kind of use, no effect)
PERF_NOUN = Folded(r"\b(?:performance|throughput|bandwidth|latency|latencies|"
                   r"(?<!clock )(?<!bus )(?<!spi )(?<!link )(?<!fan )(?<!port )speed|"
                   r"pps|packet rate|transfer rate|bitrate|cpu (?:load|usage|utili[sz]ation)|"
                   r"overhead|jitter|rtt|"
                   # "Perf is about the same" (not the tool: "perf record", "perf shows")
                   r"perf(?![ \t\n]+(?:record|top|stat|report|trace|script|annotate|bench|"
                   r"tool|output|data|shows?|says))"
                   r")\b(?![ \t\n]+(?:scenarios?|environments?|use[ -]?cases?|"
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
                     r"user|run)[ -]?times?\b|"
                     # a benchmark named: "a huge (49%) drop for some netperf cases"
                     r"\b(?:net|q|sock|lm|sys|t|d)perf\b|\biperf3?\b|\bneper\b|\bpktgen\b|"
                     r"\bfio\b|\bhackbench\b|will-it-scale|stress-ng|redis-benchmark|"
                     r"\bmemtier|\b[td]bench\b|\bwrk\b|\btcrypt\b)|"
                     r"\d[ \t]?(?:[KMGT]?bps|[KMGT]?bits?/s|[KMGT]?B/s|[kKmM]?pps)\b")

# a profile listing ("28.69%  [kernel]  [k] copy_user ... 5.68% ..."): perf's markers, or
# five percents or more in one "sentence"
LISTING = re.compile(r"\[(?:k|kernel|\.)\][ \t]|(?:\d%[^%]{0,80}){5,}")

NEGATORS = {"without", "no", "not", "never", "nor", "any", "nothing", "n't"}

# "0.0.20180708", "v6.1", "1a2b3c4d5e6f": a version or a commit other than the change
OTHER_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b|\bv\d+\.\d+\b|\b[0-9a-f]{10,40}\b")

# what a change is for or might do: "in order to", "aims to", "should", "would"
GOAL_WORDS = (r"in order to|so as to|aim(?:s|ed|ing)?(?: to| at)?|intend\w*|meant|goals?|"
              r"purpose|plan(?:s|ned)? to|would like to|hop(?:e|es|ed|ing)|tr(?:y|ies|ying) to|"
              r"designed to|should|would|might|expect\w*|(?:approach|attempt)(?:es|s)? "
              r"(?:at|to)|to (?:achieve|get|gain|obtain|bring|provide|enable|allow)")

# "To measure the performance degradation", "whether it improves": no effect asserted (in
# a sentence with no size, anything that hedges it: GOAL_WORDS and these)
HEDGE = re.compile(r"(?i)\b(?:" + GOAL_WORDS + r"|to (?:measure|check|see|test|verify|avoid|"
                   r"find)|whether|if (?:there|this|it|we|you)|any|may|hope\w*|"
                   # "can help improving NPU utilization", "latency can be improved further":
                   # a possibility (not "users can still benefit", said beside an effect)
                   r"can (?:\w+ ){0,2}(?:improv|reduc|increas|decreas|lower|boost|help|speed|"
                   r"degrad|hurt|affect|impact)\w*|"
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


def asserted(sentence: str) -> bool:
    """Is a sentence without a size a plain statement of an effect (prose, no hedge)?"""
    words = sentence.split()
    numeric = sum(any(c.isdigit() for c in w) for w in words)
    return len(words) >= 4 and numeric <= len(words) // 4 and \
        not HEDGE.search(ASIDE.sub(" ", sentence)) \
        and not sentence.lstrip().startswith(("$", "#", ">")) and not NOT_PROSE.search(sentence) \
        and not TRAILER_LINE.match(sentence)


# "increases to 25%", "rose to 80%": the level a share rose to, not the size of a change
# (not "up to 30%", a size's bound)
LEVEL = re.compile(r"(?i)\b(?:increas(?:e|es|ed|ing)|ris(?:e|es|ing)|rose|gr(?:ow|ows|ew|owing)|"
                   r"climb(?:s|ed|ing)?|jump(?:s|ed|ing)?)[ \t\n]+to[ \t\n]+~?\d[\d.]*[ \t]?%")


@dataclass
class EffectPhrase:
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
        if FACTOR_TAIL.match(tail := self.doc.text[self.doc.ends[self.end - 1]:][:16]):
            span += tail  # "by x2 ~ x4": a range of factors, past the phrase's last token
        pct = percent(span) if SIZE.search(span) else None
        if pct is not None and LEVEL.search(span):
            return None  # "softirq usage rapidly increases to 25%": a level, no size
        if pct is not None and self.doc.token(self.end - 1).lower() == "half" and \
                self.end < len(self.doc) and self.doc.token(self.end).lower() == "of":
            return None  # "shows up in half of the runs": a share of them, no size
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
        # (a verb, not the noun of "a 10% increase", "the boost")
        verb = next((m for m in DOER_VERB.finditer(clause)
                     if not NOUN_BEFORE.search(clause, 0, m.start())), None)
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

# "Improved performance compared to v6": against the series' own earlier version (still
# the change's effect, as its authors tell it: the claim's baseline is that version)
VERSUS_EARLIER = re.compile(r"(?i)\b(?:compared (?:to|with)|than|over|vs\.?|versus|relative to|"
                            r"against)[ \t\n]+(?:the[ \t\n]+)?(?P<versus>v\d{1,2}\b|"
                            r"(?:previous|earlier|last|prior|first|old) (?:version|iteration|"
                            r"revision|posting|series|rfc|patch(?:set)?)\b)")


def versus_earlier(sent: str) -> str | None:
    """The earlier version of the series an effect is stated against ("v6", "the previous
    version"), or None when it is the code without the change."""
    m = VERSUS_EARLIER.search(sent)
    return " ".join(m.group("versus").split()) if m else None

# in a reply, an effect another doer has, named before a verb of its clause ("On my box a
# single tc rule added 7% overhead", "You can cut latency by 20% by ..."): not the change's
DOER_VERB = re.compile(r"(?i)\b(?:adds?|added|causes?|caused|gives?|gave|brings?|brought|"
                       r"costs?|yields?|yielded|introduces?|introduced|improves?|improved|"
                       r"increases?|increased|reduces?|reduced|boosts?|boosted|cuts?|lowers?|"
                       r"lowered|raises?|raised|can|could|will|results?|resulted|leads?|led)\b")

OTHER_DOER = re.compile(r"(?i)\b(?:you|an?|another|other)\b(?![ \t\n]+(?:lot|bit|few|little)\b)")

# what stands before a noun: "a 10% increase", "the boost", "a nice gain"
NOUN_BEFORE = re.compile(r"(?i)(?:\b(?:a|an|the|this|that|some|any|no|big|small|huge|slight|"
                         r"nice|significant)|\d|%|~)[ \t\n]*$")
CHANGE_DOER = re.compile(r"(?i)\b(?:this|it|these|that|which|they|with)\b")

# "no difference between flushing per packet and flushing at the end of NAPI", "a
# head-to-head comparison between AirOS with TDMA and openwrt with CSMA": two alternatives
# compared, the change neither of them ("between the patched and the stock kernel",
# "between v6.1 and v6.1+patch" name it; "cuts latency between the host and the guest" is
# a path, no comparison)
COMPARED_PAIR = re.compile(r"(?i)\b(?:difference|differences|gap|delta|gain|comparison|"
                           r"compared)[ \t\n]+(?:\w+[ \t\n]+){0,2}?between[ \t\n]+(.{3,80}?)"
                           r"[ \t\n]+(?:and|vs\.?|versus)[ \t\n]+(.{3,80}?)"
                           r"(?:[.;:!?,]|[ \t\n]by\b|$)")
# a side that is the change, its absence or both: "it", "the two", "v6.1+patch", "stock"
SIDE_PRONOUNS = re.compile(r"(?i)\b(?:it|them|two|both|this|that|these|those|your|old|new|"
                           r"upstream|mainline)\b|\+")


def _names_a_side(words: str) -> bool:
    return condition_of(words) is not None or names_change(words) or \
        SIDE_PRONOUNS.search(words) is not None


def alternatives(sentence: str) -> bool:
    """Does the sentence compare two things, neither of them the change or its absence?"""
    m = COMPARED_PAIR.search(sentence)
    return m is not None and not _names_a_side(m.group(1)) and not _names_a_side(m.group(2))


# In order: the first rule that turns an effect phrase down names why (``rejections``);
# each example is a sentence it turns down (``tests/test_extract_statements.py``).
EFFECT_RULES: tuple[Rule[EffectPhrase], ...] = (
    Rule("states no effect of the change", lambda e: NO_EFFECT.search(e.sent) is not None,
         "This fixes a performance regression introduced by the last merge."),
    Rule("effect denied", EffectPhrase.denied, "It works without negative impact on throughput."),
    Rule("no run-time measure", EffectPhrase.no_runtime, "Code size reduced by 24.9%."),
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
    Rule("two alternatives compared", lambda e: alternatives(e.sent),
         "There is a 3% throughput gain between flushing per packet and per NAPI poll."),
    Rule("another doer", EffectPhrase.other_doer,
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

# "a performance drop in SRv6 encapsulation, which I have measured below": a reply's own
# measurement of the change it answers
MEASURED_HERE = re.compile(r"(?i)\b(?:i|we)[ \t\n]+(?:have[ \t\n]+|had[ \t\n]+)?(?:measured|"
                           r"benchmarked|tested|observed|seen|saw|see)\b")
# "This prevents performance degradation due to unaligned access or even a crash": a fix's
# reason, the harm it keeps from happening, no effect it was seen to have
AVERTED = re.compile(r"(?i)\b(?:prevent|avoid)(?:s|ed|ing)?\b[^.;]{0,40}?\b(?:degradation|"
                     r"regressions?|slowdowns?|drops?|penalt(?:y|ies)|stalls?)\b")
# ... and what turns down an effect stated without a size
UNSIZED_RULES: tuple[Rule[EffectPhrase], ...] = (
    Rule("a harm averted", lambda e: AVERTED.search(e.sent) is not None,
         "This prevents performance degradation due to unaligned access or even a crash."),
    Rule("changes counted as work", lambda e: WORK_ITEMS.search(e.sent) is not None,
         "A bunch of small performance improvements and bugfixes were applied."),
    Rule("no size and nothing asserted", lambda e: not (
        asserted(e.sent) and PERF_NOUN.search(SPEEDUP.sub(" ", e.sent))),
         "A performance improvement would be nice."),
    Rule("another version's effect", lambda e: not NAMES_CHANGE.search(e.sent) and (
        (not e.posting and not MEASURED_HERE.search(e.sent)) or
        OTHER_VERSION.search(e.sent) is not None),
         "WG 0.0.20180708 w/NAPI actually slowed down throughput."),
    Rule("an aside", EffectPhrase.aside,
         "Fix the lock (the rest of the series is a performance improvement)."),
)
