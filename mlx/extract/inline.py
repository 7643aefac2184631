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

import re
from dataclasses import dataclass

from mlx.extract.conditions import condition_of

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
UNIT = (r"([KMGT]i?bits?/s(?:ec)?|[KMGT]?bps|[KMGT]i?b/s|[KMGT]bit/sec|[KMGT]i?B/s|"
        r"[KMGT]i?Bytes/s(?:ec)?|[KMGT]Bps|[kKmMG]?pps|[kKM]?IOPS|trans/s|tps|req/s|"
        r"usecs?|us|µs|μs|msecs?|ms|nsecs?|ns)")
# "55Gbps" "~1300000pps" "3.5 Mpps" "12,345 tps" "9.4 Gbit/s"; a sign makes it a delta
# ("-466 pps (-0.2%)"), "x" a factor, "/" the second half of a slash pair
VALUE = re.compile(r"(?<![\w.,/+±-])(~|≈|about |around |approx\.? )?" + NUM + r"[ \t]?"
                   + UNIT + r"(?![\w/])")
# a number that may take the unit written after its partner: "from 730 to 910 Mbps"
BARE = r"~?" + NUM + r"(?:[ \t]?" + UNIT + r")?"
# from 55Gbps to 71Gbps      went from 730 Mbps to 1.9 Gbps       from ~540 to 870 Mbit/s
FROM_TO = re.compile(r"(?i)\bfrom[ \t]+" + BARE + r"[ \t]+(?:up |down )?to[ \t]+~?" + NUM
                     + r"[ \t]?" + UNIT + r"(?![\w/])")
# 612 -> 655 Mbps     7.26 Mpps => 7.94 Mpps      41 → 2
ARROW = re.compile(r"(?<![\w.-])" + BARE + r"[ \t]*(?:-+>|=+>|→)[ \t]*~?" + NUM + r"(?:[ \t]?"
                   + UNIT + r")?(?![\w/])")
# 82 vs 91 Mbps      9.1 Gbps vs. 9.4 Gbps
VERSUS = re.compile(r"(?<![\w.-])" + BARE + r"[ \t]+(?:vs\.?|versus)[ \t]+~?" + NUM + r"[ \t]?"
                    + UNIT + r"(?![\w/])")
# Before: 71/28 Mbps      9.4/9.1 Gbps: values packed with a slash share the unit
SLASHED = re.compile(r"(?<![\w./-])" + NUM + r"/" + NUM + r"(?:/" + NUM + r")?[ \t]?" + UNIT
                     + r"(?![\w/])")
# capacities, configuration and ports: no measurement on these lines
NOT_MEASURED = re.compile(r"(?i)link is up|link up|\bspeed\b|\bduplex\b|/full\b|/half\b|"
                          r"exit latency|working with|negotiat|\bsupport(?:s|ed)?\b|\bcapable\b|"
                          r"advertis|\brated\b|window size|\bmss\b|\bport\b|\bmtu\b|\btimeout\b|"
                          r"\binterval\b|\bsleep\b|\bdelay[s]? of\b|\blimit\b|"
                          r"\bmax(?:imum)? rate\b|^[ \t]*(?:NIC|Link|Port|Interface|Card|Adapter|"
                          r"Disks?|Storage)s?[ \t]*:")
# what a clause around a value says it is not: a target, a setting, an offered load
NOT_A_RESULT = re.compile(r"(?i)\b(?:target|expect(?:ed|s)?|theoretical(?:ly)?|line[ -]rate|"
                          r"wire[ -]speed|should|would|could|might|in theory|up to|goal|"
                          r"requirement|configured|set to|limit(?:ed)? to|cap(?:ped)? at|"
                          r"rate[ -]limit|shap(?:e|ed|ing) to|send(?:s|ing)?|offer(?:ed)?|"
                          r"generat(?:e|es|ed|ing|or)|inject(?:s|ing|ed)?|blast(?:ing)?|"
                          r"std\.? ?dev\.?|stdev|stddev|deviation|standard error|delta|diff)\b")
# "100Gbps NIC", "a 10 Gbps link", "25G port": the hardware a value describes
CAPACITY_AFTER = re.compile(r"[ \t]?(?:(?:full[ -]duplex|ethernet|e?thernet)[ \t])?(?i:link|nic|"
                            r"port|interface|card|adapter|ethernet|phy|capable|mode|connection|"
                            r"switch|uplink|capacity|line|plan|interconnect|fiber|fibre|"
                            r"network)s?\b")
# "SAS 6Gbps", "USB 3.0 5Gbps", "PCIe Gen3", "DDR4 3200": a bus or an interface spec
CAPACITY_BEFORE = re.compile(r"(?i)(?:\bSAS|\bSATA|\bUSB[ \t]?\d(?:\.\d)?|\bPCIe(?:[ \t]?Gen\d)?|"
                             r"\bHDMI|\bThunderbolt|\bDDR\d|\bx\d{1,2}|\blink(?:ed)? at|"
                             r"\bnegotiated|\bbaud)[ \t]*[:@]?[ \t]*$")
# "± 1.2 Gbps", "+- 3%", "std. dev. 1.09 kpps": a spread, not a value
SPREAD_BEFORE = re.compile(r"(?i)(?:±|\+-|\+/-|std\.?[ \t]?dev\.?|stdev|stddev|sd)[ \t]*[:=]?"
                           r"[ \t]*$")
LATENCY_WORDS = re.compile(r"(?i)latenc|\brtt\b|\blat\b|\bp\d\d|\bavg\b|\bmean\b|round.trip|"
                           r"jitter|\bmedian\b|tail|\bping\b|response time|completion")
LATENCY_UNITS = {"us", "ms", "ns", "µs", "μs", "usec", "usecs", "msec", "msecs", "nsec", "nsecs"}
# a clause ends at these: "310Mbps without it, 450Mbps with it" is two clauses
CLAUSE_END = re.compile(r"[;,.!?](?:[ \t]|$)|[ \t](?:but|while|whereas|and|vs\.?)[ \t]")
MAX_PER_LINE = 20
CLAUSE_REACH = 160  # characters around a value read for its clause
MAX_LINE = 2000  # a longer "line" is no sentence (a log or a whole paragraph): its head only


@dataclass(frozen=True)
class InlineValue:
    value: float
    unit: str | None
    label: str | None = None  # "from"/"to", "Before"/"After", the words before ":"
    condition: str | None = None
    test: str | None = None
    config: str | None = None  # "4in4" of a summary line, "#1" of a slash pair
    pair: int | None = None  # values the text pairs itself share a number (per line)
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
        return [InlineValue(float(v), m.group(3), test="ping", statistic=n, metric="latency")
                for n, v in zip(names, values, strict=False) if _is_number(v)]
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


def _clause(line: str, start: int, end: int) -> str:
    """The clause of the line that holds the span: between the punctuation around it
    (looked for at most ``CLAUSE_REACH`` characters away, so long lines stay linear)."""
    left = max(0, start - CLAUSE_REACH)
    for m in CLAUSE_END.finditer(line, left, start):
        left = m.end()
    m = CLAUSE_END.search(line, end, end + CLAUSE_REACH)
    return line[left:m.start() if m else min(len(line), end + CLAUSE_REACH)]


def _measured(line: str, start: int, end: int, unit: str) -> bool:
    """Is the value at line[start:end] a measurement, by the words around it?"""
    if CAPACITY_AFTER.match(line, end) or CAPACITY_BEFORE.search(line[max(0, start - 24):start]):
        return False
    if SPREAD_BEFORE.search(line[max(0, start - 12):start]):
        return False
    clause = _clause(line, start, end)
    if NOT_A_RESULT.search(clause):
        return False
    return not (unit in LATENCY_UNITS and not LATENCY_WORDS.search(line))


def _pairs(line: str) -> list[tuple[int, int, list[InlineValue]]]:
    """(start, end, the two values) of every pair the line writes out."""
    out: list[tuple[int, int, list[InlineValue]]] = []
    for pattern, names in ((FROM_TO, ("from", "to")), (ARROW, (None, None)),
                           (VERSUS, (None, None))):
        for m in pattern.finditer(line):
            if len(out) >= MAX_PER_LINE:
                break
            if any(a <= m.start() < b for a, b, _ in out):
                continue
            unit_b = m.group(4)
            unit_a = m.group(2) or unit_b
            if pattern is not ARROW and unit_b is None:
                continue
            conds = (_side_condition(line, m.start(), m.start(3)),
                     _side_condition(line, m.start(3), m.end()))
            if pattern is not VERSUS or conds == (None, None):
                conds = (conds[0] or "baseline", conds[1] or "patched")
            out.append((m.start(), m.end(), [
                InlineValue(_num(m.group(1)), unit_a, names[0], conds[0]),
                InlineValue(_num(m.group(3)), unit_b, names[1], conds[1])]))
    return out


def _side_condition(line: str, start: int, end: int) -> str | None:
    """The condition the words right after one side of a pair give ("X without it")."""
    tail = line[end:end + 40]
    return condition_of(tail.split(",")[0]) if tail.strip() else None


def parse_prose(line: str) -> list[InlineValue]:
    """Values written in a sentence or a hand-made line, with the pairs they form."""
    line = line[:MAX_LINE]
    if NOT_MEASURED.search(line) or line.count("|") >= 2:
        return []  # a capacity line, or a diagram or table the table reader did not take
    found: list[InlineValue] = []
    used: list[tuple[int, int]] = []
    for n, (start, end, values) in enumerate(_pairs(line)):
        if not _measured(line, start, end, values[1].unit or ""):
            used.append((start, end))
            continue
        label = _label_before(line, start) or _row_label(line, start)
        found += [InlineValue(v.value, v.unit, v.label, v.condition, config=label, pair=n)
                  for v in values if v.unit]
        used.append((start, end))
    for m in SLASHED.finditer(line):
        if len(found) >= MAX_PER_LINE:
            break
        if any(a <= m.start() < b for a, b in used) or not _measured(line, m.start(), m.end(),
                                                                      m.group(4)):
            continue
        label = _label_before(line, m.start())
        numbers = [g for g in m.groups()[:3] if g]
        found += [InlineValue(_num(v), m.group(4), label, condition_of(label),
                              config=f"#{k + 1} of {len(numbers)}") for k, v in enumerate(numbers)]
        used.append(m.span())
    for m in VALUE.finditer(line):
        if len(found) >= MAX_PER_LINE or len(used) > 4 * MAX_PER_LINE:
            break
        if any(a <= m.start() < b for a, b in used) or \
                not _measured(line, m.start(2), m.end(), m.group(3)):
            continue
        label = _label_before(line, m.start())
        cond = condition_of(label) if label else _clause_condition(line, m.start(), m.end())
        found.append(InlineValue(_num(m.group(2)), m.group(3), label, cond))
        if len(found) >= MAX_PER_LINE:
            break
    return found[:MAX_PER_LINE]


# "Before: ", "  - net-next (baseline):   ", "with patch = ": the words a value is given for
LABEL_BEFORE = re.compile(r"(?<![\w.~])([A-Za-z][\w .+/()'#-]{0,60}?)[ \t]*[:=][ \t]*"
                          r"(?:~|≈|about |around )?$")


def _label_before(line: str, start: int) -> str | None:
    """The label a line gives its value: the words before a colon right in front of it."""
    m = LABEL_BEFORE.search(line[max(0, start - 64):start])
    if m is None:
        return None
    label = m.group(1).strip(" -*")
    # "Works for me.  Before": only the last sentence of the words is the label
    label = re.split(r"[.!?][ \t]+", label)[-1].strip()
    return label or None


# "UDP TX    612 -> 655 Mbps": the words a line starts with name its row
ROW_LABEL = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([A-Za-z][\w .+/-]{0,40}?)[ \t]*$")


def _row_label(line: str, start: int) -> str | None:
    m = ROW_LABEL.match(line[:start])
    return m.group(1) if m else None


def _clause_condition(line: str, start: int, end: int) -> str | None:
    """The condition a sentence gives a value: "310Mbps without the change", "with it 450"."""
    clause = _clause(line, start, end)
    return condition_of(clause, prose=True) if clause.strip() else None
