from pathlib import Path

import pandas as pd
import pytest

import mlx
from mlx.analyse.claims import measured_claims, verdict
from mlx.analyse.pairing import pick_baseline

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> mlx.Archive:
    store = str(tmp_path_factory.mktemp("s"))
    mlx.ingest([str(ROOT / "data")], store=store, workers=1)
    return mlx.load(store)


def test_seed_000_golden(sample) -> None:
    c = sample.claims
    c = c[(c.title == "wireguard: use DEV_STATS_INC()") & (c.kind == "measured")]
    assert len(c) == 8  # 4 tests x 2 roles (sections)
    assert set(c.verdict) == {"no-change"}
    assert list(c.test[:4]) == ["TCP_STREAM", "MPTCP_STREAM", "UDP_STREAM", "SCTP_STREAM"]
    assert c.section.isna().sum() == 4
    assert (c.section == "Exchange the client/server role").sum() == 4
    assert (c.version == 2).all()
    assert c.hardware.iloc[0].startswith("Client: Intel E5-2620, I350, 4096 MiB, RHEL9.2")


def test_seed_002_golden(sample) -> None:
    c = sample.claims
    c = c[(c.title == "receive: use gro call instead of plain call") & (c.kind == "measured")]
    got = {r.side: (r.baseline_value, r.patched_value, round(r.delta_pct, 1), r.verdict)
           for r in c.itertuples()}
    assert got == {"receiver": (251.0, 498.0, 98.4, "improvement"),
                   "sender": (252.0, 498.0, 97.6, "improvement")}
    assert set(c.baseline_label) == {"0.0.20180708"}
    assert set(c.patched_label) == {"0.0.20180708 w/napi_gro_receive patch"}


def test_prose_claim_agrees(sample) -> None:
    c = sample.claims
    prose = c[(c.kind == "prose") & (c.title == "tcp: batch the ack path")]
    # the reply quotes the cover letter's sentence under "On ... wrote:": not a claim again
    assert len(prose) == 1
    prose = prose.iloc[0]
    assert prose.stated_pct == 7.0 and prose.verdict == "improvement" and prose.agrees


@pytest.mark.parametrize("delta, metric, expected", [
    (5.0, "throughput", "improvement"),
    (-5.0, "throughput", "regression"),
    (0.5, "throughput", "no-change"),  # inside the 1% noise threshold
    (-5.0, "latency", "improvement"),  # lower is better
    (5.0, "loss", "regression"),
])
def test_verdict(delta: float, metric: str, expected: str) -> None:
    assert verdict(delta, metric) == expected


@pytest.mark.parametrize("patched, labels, baseline", [
    # a label that is a prefix of the patched one (seed 002)
    ("v2 w/ patch", [("v1", None), ("v2", None), ("v2 w/ patch", "patched")], "v2"),
    # the nearest baseline before it
    ("After", [("Before", "baseline"), ("After", "patched")], "Before"),
    # several versions in order: the unpatched run nearest the patched one
    ("with (abc123)", [("v6.14 vanilla", "baseline"), ("v6.15 vanilla", "baseline"),
                       ("with (abc123)", "patched")], "v6.15 vanilla"),
    # baseline posted after the patched run
    ("with patch", [("with patch", "patched"), ("without patch", "baseline")], "without patch"),
    ("with patch", [("with patch", "patched")], None),
    # one baseline, two patched configurations: it is the one naming its configuration's
    ("With this patch + nft egress", [("Without this patch + tc egress", "baseline"),
                                      ("With this patch + tc egress", "patched"),
                                      ("With this patch + nft egress", "patched")], None),
    ("With this patch + tc egress", [("Without this patch + tc egress", "baseline"),
                                     ("With this patch + tc egress", "patched"),
                                     ("With this patch + nft egress", "patched")],
     "Without this patch + tc egress"),
    # two baselines of their own configurations: none is the nft run's
    ("With this patch + nft egress", [("Without this patch", "baseline"),
                                      ("With this patch", "patched"),
                                      ("Without this patch + tc egress", "baseline"),
                                      ("With this patch + tc egress", "patched"),
                                      ("With this patch + nft egress", "patched")], None),
    # a configuration the patched run adds that no baseline has was never run without the
    # change: no pair ("After + nft + tc" beside "Before + tc")
    ("After + nft + tc", [("Before", "baseline"), ("After", "patched"),
                          ("Before + tc", "baseline"), ("After + tc", "patched"),
                          ("After + nft", "patched"), ("After + nft + tc", "patched")], None),
    # a baseline's own words ("net-next", "Upstream") name no other run: they pair
    ("patched, 64 flows", [("net-next, 64 flows", "baseline"), ("net-next, 1 flow", "baseline"),
                           ("patched, 64 flows", "patched")], "net-next, 64 flows"),
    ("With patch (nft)", [("Upstream (nft)", "baseline"), ("Upstream (tc)", "baseline"),
                          ("With patch (nft)", "patched")], "Upstream (nft)"),
    # ... and runs keyed "1.b)" and "2.b)" of the same configuration pair
    ("2.b) patched kernel, 0 rules", [("1.a) vanilla kernel, 1 rule", "baseline"),
                                      ("1.b) vanilla kernel, 0 rules", "baseline"),
                                      ("2.b) patched kernel, 0 rules", "patched")],
     "1.b) vanilla kernel, 0 rules"),
    # a label of no condition pairs as a run's name ("net-next"), not as a sentence that
    # introduces a paste
    ("with the fix", [("net-next", None), ("with the fix", "patched")], "net-next"),
    ("with tcp-reset then the download never finishes",
     [("Here's my attempt to demonstrate what I believe the problem to be", None),
      ("with tcp-reset then the download never finishes", "patched")], None),
])
def test_pick_baseline(patched: str, labels: list, baseline) -> None:
    assert pick_baseline(patched, labels) == baseline


def _rows(values: list[tuple[str, str, float]], metric: str = "throughput") -> pd.DataFrame:
    return pd.DataFrame([{
        "uid": "u1", "tool": "iperf3", "test": "tcp", "metric": metric, "side": "sender",
        "stream": "SUM", "section": None, "config": None, "label": label, "condition": cond,
        "value_norm": v, "unit_norm": "Mbit/s", "quoted": False, "is_summary": True,
        "line_no": i} for i, (label, cond, v) in enumerate(values)])


def test_multi_run_inside_the_spread_is_no_change() -> None:
    """+2.7% between means whose runs spread 10%: the runs cannot tell them apart (the
    shape whose missing verdict crashed the link pass of a real list)."""
    rows = _rows([("before", "baseline", 100), ("before", "baseline", 110),
                   ("before", "baseline", 90), ("after", "patched", 104),
                   ("after", "patched", 96), ("after", "patched", 112)])
    (c,) = measured_claims(rows)
    assert (c.baseline_n, c.patched_n) == (3, 3)
    assert c.baseline_stdev == pytest.approx(10.0)
    assert c.verdict == "no-change" and "spread" in c.note


def test_latency_claim() -> None:
    rows = _rows([("without", "baseline", 50.0), ("with", "patched", 40.0)], metric="latency")
    (c,) = measured_claims(rows)
    assert c.delta_pct == pytest.approx(-20.0) and c.verdict == "improvement"


def test_quoted_rows_do_not_count() -> None:
    rows = _rows([("without", "baseline", 50.0), ("with", "patched", 60.0)])
    rows["quoted"] = True
    assert measured_claims(rows) == []


def test_thread_pairing(tmp_path: Path) -> None:
    from mlx.ingest.split import write_mboxrd
    a = (b"From: T <t@x.org>\nSubject: Re: [PATCH] net: foo\nMessage-ID: <a@x>\n"
         b"In-Reply-To: <p@x>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nwithout the patch:\n"
         b"=== 1in1 TCP_STREAM: 900.00 Mbits/sec ===\n")
    b = (b"From: T <t@x.org>\nSubject: Re: [PATCH] net: foo\nMessage-ID: <b@x>\n"
         b"In-Reply-To: <a@x>\nDate: Mon, 1 Jan 2024 01:00:00 +0000\n\nwith the patch:\n"
         b"=== 1in1 TCP_STREAM: 990.00 Mbits/sec ===\n")
    path = tmp_path / "t.mbox"
    path.write_bytes(write_mboxrd([a, b]))
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=1)
    c = mlx.load(str(tmp_path / "s")).claims
    (row,) = c[c.kind == "measured"].itertuples()
    assert (row.baseline_value, row.patched_value, row.verdict) == (900.0, 990.0, "improvement")
    assert row.message_id == "b@x" and row.title == "net: foo"


GOLDEN = ROOT / "tests" / "data" / "claims"
GOLDEN_COLUMNS = ["message_id", "kind", "tool", "test", "metric", "side", "stream", "config",
                  "baseline_label", "baseline_value", "patched_label", "patched_value",
                  "unit_norm", "verdict", "stated_pct"]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory) -> mlx.Archive:
    store = str(tmp_path_factory.mktemp("shapes"))
    mlx.ingest([str(GOLDEN / "shapes.mbox")], store=store, workers=1)
    return mlx.load(store)


def test_shapes_golden(shapes) -> None:
    """Every hand-written shape gives exactly the claims of the reference file."""
    import os
    got = pd.DataFrame({c: [_text(v) for v in shapes.claims[c]] for c in GOLDEN_COLUMNS})
    path = GOLDEN / "shapes.claims.csv"
    if os.environ.get("MLX_UPDATE_GOLDEN"):
        got.to_csv(path, index=False)
    want = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert got.to_dict("records") == want.to_dict("records")


@pytest.fixture(scope="module")
def unseen(tmp_path_factory) -> mlx.Archive:
    store = str(tmp_path_factory.mktemp("unseen"))
    mlx.ingest([str(GOLDEN / "unseen.mbox")], store=store, workers=1)
    return mlx.load(store)


def test_unseen_shapes_golden(unseen) -> None:
    """The shapes lists mlx had never seen brought (issue 33), one message each, give
    exactly the claims of the reference file: a condition as the prefix of a pasted tool
    line, headings over netperf blocks, nouns naming the baseline, a label extending the
    baseline's, a reply's own list, columns per configuration, tables with the patched
    column first, boxes, an index column, netperf's UDP_STREAM, -O and -o output,
    super_netperf under kernel names, per-size iperf3 lines, repeated -P runs, bounds and
    sides in parentheses, flent's comparison blocks, a delta column, the old patch as the
    baseline, a revert, a side named in the next sentence, fields of one run after
    a line's condition label, hedged from/to sides, a third comparator beside two columns
    the title tells apart (notes padded inside their parentheses), flent summaries of two
    tests in another order, headings written flush over old/new summaries or without a
    colon over them (flent's one-flow "::1" row one result with its avg), a run under a
    problem statement and the same run under "I found a fix and applied it", and an
    unlabelled run before the same command under "With that commit applied:" (a wrapped
    iperf3 header's rest no label, the tool's path no part of its command); and no claim
    from a toggle on
    one kernel, two transports, an iperf3 UDP sender's target rate or runs that differ by
    a switch besides the change."""
    import os
    columns = [*GOLDEN_COLUMNS, "statistic"]
    got = pd.DataFrame({c: [_text(v) for v in unseen.claims[c]] for c in columns})
    path = GOLDEN / "unseen.claims.csv"
    if os.environ.get("MLX_UPDATE_GOLDEN"):
        got.to_csv(path, index=False)
    want = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert got.to_dict("records") == want.to_dict("records")


def test_unseen_shapes_results(unseen) -> None:
    r = unseen.results
    toggle = r[r.message_id == "toggle-1@example.org"]
    # measured on one unpatched kernel: results, no condition, no claim
    assert sorted(toggle.value_norm) == [812.0, 2100.0, 6100.0, 9200.0]
    assert toggle.condition.isna().all()
    assert unseen.claims[unseen.claims.message_id == "toggle-1@example.org"].empty
    # the middle column of "origin smc | tcp | smc with patches" is a comparator
    tcp = r[(r.message_id == "nouns-1@example.cn") & (r.label == "tcp")]
    assert sorted(tcp.value_norm) == [2330.0, 10400.0] and tcp.condition.isna().all()
    # iperf3's UDP sender lines are results; a target rate echoed on both sides (1000 ->
    # 1000) and the placeholder jitter and loss are no claim
    sender = r[(r.message_id == "udp-sender-1@example.net") & (r.side == "sender")]
    assert len(sender) == 6
    claims = unseen.claims
    assert not (claims.message_id.eq("udp-sender-1@example.net") & claims.side.eq("sender")).any()
    # a bus's bit rates and a poll period are settings: only the table's four values
    assert sorted(r[r.message_id == "delta-1@example.com"].value_norm) == [
        3.1e6, 3.35e6, 5.9e6, 6.4e6]
    old = r[r.message_id == "oldpatch-1@example.net"]
    assert 900.0 not in set(old.value_norm)  # a quoted signature's broadband speed
    # a wrapped iperf3 UDP summary keeps its jitter and loss; "This is with your patch"
    assert sorted(old[old.tool == "iperf3"].metric) == ["latency", "loss", "throughput"]
    assert old[old.value_norm == 200.0].condition.tolist() == ["patched"]
    # "9.1/10gbps ... ~91% line rate": the 10 is the capacity
    assert r[r.message_id == "linerate-1@example.org"].value_norm.tolist()[:1] == [9100.0]
    assert 10000.0 not in set(r[r.message_id == "linerate-1@example.org"].value_norm)
    # -O's selector columns are latencies and a transaction rate, not four rates
    sel = r[(r.message_id == "selector-1@example.org") & (r.line_no == 9)]
    assert sorted(zip(sel.metric, sel.value_norm, strict=True)) == [
        ("latency", 29.0), ("latency", 42.0), ("latency", 58.0), ("rate", 24015.31)]


def _text(v) -> str:
    """A cell as the golden CSV holds it: "" for missing, numbers to 6 digits."""
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return ""
    return f"{float(v):.6g}" if isinstance(v, (int, float)) else str(v)


def test_shapes_results(shapes) -> None:
    r = shapes.results
    noclaim = r[r.message_id == "noclaim-1@example.net"]
    # quoted results are kept and marked; the motivation values are results, not claims;
    # the PHY rate list, the link speed, the NIC capacity and the signature give nothing
    assert sorted(noclaim[noclaim.quoted].value_norm) == [9120.11, 9412.30]
    assert sorted(noclaim[~noclaim.quoted].value_norm) == [610.0, 940.0]
    assert shapes.claims[shapes.claims.message_id == "noclaim-1@example.net"].empty
    # the unit wrapped onto the next line, Kbits/sec beside Mbits/sec
    assert 34400.0 in set(r[r.message_id == "labels-1@example.org"].value_norm)
    runs = r[r.message_id == "runs-1@example.org"]
    assert {"tx", "rx"} <= set(runs.config.dropna())
    assert 0.0806 in set(runs.value_norm.round(4))


def test_build_claims_of_messages_with_nothing_to_claim() -> None:
    """No results, statements or reports (most incremental passes): the empty table of
    the claims' columns, without reading a header."""
    from mlx.analyse.claims import COLUMNS, build_claims, claim_frames

    class Empty:
        reports = pd.DataFrame(columns=["uid"])
        hardware_of_threads = None

        def table(self, name, columns=None):
            assert name in ("results", "statements")
            return pd.DataFrame(columns=columns)

        def headers_of(self, uids, columns=None):  # pragma: no cover - must not be called
            raise AssertionError("headers read")

    out = build_claims(claim_frames(Empty()))
    assert list(out.columns) == COLUMNS
    assert out.empty


def test_usable_rows_prefer_a_runs_sum_to_its_streams() -> None:
    from mlx.analyse.claims import _usable

    def row(label: str, stream: str | None, value: float, **more: object) -> dict:
        return {"uid": "u1", "tool": "iperf3", "test": "tcp", "metric": "throughput",
                "side": "receiver", "stream": stream, "section": None, "config": None,
                "label": label, "condition": None, "value_norm": value, "quoted": False,
                "is_summary": True, **more}
    rows = pd.DataFrame([
        row("before", "5", 40.0), row("before", "7", 45.0), row("before", "SUM", 85.0),
        row("after", "5", 50.0), row("after", "7", 52.0),  # a run without [SUM]
        row("after", None, 9.0, is_summary=False),  # an interval line
        row("after", None, 8.0, quoted=True), row("after", None, None)])
    usable = _usable(rows)
    assert usable.value_norm.tolist() == [85.0, 50.0, 52.0]
    # columns the pairing reads exist, missing values as None
    assert usable.statistic.tolist() == [None] * 3 and usable.pair.tolist() == [None] * 3
    assert usable.line.tolist() == [""] * 3
    # no stream rows at all: every summary row with a value stays
    assert _usable(rows[rows.stream.isna()]).value_norm.tolist() == []
    assert _usable(pd.DataFrame([row("x", None, 1.0)])).value_norm.tolist() == [1.0]


def test_robot_claims_are_signed_and_say_which_way_is_better(tmp_path) -> None:
    """LKP-shaped reports (tests/data/claims/robot.mbox): delta_pct is signed by the table's
    values, lower_is_better follows what the robot calls a regression (a latency that rose),
    and the robot's own "noticed a -3.2% regression" sentence is no second, prose claim."""
    store = str(tmp_path / "s")
    mlx.ingest([str(ROOT / "tests/data/claims/robot.mbox")], store=store, workers=1)
    c = mlx.load(store).claims
    rows = sorted(zip(c.kind, c.metric, c.delta_pct.round(1), c.verdict, c.lower_is_better,
                      strict=True), key=str)
    assert rows == [("robot", "Throughput_Mbps", -3.2, "regression", False),
                    ("robot", "latency", 12.0, "regression", True)]


@pytest.mark.parametrize(("section", "named"), [
    ("TCP_RR 32 queues", "TCP_RR 32 queues"),
    ("Exchange the client/server role", "Exchange the client/server role"),
    ("buffers are as follows", None),  # a clause: the tail of "The results ... are as follows:"
    ("It shows on iperf3 with small packets", None),
    ("Here are more details of the data I collected", None),
])
def test_a_claims_section_is_a_name_or_none(section: str, named: str | None) -> None:
    """A claim's section reads as a heading; a sentence or clause the runs stood under is
    no name (the runs are still paired apart from those under another heading)."""
    rows = _rows([("without", "baseline", 50.0), ("with", "patched", 60.0)])
    rows["section"] = section
    (c,) = measured_claims(rows)
    assert c.section == named
    other = rows.assign(section="Sorry, I need to post the results again", uid="u1",
                        value_norm=[10.0, 30.0])
    assert sorted(c.delta_pct for c in measured_claims(pd.concat([rows, other]))) == \
        [20.0, 200.0]


def test_two_versions_of_the_change_on_two_kernels_are_no_pair(unseen) -> None:
    """"Newer kernel with your patch" beside "Older kernel with the earlier version of the
    patch": both runs carry the change, and the kernels differ too, so the change is not
    what differs: results with no condition, no claim."""
    r = unseen.results[unseen.results.message_id == "two-kernels-1@example.net"]
    assert len(r) == 4 and r.condition.isna().all()
    assert unseen.claims[unseen.claims.message_id == "two-kernels-1@example.net"].empty
