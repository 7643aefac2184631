"""Output of other tools people paste, read by their own shape.

``nstat`` one-second snapshots (``nstat -n; sleep 1; nstat``: each packet counter is
a packet rate)::

    Udp6InDatagrams                 615091             0.0

``openssl speed`` tables (cells in 1000s of bytes per second, rows wrapped by mailers)::

    The 'numbers' are in 1000s of bytes per second processed.
    type             16 bytes     64 bytes    256 bytes
    sha256            4585.64k    10527.10k    18755.07k

A stats line whose first field has no unit beside fields that have one takes theirs
(``ens6f1: portrx: 10018143 rx:  9856910 pps   drop:   161228 pps``).

The kernel's crypto speed test, ``tcrypt`` (``modprobe tcrypt mode=500 sec=1``): each
line an operation rate (``6066473 operations in 1 seconds (97063568 bytes)``, a hash's
``123456 opers/sec, 123456789 bytes/sec``), named by its test's parenthesis::

    tcrypt: test 0 (128 bit key, 16 byte blocks): 6066473 operations in 1 seconds (97063568 bytes)

flent's summary of a run (its statistics' columns, then per row the values, the unit and
the count of data points; ``N/A`` where a statistic has no value; the count is none)::

    Summary of tcp_2down run 'fq_codel':
                             avg       median      # data pts
     Ping (ms) ICMP   :      1.21      1.10 ms         350
     TCP download avg :   4711.02       N/A Mbits/s    350

Column-aligned output whose header names a unit, as the kernel's XDP samples print it
(``xdp_rxq_info``): a value is the number standing under the unit's column::

    XDP stats       CPU     pps         issue-pps
    XDP-RX CPU      0       17784270    0
    XDP-RX CPU      total   17784270
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# "nstat -n ; sleep 1 ; nstat | grep Udp": the counters of one second
NSTAT_COMMAND = re.compile(r"\bnstat\b.{0,40}\bsleep[ \t]+1\b.{0,20}\bnstat\b")
NSTAT_ROW = re.compile(r"^[ \t]*([A-Z][A-Za-z0-9]{2,40})[ \t]+(\d{1,15})[ \t]+\d+(?:\.\d+)?[ \t]*$")
# counters of packets (errors and drops are no rate of what was measured)
NSTAT_PACKETS = re.compile(r"(?:In|Out)(?:Datagrams|Segs|Pkts|Receives|Requests|Delivers)$")
OPENSSL_LEGEND = "'numbers' are in 1000s of bytes per second"
OPENSSL_CELL = re.compile(r"(?<!\S)(\d{1,9}\.\d{2})k(?!\S)")
OPENSSL_ROW = re.compile(r"^[ \t]*([A-Za-z][\w-]{0,30}(?:[ \t][\w-]{1,20})?)?[ \t]*"
                         r"(?:\d{1,9}\.\d{2}k[ \t]*)+$")
#                          avg       median      # data pts
FLENT_HEAD = re.compile(r"^[ \t]*((?:(?:avg|mean|median|min|max|\d{2}th(?:[ \t]%)?)[ \t]+){1,5})"
                        r"#[ \t]data[ \t]pts[ \t]*$")
# flent's line over a summary names its test: "Summary of rrul test run from 2026-03-02 ...",
# "Summary of tcp_nup test run 'fq_codel' (at ...):", "Summary of tcp_2down run 'x':"
FLENT_TEST = re.compile(r"^[ \t]*Summary of ([\w.-]{1,40}) (?:test )?run\b")
FLENT_STAT = re.compile(r"avg|mean|median|min|max|\d{2}th(?:[ \t]%)?")
#  TCP download::1  :    2672.99   2568.73 Mbits/s    350      Ping (ms) ICMP : 0.53 0.30 ms 350
FLENT_ROW = re.compile(r"^[ \t]*([A-Za-z](?:[^:]|::){0,60}?)[ \t]*:[ \t]+"
                       r"((?:(?:\d{1,12}(?:\.\d{1,6})?|N/A)"
                       r"[ \t]+){1,5})([A-Za-z/%]{1,12})[ \t]+\d{1,9}[ \t]*$")
# a header cell that is a unit: "pps", "Mbps", "Gbit/s"
UNIT_TOKEN = re.compile(r"^(?:[kKmMG]?pps|[KMG]bps|[KMG]bits?/s(?:ec)?|trans/s)$")
NUMBER = re.compile(r"^\d{1,3}(?:,\d{3})+$|^\d{1,15}$")
TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class ToolValue:
    """One value of a pasted tool's output: its row names what it counts."""

    value: float
    unit: str
    tool: str
    label: str | None
    statistic: str | None = None  # "avg", "median" of flent's summary columns
    test: str | None = None  # flent's test ("rrul", "tcp_nup"), from the line over its summary


@dataclass
class ToolReader:
    """Feed the lines of one quote depth; values of the shapes above come out."""

    mode: str | None = None  # "nstat", "openssl", "columns", "flent"
    left: int = 0  # lines a trigger waits for its first row
    rows: int = 0
    columns: list[tuple[int, int, str]] = field(default_factory=list)  # unit cells: span, unit
    row_label: str | None = None
    statistics: list[str] = field(default_factory=list)  # flent's columns
    flent_test: str | None = None  # the test the last "Summary of ... run" line named

    def feed(self, text: str) -> list[ToolValue]:
        if self.mode is None:
            self._start(text)
            return []
        out = getattr(self, "_" + self.mode)(text)
        if out is not None:
            self.rows += 1
            return out
        if self.rows or self.left <= 0:
            if self.mode == "flent":
                self.flent_test = None  # (the next summary names its own)
            self.mode = None  # the block ended: the line may start another
            self._start(text)
        else:
            self.left -= 1
        return []

    def _start(self, text: str) -> None:
        self.rows, self.left, self.columns, self.row_label = 0, 3, [], None
        if "nstat" in text and NSTAT_COMMAND.search(text):
            self.mode = "nstat"
        elif OPENSSL_LEGEND in text:
            self.mode, self.left = "openssl", 4
        elif "Summary of" in text and (m := FLENT_TEST.match(text)):
            self.flent_test = m.group(1)
        elif "data pts" in text and (m := FLENT_HEAD.match(text)):
            # ("99th %" is one statistic of two words)
            self.mode, self.left = "flent", 0
            self.statistics = [re.sub(r"[ \t]+", " ", st) for st in FLENT_STAT.findall(m.group(1))]
        elif ("ps " in text or "/s" in text or text.endswith("ps")) and \
                (cols := _unit_columns(text)):  # the cheap test first: most lines name no unit
            self.mode, self.columns, self.left = "columns", cols, 0

    # each reads one line of its block: its values, or None when the line is none of it

    def _nstat(self, text: str) -> list[ToolValue] | None:
        m = NSTAT_ROW.match(text)
        if m is None:
            return None
        if not NSTAT_PACKETS.search(m.group(1)):
            return []  # an error or drop counter: no rate of what was measured
        return [ToolValue(float(m.group(2)), "pps", "nstat", m.group(1))]

    def _openssl(self, text: str) -> list[ToolValue] | None:
        m = OPENSSL_ROW.match(text)
        if m is None:
            return [] if text.strip().startswith(("type", "bytes")) else None
        if m.group(1):
            self.row_label = m.group(1).strip()
        return [ToolValue(float(c), "kB/s", "openssl", self.row_label)
                for c in OPENSSL_CELL.findall(text)]

    def _flent(self, text: str) -> list[ToolValue] | None:
        m = FLENT_ROW.match(text)
        if m is None:
            return None
        values = m.group(2).split()
        if len(values) != len(self.statistics):
            return None
        label = re.sub(r"[ \t]+", " ", m.group(1)).strip()
        return [ToolValue(float(v), m.group(3), "flent", label, stat, self.flent_test)
                for v, stat in zip(values, self.statistics, strict=True) if v != "N/A"]

    def _columns(self, text: str) -> list[ToolValue] | None:
        tokens = [(t.start(), t.end(), t.group()) for t in TOKEN.finditer(text)]
        out = []
        for start, end, unit in self.columns:
            for s, e, tok in tokens:
                # left-aligned under the unit's name, or right-aligned to its end
                if NUMBER.match(tok) and (abs(s - start) <= 1 or abs(e - end) <= 1):
                    label = " ".join(t for a, _, t in tokens if a < s) or None
                    out.append(ToolValue(float(tok.replace(",", "")), unit, "columns", label))
                    break
        return out or None


def _unit_columns(text: str) -> list[tuple[int, int, str]]:
    """The unit cells of a header line: three cells or more, none of them a number."""
    tokens = [(t.start(), t.end(), t.group()) for t in TOKEN.finditer(text)]
    if len(tokens) < 3 or len(tokens) > 12 or any(c.isdigit() for _, _, t in tokens for c in t):
        return []
    return [(s, e, t) for s, e, t in tokens if UNIT_TOKEN.match(t)]


# tcrypt: test 0 (128 bit key, 16 byte blocks): 6066473 operations in 1 seconds (97063568 bytes)
TCRYPT_OPS = re.compile(r"(?:\btest[ \t]+\d{1,4}[ \t]+\(([^)]{1,120})\):[ \t]*)?(\d{1,12}) "
                        r"operations in (\d{1,4}) seconds? \(\d{1,20} bytes\)")
# tcrypt: test  5 ( 256 byte blocks,  256 bytes per update,   1 updates):  1139215 opers/sec,
#  291639040 bytes/sec
TCRYPT_HASH = re.compile(r"(?:\btest[ \t]+\d{1,4}[ \t]+\(([^)]{1,120})\):[ \t]*)?(\d{1,12}) "
                         r"opers/sec,[ \t]*\d{1,20} bytes/sec")


def tcrypt_values(text: str) -> list[ToolValue]:
    """The operation rate of one tcrypt line (the test's parenthesis names its row)."""
    if "oper" not in text:
        return []
    if m := TCRYPT_OPS.search(text):
        secs = int(m.group(3))
        return [ToolValue(int(m.group(2)) / secs, "ops/s", "tcrypt", _squeezed(m.group(1)))] \
            if secs else []
    if m := TCRYPT_HASH.search(text):
        return [ToolValue(float(m.group(2)), "ops/s", "tcrypt", _squeezed(m.group(1)))]
    return []


def _squeezed(text: str | None) -> str | None:
    return re.sub(r"[ \t]+", " ", text).strip() if text else None


# "portrx: 10018143 rx:  9856910 pps": a unit-less field before a field with a unit
UNITLESS_FIELD = re.compile(
    r"(?<![\w.])([A-Za-z_][\w-]{0,20}):[ \t]+(\d{1,15})[ \t]+(?=[A-Za-z_][\w-]{0,20}:[ \t]+"
    r"\d{1,15}(?:\.\d{1,6})?[ \t]?([kKmMG]?pps|[KMG]?bps|[KMG]bits?/s(?:ec)?)(?![\w/]))")


def borrowed_units(text: str) -> list[ToolValue]:
    """Fields of one stats line that print no unit, in the unit of the field after them."""
    if text.count(":") < 2 or "ps" not in text:
        return []
    return [ToolValue(float(m.group(2)), m.group(3), "inline", m.group(1))
            for m in UNITLESS_FIELD.finditer(text)]
