"""Units as written -> normalised value, unit and metric.

Throughput in Mbit/s, packet rates in pps, transaction rates in trans/s,
latency in us, loss in %.  iperf's and netperf's Bytes units are powers of 2
(``MBytes`` = 2**20 bytes), their bits units powers of 10; ``10^6bits/sec``
is Mbit/s.  In prose ``MB/s`` is taken as 10**6 bytes (``MiB/s`` as 2**20); a
capital ``B`` is a byte, a lowercase ``b`` a bit (``Gb/s`` vs ``GB/s``).
"""

from __future__ import annotations

import re

# The one vocabulary of rate and time units: the spellings the readers find after a number
# (``mlx.extract.inline.UNIT`` is built from it, so a unit ``normalize`` knows is a unit the
# prose, table and caption readers find) and the words the body prefilter looks for.
SPELLINGS = (
    r"[kKMGT]i?[bB]its?/s(?:ec)?", r"[KMGT]?bps", r"[kmg]bps", r"[kKMGT]i?b/s(?:ec)?",
    # (qperf writes "bw = 4.12 GB/sec")
    r"[kKMGT]i?B/s(?:ec)?", r"[kKMGT]i?Bytes/s(?:ec)?", r"[KMGT]Bps",
    # "950000 packets per second", "944506 xmit/s", "12000 frames/s": packet rates
    r"(?:packets|pkts?|frames)(?:/s(?:ec)?|[ \t]per[ \t]sec(?:ond)?)", r"(?:redir|xmit)/s",
    r"[kKmMG]?pps", r"[kKM]?IOPS",
    # "75140 msg/s", "120547 request/sec", "154643.22 Requests/s": transaction rates
    r"trans/s", r"tps", r"(?i:req(?:uest)?s?|msgs?|messages|transactions|ops|operations)/s(?:ec)?",
    r"(?i:requests|messages|transactions|operations)[ \t]per[ \t]sec(?:ond)?",
    r"usecs?", r"us", r"µs", r"μs", r"msecs?", r"ms", r"nsecs?", r"ns")
UNIT_PATTERN = "|".join(SPELLINGS)
# the literals the body prefilter takes as "a unit may stand here"
PREFILTER_WORDS = ("bits/s", "bit/s", "trans/s", "B/s", "b/s", "ytes/s", "req/s", "msg/s",
                   "msgs/s", "ops/s", "uest/s", "uests/s", "uest/sec", "kts/s", "kt/s",
                   "ames/s", "xmit/s", "redir/s", "per second", "per sec")

BIT_PREFIX = {"": 1e-6, "k": 1e-3, "m": 1.0, "g": 1e3, "t": 1e6}
BYTE_PREFIX_POW2 = {"": 1 / 2**20, "k": 1 / 2**10, "m": 1.0, "g": 2**10, "t": 2**20}
# "Mbits/sec" "Gbit/s" "Mbps" "Gb/s" "bits/sec" "MBit/s" (a lowercase b: bits)
# ("mbps" written lowercase means Mbit/s, not millibits)
BITS = re.compile(r"^([kKmMgGtT]?)(?:[bB]its?/s(?:ec)?|bps|b/s(?:ec)?)$")
# "MBytes/sec" "MB/s" "KBytes/sec" "GB/s" "MiB/s" (a capital B: bytes)
BYTES = re.compile(r"^([kKmMgGtT]?)(i?)(?:[bB]ytes?/s(?:ec)?|B/s(?:ec)?|Bps)$")
# netperf: "10^6bits/sec" "10^9bits/s" "10^3bits/s"
NETPERF_BITS = re.compile(r"(?i)^10\^(\d+)bits/s(?:ec)?$")
PPS = re.compile(r"(?i)^([kmg]?)pps$")
PACKETS = re.compile(r"(?i)^(?:packets|pkts?|frames|redir|xmit)"
                     r"(?:/s(?:ec)?|[ \t]per[ \t]sec(?:ond)?)$")
# "IOPS" "kIOPS" "MIOPS"
IOPS = re.compile(r"^([kKM]?)IOPS$")
TRANS = re.compile(r"(?i)^(?:trans(?:actions)?/s(?:ec)?|tps|per sec|trans\.?/s|rr/s|"
                   r"(?:req(?:uest)?s?|ops|operations|msgs?|messages)/s(?:ec)?|"
                   r"(?:requests|messages|transactions|operations)[ \t]per[ \t]sec(?:ond)?)$")
LATENCY = {"ns": 1e-3, "nsec": 1e-3, "us": 1.0, "usec": 1.0, "µs": 1.0, "μs": 1.0,
           "usecs": 1.0, "ms": 1e3, "msec": 1e3, "msecs": 1e3, "s": 1e6}
RATE_PREFIX = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}


def normalize(value: float, unit: str, bytes_pow2: bool = True) -> tuple[float, str, str] | None:
    """(value_norm, unit_norm, metric) for a value as written, None if no rate unit."""
    u = unit.strip()
    if m := NETPERF_BITS.match(u):
        return value * 10 ** int(m.group(1)) / 1e6, "Mbit/s", "throughput"
    if m := BITS.match(u):
        return value * BIT_PREFIX[m.group(1).lower()], "Mbit/s", "throughput"
    if m := BYTES.match(u):
        p = m.group(1).lower()
        factor = BYTE_PREFIX_POW2[p] * 2**20 * 8 / 1e6 if bytes_pow2 or m.group(2) else (
            {"": 1e-6, "k": 1e-3, "m": 1.0, "g": 1e3, "t": 1e6}[p] * 8)
        return value * factor, "Mbit/s", "throughput"
    if m := IOPS.match(u):
        return value * RATE_PREFIX[m.group(1).lower()], "IOPS", "rate"
    if m := PPS.match(u):
        return value * RATE_PREFIX[m.group(1).lower()], "pps", "rate"
    if PACKETS.match(u):
        return value, "pps", "rate"
    if TRANS.match(u):
        return value, "trans/s", "rate"
    if u.lower() in LATENCY:
        return value * LATENCY[u.lower()], "us", "latency"
    if u == "%":
        return value, "%", "loss"
    return None

