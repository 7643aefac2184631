"""Benchmark results of one message body: one row per measured value.

The body is read once into a ``Document`` (quote depths, diff hunks, wrapped lines
joined).  Readers then take the lines of each quote depth, all with one protocol
(``feed`` a line, ``flush`` at the end): the iperf block reader, netperf's classic
and omni readers, the hand-typed table reader; single lines go to the summary,
ping and prose parsers.  Only when something was found is the outline read: the
label lines above each value with their nesting (``Without this patch:`` over
``* idle link:``), the section heading above repeated labels, and the command that
produced it.  The outer label that names a condition gives ``label`` and
``condition``; inner labels and table rows give ``config``.  Values the text pairs
itself (a table row, ``612 -> 655 Mbps``, ``from X to Y``) share a ``pair`` key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from mlx.extract import inline, iperf, netperf, tools
from mlx.extract.conditions import condition_of
from mlx.extract.document import PREFILTERS, Document, head
from mlx.extract.outline import COMMAND, parse_command, with_context
from mlx.extract.tables import TableReader
from mlx.extract.units import PREFILTER_WORDS, normalize
from mlx.rows import ResultRow
from mlx.subjects import names_a_commit, parse_subject
from mlx.text import Words, matched_at

# words that also stand in code, paths and prose: a unit or a test name only in the shape
# beside them (read where the scan found the word, in a window around it)
CONFIRMED = {
    # "10 Mb/s" "2.1GB/s" "MiB/s" "b/sec", not "lib/string.c", "usb/serial", "+++ b/src"
    "b/s": (BARE_SLASH := re.compile(r"(?<![A-Za-z_/.-])[kKmMgGtT]?i?[bB]/s(?:ec)?"
                                     r"(?![A-Za-z_/.])")),
    "B/s": BARE_SLASH,
    # "avg 12.3 usec" "usec/Tran", not "tv_usec", "usecs_to_jiffies(10)"
    "usec": re.compile(r"(?<![A-Za-z_])usecs?(?![A-Za-z_(])"),
    # netperf's "TCP_STREAM" "UDP_RR" "TCP_CRR", not "SOCK_STREAM", "SCHED_RR"
    "_STREAM": (NETPERF_TEST := re.compile(r"(?<![A-Za-z_])(?:TCP|UDP|SCTP|DLC[OL]|DG|STREAM)_"
                                           r"(?:STREAM|C?RR)\b")),
    "_RR": NETPERF_TEST,
    # tcrypt's "6066473 operations in 1 seconds", not "the operations in this path"
    "operations in": re.compile(r"\d operations in \d"),
}
# a body without any of these (or of CONFIRMED) holds no result: most messages stop here
# (all found in one pass, PREFILTER below; "pps" and "tps" also sit inside "mappings",
# "https", so they count only where BODY_RATE finds a rate)
SLASH_TOKENS = tuple(w for w in PREFILTER_WORDS if w not in CONFIRMED)
BODY_TOKENS = ("bps", "10^", "per sec", "Trans.", "_MAERTS", "THROUGHPUT", "opers/sec",
               "data pts", "Interim", "atency", "_per_second", "IOPS", "rtt min", "round-trip",
               "icmp_seq", "nstat", tools.OPENSSL_LEGEND)
BODY_RATE = re.compile(r"\d[ \t]?[kKmMG]?[pt]ps\b|[ \t][kKmMG]?pps[ \t:,)]")
# a digit followed by a unit, maybe across an aligned gap: the line may hold a value
UNIT_HINT = re.compile(r"\d[ \t]{0," + str(inline.ALIGNED_GAP) + r"}(?:[KMGTkmgt]?i?(?:bps|bits?/|"
                       r"b/s|B/s|Bps|pps|Bytes)|tps|[Tt]rans|[uµμmn]s(?:ec)?\b|10\^|[kKM]?IOPS|"
                       r"req/s|(?i:req(?:uest)?s?|msgs?|messages|transactions|ops|operations)"
                       r"(?:/s|[ \t]per[ \t]sec))|"  # "120547 request/sec", "75140 msg/s"
                       r"\d[ \t]?%[ \t]*(?:-+>|=+>|→)|\d[ \t]?%[ \t]+to[ \t]+\d|"
                       r"_(?:C?RR|STREAM|MAERTS)[ \t]*[:=][ \t]*\d")  # "TCP_RR: 740"
# "4104882": a number alone on its line
BARE_NUMBER = re.compile(r"^[ \t]*(\d{1,12}(?:\.\d{1,6})?)[ \t]*$")
MAX_ROWS = 5000  # per message, over every reader
# the prefilter's words in one pass: a unit or a tool's word ("unit"), "pps"/"tps" where a
# rate may stand ("rate"), each CONFIRMED word (its own tag)
PREFILTER = Words({"unit": SLASH_TOKENS + BODY_TOKENS, "rate": ("pps", "tps"),
                   **{word: (word,) for word in CONFIRMED}}, PREFILTERS)


def may_hold_results(body: str) -> bool:
    """The cheap prefilter: a unit or a tool's word somewhere in the body."""
    hits = PREFILTER.hits(body)
    if "unit" in hits:
        return True
    if any(CONFIRMED[w].search(body, max(end - 16, 0), end + 8)
           for w, ends in hits.items() if w in CONFIRMED for end in ends):
        return True
    # a BODY_RATE match ends one past a "pps"/"tps" and starts 2-5 characters before
    # its end: tried there only, not at every digit and blank of the body
    return bool(matched_at(BODY_RATE, body, hits.get("rate", ()), range(2, 6)))


def extract_results(body: str | None, subject: str | None = None) -> list[ResultRow]:
    """Every measured value of one body, with its labels, condition and command."""
    if not body:
        return []
    text = head(body)  # a patch's own diff holds code, no results
    if not may_hold_results(text):
        return []
    doc = Document.of(text)
    found = _find(doc)
    if not found:
        return []
    subj = parse_subject(subject)
    # a patch's title names what the patch brings: the label naming it is the patched run;
    # in a thread about no patch (a question, a status report) a side is a side of a change
    # only where its label names one ("Baseline Test" over tuning runs names none)
    return with_context(found, doc, subj.title if subj.kind == "patch" else None,
                        about_a_change=not subject or subj.kind in ("patch", "robot") or
                        names_a_commit(subj.title))


# ---------------------------------------------------------------- finding values


@dataclass
class _Found:
    """Rows found so far, by line; the one place MAX_ROWS is kept."""

    rows: list[tuple[int, ResultRow]] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return len(self.rows) >= MAX_ROWS

    def add(self, i: int, rows: list[ResultRow]) -> None:
        room = MAX_ROWS - len(self.rows)
        self.rows += [(i, r) for r in rows[:max(room, 0)]]


@dataclass
class _Readers:
    """The stateful readers of one quote depth."""

    table: netperf.ClassicReader = field(default_factory=netperf.ClassicReader)
    omni: netperf.OmniReader = field(default_factory=netperf.OmniReader)
    hand: TableReader = field(default_factory=TableReader)
    pasted: tools.ToolReader = field(default_factory=tools.ToolReader)
    iperf: list[tuple[int, iperf.IperfValue]] = field(default_factory=list)
    test: str | None = None  # netperf test named by the last banner
    bare: tuple[str, str, int] | None = None  # super_netperf's (test, unit, lines left)


def _find(doc: Document) -> list[tuple[int, ResultRow]]:
    """(line index, partial row) of every value, diff hunks skipped."""
    out = _Found()
    readers: dict[int, _Readers] = {}
    para = _Prose(out)
    skip = -1
    for i, line in enumerate(doc.lines):
        if out.full:
            break
        if line.in_diff or line.in_signature or i <= skip:
            para.flush()
            continue
        text, depth = line.text, line.depth
        r = readers.setdefault(depth, _Readers())
        if "TEST" in text and (banner := netperf.banner_test(text)):
            r.test = banner
        if "," in text and i + 1 < len(doc) and any(w in text for w in netperf.OMNI_TITLE_WORDS):
            if rows := [_netperf_row(v, "omni") for v in netperf.parse_omni_csv(
                    text, doc.text(i + 1), r.test)]:  # netperf -o: titles, then the values
                para.flush()
                out.add(i + 1, rows)
                skip = i + 1
                continue
        if r.table.columns is None and (heads := _omni_heads(doc, i)) and (rows := [
                _netperf_row(v, "omni") for v in netperf.parse_omni_columns(heads, text,
                                                                            r.test)]):
            para.flush()  # netperf -O: the titles in columns above the values
            out.add(i, rows)
            continue
        if r.omni.block or "=" in text:
            out.add(i, [_netperf_row(v, "omni") for v in r.omni.feed(text, r.test)])
        value = iperf.parse_line(text) if "sec" in text else None
        if value is not None:
            para.flush()
            r.iperf.append((i, value))
            continue
        _flush_iperf(r.iperf, out)
        if borrowed := tools.borrowed_units(text) or tools.tcrypt_values(text):
            out.add(i, [_tool_row(v) for v in borrowed])  # "portrx: 10018143 rx: 9856910 pps"
            if borrowed[0].tool == "tcrypt":
                para.flush()
                continue
        rows = _bare_value(text, r) or _tool_values(i, text, r, depth)
        if rows:
            para.flush()
            out.add(i, rows)
        elif not text.strip() or ("round-trip" in text or "rtt " in text) and \
                inline.PING_SUMMARY.search(text):
            para.flush()  # a blank line, or a ping summary with nothing measured in it
        else:
            para.add(i, depth, text)
    para.flush()
    for r in readers.values():
        _flush_iperf(r.iperf, out)
        out.add(len(doc) - 1, [_netperf_row(v, "omni") for v in r.omni.flush(None)])
    for row in _json_rows(doc):
        out.add(row.line_no - 1, [row])
    return _pings_without_summary(sorted(out.rows, key=lambda x: x[0]))


def _omni_heads(doc: Document, i: int) -> list[str]:
    """The title lines right above line ``i`` when it holds numbers only (``-O``)."""
    tokens = doc.text(i).split()
    if len(tokens) < 2 or not all(BARE_NUMBER.match(t) for t in tokens):
        return []
    heads: list[str] = []
    depth = doc.lines[i].depth
    for k in range(i - 1, max(i - 6, -1), -1):
        line = doc.lines[k]
        if line.depth != depth or not line.text.strip() or "TEST" in line.text or \
                any(BARE_NUMBER.match(t) for t in line.text.split()):
            break
        heads.insert(0, line.text)
    return heads if any(w in h for h in heads for w in netperf.OMNI_TITLE_WORDS) else []


def _bare_value(text: str, r: _Readers) -> list[ResultRow]:
    """super_netperf prints one bare number per run: the sum of its streams, in the unit of
    its test (``# super_netperf 200 -H host -t TCP_RR`` then ``4104882``)."""
    if "super_netperf" in text and (m := COMMAND.search(text)):
        test = parse_command(m.group(1)).get("test", "TCP_STREAM")
        r.bare = (test, "trans/s" if test.endswith("RR") else "10^6bits/s", 3)
        return []
    if r.bare is None:
        return []
    test, unit, left = r.bare
    r.bare = (test, unit, left - 1) if left > 1 else None
    if m := BARE_NUMBER.match(text):
        r.bare = None
        return [_row(float(m.group(1)), unit, tool="netperf", test=test)]
    return []


def _tool_values(i: int, text: str, r: _Readers, depth: int) -> list[ResultRow]:
    """Values of one line read by its shape: netperf tables, hand tables, summaries, ping."""
    in_netperf = r.table.columns is not None
    rows = [_netperf_row(v, "table") for v in r.table.feed(text, r.test)]
    if rows or in_netperf:
        return rows
    if len(text) < 300:
        rows = [_tool_row(v) for v in r.pasted.feed(text)]
        hand = r.hand.feed(i, text)
        rows = rows or [_inline_row(t.value, "table", f"t{depth}.{t.value.pair}") for t in hand]
    if rows or not UNIT_HINT.search(text):
        return rows
    if (v := netperf.parse_interim(text, r.test)) is not None:
        return [_netperf_row(v, "interim")]
    if (s := inline.parse_summary(text)) is not None:
        return [_inline_row(s, "summary")]
    return [_inline_row(v, "ping") for v in inline.parse_ping(text)]


@dataclass
class _Prose:
    """The lines of the paragraph being read, parsed as prose when it ends."""

    out: _Found
    depth: int = -1
    lines: list[tuple[int, str]] = field(default_factory=list)

    def add(self, i: int, depth: int, text: str) -> None:
        if depth != self.depth:
            self.flush()
            self.depth = depth
        self.lines.append((i, text))

    def flush(self) -> None:
        lines, self.lines = self.lines, []
        if not any(UNIT_HINT.search(t) for _, t in lines):
            return
        first = lines[0][0]
        for k, v in inline.parse_prose([t for _, t in lines]):
            pair = None if v.pair is None else f"p{first}.{v.pair}"
            self.out.add(lines[k][0], [_inline_row(v, "inline", pair)])


def _pings_without_summary(rows: list[tuple[int, ResultRow]]) -> list[tuple[int, ResultRow]]:
    """ping reply lines are intervals, unless no summary line follows them."""
    if not any(r.tool == "ping" for _, r in rows):
        return rows
    summarised = {r.quote_depth for _, r in rows if r.tool == "ping" and r.statistic != "reply"
                  and r.metric == "latency"}
    return [(i, replace(r, is_summary=r.quote_depth not in summarised))
            if r.tool == "ping" and r.statistic == "reply" else (i, r) for i, r in rows]


def _json_rows(doc: Document) -> list[ResultRow]:
    """Final sums of ``iperf3 -J`` output pasted into a message."""
    text = "\n".join(line.text for line in doc.lines)
    out = []
    for s in iperf.parse_json(text):
        f = s.fields
        udp = "jitter_ms" in f
        side = {"sum_sent": "sender", "sum_received": "receiver"}.get(s.key)
        base: dict[str, Any] = dict(tool="iperf3", test="udp" if udp else "tcp", side=side,
                                    stream="SUM", interval_start=f.get("start"),
                                    interval_end=f.get("end"), is_summary=True,
                                    line_no=text.count("\n", 0, s.offset) + 1)
        retr = f.get("retransmits")
        out.append(_row(f["bits_per_second"], "bits/sec", retransmits=int(retr) if retr is not None
                        else None, **base))
        if udp:
            out.append(_row(f["jitter_ms"], "ms", metric="latency", statistic="jitter", **base))
            if "lost_percent" in f:
                out.append(_row(f["lost_percent"], "%", metric="loss", **base))
    return out


def _flush_iperf(block: list[tuple[int, iperf.IperfValue]], out: _Found) -> None:
    if not block:
        return
    values = [v for _, v in block]
    tool = "iperf3" if values[0].decimals == 2 or any(v.side for v in values) else "iperf2"
    summaries = iperf.mark_summaries(values, tool)
    for (i, v), summary in zip(block, summaries, strict=True):
        test = "udp" if v.jitter_ms is not None else "tcp"
        base: dict[str, Any] = dict(tool=tool, test=test, side=v.side, stream=v.stream,
                                    role=v.role, interval_start=v.start, interval_end=v.end,
                                    is_summary=summary, config=v.prefix)
        rows = [_row(v.rate, v.rate_unit, retransmits=v.retransmits, **base)]
        if v.jitter_ms is not None:
            rows.append(_row(v.jitter_ms, "ms", metric="latency", statistic="jitter", **base))
        if v.loss_pct is not None:
            rows.append(_row(v.loss_pct, "%", metric="loss", **base))
        out.add(i, rows)
    block.clear()


def _row(value: float, unit: str, metric: str | None = None, **kw: Any) -> ResultRow:
    # iperf's and netperf's bytes are powers of 2; typed ones and openssl's thousands not
    norm = normalize(value, unit, bytes_pow2=kw.get("tool") not in ("inline", "table", "openssl"))
    value_norm, unit_norm, found_metric = norm if norm else (None, None, "unknown")
    return ResultRow(metric=metric or found_metric, value=value, unit=unit,
                     value_norm=value_norm, unit_norm=unit_norm, **kw)


def _tool_row(v: tools.ToolValue) -> ResultRow:
    return _row(v.value, v.unit, tool=v.tool, test=v.test, config=v.label, statistic=v.statistic)


def _netperf_row(v: netperf.NetperfValue, kind: str) -> ResultRow:
    return _row(v.value, v.unit, metric=v.metric, tool="netperf", test=v.test, side=v.side,
                cpu_local=v.cpu_local, cpu_remote=v.cpu_remote, sd_local=v.sd_local,
                sd_remote=v.sd_remote, is_summary=v.is_summary, interval_end=v.interval_end,
                statistic=v.extra.get("statistic"))


def _inline_row(v: inline.InlineValue, tool: str, pair: str | None = None) -> ResultRow:
    kw: dict[str, Any] = dict(tool=tool, test=v.test, label=v.label, config=v.config, pair=pair,
                              statistic=v.statistic, condition=v.condition or condition_of(v.label))
    if v.metric == "count" or v.unit is None:
        return ResultRow(metric="count", value=v.value, unit="", value_norm=v.value,
                         unit_norm="count", **kw)
    if v.statistic == "reply":
        kw["is_summary"] = False
    return _row(v.value, v.unit, metric=v.metric, **kw)
