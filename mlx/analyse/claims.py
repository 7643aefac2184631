"""Claims: baseline/patched pairs of measured results, stated effects, robot reports.

Measured pairs are made within a message from its labels (Before/After,
without/with, a label that is a prefix of a patched one as in seed 002's
``0.0.20180708`` vs ``0.0.20180708 w/napi_gro_receive patch``, versions in
order: the baseline is the unpatched run nearest the patched one), and across
a thread when a tester posts the baseline and the patched runs in separate
messages.  Quoted rows never count.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from mlx.analyse.pairing import label_sides
from mlx.analyse.stated import VERDICTS, known, prose_claims, robot_claims
from mlx.extract.conditions import SHA, names_change, short_name
from mlx.extract.vocab import LOWER_IS_BETTER
from mlx.rows import ClaimRow
from mlx.subjects import names_a_commit, parse_subject

NOISE_PCT = 1.0  # |delta| below this is no change
# a count is better lower when it counts a failure: "drops: 41 -> 2"
FAILURE_COUNT = re.compile(r"(?i)drop|err|retrans|loss|lost|miss|fail|timeout|stall")
KEY = ["tool", "test", "metric", "side", "stream", "section", "config", "statistic", "scope"]
# the columns of the results table the pairing reads (of 37: a store's claims read only
# these, and no patch ids, which they take from the messages)
RESULT_COLUMNS = ["uid", *KEY, "value_norm", "unit_norm", "is_summary", "label", "condition",
                  "pair", "command", "quoted", "line_no", "line"]
# of the statements (all but message_id, and no patch ids merged in)
STATEMENT_COLUMNS = ["uid", "kind", "text", "stated_pct", "direction", "metric",
                     "baseline_value", "patched_value", "base_commit", "head_commit", "quoted",
                     "line_no", "versus"]
# and of the messages that have results, statements or reports
MESSAGE_COLUMNS = ["uid", "message_id", "date", "from_name", "from_addr", "subject"]
# words at most of a label of no condition that a patched run is paired with
# spreads and extremes of a run are no claim: ping's min/max/mdev beside its avg
NOT_CLAIMED = {"min", "max", "mdev", "stddev", "reply"}
HW_ORDER = ["cpu", "nic", "memory", "kernel", "os", "board", "wifi", "link"]
COLUMNS = [f.name for f in dataclasses.fields(ClaimRow)]  # the claims table's columns
SPREAD_NOTE = "difference inside the run-to-run spread"
def verdict(delta_pct: float, metric: str, noise_pct: float = NOISE_PCT,
            lower_is_better: bool | None = None) -> str:
    if abs(delta_pct) < noise_pct:
        return "no-change"
    lower = metric in LOWER_IS_BETTER if lower_is_better is None else lower_is_better
    better = delta_pct < 0 if lower else delta_pct > 0
    return "improvement" if better else "regression"


def _stats(values: list[float]) -> tuple[float, int, float | None]:
    mean = statistics.fmean(values)
    return mean, len(values), (statistics.stdev(values) if len(values) > 1 else None)


def _pair(base: list[Any], patched: list[Any], noise_pct: float) -> dict[str, Any] | None:
    """The claim columns of baseline and patched runs (records of ``_usable`` rows)."""
    b_mean, b_n, b_sd = _stats([x.value_norm for x in base])
    p_mean, p_n, p_sd = _stats([x.value_norm for x in patched])
    if not (math.isfinite(b_mean) and math.isfinite(p_mean)) or (b_mean == 0 and p_mean != 0):
        return None  # no delta to give: a missing or infinite value, a zero baseline
    delta = (p_mean - b_mean) / b_mean * 100 if b_mean else 0.0  # 0% loss before and after
    first = patched[0]
    metric = first.metric
    lower = None
    if metric == "count":
        lower = bool(FAILURE_COUNT.search(str(first.config or "")))
    v, note = _judge(b_mean, b_n, b_sd, p_mean, p_n, p_sd, delta, metric, noise_pct, lower)
    return {"baseline_value": b_mean, "baseline_n": b_n, "baseline_stdev": b_sd,
            "lower_is_better": lower if lower is not None else metric in LOWER_IS_BETTER,
            "patched_value": p_mean, "patched_n": p_n, "patched_stdev": p_sd,
            "unit_norm": first.unit_norm, "delta_pct": delta, "verdict": v,
            "note": note, "baseline_line": _lines(base), "patched_line": _lines(patched),
            "baseline_line_no": _first_line(base), "patched_line_no": _first_line(patched)}


def _first_line(runs: list[Any]) -> int | None:
    """The first body line of some runs (None where none is known)."""
    lines = [int(x.line_no) for x in runs if known(x.line_no)]
    return min(lines) if lines else None


def _lines(runs: list[Any]) -> str:
    return "; ".join(dict.fromkeys(str(x.line) for x in runs))[:500]


def _judge(b_mean: float, b_n: int, b_sd: float | None, p_mean: float, p_n: int,
           p_sd: float | None, delta: float, metric: str, noise_pct: float,
           lower: bool | None) -> tuple[Any, str | None]:
    """(verdict, note) of a pair: no change where several runs a side differ by less
    than their spread (the runs cannot tell the two apart), with a note saying so."""
    v = verdict(delta, metric, noise_pct, lower)
    spread = max(b_sd if b_sd is not None and known(b_sd) else 0.0,
                 p_sd if p_sd is not None and known(p_sd) else 0.0)
    if b_n > 1 and p_n > 1 and v != "no-change" and abs(p_mean - b_mean) <= spread:
        return "no-change", SPREAD_NOTE
    return v, None


def reverdict(claims: pd.DataFrame, noise_pct: float) -> pd.DataFrame:
    """Stored claims with another noise threshold: measured verdicts again from their
    deltas and spreads, nothing paired again (prose and robot claims keep theirs)."""
    out = claims.copy()
    for i, c in out[out.kind == "measured"].iterrows():
        def num(x: Any) -> Any:
            return None if pd.isna(x) else x
        v, note = _judge(c.baseline_value, int(num(c.baseline_n) or 1), num(c.baseline_stdev),
                         c.patched_value, int(num(c.patched_n) or 1), num(c.patched_stdev),
                         c.delta_pct, c.metric, noise_pct, bool(num(c.lower_is_better)))
        out.at[i, "verdict"] = v
        if note or c.note == SPREAD_NOTE:
            out.at[i, "note"] = note
    return out


def _usable(results: pd.DataFrame) -> pd.DataFrame:
    """Own (unquoted) summary rows with a value, and a run's ``[SUM]`` rows rather than
    its streams where it has them."""
    r = results  # (one mask: each filter of its own copied the rows left)
    keep = ~r.quoted.astype(bool) & r.value_norm.notna() \
        & r.is_summary.astype(bool)  # interval lines are no result of a run
    if "statistic" in r.columns:
        keep &= ~r.statistic.isin(NOT_CLAIMED)
        # a median beside the average of the same run (flent's two columns): the average
        median = r.statistic.eq("median")
        if median.any():
            means = set(zip(r.uid[r.statistic.isin(["avg", "mean"])],
                            r.line_no[r.statistic.isin(["avg", "mean"])], strict=True))
            keep &= ~(median & pd.Series([(u, n) in means for u, n in zip(r.uid, r.line_no,
                                                                          strict=True)],
                                         index=r.index))
    if "tool" in r.columns and "config" in r.columns:
        keep &= ~_one_flow_sums(r)
    if "tool" in r.columns and "side" in r.columns:
        # iperf3 prints jitter and loss on UDP sender lines as placeholders (0.000 ms, 0%)
        keep &= ~((r.tool == "iperf3") & (r.test == "udp") & (r.side == "sender")
                  & r.metric.isin(["latency", "loss"]))
    r = r[keep].copy()
    if "pair" not in r.columns:
        r["pair"] = None
    named = KEY + ["label", "condition", "pair", "command"]
    for col in named:
        if col not in r.columns:
            r[col] = None
    as_objects = r[named].astype(object)  # missing values as None, one block for all
    r[named] = as_objects.where(as_objects.notna(), None)
    if "line" not in r.columns:
        r["line"] = ""
    is_sum = (r.stream == "SUM").astype(bool)
    if not (r.stream.notna() & ~is_sum).any():  # no stream rows: nothing to drop
        return r
    run = ["uid", "label", "tool", "side", "metric", "section", "config", "command"]
    has_sum = is_sum.groupby([r[c] for c in run], dropna=False).transform("any").astype(bool)
    return r[is_sum | r.stream.isna() | ~has_sum]


FLOW_OF = re.compile(r"(?: sum|::1)$")  # "TCP upload sum", "TCP upload::1": of "TCP upload"


def _one_flow_sums(r: pd.DataFrame) -> pd.Series:
    """flent's "TCP upload sum" and "TCP upload::1" a line or three below a "TCP upload
    avg" of the same value and statistic: one flow, whose sum and first flow are its
    average (one result, not three)."""
    config = r.config.astype(str)
    sums = (r.tool == "flent") & (config.str.endswith(" sum") | config.str.endswith("::1"))
    if not sums.any():
        return sums
    avg = r[(r.tool == "flent") & config.str.endswith(" avg")]
    lines: dict[tuple[Any, ...], list[int]] = {}
    for u, c, st, v, n in zip(avg.uid, avg.config, avg.statistic, avg.value_norm, avg.line_no,
                              strict=True):
        lines.setdefault((u, c[:-4], st, v), []).append(n)
    s = r[sums]  # (only the sum rows are looked up)
    found = sums.copy()
    found[sums] = [any(0 < n - m <= 3 for m in lines.get((u, FLOW_OF.sub("", c), st, v), ()))
                   for u, c, st, v, n in zip(s.uid, s.config, s.statistic, s.value_norm,
                                             s.line_no, strict=True)]
    return found


def _target_rate(key: tuple[Any, ...], base: list[Any], patched: list[Any]) -> bool:
    """An iperf3 UDP sender's rate equal on both sides: the target it was given (``-b``),
    which the runs only echo ("1000 Mbits/sec ... sender" before and after)."""
    k = dict(zip(KEY, key, strict=True))
    if (k["tool"], k["test"], k["side"]) != ("iperf3", "udp", "sender"):
        return False
    values = {round(x.value_norm, 6) for x in (*base, *patched)}
    return len(values) == 1


def _claim(uid: Any, key: tuple[Any, ...], base: list[Any], patched: list[Any],
           noise_pct: float) -> ClaimRow | None:
    if _target_rate(key, base, patched):
        return None
    pair = _pair(base, patched, noise_pct)
    if pair is None:
        return None
    named = dict(zip(KEY, key, strict=True))
    # the heading the runs stand under, as a name: a sentence or clause is none (the pairing
    # above kept runs under different headings apart all the same)
    named["section"] = short_name(named["section"])
    del named["scope"]  # (what kept runs apart, no column of the claim)
    return ClaimRow(uid=uid, kind="measured", **named,
                    baseline_label=base[0].label or base[0].condition,
                    patched_label=patched[0].label or patched[0].condition, **pair)


def _records(rows: pd.DataFrame) -> list[Any]:
    """Rows as named tuples: the pairing below runs on plain Python per message."""
    return list(rows.itertuples(index=False))


def _groups(records: list[Any], key: Any) -> dict[Any, list[Any]]:
    """Records grouped by ``key(record)``, groups in the order they first appear."""
    out: dict[Any, list[Any]] = {}
    for x in records:
        out.setdefault(key(x), []).append(x)
    return out


def measured_claims(results: pd.DataFrame, noise_pct: float = NOISE_PCT,
                    titles: dict[Any, str] | None = None,
                    usable: bool = False) -> list[ClaimRow]:
    """Baseline/patched pairs within each message: pairs the text makes itself (a table
    row, an arrow, "from X to Y"), then runs under contrasting labels (``usable``: the
    results are ``_usable``'s rows already)."""
    out: list[ClaimRow] = []
    rows_of = _groups(_records(results if usable else _usable(results)), lambda x: x.uid)
    for uid, rows in rows_of.items():
        rows.sort(key=lambda x: x.line_no)
        title = (titles or {}).get(uid)
        out += _text_pairs(uid, [x for x in rows if x.pair is not None], noise_pct, title)
        out += _label_pairs(uid, [x for x in rows if x.pair is None], noise_pct, title)
    return out


def _text_pairs(uid: Any, rows: list[Any], noise_pct: float,
                title: str | None) -> list[ClaimRow]:
    out = []
    rows = [x for x in rows if known(x.metric) and known(x.unit_norm)]
    for group in _groups(rows, lambda x: (x.pair, x.metric, x.unit_norm)).values():
        for base, patched in label_sides(group, title):
            key = tuple(getattr(patched[0], k) for k in KEY)
            if (claim := _claim(uid, key, base, patched, noise_pct)) is not None:
                out.append(claim)
    return out


def _label_pairs(uid: Any, rows: list[Any], noise_pct: float,
                 title: str | None) -> list[ClaimRow]:
    out: list[ClaimRow] = []
    for key, group in _groups(rows, lambda x: tuple(getattr(x, k) for k in KEY)).items():
        for base, patched in label_sides(group, title):
            if claim := _claim(uid, key, base, patched, noise_pct):
                out.append(claim)
    return out


def thread_claims(results: pd.DataFrame, messages: pd.DataFrame, paired_uids: set[str],
                  noise_pct: float = NOISE_PCT, usable: bool = False) -> list[ClaimRow]:
    """Baseline runs in one message, patched runs in another of the same thread
    (``usable`` as for ``measured_claims``)."""
    r = results if usable else _usable(results)
    r = r[r.condition.isin(["baseline", "patched"]) & ~r.uid.isin(paired_uids)
          & r.pair.isna()]
    if r.empty:
        return []
    thread_of = dict(zip(messages.uid, messages.thread_id, strict=True))
    when_of = {u: d for u, d in zip(messages.uid, messages.date, strict=True) if not pd.isna(d)}
    r = r.assign(thread_id=[thread_of.get(u) for u in r.uid],
                 when=[when_of.get(u, pd.NaT) for u in r.uid])
    r = r[r.thread_id.notna()]
    out: list[ClaimRow] = []
    threads = _groups(_records(r), lambda x: x.thread_id)
    for tid in sorted(threads):
        rows = threads[tid]
        conditions = _groups(rows, lambda x: x.uid)
        one_sided = {u for u, xs in conditions.items() if len({x.condition for x in xs}) == 1}
        rows = [x for x in rows if x.uid in one_sided]
        for key, group in _groups(rows, lambda x: tuple(getattr(x, k) for k in KEY)).items():
            b = [x for x in group if x.condition == "baseline"]
            p = [x for x in group if x.condition == "patched"]
            if not b or not p or len({x.uid for x in b}) + len({x.uid for x in p}) < 2:
                continue
            latest = sorted(p, key=lambda x: (not pd.isna(x.when), x.when if not pd.isna(
                x.when) else 0))[-1].uid
            if (claim := _claim(latest, key, b, p, noise_pct)):
                out.append(dataclasses.replace(claim, note="paired across the thread"))
    return out


def hardware_summary(hardware: pd.DataFrame) -> dict[str, str]:
    """uid -> "Client: Intel E5-2620, I350, 4096 MiB; Server: ..." from unquoted rows."""
    hw = hardware[~hardware.quoted.astype(bool)]
    if "role" in hw.columns:
        hw = hw[hw.role.fillna("setup") == "setup"]  # what was measured on, not what is named
    hw = hw[hw.value.notna()]
    out: dict[str, str] = {}
    by_uid = _groups(_records(hw[["uid", "host", "kind", "value"]]), lambda x: x.uid)
    for uid in sorted(by_uid):
        parts = []
        hosts = _groups(by_uid[uid], lambda x: "" if pd.isna(x.host) else x.host)
        for host, rows in hosts.items():
            facts = []
            for kind in HW_ORDER:
                values = list(dict.fromkeys(x.value for x in rows if x.kind == kind))[:2]
                facts += [f"{v} MiB" if kind == "memory" else str(v) for v in values]
            if facts:
                parts.append((f"{host}: " if host else "") + ", ".join(facts))
        if parts:
            out[uid] = "; ".join(parts)[:300]
    return out


def _about_a_change(claim: ClaimRow, patch_of: dict[Any, Any],
                    titles: dict[Any, str]) -> bool:
    """A claim needs a change under test: a patch the message is or discusses, a thread
    titled like a commit or naming one, or a change its labels name (a bisection's commit,
    "With that commit applied").  A contrast of
    configurations in a bug report about no change is no claim."""
    if not pd.isna(patch_of.get(claim.uid)):
        return True
    if names_a_commit(titles.get(claim.uid) or ""):
        return True
    # a bisection's commit, or the change a side is run with ("With that commit applied")
    return any(SHA.search(str(label or "")) or names_change(label)
               for label in (claim.baseline_label, claim.patched_label))


@dataclass
class ClaimFrames:
    """What the claims read, as frames (``claim_frames`` reads them from an archive):
    the results, statements and robot reports, the header columns, patch and thread of
    the messages that have them, the titles of their patches, and a function giving the
    hardware rows of some threads (with each row's thread)."""

    results: pd.DataFrame  # RESULT_COLUMNS
    statements: pd.DataFrame  # STATEMENT_COLUMNS
    reports: pd.DataFrame  # the reports table
    messages: pd.DataFrame  # MESSAGE_COLUMNS, patch_id, thread_id
    patches: pd.DataFrame  # patch_id, title, version
    hardware_of: Callable[[set[Any]], tuple[dict[Any, Any], pd.DataFrame]]

    def subset(self, uids: set[Any]) -> ClaimFrames:
        """The frames of the messages ``uids`` only."""
        def of(df: pd.DataFrame) -> pd.DataFrame:
            return df[df.uid.isin(uids)] if len(df) else df
        return ClaimFrames(of(self.results), of(self.statements), of(self.reports),
                           of(self.messages), self.patches, self.hardware_of)


def claim_frames(archive: Any) -> ClaimFrames:
    """The frames of an Archive the claims read (the headers of only the messages that
    have results, statements or reports)."""
    results = archive.table("results", columns=RESULT_COLUMNS)
    statements = archive.table("statements", columns=STATEMENT_COLUMNS)
    reports = archive.reports
    if results.empty and statements.empty and reports.empty:  # nothing to pair or state
        messages = pd.DataFrame(columns=[*MESSAGE_COLUMNS, "patch_id", "thread_id"])
        return ClaimFrames(results, statements, reports, messages,
                           pd.DataFrame(columns=["patch_id", "title", "version"]),
                           archive.hardware_of_threads)
    messages = archive.headers_of({*results.uid, *statements.uid, *reports.uid},
                                  MESSAGE_COLUMNS)
    patches = archive.patch_titles({p for p in messages.patch_id if not pd.isna(p)})
    return ClaimFrames(results, statements, reports, messages, patches,
                       archive.hardware_of_threads)


def plain(df: pd.DataFrame, numbers: tuple[str, ...] = (), flags: tuple[str, ...] = ()
          ) -> pd.DataFrame:
    """``df`` with one kind of missing value per column: NaN in the ``numbers`` (floats),
    False in the ``flags`` (bools), None in every other column (objects).  The tables
    hold NA, None or NaN in any nullable column; the rules below never test the truth
    of one (``pd.NA or x`` raises), so they read frames made plain here first."""
    out = {}
    for col in df.columns:
        values = df[col]
        if col in numbers:
            out[col] = pd.to_numeric(values.astype(object).where(values.notna(), None),
                                     errors="coerce").astype(float)
        elif col in flags:
            out[col] = values.astype(object).where(values.notna(), False).astype(bool)
        elif col == "date":
            out[col] = pd.to_datetime(values, utc=True, errors="coerce")
        else:
            objects = values.astype(object)
            out[col] = objects.where(objects.notna(), None)
    return pd.DataFrame(out, index=df.index, columns=df.columns)


def build_claims(frames: ClaimFrames, noise_pct: float = NOISE_PCT) -> pd.DataFrame:
    """The claims table of ``frames``: every row has a verdict."""
    if frames.results.empty and frames.statements.empty and frames.reports.empty:
        return pd.DataFrame(columns=COLUMNS)  # nothing to pair or state
    results = plain(frames.results, ("value_norm", "line_no"), ("quoted", "is_summary"))
    statements = plain(frames.statements, ("stated_pct", "baseline_value", "patched_value",
                                           "line_no"), ("quoted",))
    reports = plain(frames.reports, ("change_pct",))
    messages = plain(frames.messages)
    titles = {u: parse_subject(s).title for u, s in zip(messages.uid, messages.subject,
                                                        strict=True) if isinstance(s, str)}
    patch_of = dict(zip(messages.uid, messages.patch_id, strict=True))
    usable = _usable(results)  # once for both pairings
    measured = [c for c in measured_claims(usable, noise_pct, titles, usable=True)
                if _about_a_change(c, patch_of, titles)]
    paired = {c.uid for c in measured}
    measured += [c for c in thread_claims(usable, messages, paired, noise_pct, usable=True)
                 if _about_a_change(c, patch_of, titles)]
    # a robot's report states its own comparison in words too ("kernel test robot
    # noticed a -3.2% regression of ..."): the robot claim is that claim
    robots = set(reports.uid)
    prose = [c for c in prose_claims(statements, measured, messages, titles)
             if _about_a_change(c, patch_of, titles) and c.uid not in robots]
    rows = [c for c in measured + prose + robot_claims(reports, statements)
            if c.verdict in VERDICTS]
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    return _with_context(rows, frames)


def _with_context(rows: list[ClaimRow], frames: ClaimFrames) -> pd.DataFrame:
    """The claim rows with each claim's message, patch (title and version from the
    patches, else from its subject: a patch not in the archive, seed 000), thread and
    hardware."""
    messages = plain(frames.messages)
    meta = dict(zip(messages.uid, messages[[*MESSAGE_COLUMNS[1:], "patch_id", "thread_id"]]
                    .itertuples(index=False), strict=True))
    of = [meta.get(c.uid) for c in rows]

    def column(name: str) -> list[Any]:
        return [getattr(m, name) if m is not None else None for m in of]
    patch_id = column("patch_id")
    patches = frames.patches
    named = dict(zip(patches.patch_id, zip(patches.title, patches.version, strict=True),
                     strict=True))
    title, version = [], []
    for m, pid in zip(of, patch_id, strict=True):
        t, v = named.get(pid, (None, None)) if not pd.isna(pid) else (None, None)
        if pd.isna(t) and not pd.isna(pid):
            parsed = parse_subject(m.subject) if m is not None and isinstance(m.subject, str) \
                else None
            t, v = (parsed.title, parsed.version) if parsed is not None else (None, None)
        title.append(t)
        version.append(v)
    thread_id = column("thread_id")
    # the hardware of the claims' messages, else of their threads
    thread_of, hardware = frames.hardware_of({t for t in thread_id if t is not None})
    hw = hardware_summary(plain(hardware, flags=("quoted",)))
    thread_hw: dict[Any, str] = {}
    for uid, text in hw.items():
        thread_hw.setdefault(thread_of.get(uid), text)
    df = pd.DataFrame([vars(c) for c in rows], columns=COLUMNS)
    df["message_id"] = column("message_id")
    df["author"] = [n if not pd.isna(n) else a
                    for n, a in zip(column("from_name"), column("from_addr"), strict=True)]
    df["date"] = pd.to_datetime(column("date"), utc=True)
    df["patch_id"] = patch_id
    df["title"] = pd.Series(title, index=df.index, dtype=object)
    df["version"] = pd.Series(version, index=df.index, dtype=object)
    df["thread_id"] = thread_id
    df["hardware"] = [hw.get(c.uid) or (None if pd.isna(t) else thread_hw.get(t))
                      for c, t in zip(rows, thread_id, strict=True)]
    return df.reset_index(drop=True)


@dataclass(frozen=True)
class Fault:
    """A group of messages whose claims a rule failed on: skipped, and reported."""

    uid: Any  # the group's first message (a later pass that re-links it voids the row)
    concerns: str  # "thread <thread_id>" or "message <Message-ID>"
    reason: str  # the exception


def isolated_claims(frames: ClaimFrames, noise_pct: float = NOISE_PCT,
                    strict: bool = False) -> tuple[pd.DataFrame, list[Fault]]:
    """``build_claims``, with a fault kept where it happened: when a rule raises, the
    threads are halved until the ones it raises on are found; their claims are skipped
    and each becomes a ``Fault``, the others' claims are kept.  ``strict`` (or
    ``MLX_STRICT=1``) raises instead."""
    try:
        return build_claims(frames, noise_pct), []
    except Exception:
        if strict or os.environ.get("MLX_STRICT") == "1":
            raise
    groups = _thread_groups(frames.messages)
    parts: list[pd.DataFrame] = []
    faults: list[Fault] = []

    def run(todo: list[tuple[str, list[Any]]]) -> None:
        try:
            parts.append(build_claims(frames.subset({u for _, us in todo for u in us}),
                                      noise_pct))
            return
        except Exception as exc:
            if len(todo) == 1:
                name, uids = todo[0]
                faults.append(Fault(uids[0], name, f"{type(exc).__name__}: {exc}"[:300]))
                return
        half = len(todo) // 2
        run(todo[:half])
        run(todo[half:])
    run(groups)
    kept = [p for p in parts if len(p)]
    claims = pd.concat(kept, ignore_index=True) if kept else pd.DataFrame(columns=COLUMNS)
    return claims, faults


def _thread_groups(messages: pd.DataFrame) -> list[tuple[str, list[Any]]]:
    """(name, uids) of each thread of ``messages`` (a message of no thread alone)."""
    groups: dict[Any, tuple[str, list[Any]]] = {}
    for uid, mid, tid in zip(messages.uid, messages.message_id, messages.thread_id,
                             strict=True):
        key = ("m", uid) if pd.isna(tid) else ("t", tid)
        name = f"message {mid}" if pd.isna(tid) else f"thread {tid}"
        groups.setdefault(key, (name, []))[1].append(uid)
    return list(groups.values())
