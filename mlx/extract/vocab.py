"""The words the extractors share, each written once.

The readers, the condition step, the statements and the claims build their regexes,
prefilter words and Matcher patterns from these tables; a word added here reaches every
place that reads that concept.

- what the change is called (``CHANGE``), and a sentence naming it (``NAMES_CHANGE``,
  ``CAUSED``);
- the words that name a run's condition, which a label's configuration is what is left
  of (``CONDITION_WORDS``);
- effect words with the direction they give (``EFFECTS``): the statements' prefilter
  stems, body words, regex and Matcher nouns, and what reads as better or worse;
- what is better lower (``LOWER_IS_BETTER``: metrics; ``LOWER_BETTER_WORDS``: words);
  what says a value is a latency (``LATENCY_CUES``);
- trailer keys (``TRAILER_KEYS``; ``REVIEW_KEYS`` of them review; ``TRAILER_LINE``).

The shape of a commit title and "is it a reply" are the subject parser's
(``mlx.subjects``: ``looks_like_commit_title``, ``Subject.is_reply``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ------------------------------------------------------------------ the change

# "patch", "the series", "this fix", "changes", "commit", "the revert", "v2"
CHANGE = (r"(?:patch(?:es|ed|set|series)?|series|fix(?:es)?|changes?|commits?|revert|"
          r"backport|code|v\d{1,2})")
# the nouns a determiner makes the change: "this patch", "your series", "the commits"
CHANGE_NOUNS = r"(?:patch\w*|changes?|commits?|series|fix(?:es)?|version|v\d+)"
DETERMINERS = r"(?:this|the|that|these|your|his|her|my|our)"
# "this change", "the series", "your patch", "with it", "after applying": a sentence that
# names the change
NAMES_CHANGE = re.compile(r"(?i)\b" + DETERMINERS + r"\s+(?:\w+\s+)?" + CHANGE_NOUNS + r"\b|"
                          r"\bwith (?:it|them)\b|\bafter applying\b|\bapplied\b")
# "the patch causes ...", "This increases caching overhead": the change itself costs it
CAUSED = re.compile(r"(?i)\b(?:this|the|my|your) (?:patch|change|series|commit)\w* "
                    r"(?:\w+ ){0,3}?(?:cause|introduce|add|show|result|lead)|"
                    # "This increases caching overhead": a posting's "This" is the change
                    r"^[ \t]*(?:this|it)[ \t]+(?:\w+[ \t]+)?(?:increase|add|introduce|cause|"
                    r"cost|slow|hurt|degrade)s?\b")
# the words of a label that name its condition: what is left names the configuration
CONDITION_WORDS = re.compile(r"(?i)\b(?:before|after|without|with|w/o|w/|the|this|that|"
                             r"patch(?:es|ed)?|series|fix|change|applied|stock|vanilla|"
                             r"baseline|base|unpatched)\b")

# ------------------------------------------------------------------ effects


@dataclass(frozen=True)
class Effect:
    """An effect word: its stem (a substring of lowercased text), its regex, the
    substring a body must hold for it (a case-blind prefilter: "mprov" of Improv),
    and which way it goes (``up`` better, ``down`` worse, None: by what it measures)."""

    stem: str
    regex: str
    body: tuple[str, ...]
    direction: str | None
    effect_word: bool = True  # states an effect by itself (not "hurt" alone)


EFFECTS = (
    Effect("improv", "improv", ("mprov",), "up"),
    Effect("regress", "regress", ("egress",), "down"),
    Effect("faster", "faster", ("faster",), "up"),
    Effect("slow", r"slower|slow(?:ed|s|ing)?\b|slowdown", ("slow",), "down"),
    Effect("speed", r"speed-?up|speeds?[ \t\n]+up|sped[ \t\n]+up",
           ("peedup", "peed-up", "peed up", "peeds up", "sped up"), "up"),
    Effect("quicker", "quicker", ("quicker",), "up"),
    Effect("better", "better", (), "up"),
    Effect("worse", "worse", (), "down"),
    Effect("degrad", "degrad", ("egrad",), "down"),
    Effect("penalt", "penalt", ("penalt",), "down"),
    Effect("boost", "boost", ("boost",), "up"),
    Effect("gain", "gain", ("gain",), "up"),
    Effect("drop", "drop", ("drop",), None),
    Effect("increase", "increase", ("ncrease",), None),
    Effect("decrease", "decrease", ("ecrease",), None),
    Effect("reduc", "reduc", ("educ",), None),
    # "lowers the CPU cost by 12%" (a verb: not "lower latency"; "cuts latency by 30%" would
    # read 340 more bodies of netfilter-devel's 39,000 and cost statements 15%: left out)
    Effect("lower", r"\blower(?:s|ed|ing)\b", ("lowers", "lowered", "lowering"), None),
    Effect("saves", r"\bsav(?:e|es|ed|ing)\b", ("saves", "saving"), None),
    Effect("overhead", "overhead", ("overhead",), "down"),
    Effect("doubl", "doubl", ("doubl",), None),
    Effect("twice", "twice", ("twice",), None),
    Effect("tripl", "tripl", ("tripl",), None),
    Effect("impact", "impact", ("impact",), "down"),
    Effect("hurt", "hurt", (), "down", effect_word=False),
)
EFFECT_REGEX = "|".join(e.regex for e in EFFECTS if e.effect_word)
EFFECT_STEMS = tuple(e.stem for e in EFFECTS if e.effect_word)
EFFECT_BODY_WORDS = tuple(w for e in EFFECTS for w in e.body)
# words that judge an effect by themselves
IMPROVE = re.compile("(?i)" + "|".join(e.regex for e in EFFECTS
                                       if e.direction == "up" and e.stem != "slow"))
REGRESS = re.compile("(?i)" + "|".join("slower" if e.stem == "slow" else e.regex
                                       for e in EFFECTS if e.direction == "down"))

# ------------------------------------------------------------------ better lower

LOWER_IS_BETTER = frozenset({"latency", "loss", "cpu"})  # metrics of the results table
# what is better lower, when a sentence names it: "reduces latency by 10%", "50% reduction
# in memory use"
LOWER_BETTER_WORDS = re.compile(r"(?i)latenc|cpu|overhead|cycles|time\b|rtt|jitter|memory|"
                                r"\bmem\b|cache miss|power|usage|utili[sz]ation|cost|footprint|"
                                r"consumption|allocation|lock contention|drops|loss")
# what says a value in us/ms is a latency, not a setting
LATENCY_CUES = re.compile(r"(?i)latenc|\brtt\b|\blat\b|\bp\d\d|\bavg\b|\bmean\b|round.trip|"
                          r"jitter|\bmedian\b|tail|\bping\b|response time|completion")

# ------------------------------------------------------------------ trailers

# every key a commit message's trailer block carries
TRAILER_KEYS = ("Signed-off-by", "Reviewed-by", "Acked-by", "Tested-by", "Reported-by",
                "Suggested-by", "Co-developed-by", "Fixes", "Link", "Closes", "Cc", "Nacked-by")
# ... those that review a patch (a reply's own, in the sender's name, are the patch's)
REVIEW_KEYS = frozenset({"Reviewed-by", "Acked-by", "Tested-by", "Reported-by",
                         "Suggested-by", "Nacked-by"})
# a trailer line states no effect of the change: "Fixes: fdb8e12cc2cc ("... regression")"
TRAILER_LINE = re.compile(r"^[ \t]*(?:[\w-]+-by|" + "|".join(
    k for k in TRAILER_KEYS if not k.endswith("-by")) + "):")
