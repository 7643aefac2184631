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
BASELINE = re.compile(r"(?i)\b(?:before|(?:without|w/o)(?=[ \t]*(?:$|[:)\]=-])|[^,;:()]{0,40}?\b"
                      + CHANGE + r"\b)|stock|vanilla|baseline|base|unpatched|"
                      r"original|orig|reference|pre-patch|revert(?:ed)?|parent|unmodified|"
                      r"default kernel|good (?:commit|kernel|build)|no (?:patch|fix|change)s?)\b|"
                      r"\b[0-9a-f]{7,40}\^|^old\b|"
                      r"\bold (?:code|kernel)")
# After patch   with this patch   w/napi_gro_receive patch   net-next + patch   patched
PATCHED = re.compile(r"(?i)\b(?:after|patched|applied|post-patch|modified|"
                     r"(?:first )?bad (?:commit|kernel|build))\b|"
                     r"(?:\bwith\b|\bw/(?!o\b)|\+)[ \t]?[^,;:()]{0,40}?\b" + CHANGE + r"\b|"
                     r"^with$|^new\b|^w/$|^patch(?:ed|es)?$")
# "Fastpath (with flowtable, this patchset)": the change named, where nothing says before it
THIS_CHANGE = re.compile(r"(?i)\bthis (?:patch\w*|series|change|commit)\b")
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
    patched = PATCHED.search(label) is not None or (not base and THIS_CHANGE.search(label)
                                                     is not None)
    if prose and base == patched:
        base, patched = PROSE_BASELINE.search(label) is not None, \
            PROSE_PATCHED.search(label) is not None
    if base == patched:
        return None
    return "baseline" if base else "patched"


# "1a2b3c4d5e6f", "9f8e7d6^": a label naming a commit
SHA = re.compile(r"\b[0-9a-f]{7,40}\b")
# "net-next (baseline)" -> "net-next": the head a variant label extends
PARENTHETICAL = re.compile(r"[ \t]*\([^)]*\)")
STOP = {"the", "a", "an", "of", "for", "to", "in", "on", "and", "with", "add", "use", "net",
        "support", "fix", "patch", "v1", "v2", "v3"}


def extends(label: str, base: str) -> bool:
    """Does ``label`` name ``base`` plus something ("mainline + frag recycling" over
    "mainline", "net-next + IP6IP support" over "net-next (baseline)")?"""
    head = PARENTHETICAL.sub("", base).strip()
    return bool(head) and len(label) > len(head) and label.startswith(head) and \
        label[len(head):len(head) + 1] in (" ", "+", "-", "/", "_", ".") and label != base


def effective_conditions(labels: list[tuple[str, str | None]], title: str | None = None,
                         complement: bool = False) -> list[tuple[str, str | None]]:
    """Conditions of labels the text leaves open, from the other labels beside them.

    A label extending another ("A + B", "A w/ foo") is the patched one and ``A`` its
    baseline; beside a baseline, a label naming a commit is the one under test (and, with
    ``complement``, the one other label: runs in blocks of their own, not the "on TX" and
    "on RX" of one line); with no condition at all, the one label sharing a word with the
    patch title is patched.
    """
    conds = dict(labels)
    for name, cond in labels:
        if cond != "baseline" and any(extends(name, other) for other, _ in labels):
            conds[name] = "patched"
            for other, _ in labels:
                if extends(name, other) and conds[other] is None:
                    conds[other] = "baseline"
    if set(conds.values()) == {None} and len(labels) == 2:
        conds.update(_switched(labels, title))
    values = set(conds.values())
    if "baseline" in values and "patched" not in values:
        open_ = [name for name, cond in labels if conds[name] is None]
        for name in open_:
            # beside a baseline, the commit under test, or the one other run named
            if SHA.search(name) or (complement and len(open_) == 1):
                conds[name] = "patched"
    if values == {None} and title and len(labels) == 2:
        words = _words(title)
        hits = [bool(_words(name) & words) for name, _ in labels]
        if sum(hits) == 1:
            for (name, _), hit in zip(labels, hits, strict=True):
                conds[name] = "patched" if hit else "baseline"
    return [(name, conds[name]) for name, _ in labels]


# "TSO on"/"TSO off", "DCHE = 1b"/"DCHE = 0b", "enabled"/"disabled": a switch
SWITCH_ON = re.compile(r"(?i)(?:\b(?:on|enabled?|yes|true)|=[ \t]*1b?)[ \t)]*$|"
                       r"^(?:on|enabled?)\b")
SWITCH_OFF = re.compile(r"(?i)(?:\b(?:off|disabled?|no|false)|=[ \t]*0b?)[ \t)]*$|"
                        r"^(?:off|disabled?)\b")
# a change that switches something off: then "off" is the patched side
TURNS_OFF = re.compile(r"(?i)\b(?:disable|remove|drop|revert|turn off|stop|avoid|skip)")


def _switched(labels: list[tuple[str, str | None]], title: str | None) -> dict[str, str]:
    """Two labels that name one switch on and off: the side the change switches to is
    patched (on, unless the patch title says it disables or removes something)."""
    (a, _), (b, _) = labels
    on = [n for n in (a, b) if SWITCH_ON.search(n) and not SWITCH_OFF.search(n)]
    off = [n for n in (a, b) if SWITCH_OFF.search(n) and not SWITCH_ON.search(n)]
    if len(on) != 1 or len(off) != 1 or not title:
        return {}
    if TURNS_OFF.search(title):
        return {off[0]: "patched", on[0]: "baseline"}
    return {on[0]: "patched", off[0]: "baseline"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9_]{3,}", text.lower()) if w not in STOP}
