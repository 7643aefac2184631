"""Patch subjects: version, part/total, tree, flags and title.

The union of what b4, Patchwork and syzkaller each get right:
- b4 reads ``[PATCH v6,19/24]`` as v1 and takes 24 parts for 24 revisions;
  here commas separate tokens, so it is v6, part 19 of 24;
- Patchwork misses versions written after the title (``tcp: fix foo (v2)``);
- reply and forward prefixes in several languages, before or after brackets.

Which values were seen and which defaulted is recorded (``version_seen``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

# Re: / RE: / Aw: / AW: / SV: / VS: / Antw: / Fwd: / Fw: / TR: / Re[2]: / Re(2):
REPLY = re.compile(r"(?i)^\s*(?:re|aw|sv|vs|antw|odp|wg|fwd?|tr)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*")
# only unambiguous ones after a bracket ("[PATCH] fw: ..." may be the firmware subsystem,
# "FW:" and "Fw:" in those cases are a forward: "[OpenWrt-Devel] FW: [PATCH] ...")
REPLY_AFTER = re.compile(r"^\s*(?:(?i:re|aw|sv|antw|fwd)|FW|Fw)\s*(?:\[\d+\])?\s*:\s*")
# a mail gateway's tag before anything else: "(EXT) Re: ...", "*EXTERNAL* [PATCH] ..."
GATEWAY_TAG = re.compile(r"(?i)^\s*[(*](?:ext|external|spam|bulk|suspicious)[)*]:?\s*")
GROUP = re.compile(r"^\s*\[([^\[\]]*)\]")
# [PATCH 1 of 3]  (mercurial patchbomb)
N_OF_M = re.compile(r"(?i)\b(\d+)\s+of\s+(\d+)\b")
# PATCH, RFC, PATCHv3, PATCH-v2, PATCHv3.1
PATCH_TOKEN = re.compile(r"(?i)^(patch|rfc)(?:-?v(\d+)(?:\.(\d+))?)?$")
VERSION_TOKEN = re.compile(r"(?i)^v(\d+)(?:\.(\d+))?$")
PART_TOKEN = re.compile(r"^(\d+)/(\d+)$")
# "[GIT PULL]", "[PULL]", "[GIT PULL net-next]", "[PULL REQUEST]": a pull request
PULL_TOKEN = re.compile(r"(?i)^pull$")
# "[Set 2]", "[Part 3]": one of several postings of a large series, kept apart
SET_GROUP = re.compile(r"(?i)^(?:set|part|series)\s*#?\d+$")
# a tag no tree is spelled as: all capitals, with or without a number (S22, GIT, REPOST)
CAPS_TAG = re.compile(r"^[A-Z]+\d*$")
# "tcp: fix foo (v2)" and "tcp: fix foo [v2]" at the end of the title
TRAILING_VERSION = re.compile(r"(?i)\s*[\(\[]v(\d+)[\)\]]\s*$")
# "clean up kernel_{read,write} & friends v2": a bare version ends a subject without
# brackets (with brackets it is a device's: "add support for Router 3G v2")
BARE_VERSION = re.compile(r"\s+v(\d+)$")
# "net: mana: fix foo" -> net, net/mana ; "wireguard: use DEV_STATS_INC()" -> wireguard
SUBSYS_WORD = re.compile(r"([\w.+/-]+):")
# kernel test robot: "8b27dae5a2: netperf.Throughput_Mbps -25.7% regression"
ROBOT = re.compile(
    r"^([0-9a-f]{7,40}):?\s+([\w.:/-]+)\s+([-+]?\d+(?:\.\d+)?)%\s+(regression|improvement)",
    re.I)


# "[PATCH for 4.9]", "[PATCH and v2]": words, not trees
NOT_TREES = {"for", "and", "to", "on", "against"}


@dataclass(slots=True)  # not frozen: frozen __init__ is slow, and 40k are made per link
class Subject:
    """A parsed subject; ``kind`` is ``patch``, ``robot`` or ``other``."""

    raw: str
    title: str
    kind: str = "other"
    is_reply: bool = False
    prefixes: list[str] = field(default_factory=list)
    tree: str | None = None
    version: int = 1
    version_seen: bool = False
    version_minor: int | None = None  # PATCHv3.1 -> 1
    part: int | None = None
    total: int | None = None
    is_rfc: bool = False
    is_resend: bool = False
    is_autosel: bool = False  # a stable backport the AUTOSEL bot picked
    is_rft: bool = False  # "request for testing"
    is_pull: bool = False  # a pull request ([GIT PULL]): no cover letter
    set_tag: str | None = None  # "[Set 2]" (lower case): keeps a series' postings apart
    subsystem: str | None = None
    subsystem_path: str | None = None
    robot_commit: str | None = None
    robot_metric: str | None = None
    robot_change_pct: float | None = None

    @property
    def is_cover(self) -> bool:
        return self.part == 0 and bool(self.total) and not self.is_pull


def _strip_prefixes(text: str) -> tuple[str, list[str], bool]:
    """Bracket groups and reply prefixes at the head, in any order."""
    groups: list[str] = []
    reply = False
    while True:
        if g := GATEWAY_TAG.match(text):
            text = text[g.end():]
            continue
        m = (REPLY if not groups else REPLY_AFTER).match(text)
        if m:
            reply = True
            text = text[m.end():]
            continue
        g = GROUP.match(text)
        if g:
            groups.append(g.group(1).strip())
            text = text[g.end():]
            continue
        return text.strip(), groups, reply


def _tokens(group: str) -> list[str]:
    group = N_OF_M.sub(r"\1/\2", group)
    return [t for t in re.split(r"[\s,]+", group) if t]


@lru_cache(maxsize=65536)
def parse_subject(subject: str | None) -> Subject:
    raw = " ".join((subject or "").split())
    if g := GATEWAY_TAG.match(raw):
        return replace(parse_subject(raw[g.end():]), raw=raw)
    if (m := REPLY.match(raw)) and raw[m.end():]:
        # "Re: <subject>": the parse of the subject replied to (cached), as a reply
        return replace(parse_subject(raw[m.end():]), raw=raw, is_reply=True)
    title, groups, reply = _strip_prefixes(raw)
    values: dict = {"is_reply": reply, "prefixes": groups}
    is_patch = False
    for group in groups:
        if SET_GROUP.match(group):
            values.setdefault("set_tag", " ".join(group.lower().split()))
            continue
        tokens = _tokens(group)
        # "[net-next v3 1/3]" has no PATCH word: its part number makes it a patch's
        patch_group = any(PATCH_TOKEN.match(t) or PULL_TOKEN.match(t) or PART_TOKEN.match(t)
                          for t in tokens)
        is_patch = is_patch or patch_group
        for tok in tokens:
            low = tok.lower()
            if m := PATCH_TOKEN.match(tok):
                values["is_rfc"] = values.get("is_rfc", False) or low.startswith("rfc")
                if m.group(2):
                    _version(values, m.group(2), m.group(3))
            elif low == "resend":
                values["is_resend"] = True
            elif low == "autosel":
                values["is_autosel"] = True
            elif low in ("rft", "rfc/rft", "rft/rfc"):
                values["is_rft"] = True
                values["is_rfc"] = values.get("is_rfc", False) or "rfc" in low
            elif PULL_TOKEN.match(tok):
                values["is_pull"] = True
            elif m := VERSION_TOKEN.match(tok):
                _version(values, m.group(1), m.group(2))
            elif m := PART_TOKEN.match(tok):
                values.update(part=int(m.group(1)), total=int(m.group(2)))
            elif patch_group and "tree" not in values and low not in NOT_TREES \
                    and not CAPS_TAG.match(tok):
                values["tree"] = tok  # net, net-next, bpf-next, 5.10, linus:master
    if m := TRAILING_VERSION.search(title) or (BARE_VERSION.search(title) if not groups
                                               else None):
        if not values.get("version_seen"):
            values.update(version=int(m.group(1)), version_seen=True)
        title = title[:m.start()].rstrip()
    robot = ROBOT.match(title)
    if robot:
        values.update(kind="robot", robot_commit=robot.group(1).lower(),
                      robot_metric=robot.group(2), robot_change_pct=float(robot.group(3)))
        if not is_patch and groups and ":" in groups[0]:
            values["tree"] = groups[0]  # [linus:master]
    elif is_patch:
        values["kind"] = "patch"
    chain = _subsystems(title)
    if chain:
        values.update(subsystem=chain[0], subsystem_path="/".join(chain))
    return Subject(raw=raw, title=title, **values)


def _version(values: dict, major: str, minor: str | None) -> None:
    values.update(version=int(major), version_seen=True,
                  version_minor=int(minor) if minor else None)


def _subsystems(title: str) -> list[str]:
    """Leading "a: b: " words of a title; none when the colon is prose ("Note: ...")."""
    chain: list[str] = []
    rest = title
    while m := SUBSYS_WORD.match(rest):
        if not rest[m.end():].startswith(" "):
            break
        chain.append(m.group(1))
        rest = rest[m.end():].lstrip()
    return chain


# "mac80211: Expose support for ath9k Dynack", "4890b686f4: netperf.Throughput_Mbps -69.4%
# regression": a title shaped like a commit's or a robot's, "<word>: <text>"
TITLE_SHAPE = re.compile(r"^[\w./-]{2,40}: \S")


# 'Serious performance regression in "net: foo"', 'regression since 1a2b3c4d5e6f': a
# thread about a commit it names, quoted or by its hash
QUOTED_TITLE = re.compile(r"[\"\u201c]([\w./-]{2,40}: [^\"\u201d]{3,})[\"\u201d]")
COMMIT_HASH = re.compile(r"\b[0-9a-f]{12,40}\b")


def names_a_commit(title: str) -> bool:
    """Is a thread's title a commit's, or does it name one (quoted or by its hash)?"""
    return TITLE_SHAPE.match(title) is not None or QUOTED_TITLE.search(title) is not None or \
        COMMIT_HASH.search(title) is not None


def looks_like_commit_title(title: str) -> bool:
    """'receive: use gro call instead of plain call': a subsystem prefix and a lowercase start."""
    chain = _subsystems(title)
    return bool(chain) and chain[0][:1].islower() and len(title.split()) >= 3


def normalize_title(title: str) -> str:
    return " ".join(title.lower().split())
