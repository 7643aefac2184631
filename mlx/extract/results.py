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
from mlx.extract.conditions import Label, condition_of, effective_conditions, resolve, short_name
from mlx.extract.document import PREFILTERS, Document, head, outline_position
from mlx.extract.tables import TableReader
from mlx.extract.units import PREFILTER_WORDS, normalize
from mlx.rows import ResultRow
from mlx.subjects import parse_subject
from mlx.text import Words, matched_at

# a body without any of these holds no result: most messages stop here (all found in
# one pass, PREFILTER below; "pps" and "tps" also sit inside "mappings", "https", so they
# count only where BODY_RATE finds a rate)
SLASH_TOKENS = PREFILTER_WORDS
BODY_TOKENS = ("bps", "10^", "per sec", "Trans.", "_STREAM", "_RR", "_MAERTS", "THROUGHPUT",
               "operations in", "opers/sec", "data pts",
               "Interim", "usec", "atency", "_per_second", "IOPS", "rtt min", "round-trip",
               "nstat", tools.OPENSSL_LEGEND)
BODY_RATE = re.compile(r"\d[ \t]?[kKmMG]?[pt]ps\b|[ \t][kKmMG]?pps[ \t:,)]")
# a digit followed by a unit: the line may hold a value
UNIT_HINT = re.compile(r"\d[ \t]?(?:[KMGTkmgt]?i?(?:bps|bits?/|b/s|B/s|Bps|pps|Bytes)|tps|[Tt]rans|"
                       r"[uµμmn]s(?:ec)?\b|10\^|[kKM]?IOPS|req/s)")
# pbx4 ~ # iperf3 -c 10.4.0.10 -P2 -R      $ netperf -H 192.0.2.1 -t TCP_RR -l 30
COMMAND = re.compile(r"(?:^|[#$>%][ \t]*|[ \t])((?:sudo[ \t]+)?(?:ip[ \t]+netns[ \t]+exec[ \t]+"
                     r"\S{1,40}[ \t]+)?(iperf3|iperf|netperf|super_netperf|neper|tcp_rr|tcp_stream)"
                     r"(?:[ \t]+[^\n]{0,300})?)$")
PROMPT_HOST = re.compile(r"^(?:\[?[\w.-]{1,40}@)?([\w.-]{1,40})[ \t:]{1,3}[~/\w.-]{0,40}[ \t]*[#$]")
# -- 0.0.20180708 w/napi_gro_receive patch --     == with patch ==     ** baseline **
FENCED = re.compile(r"^(-{2,}|={2,}|\*{2,}|#{2,})[ \t]*([^\n]{0,120}?)[ \t]*"
                    r"(?:-{2,}|={2,}|\*{2,}|#{2,})?$")
# "On Tue, Mar 05, 2024 at 10:00:00AM +0100, Alice Novak wrote:": no label
ATTRIBUTION = re.compile(r"(?i)\b(?:wrote|writes|said|schrieb|a écrit)[ \t]*:$")
IPERF_CHATTER = re.compile(r"(?i)^(connecting to|server listening|accepted connection|client "
                           r"connecting|tcp window size|udp buffer size|iperf done|reverse mode|"
                           r"starting test|test complete|\[\s*\d+\] local|\[ ?id\]|"
                           r"-{2,3} [\w.:-]{1,60} ping statistics|"
                           # flent's title over its summary: "Summary of tcp_2down run 'x':"
                           r"summary of [\w-]{1,40} run ')")
# "DCHE = 0b", "v6.8 vanilla", "kernel 6.1 + fix": a short line may label the runs under it
# (one cell: a table header "   on      off" or "XDP stats     CPU     pps" is no label)
SHORT_LABEL = re.compile(r"^(?!.*\S {3,}\S)[ \t]*[\w(](?:[^.,;!?\t ]| (?! ))"
                         r"[^.,;!?\t]{0,50}?[\w)]$")
# what starts a tool's output: "[ ID] Interval", "MIGRATED TCP STREAM TEST", "$ iperf3 -c"
TOOL_START = re.compile(r"^\[ ?ID\]|^\[ *\d+\] local |^Connecting to host|TEST from|"
                        r"^[\w@:~.-]{0,40}[#$>] ?(?:sudo )?(?:iperf|netperf|super_netperf|ping)|"
                        r"^(?:iperf|netperf) |^-{2,3} [\w.:-]{1,60} ping statistics|^PING ")
# "The changes slowed down performance by about 8.1% in the case of SRv6.": a sentence
SENTENCE = re.compile(r"^[A-Z][^:]{40,}[.!?]$")
# "4104882": a number alone on its line
BARE_NUMBER = re.compile(r"^[ \t]*(\d{1,12}(?:\.\d{1,6})?)[ \t]*$")
MAX_ROWS = 5000  # per message, over every reader
# the pair key of a table whose rows are the sides ("before | ..." / "after | ...")
ROW_SIDES = re.compile(r"\.c\d+$")




def parse_command(command: str) -> dict[str, Any]:
    """streams, reverse, protocol, duration, test of an iperf/netperf invocation."""
    toks = command.split()
    out: dict[str, Any] = {}
    tool = next((t for t in toks if t in ("iperf3", "iperf", "netperf", "super_netperf",
                                          "neper")), "")
    for i, t in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if t in ("-P", "--parallel") and nxt.isdigit():
            out["streams"] = int(nxt)
        elif re.fullmatch(r"-P\d{1,4}", t):
            out["streams"] = int(t[2:])
        elif t in ("-R", "--reverse"):
            out["reverse"] = True
        elif t in ("-u", "--udp"):
            out["protocol"] = "udp"
        elif t == "--bidir":
            out["bidir"] = True
        elif t in ("-t", "--time", "-l") and re.fullmatch(r"\d{1,6}(\.\d+)?", nxt):
            out["duration"] = float(nxt)
        elif t == "-t" and re.fullmatch(r"[A-Z][A-Z0-9_]{2,30}", nxt):
            out["test"] = nxt
    if tool == "super_netperf" and len(toks) > 1 and toks[1].isdigit():
        out["streams"] = int(toks[1])
    if tool.startswith("iperf"):
        out.setdefault("protocol", "tcp")
        out["tool"] = "iperf3" if tool == "iperf3" else "iperf2"
    elif tool:
        out["tool"] = "netperf" if "netperf" in tool else tool
    return out


# the prefilter's words in one pass: a unit or a tool's word ("unit"), or "pps"/"tps"
# where a rate may stand ("rate")
PREFILTER = Words({"unit": SLASH_TOKENS + BODY_TOKENS, "rate": ("pps", "tps")}, PREFILTERS)


def may_hold_results(body: str) -> bool:
    """The cheap prefilter: a unit or a tool's word somewhere in the body."""
    hits = PREFILTER.hits(body)
    if "unit" in hits:
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
    # a patch's title names what the patch brings: the label naming it is the patched run
    return _with_context(found, doc, subj.title if subj.kind == "patch" else None)


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

    table: netperf.TableReader = field(default_factory=netperf.TableReader)
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
    return _row(v.value, v.unit, tool=v.tool, test=None, config=v.label, statistic=v.statistic)


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


# ---------------------------------------------------------------- the outline


@dataclass
class _Label:
    indent: int
    text: str
    condition: str | None
    at: int = -1  # the line it stands on


@dataclass
class _Context:
    labels: list[_Label] = field(default_factory=list)  # outer first
    section: str | None = None
    command: str | None = None
    host: str | None = None
    cmd: dict[str, Any] = field(default_factory=dict)
    command_labels: int = 0  # labels open when the command was typed

    def set_command(self, command: str) -> None:
        self.command, self.cmd = command, parse_command(command)
        self.command_labels = len(self.labels)

    def push(self, indent: int, text: str | None, at: int = -1) -> None:
        while self.labels and self.labels[-1].indent >= indent:
            self.labels.pop()
        self.close_labels(len(self.labels))
        if text:
            self.labels.append(_Label(indent, text, condition_of(text), at))

    def close_labels(self, keep: int = 0) -> None:
        """Keep the outer ``keep`` labels; a command typed under a label that closes ran
        only the runs of that label ("WITH: $ iperf3 -P4 ..." then "WITHOUT: ...")."""
        del self.labels[keep:]
        if keep < self.command_labels:
            self.command, self.cmd, self.command_labels = None, {}, 0


def _prose_label(doc: Document, i: int) -> str:
    """The label a sentence ending in ":" gives the runs below it: its own words, with the
    line above it when the sentence started there."""
    text = doc.text(i).strip().rstrip(":")
    if i > 0 and doc.text(i - 1).strip() and not doc.text(i - 1).rstrip().endswith((".", ":")):
        text = doc.text(i - 1).strip() + " " + text
    return text[-120:]


def _sentence(text: str) -> bool:
    """A line of prose: eight words or more, most of them no numbers."""
    words = text.split()
    return len(words) >= 8 and sum(w[:1].isalpha() for w in words) >= 0.6 * len(words)


# "             Microseconds Microseconds": a line of netperf -O's column titles, no label
OMNI_HEAD = re.compile(r"(?i)^[ \t]*(?:(?:minimum|maximum|mean|stddev|\d{2}th|percentile|latency|"
                       r"microseconds|throughput|units|transaction|rate|tran/s|local|remote|"
                       r"cpu|util|%)[ \t]*)+$")


def _label_text(text: str) -> tuple[bool, str | None]:
    """(is a label line, its label) for one line; None clears the label."""
    s = text.strip()
    if OMNI_HEAD.match(s):
        return False, None
    if s.startswith(("- ", "* ", "\u2022 ")):
        s = s[2:].strip()  # "- Before this change:": a bulleted label
    if not s or len(s) > 120 or IPERF_CHATTER.match(s) or ATTRIBUTION.search(s):
        return False, None
    if m := FENCED.match(s):
        inner = m.group(2).strip(" -=*#")
        if inner:
            return True, inner
        return (len(s) <= 4), None  # "--" alone closes a labelled block
    words = len(s.split())
    if s.endswith(":") and words <= 14 and not s.startswith("["):
        return True, s[:-1].strip()
    if words <= 8 and condition_of(s) and not s.endswith((".", ",")):
        return True, s
    return False, None


def _with_context(found: list[tuple[int, ResultRow]], doc: Document,
                  title: str | None = None) -> list[ResultRow]:
    by_line: dict[int, list[ResultRow]] = {}
    for i, r in found:
        by_line.setdefault(i, []).append(r)
    ctx: dict[int, _Context] = {}
    out: list[ResultRow] = []
    for i in range(max(by_line) + 1):
        line = doc.lines[i]
        c = ctx.setdefault(line.depth, _Context())
        if i in by_line:
            if _sentence(line.text) and any(r.tool == "inline" for r in by_line[i]):
                c.close_labels()  # a value in a sentence: no label above it names its run
            out += [_contextualise(r, c, line.depth, i, line.text) for r in by_line[i]]
            if line.text.rstrip().endswith(":") and doc.next_text(i) not in by_line:
                # "a baseline average of ~9009.96Mbps:" over the runs it averages
                c.push(outline_position(line.text)[0], _prose_label(doc, i), i)
            continue
        if line.in_diff:
            continue
        text = line.text
        if (m := COMMAND.search(text)) and ("-" in m.group(1) or "netperf" in m.group(2)):
            c.set_command(m.group(1).strip())
            if h := PROMPT_HOST.match(text):
                c.host = h.group(1)
            continue
        is_label, label = _label_text(text)
        indent = outline_position(text)[0]
        nxt = doc.next_text(i)
        if not is_label and nxt is not None and SHORT_LABEL.match(text) and \
                not OMNI_HEAD.match(text) and (
                nxt in by_line or TOOL_START.search(doc.text(nxt))):
            is_label, label = True, text.strip()  # "DCHE = 0b" right above its runs
        if not is_label:
            if SENTENCE.match(text.strip()) and indent <= (c.labels[0].indent if c.labels else 0):
                c.close_labels()  # a paragraph of prose ends what the labels above it named
            continue
        if label and nxt is not None and nxt not in by_line and _label_text(doc.text(nxt))[0] \
                and not COMMAND.search(doc.text(nxt)) and \
                outline_position(doc.text(nxt))[0] <= indent:
            c.section = label  # a heading above labels that repeat
            c.close_labels()
        else:
            c.push(indent, label, i)
    return _implied_conditions(_legend_labels(out, doc), title)


# " 1.a) vanilla kernel with ...", "(B2) patched kernel, ...": a scenario key and its words
LEGEND_KEY = re.compile(r"^[ \t]*\(?((?:\d{1,2}|[A-Za-z]{1,2}\d{0,2})(?:\.[a-z0-9]{1,2})?)\)[ \t]+"
                        r"(\S[^\n]{3,})$")


def _legend_labels(rows: list[ResultRow], doc: Document) -> list[ResultRow]:
    """Runs given by a scenario key ("1.a) avg. 939.34 kpps") that an earlier line of the
    same quote depth defines with a condition ("1.a) vanilla kernel with ..."): the
    definition is their label."""
    keys = [m.group(1) if r.label is None and r.pair is None and
            (m := LEGEND_KEY.match(r.line or "")) else None for r in rows]
    keyed = [(k, r.line_no) for k, r in zip(keys, rows, strict=True) if k is not None]
    if not keyed:
        return rows
    legend: dict[tuple[str, int], str] = {}
    wanted = {k for k, _ in keyed}
    for i in range(min(min(n for _, n in keyed) - 1, len(doc))):
        line = doc.lines[i]
        m = LEGEND_KEY.match(line.text)
        if m and m.group(1) in wanted and condition_of(m.group(2)):
            legend.setdefault((m.group(1), line.depth), m.group(2).strip().rstrip(";,.")[:120])
    out = []
    for k, r in zip(keys, rows, strict=True):
        words = legend.get((k, r.quote_depth)) if k is not None else None
        out.append(replace(r, label=f"{k}) {words}", condition=condition_of(words))
                   if words else r)
    return out


def _implied_conditions(rows: list[ResultRow], title: str | None = None) -> list[ResultRow]:
    """Conditions the labels of one quote depth imply beside each other: "net-next +
    IP6IP support" is the patched run of "net-next (baseline)", "mainline" the baseline
    of "mainline + frag recycling"; of two labels with no condition, the one the patch
    title names ("io_uring" beside "epoll" under "io_uring zero copy rx") is patched."""
    out = rows
    for depth in {r.quote_depth for r in rows}:
        labels = list(dict.fromkeys((r.label, r.condition) for r in rows
                                    if r.quote_depth == depth and r.label is not None))
        implied = dict(effective_conditions(labels, title))
        # ("vanilla+this_patch" beside "vanilla": patched, though "vanilla"; "baseline
        # hash" beside "baseline rbtree": references, no side); a label whose runs have
        # different conditions (from the outline above them) keeps theirs
        names = [name for name, _ in labels]
        implied = {name: cond for name, cond in implied.items() if names.count(name) == 1}
        if any(implied.get(name, cond) != cond for name, cond in labels):
            out = [replace(r, condition=implied[r.label]) if r.quote_depth == depth and
                   r.label in implied and r.condition != implied[r.label] else r for r in out]
    return out


def _resolve(r: ResultRow, labels: list[_Label]) -> tuple[str | None, str | None,
                                                            list[str], list[str]]:
    """(label, condition, config, scope) of a value from the labels around it, innermost
    first (``conditions.resolve``): a prefix on its own line (iperf's ``Before: [ 5]``),
    the reader's own label and inner name, the outline above."""
    inner = []
    if r.config:
        prefix = r.tool.startswith("iperf")  # a word in front of a pasted tool line
        inner.append(Label(r.config, "prefix" if prefix else "inner",
                           condition_of(r.config) if prefix else None))
    place = "line" if r.tool in ("inline", "summary") else "own"  # prose: on its own line
    own = [Label(r.label, place, r.condition)] if r.label is not None else []
    outline = [Label(lab.text, "outline", lab.condition, lab.at) for lab in reversed(labels)]
    got = resolve(inner + own + outline)
    return got.label, got.condition, list(got.config), list(got.scope)


def _contextualise(r: ResultRow, c: _Context, depth: int, i: int, text: str) -> ResultRow:
    cmd = c.cmd
    tool = r.tool
    if tool.startswith("iperf") and cmd.get("tool", "").startswith("iperf"):
        tool = cmd["tool"]
    test = r.test
    if tool == "netperf" and cmd.get("test") and (test is None or r.tool == "netperf"):
        test = cmd["test"] if test is None or test.split("_")[-1] in cmd["test"] else test
    if tool.startswith("iperf") and cmd.get("protocol") == "udp":
        test = "udp"
    sender_host = None
    if tool == "iperf3" and c.command and " -c" in c.command:
        sender_host = "server" if cmd.get("reverse") else "client"
    pair = r.pair
    if pair is not None and (pair.endswith("block") or ROW_SIDES.search(pair)) and any(
            lab.condition for lab in c.labels):
        # "Download: / Upload:" under "without the series:", a test script's "baseline hash:"
        # rows under "After change:": fields of one side, not sides
        pair = None
    if pair is not None:  # the text paired these itself: its labels are the condition
        label, condition = r.label, r.condition
        inner = [lab.text for lab in c.labels if lab.condition is None][-1:]
        scope = [r.config] if r.config else inner
        config = [n for x in scope if (n := short_name(x)) is not None]
    else:
        label, condition, config, scope = _resolve(r, c.labels)
    return replace(
        r, tool=tool, test=test, label=label, condition=condition, section=c.section, pair=pair,
        config=" / ".join(config) if config else None,
        scope=" / ".join(scope) if scope else None,
        command=c.command, quoted=depth > 0, quote_depth=depth, line_no=r.line_no or i + 1,
        line=text.strip()[:500], host=c.host, streams=cmd.get("streams"),
        reverse=cmd.get("reverse"), protocol=cmd.get("protocol"), duration=cmd.get("duration"),
        sender_host=sender_host)
