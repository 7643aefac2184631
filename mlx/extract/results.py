"""Benchmark results of one message body: one row per measured value.

Two passes.  The first finds result lines: a cheap substring prefilter, then
the iperf, netperf, summary and prose parsers; lines inside diff hunks never
count (a patch adding a ``Mbits/sec`` printf is no result), and lines a mail
client wrapped (``sender`` on a line of its own) are joined back.  Only when
something was found does the second pass read the context of each result,
per quote depth: the nearest label line above it (``Before patch:``, ``-- v2
--``, ``stock kernel``), a section heading above repeated labels, and the
command that produced it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from mlx.extract import inline, iperf, netperf
from mlx.extract.units import normalize
from mlx.text import split_quote

# a body without any of these holds no result: most messages stop here (plain
# substring tests run at C speed; "pps" and "tps" also sit inside "mappings", "https")
BODY_TOKENS = ("bits/s", "bit/s", "bps", "10^", "per sec", "Trans.", "trans/s", "B/s", "ytes/s",
               "_STREAM", "_RR", "_MAERTS", "THROUGHPUT", "Interim", "usec", "atency",
               "_per_second")
BODY_RATE = re.compile(r"\d[ \t]?[kKmMG]?[pt]ps\b")
# a digit followed by a unit: the line may hold a value
UNIT_HINT = re.compile(r"\d[ \t]?(?:[KMGTkmgt]?(?:bps|bits?/|b/s|B/s|pps|Bytes)|tps|[Tt]rans|"
                       r"[uµμmn]s(?:ec)?\b|10\^)")
# pbx4 ~ # iperf3 -c 10.4.0.10 -P2 -R      $ netperf -H 192.0.2.1 -t TCP_RR -l 30
COMMAND = re.compile(r"(?:^|[#$>%][ \t]*|[ \t])((?:sudo[ \t]+)?(?:ip[ \t]+netns[ \t]+exec[ \t]+"
                     r"\S{1,40}[ \t]+)?(iperf3|iperf|netperf|super_netperf|neper|tcp_rr|tcp_stream)"
                     r"(?:[ \t]+[^\n]{0,300})?)$")
PROMPT_HOST = re.compile(r"^(?:\[?[\w.-]{1,40}@)?([\w.-]{1,40})[ \t:]{1,3}[~/\w.-]{0,40}[ \t]*[#$]")
# -- 0.0.20180708 w/napi_gro_receive patch --     == with patch ==     ** baseline **
FENCED = re.compile(r"^(-{2,}|={2,}|\*{2,}|#{2,})[ \t]*([^\n]{0,120}?)[ \t]*"
                    r"(?:-{2,}|={2,}|\*{2,}|#{2,})?$")
BASELINE = re.compile(r"(?i)\b(before|without|w/o|stock|vanilla|baseline|base|unpatched|old|"
                      r"original|orig|upstream|mainline|reference|pre-patch|revert(?:ed)?)\b")
PATCHED = re.compile(r"(?i)\b(?:after|with|patched|new|applied|post-patch|fixed)\b|"
                     r"\bw/(?!o\b)|\+[ \t]?(?:the[ \t])?(?:patch|series|fix)")
# "On Tue, Mar 05, 2024 at 10:00:00AM +0100, Alice Novak wrote:": no label
ATTRIBUTION = re.compile(r"(?i)\b(?:wrote|writes|said|schrieb|a écrit)[ \t]*:$")
IPERF_CHATTER = re.compile(r"(?i)^(connecting to|server listening|accepted connection|client "
                           r"connecting|tcp window size|udp buffer size|iperf done|reverse mode|"
                           r"starting test|test complete|\[\s*\d+\] local|\[ ?id\])")
MAX_ROWS = 5000
# no-break and thin spaces that HTML mail clients put into pasted tool output
SPACES = str.maketrans({"\xa0": " ", "\u2009": " ", "\u202f": " ", "\u2007": " "})


@dataclass(frozen=True)
class ResultRow:
    """One measured value; field names are the ``results`` column names."""

    tool: str
    test: str | None
    metric: str
    value: float
    unit: str
    value_norm: float | None
    unit_norm: str | None
    side: str | None = None
    stream: str | None = None
    interval_start: float | None = None
    interval_end: float | None = None
    is_summary: bool = True
    retransmits: int | None = None
    label: str | None = None
    condition: str | None = None
    section: str | None = None
    command: str | None = None
    quoted: bool = False
    quote_depth: int = 0
    line_no: int = 0
    line: str = ""
    host: str | None = None
    streams: int | None = None
    reverse: bool | None = None
    protocol: str | None = None
    duration: float | None = None
    config: str | None = None
    role: str | None = None
    cpu_local: float | None = None
    cpu_remote: float | None = None
    sd_local: float | None = None
    sd_remote: float | None = None
    statistic: str | None = None
    sender_host: str | None = None  # iperf3: which end sent the data (-R makes it the server)


@dataclass
class _Context:
    label: str | None = None
    label_condition: str | None = None
    section: str | None = None
    command: str | None = None
    host: str | None = None
    cmd: dict[str, Any] = field(default_factory=dict)


def condition_of(label: str | None) -> str | None:
    """baseline, patched or None (neither, or both as in "with/without")."""
    if not label:
        return None
    base = bool(BASELINE.search(label))
    patched = bool(PATCHED.search(label))
    if base == patched:
        return None
    return "baseline" if base else "patched"


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




def may_hold_results(body: str) -> bool:
    if any(t in body for t in BODY_TOKENS):
        return True
    return ("pps" in body or "tps" in body) and BODY_RATE.search(body) is not None


def extract_results(body: str | None) -> list[ResultRow]:
    if not body or not may_hold_results(body):
        return []
    if not body.isascii():
        body = body.translate(SPACES)  # "[\xa0 3] 0.0-2.0 sec\xa0 12.0 GBytes": HTML mailers
    lines = body.split("\n")
    depth_content = [split_quote(ln) for ln in lines]
    found = _find(depth_content) + _json_rows(body)
    found.sort(key=lambda x: x[0])
    if not found:
        return []
    return _with_context(found, depth_content)


def _find(dc: list[tuple[int, str]]) -> list[tuple[int, list[ResultRow]]]:
    """(line index, partial rows) for every result line, diff hunks skipped."""
    out: list[tuple[int, list[ResultRow]]] = []
    readers: dict[int, tuple[netperf.TableReader, netperf.OmniReader]] = {}
    tests: dict[int, str] = {}  # netperf test named by the last banner, per quote depth
    in_diff = False
    iperf_block: list[tuple[int, iperf.IperfValue]] = []
    skip = -1
    total = 0
    for i, (depth, text) in enumerate(dc):
        if i <= skip:
            continue
        if text.startswith("diff --git ") or text.startswith("@@ -"):
            in_diff = True
            continue
        if in_diff:
            if text[:1] in ("+", "-", " ", "@", "\\") or text.startswith("index "):
                continue
            in_diff = False
        table, omni = readers.setdefault(depth, (netperf.TableReader(), netperf.OmniReader()))
        if "TEST" in text and (banner := netperf.banner_test(text)):
            tests[depth] = banner
        test = tests.get(depth)
        rows: list[ResultRow] = []
        if text.startswith("Throughput,") and i + 1 < len(dc):  # netperf -o CSV
            rows += [_netperf_row(v, "omni") for v in netperf.parse_omni_csv(
                text, dc[i + 1][1], test)]
            if rows:
                out.append((i + 1, rows))
                skip = i + 1
                continue
        if omni.block or "=" in text:
            rows += [_netperf_row(v, "omni") for v in omni.feed(text, test)]
        if not UNIT_HINT.search(text):
            rows += [_netperf_row(v, "table") for v in table.feed(text, test)]
            _flush_iperf(iperf_block, out)
            if rows:
                out.append((i, rows))
            continue
        value = iperf.parse_line(text)
        if value is not None:
            if value.side is None and value.jitter_ms is None and i + 1 < len(dc) and \
                    dc[i + 1][0] == depth and dc[i + 1][1].strip() in ("sender", "receiver"):
                value = replace(value, side=dc[i + 1][1].strip())  # the client wrapped it
                skip = i + 1
            iperf_block.append((i, value))
            continue
        _flush_iperf(iperf_block, out)
        rows += [_netperf_row(v, "table") for v in table.feed(text, test)]
        if (v := netperf.parse_interim(text, test)) is not None:
            rows.append(_netperf_row(v, "interim"))
        elif (s := inline.parse_summary(text)) is not None:
            rows.append(_inline_row(s, "summary"))
        elif not rows:
            rows += [_inline_row(v, "inline") for v in inline.parse_prose(text)]
        if rows:
            out.append((i, rows))
            total += len(rows)
            if total > MAX_ROWS:
                break
    _flush_iperf(iperf_block, out)
    for _, omni in readers.values():
        rows = [_netperf_row(v, "omni") for v in omni.flush(None)]
        if rows:
            out.append((len(dc) - 1, rows))
    return sorted(out, key=lambda x: x[0])


def _json_rows(body: str) -> list[tuple[int, list[ResultRow]]]:
    """Final sums of ``iperf3 -J`` output pasted into a message."""
    out = []
    for s in iperf.parse_json(body):
        f = s.fields
        udp = "jitter_ms" in f
        side = {"sum_sent": "sender", "sum_received": "receiver"}.get(s.key)
        base: dict[str, Any] = dict(tool="iperf3", test="udp" if udp else "tcp", side=side,
                                    stream="SUM", interval_start=f.get("start"),
                                    interval_end=f.get("end"), is_summary=True)
        retr = f.get("retransmits")
        rows = [_row(f["bits_per_second"], "bits/sec", retransmits=int(retr) if retr is not None
                     else None, **base)]
        if udp:
            rows.append(_row(f["jitter_ms"], "ms", metric="latency", statistic="jitter", **base))
            if "lost_percent" in f:
                rows.append(_row(f["lost_percent"], "%", metric="loss", **base))
        out.append((body.count("\n", 0, s.offset), rows))
    return out


def _flush_iperf(block: list[tuple[int, iperf.IperfValue]],
                 out: list[tuple[int, list[ResultRow]]]) -> None:
    if not block:
        return
    values = [v for _, v in block]
    tool = "iperf3" if values[0].decimals == 2 or any(v.side for v in values) else "iperf2"
    summaries = iperf.mark_summaries(values, tool)
    for (i, v), summary in zip(block, summaries, strict=True):
        rows = []
        test = "udp" if v.jitter_ms is not None else "tcp"
        base: dict[str, Any] = dict(tool=tool, test=test, side=v.side, stream=v.stream,
                                    role=v.role, interval_start=v.start, interval_end=v.end,
                                    is_summary=summary)
        rows.append(_row(v.rate, v.rate_unit, retransmits=v.retransmits, **base))
        if v.jitter_ms is not None:
            rows.append(_row(v.jitter_ms, "ms", metric="latency", statistic="jitter", **base))
        if v.loss_pct is not None:
            rows.append(_row(v.loss_pct, "%", metric="loss", **base))
        out.append((i, rows))
    block.clear()


def _row(value: float, unit: str, metric: str | None = None, **kw: Any) -> ResultRow:
    norm = normalize(value, unit, bytes_pow2=kw.get("tool") != "inline")
    value_norm, unit_norm, found_metric = norm if norm else (None, None, "unknown")
    return ResultRow(metric=metric or found_metric, value=value, unit=unit,
                     value_norm=value_norm, unit_norm=unit_norm, **kw)


def _netperf_row(v: netperf.NetperfValue, kind: str) -> ResultRow:
    return _row(v.value, v.unit, metric=v.metric, tool="netperf", test=v.test, side=v.side,
                cpu_local=v.cpu_local, cpu_remote=v.cpu_remote, sd_local=v.sd_local,
                sd_remote=v.sd_remote, is_summary=v.is_summary, interval_end=v.interval_end,
                statistic=v.extra.get("statistic"))


def _inline_row(v: inline.InlineValue, tool: str) -> ResultRow:
    return _row(v.value, v.unit, tool=tool, test=v.test, label=v.label,
                condition=v.condition or condition_of(v.label), config=v.config)


def _label_text(text: str) -> tuple[bool, str | None]:
    """(is a label line, its label) for one unquoted line; None clears the label."""
    s = text.strip()
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
    if words <= 8 and (BASELINE.search(s) or PATCHED.search(s)) and not s.endswith((".", ",")):
        return True, s
    return False, None


def _with_context(found: list[tuple[int, list[ResultRow]]],
                  dc: list[tuple[int, str]]) -> list[ResultRow]:
    result_lines = {i for i, _ in found}
    by_line = dict(found)
    ctx: dict[int, _Context] = {}
    out: list[ResultRow] = []
    last = max(result_lines)
    for i in range(last + 1):
        depth, text = dc[i]
        c = ctx.setdefault(depth, _Context())
        if i in by_line:
            for r in by_line[i]:
                out.append(_contextualise(r, c, depth, i, text))
            continue
        if (m := COMMAND.search(text)) and ("-" in m.group(1) or "netperf" in m.group(2)):
            c.command = m.group(1).strip()
            c.cmd = parse_command(c.command)
            if h := PROMPT_HOST.match(text):
                c.host = h.group(1)
            continue
        is_label, label = _label_text(text)
        if not is_label:
            continue
        nxt = next((j for j in range(i + 1, min(len(dc), i + 6))
                    if dc[j][1].strip() and dc[j][0] == depth), None)
        if label and nxt is not None and nxt not in result_lines and _label_text(dc[nxt][1])[0] \
                and not COMMAND.search(dc[nxt][1]):
            c.section, c.label = label, None  # a heading above labels that repeat
        else:
            c.label = label
    return out


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
    label = r.label if r.label is not None else c.label
    condition = r.condition if r.label is not None else condition_of(c.label)
    return replace(
        r, tool=tool, test=test, label=label, condition=condition, section=c.section,
        command=c.command, quoted=depth > 0, quote_depth=depth, line_no=i + 1,
        line=text.strip()[:500], host=c.host, streams=cmd.get("streams"),
        reverse=cmd.get("reverse"), protocol=cmd.get("protocol"), duration=cmd.get("duration"),
        sender_host=sender_host)
