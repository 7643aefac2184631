"""Summary lines and measurements written in prose.

``=== 4in4 TCP_STREAM: 901.05 Mbits/sec ===`` (a test script's summary line),
``from 55Gbps to 71Gbps``, ``Before: ~1300000pps After : ~1500000pps``,
``3.5 Mpps``.  Lines that state a capacity rather than a measurement (``Link
is Up - 1000 Mbps/Full``, ``port 5201``, ``TCP window size``, MSS) give nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# === 4in4 TCP_STREAM: 901.05 Mbits/sec ===
SUMMARY = re.compile(
    r"^[ \t]*={2,}[ \t]*(?:(\S{1,30})[ \t]+)?([A-Z][A-Z0-9]{1,10}_[A-Z0-9_]{1,20}):[ \t]*"
    r"(\d{1,12}(?:\.\d{1,6})?)[ \t]*([A-Za-z^0-9/]{1,20})[ \t]*={2,}[ \t]*$")
NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d{1,6})?|\d{1,12}(?:\.\d{1,6})?)"
UNIT = (r"([KMGT]bits?/s(?:ec)?|[KMGT]?bps|[KMGT]b/s|[KMGT]bit/sec|[KMGT]B/s|[KMG]Bytes/s(?:ec)?"
        r"|[kKmMG]?pps|trans/s|tps|usecs?|us|µs|μs|msecs?|ms|nsecs?|ns)")
# 55Gbps   ~1300000pps   3.5 Mpps   12,345 tps   9.4 Gbit/s
# a value directly followed by the hardware it describes is a capacity: "100Gbps NIC"
CAPACITY_AFTER = (r"(?![ \t]?(?i:link|nic|port|interface|card|adapter|ethernet|phy|capable|"
                  r"mode)\b)")
# a sign makes it a delta ("-466 pps (-0.2%)"), not a measurement
VALUE = re.compile(r"(?<![\w.,/+-])(~|≈)?" + NUM + r"[ \t]?" + UNIT + r"(?![\w/])"
                   + CAPACITY_AFTER)
# from 55Gbps to 71Gbps
FROM_TO = re.compile(r"(?i)\bfrom[ \t]+~?" + NUM + r"[ \t]?" + UNIT + r"[ \t]+to[ \t]+~?"
                     + NUM + r"[ \t]?" + UNIT + r"(?![\w/])")
# Before: ~1300000pps    After : ~1500000pps    with patch: 3.5 Mpps
TAGGED = re.compile(r"(?i)\b(before|after|without|with|w/o|old|new|base(?:line)?|patched|"
                    r"unpatched|vanilla|stock)\b([^:\n]{0,30}?)[ \t]*[:=][ \t]*(?:~|≈)?" + NUM
                    + r"[ \t]?" + UNIT + r"(?![\w/])")
# capacities, configuration and ports: no measurement on these lines
NOT_MEASURED = re.compile(r"(?i)link is up|link up|\bspeed\b|\bduplex\b|/full\b|/half\b|"
                          r"exit latency|working with|"
                          r"negotiat|\bsupport(?:s|ed)?\b|\bcapable\b|advertis|\brated\b|"
                          r"window size|\bmss\b|\bport\b|\bmtu\b|\btimeout\b|\binterval\b|"
                          r"\bsleep\b|\bdelay[s]? of\b|\blimit\b|\bmax(?:imum)? rate\b")
LATENCY_WORDS = re.compile(r"(?i)latenc|\brtt\b|\blat\b|p\d\d|\bavg\b|\bmean\b|round.trip|"
                           r"jitter|\bmedian\b|tail")
LATENCY_UNITS = {"us", "ms", "ns", "µs", "μs", "usec", "usecs", "msec", "msecs", "nsec", "nsecs"}
MAX_PER_LINE = 20


@dataclass(frozen=True)
class InlineValue:
    value: float
    unit: str
    label: str | None = None  # "from"/"to", "Before"/"After" when the line says
    condition: str | None = None
    test: str | None = None
    config: str | None = None  # "4in4" of a summary line


def parse_summary(line: str) -> InlineValue | None:
    m = SUMMARY.match(line) if "==" in line else None
    if m is None:
        return None
    return InlineValue(float(m.group(3)), m.group(4), test=m.group(2), config=m.group(1))


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def parse_prose(line: str) -> list[InlineValue]:
    if NOT_MEASURED.search(line):
        return []
    found: list[InlineValue] = []
    used: list[tuple[int, int]] = []
    for m in FROM_TO.finditer(line):
        found.append(InlineValue(_num(m.group(1)), m.group(2), "from", "baseline"))
        found.append(InlineValue(_num(m.group(3)), m.group(4), "to", "patched"))
        used.append(m.span())
    for m in TAGGED.finditer(line):
        if any(a <= m.start() < b for a, b in used):
            continue
        label = (m.group(1) + m.group(2)).strip()
        found.append(InlineValue(_num(m.group(3)), m.group(4), label, None))
        used.append(m.span())
        if len(found) >= MAX_PER_LINE:
            return found
    latency_ok = bool(LATENCY_WORDS.search(line))
    for m in VALUE.finditer(line):
        if any(a <= m.start() < b for a, b in used):
            continue
        unit = m.group(3)
        if unit in LATENCY_UNITS and not latency_ok:
            continue  # "10 ms timeout", "sleep 100 us": a time, not a latency result
        found.append(InlineValue(_num(m.group(2)), unit))
        if len(found) >= MAX_PER_LINE:
            break
    return found
