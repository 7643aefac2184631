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
from collections.abc import Sequence
from dataclasses import dataclass

from mlx.extract.vocab import CHANGE, NAMES_CHANGE
from mlx.rows import Condition

# what may stand between "with"/"without" and the change it names, within one sentence
# ("with some success.   This is the code change made" names none; "with v6.1 patch" does)
WITHIN = r"(?:[^,;:().!?]|[.!?](?=\S)){0,40}?"
# Before patch   without the series   w/o patch   stock kernel   v6.15 vanilla   (9f8e7d6^)
BASELINE = re.compile(r"(?i)\b(?:before|(?:without|w/o)(?=[ \t]*(?:$|[:)\]=-])|" + WITHIN
                      + r"(?:\b|(?<=_))" + CHANGE + r"(?:\b|(?=_)))|stock|vanilla|baseline|"
                      r"unpatched|"
                      r"original|orig|reference|pre-patch|revert(?:ed)?|parent|unmodified|"
                      r"default kernel|good (?:commit|kernel|build)|no (?:patch|fix|change)s?)\b|"
                      r"\b[0-9a-f]{7,40}\^|^old\b|"
                      r"\bold (?:code|kernel)")
# After patch   with this patch   w/napi_gro_receive patch   net-next + patch   patched
PATCHED = re.compile(r"(?i)\b(?:after|patched|applied|post-patch|modified|"
                     r"(?:first )?bad (?:commit|kernel|build))\b|"
                     r"(?:\bwith\b|\bw/(?!o\b)|\+)[ \t]?" + WITHIN + r"(?:\b|(?<=_))" + CHANGE
                     + r"(?:\b|(?=_))|"
                     r"^with$|^new\b|^w/$|^patch(?:ed|es)?$")
# "upstream", "mainline:", "origin smc", "upstream kernel": a noun naming the code without the
# change, in a label (not "[ Upstream commit ... ]", "Upstream Port", "upstream bandwidth")
BASE_NOUN = re.compile(r"(?i)\b(?:upstream|mainline|origin|base)\b(?![ \t]+(?:commit|port|"
                       r"bandwidth|link|direction|stream|traffic|bug|report|fix|discussion))")
BASE_NOUN_HEAD = re.compile(r"(?i)\b(?:upstream|mainline|origin|base)[ \t]+(?:kernel|tree|"
                            r"code|build|"
                            r"linux|net-next|net|bpf-next)\b")
NOUN_LABEL_WORDS = 5  # a label this short may name the baseline by a noun ("base delay" in
# "Comparison of tcp_1down run 'HTB 20Mbit + DUALPI2 + 10ms base delay'" names none)
# "With 6.9 but with 1a2b3c4d reverted": the change taken out again
REVERTED = re.compile(r"(?i)\b(?:with|but|and)\b[^,;:()]{0,60}?\breverted\b")
# "without+this_patch", "w/o the fix": a label that starts by saying the change is absent
WITHOUT_LEAD = re.compile(r"(?i)^[ \t]*(?:without|w/o|no)\b")
# "with the old patch", "the previous version of the series": the change as it was before
OLD_CHANGE = re.compile(r"(?i)\b(?:old|older|original|previous|earlier|first)[ \t]+(?:version[ \t]+"
                        r"of[ \t]+(?:the[ \t]+|this[ \t]+|your[ \t]+)?)?" + CHANGE + r"\b")
# "Fastpath (with flowtable, this patchset)": the change named, where nothing says before it
THIS_CHANGE = re.compile(r"(?i)\bthis (?:patch\w*|series|change|commit)\b")
# ... and in a sentence: "450Mbps with it", "now 870 Mbits/sec", "was ~540"
PROSE_BASELINE = re.compile(r"(?i)\b(?:was|were|used to|previously|originally|before)\b")
PROSE_PATCHED = re.compile(r"(?i)\b(?:with (?:it|them|that|this|yours?)|now|this gives)\b")
# where a clause names its condition: "without the change", "with it", "before", "now"
CONDITION_WORDS = re.compile(r"(?i)\b(?:without|with|before|after|now|was|previously|"
                             r"originally|w/o|w/)\b")
# "with/without GRO", "before and after": both sides named
BOTH = re.compile(r"(?i)\bwith/without\b|\bwithout/with\b|\bbefore (?:and|&|/) ?after\b|"
                  r"\bbefore/after\b")


# "with this patch", "commit 1a2b3c4d^", "6.1 + fix", "reverted", "the bad commit": a label
# that names a change (not "Baseline Test", "before", "was", "stock")
CHANGE_NAMED = re.compile(r"(?i)(?:\b|(?<=_))" + CHANGE + r"(?:\b|(?=_))|"
                          r"\b(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}\b|"  # a commit, not "10000000"
                          r"\brevert(?:ed|ing)?\b|\b(?:good|bad)[ \t]+(?:commit|kernel|build)\b")


def names_change(label: str | None) -> bool:
    """Does a label name a change, so that its side is a side of that change even in a thread
    about no patch?"""
    return label is not None and CHANGE_NAMED.search(label) is not None


def condition_of(label: str | None, prose: bool = False) -> Condition | None:
    """baseline, patched or None (neither, or both as in "with/without")."""
    if not label or BOTH.search(label):
        return None
    noun = not prose and BASE_NOUN.search(label) is not None and (
        len(label.split()) <= NOUN_LABEL_WORDS or BASE_NOUN_HEAD.search(label) is not None)
    base = BASELINE.search(label) is not None or OLD_CHANGE.search(label) is not None or noun
    patched = PATCHED.search(label) is not None or (
        not base and THIS_CHANGE.search(label) is not None and
        NOT_MEASURED_WITH.search(label) is None)  # not "this patch fixes the drop to ..."
    if base and patched and REVERTED.search(label):
        patched = False  # "With 6.9 but with 1a2b3c4d reverted, I get:"
    if base and patched and WITHOUT_LEAD.match(label):
        patched = False  # "without+this_patch" beside "with+this_patch"
    if base and patched and OLD_CHANGE.search(label):
        patched = False  # "<kernel> with the old patch", "v1 of the series": the baseline
    if prose and base == patched:
        base, patched = PROSE_BASELINE.search(label) is not None, \
            PROSE_PATCHED.search(label) is not None
    if base == patched:
        return None
    return "baseline" if base else "patched"


# what keeps a sentence that names the change from saying its values were measured with it:
# the change as what it fixes ("This patch fixes the drop to 120 Mbit/s"), the code before
# it ("was", "currently", "without"), a plan, a hedge or a question ("If the series goes
# in we may reach ...", "Would your patch help?")
# (``NOT_YET``: the words of a plan, a condition or the code before the change, shared with
# the outline's "applied" sentences)
NOT_YET = r"if|when|once|would|could|should|will|before|without"
NOT_MEASURED_WITH = re.compile(r"(?i)\b(?:" + NOT_YET + r"|fix(?:es|ed|ing)?|avoid\w*|"
                               r"prevent\w*|address\w*|solv\w*|w/o|was|were|currently|today|"
                               r"previously|used to|expect\w*|might|may|hope\w*|plan\w*|try|"
                               r"trying)\b|\?")


def measured_with_change(words: str) -> str | None:
    """Does a sentence, up to a value it gives, say the value was measured with the change
    applied, by naming the change as what was run ("The patch seems to have cured the
    stalls here, and I can push 2.1 Mpps per queue", "I tested your series on two boxes:
    940 Mbit/s")?  Only the sentence's own words count; a label or a clause that names a
    condition is read first (``condition_of``).  The change's name when it does."""
    m = NAMES_CHANGE.search(words)
    return m.group(0) if m and NOT_MEASURED_WITH.search(words) is None else None


@dataclass(frozen=True)
class Label:
    """One label a value sits under, and where it sits: ``prefix`` (before a pasted tool
    line: ``Before: [  5] 0.00-10.00 sec ...``, ``64: [  5] ...``), ``line`` (the words
    its own line of prose gives it: ``With the patch: 41 Kpps``, the clause ``310Mbps
    without the change``), ``own`` (what a reader found: a table's column or row header),
    ``inner`` (a reader's inner name: a table's row, a tool's row),
    ``outline`` (a label line above the block: ``Without this patch:`` over ``* idle
    link:``)."""

    text: str
    place: str
    condition: Condition | None = None
    at: int = -1  # the line an outline label stands on


@dataclass(frozen=True)
class Resolved:
    """What the labels of one value say: the label that names its condition (else the
    innermost), the condition, and the other labels: as short names (``config``) and as
    written (``scope``: what keeps runs of different configurations apart)."""

    label: str | None
    condition: Condition | None
    config: tuple[str, ...]
    scope: tuple[str, ...]


def resolve(labels: Sequence[Label]) -> Resolved:
    """The one step that decides, for a value, which of its labels (innermost first) is
    its condition and which are configuration.

    A label on the value's own line that names a condition is it (``Before: [ 5] ...``
    under a sentence that says what was run); else the outermost label that names one
    (``Without this patch:`` over ``* with background flows:``); with none, the reader's
    own label (else the innermost outline label) names the run and no condition is
    known."""
    named = [lab for lab in labels if lab.condition is not None]
    prefix = [lab for lab in named if lab.place in ("prefix", "line")]
    # with no condition: the reader's own label (or the words its line gives the value),
    # else the innermost outline label; a prefix or an inner name ("tx [SUM] ...", "64:
    # [ 5] ...") stays configuration
    runs = [lab for lab in labels if lab.place in ("own", "line")] + \
        [lab for lab in labels if lab.place not in ("prefix", "inner")]
    chosen = prefix[0] if prefix else named[-1] if named else runs[0] if runs else None
    others = [lab for lab in reversed(labels) if lab is not chosen]  # outer first
    # (a label naming another condition is no configuration's name: "So I ran this with
    # the unpatched kernel and then with the series:" above "Before: ..." / "After: ...")
    config = tuple(n for lab in others if lab.condition is None
                   and (n := short_name(lab.text)) is not None)
    # a label outside the condition's is one block of the message, by its place: two
    # "Comparison of tcp_1down run 'x':" blocks, each over its own "Old:" and "New:", are
    # two comparisons, however alike their headings
    at = next((k for k, lab in enumerate(labels) if lab is chosen), len(labels))
    outer = set(map(id, labels[at + 1:]))
    # (a label that names a condition keeps no configurations apart: flent's "Title:
    # 'baseline'" under "Without the series:" differs from the patched side's by design)
    scope = tuple(f"{lab.text} @{lab.at}" if id(lab) in outer and lab.at >= 0 else lab.text
                  for lab in others if lab.condition is None)
    return Resolved(chosen.text if chosen else None, chosen.condition if chosen else None,
                    config, scope)


# words a sentence leads with before its noun: "On my test box ...", "Tested on an E810"
LEAD_WORDS = re.compile(r"(?i)^(?:(?:on|in|at|for|from|of|here|there|are|is|the|a|"
                        r"an|my|our|your|this|these|those|some|more|and|so|but|then|also|i|"
                        r"we|tested|testing|ran|run|results?|numbers?|data|did|do|does|got|get|"
                        r"see|saw|have|had|tried|used|just|now|then)(?:[ \t,]+|$))+")
# a finite verb: a clause ("buffers are as follows", "It shows on iperf3"), no name
CLAUSE = re.compile(r"(?i)\b(?:is|are|was|were|shows?|looks?|seems?|has|have|had|does|did|"
                    r"needs?|went|goes|rose|fell|stays?|stayed|(?-i:gets|got|gives|gave|yields))\b")
# what a sentence's noun may be that names no configuration: the machine a test ran on
# ("Numbers on my box", "Tested on two boxes") or what was found ("I see no real difference")
NO_NAME = re.compile(r"(?i)^(?:(?:two|three|both|the|same|test|my|our|a|an|\d+)[ \t]+)*"
                     r"(?:box|boxes|machines?|systems?|setups?|servers?|hosts?|laptops?|boards?|"
                     r"rigs?|side|end)$|\b(?:difference|improvements?|regressions?|gains?|"
                     r"impact|change)\b")
# a version's change log ("Main changes in v2", "v1 -> v2"): no section of a table
CHANGE_LOG = re.compile(r"(?i)\b(?:changes?|changelog)\b[^.]{0,20}\bv\d+\b|"
                        r"\bv\d+[ \t]*(?:->|→|to)[ \t]*v\d+")
SHORT_WORDS = 5  # a configuration's name has at most this many words
NAME_WORDS = 8  # ... or this many, as a list of parts ("128 bit key, 16 byte blocks")


def short_name(text: str | None) -> str | None:
    """A label as a configuration's name: itself when short (``TCP_RR 32 queues``,
    ``SMAP on``, ``64``), the head of a sentence's noun (``On my test box with xdp``
    -> ``test box with xdp``), None for a sentence (``Here are more details of the data
    I collected``) or a clause (``buffers are as follows``)."""
    t = (text or "").strip(" \t:;-*")
    if not t or t.endswith((".", "!", "?")) or CLAUSE.search(t):
        return None
    lead = LEAD_WORDS.match(t)
    if not lead:  # a name ("128 bit key, 16 byte blocks"), not a sentence ("Sorry, I ...")
        if len(t.split()) > SHORT_WORDS and "," not in t and (bare := PARENTHETICAL.sub(
                "", t).strip()) and bare != t:
            t = bare  # "baseline rbtree (match on first field only)": the name before its note
        return t if len(t.split()) <= NAME_WORDS and (len(t.split()) <= SHORT_WORDS or
                                                      "," in t) and not CHANGE_LOG.search(t) \
            else None
    head = t[lead.end():].split(",")[0].strip(" .:")
    return head if head and len(head.split()) <= SHORT_WORDS - 1 and \
        not NO_NAME.search(head) and not CHANGE_LOG.search(head) else None


# "1a2b3c4d5e6f", "9f8e7d6^": a label naming a commit
SHA = re.compile(r"\b[0-9a-f]{7,40}\b")
# "net-next (baseline)" -> "net-next": the head a variant label extends
PARENTHETICAL = re.compile(r"[ \t]*\([^)]*\)")
STOP = {"the", "a", "an", "of", "for", "to", "in", "on", "and", "with", "add", "use", "net",
        "support", "fix", "patch", "v1", "v2", "v3"}


def extends(label: str, base: str) -> bool:
    """Does ``label`` name ``base`` plus something ("mainline + frag recycling" over
    "mainline", "net-next + IP6IP support" over "net-next (baseline)")?"""
    return extension(label, base) is not None


# the words that mark a side rather than name a code base: "Before + tc" is the "Before"
# run of another configuration, not "Before" with a change added
MARKER = re.compile(r"(?i)^(?:before|after|with(?:out)?|w/o?|now|was|then|old|new|"
                    r"patched|unpatched)\b")


# what a label adds to a baseline's name that makes it the change: "+ per-queue pools",
# "with patches", "w/ the fix", "(patched)" (not "hash (non-ranged entries)" of "baseline
# hash" beside "baseline": another reference run of a test script)
ADDS_CHANGE = re.compile(r"(?i)^(?:\+|plus\b|with\b|w/(?!o)|and\b|\(patched\)|.*\b" + CHANGE
                         + r"\b)")


# "baseline hash (non-ranged entries)": a run named as a reference, and what it is
REFERENCE_HEAD = re.compile(r"(?i)^[ \t]*(?:baseline|reference|base)\b")


def references(names: Sequence[str]) -> set[str]:
    """The names of several reference runs a test script prints ("baseline (drop from netdev
    hook)", "baseline hash (non-ranged entries)", "baseline rbtree (...)"): no side of a
    change (one such name alone is a baseline)."""
    refs = {n for n in names if (m := REFERENCE_HEAD.match(n)) and
            not ADDS_CHANGE.match(n[m.end():].strip())}
    return refs if len(refs) >= 2 else set()


def extension(label: str, base: str) -> str | None:
    """What ``label`` adds to ``base`` ("+ per-queue pools" of "baseline + per-queue
    pools" over "baseline"), None when it does not extend it."""
    head = PARENTHETICAL.sub("", base).strip()
    if not head or len(label) <= len(head) or not label.startswith(head) or label == base \
            or label[len(head):len(head) + 1] not in (" ", "+", "-", "/", "_", "."):
        return None
    return label[len(head):].strip()


def effective_conditions(labels: Sequence[tuple[str, Condition | None]],
                         title: str | None = None, complement: bool = False
                         ) -> list[tuple[str, Condition | None]]:
    """Conditions of labels the text leaves open, from the other labels beside them.

    A label extending another ("A + B", "A w/ foo") is the patched one and ``A`` its
    baseline; beside a baseline, a label naming a commit is the one under test (and, with
    ``complement``, the one other label: runs in blocks of their own, not the "on TX" and
    "on RX" of one line); with no condition at all, the one label sharing a word with the
    patch title is patched.
    """
    conds = dict(labels)
    refs = references([n for n, c in labels if c != "patched"])
    conds.update(dict.fromkeys(refs))
    for name, cond in labels:
        if name in refs:
            continue
        for other, other_cond in labels:
            added = extension(name, other)
            if added is None or other_cond == "patched" or MARKER.match(other) or \
                    condition_of(added) == "baseline" or (cond == "baseline" and (
                        other_cond != "baseline" or not ADDS_CHANGE.match(added))):
                continue
            # "baseline + per-queue pools" over "baseline", "6.12 (patched)" over "6.12":
            # the label that adds to a code base's name is that base with the change
            conds[name] = "patched"
            if conds[other] is None:
                conds[other] = "baseline"
    if set(conds.values()) == {None} and len(labels) == 2:
        conds.update(_switched(labels, title))
    values = set(conds.values())
    if "baseline" in values:
        open_ = [name for name, cond in labels if conds[name] is None]
        for name in open_:
            # beside a baseline, the commit under test, a variant of the change ("vanilla",
            # "vanilla+rx_batch", "patch_set_2": one claim per variant), or the one other
            # run named
            if names_change(name) or ("patched" not in values and (
                    SHA.search(name) or (complement and len(open_) == 1))):
                conds[name] = "patched"
    if complement and "patched" in values and "baseline" not in values:
        unnamed = [k for k, (name, _) in enumerate(labels) if conds[name] is None]
        first = min(k for k, (name, _) in enumerate(labels) if conds[name] == "patched")
        if len(unnamed) == 1 and unnamed[0] < first:
            # "We see poor UDP throughput:" over a run, then "I found a fix and applied it:"
            # over the same command's run: the one run before the change is its baseline
            conds[labels[unnamed[0]][0]] = "baseline"
    if values == {None} and title:
        conds.update(_named_by_title([name for name, _ in labels], title))
    if _other_kernels([name for name, _ in labels], conds):
        conds = dict.fromkeys(conds)
    return [(name, conds[name]) for name, _ in labels]


def in_blocks_apart(lines: Sequence[set[int]]) -> bool:
    """Do the runs of each label stand on lines of their own (no line holds runs of two
    labels)?  Then the labels may complement each other (``effective_conditions``)."""
    return all(a.isdisjoint(b) for k, a in enumerate(lines) for b in lines[k + 1:])


# "a newer kernel", "the older kernel", "6.12-rc3", "v6.1": the kernel a run was built from
KERNEL_NAMED = re.compile(r"(?i)\b(?:newer|older|newest|oldest|latest|current)[ \t]+"
                          r"(?:\w+[ \t]+)?(?:kernel|tree|build)\b|\bv?\d\.\d{1,2}"
                          r"(?:\.\d{1,3})?(?:-rc\d{1,2})?\b")


def _other_kernels(names: list[str], conds: dict[str, Condition | None]) -> bool:
    """Are the one baseline and the one patched run two versions of the change on two
    kernels ("older kernel with the earlier version of the patch" beside "newer kernel with
    your patch")?  Then the change is not what differs between them: no side."""
    base = [n for n in names if conds.get(n) == "baseline"]
    patched = [n for n in names if conds.get(n) == "patched"]
    if len(base) != 1 or len(patched) != 1 or OLD_CHANGE.search(base[0]) is None:
        return False
    kernels = [{k.group(0).lower() for k in KERNEL_NAMED.finditer(n)} for n in (*base, *patched)]
    return bool(kernels[0]) and bool(kernels[1]) and kernels[0] != kernels[1]


def _named_by_title(names: list[str], title: str) -> dict[str, Condition]:
    """With no condition anywhere: the one label naming a word of the patch title that no
    other label has is the patched run ("io_uring" beside "epoll" under "io_uring zero copy
    rx", "SMC-AutoCork" beside "SMC-NoCork" under "net/smc: Add autocork support"), and its
    baseline the other label of two, or of more the one label sharing its other words ("TCP"
    beside those two is a third comparator, no side)."""
    words = _words(title)
    own = [_words(name) for name in names]
    shared = {w for k, ws in enumerate(own) for w in ws
              if any(w in other for j, other in enumerate(own) if j != k)}
    # a label's word names a title's word whole, or, where none does, as its start
    # ("Virt-bufs" beside "Phys-bufs" under "Allow virtually contiguous sndbufs")
    named = [(ws - shared) & words for ws in own]
    if not any(named):
        named = [{w for w in ws - shared if len(w) >= 4 and any(t.startswith(w) for t in words)}
                 for ws in own]
    hits = [k for k, ws in enumerate(named) if ws]
    if len(hits) != 1:
        return {}
    k = hits[0]
    rest = own[k] - named[k]
    near = [j for j in range(len(names)) if j != k and (len(names) == 2 or own[j] & rest)]
    if len(near) != 1:
        return {}
    return {names[k]: "patched", names[near[0]]: "baseline"}


# "TSO on"/"TSO off", "DCHE = 1b"/"DCHE = 0b", "enabled"/"disabled": a switch
SWITCH_ON = re.compile(r"(?i)(?:\b(?:on|enabled?|yes|true)|=[ \t]*1b?)[ \t)]*$|"
                       r"^(?:on|enabled?)\b")
SWITCH_OFF = re.compile(r"(?i)(?:\b(?:off|disabled?|no|false)|=[ \t]*0b?)[ \t)]*$|"
                        r"^(?:off|disabled?)\b")
# a change that switches something off: then "off" is the patched side
TURNS_OFF = re.compile(r"(?i)\b(?:disable|remove|drop|revert|turn off|stop|avoid|skip)")
# ... or on
TURNS_ON = re.compile(r"(?i)\b(?:enable|turn on|switch on|allow|support)")


# "With POST keep-alive:" / "Without POST keep-alive:": one thing present and absent
WITH_LEAD = re.compile(r"(?i)^[ \t]*(?:with\b|w/(?![o/]))[ \t]*")
WITHOUT_THING = re.compile(r"(?i)^[ \t]*(?:without\b|w/o\b)[ \t]*")


def _switched(labels: Sequence[tuple[str, Condition | None]], title: str | None
              ) -> dict[str, Condition | None]:
    """Two labels that name one switch on and off: the side the change switches to is
    patched (on, unless the patch title says it disables or removes something).  A thing
    with and without (``With POST keep-alive`` / ``Without POST keep-alive``) is such a
    switch only when the patch title names it: with and without XDP beside a patch about
    something else is a configuration compared."""
    (a, _), (b, _) = labels
    if title and (pair := _with_without(a, b)) is not None:
        present, absent = pair
        if _words(WITH_LEAD.sub("", present)) & _words(title):
            return {absent: "patched", present: "baseline"} if TURNS_OFF.search(title) else \
                {present: "patched", absent: "baseline"}
        return {}
    on = [n for n in (a, b) if SWITCH_ON.search(n) and not SWITCH_OFF.search(n)]
    off = [n for n in (a, b) if SWITCH_OFF.search(n) and not SWITCH_ON.search(n)]
    if len(on) != 1 or len(off) != 1 or not title:
        return {}
    # "ethtool -K eth0 gro off" / "... on" beside a page pool patch: a toggle of something
    # the change is not about, on one kernel, is a configuration compared, no change
    # (a patch that itself enables or disables something switches: "stmmac: intel: Enable
    # HW descriptor prefetch by default" over "DCHE = 0b" / "DCHE = 1b")
    switched = _words(SWITCH_ON.sub("", on[0])) | _words(SWITCH_OFF.sub("", off[0]))
    if switched and not switched & _words(title) and not TURNS_ON.search(title) and not \
            TURNS_OFF.search(title) and not re.search(r"(?i)\b" + CHANGE + r"\b",
                                                      on[0] + " " + off[0]):
        return {}
    if TURNS_OFF.search(title):
        return {off[0]: "patched", on[0]: "baseline"}
    return {on[0]: "patched", off[0]: "baseline"}


def _with_without(a: str, b: str) -> tuple[str, str] | None:
    """(the label with, the label without) of two that name one thing with and without
    it, else None."""
    for on, off in ((a, b), (b, a)):
        w, wo = WITH_LEAD.match(on), WITHOUT_THING.match(off)
        if w and wo and (rest := _words(on[w.end():])) and rest == _words(off[wo.end():]):
            return on, off
    return None


# "TxBatching" -> "Tx Batching": the parts of a name written in camel case
CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _words(text: str) -> set[str]:
    """The words of a label or title, and the parts of its camel-case words ("SMC-TxBatching":
    smc, txbatching, batching)."""
    return {w for w in re.findall(r"[a-z0-9_]{3,}", f"{text} {CAMEL.sub(' ', text)}".lower())
            if w not in STOP}
