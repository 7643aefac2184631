"""Which way a stated effect goes: better or worse, by its words and what it is on.

"improves" and "regression" judge by themselves; "reduces", "increased", "doubles" go
the way of what they measure: the measure the sentence names nearest the effect's phrase
("reduces latency by 10%" improves, "reduces throughput" regresses).  A percent under
``NO_CHANGE_PCT`` is no change.
"""

from __future__ import annotations

import re

from mlx.extract.vocab import IMPROVE, LOWER_BETTER_WORDS, REGRESS
from mlx.rows import Verdict

# words that only say which way a quantity went: good or bad by what it measures
UP = re.compile(r"(?i)increas|higher|\bmore\b|rais|grow|\bup\b")
REDUCE = re.compile(r"(?i)reduc|decreas|lower|less|drop|shrink|\bcut|sav(?:e|es|ed|ing)\b|down|"
                    r"\b(?:by|in)[ \t\n]+half\b")
# "prevents performance degradation", "fixes a performance regression": the change ends one
ENDS_A_LOSS = re.compile(r"(?i)\b(?:prevent|avoid|fix|eliminat|remov|recover|mitigat|address|"
                         r"resolv|undo|revert)\w*\b(?:\W+\w+){0,4}?\W+(?:regress|degrad|slow|"
                         r"overhead|drop|loss)|\bwithout (?:the|this)\b.{0,80}\b(?:regress|degrad)")
# what an effect is on: better higher (group 1) or lower (group 2); of those a sentence
# names, the one nearest the effect's phrase decides ("over x4 increase with small message
# sizes, as with other throughput tools": throughput; "CPU usage dropped 15% at the same
# throughput": CPU)
MEASURE = re.compile(r"(?i)(throughput|bandwidth(?! use)|\bbw\b|_bw\b|pps|\brates?\b|iops|"
                     r"transactions|speed|performance|\btps\b|requests)|(" +
                     LOWER_BETTER_WORDS.pattern.removeprefix("(?i)") + ")")
# a cost: a loss by itself, or the measure a verb of direction moves
COST = re.compile(r"(?i)overhead|penalt\w*")
NO_CHANGE_PCT = 1.0  # a stated effect below this is no change
FACTOR = re.compile(r"(?i)\b(?:doubl\w*|twice|tripl\w*)\b")


def direction(sentence: str, pct: float | None, span: str = "") -> Verdict | None:
    """The verdict of an effect phrase (``span``) of a sentence stating ``pct`` percent."""
    if pct is not None and abs(pct) < NO_CHANGE_PCT:
        return "no-change"  # "-0.2%": inside the noise
    if ENDS_A_LOSS.search(sentence):
        return "improvement"
    if FACTOR.search(span):  # "double the bandwidth", "twice the latency"
        return "regression" if lower_better(sentence, span) else "improvement"
    if pct is not None and pct < 0 and not REDUCE.search(sentence):
        return "regression"
    if COST.search(span) and not (IMPROVE.search(span) or REGRESS.search(COST.sub(" ", span))
                                  or UP.search(span) or REDUCE.search(span)):
        # a cost is a loss ("adds ~7% overhead") unless a verb just before it reduces it
        # ("reduces the overhead by 10%")
        lead = " ".join(sentence[:max(sentence.find(span), 0)].split()[-3:])
        return "improvement" if REDUCE.search(lead) else "regression"
    for text in (span, sentence):  # the words of the effect's own phrase first
        # (a cost under a verb of direction is what it measures: "cuts the overhead in half")
        better, worse = IMPROVE.search(text), REGRESS.search(COST.sub(" ", text))
        if better and not worse:
            return "improvement"
        if worse and not better:
            return "regression"
        up, down = UP.search(text), REDUCE.search(text)
        if up or down:
            # "reduces latency by 10%" improves, "reduces throughput" regresses; "latency
            # increased" regresses, "throughput increased" improves
            better_low = lower_better(sentence, span or text)
            return "improvement" if bool(down) == better_low else "regression"
    if IMPROVE.search(sentence):
        return "improvement"
    return "regression" if REGRESS.search(sentence) else None


def lower_better(sentence: str, span: str) -> bool:
    """Is what the effect phrase is on better lower: the measure the sentence names
    nearest the phrase (none: performance, better higher)?"""
    at = max(sentence.find(span), 0)
    end = at + len(span)
    nearest = min(MEASURE.finditer(sentence), default=None,  # ties: "drops performance"
                  key=lambda m: (max(at - m.end(), m.start() - end, 0), m.group(1) is None))
    return nearest is not None and nearest.group(2) is not None
