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

import math
import re
from dataclasses import dataclass, replace

from mlx.extract.conditions import CONDITION_WORDS, condition_of, measured_with_change
from mlx.extract.measured import (
    COMPUTED,
    ITEM_START,
    Paragraph,
    clause,
    label_before,
    measured,
    why_not,
)
from mlx.extract.units import UNIT_PATTERN, normalize
from mlx.rows import Condition

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
# (a side may be hedged: "from around 230 Mbit/s and to 280Mbit/s")
FROM_HEDGE = r"(?:(?:around|about|approx\.?|approximately|roughly|nearly|almost)[ \t]+)?"
FROM_TO = re.compile(r"(?i)\bfrom[ \t]+" + FROM_HEDGE + SIDE + r"(?:[ \t]+[^\d\n]{0,50}?)?[ \t]+"
                     r"(?:up |down )?to[ \t]+" + FROM_HEDGE + SIDE + r"(?![\w/])")
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
# "2.84 Gbits/sec increased to 2.92 Gbits/sec", "went up to", "1.31Mpps increases to
# 1.47Mpps": where a value went (or goes)
WENT_TO = re.compile(r"(?i)(?<![\w.-])" + SIDE + r"[ \t\n]+(?:has[ \t]+|have[ \t]+)?"
                     r"(?:increase[sd]|decrease[sd]|improve[sd]|drop(?:ped|s)|rose|rises|"
                     r"gr(?:e|o)ws?|f(?:e|a)lls?|(?:went|goes)[ \t]+(?:up|down)|jump(?:ed|s)|"
                     r"climb(?:ed|s)|change[sd])[ \t\n]+to[ \t\n]+" + SIDE + r"(?![\w/])")
# 82 vs 91 Mbps      9.1 Gbps vs. 9.4 Gbps
VERSUS = re.compile(r"(?<![\w.-])" + SIDE + r"[ \t]+(?:vs\.?|versus)[ \t]+" + SIDE + r"(?![\w/])")
# Before: 71/28 Mbps      9.4/9.1 Gbps: values packed with a slash share the unit
SLASHED = re.compile(r"(?<![\w./-])" + NUM + r"/" + NUM + r"(?:/" + NUM + r")?" + GAP + UNIT
                     + r"(?![\w/])")
# 10/100/1000 Mbps, 1/2.5/5/10 Gbps, 100/1000Mbit/s: the speeds of a port, not values
LINK_SPEEDS = re.compile(r"^(?:10/100(?:/1000)?|100/1000|1/2\.5(?:/5)?(?:/10)?|2\.5/5(?:/10)?|"
                         r"10/25(?:/40)?|25/50|40/100|10/25/50/100)(?![\d.])")
# "... ~91% line rate", "of wire speed": the second of "measured/capacity" is the capacity
# ("i.e." and "e.g." end no sentence: "9.1/10gbps TX i.e. ~91% line rate")
ABBREVIATION = r"\b(?:i\.e|e\.g)\."
OF_LINE_RATE = re.compile(r"(?i)(?:" + ABBREVIATION + r"|[^.!?])*?%[ \t\n]*(?:of[ \t]+)?"
                          r"(?:the[ \t]+)?(?:line[ -]rate|wire[ -]speed|link speed)")
# 300-400Mbps, 9.1 - 9.4 Gbps: a range of runs is two values
RANGE = re.compile(r"(?<![\w./-])" + NUM + r"[ \t]?(?:-|–|to)[ \t]?" + NUM + GAP + UNIT
                   + r"(?![\w/])")
# "between 800 and 850 Mbps", "between 5.0 GBytes/s and 7.6 GBytes/s": the same, in words
# (a first side in another unit, "between 800 Kbps and 1.2 Gbps", is two values of their own)
RANGE_WORDS = re.compile(r"(?<![\w.])(?i:between)[ \t]+" + NUM + r"(?:" + GAP + r"(?P<first>"
                         + UNIT_PATTERN + r"))?[ \t]+and[ \t]+" + NUM + GAP + r"(?P<unit>"
                         + UNIT_PATTERN + r")(?![\w/])")
ALIGNED_GAP = 12  # blanks an aligned column may put between a value and its unit
# "Before:  2257 2270 2270  Mb/sec": the runs of one test, the unit after the last
RUNS = re.compile(r"(?<![\w.,/+-])(?P<runs>" + NUM + r"(?:[ \t]+" + NUM + r"){1,9})[ \t]{0,"
                  + str(ALIGNED_GAP) + r"}(?P<unit>" + UNIT_PATTERN + r")(?![\w/])")
RUN_SPREAD = 1.5  # runs of one test are this close (not "1500  9412.3 Mbps": a size, a value)
# "1Mbps, 2Mbps, 6Mbps and 54Mbps": a list of rates is a capability, not measurements
LIST_GAP = re.compile(r"^[ \t]*(?:,|and|or|/)?[ \t]*(?:and|or)?[ \t]*$")
LABEL_INNER = re.compile(r"(?<![\w.~])((?:[A-Za-z]|v?\d{1,2}\.\d{1,3}[.\w-]*)[\w .+/'#-]{0,60}?"
                         r"(?:[ \t]?\([^)]{0,60}\))?)[ \t]*:[ \t]*([A-Za-z][\w/-]{0,11})[ \t]+"
                         r"(?:~|≈)?[ \t]*$")
# a number and the unit after it: what may stand between a labelled value and the same
# value in other units on its line
NUMBER_UNIT = re.compile(r"\d[\d.,]*[ \t]?[A-Za-z/]*")
# "UDP TX    612 -> 655 Mbps": the words a line starts with name its row
ROW_LABEL = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([A-Za-z][\w .+/-]{0,40}?)[ \t]*$")
MAX_PER_LINE = 60  # values per paragraph


@dataclass(frozen=True)
class InlineValue:
    value: float
    unit: str | None
    label: str | None = None  # "from"/"to", "Before"/"After", the words before ":"
    condition: Condition | None = None
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


def rejections(lines: list[str]) -> list[tuple[int, float, str]]:
    """(line index, value, the rule that rejected it) of every value a paragraph writes
    that is no result: what ``benchmarks/accuracy.py --misses`` tells of a missed one."""
    p = Paragraph.of(lines)
    out = []
    for m in VALUE.finditer(p.text):
        if (name := why_not(p, m.start(2), m.end(), m.group(3))) is not None:
            out.append((p.line_of(m.start()), _num(m.group(2)), name))
    return out


def _row_label(p: Paragraph, start: int) -> str | None:
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
             tuple[Condition | None, Condition | None], tuple[str, str]]


def _pairs(p: Paragraph) -> list[Pair]:
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
            if COMPUTED.match(text, m.end() - 1):
                continue  # "5 gbps -> 5*8/10*0.965 = 3.86 gbps": a worked sum, no pair
            # "X without it vs Y with it": words right after a side name its condition
            first_end = max(m.end(g) for g in (1, 2, 3) if m.group(g))
            conds: tuple[Condition | None, Condition | None] = (
                _side_condition(text[:m.start(4)], first_end), _side_condition(text, m.end()))
            if pattern is not VERSUS or conds == (None, None):
                conds = (conds[0] or "baseline", conds[1] or "patched")
            elif None in conds:  # "9.1 Gbps vs 9.4 Gbps with the series": the other side
                known = conds[0] or conds[1]
                other: Condition = "baseline" if known == "patched" else "patched"
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


def _side_condition(text: str, end: int) -> Condition | None:
    """The condition the words right after one side of a pair give ("X without it")."""
    tail = re.split(r"[,\n]|\b(?:to|vs\.?|versus)\b", text[end:end + 40])[0]
    return condition_of(tail, prose=True) if tail.strip() else None


def parse_prose(lines: list[str]) -> list[tuple[int, InlineValue]]:
    """Values written in the lines of one paragraph, with the pairs they form, each with
    the index of its line.  Sentences may run over line breaks."""
    p = Paragraph.of(lines)
    found: list[tuple[int, InlineValue]] = []
    used: list[tuple[int, int]] = []  # the text spans read already
    _cpu_pairs(p, found, used)
    _pairs_of(p, found, used)
    _runs_of(p, found, used)
    _test_values(p, found, used)
    _values_of(p, found, used)
    return _pair_blocks(_without_lists(found[:MAX_PER_LINE], p))


# "- cdc_ncm.ko: TCP_RR: 740, UDP_RR: 750": a netperf test's result written by hand with no
# unit, which the test implies (netperf's own: transactions a second, 10^6 bits a second)
TEST_VALUE = re.compile(r"\b(?P<test>(?:TCP|UDP|SCTP)_(?:C?RR|STREAM|MAERTS))[ \t]*[:=][ \t]*"
                        r"(?P<num>\d{1,9}(?:\.\d{1,3})?)(?![\d.,]?\d)(?![ \t]*[A-Za-z%/])")
TEST_UNIT = {"RR": "Trans/s", "CRR": "Trans/s", "STREAM": "10^6bits/sec", "MAERTS": "10^6bits/sec"}


def _test_values(p: Paragraph, found: list[tuple[int, InlineValue]],
                 used: list[tuple[int, int]]) -> None:
    """Each netperf test's value written without a unit, under its line's label."""
    for m in TEST_VALUE.finditer(p.text):
        line = p.hard_start(m.start())
        outer = OUTER_LABEL.match(p.text[line:m.start()])
        label = outer.group(1).strip() if outer and outer.group(1) != m.group("test") else None
        test = m.group("test")
        found.append((p.line_of(m.start()), InlineValue(
            float(m.group("num")), TEST_UNIT[test.split("_", 1)[1]], label,
            condition_of(label) if label else None, test=test)))
        used.append((m.start(), m.end()))


# "same bandwidth at -43% CPU load (70% -> 40%)", "CPU usage went from 70% to 40%": the
# load of the processors before and after, in percent (named on the pair's line, before it)
CPU_WORDS = re.compile(r"(?i)\b(?:cpu|load|usage|utili[sz]ation|k?softirqd?)\b")
PCT_PAIR = re.compile(r"(?i)(?<![\w.+-])(?:from[ \t]+)?(\d{1,3}(?:\.\d{1,2})?)[ \t]?%[ \t]*"
                      r"(?:-+>|=+>|→|\bto\b)[ \t]*(\d{1,3}(?:\.\d{1,2})?)[ \t]?%")


def _cpu_pairs(p: Paragraph, found: list[tuple[int, InlineValue]],
               used: list[tuple[int, int]]) -> None:
    """The processors' load before and after a change, where its line names it."""
    for n, m in enumerate(PCT_PAIR.finditer(p.text) if "%" in p.text else ()):
        line = p.hard_start(m.start())
        said = p.text[line:m.start()]
        if not CPU_WORDS.search(said) or "idle" in said.lower() or \
                not measured(p, m.start(1), m.end(), "%"):
            continue
        used.append(m.span())
        head = OUTER_LABEL.match(said)  # "* TCP RX: same bandwidth at ..."
        config = head.group(1).strip(" *-") if head else None
        k = p.line_of(m.start())
        found += [(k, InlineValue(float(m.group(1)), "%", "before", "baseline", config=config,
                                  pair=f"cpu{n}", metric="cpu")),
                  (k, InlineValue(float(m.group(2)), "%", "after", "patched", config=config,
                                  pair=f"cpu{n}", metric="cpu"))]


def _pairs_of(p: Paragraph, found: list[tuple[int, InlineValue]],
              used: list[tuple[int, int]]) -> None:
    """The pairs a sentence forms ("went from 730 to 910 Mbps"), each side with its
    condition."""
    for n, (start, end, sides, conds, names) in enumerate(_pairs(p)):
        used.append((start, end))
        if not measured(p, start, end, sides[0][3] or sides[0][1] or ""):
            continue
        config = label_before(p, start) or _row_label(p, start)
        k = p.line_of(start)
        for j, (a, unit_a, b, unit_b) in enumerate(sides):
            part = f"{config} #{j + 1}" if len(sides) > 1 else config
            if unit_a is None or unit_b is None:
                continue
            found += [(k, InlineValue(a, unit_a, names[0] or None, conds[0], config=part,
                                      pair=f"{n}.{j}")),
                      (p.line_of(end - 1), InlineValue(b, unit_b, names[1] or None, conds[1],
                                                       config=part, pair=f"{n}.{j}"))]


def _runs_of(p: Paragraph, found: list[tuple[int, InlineValue]],
             used: list[tuple[int, int]]) -> None:
    """Runs written on one line ("Before: 2257 2270 2270 Mb/sec"), slashed ("9.1/9.3/9.2
    Gbps") or as a range ("5-7 Mpps", "between 800 and 850 Mbps")."""
    for pattern in (RUNS, SLASHED, RANGE, RANGE_WORDS):
        for m in pattern.finditer(p.text):
            if len(found) >= MAX_PER_LINE or any(a <= m.start() < b for a, b in used):
                continue
            if pattern is SLASHED and LINK_SPEEDS.match(m.group(0)):
                used.append(m.span())  # "10/100/1000 Mbps": the speeds a port supports
                continue
            if (run := _run(p, pattern, m)) is None:
                continue
            numbers, unit = run
            used.append(m.span())
            if not measured(p, m.start(), m.end(), unit):
                continue
            label = label_before(p, m.start())
            cond = condition_of(label)
            if label is None:  # "between 800 and 850 Mbps with it": the side its clause names
                label, cond = _clause_side(p.text, m)
            if pattern is SLASHED and len(numbers) == 2 and _of_capacity(p.text, m, numbers):
                # "9.1/10gbps bi-directional throughput, ~91% of line rate": run / capacity
                numbers = numbers[:1]
            found += [(p.line_of(m.start()), InlineValue(
                _num(v), unit, label, cond,
                config=f"#{k + 1} of {len(numbers)}" if pattern is SLASHED and len(numbers) > 1
                else None))
                for k, v in enumerate(numbers)]


# the percent a sentence gives after "measured/capacity": "(94.1% of max)", "i.e. 61 %"
SHARE = re.compile(r"(?:" + ABBREVIATION + r"|[^.!?\n]|[.](?=\S)){0,120}?(\d{1,3}(?:\.\d{1,2})?)"
                   r"[ \t]?%")


def _of_capacity(text: str, m: re.Match[str], numbers: list[str]) -> bool:
    """Is "A/B unit" a run and the capacity it is measured against: a "% of line rate"
    after it, or a percent of the sentence that is A of B ("941/1000 Mbit/s (94%)")?"""
    if OF_LINE_RATE.match(text, m.end(), m.end() + 200):
        return True
    a, b = _num(numbers[0]), _num(numbers[1])
    share = SHARE.match(text, m.end(), m.end() + 160)
    return share is not None and 0 < a < b and \
        abs(float(share.group(1)) - 100 * a / b) <= SHARE_TOLERANCE


SHARE_TOLERANCE = 1.5  # percent points: "~94%" of 941/1000 as written, rounded


def _run(p: Paragraph, pattern: re.Pattern[str], m: re.Match[str]
         ) -> tuple[list[str], str] | None:
    """(the numbers, their unit) of a match of ``_runs_of``'s patterns; None where it is no
    run: numbers on a line that are a size and a value ("iperf3 -P 8 9.4 Gbps", "netperf 64
    70 us"), a range whose sides have units of their own."""
    if pattern is RUNS:
        numbers = re.findall(NUM, m.group("runs"))
        values = [_num(n) for n in numbers]
        decimals = {len(n.partition(".")[2]) for n in numbers}
        if min(values) <= 0 or max(values) > RUN_SPREAD * min(values) or len(decimals) > 1 or (
                len(numbers) < 3 and label_before(p, m.start()) is None):
            return None
        return numbers, m.group("unit")
    if pattern is RANGE_WORDS:
        if m.group("first") and m.group("first") != m.group("unit"):
            return None
        return [m.group(1), m.group(3)], m.group("unit")
    if pattern is SLASHED:
        return [g for g in m.groups()[:3] if g], m.group(4)
    return [g for g in m.groups()[:2] if g], m.group(3)


def _clause_side(text: str, m: re.Match[str]) -> tuple[str | None, Condition | None]:
    """(label, condition) the clause of a value names ("310Mbps without the change")."""
    said = clause(text, m.start(), m.end())
    cond = condition_of(said, prose=True)
    return (_clause_label(said, m.group(0)), cond) if cond else (None, None)


def _values_of(p: Paragraph, found: list[tuple[int, InlineValue]],
               used: list[tuple[int, int]]) -> None:
    """Every other value, with the label before it or the side its sentence names."""
    labelled: dict[int, tuple[str, int]] = {}  # a line's label and where its value ended
    sides = _Sides(p.text)  # (one per paragraph: a side carried forward stays in it)
    prev: re.Match[str] | None = None  # the value taken last
    for m in VALUE.finditer(p.text):
        if len(found) >= MAX_PER_LINE or len(used) > 4 * MAX_PER_LINE:
            break
        if any(a <= m.start() < b for a, b in used) or _restated(p.text, prev, m) or \
                not measured(p, m.start(2), m.end(), m.group(3)):
            continue
        prev = m
        label = label_before(p, m.start())
        line = p.hard_start(m.start())
        inner = None
        words = p.text[max(line, m.start() - 80):m.start()]
        if label is None and (inner_m := LABEL_INNER.search(words)):
            label, inner = inner_m.group(1).strip(" -*"), inner_m.group(2)  # "v6.1:  rx 4 Mpps"
        elif label is not None and condition_of(label) is None and \
                (outer := _outer_label(p.text[line:m.start()], label)) is not None:
            label, inner = outer, label  # "Without this patch: Down: 5.20 Mbit/s, Up: ..."
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
            label, cond = _clause_side(p.text, m)
            if cond is None:
                label, cond = sides.side(m.start(), m.end())
        found.append((p.line_of(m.start()), InlineValue(_num(m.group(2)), m.group(3), label,
                                                        cond, config=inner)))


def _restated(text: str, prev: re.Match[str] | None, m: re.Match[str]) -> bool:
    """Is a value the one before it again, in other units and in parentheses ("2270Mb/sec
    (2270600640bps)", "3.2GB/s (25.0 Gbit/s)"; not "4.2 Mpps (3.9 Mpps)")?"""
    if prev is None or prev.group(3) == m.group(3) or not re.fullmatch(
            r"[ \t]*\([ \t]*", text[prev.end():m.start()]) or \
            not text[m.end():m.end() + 3].lstrip().startswith(")"):
        return False
    a = normalize(_num(prev.group(2)), prev.group(3), bytes_pow2=False)
    b = normalize(_num(m.group(2)), m.group(3), bytes_pow2=False)
    return a is not None and b is not None and a[2] == b[2] and \
        math.isclose(a[0], b[0], rel_tol=RESTATED_TOLERANCE)


RESTATED_TOLERANCE = 0.05  # "3.2GB/s (25.0 Gbit/s)": rounding, and GB of 10^9 or 2^30 bytes


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

    def __init__(self, text: str) -> None:
        self.text = text
        self.last: tuple[str, Condition] | None = None  # the label and side named before

    def side(self, start: int, end: int) -> tuple[str | None, Condition | None]:
        text = self.text
        begin = max((e.end() for e in SENTENCE_END.finditer(text, max(0, start - 300), start)),
                    default=max(0, start - 300))
        # the value's own line first, then its sentence ("Without this patch: ...
        # 2923517pps" over "With this patch: ... 2932034pps": the second line's run is
        # the patched one)
        line = max(begin, text.rfind("\n", 0, start) + 1)
        for said in dict.fromkeys((text[line:start], text[begin:start])):
            if (cond := condition_of(said)) is not None:
                self.last = (_condition_words(said), cond)
                return self.last
        words = text[begin:start]
        if (change := measured_with_change(words)) is not None:
            self.last = (change, "patched")
            return change, "patched"
        stop = SENTENCE_END.search(text, end, end + 300)
        if stop and (m := THIS_IS.match(text, stop.end())) and \
                (cond := condition_of(m.group(1))) is not None:
            return m.group(1).strip(), cond
        if self.last is not None and not CONDITION_WORDS.search(words) and \
                not ITEM_START.match(words):
            return self.last  # (a list's items each name their own run)
        return None, None


def _without_lists(found: list[tuple[int, InlineValue]],
                   p: Paragraph) -> list[tuple[int, InlineValue]]:
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


# "Without this patch:  Down: ", "- after:  rx: ": the label a line starts with, before
# the label of one of its values
OUTER_LABEL = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?([^:\n]{1,60}?)[ \t]*:[ \t]")


def _outer_label(head: str, label: str) -> str | None:
    """The label a line starts with when it names the condition its values' own labels
    ("Down", "Up": fields of one run) leave open."""
    m = OUTER_LABEL.match(head)
    if m is None or m.end() > head.rfind(label):
        return None
    return m.group(1) if condition_of(m.group(1)) is not None else None


def _clause_label(clause: str, value: str) -> str:
    """"310Mbps without the change" -> "without the change": the words of a condition."""
    return _condition_words(clause.replace(value, " "))


def _condition_words(words: str) -> str:
    """The words of a clause from its first condition word on, up to a colon: "Without
    this patch: Result: OK: 34205373(c34202809+d2564) usec," -> "Without this patch" (a
    tool's line pasted after its label)."""
    m = CONDITION_WORDS.search(words)
    if m:
        words = words[m.start():]
        words = re.split(r":[ \t\n]", words, maxsplit=1)[0]
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
