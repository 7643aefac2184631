"""Hardware and test setup: CPUs, NICs, wifi chips, memory, kernels, OSes, boards, links.

One row per fact and message (``count`` says how often it was named), with a
``role``: ``setup`` where the message says something ran or was measured on it (a
host line such as ``Client: ... NIC I350``, ``Tested on ...``, lscpu, lspci,
``uname -a``, a kernel test robot's ``test machine:``, a dmesg ``Link is Up``, or
hardware named near measured values), ``subject`` where it is what the patch is
about or merely named.  Lines of a known tool's shape are read by regexes, the
rest by token patterns (``mlx.extract.hwvocab``, held by the span ruler of spaCy's
hardware pipeline, ``mlx.extract.nlp``); a NIC or wifi model
written bare (``i211``, ``x550-T2``) is looked up in the PCI/USB ID gazetteer.
Nothing is read from diff hunks (a driver patch adding ``I210`` to a PCI table
states no setup), trailers, ``Fixes:``, headers quoted in the body, URLs, paths
or build-bot branch names (``...next-queue.git 40GbE``).
"""

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from mlx.extract.document import PREFILTERS, Document
from mlx.extract.document import head as body_head
from mlx.extract.hwcues import NOT_SETUP
from mlx.extract.hwhosts import near_host_line
from mlx.extract.hwrole import rows_of
from mlx.extract.hwshapes import (
    DIGIT,
    KEY_VALUE,
    MAX_LINE,
    MY_PRODUCT,
    SPEED_WORD,
    WORD_EDGE,
    Fact,
    bare_models,
    by_shape,
    prompt,
    shaped,
    unwrapped,
    value,
    without_nic_speeds,
)
from mlx.extract.hwvocab import (
    BODY_HW,
    STRONG,
    STRONG_LOWER,
    WEAK_WORDS,
    kernel_keys,
    literal_head,
    nic_tokens,
    platform_firsts,
    platform_words,
)
from mlx.extract.nlp import hardware_entities
from mlx.rows import HardwareRow
from mlx.text import TextCache, Words, matched_at

# what makes a message worth reading for its setup besides a strong word: measured
# values, or a line that says what something ran on (plain substrings: C speed)
SETUP_WORDS = ("ested on", "ested with", "est setup", "estbed", "DUT", "Link is Up", "uname",
               "lspci", "lscpu", "bits/sec", "10^6bits", "Trans/s", "running on", "my box",
               "my machine", "est platform", "est machine", "erified on", "eproduced on",
               ":~#", ":~$", "_x86_64_", "_aarch64_", " ran on ", "gigE", "GigE", "my board",
               "our board", "my laptop", "my platform", "our platform", "my router",
               "my system", "bisected", "confirmed my", "ly affected")
# a log's fields that name the machine: only the lines around them are read (a crash
# report's stack trace holds no setup)
LOG_WORDS = ("Linux version", "Machine model:", "DMI:", "Hardware name:", "Not tainted",
             "ainted: ")

# "3.5 Mpps", "940 Mbps": a rate written by hand (tested only where "ps" stands at all)
RATE = re.compile(r"\d[ \t]?[kKmMG][bp]ps\b")

WINDOW = 6  # lines around a strong word read for the rest of a setup block

# every prefilter word, by what it tells: "setup" (SETUP_WORDS), "rate" ("pps", "bps": a
# RATE may stand), "lower" (STRONG_LOWER) and "strong" (the plain start of each STRONG
# pattern: BODY_HW may match)
STRONG_TAGS = {"lower": STRONG_LOWER, "strong": [literal_head(p) for p in STRONG],
               "log": LOG_WORDS}

PREFILTER = Words({"setup": SETUP_WORDS, "rate": ("pps", "bps"), **STRONG_TAGS}, PREFILTERS)


def _reading(head: str, hits: dict[str, list[int]]) -> str | None:
    """How much of a body to read: "deep" (every own line: a setup is described or values
    measured), "strong" (only lines naming hardware by a strong word), or None."""
    # a RATE match ends with the "bps"/"pps" found, 4 or 5 characters after its digit
    if "setup" in hits or matched_at(RATE, head, hits.get("rate", ()), (4, 5)):
        return "deep"
    if "lower" in hits or "log" in hits or _confirmed(head, hits.get("strong", ())):
        return "strong"
    return None


# a BODY_HW match starts with a STRONG pattern's literal head: one of these before its end
HEADS = frozenset(literal_head(p) for p in STRONG)

HEAD_BACKS = sorted({len(head) - 1 for head in HEADS})


def _confirmed(text: str, ends: Iterable[int]) -> list[int]:
    """The ends of the literal heads found where a BODY_HW match starts (at that head)."""
    return matched_at(BODY_HW, text, ends, HEAD_BACKS, HEADS)


# substrings of the shapes read by regex (links, kernels, architectures, machine sizes)
SHAPE_WORDS = ("ink is", " link", "USB", "_64", "arch64", "arm64", "ernel", "inux", "-rc",
               " v5.", " v6.", " v4.", "driver:", "eproduc", "bps", "cores", "CPUs", "threads",
               "C/", "socket", " connection",
               " copper", " fib", " DAC", "ested on", "ested with", "-next", "- 2.", "- 3.",
               "- 4.", "- 5.", "- 6.", " CPU)", "achine model", "DMI:", "Hardware name",
               "K available", "ink up,", "igE", "Cores", "ainted", "] revision",
               "d architecture")

# the same words over a Document's text (no-break spaces replaced, wraps joined), with
# the words that make a line worth reading by shape (SHAPE_WORDS) or under a host line
# (WEAK_WORDS), on a scanner of their own: the shared one keeps the head for the next
# extractor
LINE_WORDS = Words({**STRONG_TAGS, "shape": SHAPE_WORDS, "weak": WEAK_WORDS})


def _line_words(text: str) -> dict[str, set[int]]:
    """Indexes of the lines a strong word (BODY_HW or STRONG_LOWER), a shape word, a weak
    word, a platform word and a gazetteer model stand on, by "strong", "shape", "weak",
    "platform" and "model" (the last two as substrings of the lowercased text)."""
    hits = LINE_WORDS.hits(text)
    ends = {"strong": hits.get("lower", []) + hits.get("log", []),
            "shape": hits.get("shape", []), "weak": hits.get("weak", [])}
    if "strong" in hits:
        ends["strong"] = ends["strong"] + _confirmed(text, hits["strong"])
    lowered = text.lower()
    lower_hits = _lower_words().hits(lowered)
    return {**_lines_at(text, ends), **_lines_at(lowered, {
        "platform": lower_hits.get("platform", []), "model": lower_hits.get("model", [])})}


def _lines_at(text: str, ends: dict[str, list[int]]) -> dict[str, set[int]]:
    """The index of the line each position stands on, by tag."""
    out: dict[str, set[int]] = {tag: set() for tag in ends}
    line, prev = 0, 0
    for pos, tag in sorted((pos, tag) for tag, at in ends.items() for pos in at):
        line += text.count("\n", prev, pos)
        prev = pos
        out[tag].add(line)
    return out


@cache
def _kernel_keyset() -> frozenset[str]:
    return frozenset(kernel_keys())


@cache
def _lower_words() -> Words:
    return Words({"platform": platform_words(), "model": nic_tokens()})


CANDIDATE_TAGS = ("platform", "model", "shape")
DEVICE_INDEX = re.compile(r"#\d{1,2}$")


def _candidate(text: str, tags: set[str]) -> str | None:
    """How a line without a strong word may name hardware: "words" (the span ruler reads it),
    "shape" (only the shape regexes: a kernel, a link), or None. Cheapest tests first;
    ``tags`` are the line's ``_line_words``: a word test needs its substring there."""
    if "platform" in tags:
        # (a sentence's "." or "?" is no part of its last word: "... on the RZ/G3E.", nor
        # U-Boot's index of a device: "ftgmac100#0")
        split = [DEVICE_INDEX.sub("", w.rstrip(".!?"))
                 for w in text.lower().translate(WORD_EDGE).split()]
        words = set(split)
        if not words.isdisjoint(platform_firsts()) or \
                not {w.split("-")[0] for w in words if "-" in w}.isdisjoint(platform_firsts()):
            return "words"  # "Dell XPS 13", "a 'debian-11.1' rootfs"
        keys = kernel_keys()
        if hits := words & _kernel_keyset():
            line = f" {' '.join(split)} "
            if any(f" {phrase} " in line for key in hits for phrase in keys[key]):
                return "words"  # "on my ODROID-C2", "a Sapphire Rapids host"
    if "model" in tags and DIGIT.search(text) and bare_models(text) or "virtio" in text:
        return "words"  # (and "virtio NICs")
    if prompt(text):
        return "shape"  # a shell prompt may name the board
    if ":" in text and KEY_VALUE.match(text) or ("my " in text or "our " in text) and \
            MY_PRODUCT.search(text):
        return "shape"  # "NIC: ENA with LRO", "on my Acme Foo3 board"
    return "shape" if "shape" in tags else None


def extract_hardware(body: str | None, subject: str | None = None) -> list[HardwareRow]:
    """Every hardware fact a body names, once per message, with its host and role."""
    if not body:
        return []
    head = body_head(body)
    mode = _reading(head, PREFILTER.hits(head))
    if mode is None:
        return []
    doc = Document.of(head)
    words = _line_words("\n".join(line.text for line in doc.lines))
    strong = words["strong"]
    # a strong word's paragraph is read too: a setup is described in a block of lines
    window = None if mode == "deep" else {j for i in strong for j in range(i - WINDOW,
                                                                          i + WINDOW + 1)}
    found: dict[int, list[Fact]] = {}
    ruled_lines: list[int] = []
    for i, line in enumerate(doc.lines):
        text = line.text
        if window is not None and i not in window:
            continue
        if line.in_diff or line.in_signature or len(text) > MAX_LINE or not text.strip() \
                or text[:1] in ("+", "@"):
            continue
        how = "words" if i in strong else _candidate(text, {t for t in CANDIDATE_TAGS
                                                             if i in words[t]})
        if how is None and not (i in words["weak"] and near_host_line(i, found)):
            continue
        raw, text = text, unwrapped(doc, i, text)
        # a tool's line states the setup by its shape, whatever else it holds ("Linux
        # version 6.14.0 (...) (arm-linux-gnueabihf-gcc (Debian 13.3.0-5) ...)")
        if tool := shaped(text):
            found[i] = tool
        elif NOT_SETUP.search(raw):
            continue
        elif how == "shape":
            if by_line := by_shape(text):
                found[i] = by_line
        else:
            ruled_lines.append(i)
    for i, facts in zip(ruled_lines, _line_facts([doc.text(i) for i in ruled_lines]),
                        strict=True):
        if facts and prompt(doc.text(i)):
            # a command's arguments name no OS ("$ git remote -v show openwrt"); its
            # "modprobe ixgbe" is the machine's NIC
            facts = tuple(f for f in facts if f.kind != "os")
        if facts:
            found[i] = list(facts)
    return _dedupe(rows_of(found, doc, subject))


LINE_FACTS: TextCache[tuple[Fact, ...]] = TextCache(20_000)  # line text -> its facts


def _line_facts(texts: list[str]) -> list[tuple[Fact, ...]]:
    """The facts the span ruler and the gazetteer find in each line (a line read before in this
    process, quoted in a reply or a robot's boilerplate, is not read again)."""
    return LINE_FACTS.get(texts, _read_lines)


def _read_lines(texts: list[str]) -> Iterator[tuple[Fact, ...]]:
    """The facts of each line: the entities spaCy's hardware pipeline finds, and the
    models and shapes the gazetteer and the line's shape give."""
    for text, entities in zip(texts, hardware_entities(texts), strict=True):
        facts: list[Fact] = [Fact(label, span, value(label, span), None, False)
                             for label, span in entities if label not in ("nic", "wifi")
                             or not SPEED_WORD.match(span.lower())]
        spans = " ".join(f.text.lower() for f in facts)
        facts += [f for f in bare_models(text) + by_shape(text) if f.text.lower() not in spans]
        yield tuple(without_nic_speeds(facts, text))


def _dedupe(rows: list[HardwareRow]) -> list[HardwareRow]:
    """One row per fact, host and quoting, and how often it was named (a debug log naming
    ``i40e`` on every line is one fact); setup wins over subject, and the row shows the
    first line that made it a setup (else the first line it was named on)."""
    first: dict[tuple[Any, ...], HardwareRow] = {}
    counts: dict[tuple[Any, ...], int] = {}
    setup: set[tuple[Any, ...]] = set()
    for r in rows:
        key = (r.kind, (r.value or r.text).lower(), r.host, r.quoted)
        first.setdefault(key, r)
        counts[key] = counts.get(key, 0) + 1
        if r.role == "setup" and key not in setup:
            setup.add(key)
            first[key] = r
    return [HardwareRow(r.host, r.kind, r.text, r.value, r.line_no, r.quoted, r.quote_depth,
                        r.line, "setup" if k in setup else "subject", counts[k],
                        None if k in setup else r.rule)
            for k, r in first.items()]
