"""Claims stated in words and by robots: a message's prose effects, with whether the
measured pairs nearest them agree, and the kernel test robot's reports."""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

import pandas as pd

from mlx.extract.statements import is_reply
from mlx.extract.vocab import CAUSED, NAMES_CHANGE
from mlx.rows import ClaimRow

VERDICTS = ("improvement", "regression", "no-change")  # every claim has one


def known(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _direction(verdict_value: Any) -> str | None:
    """"improvement" or "regression"; None for no change and for a missing verdict."""
    return verdict_value if isinstance(verdict_value, str) and \
        verdict_value in ("improvement", "regression") else None


# "~7730.7mbps": a sentence that gives a measured value itself
VALUE_WITH_UNIT = re.compile(r"\d[ \t]?(?:[KMGTkmg]?(?:bps|bits?/s)|[KMG]?B/s|[kKmMG]?pps)\b")
# a patch that ends a loss: its motivation names the loss ("can lead to a performance drop")
FIXES = re.compile(r"(?i)\b(?:fix|revert|avoid|prevent|restore|correct|repair|don't|do not|"
                   r"stop|reduce|remove|drop|eliminate)\b")
# "measured degradation on TX: -466 pps (-0.2%)": the posting's own measurement
MEASURED = re.compile(r"(?i)\b(?:measur\w*|benchmark\w*|tested|results?|iperf3?|netperf)\b")
# "a version containing commit 165573e41f2f", "since commit ...": a loss another commit brought
AFTER_COMMIT = re.compile(r"(?i)\b(?:contain\w*|includ\w*|since|after|with)[ \t]+commit\b")
# "a kernel containing commit 165573e41f2f": another commit, named by its id
OTHER_COMMIT = re.compile(r"(?i)\bcommit[ \t]+(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


def prose_claims(statements: pd.DataFrame, measured: list[ClaimRow],
                 messages: pd.DataFrame, titles: dict[Any, str] | None = None
                 ) -> list[ClaimRow]:
    """Effects stated in words, and whether the measured pairs nearest them agree (of
    ``measured``, claims as ``measured_claims`` gives them): those on the statement's own
    lines, else those of its message, else those of its thread."""
    s = statements[(statements.kind == "prose") & ~statements.quoted.astype(bool)]
    if s.empty:
        return []
    titles = titles or {}
    thread_of = dict(zip(messages.uid, messages.thread_id, strict=True))
    # a patch's own posting (no reply) describes the problem it addresses
    postings = set()
    if "subject" in messages.columns and "patch_id" in messages.columns:
        postings = {u for u, subj, pid in zip(messages.uid, messages.subject, messages.patch_id,
                                              strict=True)
                    if isinstance(subj, str) and not is_reply(subj) and not pd.isna(pid)}
    # the signed gains of measured pairs, by message (with their lines) and by thread
    by_uid: dict[Any, list[tuple[set[Any], float]]] = {}
    by_thread: dict[Any, list[float]] = {}
    for c in measured:
        if _direction(c.verdict) and c.delta_pct is not None:
            gain = abs(c.delta_pct) * (1 if c.verdict == "improvement" else -1)
            lines = {c.baseline_line_no, c.patched_line_no}
            by_uid.setdefault(c.uid, []).append((lines, gain))
            by_thread.setdefault(thread_of.get(c.uid), []).append(gain)
    out = []
    for row in s.itertuples():
        line_no = int(row.line_no) if known(row.line_no) else None
        near = set(range(line_no - 1, line_no + 3)) if line_no is not None else set()
        own = by_uid.get(row.uid, [])
        gains = ([g for lines, g in own if lines & near] or [g for _, g in own]
                 or by_thread.get(thread_of.get(row.uid), []))
        agrees: Any = pd.NA
        if gains and row.direction in ("improvement", "regression"):
            median = statistics.median(gains)
            same = (median > 0) == (row.direction == "improvement")
            close = row.stated_pct is None or pd.isna(row.stated_pct) or \
                abs(abs(median) - abs(row.stated_pct)) <= max(5.0, 0.5 * abs(row.stated_pct))
            agrees = bool(same and close)
        text = row.text or ""
        if row.direction not in VERDICTS:
            continue  # an effect of no direction is no claim
        if _restates(text, row.stated_pct, line_no, own):
            continue
        if row.direction == "regression" and _a_problem(text, pd.isna(row.stated_pct),
                                                         titles.get(row.uid) or "",
                                                         row.uid in postings):
            continue
        versus = row.versus  # (null in parts stored before it existed)
        out.append(ClaimRow(uid=row.uid, kind="prose", verdict=row.direction,
                            stated_pct=row.stated_pct, agrees=agrees, statement=row.text,
                            patched_line_no=line_no,
                            baseline_label=versus if isinstance(versus, str) else None))
    return out


RESTATED_PCT = 1.5  # points: a percent this close to its pair's gain, as rounded, restates it


def _restates(text: str, pct: Any, line_no: int | None,
              own: list[tuple[set[Any], float]]) -> bool:
    """Does a statement only restate a measured pair of its message (``own``: the pairs'
    lines and gains): "reduce throughput to an average of ~7730.7mbps:" over the pair, or
    "1.31Mpps increases to 1.47Mpps, about 12% improvement" (the pair's gain)?"""
    if line_no is None or not VALUE_WITH_UNIT.search(text):
        return False
    if pd.isna(pct):
        return any(any(n is not None and 0 <= n - line_no <= 8 for n in lines)
                   for lines, _ in own)
    near = set(range(line_no - 1, line_no + 3))
    return any(lines & near and abs(abs(g) - abs(pct)) <= RESTATED_PCT for lines, g in own)


def _a_problem(text: str, unsized: bool, title: str, posting: bool) -> bool:
    """Is a regression stated the problem a posting or a fix addresses, not its effect: said
    without naming the change as its cause or measuring it, or another commit's loss?"""
    if CAUSED.search(text):
        return False
    return (unsized and FIXES.search(title) is not None) or (
        posting and not NAMES_CHANGE.search(text) and not MEASURED.search(text)) or (
        # "after upgrading to a kernel with commit 165573e41f2f, a 40% drop": that commit's
        # loss (in a posting, or a reply that retells it)
        OTHER_COMMIT.search(text) is not None and (
            posting or AFTER_COMMIT.search(text) is not None))


def robot_claims(reports: pd.DataFrame, statements: pd.DataFrame) -> list[ClaimRow]:
    """Kernel test robot reports, with the base/head values of their table."""
    out = []
    rows = statements[statements.kind == "robot"]
    for rep in reports.itertuples():
        table = rows[(rows.uid == rep.uid) & (rows.metric == rep.metric)]
        t = table.iloc[0] if len(table) else None
        metric = rep.metric or ""
        change = rep.change_pct if known(rep.change_pct) else None
        base = t.baseline_value if t is not None and known(t.baseline_value) else None
        head = t.patched_value if t is not None and known(t.patched_value) else None
        if base and head is not None:
            change = (head - base) / abs(base) * 100  # signed by the values
        # what the robot calls a regression tells which way is better: a rise that
        # regresses is a latency's, a time's, a cost's
        lower: bool | None = None
        if change is not None and abs(change) > 0 and rep.verdict in ("regression", "improvement"):
            lower = (change > 0) == (rep.verdict == "regression")
        out.append(ClaimRow(
            uid=rep.uid, kind="robot", tool=metric.split(".")[0] or None,
            test=metric or None, metric=metric.split(".", 1)[-1] or None,
            baseline_label=(t.base_commit if t is not None else None),
            baseline_value=(t.baseline_value if t is not None else None),
            patched_label=(t.head_commit if t is not None else rep.commit),
            patched_value=(t.patched_value if t is not None else None),
            delta_pct=change, verdict=rep.verdict, stated_pct=rep.change_pct,
            lower_is_better=lower, statement=rep.title))
    return out
