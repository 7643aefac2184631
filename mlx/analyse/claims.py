"""Claims: baseline/patched pairs of measured results, stated effects, robot reports.

Measured pairs are made within a message from its labels (Before/After,
without/with, a label that is a prefix of a patched one as in seed 002's
``0.0.20180708`` vs ``0.0.20180708 w/napi_gro_receive patch``, versions in
order: the baseline is the unpatched run nearest the patched one), and across
a thread when a tester posts the baseline and the patched runs in separate
messages.  Quoted rows never count.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

NOISE_PCT = 1.0  # |delta| below this is no change
LOWER_IS_BETTER = {"latency", "loss"}
KEY = ["tool", "test", "metric", "side", "stream", "section", "config"]
HW_ORDER = ["cpu", "nic", "memory", "kernel", "os", "board", "wifi", "link"]
COLUMNS = ["patch_id", "title", "version", "message_id", "author", "date", "kind", "tool",
           "test", "metric", "side", "stream", "section", "baseline_label", "baseline_value",
           "baseline_n", "baseline_stdev", "patched_label", "patched_value", "patched_n",
           "patched_stdev", "unit_norm", "delta_pct", "verdict", "note", "hardware",
           "stated_pct", "agrees", "statement"]


def verdict(delta_pct: float, metric: str, noise_pct: float = NOISE_PCT) -> str:
    if abs(delta_pct) < noise_pct:
        return "no-change"
    better = delta_pct < 0 if metric in LOWER_IS_BETTER else delta_pct > 0
    return "improvement" if better else "regression"


def _stats(values: list[float]) -> tuple[float, int, float | None]:
    mean = statistics.fmean(values)
    return mean, len(values), (statistics.stdev(values) if len(values) > 1 else None)


def pick_baseline(patched: str, labels: list[tuple[str, str | None]]) -> str | None:
    """The baseline label for a patched one, among the labels in order of appearance."""
    names = [name for name, _ in labels]
    at = names.index(patched)
    unpatched = [(i, n) for i, (n, c) in enumerate(labels) if c != "patched" and n != patched]
    prefixes = [n for _, n in unpatched if patched.startswith(n) and len(n) < len(patched)]
    if prefixes:
        return max(prefixes, key=len)  # "0.0.20180708" under "0.0.20180708 w/... patch"
    marked = [(i, n) for i, n in unpatched if labels[i][1] == "baseline"]
    before = [n for i, n in marked if i < at]
    if before:
        return before[-1]
    if marked:
        return marked[0][1]
    plain = [n for i, n in unpatched if i < at]
    return plain[-1] if plain else None


def _pair(base: pd.DataFrame, patched: pd.DataFrame, noise_pct: float) -> dict[str, Any] | None:
    b_mean, b_n, b_sd = _stats(list(base.value_norm))
    p_mean, p_n, p_sd = _stats(list(patched.value_norm))
    if not b_mean or math.isnan(b_mean) or math.isnan(p_mean):
        return None
    delta = (p_mean - b_mean) / b_mean * 100
    metric = patched.metric.iloc[0]
    v: Any = verdict(delta, metric, noise_pct)
    note = None
    if b_n > 1 and p_n > 1 and v != "no-change" and \
            abs(p_mean - b_mean) <= max(b_sd or 0.0, p_sd or 0.0):
        v, note = pd.NA, "difference inside the run-to-run spread"
    return {"baseline_value": b_mean, "baseline_n": b_n, "baseline_stdev": b_sd,
            "patched_value": p_mean, "patched_n": p_n, "patched_stdev": p_sd,
            "unit_norm": patched.unit_norm.iloc[0], "delta_pct": delta, "verdict": v,
            "note": note}


def _usable(results: pd.DataFrame) -> pd.DataFrame:
    """Own (unquoted) rows with a value; summaries only where a group has them."""
    r = results[~results.quoted.astype(bool) & results.value_norm.notna()].copy()
    for col in KEY + ["label", "condition"]:
        r[col] = r[col].astype(object).where(r[col].notna(), None)
    has_summary = r.groupby(["uid"] + KEY, dropna=False).is_summary.transform("any")
    return r[r.is_summary.astype(bool) | ~has_summary.astype(bool)]


def measured_claims(results: pd.DataFrame, noise_pct: float = NOISE_PCT) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    r = _usable(results)
    for uid, rows in r.groupby("uid", sort=False):
        rows = rows.sort_values("line_no")
        labels: list[tuple[str, str | None]] = []
        for name, cond in zip(rows.label, rows.condition, strict=True):
            if name is not None and name not in [n for n, _ in labels]:
                labels.append((name, cond))
        for name, cond in labels:
            if cond != "patched":
                continue
            base = pick_baseline(name, labels)
            if base is None:
                continue
            for key, group in rows.groupby(KEY, dropna=False, sort=False):
                b, p = group[group.label == base], group[group.label == name]
                if len(b) and len(p) and (pair := _pair(b, p, noise_pct)):
                    out.append({"uid": uid, "kind": "measured", **dict(zip(KEY, key, strict=True)),
                                "baseline_label": base, "patched_label": name, **pair})
    return out


def thread_claims(results: pd.DataFrame, messages: pd.DataFrame, paired_uids: set[str],
                  noise_pct: float = NOISE_PCT) -> list[dict[str, Any]]:
    """Baseline runs in one message, patched runs in another of the same thread."""
    r = _usable(results)
    r = r[r.condition.isin(["baseline", "patched"]) & ~r.uid.isin(paired_uids)]
    if r.empty:
        return []
    meta = messages.set_index("uid")
    r = r.assign(thread_id=r.uid.map(meta.thread_id), when=r.uid.map(meta.date))
    out: list[dict[str, Any]] = []
    for _, rows in r.groupby("thread_id"):
        one_sided = rows.groupby("uid").condition.nunique() == 1
        rows = rows[rows.uid.isin(one_sided[one_sided].index)]
        for key, group in rows.groupby(KEY, dropna=False, sort=False):
            b = group[group.condition == "baseline"]
            p = group[group.condition == "patched"]
            if b.empty or p.empty or b.uid.nunique() + p.uid.nunique() < 2:
                continue
            if (pair := _pair(b, p, noise_pct)) is not None:
                out.append({"uid": p.sort_values("when").uid.iloc[-1], "kind": "measured",
                            **dict(zip(KEY, key, strict=True)),
                            "baseline_label": b.label.iloc[0], "patched_label": p.label.iloc[0],
                            "note": "paired across the thread", **{k: v for k, v in pair.items()
                                                                  if k != "note"}})
    return out


def hardware_summary(hardware: pd.DataFrame) -> dict[str, str]:
    """uid -> "Client: Intel E5-2620, I350, 4096 MiB; Server: ..." from unquoted rows."""
    hw = hardware[~hardware.quoted.astype(bool)]
    out: dict[str, str] = {}
    for uid, rows in hw.groupby("uid"):
        parts = []
        for host, hrows in rows.groupby(rows.host.fillna(""), sort=False):
            facts = []
            for kind in HW_ORDER:
                vals = hrows[hrows.kind == kind].value.dropna().unique()[:2]
                facts += [f"{v} MiB" if kind == "memory" else str(v) for v in vals]
            if facts:
                parts.append((f"{host}: " if host else "") + ", ".join(facts))
        if parts:
            out[uid] = "; ".join(parts)[:300]
    return out


def _direction(verdict_value: Any) -> str | None:
    return verdict_value if verdict_value in ("improvement", "regression") else None


def prose_claims(statements: pd.DataFrame, measured: pd.DataFrame,
                 messages: pd.DataFrame) -> list[dict[str, Any]]:
    """Effects stated in words, and whether the measured pairs nearby agree."""
    s = statements[(statements.kind == "prose") & ~statements.quoted.astype(bool)]
    if s.empty:
        return []
    thread_of = dict(zip(messages.uid, messages.thread_id, strict=True))
    by_thread: dict[Any, list[float]] = {}
    for uid, delta, v in zip(measured.get("uid", []), measured.get("delta_pct", []),
                             measured.get("verdict", []), strict=True):
        if _direction(v):
            by_thread.setdefault(thread_of.get(uid), []).append(delta)
    out = []
    for row in s.itertuples():
        deltas = by_thread.get(thread_of.get(row.uid), [])
        agrees: Any = pd.NA
        if deltas and row.direction in ("improvement", "regression"):
            median = statistics.median(deltas)
            same = (median > 0) == (row.direction == "improvement")
            close = row.stated_pct is None or pd.isna(row.stated_pct) or \
                abs(abs(median) - abs(row.stated_pct)) <= max(5.0, 0.5 * abs(row.stated_pct))
            agrees = bool(same and close)
        out.append({"uid": row.uid, "kind": "prose", "verdict": row.direction or pd.NA,
                    "stated_pct": row.stated_pct, "agrees": agrees, "statement": row.text})
    return out


def robot_claims(reports: pd.DataFrame, statements: pd.DataFrame) -> list[dict[str, Any]]:
    """Kernel test robot reports, with the base/head values of their table."""
    out = []
    rows = statements[statements.kind == "robot"]
    for rep in reports.itertuples():
        table = rows[(rows.uid == rep.uid) & (rows.metric == rep.metric)]
        t = table.iloc[0] if len(table) else None
        metric = rep.metric or ""
        out.append({
            "uid": rep.uid, "kind": "robot", "tool": metric.split(".")[0] or None,
            "test": metric or None, "metric": metric.split(".", 1)[-1] or None,
            "baseline_label": (t.base_commit if t is not None else None),
            "baseline_value": (t.baseline_value if t is not None else None),
            "patched_label": (t.head_commit if t is not None else rep.commit),
            "patched_value": (t.patched_value if t is not None else None),
            "delta_pct": rep.change_pct, "verdict": rep.verdict, "stated_pct": rep.change_pct,
            "statement": rep.title})
    return out


def build_claims(archive: Any, noise_pct: float = NOISE_PCT) -> pd.DataFrame:
    """The claims table of an Archive."""
    messages = archive.headers
    measured = measured_claims(archive.results, noise_pct)
    paired = {c["uid"] for c in measured}
    measured += thread_claims(archive.results, messages, paired, noise_pct)
    mframe = pd.DataFrame(measured)
    rows = measured + prose_claims(archive.statements, mframe, messages) + robot_claims(
        archive.reports, archive.statements)
    if not rows:
        return pd.DataFrame(columns=COLUMNS)
    df = pd.DataFrame(rows)
    meta = messages.set_index("uid")
    df["message_id"] = df.uid.map(meta.message_id)
    df["author"] = df.uid.map(meta.from_name).fillna(df.uid.map(meta.from_addr))
    df["date"] = df.uid.map(meta.date)
    df["patch_id"] = df.uid.map(meta.patch_id)
    patches = archive.patches.drop_duplicates("patch_id").set_index("patch_id")
    df["title"] = df.patch_id.map(patches.title).astype(object)
    df["version"] = df.patch_id.map(patches.version).astype(object)
    # a patch not in the archive (seed 000): its title from the message subject
    from mlx.link.subjects import parse_subject
    missing = df.title.isna() & df.patch_id.notna()
    df.loc[missing, "title"] = df.loc[missing, "uid"].map(meta.subject).map(
        lambda s: parse_subject(s).title if isinstance(s, str) else None)
    df.loc[missing, "version"] = df.loc[missing, "uid"].map(meta.subject).map(
        lambda s: parse_subject(s).version if isinstance(s, str) else None)
    hw = hardware_summary(archive.hardware)
    thread_hw: dict[Any, str] = {}
    for uid, text in hw.items():
        thread_hw.setdefault(meta.thread_id.get(uid), text)
    df["hardware"] = [hw.get(u) or thread_hw.get(meta.thread_id.get(u)) for u in df.uid]
    for col in COLUMNS:
        if col not in df.columns:
            df[col] = pd.NA
    return df[COLUMNS + ["uid"]].reset_index(drop=True)
