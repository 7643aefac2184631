"""How big an effect a text states: a percent, a range, a factor, "a big improvement".

``sized`` is the cheap test (is a size stated at all?); ``percent`` reads the one an
effect phrase states ("15-20 %" -> 17.5, "2x" -> 100); the patterns tell a range from a
change of numbers ("from 69.4% to 73.7%") and find further percents of one sentence.
"""

from __future__ import annotations

import re

from mlx.text import Folded

# ... and a paragraph only if it states a size: a percent, "2x", or "a big improvement"
# "7%", "2x", "3 times"
# ("x(?<!\wx)" is "\bx" written so that re skips to the x's: 3x faster on bodies)
SIZE_NUMBER = re.compile(r"\d[ \t]?(?:%|(?:[xX]|times)\b)|x(?<!\wx)\d{1,3}\b")
# "double the bandwidth", "twice as fast" (tried only where FACTOR_STEMS stand)
SIZE_WORD = Folded(r"\b(?:doubl\w*|twice|tripl\w*)[ \t]+(?:the |its |our |their |of |as )?"
                   r"(?:throughput|bandwidth|performance|rate|speed|pps|iops|fast|quick)")
# ... and in an effect's own phrase, a factor without its noun: "throughput is roughly
# doubled", "by a factor of 3", "a 4-fold speedup", "reduced by half"
FACTOR_WORD = re.compile(r"(?i)\b(?:doubl(?:e|es|ed|ing)|twice|tripl(?:e|es|ed|ing)|"
                         r"(?:by|in)[ \t\n]+half|factor[ \t\n]+of[ \t\n]+"
                         r"\d{1,3}(?:\.\d{1,2})?|\d{1,3}(?:\.\d{1,2})?[ \t]?-?[ \t]?fold)\b")
SIZE = re.compile(SIZE_NUMBER.pattern + "|(?i:" + SIZE_WORD.rx.pattern + ")|" +
                  FACTOR_WORD.pattern.removeprefix("(?i)").join(("(?i:", ")")))
# "a big performance improvement" (tried only where such a noun stands)
ADJECTIVE = Folded(r"(?:big|huge|significant|noticeable|nice|major|measurable|substantial|"
                   r"small|slight|minor)[ \t]+(?:\w+[ \t]+){0,2}"
                   r"(?:improvement|regression|speed-?up|degradation|gain|boost)")
NOUNS = ("mprovement", "egression", "peedup", "peed-up", "egradation", "gain", "boost")
FACTOR_STEMS = ("oubl", "OUBL", "wice", "WICE", "ripl", "RIPL")


def sized(text: str, low: str | None = None) -> bool:
    """Does the text state the size of an effect: a percent, "2x", "a big improvement"?
    (``low``: the text lowercased, where the caller has it.)"""
    return SIZE_NUMBER.search(text) is not None or (
        any(w in text for w in FACTOR_STEMS) and SIZE_WORD.search(text, low) is not None) or (
        any(n in text for n in NOUNS) and ADJECTIVE.search(text, low) is not None) or (
        any(w in text for w in ("actor of", "fold", "half")) and
        FACTOR_WORD.search(text) is not None)


# "..., and 15.6% in the case of ...": a further percent the same sentence states
MORE_PCT = re.compile(r"(?:,|\band\b|\bor\b)[ \t]+(?:by[ \t]+)?(?:about[ \t]+|~)?([-+]?\d{1,4}"
                      r"(?:\.\d{1,3})?)[ \t]?%")
# "changed from 69.4% to 73.7%": where an effect went, not two effects ("varying from 5% to
# 2500%" is a range)
FROM_TO_PCT = re.compile(r"(?i)\b(?:chang|increas|decreas|went|go|goes|grew|rose|drop|fell|jump|"
                         r"mov|climb|shrank|shrunk)\w*[ \t\n]+from[ \t\n]+~?"
                         r"(\d{1,4}(?:\.\d{1,3})?)[ \t]*%[ \t\n]+to[ \t\n]+~?"
                         r"(\d{1,4}(?:\.\d{1,3})?)[ \t]*%")
# "varying greatly from 5% to 2500%", "range from 5% to 2500% faster": one effect, its middle
VARY_RANGE = re.compile(r"(?i)\b(?:var|rang)\w*[ \t\n]+(?:\w+[ \t\n]+)?from[ \t\n]+~?"
                        r"(\d{1,4}(?:\.\d{1,3})?)[ \t]*%?[ \t\n]+to[ \t\n]+~?"
                        r"(\d{1,4}(?:\.\d{1,3})?)[ \t]*%")
# "-338 pps (-1.2%)": the change a value stands for, in parentheses after it
PAREN_PCT = re.compile(r"\(([-+]\d{1,4}(?:\.\d{1,3})?)[ \t]?%\)")
# "15-20 %", "1% ~ 5%", "5% to 2500%", "10–15%": a range, stated as its middle
# ("from 69.4% to 73.7%" is a change of the numbers, no range)
RANGE = re.compile(r"(?<!from )(?<!from ~)(?<![\d.])([-+]?\d{1,4}(?:\.\d{1,3})?)[ \t]*%?[ \t]*"
                   r"(?:-|–|~|to)[ \t]*(\d{1,4}(?:\.\d{1,3})?)[ \t]*%")


# "by x2 ~ x4": a range of factors; the tail is its second end, after the first's "x2"
FACTOR_TAIL = re.compile(r"[ \t]*[~-][ \t\n]*x(\d{1,3}(?:\.\d{1,2})?)\b")
FACTOR_RANGE = re.compile(r"\bx(\d{1,3}(?:\.\d{1,2})?)" + FACTOR_TAIL.pattern)


def percent(text: str) -> float | None:
    """The stated percent of a phrase: "15-20 %" -> 17.5, "-25.7%" -> -25.7."""
    m = RANGE.search(text)
    if m:
        return (float(m.group(1)) + float(m.group(2))) / 2
    m = re.search(r"([-+]?\d{1,4}(?:\.\d{1,3})?)[ \t]*%", text)
    if m:
        return float(m.group(1))
    m = FACTOR_RANGE.search(text)
    if m:  # "by x2 ~ x4": a range of factors, its middle
        return (float(m.group(1)) + float(m.group(2))) / 2 * 100 - 100
    m = re.search(r"(\d{1,3}(?:\.\d{1,2})?)[ \t]*(?:[xX]|times)\b|"
                  r"\bx(\d{1,3}(?:\.\d{1,2})?)\b", text)
    if m:  # "2x faster", "2X faster", "3 times", "a x2 boost"
        return (float(m.group(1) or m.group(2)) - 1) * 100
    m = re.search(r"(?i)factor[ \t\n]+of[ \t\n]+(\d{1,3}(?:\.\d{1,2})?)|"
                  r"(\d{1,3}(?:\.\d{1,2})?)[ \t]?-?[ \t]?fold\b", text)
    if m:  # "by a factor of 3", "a 4-fold speedup"
        return (float(m.group(1) or m.group(2)) - 1) * 100
    m = re.search(r"(?i)\b(doubl|twice|tripl|(?:by|in)[ \t\n]+half)", text)
    if m:  # "nearly providing double the bandwidth", "roughly doubled", "reduced by half"
        word = m.group(1).lower()
        return 200.0 if word == "tripl" else 100.0 if word in ("doubl", "twice") else 50.0
    return None
