"""Is a value in prose a measurement? The words around it decide, by named rules.

A value in a paragraph (``Paragraph``: lines joined, soft wraps by a blank) is read with
its line, its clause and the words right before and after it (``Spot``); ``RULES`` is the
ordered table of what makes it none: a link speed or a port's capacity, a configured rate,
a timeout, a target or expected value, a spread, a delta, a literal, an arithmetic step.
``why_not`` names the first rule that fires."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

from mlx.extract.rules import Rule, rejected_by
from mlx.extract.vocab import LATENCY_CUES

# capacities, configuration and ports: no measurement on these lines
NOT_MEASURED = re.compile(r"(?i)link is up|link up|\bspeed\b|\bduplex\b|/full\b|/half\b|"
                          r"exit latency|working with|negotiat|\bsupport(?:s|ed)?\b|\bcapable\b|"
                          r"advertis|\brated\b|window size|\bmss\b|\bport\b|\bmtu\b|\btimeout\b|"
                          r"\binterval\b|\bsleep\b|\bdelay[s]? of\b|\blimit\b|"
                          r"\bmax(?:imum)? rate\b|^[ \t]*(?:NIC|Link|Port|Interface|Card|Adapter|"
                          r"Disks?|Storage)s?[ \t]*:|"
                          # lspci -vv capabilities, iw's station and scan dumps: settings
                          r"\b(?:LnkCap|LnkCtl|DevCap|DevCtl|L1SubCap|L1SubCtl|LTR|ASPM|"
                          r"T_PwrOn|PortTPowerOnTime|PortCommonModeRestoreTime|snoop)|"
                          r"\b[rt]x bitrate\b|\bMCS\b|\bCCK\b|\bOFDM\b|\bshort GI\b|\bago\b|"
                          r"\bmax(?:imum)? frame rate\b|\buplink\b|\bwill suffice\b|"
                          # lsusb -t, a USB port's speed
                          r"\bBus \d{2,3}\b|\bDriver=|\bPort \d{1,3}: Dev|\bAlloc=|max_idle|"
                          r"\b[rt]x duration\b|\bERR:|"
                          # dd, git and wget print a transfer's rate: no benchmark
                          r"\bcopied,|Receiving objects|Resolving deltas|Writing objects|"
                          r"saved \[|\bETA\b|\bset [\w -]{0,20}\bto\b")
# "/* from 1Mbps to 100Kbps */", "rate = rate * 10;", "if (speed == 1000)": code in prose
CODE = re.compile(r"^[ \t+]*(?:/\*|//)|^[ \t]*\+[ \t]*\*|[=(][^;]{0,200};[ \t]*(?:/\*.*)?$|"
                  r"\b(?:if|for|while|return)[ \t]*\(|\*/[ \t]*$|[{}][ \t]*$")
# what a clause around a value says it is not: a target, a setting, an offered load
NOT_A_RESULT = re.compile(r"(?i)\b(?:target|expect(?:ed|s)?|theoretical(?:ly)?|line[ -]rate|"
                          r"wire[ -]speed|should|would|could|might|in theory|up to|goal|"
                          r"requirement|configur(?:e|ed|ing)|set to|limit(?:ed)? to|"
                          r"cap(?:ped)? at|"
                          r"rate[ -]limit|shap(?:e|ed|ing) to|send(?:s|ing)?|offer(?:ed)?|"
                          r"generat(?:e|es|ed|ing|or)|inject(?:s|ing|ed)?|blast(?:ing)?|push(?:ing)?|"
                          r"transmit(?:s|ting)? at|sent (?:out )?at|clocksource|max_idle|"
                          r"data ?rates?|div(?:ided by)?|you'll|you will|(?:i|we) will|i'll|we'll|"
                          r"end up|"
                          r"std\.? ?dev\.?|stdev|stddev|deviation|standard error|delta|diff|"
                          # a bus's bit rate and a poll period are settings: CAN's "data
                          # bitrate 2 Mbit/s", "at a data bit rate of 5 Mbit/s", a UART's baud
                          r"(?:data |nominal |arbitration )?bit[ -]?rates?|baud(?:rate)?|"
                          r"can[ -]?fd|polling (?:interval|period)|poll(?:ing)? every|"
                          r"aneg|auto-?neg\w*|thresholds?|"
                          # "tested at speeds up to 5 Mbit/s", "test beyond 10Gb/s": the range
                          # a test covered, a setting
                          r"test(?:s|ed|ing)?[ \t]+(?:at|beyond|up[ \t]+to|with[ \t]+speeds?))\b|"
                          r"\?[ \t]*$")
# "0.5 to 1 Mpps more", "200 Mbps faster": a difference, not a value
DELTA_AFTER = re.compile(r"[ \t]+or[ \t]+(?:slower|faster|less|more|higher|lower|above|"
                         r"below)\b|"
                         r"[ \t]{1,2}(?:more|less|higher|lower|faster|slower|better|worse|extra|"
                         r"gain|drop|increase|decrease|improvement|regression|above|below)\b|"
                         # "40 Gbps is 40.10^9 bits per second": a definition, arithmetic
                         r"[ \t]+is[ \t]+~?\d")
# fields of device dumps, whatever stands before their colon: iw's "rx bitrate:" and "rx
# duration:", lspci's "Max no snoop latency: 0ns", lsusb's "Port 1: 0000.0200 5Gbps power",
# the clocksource's "max_idle_ns: 4932285024 ns"
DUMP_FIELD = re.compile(r"(?i)\b[rt]x (?:bitrate|duration)[ \t]*:|\bsnoop latency\b|max_idle_ns|"
                        r"^[ \t]*Port \d{1,3}:[ \t]+[0-9a-f]{4}\.[0-9a-f]{4}\b|"
                        r"\bcan operate at\b|\bSuperSpeed[ \t]*\(|\bBit Rate[=:]|"
                        # top's and qperf's CPU split: "%Cpu(s):  1.8 us, 54.6 sy, 0.0 ni"
                        r"\bus,[ \t]+\d{1,3}(?:\.\d{1,3})?[ \t]?sy\b|"
                        # lsusb -v's BOS descriptor: "Speed Attribute ID: 1 10Gb/s Symmetric RX"
                        r"\bSpeed Attribute ID:|\bSublink Speed|"
                        # U-Boot loading a file: "7485448 bytes read in 330 ms (21.6 MiB/s)"
                        r"\bbytes (?:read|written) in \d+ ms\b|\bBytes transferred = |"
                        # a tc command sets a rate: "tc class add ... htb rate 100kbps"
                        r"\btc[ \t]+(?:qdisc|class|filter)[ \t]+(?:add|change|replace)\b|"
                        # btmon decodes a field with its raw value: "Window: 11.250 msec (0x0012)"
                        r"\d[ \t]?m?sec[ \t]+\(0x[0-9a-fA-F]{1,8}\)")
# "..., so somewhere around 15Mpps": a clause that follows from the one before it
CONSEQUENCE = re.compile(r"(?i)[ \t]*(?:so|i\.e\.|which is|that is|thus|hence)\b")
# "16% at 455kpps": the rate a loss was seen at is the offered load
AT_RATE = re.compile(r"\d[ \t]?%[ \t]+at[ \t]+~?$|(?i:\btransmits[ \t]+(?:about[ \t]+|~)?$)")
# "when pps is below 400pps", "links exceeding 34 Gbps": a threshold, not a value ("not able
# to exceed 31 Mpps", "higher than ~31 Mpps", "from at least 10MB/s" are what was seen)
THRESHOLD_BEFORE = re.compile(r"(?i)(?:\b(?:below|above|under|exceed(?:s|ing)|less than|at most)"
                              r"|>=|<=|≥|≤)[ \t\n]*[~≈]?$")
# "- s3 -> 100 Kbit/s", "mode 2 => 1 Mbit/s": an option mapped to the rate it sets
MAPPED_TO = re.compile(r"(?:^|[ \t(])-?[A-Za-z][\w-]{0,20}[ \t]*(?:->|=>|→)[ \t]*~?$|"
                       # "-s8 to 1Mbit/s": an option and what it sets
                       r"(?:^|[ \t(])-[A-Za-z][\w-]{0,20}[ \t]+(?:to|=)[ \t\n]*$|"
                       # "running at 1.2Gbps", "behaviour at 500 kbit/s": the rate a thing is
                       # set to run at
                       r"(?i:\b(?:operat\w+|behaviou?r|clocked|working|works|"
                       r"configured|set|tested|testing)[ \t]+at)[ \t]*~?$|"
                       # "default 115200 bps", "defaults to 500 kbit/s": a setting's default
                       r"(?i:\bdefaults?(?:[ \t]+(?:to|of|is|=))?)[ \t]*$")
# "100Gbps NIC", "a 10 Gbps link", "25G port": the hardware a value describes
CAPACITY_AFTER = re.compile(r"\+|[ \t]?(?:(?:full[ -]duplex|ethernet)[ \t])?(?i:speeds?|aneg|"
                            r"link|nic|"
                            r"port|interface|card|adapter|ethernet|phy|capable|mode|connection|"
                            r"switch|uplink|capacity|line|plan|interconnect|fiber|fibre|"
                            r"network|available|capable|max|limit|lanes?|radio|band|channel|"
                            r"chain|ether|wan|lan)s?\b")
# "a 600 Mbps 2x2 MIMO radio", "1733Mbps 802.11ac card": the same, its specs in between;
# "a 600 Mbps and an 1733 Mbps radio": the first of two
CAPACITY_SPECS = re.compile(
    r"(?i)(?:(?:[ \t]+(?:\d\S*|mimo|dual[- ]band|tri[- ]band|802\.11\w*|wi-?fi|wireless)){1,2}"
    r"(?=[ \t]+(?:radios?|cards?|adapters?|nics?|modules?|chips?)\b)|"
    r"[ \t\n]+(?:and|or)[ \t\n]+(?:an?[ \t\n]+)?~?\d[\d.,]*[ \t]?[kmg]?(?:bps|bits?/s(?:ec)?|bit/s)"
    r"(?:[ \t]+\S+)?)[ \t]+(?:radios?|cards?|adapters?|nics?|modules?|chips?|ports?|links?)\b")
# "10Gb/s Intel ixgbe NICs", "25G Mellanox ConnectX cards": a capacity, a maker and a model
# in between (not "9.4 Gbps on both NICs": what ran over them)
CAPACITY_NAMED = re.compile(r"(?i)(?:[ \t]+(?!(?:on|with|over|using|through|between|across|via|"
                            r"per|from|to|for|in|at|both|the|my|our|all|each|two|and|or)\b)"
                            r"[A-Za-z][\w-]*){1,2}[ \t]+(?:nics?|cards?|adapters?|interfaces?)\b")
# "SAS 6Gbps", "USB 3.0 5Gbps", "PCIe Gen3", "DDR4 3200": a bus or an interface spec
CAPACITY_BEFORE = re.compile(r"(?i)(?:\bSAS|\bSATA|\bUSB[ \t]?\d(?:\.\d)?|\bPCIe(?:[ \t]?Gen\d)?|"
                             r"\bHDMI|\bThunderbolt|\bDDR\d|\bx\d{1,2}|\blink(?:ed)? at|"
                             r"\bnegotiated|\bbaud|\bsync(?:ed)? at|\bmax(?:imum)?|\bup to|"
                             r"\b(?:max(?:imum)?|available|total|link)[ \t]+bandwidth|"
                             r"\b\d{1,2}[ \t]?x|\bport(?:s)?|\bfull|\bnominal|\bcapable of|"
                             r"\bthe|\bconnected at|@|\bACL)"
                             r"[ \t]*[:@~]?[ \t]*~?$")
# "[    1.270442] usb usb1-port3: ... 12 Mb/s", "kern :debug : [ 370.212505] thunderbolt ...
# link maximum bandwidth 36000/36000 Mb/s": the timestamp of a kernel log line
KERNEL_LOG = re.compile(r"\[[ \t]*\d{1,8}\.\d{3,9}\]")
# "Speed: 1000Mb/s", "Link speed: 10 Gbps", "Max bandwidth:" - a field naming a capacity
CAPACITY_FIELD = re.compile(r"(?i)(?:^|[\t ])(?:(?:link|port|max(?:imum)?|nominal|bus|phy)[ \t]+)?"
                            r"(?:speed|bandwidth|bitrate|baud(?:rate)?|capacity)[ \t]*:[ \t]*$")
# "1/(84*8)*40*10^9 =": arithmetic in front of a value makes it computed, not measured
COMPUTED = re.compile(r"[\d)][ \t]*[*/^][ \t]*[\d(]")
# a time that is a setting or a duration, not a latency: "timeout: 10 ms", "took: 3 s"
NOT_A_TIME = re.compile(r"(?i)timeout|interval|delay|sleep|period|duration|\btime\b|elapsed|"
                        r"took|wait|budget|deadline|boot|probe|poll|usecs?\b")
# "± 1.2 Gbps", "+- 3%", "std. dev. 1.09 kpps": a spread, not a value
SPREAD_BEFORE = re.compile(r"(?i)(?:±|\+-|\+/-|std\.?[ \t]?dev\.?|stdev|stddev|\bsd)[ \t]*[:=]?"
                           r"[ \t]*$")
LATENCY_UNITS = {"us", "ms", "ns", "µs", "μs", "usec", "usecs", "msec", "msecs", "nsec", "nsecs"}
# a clause ends at these: "310Mbps without it, 450Mbps with it" is two clauses
CLAUSE_END = re.compile(r"[;,.!?](?:[ \t]|$)|\n|[ \t](?:but|while|whereas|and|vs\.?)[ \t]")
# "Before: ", "  - net-next (baseline):   ", "with patch = ": the words a value is given for
# "net-next: (baseline)   ~ 85Gbps": a note may follow the colon
# "Fastpath (with flowtable, this patchset): ~25 Gbit/s": a parenthesis may hold commas
# "6.12.0-rc2 (patched):" a kernel version; "6.12.0-rc2:  rx 4.66 Mpps": a word after the
# colon names the value within the run (``LABEL_INNER``)
LABEL_BEFORE = re.compile(r"(?<![\w.~])((?:[A-Za-z]|v?\d{1,2}\.\d{1,3}[.\w-]*)[\w .+/'#-]{0,60}?"
                          r"(?:[ \t]?\([^)]{0,60}\))?)"
                          r"[ \t]*[:=][ \t]*(\([^)]{0,30}\))?[ \t]*(?:~|≈|about |around )?[ \t]*$")
# a line starting like this starts a new item: no soft wrap joins it to the line above
ITEM_START = re.compile(r"^[ \t]*(?:[-*+\u2022][ \t]|\(?\w{1,3}[.)][ \t]|"
                        r"[A-Za-z][\w .+/()-]{0,40}:)")
CLAUSE_REACH = 160  # characters around a value read for its clause
MAX_PARAGRAPH = 8000  # a longer paragraph is no prose (a log): its head only
SOFT_WRAP = 45  # a line at least this long, not ending a sentence, wraps into the next
# ... unless it or the next is aligned in columns ("    baseline hash:       18795587pps" over
# "    set with 1000 full, ranged entries:   14358957pps"): a tool's lines, no wrapped prose
ALIGNED = re.compile(r"\S(?: {3,}|\t)\S")


def label_before(p: Paragraph, start: int) -> str | None:
    """The label a line gives its value: the words before a colon right in front of it."""
    head = p.text[max(p.hard_start(start), start - 64):start]
    m = LABEL_BEFORE.search(head)
    if m is None:
        return None
    label = m.group(1).strip(" -*") + (f" {m.group(2)}" if m.group(2) else "")
    # "Works for me.  Before": only the last sentence of the words is the label
    label = re.split(r"[.!?][ \t]+", label)[-1].strip()
    return label or None


def clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) of the clause that holds the span: between the punctuation around it
    (looked for at most ``CLAUSE_REACH`` characters away, so long paragraphs stay linear)."""
    left = max(0, start - CLAUSE_REACH)
    for m in CLAUSE_END.finditer(text, left, start):
        left = m.end()
    right = CLAUSE_END.search(text, end, end + CLAUSE_REACH)
    return left, right.start() if right else min(len(text), end + CLAUSE_REACH)


def clause(text: str, start: int, end: int) -> str:
    a, b = clause_span(text, start, end)
    return text[a:b]


@dataclass
class Paragraph:
    """Lines joined into one text: soft wraps by a blank, other line ends kept."""

    text: str
    starts: list[int]  # offset of each line in ``text``

    @classmethod
    def of(cls, lines: list[str]) -> Paragraph:
        parts: list[str] = []
        starts: list[int] = []
        pos = 0
        for k, line in enumerate(lines):
            starts.append(pos)
            parts.append(line)
            pos += len(line)
            if k + 1 < len(lines):
                soft = len(line.strip()) >= SOFT_WRAP and not line.rstrip().endswith(
                    (":", ".", "!", "?")) and not ITEM_START.match(lines[k + 1]) and \
                    not ALIGNED.search(line) and not ALIGNED.search(lines[k + 1])
                parts.append(" " if soft else "\n")
                pos += 1
        return cls("".join(parts)[:MAX_PARAGRAPH], starts)

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1

    def line_span(self, pos: int) -> tuple[int, int]:
        """The physical line holding ``pos``, as (start, end) offsets."""
        k = self.line_of(pos)
        end = self.starts[k + 1] - 1 if k + 1 < len(self.starts) else len(self.text)
        return self.starts[k], end

    def hard_start(self, pos: int) -> int:
        """Where the hard line holding ``pos`` starts (soft wraps do not end one)."""
        return self.text.rfind("\n", 0, pos) + 1


@dataclass(frozen=True)
class Spot:
    """A value found in a paragraph and the text around it, as the rules read it."""

    p: Paragraph
    start: int
    end: int
    unit: str

    @cached_property
    def text(self) -> str:
        return self.p.text

    @cached_property
    def line(self) -> str:
        a, b = self.p.line_span(self.start)
        return self.text[a:b]

    @cached_property
    def line_start(self) -> int:
        return self.p.line_span(self.start)[0]

    @cached_property
    def hard(self) -> tuple[str, str]:
        """(the hard line holding the value, the hard line above it)."""
        text, begin = self.text, self.p.hard_start(self.start)
        above = text[self.p.hard_start(begin - 1):begin] if begin else ""
        return text[begin:text.find("\n", self.start) % (len(text) + 1)], above

    @cached_property
    def colon(self) -> int:
        """Where the colon before the value stands, if it is near ("support: ~148 Gbps")."""
        at = self.text.rfind(":", self.line_start, self.start)
        return at if at >= 0 and self.start - at < 24 else -1

    def before(self, width: int) -> str:
        return self.text[max(0, self.start - width):self.start]

    @cached_property
    def clause(self) -> tuple[int, int]:
        return clause_span(self.text, self.start, self.end)

    @cached_property
    def mark(self) -> str:
        """The character right before the value (blanks skipped)."""
        return self.before(2).strip()[-1:]

    @cached_property
    def latency_said(self) -> bool:
        """A latency word in the sentence so far (it may have wrapped onto lines above)."""
        return LATENCY_CUES.search(self.text, max(0, self.start - CLAUSE_REACH),
                                   self.end) is not None


def _kernel_log(s: Spot) -> bool:
    hard, above = s.hard
    return bool(KERNEL_LOG.search(hard) or (KERNEL_LOG.search(above) and not hard[:1].isupper()))


# "8.96 Gbits/sec transfer speed", "940 Mbps download speed": a speed that was measured
MEASURED_SPEED = re.compile(r"(?i)\b(?:download|upload|transfer|average|actual|effective|"
                            r"measured|write|read|copy)[ \t/-]+speed\b")


def _not_measured(s: Spot) -> bool:
    rest = s.line[s.colon - s.line_start + 1:] if s.colon >= 0 else s.line
    return NOT_MEASURED.search(MEASURED_SPEED.sub(" ", rest)) is not None


def _unlabelled_time(s: Spot) -> bool:
    """A time with no latency word is a setting ("10 ms timeout") unless a label names it
    ("idle link: 0.210 ms")."""
    if s.unit not in LATENCY_UNITS or s.latency_said:
        return False
    label = label_before(s.p, s.start)
    return label is None or NOT_A_TIME.search(label) is not None


# In order: the name of the first rule that rejects a value is what ``why_not`` tells.
RULES: tuple[Rule[Spot], ...] = (
    Rule("table or code line", lambda s: s.line.count("|") >= 2 or bool(CODE.search(s.line)),
         "+ * 10(10kbit/s) in the table above"),
    Rule("device dump field", lambda s: bool(DUMP_FIELD.search(s.line)),
         "rx bitrate: 866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2"),
    Rule("kernel log line", _kernel_log,
         "[    1.270442] usb usb1-port3: status 0101, change 0000, 12 Mb/s"),
    Rule("capacity line", _not_measured, "eth0: link up at 1000 Mbps full duplex"),
    Rule("capacity field", lambda s: s.colon >= 0 and CAPACITY_FIELD.search(
        s.text, s.line_start, s.colon + 1) is not None, "Speed: 1000Mb/s"),
    Rule("capacity after", lambda s: bool(CAPACITY_AFTER.match(s.text, s.end) or CAPACITY_SPECS
                                          .match(s.text, s.end) or CAPACITY_NAMED.match(
                                              s.text, s.end)),
         "two machines with 10Gb/s Intel ixgbe NICs"),
    Rule("capacity before", lambda s: CAPACITY_BEFORE.search(s.before(24)) is not None,
         "operates at a serial baud rate of SAS 6Gbps"),
    Rule("spread", lambda s: SPREAD_BEFORE.search(s.before(12)) is not None,
         "std. dev. 1.09 kpps"),
    Rule("difference", lambda s: DELTA_AFTER.match(s.text, s.end) is not None,
         "the old code gets 0.5 Mpps more"),
    Rule("option mapped to a rate", lambda s: MAPPED_TO.search(
        s.text[max(s.p.hard_start(s.start), s.start - 30):s.start]) is not None,
         "- s3 -> 100 Kbit/s"),
    Rule("threshold", lambda s: bool(THRESHOLD_BEFORE.search(s.before(16))
                                     or AT_RATE.search(s.before(18))),
         "it improves a lot when pps is below 400pps"),
    Rule("no result in its clause", lambda s: NOT_A_RESULT.search(
        s.text[s.clause[0]:s.clause[1]]) is not None, "line rate is 14.88 Mpps"),
    Rule("consequence of an expectation", lambda s: s.clause[0] > 1 and CONSEQUENCE.match(
        s.text, s.clause[0]) is not None and NOT_A_RESULT.search(
        clause(s.text, s.clause[0] - 2, s.clause[0] - 1)) is not None,
         "it should be line rate for this card, so around 15Mpps"),
    Rule("a literal", lambda s: s.mark in ("'", '"', "`"), "treated as '100kbps' here"),
    Rule("bound or arithmetic", lambda s: s.mark in ("<", ">") or (
        s.mark == "=" and COMPUTED.search(s.text, max(0, s.start - 40), s.start) is not None),
         "1/(84*8)*40*10^9 = 59523810 pps"),
    Rule("time setting", lambda s: s.unit in LATENCY_UNITS and s.mark == "="
         and not s.latency_said, "T_PwrOn=10us"),
    Rule("time with no latency named", _unlabelled_time, "a 10 ms timeout here"),
)


def why_not(p: Paragraph, start: int, end: int, unit: str) -> str | None:
    """The name of the first rule that rejects the value at [start:end], None for a
    measurement."""
    return rejected_by(RULES, Spot(p, start, end, unit))


def measured(p: Paragraph, start: int, end: int, unit: str) -> bool:
    """Is the value at [start:end] a measurement, by the words around it (``RULES``)?"""
    return why_not(p, start, end, unit) is None
