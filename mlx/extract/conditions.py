"""Is a label or a clause about the baseline or the patched run?

A label is the text a run is given: ``Before patch:``, ``-- v2 w/napi_gro_receive patch
--``, ``stock kernel``, a table column ``on``/``off``, ``commit 1a2b3c4d (9f8e7d6^)``.
``with`` alone names a patch only when a patch word follows it (``with this patch``,
``w/ the series``): ``with shaping on`` or ``with XDP`` is a configuration, no
condition.  In prose (``310Mbps without the change, 450Mbps with it``) a few more
words count: ``with it``, ``now``; ``was``, ``previously``.
"""

from __future__ import annotations

import re

# what a change is called
CHANGE = (r"(?:patch(?:es|ed|set|series)?|series|fix(?:es)?|changes?|commits?|revert|"
          r"backport|code|v\d{1,2})")
# Before patch   without the series   w/o patch   stock kernel   v6.15 vanilla   (9f8e7d6^)
BASELINE = re.compile(r"(?i)\b(?:before|without|w/o|stock|vanilla|baseline|base|unpatched|"
                      r"original|orig|reference|pre-patch|revert(?:ed)?|parent|unmodified|"
                      r"default kernel|good (?:commit|kernel|build)|no (?:patch|fix|change)s?)\b|"
                      r"\b[0-9a-f]{7,40}\^|^old\b|"
                      r"\bold (?:code|kernel)")
# After patch   with this patch   w/napi_gro_receive patch   net-next + patch   patched
PATCHED = re.compile(r"(?i)\b(?:after|patched|applied|post-patch|modified|"
                     r"(?:first )?bad (?:commit|kernel|build))\b|"
                     r"(?:\bwith\b|\bw/(?!o\b)|\+)[ \t]?[^,;:()]{0,40}?\b" + CHANGE + r"\b|"
                     r"^with$|^new\b|^w/$|^patch(?:ed|es)?$")
# ... and in a sentence: "450Mbps with it", "now 870 Mbits/sec", "was ~540"
PROSE_BASELINE = re.compile(r"(?i)\b(?:was|were|used to|previously|originally|before)\b")
PROSE_PATCHED = re.compile(r"(?i)\b(?:with (?:it|them|that|this|yours?)|now|this gives|gives)\b")
# where a clause names its condition: "without the change", "with it", "before", "now"
CONDITION_WORDS = re.compile(r"(?i)\b(?:without|with|before|after|now|was|previously|"
                             r"originally|w/o|w/)\b")
# "with/without GRO", "before and after": both sides named
BOTH = re.compile(r"(?i)\bwith/without\b|\bwithout/with\b|\bbefore (?:and|&|/) ?after\b|"
                  r"\bbefore/after\b")


def condition_of(label: str | None, prose: bool = False) -> str | None:
    """baseline, patched or None (neither, or both as in "with/without")."""
    if not label or BOTH.search(label):
        return None
    base = BASELINE.search(label) is not None
    patched = PATCHED.search(label) is not None
    if prose and base == patched:
        base, patched = PROSE_BASELINE.search(label) is not None, \
            PROSE_PATCHED.search(label) is not None
    if base == patched:
        return None
    return "baseline" if base else "patched"
