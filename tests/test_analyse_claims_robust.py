"""No value of a row can end the claims or the link pass (issue 32).

The link and claims stages read tables whose nullable columns can hold NA, None or NaN
in any row: hypothesis builds results, statements, reports, headers and hardware with
missing values everywhere, and ``build_claims`` and a whole link pass must never raise;
every claim they write has a verdict.  A rule that raises anyway costs only the thread it
raised on: an ``errors`` row of stage ``claims`` names it, the other threads keep theirs.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mlx
from mlx.analyse import pairing
from mlx.analyse.claims import (
    COLUMNS,
    RESULT_COLUMNS,
    STATEMENT_COLUMNS,
    VERDICTS,
    ClaimFrames,
    build_claims,
    isolated_claims,
)

MISSING = st.sampled_from([None, pd.NA, math.nan])
UIDS = ["u1", "u2", "u3", "u4"]


def maybe(*values: Any) -> st.SearchStrategy[Any]:
    return st.one_of(MISSING, st.sampled_from(values))


NUMBER = st.one_of(MISSING, st.sampled_from([0.0, 1.0, 100.0, 101.5, -3.0]),
                   st.floats(allow_nan=True, allow_infinity=True))
RESULT_FIELDS = {
    "uid": st.sampled_from(UIDS),
    "tool": maybe("iperf3", "netperf", "inline", "table"),
    "test": maybe("tcp", "udp", "TCP_STREAM"),
    "metric": maybe("throughput", "latency", "loss", "count", "rate"),
    "side": maybe("sender", "receiver"),
    "stream": maybe("SUM", "5"),
    "section": maybe("rx"),
    "config": maybe("64B", "drops"),
    "statistic": maybe("avg", "min"),
    "value_norm": NUMBER,
    "unit_norm": maybe("Mbit/s", "us", "%"),
    "is_summary": st.one_of(MISSING, st.booleans()),
    "label": maybe("Before", "After", "before patch", "after patch", "baseline",
                   "baseline + pools", "with the series", "commit 1a2b3c4d5e6f (9f8e7d6^)",
                   "commit 9f8e7d6c5b4a"),
    "condition": maybe("baseline", "patched"),
    "pair": maybe("p1", "p2"),
    "command": maybe("iperf3 -c h", "iperf3 -c h -P4"),
    "quoted": st.one_of(MISSING, st.booleans()),
    "line_no": st.one_of(MISSING, st.integers(1, 40)),
    "line": maybe("a line"),
}
RESULT = st.fixed_dictionaries(RESULT_FIELDS)
STATEMENT_FIELDS = {
    "uid": st.sampled_from(UIDS),
    "kind": maybe("prose", "robot"),
    "text": maybe("This patch improves throughput by 7%.", "It is slower."),
    "stated_pct": NUMBER,
    "direction": maybe("improvement", "regression", "no-change"),
    "metric": maybe("netperf.Throughput_Mbps", "throughput"),
    "baseline_value": NUMBER,
    "patched_value": NUMBER,
    "base_commit": maybe("1a2b3c4d"),
    "head_commit": maybe("9f8e7d6c"),
    "quoted": st.one_of(MISSING, st.booleans()),
    "line_no": st.one_of(MISSING, st.integers(1, 40)),
}
STATEMENT = st.fixed_dictionaries(STATEMENT_FIELDS)
REPORT_FIELDS = {
    "uid": st.sampled_from(UIDS),
    "message_id": maybe("r@x"),
    "commit": maybe("9f8e7d6c"),
    "metric": maybe("netperf.Throughput_Mbps", ""),
    "change_pct": NUMBER,
    "verdict": maybe("improvement", "regression"),
    "tree": maybe("net-next"),
    "title": maybe("[tcp] 9f8e7d6c: netperf.Throughput_Mbps -25.7% regression"),
}
REPORT = st.fixed_dictionaries(REPORT_FIELDS)
MESSAGE_FIELDS = {
    "message_id": maybe("m@x"),
    "date": st.one_of(st.just(pd.NaT), MISSING, st.just(pd.Timestamp("2024-01-01", tz="UTC"))),
    "from_name": maybe("A"),
    "from_addr": maybe("a@x"),
    "subject": maybe("[PATCH v2 net] tcp: faster", "Re: [PATCH] tcp: faster", ""),
    "patch_id": maybe("p-1"),
    "thread_id": maybe("t-1", "t-2"),
}
MESSAGE = st.fixed_dictionaries(MESSAGE_FIELDS)
HARDWARE_FIELDS = {
    "uid": st.sampled_from(UIDS), "host": maybe("Client"), "kind": maybe("cpu", "memory"),
    "value": maybe("EPYC 7713", "4096"), "quoted": st.one_of(MISSING, st.booleans()),
    "role": maybe("setup", "subject"),
}
HARDWARE = st.fixed_dictionaries(HARDWARE_FIELDS)


def frames(results: list[dict], statements: list[dict], reports: list[dict],
           messages: list[dict], hardware: list[dict]) -> ClaimFrames:
    heads = pd.DataFrame([{"uid": u, **m} for u, m in zip(UIDS, messages, strict=False)],
                         columns=["uid", *MESSAGE_FIELDS]) if messages else \
        pd.DataFrame(columns=["uid", *MESSAGE_FIELDS])
    hw = pd.DataFrame(hardware, columns=list(HARDWARE_FIELDS))
    return ClaimFrames(
        pd.DataFrame(results, columns=RESULT_COLUMNS),
        pd.DataFrame(statements, columns=STATEMENT_COLUMNS),
        pd.DataFrame(reports, columns=list(REPORT_FIELDS)), heads,
        pd.DataFrame({"patch_id": ["p-1"], "title": [None], "version": [pd.NA]}),
        lambda threads: ({u: t for u, t in zip(heads.uid, heads.thread_id, strict=True)
                          if not pd.isna(t)}, hw))


TABLES = dict(results=st.lists(RESULT, max_size=14), statements=st.lists(STATEMENT, max_size=5),
              reports=st.lists(REPORT, max_size=3), messages=st.lists(MESSAGE, max_size=4),
              hardware=st.lists(HARDWARE, max_size=4))


def _check(out: pd.DataFrame) -> None:
    assert list(out.columns) == COLUMNS
    assert out.verdict.isin(VERDICTS).all(), out.verdict.tolist()  # a claim has a verdict
    measured = out[out.kind == "measured"]
    assert all(math.isfinite(d) for d in measured.delta_pct), measured.delta_pct.tolist()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**TABLES)
def test_build_claims_never_raises_on_missing_values(**tables: list[dict]) -> None:
    _check(build_claims(frames(**tables)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**TABLES)
def test_build_claims_never_raises_on_nullable_dtypes(**tables: list[dict]) -> None:
    """The same values in pandas' nullable dtypes (as Arrow hands them over)."""
    f = frames(**tables)
    for df in (f.results, f.statements, f.reports):
        for col in df.columns:
            if col in ("line_no",):
                df[col] = pd.array([None if pd.isna(v) else int(v) for v in df[col]], "Int64")
            elif col in ("quoted", "is_summary"):
                df[col] = pd.array([None if pd.isna(v) else bool(v) for v in df[col]],
                                   "boolean")
    _check(build_claims(f))


def test_a_rule_that_raises_costs_only_its_thread(monkeypatch) -> None:
    """A deliberately broken rule: the thread it raises on is skipped with a Fault, the
    other thread's claim stays; strict mode raises."""
    def row(uid: str, label: str, value: float, line: int) -> dict:
        condition = "baseline" if label.startswith("Before") else "patched"
        return {"uid": uid, "tool": "iperf3", "test": "tcp", "metric": "throughput",
                "side": "receiver", "stream": None, "section": None, "config": None,
                "statistic": None, "value_norm": value, "unit_norm": "Mbit/s",
                "is_summary": True, "label": label, "condition": condition, "pair": None,
                "command": None, "quoted": False, "line_no": line, "line": f"{label}"}
    results = [row("u1", "Before patch", 100.0, 1), row("u1", "After patch", 120.0, 2),
               row("u2", "Before patch!", 100.0, 1), row("u2", "After patch!", 90.0, 2)]
    heads = [{"message_id": f"{u}@x", "date": pd.NaT, "from_name": "A", "from_addr": "a@x",
              "subject": "[PATCH] tcp: faster", "patch_id": "p-1", "thread_id": f"t-{u}"}
             for u in ("u1", "u2")]
    f = frames(results, [], [], heads, [])
    assert len(build_claims(f)) == 2
    real = pairing.pick_baseline

    def broken(patched: str, labels: list) -> str | None:
        if patched.endswith("!"):
            raise ZeroDivisionError("a rule with a bug")
        return real(patched, labels)
    monkeypatch.setattr(pairing, "pick_baseline", broken)
    out, faults = isolated_claims(f)
    assert out.uid.tolist() == ["u1"] and out.verdict.tolist() == ["improvement"]
    assert [(x.uid, x.concerns, x.reason) for x in faults] == [
        ("u2", "thread t-u2", "ZeroDivisionError: a rule with a bug")]
    with pytest.raises(ZeroDivisionError):
        isolated_claims(f, strict=True)


DIFF = ("---\n net/ipv4/tcp.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n"
        "diff --git a/net/ipv4/tcp.c b/net/ipv4/tcp.c\n--- a/net/ipv4/tcp.c\n"
        "+++ b/net/ipv4/tcp.c\n@@ -1 +1 @@\n-a\n+b\n")


def _mail(mid: str, subject: str, reply_to: str | None = None, body: str = "hello\n") -> str:
    refs = f"In-Reply-To: <{reply_to}>\nReferences: <{reply_to}>\n" if reply_to else ""
    return (f"From mboxrd@z Thu Jan  1 00:00:00 1970\nFrom: A <a@example.org>\n"
            f"Subject: {subject}\nMessage-ID: <{mid}>\n{refs}"
            f"Date: Mon, 1 Jan 2024 00:00:00 +0000\n\n{body}\n")


@pytest.fixture(scope="module")
def base_store(tmp_path_factory) -> Path:
    """Four messages (a patch, two replies, one apart) to add extracted rows to."""
    d = tmp_path_factory.mktemp("robust")
    (d / "a.mbox").write_text(
        _mail("p@x", "[PATCH net] tcp: faster", body=DIFF)
        + _mail("r1@x", "Re: [PATCH net] tcp: faster", "p@x")
        + _mail("r2@x", "Re: [PATCH net] tcp: faster", "r1@x") + _mail("o@x", "question"))
    mlx.ingest([str(d / "a.mbox")], store=str(d / "s"), workers=1)
    return d / "s"


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(results=st.lists(RESULT, min_size=1, max_size=12),
       statements=st.lists(STATEMENT, max_size=4), hardware=st.lists(HARDWARE, max_size=3))
def test_a_whole_link_pass_never_raises(base_store: Path, results: list[dict],
                                        statements: list[dict], hardware: list[dict]) -> None:
    """The extracted tables of a real store, rows replaced by hypothesis's: a full link
    pass (threads, patches, claims) completes, with no fault, every claim with a verdict."""
    import shutil

    from mlx.link import frame_table, link
    from mlx.schema import HARDWARE as HW_SCHEMA
    from mlx.schema import RESULTS, STATEMENTS
    from mlx.store import Store
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s"
        shutil.copytree(base_store, path)
        st_ = Store(str(path))
        uid_of = dict(zip(UIDS, mlx.load(str(path)).messages.sort_values("message_id").uid,
                          strict=True))
        for name, rows, table_schema in (("results", results, RESULTS),
                                         ("statements", statements, STATEMENTS),
                                         ("hardware", hardware, HW_SCHEMA)):
            for p in st_.part_paths(name):
                st_.fs.rm(p)
            df = pd.DataFrame([{**r, "uid": uid_of[r["uid"]]} for r in rows])
            if len(df):
                df["value"] = df.get("value", pd.Series(dtype=object)).astype(object) \
                    if name == "hardware" else None
                st_.write(name, frame_table(df, table_schema))
        counts = link(st_, full=True)
        archive = mlx.load(str(path))
        assert counts["link_errors"] == 0, archive.errors.reason.tolist()
        assert counts["patches"] == 1 and counts["threads"] == 2
        _check(archive.claims.drop(columns=["claim_id", "repeat_of", "versions"]))
