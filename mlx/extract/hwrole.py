"""The role of a hardware fact: ``setup`` where the message says something ran or was
measured on it, ``subject`` where it is what a patch is about or merely named.

A fact is a setup if its line's shape says so (lscpu, lspci, uname, a robot's "test
machine:"), or if a cue stands by it (a host prefix, a boot log, "Tested on", a "Test
setup:" heading, a measured value near) and no rule of ``ROLE_RULES`` turns it down;
the name of the rule that did is the row's ``rule``.  ``FACT_RULES`` drop what is no fact
at all ("Hardware name: QEMU Ubuntu 24.04 PC" names no OS)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from mlx.extract.document import Document, Line
from mlx.extract.hwcues import (
    APPLY_FOR,
    AS_PRODUCT,
    BUILD_MATRIX,
    BUILD_REPORT,
    BUILD_WORD,
    BUILDS_ON,
    BUILT_AFTER,
    BUILT_FOR,
    DEVICE_SUPPORT,
    DEVICE_TITLE,
    KERNEL_LOG,
    LINK_RATE,
    LSUSB,
    MEASURED,
    NEAR_LINES,
    NEGATED,
    NOT_AN_OS,
    NOT_SETUP,
    OPENWRT_TARGETS,
    PLANNED,
    PRODUCT_STRING,
    PROJECT_AFTER,
    PROSE,
    SENTENCE_END,
    SETUP_CUE,
    SETUP_HEAD,
    SOC_CHIP,
    SOC_LABEL,
    SOFTWARE_AFTER,
    SPEC_FIELD,
    SPEC_HEAD,
    STACK_LINE,
    SUGGESTED,
    TARGET_AS_HARDWARE,
    TESTED_ON,
)
from mlx.extract.hwhosts import TITLE_LINE, line_host, machine
from mlx.extract.hwshapes import DMESG, MAX_LINE, Fact, prompt, unwrapped
from mlx.extract.hwvocab import FIELDS, MAKERS
from mlx.extract.rules import Rule, rejected_by
from mlx.rows import HardwareRow
from mlx.subjects import parse_subject


def _cue_said(s: _Spot) -> bool:
    """Does the fact's own sentence say something ran on it ("running OpenWrt 23.05",
    "tested on OpenWrt")?"""
    return RAN_ON.search(_sentence(s.text, s.span)) is not None


# what says a machine ran the fact named in the sentence
RAN_ON = re.compile(r"(?i)\b(?:tested|verified|reproduced|running|runs|ran|booted|installed|"
                    r"measured|benchmarked)\b|\bon my\b|\bI (?:see|saw|get|got|use)\b")


def _sentence(text: str, span: str) -> str:
    """The sentence of a line that holds ``span`` (the whole line if it is not there)."""
    at = text.find(span)
    if at < 0:
        return text
    start = max((m.end() for m in SENTENCE_END.finditer(text, 0, at)), default=0)
    end = SENTENCE_END.search(text, at + len(span))
    return text[start:end.end() if end else len(text)]


def _wrapped_sentence(s: _Spot) -> str:
    """The fact's sentence, run on over the lines the mail client wrapped it to ("are you
    running on the veth device in your benchmarks, and how have you" / "configured the
    RPS?"), up to three lines at its quoting depth."""
    sent = _sentence(s.text, s.span)
    doc, i = s.at.doc, s.at.i
    for j in range(i + 1, min(len(doc), i + 4)):
        if SENTENCE_END.search(sent, sent.find(s.span) + len(s.span)) or \
                doc.depth(j) != doc.depth(i) or not doc.text(j).strip()[:1].islower():
            break  # (a line that starts a sentence or an item of its own is none of it)
        sent = sent.rstrip() + " " + doc.text(j).strip()
    end = SENTENCE_END.search(sent, sent.find(s.span) + len(s.span))
    return sent[:end.end()] if end else sent


@dataclass
class _Subject:
    """The message's subject (and what its body says it is), as the rules read it."""

    low: str
    patch: bool  # a patch, not a reply
    device_patch: bool  # a patch adding a device or board ("ramips: add support for Foo")
    build_report: bool = False  # a robot's build report: what it built, nothing ran

    @classmethod
    def of(cls, subject: str | None, doc: Document | None = None) -> _Subject:
        low = (subject or "").lower()
        build = BUILD_REPORT.search(subject or "") is not None or (
            doc is not None and any(BUILD_MATRIX.search(line.text) for line in doc.lines
                                    if "config" in line.text))
        # "[PATCH v2 1/3] ...", "[net-next 0/3] ...": a posting of a patch, not a reply
        parsed = parse_subject(subject)
        return cls(low, parsed.kind == "patch" and not parsed.is_reply,
                   parsed.kind == "patch" and DEVICE_SUPPORT.search(parsed.title.lower())
                   is not None, build)


class _Line:
    """A line that names facts, and what the rules read around it (each read once)."""

    def __init__(self, doc: Document, i: int, found: dict[int, list[Fact]],
                 subject: _Subject, measured: dict[int, bool]) -> None:
        self.doc, self.i, self.subject, self._measured = doc, i, subject, measured
        self.line: Line = doc.lines[i]
        self.text = self.line.text
        self.host = line_host(i, doc, found)
        self.host_line = self.host is not None and ("," in self.text or len(found[i]) > 1)

    @cached_property
    def spec(self) -> bool:
        """A patch title's line, a spec sheet's line: the device a patch is about."""
        title = TITLE_LINE.match(self.text)
        return (title is not None and title.group(1).lower() not in FIELDS) or self.spec_sheet

    @cached_property
    def spec_sheet(self) -> bool:
        """A line of the spec sheet of a device a patch adds."""
        return _under_spec(self.doc, self.i) or \
            ((self.subject.device_patch or _under_heading(self.doc, self.i, DEVICE_TITLE))
             and _spec_field(self.doc, self.i))

    @cached_property
    def headed(self) -> bool:
        return not self.spec and _under_heading(self.doc, self.i, SETUP_HEAD)

    @cached_property
    def cue(self) -> bool:
        return self.shown or (not self.spec and _cue_near(self.doc, self.i))

    @cached_property
    def shown(self) -> bool:
        """A line that shows a machine by its place, no word: a host's prefix, a boot log, a
        setup heading over it, a command's output."""
        return self.host is not None or DMESG.match(self.text) is not None or self.headed or \
            KERNEL_LOG.search(self.text) is not None or _under_prompt(self.doc, self.i)

    @cached_property
    def near(self) -> bool:
        """A measured value within NEAR_LINES lines at the same quoting depth."""
        doc, depth = self.doc, self.line.depth
        return not self.spec and any(
            doc.depth(j) == depth and self._is_measured(j)
            for j in range(max(0, self.i - NEAR_LINES), min(len(doc), self.i + NEAR_LINES + 1)))

    def _is_measured(self, j: int) -> bool:
        # (a speed wrapped before its "links" is a link's: "both 1000Mbps and 100Mbps" /
        # "links without issue"; a device patch's spec field states no measurement)
        if j not in self._measured:
            text = unwrapped(self.doc, j, self.doc.text(j))
            self._measured[j] = MEASURED.search(text) is not None and \
                LINK_RATE.search(text) is None and \
                not (self.subject.device_patch and _spec_field(self.doc, j))
        return self._measured[j]

    @cached_property
    def lsusb(self) -> bool:
        """An adapter lsusb lists (its line may be wrapped), not the hubs beside it."""
        doc, i = self.doc, self.i
        return LSUSB.match(self.text) is not None or (
            i > 0 and len(doc.text(i - 1)) >= 68 and LSUSB.match(doc.text(i - 1)) is not None
            and PROSE.search(self.text) is None)

    @cached_property
    def not_os(self) -> str:
        m = NOT_AN_OS.search(self.text)
        return m.group(0).lower() if m else ""

    @cached_property
    def built_for(self) -> bool:
        """"compile-tested on top of next-20230315 for" / "i386, x86_64, arm64": built for."""
        doc, i = self.doc, self.i
        return i > 0 and doc.depth(i - 1) == self.line.depth and \
            BUILT_FOR.search(doc.text(i - 1)[-MAX_LINE:]) is not None


@dataclass(frozen=True)
class _Spot:
    """One fact on its line."""

    at: _Line
    kind: str
    span: str

    @property
    def text(self) -> str:
        return self.at.text


def _no_cue(s: _Spot) -> bool:
    return not (s.at.cue or s.at.near or (s.at.lsusb and s.kind in ("wifi", "nic")))


def _patch_subject(s: _Spot) -> bool:
    """The chip the patch is about, named in its title (in a question's subject, "ixgbe
    zero-copy performance", it is the asker's hardware)."""
    sub = s.at.subject
    # (the tree a "Kernel:" field of a setup names is the one it ran, though the subject
    # names it as where the patch goes: "[PATCH net-next]")
    if s.kind == "kernel" and (s.at.headed or KERNEL_FIELD.match(s.text)):
        return False
    return s.at.host is None and "patch" in sub.low and _in_subject(s.span, sub.low) and \
        (sub.patch or not (s.at.headed or SETUP_CUE.search(s.text))) and \
        not _tested_on(s.span, s.text)


# "This series enables auto negotiation for the mv88q2110 device": a patch's summary of
# what it does names the device it is about (not "This patch was tested on an I350")
PATCH_DOES = re.compile(r"(?i)^[ \t]*(?:this|the|these) (?:series|patch(?:es|set)?|commit|"
                        r"change)s? (?:\w+ly )?(?:adds?|enables?|fix(?:es)?|implements?|"
                        r"introduces?|converts?|removes?|supports?|allows?|makes?)\b")


KERNEL_FIELD = re.compile(r"(?i)^[ \t]*(?:[-*][ \t]+)?kernel(?: version)?[ \t]*:")

# "Patch 1/3 and 2/3 are preparation patches ...": a cover letter's account of its parts
PATCH_PART = re.compile(r"(?i)\bpatch(?:es)?[ \t]+\d{1,3}/\d{1,3}\b")


def _patch_summary(s: _Spot) -> bool:
    """The device a patch's own summary names, or a paragraph of its cover letter that
    says what its parts do (in a patch, not a reply)."""
    return s.at.subject.patch and s.at.host is None and not _tested_on(s.span, s.text) and (
        PATCH_DOES.search(_sentence(s.text, s.span)) is not None or
        any(PATCH_PART.search(text) for text in _paragraph(s.at.doc, s.at.i)))


def _paragraph(doc: Document, i: int) -> Iterator[str]:
    """The lines of the paragraph a line stands in (at its quoting depth)."""
    depth = doc.depth(i)
    for step in (-1, 1):
        j = i if step < 0 else i + 1
        while 0 <= j < len(doc) and doc.depth(j) == depth and doc.text(j).strip():
            yield doc.text(j)
            j += step


# "The RZ/V2M's firmware runs on one of its Cortex-A53 cores", "Buffalo LS421DE is a NAS
# based on Marvell Armada 370": a device-adding patch describes the device, unless a line
# shows it running (a boot log) or says a test ran on it
DESCRIBED: Rule[_Spot] = Rule(
    "described in a patch adding it", lambda s: s.at.subject.patch and
    s.at.subject.device_patch and not (s.at.shown or s.at.near or _tested_above(s)),
    "The I226-V's firmware runs on its own Cortex-M0 core.")

# (a spec field's name reads as a host's, "GBE: RTL8211F": the sheet still lists a device)
SPEC_SHEET: Rule[_Spot] = Rule("a spec sheet's line", lambda s: s.at.spec_sheet,
                               "igc: add Acme RX-300\n\nGBE: Intel I226-V")

# In order: the first rule that turns a fact down names why it is no setup (``rule``).
# Each example is a line the rule turns down (``tests/test_extract_hardware.py``, with
# the subject "[PATCH] igc: add the I226-V").
ROLE_RULES: tuple[Rule[_Spot], ...] = (
    Rule("no setup cue", _no_cue, "The I350 has four ports."),
    SPEC_SHEET,
    Rule("named in the patch's subject", _patch_subject,
         "Throughput with the I226-V: 940 Mbits/sec"),
    DESCRIBED,
    Rule("named in the patch's summary", _patch_summary,
         "This patch enables EEE for the I350, measured at 940 Mbits/sec."),
    Rule("release the patch goes to", lambda s: s.kind == "kernel" and re.search(
        APPLY_FOR + re.escape(s.span), s.text) is not None,
         "Tested on my box, I will apply this for Linux 6.18-rc1"),
    Rule("OS as a project or a build", lambda s: s.kind == "os" and _os_not_run(s.span, s.text),
         "Our test results are in the OpenWrt documentation."),
    Rule("build target, not a machine", lambda s: s.span.lower() in OPENWRT_TARGETS
         and not _target_ran(s.span, s.text), "Tested: a build test on ramips"),
    Rule("test planned, offered or denied", lambda s: PLANNED.search(s.text) is not None,
         "I would like to test a QCA9377 on my box"),
    Rule("the project, no release", lambda s: s.kind == "os"
         and s.span.lower() in ("openwrt", "lede") and not _cue_said(s),
         "See the OpenWrt ML for details; 940 Mbits/sec here."),
    Rule("build report", lambda s: s.at.subject.build_report,
         "configs tested: 150, built on an Intel Xeon E5-2690 host"),
    Rule("suggestion or question", lambda s: (sent := _wrapped_sentence(s)).rstrip()
         .endswith("?") or SUGGESTED.search(sent) is not None,
         "Tested on 6.1; could you try the latest stable, 6.6.12?"),
    Rule("support the change adds", lambda s: re.search(
        rf"(?i)\badd(?:s|ed|ing)?\b[^.;]{{0,30}}{re.escape(s.span)}\b[^.;]{{0,15}}\bsupport\b",
        s.text) is not None, "Added i40e support for zero-copy Rx, for testing."),
    Rule("negated", lambda s: NEGATED.search(s.text[:max(0, s.text.find(s.span))]) is not None,
         "I was testing on an i.MX8MP EVK, not a BeagleBone Black."),
    Rule("only built", lambda s: s.at.built_for,
         "compile-tested on top of next-20230315 for\nx86_64 and arm64"),
    Rule("software named after a chip", lambda s: s.kind in ("wifi", "nic") and re.search(
        re.escape(s.span) + SOFTWARE_AFTER, s.text) is not None,
         "Tested with the QCA9984 firmware 10.4-3.9"),
)
# a tool's line is a setup by its shape, but for the device a patch adds an ID or support
# for (lspci shown to say which card it is)
SHAPED_RULES: tuple[Rule[_Spot], ...] = (
    SPEC_SHEET,
    Rule("the device the patch adds", lambda s: s.at.subject.patch and
         s.at.subject.device_patch and _in_subject(s.span, s.at.subject.low),
         "02:00.0 Network controller [0280]: Intel Corporation I226-V"),
    DESCRIBED,
)
# what is no fact at all: the line names something else
FACT_RULES: tuple[Rule[_Spot], ...] = (
    Rule("DMI or syslog string", lambda s: s.kind == "os" and bool(s.at.not_os)
         and s.span.lower() in s.at.not_os, "Hardware name: QEMU Ubuntu 24.04 PC"),
    Rule("speed in a product's name", lambda s: s.kind == "link"
         and PRODUCT_STRING.search(s.text) is not None,
         "Ethernet Connection X722 for 10GbE SFP+"),
    Rule("size alone", lambda s: s.kind == "size" and not s.at.host_line,
         "a 512 MB buffer"),
    Rule("stack trace line", lambda s: STACK_LINE.search(s.text) is not None,
         "RIP: 0010:ixgbe_clean_rx_irq+0x1a2/0xd40 [ixgbe]"),
    Rule("kernel in a DMI string", lambda s: s.kind == "kernel" and "Hardware name:" in s.text,
         "Hardware name: Acme Box/Board, BIOS 5.27-rc1 01/02/2023"),
    Rule("a maker alone", lambda s: s.kind == "board" and s.span.lower() in MAKERS,
         "We had several MikroTik devices working."),
    Rule("zero size", lambda s: s.kind in ("size", "memory") and re.match(r"0+[ \t]?[KMGT]",
                                                                        s.span) is not None,
         "lose cover RAM: 0G"),
)


def rows_of(found: dict[int, list[Fact]], doc: Document, subject: str | None) -> list[HardwareRow]:
    """A row per fact of each line, with its host and its role (and the rule that made it
    no setup)."""
    out: list[HardwareRow] = []
    measured: dict[int, bool] = {}  # line -> holds a measured value (tested where needed)
    sub = _Subject.of(subject, doc)
    for i in sorted(found):
        at = _Line(doc, i, found, sub, measured)
        for kind, span, value, own_host, shaped in found[i]:
            if kind in ("wifi", "nic", "board") and (
                    SOC_LABEL.search(at.text[:max(0, at.text.find(span))])
                    or (kind != "board" and SOC_CHIP.search(span))):
                kind = "cpu"  # "SoC: Qualcomm Atheros QCA956X", "SoC Type: MediaTek MT7688"
            spot = _Spot(at, kind, span)
            if rejected_by(FACT_RULES, spot) is not None:
                continue
            rule = rejected_by(SHAPED_RULES if shaped else ROLE_RULES, spot)
            out.append(HardwareRow(own_host or machine(at.host),
                                   "memory" if kind == "size" else kind, span, value, i + 1,
                                   at.line.depth > 0, at.line.depth, at.text.strip()[:500],
                                   "subject" if rule else "setup", rule=rule))
    return out


def _built_only(span: str, text: str) -> bool:
    """Is the target named as what was built ("build test (on ramips)", "a self-compiled
    SDK for ath79", "the ar71xx files"), not as what ran?"""
    at = re.escape(span)
    return re.search(rf"(?i){BUILD_WORD}[^.;]{{0,60}}{at}|{at}{BUILT_AFTER}", text) is not None


def _os_not_run(span: str, text: str) -> bool:
    """Is the OS named as what was built ("I can't build OpenWrt anymore"), a project
    ("OpenWrt documentation"), a build platform ("builds cleanly on Debian bookworm") or a
    product ("RHEL won't make updates", "In Debian bullseye we have 0.9.8"), not as what a
    machine ran?"""
    at = re.escape(span)
    return (span.lower().startswith(("openwrt", "lede")) and _built_only(span, text)) or \
        re.search(rf"(?i){at}(?:{PROJECT_AFTER}|{AS_PRODUCT})|{BUILDS_ON}{at}|"
                  rf"\bin {at}\b[^.;]{{0,20}}\bwe (?:have|ship)\b", text) is not None


def _target_ran(span: str, text: str) -> bool:
    """Does the line say something ran on this OpenWrt target ("tested on ath79", "on my
    C7v2 (ar71xx)", "an IPQ40xx device", "running ath79"), not only name it in a review
    ("we use this property elsewhere in ath79") or a build?"""
    at = re.escape(span)
    return not _built_only(span, text) and (_tested_on(span, text) or re.search(
        rf"(?i)\bon (?:my|our|an?|both|two) [^.;]{{0,40}}?{at}|\b(?:with|using) (?:my|our) "
        rf"[^.;]{{0,40}}?{at}|\ban? {at}"
        rf"{TARGET_AS_HARDWARE}|\brunning (?:on )?{at}\b|\b(?:checked|tried|reproduced|"
        rf"confirmed|observed)\b[^.;]{{0,30}}?\b(?:on|with) {at}\b|"
        rf"^[ \t]*(?:test )?(?:platform|device|router|board|hardware|setup|dut)s?[ \t]*:",
        text) is not None)


def _tested_on(span: str, text: str) -> bool:
    """Does the line say a test ran on this fact ("tested on the RZ/V2N EVK")?"""
    m = TESTED_ON.search(text)
    return m is not None and text.find(span, m.end()) >= 0


def _tested_above(s: _Spot) -> bool:
    """Does the fact's line, or its paragraph's lines just above, say a test ran on it
    ("tested on RZ/G3E SMARC EVK, Ebisu-4D (R-Car E3)" / "and White Hawk (R-Car V4H).")?"""
    doc, i = s.at.doc, s.at.i
    if _tested_on(s.span, s.text):
        return True
    for j in range(i - 1, max(-1, i - 4), -1):
        if doc.depth(j) != doc.depth(i) or not doc.text(j).strip():
            return False
        if TESTED_ON.search(doc.text(j)):
            return True
    return False


def _in_subject(span: str, subject_low: str) -> bool:
    """Does the subject name this fact (its model number, or all of it)?"""
    if not subject_low:
        return False
    models = [w for w in span.lower().split() if any(c.isdigit() for c in w) and len(w) > 2]
    return any(m in subject_low for m in models) if models else span.lower() in subject_low


def _spec_field(doc: Document, i: int) -> bool:
    """Is the line a field of a spec sheet ("WiFi:\t- 2.4GHz MT7615N"), or indented under
    one ("\t- 5GHz MediaTek MT7615N nac")?"""
    while SPEC_FIELD.match(doc.text(i)) is None:
        if doc.text(i)[:1] not in (" ", "\t") or i == 0 or not doc.text(i - 1).strip():
            return False
        i -= 1
    return True


def _under_prompt(doc: Document, i: int) -> bool:
    """Is the line a command's output, under its shell prompt ("root@router:/# cat
    /proc/cpuinfo") in the same block: the machine the command ran on?"""
    depth = doc.depth(i)
    for j in range(i - 1, max(-1, i - 40), -1):
        if doc.depth(j) != depth or not doc.text(j).strip():
            return False
        if prompt(doc.text(j)):
            return True
    return False


def _under_spec(doc: Document, i: int) -> bool:
    """Is the line in the paragraph under a "Specifications:" heading?"""
    return _under_heading(doc, i, SPEC_HEAD)


def _under_heading(doc: Document, i: int, heading: re.Pattern[str]) -> bool:
    """Is the line in the paragraph under a heading line ("Specifications:", "Test
    setup:"), or in the paragraph that follows it after one blank line?"""
    blank = False
    for j in range(i - 1, max(-1, i - 30), -1):
        text = doc.text(j)
        if not text.strip():
            if blank:
                return False
            blank = True  # "Specifications:", a blank line, then the list
            continue
        if heading.match(text):
            return True
        if blank:
            return False
    return False


def _cue_near(doc: Document, i: int) -> bool:
    """Does the line, or a line of its paragraph just above it (at its quoting depth), say
    it describes a setup?"""
    for j in range(i, max(-1, i - 4), -1):
        text = doc.text(j)
        if j < i and (not text.strip() or doc.depth(j) != doc.depth(i)):
            return False
        # (the next line's first word read too: "based on my" / "experience" is no cue)
        after = doc.text(j + 1).split()[:1] if j + 1 < len(doc) and \
            doc.depth(j + 1) == doc.depth(j) else []
        cue = SETUP_CUE.search(" ".join([text.rstrip(), *after]))
        if cue and cue.start() < len(text) and not NOT_SETUP.search(text):
            return True
    return False
