"""iperf3 and iperf2 result lines (formats of iperf's src/iperf_locale.c and iperf2).

One parser for both: the line shapes share ``[ ID] start-end sec transfer
bitrate``; the tail tells TCP (``Retr``, ``Cwnd``), UDP (``jitter ms
lost/total (pct%)``) and the iperf3 summary role (``sender``/``receiver``).
Every pattern is anchored or starts with a literal and has no nested
quantifiers, so a 1 MB line of near-matches stays linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# [  5]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162             sender      (iperf3)
# [SUM][TX-C]   0.00-10.00  sec  2.18 GBytes  1.87 Gbits/sec                  (iperf3 --bidir)
# [  3]  0.0- 2.0 sec   225 MBytes   944 Mbits/sec                            (iperf2)
# [  1] 0.0000-10.0011 sec  1.10 GBytes   943 Mbits/sec                       (iperf 2.1)
LINE = re.compile(
    r"\[\s{0,8}(\d{1,6}|SUM)\s{0,8}\](?:\[([TR]X-[CS])\])?[ \t]+"
    r"(\d{1,9}(?:\.\d{1,6})?)[ \t]*-[ \t]*(\d{1,9}(?:\.\d{1,6})?)[ \t]+sec[ \t]+"
    r"(\d{1,12}(?:\.\d{1,6})?)[ \t]+([KMGT]?Bytes)[ \t]+"
    r"(\d{1,12}(?:\.\d{1,6})?)[ \t]+([KMGT]?bits/sec)")
# 0.011 ms  0/906 (0%)      and iperf2's   0.017 ms    0/  893 (0%)
UDP_TAIL = re.compile(
    r"[ \t]+(\d{1,9}(?:\.\d{1,6})?)[ \t]+ms[ \t]+(\d{1,12})[ \t]*/[ \t]*(\d{1,12})[ \t]+"
    r"\((\d{1,3}(?:\.\d{1,9})?(?:e[-+]?\d{1,3})?)%\)")
# "  162  " retransmits after the bitrate, optionally a Cwnd "  409 KBytes"
RETR = re.compile(r"[ \t]+(\d{1,12})(?:[ \t]+\d{1,9}(?:\.\d{1,4})?[ \t]*[KMG]?Bytes)?(?=[ \t]|$)")
ROLE = re.compile(r"(sender|receiver)[ \t]*$")
# "[ ID] Interval           Transfer     Bitrate         Retr" : an iperf3 header
HEADER = re.compile(r"\[ ?ID\](?:\[Role\])?[ \t]+Interval[ \t]+Transfer[ \t]+(Bitrate|Bandwidth)")


@dataclass(frozen=True)
class IperfValue:
    stream: str
    role: str | None  # --bidir role: TX-C, RX-C, TX-S, RX-S
    start: float
    end: float
    transfer: float
    transfer_unit: str
    rate: float
    rate_unit: str
    side: str | None  # sender / receiver (iperf3 summaries)
    retransmits: int | None
    jitter_ms: float | None
    lost: int | None
    total: int | None
    loss_pct: float | None
    decimals: int  # digits after the point in the interval: 2 for iperf3
    prefix: str | None = None  # "tx" of "tx [SUM] 0.00-10.00 sec ...": a word before the line


def parse_line(line: str) -> IperfValue | None:
    if "sec" not in line or "[" not in line:
        return None
    m = LINE.search(line)
    if m is None or "(omitted)" in line:
        return None
    rest = line[m.end():]
    side = r.group(1) if (r := ROLE.search(rest)) else None
    jitter = lost = total = loss = retr = None
    if u := UDP_TAIL.match(rest):
        jitter, lost, total, loss = (float(u.group(1)), int(u.group(2)), int(u.group(3)),
                                     float(u.group(4)))
    elif (t := RETR.match(rest)) and not rest.strip().startswith(("sender", "receiver")):
        retr = int(t.group(1))
    start = m.group(3)
    return IperfValue(
        stream=m.group(1), role=m.group(2), start=float(start), end=float(m.group(4)),
        transfer=float(m.group(5)), transfer_unit=m.group(6), rate=float(m.group(7)),
        rate_unit=m.group(8), side=side, retransmits=retr, jitter_ms=jitter, lost=lost,
        total=total, loss_pct=loss, decimals=len(start.split(".")[1]) if "." in start else 0,
        prefix=_prefix(line[:m.start()]))


# "tx ", "host1: ", "Before: ", "64: " (a message size): a short word in front of a result
# line names it
PREFIX = re.compile(r"^[ \t]*([A-Za-z0-9][\w.-]{0,15})[ \t:]*$")


def _prefix(text: str) -> str | None:
    m = PREFIX.match(text) if text.strip() else None
    return m.group(1) if m else None


def mark_summaries(values: list[IperfValue], tool: str) -> list[bool]:
    """Which lines of one block are final summaries rather than intervals.

    iperf3 marks its summaries with sender/receiver; iperf2 does not: there a line
    from 0 spanning clearly more than the block's interval length is the summary.
    A hand-trimmed iperf3 paste without sender/receiver (``[  5] 0.00-10.00 sec ...``
    alone) is read like iperf2, except that one short interval alone is no summary.
    """
    if not values:
        return []
    spans = [v.end - v.start for v in values]
    shortest = min(spans)
    sided = any(v.side is not None for v in values)
    out = []
    for v, span in zip(values, spans, strict=True):
        if v.side is not None:
            out.append(True)
        elif tool == "iperf3" and sided:
            out.append(False)
        elif tool == "iperf3":
            out.append(v.start == 0 and (span > 1.5 * shortest or (len(values) == 1
                                                                    and span >= 2)))
        else:
            out.append(v.start == 0 and (span > 1.5 * shortest or len(set(spans)) == 1)
                       and span > 0)
    return out


# "sum_sent": { "start": 0, "end": 10.0, "seconds": 10.0, "bytes": 1234, "bits_per_second": 9.4e9,
#               "retransmits": 12, "sender": true }
JSON_SUM = re.compile(r'"(sum_sent|sum_received|sum)"[ \t\r\n>]*:[ \t\r\n>]*\{([^{}]{0,2000})\}')
JSON_FIELD = re.compile(r'"(start|end|bits_per_second|retransmits|jitter_ms|lost_percent|'
                        r'lost_packets|packets)"[ \t\r\n>]*:[ \t\r\n>]*(-?\d{1,20}(?:\.\d{1,20})?'
                        r'(?:[eE][-+]?\d{1,3})?)')


@dataclass(frozen=True)
class JsonSum:
    """One ``end.sum_sent`` / ``end.sum_received`` / ``end.sum`` object of ``iperf3 -J``."""

    offset: int  # character offset in the text, to find its line
    key: str
    fields: dict[str, float]


def parse_json(text: str) -> list[JsonSum]:
    if '"bits_per_second"' not in text or '"end"' not in text:
        return []
    out = []
    for m in JSON_SUM.finditer(text):
        fields = {f.group(1): float(f.group(2)) for f in JSON_FIELD.finditer(m.group(2))}
        if "bits_per_second" in fields:
            out.append(JsonSum(m.start(), m.group(1), fields))
    return out
