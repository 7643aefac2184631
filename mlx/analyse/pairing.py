"""Which run is the baseline of which: pairing the labels of one message's runs.

Within a group of runs (one tool, test, metric and configuration), each label with the
condition ``patched`` gets the baseline nearest it: a label it extends ("0.0.20180708" under
"0.0.20180708 w/napi_gro_receive patch"), the ``baseline`` label naming the same
configuration ("Before + nft" for "After + nft"), the last baseline above it, or a plain
name above it; never one switched apart from it ("GRO disabled" for "GRO enabled")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from mlx.extract.conditions import effective_conditions, extends, in_blocks_apart
from mlx.extract.vocab import CONDITION_WORDS
from mlx.rows import Condition

PLAIN_WORDS = 8  # a label of more words is a sentence, no name of a run


def pick_baseline(patched: str, labels: Sequence[tuple[str, Condition | None]]) -> str | None:
    """The baseline label for a patched one, among the labels in order of appearance."""
    names = [name for name, _ in labels]
    at = names.index(patched)
    unpatched = [(i, n) for i, (n, c) in enumerate(labels) if c != "patched" and n != patched]
    prefixes = [n for _, n in unpatched if extends(patched, n)]
    if prefixes:
        return max(prefixes, key=len)  # "0.0.20180708" under "0.0.20180708 w/... patch"
    marked = [(i, n) for i, n in unpatched if labels[i][1] == "baseline"]
    # "After + nft" against "Before + tc" and "Before + nft": the one naming the same rest
    rest = _rest(patched)
    if rest and len(marked) > 1:
        overlap = [(len(rest & _rest(n)), i, n) for i, n in marked]
        best = max(o for o, _, _ in overlap)
        if best and sum(o == best for o, _, _ in overlap) == 1:
            same = next(n for o, _, n in overlap if o == best)
            # "With this patch + nft egress" beside "Without this patch + tc egress" only:
            # a word the baseline has and this run lacks names another patched run's
            # configuration ("tc"), no pair ("net-next, 64 flows" for "patched, 64 flows")
            theirs = {w for n, c in labels if c == "patched" and n != patched
                      for w in _words(n)}
            # ... nor is one that lacks a configuration this run names ("Before + tc" for
            # "After + nft + tc": nft was never run without the change)
            return None if (_words(same) - _words(patched)) & theirs or \
                _words(patched) - _words(same) else same
    before = [n for i, n in marked if i < at]
    base = before[-1] if before else marked[0][1] if marked else None
    if base is not None:
        # "With this patch + nft egress" beside "With this patch + tc egress": the one
        # baseline "Without this patch + tc egress" is the tc run's, not the nft run's
        others = [n for n, c in labels if c == "patched" and n != patched]
        mine = len(rest & _rest(base))
        if any(len(_rest(o) & _rest(base)) > mine for o in others):
            return None
        return None if _switched_apart(patched, base) else base
    # a label of no condition names a run only if it is a name, not a sentence ("Here's my
    # attempt to demonstrate what I believe the problem to be:" above a paste)
    plain = [n for i, n in unpatched if i < at and len(n.split()) <= PLAIN_WORDS]
    return plain[-1] if plain and not _switched_apart(patched, plain[-1]) else None


def _switched_apart(patched: str, base: str) -> bool:
    """"net-next main, GRO disabled" is no baseline of "patch applied, GRO enabled": the
    runs differ by a switch besides the change (unless the switch is what names the sides,
    as "on" and "off" columns do)."""
    switched = _switch(_rest(patched)), _switch(_rest(base))
    return CONDITION_WORDS.search(patched) is not None and None not in switched and \
        switched[0] != switched[1]


SWITCHED_ON = {"on", "enabled", "enable", "yes", "true"}
SWITCHED_OFF = {"off", "disabled", "disable", "no", "false"}


def _switch(words: set[str]) -> str | None:
    """"on" or "off" where a label's configuration words switch something, else None."""
    on, off = bool(words & SWITCHED_ON), bool(words & SWITCHED_OFF)
    return "on" if on and not off else "off" if off and not on else None


def _rest(label: str) -> set[str]:
    return set(re.findall(r"[a-z0-9_]+", CONDITION_WORDS.sub(" ", label.lower())))


def _words(label: str) -> set[str]:
    """The configuration words of a label, without list keys ("1.a)", "2.b)") and values
    ("Before + tc: 4063912pps 1950Mb/sec")."""
    return {w for w in _rest(label) if len(w) > 1 and not any(c.isdigit() for c in w)}


def label_sides(group: list[Any], title: str | None) -> list[tuple[list[Any], list[Any]]]:
    """(baseline runs, patched runs) for each patched label of one group."""
    # a side the text names by its condition only ("9.1 Gbps vs 9.4 Gbps with the series")
    names = [x.label if x.label is not None else x.condition for x in group]
    labels: list[tuple[str, Condition | None]] = []
    for name, x in zip(names, group, strict=True):
        if name is not None and name not in [n for n, _ in labels]:
            labels.append((name, x.condition))
    # labels whose runs stand on lines of their own may complement each other
    lines = [{x.line_no for x, m in zip(group, names, strict=True) if m == n}
             for n, _ in labels]
    labels = effective_conditions(labels, title, complement=in_blocks_apart(lines))
    out = []
    for name, cond in labels:
        base = pick_baseline(name, labels) if cond == "patched" else None
        if base is not None:
            out += _runs([x for x, m in zip(group, names, strict=True) if m == base],
                         [x for x, m in zip(group, names, strict=True) if m == name])
    return out


def _runs(base: list[Any], patched: list[Any]) -> list[tuple[list[Any], list[Any]]]:
    """The run pairs of one baseline and one patched label: the means of both, unless
    each side holds as many runs of different commands (``iperf3 -c`` then ``-P4``
    under "with" and under "without"): then run k is paired with run k."""
    if not base or not patched:
        return []
    n = len(base)
    differ = len({x.command for x in base}) > 1 or len({x.command for x in patched}) > 1
    if n > 1 and n == len(patched) and differ:
        return [([base[k]], [patched[k]]) for k in range(n)]
    return [(base, patched)]
