"""Values people type: summary lines, ping and speedtest output, prose and pairs.

``=== 4in4 TCP_STREAM: 901.05 Mbits/sec ===`` (a test script's summary line),
``rtt min/avg/max/mdev = 0.161/0.411/1.267/0.231 ms`` (ping), ``Download: 512.33
Mbit/s`` (speedtest-cli), and in prose: ``went from 730 Mbps to 1.9 Gbps``, ``612 ->
655 Mbps``, ``82 vs 91 Mbps``, ``Before: 71/28 Mbps`` (two values), ``310Mbps without
the change``, ``3.5 Mpps``.  A pair the text itself makes (from/to, an arrow, vs)
comes out as two values sharing a ``pair`` number.

What is no measurement gives nothing: link speeds and capacities (``Link is Up -
1000 Mbps/Full``, ``100Gbps NIC``, ``SAS 6Gbps``), configured rates, timeouts and
delays, hypothetical and target values (``line rate is 14.88 Mpps``, ``should reach
10Gbps``), offered loads (``sending 11 Mpps``), standard deviations, signed deltas.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from functools import cached_property

from mlx.extract.conditions import CONDITION_WORDS, condition_of
from mlx.extract.rules import Rule, rejected_by
from mlx.extract.units import UNIT_PATTERN
from mlx.extract.vocab import LATENCY_CUES

# === 4in4 TCP_STREAM: 901.05 Mbits/sec ===
SUMMARY = re.compile(
    r"^[ \t]*={2,}[ \t]*(?:(\S{1,30})[ \t]+)?([A-Z][A-Z0-9]{1,10}_[A-Z0-9_]{1,20}):[ \t]*"
    r"(\d{1,12}(?:\.\d{1,6})?)[ \t]*([A-Za-z^0-9/]{1,20})[ \t]*={2,}[ \t]*$")
# rtt min/avg/max/mdev = 0.161/0.411/1.267/0.231 ms     round-trip min/avg/max = 1.1/2.2/3.3 ms
PING_SUMMARY = re.compile(r"(?:rtt|round-trip)[ \t]+((?:min|avg|max|mdev|stddev)(?:/(?:min|avg|"
                          r"max|mdev|stddev)){1,4})[ \t]*=[ \t]*([\d./]{3,80})[ \t]*(ms|us)\b")
# 64 bytes from 192.0.2.1: icmp_seq=1 ttl=64 time=0.161 ms
PING_REPLY = re.compile(r"\bbytes from [^:]{1,80}: icmp_seq=\d{1,9} .{0,40}?time[=<]"
                        r"(\d{1,7}(?:\.\d{1,4})?)[ \t]*(ms|us)\b")
# 10 packets transmitted, 10 received, 0% packet loss, time 9013ms
PING_LOSS = re.compile(r"\d{1,9} packets transmitted, \d{1,9} (?:packets )?received, "
                       r"(?:\+\d{1,9} errors, )?(\d{1,3}(?:\.\d{1,4})?)% packet loss")

NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d{1,6})?|\d{1,12}(?:\.\d{1,6})?)"
UNIT = "(" + UNIT_PATTERN + ")"  # every unit mlx.extract.units normalises
GAP = r"[ \t]{0,2}"  # "939.34  kpps": aligned text puts two blanks before a unit
# "55Gbps" "~1300000pps" "3.5 Mpps" "12,345 tps" "9.4 Gbit/s"; a sign makes it a delta
# ("-466 pps (-0.2%)"), "x" a factor, "/" the second half of a slash pair
VALUE = re.compile(r"(?<![\w.,/+±-])(~|≈|about |around |approx\.? )?" + NUM + GAP + UNIT
                   + r"(?![\w/])")
# a value of a pair, maybe packed with a slash and maybe without its unit: "494/432 Mbit/s", "730"
# ("from <200 Mbit/s to >700 Mbit/s": a bound the author gives for a side is its value)
SIDE = r"[~<>]?" + NUM + r"(?:/" + NUM + r")?(?:" + GAP + UNIT + r")?"
# from 55Gbps to 71Gbps    went from 730 Mbps to 1.9 Gbps    from ~540 to 870 Mbit/s
# from 494/432 Mbit/s for TCP transfers (download/upload) to 438/343 Mbit/s
FROM_TO = re.compile(r"(?i)\bfrom[ \t]+" + SIDE + r"(?:[ \t]+[^\d\n]{0,50}?)?[ \t]+(?:up |down )?"
                     r"to[ \t]+" + SIDE + r"(?![\w/])")
# a 12% drop (790 to 695 Mbps): a pair in parentheses
IN_PARENS = re.compile(r"\([ \t]*" + SIDE + r"[ \t]+to[ \t]+" + SIDE + r"[ \t]*\)")
# no real difference with (4.1 Mpps) and without (4.0 Mpps) the series: each side in
# parentheses after the word naming it
SIDE_WORDS = {"with": "patched", "after": "patched", "without": "baseline", "w/o": "baseline",
              "before": "baseline"}
PAREN_SIDES = re.compile(r"(?i)\b(with|without|w/o|before|after)[ \t]*\([ \t]*" + SIDE +
                         r"[ \t]*\)[^()\n]{0,40}?\b(with|without|w/o|before|after)[ \t]*\([ \t]*"
                         + SIDE + r"[ \t]*\)")
# 612 -> 655 Mbps     7.26 Mpps => 7.94 Mpps      41 → 2
ARROW = re.compile(r"(?<![\w.-])" + SIDE + r"[ \t]*(?:-+>|=+>|→)[ \t]*" + SIDE + r"(?![\w/])")
# "2.84 Gbits/sec increased to 2.92 Gbits/sec", "went up to": where a value went
WENT_TO = re.compile(r"(?i)(?<![\w.-])" + SIDE + r"[ \t\n]+(?:has[ \t]+|have[ \t]+)?"
                     r"(?:increased|decreased|improved|dropped|rose|grew|fell|went[ \t]+(?:up|"
                     r"down)|jumped|climbed|changed)[ \t\n]+to[ \t\n]+" + SIDE + r"(?![\w/])")
# 82 vs 91 Mbps      9.1 Gbps vs. 9.4 Gbps
VERSUS = re.compile(r"(?<![\w.-])" + SIDE + r"[ \t]+(?:vs\.?|versus)[ \t]+" + SIDE + r"(?![\w/])")
# Before: 71/28 Mbps      9.4/9.1 Gbps: values packed with a slash share the unit
SLASHED = re.compile(r"(?<![\w./-])" + NUM + r"/" + NUM + r"(?:/" + NUM + r")?" + GAP + UNIT
                     + r"(?![\w/])")
# 10/100/1000 Mbps, 1/2.5/5/10 Gbps, 100/1000Mbit/s: the speeds of a port, not values
LINK_SPEEDS = re.compile(r"^(?:10/100(?:/1000)?|100/1000|1/2\.5(?:/5)?(?:/10)?|2\.5/5(?:/10)?|"
                         r"10/25(?:/40)?|25/50|40/100|10/25/50/100)(?![\d.])")
# "... ~91% line rate", "of wire speed": the second of "measured/capacity" is the capacity
OF_LINE_RATE = re.compile(r"(?i)[^.!?]*?%[ \t\n]*(?:of[ \t]+)?(?:the[ \t]+)?(?:line[ -]rate|"
                          r"wire[ -]speed|link speed)")
# 300-400Mbps, 9.1 - 9.4 Gbps: a range of runs is two values
RANGE = re.compile(r"(?<![\w./-])" + NUM + r"[ \t]?(?:-|–|to)[ \t]?" + NUM + GAP + UNIT
                   + r"(?![\w/])")
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
# "1Mbps, 2Mbps, 6Mbps and 54Mbps": a list of rates is a capability, not measurements
LIST_GAP = re.compile(r"^[ \t]*(?:,|and|or|/)?[ \t]*(?:and|or)?[ \t]*$")
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
LABEL_INNER = re.compile(r"(?<![\w.~])((?:[A-Za-z]|v?\d{1,2}\.\d{1,3}[.\w-]*)[\w .+/'#-]{0,60}?"
                         r"(?:[ \t]?\([^)]{0,60}\))?)[ \t]*:[ \t]*([A-Za-z][\w/-]{0,11})[ \t]+"
                         r"(?:~|≈)?[ \t]*$")
# a number and the unit after it: what may stand between a labelled value and the same
# value in other units on its line
NUMBER_UNIT = re.compile(r"\d[\d.,]*[ \t]?[A-Za-z/]*")
# "UDP TX    612 -> 655 Mbps": the words a line starts with name its row
ROW_LABEL = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([A-Za-z][\w .+/-]{0,40}?)[ \t]*$")
# a line starting like this starts a new item: no soft wrap joins it to the line above
ITEM_START = re.compile(r"^[ \t]*(?:[-*+\u2022][ \t]|\(?\w{1,3}[.)][ \t]|"
                        r"[A-Za-z][\w .+/()-]{0,40}:)")
MAX_PER_LINE = 60  # values per paragraph
CLAUSE_REACH = 160  # characters around a value read for its clause
MAX_PARAGRAPH = 8000  # a longer paragraph is no prose (a log): its head only
SOFT_WRAP = 45  # a line at least this long, not ending a sentence, wraps into the next


@dataclass(frozen=True)
class InlineValue:
    value: float
    unit: str | None
    label: str | None = None  # "from"/"to", "Before"/"After", the words before ":"
    condition: str | None = None
    test: str | None = None
    config: str | None = None  # "4in4" of a summary line, "#1" of a slash pair
    pair: str | None = None  # values the text pairs itself share a key (per paragraph)
    statistic: str | None = None
    metric: str | None = None


def parse_summary(line: str) -> InlineValue | None:
    m = SUMMARY.match(line) if "==" in line else None
    if m is None:
        return None
    return InlineValue(float(m.group(3)), m.group(4), test=m.group(2), config=m.group(1))


def parse_ping(line: str) -> list[InlineValue]:
    """ping's summary (min/avg/max/mdev, loss) or one reply line (is no summary)."""
    if "ms" not in line and "loss" not in line:
        return []
    if m := PING_SUMMARY.search(line):
        names, values = m.group(1).split("/"), m.group(2).split("/")
        if all(_is_number(v) and float(v) == 0 for v in values):
            return []  # "0.0/0.0/0.0 ms": no reply came back, nothing was measured
        # mdev and stddev are the spread of the replies, no latency of their own
        return [InlineValue(float(v), m.group(3), test="ping", statistic=n, metric="latency")
                for n, v in zip(names, values, strict=False)
                if _is_number(v) and n not in ("mdev", "stddev")]
    if m := PING_LOSS.search(line):
        return [InlineValue(float(m.group(1)), "%", test="ping", metric="loss")]
    if m := PING_REPLY.search(line):
        return [InlineValue(float(m.group(1)), m.group(2), test="ping", statistic="reply",
                            metric="latency")]
    return []


def _is_number(text: str) -> bool:
    return bool(re.fullmatch(r"\d{1,9}(?:\.\d{1,6})?", text))


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) of the clause that holds the span: between the punctuation around it
    (looked for at most ``CLAUSE_REACH`` characters away, so long paragraphs stay linear)."""
    left = max(0, start - CLAUSE_REACH)
    for m in CLAUSE_END.finditer(text, left, start):
        left = m.end()
    right = CLAUSE_END.search(text, end, end + CLAUSE_REACH)
    return left, right.start() if right else min(len(text), end + CLAUSE_REACH)


def _clause(text: str, start: int, end: int) -> str:
    a, b = _clause_span(text, start, end)
    return text[a:b]


@dataclass
class _Paragraph:
    """Lines joined into one text: soft wraps by a blank, other line ends kept."""

    text: str
    starts: list[int]  # offset of each line in ``text``

    @classmethod
    def of(cls, lines: list[str]) -> _Paragraph:
        parts: list[str] = []
        starts: list[int] = []
        pos = 0
        for k, line in enumerate(lines):
            starts.append(pos)
            parts.append(line)
            pos += len(line)
            if k + 1 < len(lines):
                soft = len(line.strip()) >= SOFT_WRAP and not line.rstrip().endswith(
                    (":", ".", "!", "?")) and not ITEM_START.match(lines[k + 1])
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
class _Spot:
    """A value found in a paragraph and the text around it, as the rules read it."""

    p: _Paragraph
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
        return _clause_span(self.text, self.start, self.end)

    @cached_property
    def mark(self) -> str:
        """The character right before the value (blanks skipped)."""
        return self.before(2).strip()[-1:]

    @cached_property
    def latency_said(self) -> bool:
        """A latency word in the sentence so far (it may have wrapped onto lines above)."""
        return LATENCY_CUES.search(self.text, max(0, self.start - CLAUSE_REACH),
                                   self.end) is not None


def _kernel_log(s: _Spot) -> bool:
    hard, above = s.hard
    return bool(KERNEL_LOG.search(hard) or (KERNEL_LOG.search(above) and not hard[:1].isupper()))


def _not_measured(s: _Spot) -> bool:
    rest = s.line[s.colon - s.line_start + 1:] if s.colon >= 0 else s.line
    return NOT_MEASURED.search(rest) is not None


def _unlabelled_time(s: _Spot) -> bool:
    """A time with no latency word is a setting ("10 ms timeout") unless a label names it
    ("idle link: 0.210 ms")."""
    if s.unit not in LATENCY_UNITS or s.latency_said:
        return False
    label = _label_before(s.p, s.start)
    return label is None or NOT_A_TIME.search(label) is not None


# In order: the name of the first rule that rejects a value is what ``why_not`` tells.
RULES: tuple[Rule[_Spot], ...] = (
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
        _clause(s.text, s.clause[0] - 2, s.clause[0] - 1)) is not None,
         "it should be line rate for this card, so around 15Mpps"),
    Rule("a literal", lambda s: s.mark in ("'", '"', "`"), "treated as '100kbps' here"),
    Rule("bound or arithmetic", lambda s: s.mark in ("<", ">") or (
        s.mark == "=" and COMPUTED.search(s.text, max(0, s.start - 40), s.start) is not None),
         "1/(84*8)*40*10^9 = 59523810 pps"),
    Rule("time setting", lambda s: s.unit in LATENCY_UNITS and s.mark == "="
         and not s.latency_said, "T_PwrOn=10us"),
    Rule("time with no latency named", _unlabelled_time, "a 10 ms timeout here"),
)


def why_not(p: _Paragraph, start: int, end: int, unit: str) -> str | None:
    """The name of the first rule that rejects the value at [start:end], None for a
    measurement."""
    return rejected_by(RULES, _Spot(p, start, end, unit))


def _measured(p: _Paragraph, start: int, end: int, unit: str) -> bool:
    """Is the value at [start:end] a measurement, by the words around it (``RULES``)?"""
    return why_not(p, start, end, unit) is None


def rejections(lines: list[str]) -> list[tuple[int, float, str]]:
    """(line index, value, the rule that rejected it) of every value a paragraph writes
    that is no result: what ``benchmarks/accuracy.py --misses`` tells of a missed one."""
    p = _Paragraph.of(lines)
    out = []
    for m in VALUE.finditer(p.text):
        if (name := why_not(p, m.start(2), m.end(), m.group(3))) is not None:
            out.append((p.line_of(m.start()), _num(m.group(2)), name))
    return out


def _label_before(p: _Paragraph, start: int) -> str | None:
    """The label a line gives its value: the words before a colon right in front of it."""
    head = p.text[max(p.hard_start(start), start - 64):start]
    m = LABEL_BEFORE.search(head)
    if m is None:
        return None
    label = m.group(1).strip(" -*") + (f" {m.group(2)}" if m.group(2) else "")
    # "Works for me.  Before": only the last sentence of the words is the label
    label = re.split(r"[.!?][ \t]+", label)[-1].strip()
    return label or None


def _row_label(p: _Paragraph, start: int) -> str | None:
    m = ROW_LABEL.match(p.text[p.hard_start(start):start])
    return m.group(1) if m else None


def _sides(m: re.Match[str]) -> list[tuple[float, str | None, float, str | None]]:
    """(baseline, its unit, patched, its unit) of each pair a FROM_TO/ARROW/VERSUS match
    writes: "730 Mbps to 1.9 Gbps" keeps both units, "from 730 to 910 Mbps" shares the
    second, "494/432 Mbit/s ... to 438/343 Mbit/s" is two pairs."""
    a1, a2, ua, b1, b2, ub = m.groups()
    out = [(_num(a1), ua or ub, _num(b1), ub or ua)]
    if a2 and b2:
        out.append((_num(a2), ua or ub, _num(b2), ub or ua))
    return out


Pair = tuple[int, int, list[tuple[float, str | None, float, str | None]],
             tuple[str | None, str | None], tuple[str, str]]


def _pairs(p: _Paragraph) -> list[Pair]:
    """(start, end, values, conditions, labels) of every pair the text writes out."""
    out: list[Pair] = []
    text = p.text
    for pattern, names in ((FROM_TO, ("from", "to")), (IN_PARENS, ("from", "to")),
                           (ARROW, ("before", "after")), (WENT_TO, ("from", "to")),
                           (VERSUS, ("", ""))):
        for m in pattern.finditer(text):
            if len(out) >= MAX_PER_LINE:
                break
            if any(a <= m.start() < b for a, b, *_ in out):
                continue
            if pattern is not ARROW and m.group(6) is None:
                continue  # "from 3 to 5": no unit, no measurement
            # "X without it vs Y with it": words right after a side name its condition
            first_end = max(m.end(g) for g in (1, 2, 3) if m.group(g))
            conds = (_side_condition(text[:m.start(4)], first_end),
                     _side_condition(text, m.end()))
            if pattern is not VERSUS or conds == (None, None):
                conds = (conds[0] or "baseline", conds[1] or "patched")
            elif None in conds:  # "9.1 Gbps vs 9.4 Gbps with the series": the other side
                known = conds[0] or conds[1]
                other = "baseline" if known == "patched" else "patched"
                conds = (conds[0] or other, conds[1] or other)
            out.append((m.start(), m.end(), _sides(m), conds, names))
    for m in PAREN_SIDES.finditer(text):
        # groups: the first word, its side (number, slashed number, unit), the second
        words = (m.group(1).lower(), m.group(5).lower())
        first, second = SIDE_WORDS[words[0]], SIDE_WORDS[words[1]]
        if first == second or (m.group(4) is None and m.group(8) is None) or any(
                a <= m.start() < b for a, b, *_ in out):
            continue  # the same side twice, no unit, or read already
        a1, ua = _num(m.group(2)), m.group(4) or m.group(8)
        b1, ub = _num(m.group(6)), m.group(8) or m.group(4)
        sides = [(a1, ua, b1, ub)] if first == "baseline" else [(b1, ub, a1, ua)]
        out.append((m.start(), m.end(), sides, ("baseline", "patched"),
                    words if first == "baseline" else words[::-1]))
    return out


def _side_condition(text: str, end: int) -> str | None:
    """The condition the words right after one side of a pair give ("X without it")."""
    tail = re.split(r"[,\n]|\b(?:to|vs\.?|versus)\b", text[end:end + 40])[0]
    return condition_of(tail, prose=True) if tail.strip() else None


def parse_prose(lines: list[str]) -> list[tuple[int, InlineValue]]:
    """Values written in the lines of one paragraph, with the pairs they form, each with
    the index of its line.  Sentences may run over line breaks."""
    p = _Paragraph.of(lines)
    found: list[tuple[int, InlineValue]] = []
    used: list[tuple[int, int]] = []
    for n, (start, end, sides, conds, names) in enumerate(_pairs(p)):
        used.append((start, end))
        if not _measured(p, start, end, sides[0][3] or sides[0][1] or ""):
            continue
        config = _label_before(p, start) or _row_label(p, start)
        k = p.line_of(start)
        for j, (a, unit_a, b, unit_b) in enumerate(sides):
            part = f"{config} #{j + 1}" if len(sides) > 1 else config
            if unit_a is None or unit_b is None:
                continue
            found += [(k, InlineValue(a, unit_a, names[0] or None, conds[0], config=part,
                                      pair=f"{n}.{j}")),
                      (p.line_of(end - 1), InlineValue(b, unit_b, names[1] or None, conds[1],
                                                       config=part, pair=f"{n}.{j}"))]
    for pattern in (SLASHED, RANGE):
        for m in pattern.finditer(p.text):
            if len(found) >= MAX_PER_LINE or any(a <= m.start() < b for a, b in used):
                continue
            if pattern is SLASHED and LINK_SPEEDS.match(m.group(0)):
                used.append(m.span())  # "10/100/1000 Mbps": the speeds a port supports
                continue
            unit = m.group(4) if pattern is SLASHED else m.group(3)
            used.append(m.span())
            if not _measured(p, m.start(), m.end(), unit):
                continue
            label = _label_before(p, m.start())
            numbers = [g for g in m.groups()[:3 if pattern is SLASHED else 2] if g]
            if pattern is SLASHED and len(numbers) == 2 and OF_LINE_RATE.match(
                    p.text, m.end(), m.end() + 200):
                # "9.1/10gbps bi-directional throughput, ~91% of line rate": run / capacity
                numbers = numbers[:1]
            found += [(p.line_of(m.start()), InlineValue(
                _num(v), unit, label, condition_of(label),
                config=f"#{k + 1} of {len(numbers)}" if pattern is SLASHED and len(numbers) > 1
                else None))
                for k, v in enumerate(numbers)]
    labelled: dict[int, tuple[str, int]] = {}  # a line's label and where its value ended
    for m in VALUE.finditer(p.text):
        if len(found) >= MAX_PER_LINE or len(used) > 4 * MAX_PER_LINE:
            break
        if any(a <= m.start() < b for a, b in used) or \
                not _measured(p, m.start(2), m.end(), m.group(3)):
            continue
        label = _label_before(p, m.start())
        line = p.hard_start(m.start())
        inner = None
        words = p.text[max(line, m.start() - 80):m.start()]
        if label is None and (inner_m := LABEL_INNER.search(words)):
            label, inner = inner_m.group(1).strip(" -*"), inner_m.group(2)  # "v6.1:  rx 4 Mpps"
        if label is not None:
            labelled[line] = (label, m.end())
        elif line in labelled and not re.search(
                r"[A-Za-z]", NUMBER_UNIT.sub("", p.text[labelled[line][1]:m.start()])):
            # "Before: 4730418pps 2270Mb/sec (2270600640bps)": the same run in other
            # units, under the line's label
            label = labelled[line][0]
            labelled[line] = (label, m.end())
        cond = condition_of(label) if label else None
        if cond is None and label is None:
            clause = _clause(p.text, m.start(), m.end())
            cond = condition_of(clause, prose=True)
            label = _clause_label(clause, m.group(0)) if cond else None
            if cond is None:
                label, cond = sentence_sides.side(p.text, m.start(), m.end())
        found.append((p.line_of(m.start()), InlineValue(_num(m.group(2)), m.group(3), label,
                                                        cond, config=inner)))
    return _pair_blocks(_without_lists(found[:MAX_PER_LINE], p))


# where a sentence ends: ". ", "! ", "? " (not "2.5", "e.g.")
# (or an item of a list starts: "- XDP: 9.18 Gbps" after "- Stock bridge: 9.11 Gbps")
SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?](?=[ \t\n]+[A-Z(]|[ \t]*\n\n|$)|"
                          r"\n(?=[ \t]*(?:[-*+\u2022]|\(?\w{1,3}[.)])[ \t])")
# "... 200 Mbps or so. This is with your patch applied.": a sentence that names the side
# of the one before it
THIS_IS = re.compile(r"[ \t\n]*(?:This|That|These|Those|It)[ \t]+(?:is|was|are|were)[ \t]+"
                     r"((?:with|without|w/o|before|after)\b[^.!?\n]{0,60})")


class _Sides:
    """The side a sentence gives a value its own clause leaves open: the words of the
    sentence before it ("On 6.9 with the foo patch applied, we get 200Mbps"), a sentence
    right after it that names it ("This is with your patch"), else the side an earlier
    sentence of the paragraph named, carried forward ("With <config2>, 260Mbps.")."""

    def __init__(self) -> None:
        self.text = ""
        self.last: tuple[str, str] | None = None  # the label and side named before

    def side(self, text: str, start: int, end: int) -> tuple[str | None, str | None]:
        if text is not self.text:
            self.text, self.last = text, None
        begin = max((e.end() for e in SENTENCE_END.finditer(text, max(0, start - 300), start)),
                    default=max(0, start - 300))
        words = text[begin:start]
        if (cond := condition_of(words)) is not None:
            self.last = (_condition_words(words), cond)
            return self.last
        stop = SENTENCE_END.search(text, end, end + 300)
        if stop and (m := THIS_IS.match(text, stop.end())) and \
                (cond := condition_of(m.group(1))) is not None:
            return m.group(1).strip(), cond
        if self.last is not None and not CONDITION_WORDS.search(words) and \
                not ITEM_START.match(words):
            return self.last  # (a list's items each name their own run)
        return None, None


sentence_sides = _Sides()


def _without_lists(found: list[tuple[int, InlineValue]],
                   p: _Paragraph) -> list[tuple[int, InlineValue]]:
    """Drop runs of three or more unlabelled values written as a list ("1Mbps, 2Mbps,
    6Mbps and 54Mbps"): a rate table, not measurements."""
    spans = [m for m in VALUE.finditer(p.text)]
    listed: set[float] = set()
    run: list[re.Match[str]] = []
    for m in [*spans, None]:
        if m is not None and run and LIST_GAP.match(p.text[run[-1].end():m.start()]):
            run.append(m)
            continue
        if len(run) >= 3:
            listed |= {_num(r.group(2)) for r in run}
        run = [m] if m is not None else []
    if not listed:
        return found
    return [(k, v) for k, v in found if v.label or v.pair or v.value not in listed]


def _clause_label(clause: str, value: str) -> str:
    """"310Mbps without the change" -> "without the change": the words of a condition."""
    return _condition_words(clause.replace(value, " "))


def _condition_words(words: str) -> str:
    m = CONDITION_WORDS.search(words)
    if m:
        words = words[m.start():]
    return re.sub(r"[ \t\n]+", " ", words).strip(" ,;:.")[:60] or "?"


def _pair_blocks(found: list[tuple[int, InlineValue]]) -> list[tuple[int, InlineValue]]:
    """Lines in a row that each give one labelled value ("Before: X" / "After: Y",
    "Fixed 12150m: 31 Mbit/s" / "Dynack: 58 Mbit/s") compare those labels: one pair."""
    lines = [k for k, _ in found]
    own = [v.label is not None and v.pair is None and v.config is None and lines.count(k) == 1
           for k, v in found]
    if len(found) < 2 or not all(own) or lines != list(range(lines[0], lines[0] + len(lines))):
        return found
    labels = [v.label or "" for _, v in found]
    if len(set(labels)) != len(found):
        return found
    if len(found) > 2 and not any(condition_of(x) for x in labels) and not any(
            b.startswith(a + " ") for a in labels for b in labels if a != b):
        return found  # "Ping: / Download: / Upload:": fields of one run, not conditions
    return [(k, replace(v, pair="block")) for k, v in found]
