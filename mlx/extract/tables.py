"""Tables people type: a header row over rows of values.

Box and markdown tables (``| epoll | io_uring |`` between ``+----+`` or ``|---|``
rules) and tables aligned with blanks or tabs::

                   on        off
    TCP_RR 32      52341     49870 (noisy)

    stock -> patched (16 rings)
    UDP TX    612 -> 655 Mbps
    drops:     41 -> 2

The header names the columns.  When the column names are conditions (``before``/
``after``, ``on``/``off`` where ``on`` means with the change, ``stock -> patched``)
each row is one configuration holding both sides; when the row labels are (``before``,
``after``), each column is one.  A cell without a unit takes the unit of its column
header, of the table's caption, or of the netperf test the row or caption names
(TCP_STREAM in 10^6bits/s, TCP_RR in trans/s).  Cells of delta, percent, stdev and CPU
columns, and ``(+41%)`` notes in a cell, are no values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mlx.extract.conditions import condition_of
from mlx.extract.inline import UNIT, VALUE, InlineValue
from mlx.rows import Condition

# a rule between rows: "+-----+------+", "|-----|------|", "-----  -----", "==="
RULE = re.compile(r"^[ \t]*[-+=|:_ \t]{3,}$")
# "82.2 Gbps", "~126 Gbps", "52341", "4.85 Gb/s (noisy)", "116.2 Gbps (+41%)"
CELL_VALUE = re.compile(r"^[ \t]*(?:~|≈)?[ \t]?(\d{1,3}(?:,\d{3})+(?:\.\d{1,6})?|"
                        r"\d{1,12}(?:\.\d{1,6})?)[ \t]?" + UNIT.replace("(", "(?:", 1)
                        + r"?(?:[ \t]*\([^)]{0,30}\))?[ \t]*[*]?$")
CELL_UNIT = re.compile(r"^[ \t]*(?:~|≈)?[ \t]?[\d.,]+[ \t]?(" + UNIT[1:-1] + r")")
# "(Mbps)", "[Gbit/s]", "in Mbit/s", "Throughput (10^6bits/sec)": a unit for the column
HEADER_UNIT = re.compile(r"(?:[(\[]|\bin[ \t]+)" + UNIT + r"[)\]]?|[(\[](10\^6bits/s(?:ec)?)[)\]]")
# "+8.9%", "-0.3%", "+12": a delta cell
DELTA_CELL = re.compile(r"^[ \t]*[+-−]\d{1,9}(?:\.\d{1,6})?[ \t]?%?[ \t]*$|"
                        r"^[ \t]*\d{1,4}(?:\.\d{1,4})?%$")
# "Requests/s": a row named by its unit alone
ROW_UNIT = re.compile(r"^[ \t]*" + UNIT + r"[ \t]*:?$")
# "Forwarding over a veth pair, Mpps:": a caption's clause that is a unit alone
CAPTION_UNIT = re.compile(r"(?:^|[,;:])[ \t]*" + UNIT + r"[ \t]*:?[ \t]*$")
# "TCP conn", "msg size", "flows": a first column that numbers the rows, holds no values
INDEX_CELL = re.compile(r"^[ \t]*\d{1,7}[ \t]*[KMk]?B?$")
# columns whose cells are no measurement
SKIP_COLUMN = re.compile(r"(?i)delta|diff|change|gain|improv|ratio|speed-?up|\bstd|\bdev\b|"
                         r"stdev|%|±|\bcpu\d*\b|util|\bsd\b|\bpct\b|percent|regress|loss|err|"
                         r"calc|comput|estimat|theor|expect|target")
NETPERF_UNIT = {"STREAM": "10^6bits/s", "MAERTS": "10^6bits/s", "RR": "trans/s", "CRR": "trans/s"}
# TCP_RR, UDP_STREAM, TCP_CRR named in a row label or a caption
NETPERF_TEST = re.compile(r"\b(TCP|UDP|SCTP)_(STREAM|MAERTS|RR|CRR)\b")
# "stock -> patched (16 rings)": an arrow header over arrow rows
ARROW_HEADER = re.compile(r"^[ \t]*([A-Za-z][^\d>|]{0,40}?)[ \t]*(?:-+>|=+>|→)[ \t]*"
                          r"([A-Za-z][^|]{0,60}?)[ \t]*$")
# "UDP TX    612 -> 655 Mbps", "drops:     41 -> 2"
ARROW_ROW = re.compile(r"^[ \t]*([A-Za-z][\w .:/()+-]{0,40}?)[: \t]+~?(\d{1,12}(?:\.\d{1,6})?)"
                       r"[ \t]?" + UNIT.replace("(", "(?P<ua>", 1) + r"?[ \t]*(?:-+>|=+>|→)[ \t]*"
                       r"~?(\d{1,12}(?:\.\d{1,6})?)[ \t]?" + UNIT.replace("(", "(?P<ub>", 1)
                       + r"?(?:[ \t]*\([^)]{0,30}\))?[ \t]*$")
# "(+41%)", "(noisy)": a note in a cell
NOTE = re.compile(r"\([^)]{0,30}\)")
WS_SPLIT = re.compile(r"\t+|[ ]{2,}")
NOTE_TAIL = 8  # characters after a gap inside a note its ")" stands within
MAX_COLUMNS = 12


@dataclass
class Cell:
    text: str
    start: int
    end: int


@dataclass
class TableValue:
    """One value of a table, with the row and column it stands in."""

    line: int
    value: InlineValue


def cells(text: str) -> list[Cell]:
    """The cells of one table line, by ``|`` borders or by runs of blanks and tabs."""
    out: list[Cell] = []
    if text.count("|") >= 2:
        pos = 0
        for part in text.split("|"):
            if part.strip():
                start = pos + len(part) - len(part.lstrip())
                out.append(Cell(part.strip(), start, start + len(part.strip())))
            pos += len(part) + 1
        return out
    pos = 0
    for m in [*WS_SPLIT.finditer(text), None]:
        if m is not None and text.count("(", pos, m.start()) > text.count(")", pos, m.start()) \
                and text.find(")", m.end(), m.end() + NOTE_TAIL) >= 0:
            continue  # a gap inside a note: "45.5 MB/s(7.1%  )" is one cell
        end = m.start() if m else len(text)
        if text[pos:end].strip():
            out.append(Cell(text[pos:end].strip(), pos, end))
        if m is None:
            break
        pos = m.end()
    return out


def _may_be_table(text: str) -> bool:
    """Cheap test first: a table line has a border, an arrow or a gap of blanks inside."""
    inner = text.strip()
    return "|" in inner or "  " in inner or "\t" in inner or ">" in inner or "→" in inner \
        or RULE.match(text) is not None


def _is_value(text: str) -> bool:
    return CELL_VALUE.match(text) is not None


@dataclass
class TableReader:
    """Feed lines of one quote depth; values of hand-typed tables come out."""

    caption: list[str] = field(default_factory=list)  # the lines above the table
    header: list[Cell] | None = None
    header_line: int = -1
    rows: int = 0
    arrow: tuple[str, str] | None = None
    boxed: bool = False
    tables: int = 0  # tables seen, to number their pairs

    def feed(self, i: int, text: str) -> list[TableValue]:
        if self.header is None and self.arrow is None and not _may_be_table(text):
            if text.strip():
                self.caption = (self.caption + [text])[-3:]
            elif not self.boxed:
                self._end()
            return []
        if ARROW_ROW.match(text):
            return self._arrow_row(i, text)
        if self.arrow is not None:
            self._end()
        if not text.strip():
            if not self.boxed or self.rows:
                self._end()
            return []
        if RULE.match(text):
            self.boxed = self.boxed or "|" in text or "+" in text
            return []
        row = cells(text)
        if self.header is not None and (values := self._row(i, row)) is not None:
            self.rows += 1
            return values
        if self.header is not None and self.rows:
            self._end()
        if (m := ARROW_HEADER.match(text)) and any(a in text for a in ("->", "=>", "→")):
            self.arrow, self.header = (m.group(1).strip(), m.group(2).strip()), None
            self.tables += 1
        elif self._header_like(row):
            self.header, self.header_line, self.rows = row, i, 0
            self.tables += 1
        else:
            self.header = None
            self.caption = (self.caption + [text])[-3:]
        return []

    def flush(self) -> None:
        self._end()

    def _end(self) -> None:
        if self.header is not None or self.arrow is not None:
            self.caption = []
        self.header, self.rows, self.arrow, self.boxed = None, 0, None, False

    @staticmethod
    def _header_like(row: list[Cell]) -> bool:
        if not 2 <= len(row) <= MAX_COLUMNS:
            return False
        if any(CELL_UNIT.match(c.text) or VALUE.search(c.text) for c in row) or \
                row[0].text.startswith(("- ", "* ")):
            return False  # a value or a bullet: a line of a list, not a header
        if not _is_value(row[-1].text) and any(_is_value(c.text) for c in row[1:-1]):
            return False  # "8:  75188  75268  MIPS GIC  timer": numbers, then words: data
        words = sum(len(c.text.split()) for c in row)
        return words <= 4 * len(row) and not row[-1].text.endswith((".", ",", "?"))

    def _row(self, i: int, row: list[Cell]) -> list[TableValue] | None:
        """The values of one data row, or None when the line is no row of this table."""
        assert self.header is not None
        head = self.header
        values = [c for c in row if _is_value(c.text)]
        if not values or len(row) > len(head) + 1 or (not self.boxed and len(row) < 2):
            return None
        # a delta cell ("+8.9%", "-0.3") is a note on the row: neither a value nor its name
        label_cells = [c for c in row if not _is_value(c.text) and not DELTA_CELL.match(c.text)]
        if len(label_cells) > 1 or (label_cells and label_cells[0] is not row[0]):
            return None
        row_label = label_cells[0].text.rstrip(":") if label_cells else None
        if row_label is None and len(values) > 2 and len(row) == len(head) and \
                INDEX_CELL.match(row[0].text) and not condition_of(head[0].text) and \
                not HEADER_UNIT.search(head[0].text):
            # "TCP conn  before  after" over "8  35.2  38.9": the first column numbers rows
            row_label = f"{head[0].text} {row[0].text}"
            values = values[1:]
        columns = self._columns(row, values)
        if columns is None:
            return None
        heads = [h.text for h in head]
        conds = [condition_of(h) for h in heads]
        on_off = _on_off(heads)
        row_cond = condition_of(row_label)
        out: list[TableValue] = []
        for cell, col in zip(values, columns, strict=True):
            name = heads[col]
            bare = NOTE.sub("", cell.text)  # "116.2 Gbps (+41%)": the note is no value
            if SKIP_COLUMN.search(name) or "%" in bare or bare.lstrip().startswith(("-", "+")):
                continue
            unit = self._unit(cell.text, name, row_label)
            if unit is None:
                continue
            number = float(CELL_VALUE.match(cell.text).group(1).replace(",", ""))  # type: ignore
            test = _test(row_label, self.caption, heads[0])
            col_cond = on_off.get(col) or conds[col]
            if col_cond is not None:  # the columns are the conditions: a row is one config
                v = InlineValue(number, unit, name, col_cond, test, row_label,
                                pair=f"{self.tables}.r{self.rows}")
            elif row_cond is not None:  # the rows are: a column is one config
                corner = len(row) == len(heads) + 1  # the header has no corner cell
                v = InlineValue(number, unit, row_label, row_cond, test,
                                name if corner else _config(heads[0], name)
                                if len(heads) > 2 else None, pair=f"{self.tables}.c{col}")
            else:
                v = InlineValue(number, unit, name, None, test, row_label,
                                pair=f"{self.tables}.r{self.rows}")
            out.append(TableValue(i, v))
        return out

    def _columns(self, row: list[Cell], values: list[Cell]) -> list[int] | None:
        """The header column of each value cell: by position, else by order."""
        head = self.header
        assert head is not None
        if len(row) == len(head):
            return [row.index(c) for c in values]
        if len(row) == len(head) + 1:  # the header lacks the row-label column
            return [row.index(c) - 1 for c in values] if row[0] not in values else None
        cols = []
        for c in values:  # aligned by blanks: the header cell this one overlaps most
            best = max(range(len(head)), key=lambda k: min(c.end, head[k].end)
                       - max(c.start, head[k].start))
            if min(c.end, head[best].end) - max(c.start, head[best].start) <= -3:
                return None
            cols.append(best)
        return cols if len(set(cols)) == len(cols) else None

    def _unit(self, cell: str, column: str, row_label: str | None) -> str | None:
        if m := CELL_UNIT.match(cell):
            return m.group(1)
        # the column's, the row's ("Bandwidth(MBps)", "Latency(us)", a row named
        # "Requests/s"), the caption's lines joined ("throughput in" / "Gb/s, the ...")
        if m := HEADER_UNIT.search(column):
            return m.group(1) or m.group(2)
        if row_label and (m := HEADER_UNIT.search(row_label) or ROW_UNIT.match(row_label)):
            return m.group(1) or (m.group(2) if m.re is HEADER_UNIT else None)
        if m := HEADER_UNIT.search(" ".join(self.caption)):
            return m.group(1) or m.group(2)
        for text in reversed(self.caption):
            for clause in re.split(r"(?<=[,;])|(?<=:)[ \t]", text):
                if m := CAPTION_UNIT.search(clause.rstrip(",;")):
                    return m.group(1)
        for text in (row_label or "", column, *self.caption):
            if m := NETPERF_TEST.search(text):
                return NETPERF_UNIT[m.group(2)]
        return None

    def _arrow_row(self, i: int, text: str) -> list[TableValue]:
        m = ARROW_ROW.match(text)
        assert m is not None
        if self.arrow is None:
            self.tables += 1
            self.arrow = ("before", "after")
        self.rows += 1
        label = m.group(1).strip().rstrip(":")
        unit = m.group("ub") or m.group("ua")
        names = self.arrow
        pair = f"{self.tables}.r{self.rows}"
        conds = condition_of(names[0]) or "baseline", condition_of(names[1]) or "patched"
        if unit is None:
            # "drops: 41 -> 2": a count, its metric named by the row
            return [TableValue(i, InlineValue(float(v), None, n, c, None, label, pair=pair,
                                              metric="count"))
                    for v, n, c in ((m.group(2), names[0], conds[0]),
                                    (m.group(4), names[1], conds[1]))]
        return [TableValue(i, InlineValue(float(v), u or unit, n, c, None, label, pair=pair))
                for v, u, n, c in ((m.group(2), m.group("ua"), names[0], conds[0]),
                                   (m.group(4), m.group("ub"), names[1], conds[1]))]


def _on_off(heads: list[str]) -> dict[int, Condition]:
    """"on"/"off" columns (a feature the change adds, switched on or off): on is patched."""
    low = [h.lower() for h in heads]
    if "on" in low and "off" in low:
        return {low.index("on"): "patched", low.index("off"): "baseline"}
    return {}


def _test(row_label: str | None, caption: list[str], corner: str) -> str | None:
    for text in (row_label or "", corner, *caption):
        if m := NETPERF_TEST.search(text):
            return m.group(0)
    return None


def _config(corner: str, column: str) -> str:
    """"smcr_max_conns_per_lgr 32": the corner cell names what the columns vary."""
    return f"{corner} {column}" if corner and not condition_of(corner) else column
