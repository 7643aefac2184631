"""netperf output (formats of netperf's doc/netperf.texi): classic tables and omni.

Classic tables are found by their units line (``bytes bytes bytes secs.
10^6bits/sec``, ``... secs. per sec``); the value column is located in that
line, so the ``-c -C`` variants with CPU and service-demand columns read the
same way.  UDP_STREAM prints two rows (sent, received); RR tests print a
second row of socket sizes that holds no value.  Omni output comes as
``KEY=VALUE`` lines (``-k``) or a CSV header and row (``-o``).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

# MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 192.0.2.20 () port 0 ...
# TCP REQUEST/RESPONSE TEST from ...     UDP UNIDIRECTIONAL SEND TEST from ...
BANNER = re.compile(
    r"(?:MIGRATED[ \t]+)?(TCP|UDP|SCTP|DLCO|DLCL|STREAM|DG)[ \t]+"
    r"(STREAM|MAERTS|REQUEST/RESPONSE|Connect/Request/Response|UNIDIRECTIONAL SEND|SENDFILE)"
    r"[ \t]+TEST")
BANNER_TEST = {"STREAM": "STREAM", "MAERTS": "MAERTS", "REQUEST/RESPONSE": "RR",
               "Connect/Request/Response": "CRR", "UNIDIRECTIONAL SEND": "STREAM",
               "SENDFILE": "SENDFILE"}
# bytes  bytes   bytes    secs.    10^6bits/sec
# bytes  Bytes  bytes    bytes   secs.    per sec
UNITS_LINE = re.compile(r"(?i)^[ \t]*bytes[ \t].*\bsecs?\b")
VALUE_UNIT = re.compile(r"(?i)^(?:10\^\d{1,2}bits/s(?:ec)?|[KMG]?Bytes/s(?:ec)?|per_sec|Trans/s)$")
NUMBER = re.compile(r"^-?\d{1,15}(?:\.\d{1,9})?$")
# THROUGHPUT=9401.77
OMNI_KV = re.compile(r"^[ \t]*([A-Z][A-Z0-9_]{1,40})=([^\s]{0,80})[ \t]*$")
# Interim result: 9401.77 10^6bits/s over 1.000 seconds ending at 1700000000.123
INTERIM = re.compile(r"Interim result:[ \t]+(\d{1,15}(?:\.\d{1,9})?)[ \t]+(\S{1,20})[ \t]+over"
                     r"[ \t]+(\d{1,9}(?:\.\d{1,9})?)[ \t]+seconds")
OMNI_LATENCY = ("MEAN_LATENCY", "MIN_LATENCY", "MAX_LATENCY", "P50_LATENCY", "P90_LATENCY",
                "P99_LATENCY", "RT_LATENCY", "STDDEV_LATENCY")


@dataclass
class NetperfValue:
    test: str | None
    value: float
    unit: str
    side: str | None = None
    metric: str | None = None  # forced metric (omni latency keys)
    cpu_local: float | None = None
    cpu_remote: float | None = None
    sd_local: float | None = None
    sd_remote: float | None = None
    is_summary: bool = True
    interval_end: float | None = None
    extra: dict[str, str] = field(default_factory=dict)


def banner_test(line: str) -> str | None:
    m = BANNER.search(line) if "TEST" in line else None
    if m is None:
        return None
    proto = m.group(1) if m.group(1) in ("TCP", "UDP", "SCTP") else m.group(1)
    return f"{proto}_{BANNER_TEST[m.group(2)]}"


def unit_columns(line: str) -> list[str]:
    """Column tokens of a units line: 'per sec' and '% S' are one column each."""
    line = re.sub(r"(?i)per[ \t]+sec", "per_sec", line)
    line = re.sub(r"%[ \t]+([A-Za-z?])", r"%\1", line)
    return line.split()


class ClassicReader:
    """Feed lines; classic netperf tables come out as values."""

    def __init__(self) -> None:
        self.columns: list[str] | None = None
        self.value_col = -1
        self.rows_seen = 0
        self.wait = 0  # lines since the units line
        self.last_len = 0  # tokens of the last data row
        self.test_name = ""
        self.header: deque[str] = deque(maxlen=6)  # recent lines, for "Okay" (UDP) detection

    def feed(self, line: str, test: str | None) -> list[NetperfValue]:
        if UNITS_LINE.match(line):
            cols = unit_columns(line)
            idx = next((i for i, c in enumerate(cols) if VALUE_UNIT.match(c)), -1)
            if idx >= 0:
                self.columns, self.value_col, self.rows_seen, self.wait = cols, idx, 0, 0
                return []
        if self.columns is None:
            self.header.append(line)
            return []
        tokens = line.split()
        if not tokens:
            self.wait += 1
            if self.wait > 2 or self.rows_seen:
                self._reset()
            return []
        if not all(NUMBER.match(t) for t in tokens):
            if self.rows_seen == 0 and len(tokens) <= 2 and not any(
                    NUMBER.match(t) for t in tokens):
                return []  # "us/KB", "Demand": a header cell the client wrapped
            self._reset()
            return []
        if self.rows_seen and len(tokens) <= 2 and self.last_len > self.value_col:
            return []  # "0.846": the tail of the row above, wrapped
        if self.rows_seen and not self.udp:
            # more rows under one header: repeated runs of a stream or RR test
            out = self._row(tokens, test, first=True)
        else:
            out = self._row(tokens, test)
        self.rows_seen += 1
        self.last_len = len(tokens)
        if self.rows_seen >= 2 and self.udp:
            self._reset()
        return out

    def _reset(self) -> None:
        self.columns = None
        self.header.clear()

    @property
    def udp(self) -> bool:
        """A UDP_STREAM table: two rows (sent, received) per run."""
        return any("Okay" in h for h in self.header) or self.test_name.startswith("UDP_STREAM")

    def _row(self, tokens: list[str], test: str | None, first: bool = False) -> list[NetperfValue]:
        assert self.columns is not None
        cols, idx = self.columns, self.value_col
        unit = cols[idx]
        self.test_name = test or ""
        udp = self.udp
        is_rate = unit.lower() in ("per_sec", "trans/s")
        if test is None:
            test = ("UDP_STREAM" if udp else "TCP_RR") if is_rate or udp else "TCP_STREAM"
            if udp and not is_rate:
                test = "UDP_STREAM"
        if self.rows_seen == 0 or first:
            if len(tokens) <= idx:
                return []
            shift, side = 0, ("send" if udp else None)
        else:
            # UDP_STREAM's received row lacks the message size and errors columns
            if not udp or len(tokens) < idx - 1:
                return []
            shift, side = -2, "recv"
        value = NetperfValue(test, float(tokens[idx + shift]),
                             "trans/s" if unit == "per_sec" else unit, side)
        cpu = [i for i, c in enumerate(cols) if c.startswith("%")]
        sd = [i for i, c in enumerate(cols) if c.lower().startswith("us/")]
        for name, where in (("cpu_local", cpu[:1]), ("cpu_remote", cpu[1:2]),
                            ("sd_local", sd[:1]), ("sd_remote", sd[1:2])):
            if where and 0 <= where[0] + shift < len(tokens):
                setattr(value, name, float(tokens[where[0] + shift]))
        return [value]


class OmniReader:
    """KEY=VALUE blocks of ``netperf -- -k``; values come out when a block ends."""

    def __init__(self) -> None:
        self.block: dict[str, str] = {}

    def feed(self, line: str, test: str | None) -> list[NetperfValue]:
        m = OMNI_KV.match(line) if "=" in line else None
        if m:
            self.block[m.group(1)] = m.group(2)
            return []
        return self.flush(test)

    def flush(self, test: str | None) -> list[NetperfValue]:
        if not self.block:
            return []
        block, self.block = self.block, {}
        out: list[NetperfValue] = []
        test = block.get("PROTOCOL", "") + "_" + block["TEST"] if (
            "TEST" in block and "_" not in block["TEST"]) else block.get("TEST", test)
        if (v := _num(block.get("THROUGHPUT"))) is not None:
            unit = block.get("THROUGHPUT_UNITS", "10^6bits/s")
            out.append(NetperfValue(test, v, unit, cpu_local=_num(block.get("LOCAL_CPU_UTIL")),
                                    cpu_remote=_num(block.get("REMOTE_CPU_UTIL"))))
        if (v := _num(block.get("TRANSACTION_RATE"))) is not None and "THROUGHPUT" not in block:
            out.append(NetperfValue(test, v, "trans/s"))
        for key in OMNI_LATENCY:
            if (v := _num(block.get(key))) is not None:
                out.append(NetperfValue(test, v, "us", metric="latency",
                                        extra={"statistic": key.split("_")[0].lower()}))
        return out


def _num(text: str | None) -> float | None:
    if text is None or not NUMBER.match(text):
        return None
    return float(text)


def parse_interim(line: str, test: str | None) -> NetperfValue | None:
    m = INTERIM.search(line) if "Interim" in line else None
    if m is None:
        return None
    return NetperfValue(test, float(m.group(1)), m.group(2), is_summary=False,
                        interval_end=float(m.group(3)))


# the output titles of the omni selectors (netperf.texi, "Omni Output Selectors"): what the
# CSV header of ``-o`` and the column heads of ``-O`` print
OMNI_LATENCY_TITLE = re.compile(r"(?i)^(minimum|maximum|mean|50th percentile|90th percentile|"
                                r"99th percentile|stddev) latency microseconds$")
STATISTIC = {"minimum": "min", "maximum": "max", "mean": "mean", "50th percentile": "p50",
             "90th percentile": "p90", "99th percentile": "p99", "stddev": "stddev"}
OMNI_TITLE_WORDS = ("Throughput", "Latency", "Transaction Rate")


def omni_values(fields: dict[str, str], test: str | None) -> list[NetperfValue]:
    """The values of one omni result, by its output titles: throughput in its units (else
    the test's), the transaction rate, and the latencies (no stddev: a spread)."""
    out: list[NetperfValue] = []
    rr = bool(test and test.endswith("RR"))
    if (v := _num(fields.get("Throughput"))) is not None:
        unit = fields.get("Throughput Units") or ("Trans/s" if rr else "10^6bits/s")
        out.append(NetperfValue(test, v, unit))
    rate = next((t for t in fields if t.startswith("Transaction Rate")), None)
    if rate and "Throughput" not in fields and (v := _num(fields[rate])) is not None:
        out.append(NetperfValue(test, v, "trans/s"))
    for title, text in fields.items():
        m = OMNI_LATENCY_TITLE.match(title)
        if m and m.group(1).lower() != "stddev" and (v := _num(text)) is not None:
            out.append(NetperfValue(test, v, "us", metric="latency",
                                    extra={"statistic": STATISTIC[m.group(1).lower()]}))
    return out


def parse_omni_csv(header: str, row: str, test: str | None) -> list[NetperfValue]:
    """``-o`` output: its titles ('Minimum Latency Microseconds,...,Throughput,Throughput
    Units') then one row ('21,38.52,61,25923.61,Trans/s')."""
    names = [h.strip() for h in header.split(",")]
    values = [v.strip() for v in row.split(",")]
    if len(names) != len(values) or len(names) < 2 or not any(
            w in header for w in OMNI_TITLE_WORDS) or _num(values[0]) is None:
        return []
    return omni_values(dict(zip(names, values, strict=True)), test)


def parse_omni_columns(heads: list[str], row: str, test: str | None) -> list[NetperfValue]:
    """``-O`` output: each title wrapped over the lines above in a column of its own, the
    values under them::

        Minimum      90th         99th         Throughput
        Latency      Percentile   Percentile
        Microseconds Latency      Latency
                     Microseconds Microseconds
        29           42           58           24015.31
    """
    cells = [(m.start(), m.group()) for m in re.finditer(r"\S+", row)]
    if len(cells) < 2 or not all(NUMBER.match(t) for _, t in cells):
        return []
    starts = [s for s, _ in cells]
    titles: list[list[str]] = [[] for _ in cells]
    for line in heads:
        for m in re.finditer(r"\S+", line):
            col = max((k for k, s in enumerate(starts) if s <= m.start() + 1), default=-1)
            if col < 0:
                return []
            titles[col].append(m.group())
    names = [" ".join(t) for t in titles]
    if not any(w in n for n in names for w in OMNI_TITLE_WORDS):
        return []
    return omni_values(dict(zip(names, (t for _, t in cells), strict=True)), test)
