"""The outline of a body: the labels, sections and commands its results stand under.

A value's label is the words that name its run (``Before:``, ``with patch``, a table's
row or column header, a legend's key), read with the lines above it: an outline of
headings, labels that hold for the lines indented under them, the command typed above a
run.  ``with_context`` gives each row found by ``mlx.extract.results`` its label,
condition (baseline, patched), section, config and command."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from mlx.extract.conditions import (
    NOT_YET,
    Label,
    condition_of,
    effective_conditions,
    in_blocks_apart,
    names_change,
    references,
    resolve,
    short_name,
)
from mlx.extract.document import Document, outline_position
from mlx.extract.measured import ALIGNED
from mlx.rows import Condition, ResultRow

# pbx4 ~ # iperf3 -c 10.4.0.10 -P2 -R      $ netperf -H 192.0.2.1 -t TCP_RR -l 30
# (a path before the tool is no part of the command: "./iperf3 -u -c ...")
COMMAND = re.compile(r"(?:^|[#$>%][ \t]*|[ \t])(?:\.{0,2}/(?:[\w.-]+/)*)?"
                     r"((?:sudo[ \t]+)?(?:ip[ \t]+netns[ \t]+exec[ \t]+"
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
# (one cell: a table header "   on      off" or "XDP stats     CPU     pps", ALIGNED, is no label)
SHORT_LABEL = re.compile(r"^[ \t]*[\w(](?:[^.,;!?\t ]| (?! ))[^.,;!?\t]{0,50}?[\w)]$")
# what starts a tool's output: "[ ID] Interval", "MIGRATED TCP STREAM TEST", "$ iperf3 -c"
TOOL_START = re.compile(r"^\[ ?ID\]|^\[ *\d+\] local |^Connecting to host|TEST from|"
                        r"^[\w@:~.-]{0,40}[#$>] ?(?:sudo )?(?:iperf|netperf|super_netperf|ping)|"
                        r"^(?:iperf|netperf) |^-{2,3} [\w.:-]{1,60} ping statistics|^PING ")
# "Wed Dec 23 12:44:47 IST 2020": date(1)'s output above a run says when, not which run
DATE_LINE = re.compile(r"^[ \t]*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[ \t]+(?:Jan|Feb|Mar|Apr|May|Jun|"
                       r"Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+\d{1,2}[ \t]+\d{1,2}:\d{2}:\d{2}\b")
# "The changes slowed down performance by about 8.1% in the case of SRv6.": a sentence
SENTENCE = re.compile(r"^[A-Z][^:]{40,}[.!?]$")
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


@dataclass
class _Label:
    indent: int
    text: str
    condition: Condition | None
    at: int = -1  # the line it stands on


@dataclass
class _Context:
    labels: list[_Label] = field(default_factory=list)  # outer first
    section: str | None = None
    section_at: int = -1  # the line of a section over the conditions' labels, else -1
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


# where a sentence ends inside a line: "... for you. Before your"
SENTENCE_BREAK = re.compile(r"[.!?][ \t]+(?=[A-Z])")
WRAPPED_LINES = 3  # lines above a label line its sentence may have started on
LEAD_COUNT = 4  # the words a wrapped label names its condition in ("Before your change (...)")


def _prose_label(doc: Document, i: int) -> str:
    """The label a sentence ending in ":" gives the runs below it: its own words, from
    where the sentence started on the lines above ("... run that for you. Before your" /
    "change (net-next a couple of weeks old):")."""
    parts = [doc.text(i).strip().rstrip(":")]
    k = i
    while k > 0 and i - k < WRAPPED_LINES and doc.depth(k - 1) == doc.depth(i) and \
            _wraps(doc.text(k - 1)):
        k -= 1
        parts.insert(0, doc.text(k).strip())
    text = " ".join(parts)
    begin = max((m.end() for m in SENTENCE_BREAK.finditer(text)), default=0)
    return text[begin:][:160]


def _wraps(text: str) -> bool:
    """Is a line prose wrapped into the next: words, not ending its sentence?"""
    t = text.strip()
    return bool(t) and not t.endswith((".", ":", "!", "?")) and _wordy(t)


def _wordy(text: str) -> bool:
    """Words, most of them no numbers, not aligned in columns ("    baseline rbtree (match
    on first field only):    9461059pps" is a tool's line)."""
    words = text.split()
    return sum(w[:1].isalpha() for w in words) >= 0.6 * len(words) and \
        not ALIGNED.search(text.strip())


def _sentence(text: str) -> bool:
    """A line of prose: eight words or more, wordy (not a list's item that leads with its
    value: "* 9.41 Gb/s with no ipvlan at all" under "With 5.8 I get:")."""
    return len(text.split()) >= 8 and _wordy(text) and not VALUE_ITEM.match(text)


# "* 9.41 Gb/s with ...", "- 2.1 Mpps on ...": an item of a list whose value comes first
VALUE_ITEM = re.compile(r"^[ \t]*[-*\u2022][ \t]+~?\d[\d.,]*[ \t]?[A-Za-z%/]")


# "             Microseconds Microseconds": a line of netperf -O's column titles, no label
OMNI_HEAD = re.compile(r"(?i)^[ \t]*(?:(?:minimum|maximum|mean|stddev|\d{2}th|percentile|latency|"
                       r"microseconds|throughput|units|transaction|rate|tran/s|local|remote|"
                       r"cpu|util|%)[ \t]*)+$")


# "  net,port                 28s        [ OK ]": a test script's status line names the test
# whose numbers follow it, indented under it
TEST_STATUS = re.compile(r"^(\S[^\t]{0,60}?)(?: {2,}|\t+)(?:\d{1,6}(?:\.\d+)?m?s(?: {2,}|\t+))?"
                         r"\[ ?(?:OK|PASS|FAIL|SKIP|XFAIL)\s?\]$")


def _label_text(text: str) -> tuple[bool, str | None]:
    """(is a label line, its label) for one line; None clears the label."""
    s = text.strip()
    if OMNI_HEAD.match(s):
        return False, None
    if m := TEST_STATUS.match(s):
        return True, m.group(1).strip()
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
        # ("A vendor commit fixes it. With that commit applied:": the last sentence)
        return True, SENTENCE_BREAK.split(s[:-1])[-1].strip()
    if words <= 8 and condition_of(s) and not s.endswith((".", ",")):
        return True, s
    return False, None


def with_context(found: list[tuple[int, ResultRow]], doc: Document,
                  title: str | None = None, about_a_change: bool = True) -> list[ResultRow]:
    """The rows found, each with the label, condition, section, config and command the
    lines around it give; ``title``: the patch's, which names its patched run;
    ``about_a_change``: False in a thread about no patch, where only a label or line that
    names a change gives a side."""
    by_line: dict[int, list[ResultRow]] = {}
    ctx: dict[int, _Context] = {}
    out: list[ResultRow] = []
    # a test script's reference runs ("baseline hash (non-ranged entries)") name no side: the
    # outline above them does ("after your change:")
    refs = references([r.label for _, r in found if r.label is not None and
                       r.condition != "patched"])
    for i, r in found:
        by_line.setdefault(i, []).append(replace(r, condition=None) if r.label in refs else r)
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
        if not line.in_diff:
            _outline_line(c, doc, i, by_line)
    out = _implied_conditions(_legend_labels(out, doc), title)
    if not about_a_change:
        out = [r if r.condition is None or names_change(r.label) or names_change(r.line)
               else replace(r, condition=None) for r in out]
    for depth in {r.quote_depth for r in out}:
        out = _run_before_the_change(out, depth)
    return out


def _outline_line(c: _Context, doc: Document, i: int, by_line: dict[int, list[ResultRow]]
                  ) -> None:
    """What a line without values opens or closes in the outline: a command, a label, a
    section heading, the end of a labelled block."""
    text = doc.text(i)
    if (m := COMMAND.search(text)) and ("-" in m.group(1) or "netperf" in m.group(2)):
        c.set_command(m.group(1).strip())
        if h := PROMPT_HOST.match(text):
            c.host = h.group(1)
        return
    is_label, label = _line_label(doc, i, by_line)
    indent = outline_position(text)[0]
    nxt = doc.next_text(i)
    if not is_label:
        if _applied_over_a_run(doc, i, text):
            c.close_labels()  # "Then I found a fix and applied it." over the run again
            c.push(indent, text.strip(), i)
        elif _heading_over_conditions(doc, i, text, indent, by_line):
            # "Comparison of tcp_1up run 'x'" (no colon) over "Old versions:" / "New
            # version:": one comparison by its place, as a heading with a colon
            c.section, c.section_at = text.strip(), i
            c.close_labels()
        elif SENTENCE.match(text.strip()) and \
                indent <= (c.labels[0].indent if c.labels else 0):
            c.close_labels()  # a paragraph of prose ends what the labels above it named
        return
    if label is None and c.labels and all(not doc.text(j).strip()
                                          for j in range(c.labels[-1].at + 1, i)):
        return  # "after your change:" over "---" over the output: the fence opens its block
    if label and text.strip()[:1].islower() and text.rstrip().endswith(":"):
        # "... Before your" / "change (net-next):": a wrapped label that leads with its
        # run's condition is read from its sentence
        joined = _prose_label(doc, i)
        if condition_of(" ".join(joined.split()[:LEAD_COUNT])) is not None:
            label = joined
    if label and nxt is not None and nxt not in by_line and _line_label(doc, nxt, by_line)[1] \
            and not COMMAND.search(doc.text(nxt)) and \
            outline_position(doc.text(nxt))[0] <= indent:
        # a heading above labels that repeat ("Pinned to same core:" over "epoll" / "82.2
        # Gbps" / "io_uring" / "116.2 Gbps") is a section; one that names a condition
        # ("Without the patch:" over "TCP_RR" / "45000 trans/s") holds the labels under it.
        # A section over labels that name conditions ("Comparison of tcp_1up run 'x':" over
        # "Old versions:" / "New version:") is one comparison by its place, however alike
        # two such headings are
        if condition_of(label) is None:
            c.section = label
            c.section_at = i if condition_of(_line_label(doc, nxt, by_line)[1]) else -1
            c.close_labels()
        else:
            c.push(indent - 1, label, i)
    else:
        c.push(indent, label, i)


HEADING_WORDS = 14  # the words of a heading line at most (as of a label with its colon)


def _heading_over_conditions(doc: Document, i: int, text: str, indent: int,
                             by_line: dict[int, list[ResultRow]]) -> bool:
    """Is line ``i`` a heading without a colon (no sentence: no closing stop, a few words)
    right over a label line that names a condition ("Old versions:", the next line),
    indented no deeper? (Not flent's "Summary of rrul test run ..." over its "Title:")"""
    s = text.strip()
    nxt = doc.next_text(i)
    if not s or s[-1] in ".,;!?" or len(s.split()) > HEADING_WORDS or nxt != i + 1 or \
            nxt in by_line or outline_position(doc.text(nxt))[0] < indent or \
            not doc.text(nxt).rstrip().endswith(":"):
        return False
    return condition_of(_line_label(doc, nxt, by_line)[1]) is not None


# "I found a fix and applied it.", "Applied your patch, same test:": the change applied
APPLIED = re.compile(r"(?i)\bappl(?:ied|ying)\b")
# ... and not as a plan, a question or a negation ("if it is applied", "not applied yet")
NOT_APPLIED = re.compile(r"(?i)\b(?:" + NOT_YET + r"|not|unless)\b|\?")
URL_LINE = re.compile(r"^[ \t<]*https?://\S+[ \t>]*$")


def _applied_over_a_run(doc: Document, i: int, text: str) -> bool:
    """Is line ``i`` a sentence saying the change was applied, right over a command or a
    tool's output (a link to the change between them is part of it)?"""
    if APPLIED.search(text) is None or NOT_APPLIED.search(text) is not None:
        return False
    nxt = doc.next_text(i)
    if nxt is not None and URL_LINE.match(doc.text(nxt)):
        nxt = doc.next_text(nxt)
    return nxt is not None and (COMMAND.search(doc.text(nxt)) is not None or
                                TOOL_START.search(doc.text(nxt)) is not None)


def _line_label(doc: Document, i: int, by_line: dict[int, list[ResultRow]]
                ) -> tuple[bool, str | None]:
    """(is a label line, its label) for line ``i``: a label by its words (``_label_text``),
    or a short line right above the runs it names ("DCHE = 0b", "epoll")."""
    text = doc.text(i)
    is_label, label = _label_text(text)
    nxt = doc.next_text(i)
    if not is_label and nxt is not None and SHORT_LABEL.match(text) and \
            not _header_rest(doc, i) and not ALIGNED.search(text.strip()) and \
            not OMNI_HEAD.match(text) and not DATE_LINE.match(text) and (
            nxt in by_line or TOOL_START.search(doc.text(nxt))):
        return True, text.strip()
    return is_label, label


def _header_rest(doc: Document, i: int) -> bool:
    """Is line ``i`` the rest of a tool's column header a mailer wrapped ("Lost/Total
    Datagrams" under iperf3's "[ ID] Interval ... Jitter"), no label?"""
    return i > 0 and doc.depth(i - 1) == doc.depth(i) and \
        TOOL_HEADER.match(doc.text(i - 1).strip()) is not None


TOOL_HEADER = re.compile(r"^\[ ?ID\][ \t]+Interval\b")


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
        # labels whose runs stand in blocks of their own may complement each other ("With
        # 5.8 I get:" beside "With 5.8 but with <sha> reverted, I get:")
        lines = [{r.line_no for r in rows if r.quote_depth == depth and r.label == name}
                 for name, _ in labels]
        implied = dict(effective_conditions(labels, title, complement=in_blocks_apart(lines)))
        # ("vanilla+this_patch" beside "vanilla": patched, though "vanilla"; "baseline
        # hash" beside "baseline rbtree": references, no side); a label whose runs have
        # different conditions (from the outline above them) keeps theirs
        names = [name for name, _ in labels]
        implied = {name: cond for name, cond in implied.items() if names.count(name) == 1}
        if any(implied.get(name, cond) != cond for name, cond in labels):
            out = [replace(r, condition=implied[r.label]) if r.quote_depth == depth and
                   r.label in implied and r.condition != implied[r.label] else r for r in out]
    return out


def _run_before_the_change(rows: list[ResultRow], depth: int) -> list[ResultRow]:
    """A command's run with no label before the same command's run under the one patched
    label ("With that commit applied:"), at a quote depth where no label names a baseline:
    the run without the change."""
    mine = [r for r in rows if r.quote_depth == depth]
    conds = {(r.label, r.condition) for r in mine if r.label is not None}
    patched = {label for label, cond in conds if cond == "patched"}
    if len(patched) != 1 or any(cond == "baseline" for _, cond in conds):
        return rows
    after = [r for r in mine if r.label in patched and r.command]
    if not after:
        return rows
    first, commands = min(r.line_no for r in after), {r.command for r in after}
    return [replace(r, condition="baseline") if r.quote_depth == depth and r.label is None
            and r.condition is None and r.command in commands and r.line_no < first else r
            for r in rows]


def _resolve(r: ResultRow, labels: list[_Label]) -> tuple[str | None, Condition | None,
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
    if c.section_at >= 0:
        scope = [*scope, f"{c.section} @{c.section_at}"]
    return replace(
        r, tool=tool, test=test, label=label, condition=condition, section=c.section, pair=pair,
        config=" / ".join(config) if config else None,
        scope=" / ".join(scope) if scope else None,
        command=c.command, quoted=depth > 0, quote_depth=depth, line_no=r.line_no or i + 1,
        line=text.strip()[:500], host=c.host, streams=cmd.get("streams"),
        reverse=cmd.get("reverse"), protocol=cmd.get("protocol"), duration=cmd.get("duration"),
        sender_host=sender_host)
