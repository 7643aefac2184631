"""Recall and precision of results, claims and hardware on the real gold set.

    python benchmarks/accuracy.py [--corpus DIR] [--split heldout|dev|all] [--misses]
        [--numbered-from N]

The gold set (``tests/data/real/labels.json``: Message-IDs and expected values only,
no mail text) names real messages of ``../shared/corpus/``, each with its ``list`` and
``split``: the lists of the ``heldout`` split are labelled by a helper and never read
while rules are written, so their figures show what a list mlx has never seen brings.
This script ingests the corpus files they come from (``perf/``, ``perf-threads/``,
``hardware/``, ``candidates/``, ``fixtures/single-messages/`` whole, so threads stay
whole; from ``lists/`` only the labelled messages) into a temporary store and compares,
message by message:

- results: a labelled value is found when a row of the message has the same
  ``unit_norm`` and a ``value_norm`` within 1%; precision counts the message's
  summary rows (``is_summary``) that match no label.  Interval lines of tool
  output are not labelled and not counted.
- claims: a measured claim matches when both sides are within 1%, the unit and the
  verdict agree; a prose claim when the verdict and the stated percent (or its
  absence) agree; a robot claim by its two values.  Claims paired across a thread
  are not labelled and are counted apart.
- hardware: recall of the facts labelled ``setup`` among the rows whose role is
  ``setup`` (what the claims' summary reads); precision of those rows (a row matches
  a label of the same kind that names the same model).

The summary comes last, one figure per line, the held-out lists first; ``--misses``
prints every miss and extra row of the dev split before it, and those of the held-out
split only as counts by kind (a unit, a tool, a hardware kind, the name of the rule that
rejected a missed value: no value, no text), so that reading them writes no rule for one
held-out message.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "data" / "real" / "labels.json"
CORPUS = ROOT.parent / "shared" / "corpus"
WHOLE = ("perf", "perf-threads", "hardware", "candidates", "fixtures/single-messages")
SPLITS = ("heldout", "dev")
TOLERANCE = 0.01
MESSAGE_ID = re.compile(rb"(?im)^message-id:[ \t]*(?:\r?\n[ \t]+)?<?([^>\s]+)>?")


def load_labels(path: Path = LABELS) -> list[dict[str, Any]]:
    return json.loads(path.read_text())


def _list_messages(corpus: Path, labels: list[dict[str, Any]], out: Path) -> None:
    """The labelled messages of whole-list archives, one .eml file each."""
    from mlx.ingest.chunks import split_stream
    from mlx.ingest.sources import Source, discover
    wanted: dict[str, set[str]] = defaultdict(set)
    for lab in labels:
        if lab["file"].startswith("lists/"):
            wanted[lab["file"]].add(lab["message_id"])
    for name, ids in sorted(wanted.items()):
        src: Source = discover([str(corpus / name)])[0][0]
        for raw in split_stream(src):
            data = getattr(raw, "data", None)
            m = MESSAGE_ID.search(data[:65536]) if data else None
            if m and m.group(1).decode("ascii", "replace") in ids:
                (out / f"{len(os.listdir(out)):04d}.eml").write_bytes(data)


def ingest_gold(corpus: Path, labels: list[dict[str, Any]], store: Path) -> Any:
    import mlx
    lists = store.parent / "lists"
    lists.mkdir()
    _list_messages(corpus, labels, lists)
    paths = [str(corpus / d) for d in WHOLE if (corpus / d).exists()] + \
        ([str(lists)] if any(lists.iterdir()) else [])
    mlx.ingest(paths, store=str(store), workers=2)
    return mlx.load(str(store))


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)):
        return False
    return abs(a - b) <= TOLERANCE * max(abs(b), 1e-9) + 1e-9


def _mean(v: Any) -> float | None:
    if isinstance(v, list):
        return sum(v) / len(v) if v else None
    return v


# ---------------------------------------------------------------- matching


def match_results(labels: list[dict[str, Any]], rows: pd.DataFrame) -> tuple[list[int], list[int]]:
    """Greedy one-to-one matching: (index of the row each label got or -1, unmatched rows)."""
    free = list(range(len(rows)))
    got: list[int] = []
    for lab in labels:
        best, best_d = -1, None
        for k in free:
            r = rows.iloc[k]
            if r.unit_norm != lab["unit_norm"] or not _close(r.value_norm, lab["value_norm"]):
                continue
            d = abs(int(r.line_no) - int(lab.get("line") or r.line_no))
            if best_d is None or d < best_d:
                best, best_d = k, d
        if best >= 0:
            free.remove(best)
        got.append(best)
    return got, free


def _claim_ok(lab: dict[str, Any], c: Any) -> bool:
    kind = lab["kind"]
    if c.kind != kind:
        return False
    if kind == "prose":
        stated, pct = lab.get("stated_pct"), c.stated_pct
        same_pct = (stated is None and (pct is None or pd.isna(pct))) or (
            stated is not None and pct is not None and not pd.isna(pct)
            and abs(abs(float(pct)) - abs(float(stated))) <= 0.5)
        return same_pct and c.verdict == lab.get("verdict")
    if kind == "robot":
        return _close(c.baseline_value, _mean(lab.get("baseline"))) and \
            _close(c.patched_value, _mean(lab.get("patched")))
    return (c.unit_norm == lab.get("unit_norm") and c.verdict == lab.get("verdict")
            and _close(c.baseline_value, _mean(lab["baseline"]))
            and _close(c.patched_value, _mean(lab["patched"])))


def match_claims(labels: list[dict[str, Any]], rows: pd.DataFrame) -> tuple[list[int], list[int]]:
    free = list(range(len(rows)))
    got = []
    for lab in labels:
        k = next((k for k in free if _claim_ok(lab, rows.iloc[k])), -1)
        if k >= 0:
            free.remove(k)
        got.append(k)
    return got, free


# "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" -> {"xeon", "gold", "6338", ...}
HW_NOISE = re.compile(r"\((?:r|tm)\)|[,;:()\[\]\"'@]")
MEM = re.compile(r"(?i)(\d+(?:\.\d+)?)[ \t]*([KMGT])(?:i?B)?\b")
MEM_MIB = {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024**2}


def _tokens(text: str) -> set[str]:
    return set(HW_NOISE.sub(" ", text.lower()).replace("-", " ").split())


def _mib(text: str) -> float | None:
    m = MEM.search(text)
    return float(m.group(1)) * MEM_MIB[m.group(2).upper()] if m else None


def hw_same(lab: dict[str, Any], kind: str, text: str, value: Any) -> bool:
    if lab["kind"] != kind:
        return False
    if kind == "memory":
        want = _mib(lab["text"])
        have = float(value) if value is not None and not pd.isna(value) else _mib(text)
        return want is not None and have is not None and abs(want - have) <= 0.02 * want
    a, b = lab["text"].lower(), str(text).lower()
    if a in b or b in a:
        return True
    ta, tb = _tokens(a), _tokens(b)
    models = {t for t in ta & tb if any(ch.isdigit() for ch in t) and len(t) >= 2}
    return bool(models) or (len(ta & tb) >= 2 and len(ta & tb) >= 0.5 * min(len(ta), len(tb)))


# ---------------------------------------------------------------- scoring


@dataclass
class Score:
    found: int = 0
    labelled: int = 0
    correct: int = 0
    predicted: int = 0
    per_message: list[float] = field(default_factory=list)

    def recall(self) -> float:
        return self.found / self.labelled if self.labelled else 1.0

    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    def macro(self) -> float:
        return sum(self.per_message) / len(self.per_message) if self.per_message else 1.0


@dataclass
class Report:
    results: Score = field(default_factory=Score)
    claims: Score = field(default_factory=Score)
    prose: Score = field(default_factory=Score)  # the prose claims alone (issue 36)
    hardware: Score = field(default_factory=Score)
    attrs: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    negatives: int = 0
    negative_rows: int = 0
    thread_claims: int = 0
    messages: int = 0
    lists: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)  # the misses, by kind
    list: str = ""  # of the message being scored

    def miss(self, kind: str, line: str) -> None:
        """One miss or extra row: its line (with values and text), and its kind with its
        list (words only: what a held-out list's misses are reported as)."""
        self.kinds[f"{self.list}: {kind}"] += 1
        self.lines.append(line)


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _rule(arch: Any, uid: str | None, want: dict[str, Any]) -> str:
    """" (rule: <name>)" when a named rule of the prose reader rejected the labelled value
    on its line (``mlx.extract.measured.RULES``), else ""."""
    from mlx.extract.inline import rejections
    if uid is None or not want.get("line") or want.get("value") is None:
        return ""
    lines = _body(arch, uid)[0].split("\n")
    k = int(want["line"]) - 1
    if not 0 <= k < len(lines):
        return ""
    text = lines[k].lstrip("> ")
    names = [name for _, value, name in rejections([text])
             if _close(value, float(want["value"]))]
    return f" (rule: {names[0]})" if names else ""


def _body(arch: Any, uid: str) -> tuple[str, str]:
    """A message's body and subject, from one read of the messages table."""
    if "bodies" not in arch.__dict__:
        m = arch.table("messages", columns=["uid", "body", "subject"])
        arch.__dict__["bodies"] = dict(zip(m.uid, zip(m.body, m.subject, strict=True),
                                           strict=True))
    body, subject = arch.__dict__["bodies"].get(uid, (None, None))
    return body or "", subject or ""


def _prose_rule(arch: Any, uid: str | None, want: dict[str, Any]) -> str:
    """" (rule: <name>)" when a named rule of the statements reader
    (``mlx.extract.effect_rules.EFFECT_RULES``) turned down an effect on the labelled line."""
    from mlx.extract.statements import rejections
    if uid is None:
        return ""
    line = want.get("line")
    names = [name for at, _, name in rejections(*_body(arch, uid))
             if line is None or at == int(line)]
    return f" (rule: {names[0]})" if names else ""


def _measured_why(want: dict[str, Any], cl: pd.DataFrame, free: list[int], arch: Any,
                  uid: str | None) -> str:
    """" (why: ...)": which step failed for a missed measured claim, in words a held-out
    miss may be read in: the pairing (a claim of the same values with its sides swapped, a
    different verdict or unit), or the readers (a side's value among the message's results
    with no claim, or not found at all)."""
    base, new = _mean(want.get("baseline")), _mean(want.get("patched"))
    for k in free:
        c = cl.iloc[k]
        if c.kind != "measured":
            continue
        same = _close(c.baseline_value, base) and _close(c.patched_value, new)
        if same:
            return " (why: same values, " + (
                "another unit)" if c.unit_norm != want.get("unit_norm") else "another verdict)")
        if _close(c.baseline_value, new) and _close(c.patched_value, base):
            return " (why: sides swapped)"
        if _close(c.baseline_value, base) or _close(c.patched_value, new):
            side = "baseline" if _close(c.patched_value, new) else "patched"
            n = c.baseline_n if side == "baseline" else c.patched_n
            return f" (why: the {side} value differs, ours of {n} runs)"
    res = arch.results
    res = res[res.uid == uid]
    have = [any(_close(v, x) for v in res.value_norm) for x in (base, new)]
    cond = {x: {str(c) for c in res.condition[[_close(v, x) for v in res.value_norm]]}
            for x in (base, new)}
    if all(have):
        return f" (why: both values found, conditions {sorted(cond[base])} / {sorted(cond[new])})"
    return " (why: a value not found)" if any(have) else " (why: no value found)"


def score_message(lab: dict[str, Any], arch: Any, uid: str | None, rep: Report) -> None:
    n, mid = lab.get("n"), lab["message_id"]
    tag = f"n={n} {mid[:50]}"
    res = arch.results
    res = res[(res.uid == uid) & res.is_summary.astype(bool)].reset_index(drop=True)
    if lab.get("negative"):
        rep.negatives += 1
        rep.negative_rows += len(res)
        for r in res.itertuples():
            rep.miss(f"row from a negative message [{r.tool}] {r.unit_norm}",
                     f"NEGATIVE-ROW {tag} line {r.line_no}: {_fmt(r.value_norm)} "
                             f"{r.unit_norm} [{r.tool}] {str(r.line)[:70]}")
    got, free = match_results(lab["results"], res)
    s = rep.results
    if lab["results"]:
        s.per_message.append(sum(k >= 0 for k in got) / len(lab["results"]))
    s.labelled += len(lab["results"])
    s.found += sum(k >= 0 for k in got)
    s.predicted += len(res)
    s.correct += len(res) - len(free)
    for want, k in zip(lab["results"], got, strict=True):
        if k < 0:
            why = _rule(arch, uid, want)
            rep.miss(f"missed result {want['unit_norm']}{why}",
                     f"MISS result {tag} line {want.get('line')}: "
                     f"{_fmt(want['value_norm'])} {want['unit_norm']} "
                     f"({want.get('value')} {want.get('unit')}){why}")
            continue
        r = res.iloc[k]
        for attr in ("condition", "side", "quoted"):
            have = r[attr] if not pd.isna(r[attr]) else None
            rep.attrs[attr][1] += 1
            if (bool(have) if attr == "quoted" else have) == want.get(attr):
                rep.attrs[attr][0] += 1
            elif attr == "condition":
                how = f"a label, {_decided(r.label)}" if isinstance(r.label, str) and \
                    r.label else "no label"
                rep.miss(f"condition {want.get(attr)} found as {have} [{r.tool}, {how}]",
                         f"CONDITION {tag} line {r.line_no}: {have} for "
                         f"{want.get(attr)} ({_fmt(r.value_norm)} {r.unit_norm})")
    if not lab.get("negative"):
        for k in free:
            r = res.iloc[k]
            rep.miss(f"extra result [{r.tool}] {r.unit_norm}",
                     f"EXTRA result {tag} line {r.line_no}: {_fmt(r.value_norm)} "
                     f"{r.unit_norm} [{r.tool}] {str(r.line)[:70]}")
    _score_claims(lab, arch, uid, rep, tag)
    _score_hardware(lab, arch, uid, rep, tag)


def _decided(label: str) -> str:
    """Which word of the condition vocabulary a label's condition came from, in the
    vocabulary's own words (the first word of the match; a commit id as ``<sha>``), or
    that none did (the label algebra, the title or the reader decided): what a held-out
    condition miss may be read in."""
    from mlx.extract import conditions as c
    if c.condition_of(label) is None:
        return "no vocabulary word"
    for name in ("BASELINE", "OLD_CHANGE", "BASE_NOUN", "PATCHED", "THIS_CHANGE"):
        if m := getattr(c, name).search(label):
            word = (m.group(0).split() or ["+"])[0].lower()
            return f"{name.lower()} {re.sub(r'[0-9a-f]{7,40}', '<sha>', word)!r}"
    return "a vocabulary word"


def _score_claims(lab: dict[str, Any], arch: Any, uid: str | None, rep: Report,
                  tag: str) -> None:
    cl = arch.claims
    cl = cl[cl.uid == uid].reset_index(drop=True)
    across = cl.note.astype(str).str.contains("across the thread")
    rep.thread_claims += int(across.sum())
    cl = cl[~across].reset_index(drop=True)
    got, free = match_claims(lab["claims"], cl)
    s = rep.claims
    if lab["claims"]:
        s.per_message.append(sum(k >= 0 for k in got) / len(lab["claims"]))
    s.labelled += len(lab["claims"])
    s.found += sum(k >= 0 for k in got)
    s.predicted += len(cl)
    s.correct += len(cl) - len(free)
    p = rep.prose
    p.labelled += sum(w["kind"] == "prose" for w in lab["claims"])
    p.found += sum(k >= 0 and w["kind"] == "prose" for w, k in zip(lab["claims"], got,
                                                                   strict=True))
    p.predicted += int((cl.kind == "prose").sum())
    p.correct += int((cl.kind == "prose").sum()) - sum(cl.kind.iloc[k] == "prose" for k in free)
    for want, k in zip(lab["claims"], got, strict=True):
        if k < 0:
            why = (_prose_rule(arch, uid, want) if want["kind"] == "prose" else
                   _measured_why(want, cl, free, arch, uid) if want["kind"] == "measured" else "")
            what = (f"stated {want.get('stated_pct')}{why}" if want["kind"] == "prose" else
                    f"{_fmt(_mean(want.get('baseline')))} -> {_fmt(_mean(want.get('patched')))} "
                    f"{want.get('unit_norm') or ''}")
            rep.miss(f"missed claim [{want['kind']}] {want.get('unit_norm') or ''}".rstrip()
                     + why,
                     f"MISS claim {tag} [{want['kind']}] {what} {want.get('verdict')} "
                             f"(line {want.get('patched_line') or want.get('line')})")
    for k in free:
        c = cl.iloc[k]
        what = (f"stated {_fmt(c.stated_pct)} {str(c.statement)[:60]!r}" if c.kind == "prose"
                else f"{_fmt(c.baseline_value)} -> {_fmt(c.patched_value)} {c.unit_norm} "
                f"{c.baseline_label!r} vs {c.patched_label!r}")
        why = _prose_extra_why(c, lab) if c.kind == "prose" else ""
        rep.miss(f"extra claim [{c.kind}] {c.tool if c.kind == 'measured' else ''}".rstrip()
                 + why, f"EXTRA claim {tag} [{c.kind}] {what} {c.verdict}{why}")


def _prose_extra_why(c: Any, lab: dict[str, Any]) -> str:
    """" (why: ...)" for a prose claim no label matches, in words a held-out extra may be
    read in: a labelled prose claim on its line with another verdict or stated percent,
    else what the message is labelled as, with our verdict and the effect words of the
    vocabulary its sentence holds (``mlx.extract.vocab.EFFECTS``: our words, not its text)."""
    from mlx.extract.vocab import EFFECTS
    line = None if pd.isna(c.patched_line_no) else int(c.patched_line_no)
    near = [w for w in lab["claims"] if w["kind"] == "prose" and line is not None and
            w.get("line") is not None and abs(int(w["line"]) - line) <= 1]
    if near:
        w = near[0]
        return (f" (why: the label on its line says {w.get('verdict')}, stated "
                f"{w.get('stated_pct')}; ours {c.verdict}, stated {_fmt(c.stated_pct)})")
    text = str(c.statement).lower()
    stems = [e.stem for e in EFFECTS if re.search(e.regex, text)]
    kinds = Counter(w["kind"] for w in lab["claims"])
    labelled = "a negative" if lab.get("negative") else (
        f"{kinds['measured']} measured, {kinds['prose']} prose labelled")
    stated = "a percent stated" if not pd.isna(c.stated_pct) else "no percent"
    return f" (why: no label on its line; {labelled}; ours {c.verdict}, {stated}, " \
        f"effect words {stems})"


def _score_hardware(lab: dict[str, Any], arch: Any, uid: str | None, rep: Report,
                    tag: str) -> None:
    hw = arch.hardware
    hw = hw[hw.uid == uid]
    role = hw.role if "role" in hw.columns else pd.Series("setup", index=hw.index)
    setup = [h for h in lab["hardware"] if h.get("role") == "setup"]
    s = rep.hardware
    rule = hw.rule if "rule" in hw.columns else pd.Series(None, index=hw.index)
    rows = list(zip(hw.kind, hw.text, hw.value, role, hw.line_no, strict=True))
    found = 0
    for h in setup:  # found only as a setup row: the claims' summary reads no other
        if any(hw_same(h, k, t, v) for k, t, v, r, _ in rows if r == "setup"):
            found += 1
            continue
        # found as a subject: the rule of mlx.extract.hwrole that turned it down
        names = [n for (k, t, v, r, _), n in zip(rows, rule, strict=True)
                 if r != "setup" and isinstance(n, str) and hw_same(h, k, t, v)]
        why = f" (rule: {names[0]})" if names else ""
        rep.miss(f"missed setup hardware {h['kind']}{why}",
                 f"MISS hardware {tag} line {h.get('line')}: {h['kind']} {h['text']!r}{why}")
    if setup:
        s.per_message.append(found / len(setup))
    s.labelled += len(setup)
    s.found += found
    for k, t, v, r, line in rows:
        if r != "setup":
            continue
        s.predicted += 1
        if any(hw_same(h, k, t, v) for h in setup):
            s.correct += 1
        else:
            rep.miss(f"extra setup hardware {k}", f"EXTRA hardware {tag} line {line}: {k} {t!r}")


def measure(corpus: Path = CORPUS, labels: list[dict[str, Any]] | None = None,
            split: str = "all") -> dict[str, Report]:
    """One Report per split (``heldout``, ``dev``) of the labels of ``split``, from one
    ingest of everything they need."""
    labels = load_labels() if labels is None else labels
    labels = [lab for lab in labels if split == "all" or lab.get("split") == split]
    reports = {name: Report() for name in SPLITS if split in ("all", name)}
    with tempfile.TemporaryDirectory(prefix="mlx-accuracy-") as tmp:
        arch = ingest_gold(corpus, labels, Path(tmp) / "store")
        uid_of = dict(zip(arch.headers.message_id, arch.headers.uid, strict=True))
        for lab in labels:
            rep = reports[lab["split"]]
            uid = uid_of.get(lab["message_id"])
            rep.messages += 1
            rep.lists.add(lab["list"])
            rep.list = lab["list"]
            if uid is None:
                rep.miss("not ingested", f"NOT-INGESTED n={lab.get('n')} {lab['message_id']}")
            score_message(lab, arch, uid, rep)
    return reports


def figures(rep: Report) -> dict[str, float]:
    cond = rep.attrs.get("condition", [0, 0])
    return {
        "results_recall_per_message": rep.results.macro(),
        "results_recall": rep.results.recall(),
        "results_precision": rep.results.precision(),
        "claims_recall": rep.claims.recall(),
        "claims_precision": rep.claims.precision(),
        "prose_recall": rep.prose.recall(),
        "prose_precision": rep.prose.precision(),
        "condition": cond[0] / cond[1] if cond[1] else 1.0,
        "hardware_setup_recall": rep.hardware.recall(),
        "hardware_setup_precision": rep.hardware.precision(),
        "negative_rows": float(rep.negative_rows),
    }


def summary(rep: Report, split: str) -> list[str]:
    r, c, h = rep.results, rep.claims, rep.hardware
    attrs = ", ".join(f"{k} {a / b:.2f} ({a}/{b})" for k, (a, b) in sorted(rep.attrs.items())
                      if b)
    return [
        f"{split} lists ({len(rep.lists)}: {', '.join(sorted(rep.lists))}): {rep.messages} "
        f"messages, {rep.negatives} negatives",
        f"  results recall per message {r.macro():.3f}, overall {r.recall():.3f} "
        f"({r.found}/{r.labelled})",
        f"  results precision {r.precision():.3f} ({r.correct}/{r.predicted}); "
        f"attributes of found rows: {attrs}",
        f"  claims recall {c.recall():.3f} ({c.found}/{c.labelled}), precision "
        f"{c.precision():.3f} ({c.correct}/{c.predicted}); {rep.thread_claims} paired "
        f"across threads, not scored; prose claims alone: recall {rep.prose.recall():.3f} "
        f"({rep.prose.found}/{rep.prose.labelled}), precision {rep.prose.precision():.3f} "
        f"({rep.prose.correct}/{rep.prose.predicted})",
        f"  rows from negative messages: {rep.negative_rows}",
        f"  hardware setup recall {h.recall():.3f} ({h.found}/{h.labelled}), precision "
        f"{h.precision():.3f} ({h.correct}/{h.predicted})",
    ]


def misses(rep: Report, split: str, lines: bool = False) -> list[str]:
    """Every miss of the dev split; of the held-out split, how many of each kind (every
    line only with ``lines``: for a helper who describes the misses in words)."""
    if split != "heldout" or lines:
        return rep.lines
    return [f"{split}: {n} {kind}" for kind, n in sorted(rep.kinds.items(),
                                                           key=lambda kv: (-kv[1], kv[0]))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    ap.add_argument("--misses", action="store_true",
                    help="print every miss and extra row (of the held-out split: counts)")
    ap.add_argument("--heldout-lines", action="store_true",
                    help="with --misses, the held-out split's lines too: for a helper who "
                    "describes them in words, never read while rules are written")
    ap.add_argument("--numbered-from", type=int, default=0, metavar="N",
                    help="only the labels numbered N and up: a later draw alone (the "
                    "held-out messages of 2026-12-06 are numbered from 901)")
    a = ap.parse_args(argv)
    if not a.corpus.is_dir():
        print(f"Error: no corpus at {a.corpus}; pass --corpus DIR", file=sys.stderr)
        return 1
    labels = [lab for lab in load_labels() if lab["n"] >= a.numbered_from]
    reports = measure(a.corpus, labels, split=a.split)
    if a.misses:
        for name in reversed(SPLITS):  # the held-out split's counts last, by the figures
            if name in reports:
                print("\n".join(misses(reports[name], name, a.heldout_lines)))
    for name in SPLITS:
        if name in reports:
            print("\n".join(summary(reports[name], name)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
