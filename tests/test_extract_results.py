import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.extract.results import condition_of, extract_results, parse_command
from mlx.ingest.parse import Where, parse_message

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds"


def test_seed_000_summary_lines() -> None:
    body = (SEEDS / "000_cbd9e73dbf496169.txt").read_text().split("\n", 4)[4]
    rows = extract_results(body)
    assert len(rows) == 16
    assert all(r.tool == "summary" and r.metric == "throughput" for r in rows)
    assert [r.test for r in rows[:4]] == ["TCP_STREAM", "MPTCP_STREAM", "UDP_STREAM",
                                          "SCTP_STREAM"]
    assert [(r.label, r.condition, r.section) for r in rows[::4]] == [
        ("Before patch", "baseline", None), ("After patch", "patched", None),
        ("Before patch", "baseline", "Exchange the client/server role"),
        ("After patch", "patched", "Exchange the client/server role")]
    assert rows[0].value == 901.05 and rows[0].unit_norm == "Mbit/s" and rows[0].config == "4in4"


def test_seed_002_after_qp_repair() -> None:
    raw = (SEEDS / "002_021baca40c2568c3.txt").read_bytes().split(b"\n", 1)[1]
    rec = parse_message(raw, Where("seed", 0, len(raw)))
    rows = extract_results(rec.body)
    assert [(r.label, r.side, r.value) for r in rows] == [
        ("0.0.20180625", "sender", 390.0), ("0.0.20180625", "receiver", 389.0),
        ("0.0.20180708", "sender", 252.0), ("0.0.20180708", "receiver", 251.0),
        ("0.0.20180708 w/napi_gro_receive patch", "sender", 498.0),
        ("0.0.20180708 w/napi_gro_receive patch", "receiver", 498.0)]
    # the run the patched label extends is its baseline; the older version is neither
    assert [r.condition for r in rows] == [None] * 2 + ["baseline"] * 2 + ["patched"] * 2
    assert rows[0].retransmits == 162 and rows[0].stream == "SUM"
    assert (rows[0].command, rows[0].host, rows[0].streams, rows[0].reverse) == (
        "iperf3 -c 10.4.0.10 -P2 -R", "pbx4", 2, True)
    assert rows[0].sender_host == "server"  # -R: the server sends, pbx (the "-s" end)


@pytest.mark.parametrize("label, condition", [
    ("Before patch", "baseline"), ("After patch", "patched"),
    ("without the series", "baseline"), ("with this patch", "patched"),
    ("stock kernel", "baseline"), ("v6.15 vanilla", "baseline"),
    ("0.0.20180708 w/napi_gro_receive patch", "patched"), ("w/o patch", "baseline"),
    ("net-next + patch", "patched"), ("baseline", "baseline"),
    # a version string alone, or both words: no condition
    ("0.0.20180708", None), ("with/without GRO", None),
    # "without" alone, like "with", names no change: a configuration (background load, NAT)
    ("Result of iperf3 without trafgen command in step 4", None), ("370 Mbit/s without NAT", None),
    ("Without:", "baseline"), ("w/o fix (v6.1)", "baseline"),
])
def test_condition(label: str, condition) -> None:
    assert condition_of(label) == condition


def test_inline_prose() -> None:
    text = """\
With the series single-flow throughput goes from 55Gbps to 71Gbps.
Before: ~1300000pps After : ~1500000pps
xdp_redirect alone does 3.5 Mpps.
"""
    rows = extract_results(text)
    got = [(r.value_norm, r.unit_norm, r.label, r.condition) for r in rows]
    assert got == [(55000.0, "Mbit/s", "from", "baseline"), (71000.0, "Mbit/s", "to", "patched"),
                   (1300000.0, "pps", "Before", "baseline"),
                   (1500000.0, "pps", "After", "patched"), (3500000.0, "pps", None, None)]
    assert all(r.tool == "inline" for r in rows)


@pytest.mark.parametrize("line", [
    "igb 0000:01:00.0 eth0: igb: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX",
    "Server listening on 5201 (test #1)",
    "TCP window size: 85.0 KByte (default)",
    "With this series I'm able to auto negotiate both 1000Mbps and 100Mbps",
    "We use a 100Gbps NIC on both ends.",
    "Dropped the timeout to 10 ms and the retry to 5 ms.",
    "measured degradation on TX: -466 pps (-0.2%)",
    "Linux 6.8.0-rc3 #1 SMP PREEMPT_DYNAMIC Mon Feb  5 10:00:00 UTC 2024",
    # ethtool and lspci state capacities
    "\tSpeed: 10000Mb/s  speed=1Gbit/s",
    "\t\tLnkCap: Port #0, Speed 8GT/s, Width x8, ASPM L0s, Exit Latency L0s <2us",
    # found by precision audits of whole lists: spec sheets, dumps, settings, offered loads
    "Ethernet: 4x 10/100/1000 Mbps, 1x 2.5G WAN",
    "mlx5_core: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)",
    "It does max ~21 Mpps per queue on this box.",
    "\t\tL1SubCtl1: PCI-PM_L1.2+ PCI-PM_L1.1+ T_CommonMode=0us LTR1.2_Threshold=0ns",
    "\tlast seen: 4440 ms ago",
    "\trx bitrate:\t6.0 MBit/s MCS 0",
    "round-trip min/avg/max = 0.0/0.0/0.0 ms",
    "The generator transmits at 10Mpps towards the DUT.",
    "Contact us to enable the speed-up of your 400Mbps payment today?",
    "+\t/* from 1Mbps to 100Kbps */",
    "The PHY offers 1Mbps, 2Mbps, 6Mbps and 54Mbps rates.",
    "The current scheme gets 0.5 to 1 Mpps more than the new one.",
    # device dumps, whatever their field's name; a PHY rate; an offered load
    "\trx bitrate:     6.0 MBit/s",
    "\trx duration:    40567184 us",
    "\t\tMax no snoop latency: 0ns",
    "Port 3: 0000.0203 5Gbps power U0 Enable Connect",
    "        Speed Attribute ID: 1 10Gb/s Symmetric RX SuperSpeedPlus",
    "clocksource: MIPS: mask: 0xffffffff max_cycles: 0xffffffff, max_idle_ns: 4932285024 ns",
    "Management frames are sent out at 1Mbit/s with this firmware.",
    "The phone gets datarates of 866Mbps on this AP.",
    "Packet loss is now at around 16% at 455kpps on that box.",
    "The generator on ens6f0 transmits 10Mpps towards the DUT.",
    "7485448 bytes read in 330 ms (21.6 MiB/s)",
    # definitions, worked maxima, PHY rates, an uplink's speed, what would do
    "Remember that 40 Gbps is 40.10^9 bits per second on the wire.",
    "The max frame rate on 10Gbps is 14.88 Mpps for 64 byte frames.",
    "Rate control will then fall to CCK 2Mbps or 1Mbps at that distance.",
    "An 802.11g uplink - 30Mbps is brought into the litebeam over there.",
    "Anything near 700Mbps with the factory firmware will suffice for me.",
    "# tc class add dev eth0 parent 1: classid 1:1 htb rate 100kbps",
    # /proc/interrupts: counters per CPU, whatever a caption says
    "latency in us\n           CPU0       CPU1\n  8:      75188      75268   MIPS GIC  timer\n"
    "ERR:          1",
    "Zero-copy performance should be line rate for the ixgbe card on this box, so\n"
    "somewhere around 15Mpps here.",
    "wlan0     IEEE 802.11  Mode:Managed  Bit Rate=600 Mb/s   Tx-Power=20 dBm",
    # a threshold and a hypothetical
    "Batching helps a lot when the rate is below 300pps for one flow.",
    "Receiving at line speed, you'll end up forwarding 25 Gbps of it and dropping the rest.",
    "With an 80MHz channel i will get 1560Mbps with this card.",
    # a radio's capacity, its specs or a second radio between value and noun
    "The factory firmware says too that the device has a 600 Mbps and\nan 1733 Mbps radio.",
    "It is a 600 Mbps 2x2 MIMO radio on the 2.4 GHz band.",
])
def test_precision(line: str) -> None:
    assert extract_results(line + "\nx Mbits/sec\n") == []


@pytest.mark.parametrize("line, values", [
    ("When I disable GRO, the throughput will drop to 300 Mbits/sec on my box.", [300.0]),
    ("I get 941 Mbps over 1 link, and 1.8 Gbps over 2 links.", [941.0, 1800.0]),
])
def test_values_beside_capacity_and_future_words(line: str, values: list) -> None:
    assert [r.value_norm for r in extract_results(line + "\n")] == values


def test_nothing_from_a_diff_hunk() -> None:
    diff = """\
diff --git a/tools/bench.c b/tools/bench.c
--- a/tools/bench.c
+++ b/tools/bench.c
@@ -1,2 +1,3 @@
+	printf("[SUM]   0.00-10.00  sec   466 MBytes   390 Mbits/sec\\n");
+	/* 10 Gbps and 3.5 Mpps */
 	return 0;
"""
    assert extract_results(diff) == []


def test_quoted_rows_marked() -> None:
    text = """\
> Before patch:
> === 1in1 TCP_STREAM: 9412.10 Mbits/sec ===

Mine differ:
=== 1in1 TCP_STREAM: 9000.00 Mbits/sec ===
"""
    quoted, own = extract_results(text)
    assert (quoted.quoted, quoted.quote_depth, quoted.label) == (True, 1, "Before patch")
    assert (own.quoted, own.quote_depth, own.label) == (False, 0, "Mine differ")


def test_bidir_and_reverse_command() -> None:
    text = """\
# iperf3 -c 192.0.2.1 --bidir -P 4 -t 30
[SUM][TX-C]   0.00-30.00  sec  30.1 GBytes  8.62 Gbits/sec  120             sender
[SUM][RX-C]   0.00-30.00  sec  29.8 GBytes  8.53 Gbits/sec                  receiver
"""
    rows = extract_results(text)
    assert [(r.role, r.side, r.streams, r.duration) for r in rows] == [
        ("TX-C", "sender", 4, 30.0), ("RX-C", "receiver", 4, 30.0)]


def test_parse_command() -> None:
    assert parse_command("iperf3 -c 10.4.0.10 -P2 -R -t 60") == {
        "streams": 2, "reverse": True, "duration": 60.0, "protocol": "tcp", "tool": "iperf3"}
    assert parse_command("super_netperf 16 -H host -t TCP_STREAM -l 20") == {
        "test": "TCP_STREAM", "duration": 20.0, "streams": 16, "tool": "netperf"}


@pytest.mark.parametrize("line", [
    "1 Mbits/sec " * 100_000,
    "[  5] " * 170_000,
    "0.0.0.0." * 130_000,
    "== " * 300_000 + "TCP_STREAM: 1 Mbits/sec",
    "from 1Gbps to " * 70_000,
    "Before: " * 120_000 + "1pps",
])
def test_adversarial_lines_stay_linear(line: str) -> None:
    start = time.perf_counter()
    rows = extract_results(line[:1_000_000])
    assert time.perf_counter() - start < 5.0  # generous: well under a second here
    assert len(rows) <= 5_001


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_never_raises(text: str) -> None:
    extract_results(text + "\n1 Mbits/sec\n" + text)


def test_bulleted_labels() -> None:
    text = ("- Before this change:\n=== 1in1 TCP_STREAM: 100.00 Mbits/sec ===\n"
            "- After this change:\n=== 1in1 TCP_STREAM: 120.00 Mbits/sec ===\n")
    assert [(r.label, r.condition) for r in extract_results(text)] == [
        ("Before this change", "baseline"), ("After this change", "patched")]


def test_the_same_run_in_other_units_keeps_its_label() -> None:
    """A pktgen summary gives one run in pps and in bps: both values are the labelled run
    (the label was the rest of the line, "Before: 4730418pps 2270Mb/sec ( )"); words
    between two values still give the second its own label."""
    text = ("* Before:       4730418pps 2270Mb/sec (2270600640bps)\n"
            "* After:        4759206pps 2284Mb/sec (2284418880bps)\n")
    assert [(r.metric, r.label, r.condition) for r in extract_results(text)] == [
        ("rate", "Before", "baseline"), ("throughput", "Before", "baseline"),
        ("rate", "After", "patched"), ("throughput", "After", "patched")]
    rows = extract_results("Before: 10 Mbps, after the fix 20 Mbps\n")
    assert [(r.label, r.condition) for r in rows] == [("Before", "baseline"),
                                                      ("after the fix", "patched")]


def test_pasted_commit_is_quoted() -> None:
    """A commit pasted below a question (git log, a commit notification) is another
    author's text: its values are quoted, never the sender's."""
    body = """\
Does this work on 23.05 too? I get an error.

someone pushed a commit to openwrt/openwrt.git, branch main:

commit 0123456789abcdef0123456789abcdef01234567
Author: Ann Other <ann@example.org>
AuthorDate: Mon Jul 2 10:23:44 2018 +0200

    foo: make bar dynamic

    Before: 310 Mbps
    After:  450 Mbps

    Signed-off-by: Ann Other <ann@example.org>

Thanks
"""
    rows = extract_results(body)
    assert [(r.value_norm, r.quoted) for r in rows] == [(310.0, True), (450.0, True)]


def test_ping_spread_is_no_latency() -> None:
    rows = extract_results("rtt min/avg/max/mdev = 0.161/0.411/1.267/0.231 ms\n")
    assert [(r.statistic, r.value_norm) for r in rows] == [("min", 161.0), ("avg", 411.0),
                                                           ("max", 1267.0)]


def test_row_labels_under_a_side_are_fields() -> None:
    """A test script's "baseline ..." rows under "After change:" are fields of the patched
    side, not a baseline the text pairs itself."""
    body = """\
After change:
   net,mac                                                       [ OK ]
     baseline (drop from netdev hook):               2061098pps
     baseline hash (non-ranged entries):             1606741pps
     set with  1000 full, ranged entries:            1639119pps
"""
    rows = extract_results(body)
    assert {r.condition for r in rows} == {"patched"} and {r.pair for r in rows} == {None}


def test_the_label_a_patch_title_names_is_the_patched_run() -> None:
    """Two labels with no condition: in a patch, the one its title names is patched; in
    a question about no patch, neither is."""
    body = ("Single flow, 4K MTU:\n\n+-----------------------+\n| epoll     | uring      |\n"
            "|-----------|------------|\n| 71.5 Gbps | 98.3 Gbps  |\n+-----------------------+\n")
    rows = extract_results(body, "[PATCH net-next v3 0/9] uring zero copy receive")
    assert {(r.label, r.condition) for r in rows} == {("epoll", "baseline"),
                                                      ("uring", "patched")}
    rows = extract_results(body, "Re: uring zero copy receive slower than expected?")
    assert {r.condition for r in rows} == {None}


@given(st.text(alphabet="0123 \tkMGptsh.x", max_size=30))
@settings(max_examples=800, deadline=None)
def test_rate_prefilter_tries_only_where_pps_or_tps_stand(text: str) -> None:
    """Trying BODY_RATE at the "pps"/"tps" hits finds what a search of the whole text does."""
    from mlx.extract.results import BODY_RATE, may_hold_results
    assert may_hold_results(text) == (BODY_RATE.search(text) is not None)


@pytest.mark.parametrize(("text", "holds"), [
    ("throughput went from 9.1 Mb/s to 9.4 Mb/s", True),
    ("copied at 2.1GB/s", True),
    ("410 MiB/s with the patch", True),
    ("netperf -t TCP_STREAM -H 192.0.2.1", True),
    ("super_netperf 200 -t UDP_RR", True),
    ("avg 12.3 usec", True),
    ("tcrypt: test 0 (128 bit key): 6066473 operations in 1 seconds", True),
    ("64 bytes from 192.0.2.2: icmp_seq=1 ttl=64 time=0.198 ms", True),
    # the same words in paths, code and prose
    ("diff --git a/src/rule.c b/src/rule.c", False),
    ("see lib/string.c and drivers/usb/serial/", False),
    ("fd = socket(AF_INET, SOCK_STREAM, 0); policy = SCHED_RR;", False),
    ("tv.tv_usec = 0; delay = usecs_to_jiffies(10);", False),
    ("the operations in this path take a lock", False),
])
def test_prefilter_words_in_code_and_paths_are_no_unit(text: str, holds: bool) -> None:
    """A unit or test name that also stands in paths and code counts only in its own shape:
    the patches and robot reports full of paths are not read line by line."""
    from mlx.extract.results import may_hold_results
    assert may_hold_results(text) is holds


def test_each_line_names_its_own_run_before_the_sentence_does() -> None:
    """Two pasted tool lines, each after its label, in one paragraph with no sentence end:
    a value takes the condition of its own line (not the paragraph's first), and the label
    stops at the colon the tool's output follows."""
    body = ("Without this patch: Result: OK: 34205373(c34202809+d2564) usec, 2923517pps "
            "1403Mb/sec\nWith this patch: Result: OK: 34106013(c34103172+d2841) usec, "
            "2932034pps 1407Mb/sec\n")
    got = [(r.line_no, r.value, r.label, r.condition)
           for r in extract_results(body, "[PATCH nf-next] netfilter: foo") if r.unit == "pps"]
    assert got == [(1, 2923517.0, "Without this patch", "baseline"),
                   (2, 2932034.0, "With this patch", "patched")]


def test_a_side_is_a_side_of_a_change_only_where_one_is_named() -> None:
    """In a thread about no patch (a tuning question), "Baseline Test" over the runs names no
    change: no condition; a label that names one ("with the fix") keeps its side; with no
    subject known, the labels' sides stand."""
    body = ("Baseline Test\n=============\n\neth1: 10030972 pps\n\n"
            "With the ring fix applied:\neth1: 10090000 pps\n")
    question = "i40e rx_dropped increasing at 10Mpps"
    got = [(r.value, r.condition) for r in extract_results(body, question)]
    assert got == [(10030972.0, None), (10090000.0, "patched")]
    assert [r.condition for r in extract_results(body)] == ["baseline", "patched"]
    patch = "[PATCH net-next] i40e: refill the rx ring earlier"
    assert [r.condition for r in extract_results(body, patch)] == ["baseline", "patched"]


@pytest.mark.parametrize(("text", "values"), [
    # qperf's "bw = 4.12 GB/sec"
    ("    bw  =  4.12 GB/sec\n", [(4.12, "GB/sec")]),
    # a range in words is two values; a first side with a unit of its own keeps it
    ("I get between 800 and 850 Mbps on this box.\n", [(800.0, "Mbps"), (850.0, "Mbps")]),
    ("It varies between 800 Kbps and 1.2 Gbps here.\n", [(800.0, "Kbps"), (1.2, "Gbps")]),
    # the same value in other units, in parentheses, is one value; another value is not
    ("Bandwidth ~3.2GB/s (25.0 Gbit/s) on the wire side.\n", [(3.2, "GB/s")]),
    ("After: 4.2 Mpps (3.9 Mpps)\n", [(4.2, "Mpps"), (3.9, "Mpps")]),
    # a measured speed
    ("That resulted in 8.96 Gbits/sec transfer speed.\n", [(8.96, "Gbits/sec")]),
    # the runs of one test on a line; a count and a value are no runs
    ("Before:           2257 2270 2270           Mb/sec\n",
     [(2257.0, "Mb/sec"), (2270.0, "Mb/sec"), (2270.0, "Mb/sec")]),
    ("$ iperf3 -P 8 9.4 Gbps\n", [(9.4, "Gbps")]),
    # top's CPU split is no latency; an arrow into a worked sum is no pair
    ("%Cpu(s):  1.8 us, 54.6 sy,  0.0 ni, 43.6 id\n", []),
    ("So 5 gbps -> 5*8/10*0.965 = 3.86 gbps of payload.\n", [(5.0, "gbps")]),
])
def test_values_of_more_shapes(text: str, values: list[tuple[float, str]]) -> None:
    assert [(r.value, r.unit) for r in extract_results(text)] == values


def test_a_heading_with_a_condition_holds_the_short_labels_under_it() -> None:
    """"Without the patch:" over "TCP_RR" / "45000 trans/s" / "UDP_RR" / ...: the heading is
    each run's condition, the short labels their configuration."""
    body = ("Without the patch:\n\nTCP_RR\n45000 trans/s\n\nUDP_RR\n52000 trans/s\n\n"
            "With the patch:\n\nTCP_RR\n47000 trans/s\n\nUDP_RR\n53000 trans/s\n")
    got = [(r.value, r.condition, r.config) for r in extract_results(body, "[PATCH] net: x")]
    assert got == [(45000.0, "baseline", "TCP_RR"), (52000.0, "baseline", "UDP_RR"),
                   (47000.0, "patched", "TCP_RR"), (53000.0, "patched", "UDP_RR")]


def test_a_date_above_a_run_is_no_label() -> None:
    body = "With the patch:\n\nWed Dec 23 12:44:47 IST 2020\neth1: 10090000 pps\n"
    assert [(r.label, r.condition) for r in extract_results(body, "[PATCH] net: x")] == [
        ("With the patch", "patched")]


@pytest.mark.parametrize(("sentence", "condition"), [
    # the change named as what was run: the value is the patched run's
    ("The patch seems to have cured the stalls here, and I get 2.1 Mpps per queue "
     "with the zero-copy path.", "patched"),
    ("I tested your series on two boxes and iperf3 gives 941 Mbits/sec each way.", "patched"),
    # the change as what it fixes, a plan, a question, the code before it: no side
    ("This patch fixes the throughput collapse to 120 Mbits/sec seen on busy hosts.", None),
    ("If the series goes in we may reach 900 Mbits/sec on this board.", None),
    ("Could your patch help here, where iperf3 gives 300 Mbits/sec?", None),
    ("Before the series the board did 310 Mbits/sec.", "baseline"),
    ("The box pushes 2.1 Mpps per queue with the zero-copy path.", None),
])
def test_a_sentence_that_names_the_change_as_what_ran_gives_the_patched_side(
        sentence: str, condition: str | None) -> None:
    rows = extract_results(f"Thanks for the quick turnaround.\n\n{sentence}\n")
    assert [r.condition for r in rows] == [condition]


@pytest.mark.parametrize(("sentence", "values"), [
    # run / capacity: the percent the sentence gives is the one of the other
    ("With the series applied iperf3 gives 941/1000 Mbit/s (94% of the link).", [941.0]),
    ("We got 9.1/10gbps throughput, ~91% of line rate.", [9.1]),
    ("172/200gbps two-way throughput with plain TCP\nTX i.e. ~86% line rate.", [172.0]),
    # two runs, or a percent that is no share of the two: both values
    ("iperf3 gives 412/415 Mbit/s on the two runs.", [412.0, 415.0]),
    ("Throughput is 310/620 Mbit/s (up 100%).", [310.0, 620.0]),
])
def test_a_slashed_pair_with_its_share_is_a_run_and_its_capacity(
        sentence: str, values: list[float]) -> None:
    assert [r.value for r in extract_results(f"Hi.\n\n{sentence}\n")] == values


RUN = ("$ iperf3 -c 10.0.0.2 -u -b 1G\n"
       "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
       "[  5]   0.00-10.04  sec   365 MBytes   305 Mbits/sec  0.112 ms  5200/269000 (1.9%)  "
       "receiver\n")


@pytest.mark.parametrize(("sentence", "condition"), [
    # a sentence over the run saying the change was applied (a link between them is part)
    ("Then I found this fix and applied it, the same test again.", "patched"),
    ("Applied your patch on top.\nhttps://example.org/p/1a2b3c4d", "patched"),
    # a plan, a condition or a negation: no side
    ("If the fix is applied we would expect better than this, the same test again.", None),
    ("The fix is not applied on this box yet, so the same test again.", None),
])
def test_a_sentence_saying_the_change_was_applied_names_the_run_under_it(
        sentence: str, condition: str | None) -> None:
    rows = extract_results(f"Thanks.\n\n{sentence}\n\n{RUN}")
    assert {r.condition for r in rows if r.metric == "throughput"} == {condition}


@pytest.mark.parametrize(("text", "conditions"), [
    # where a value goes, in the present tense
    ("Forwarding: 1.21Mpps increases to\n1.38Mpps with the series.", ["baseline", "patched"]),
    ("The rate drops to 3.1 Mpps from 3.4 Mpps.", [None, None]),
])
def test_where_a_value_goes(text: str, conditions: list) -> None:
    assert [r.condition for r in extract_results(f"Hi.\n\n{text}\n")] == conditions


def test_a_list_under_a_label_that_leads_with_its_values() -> None:
    """Items of eight words and more that lead with their value are the label's runs, not
    prose; beside a label naming the reverted commit, the other one is the patched run; a
    thread titled after a commit is about a change."""
    body = ("> With 6.1 I get:\n"
            "> * 9.2 Gb/s with no tunnel device at all\n"
            "> * 3.05 Gb/s with the tunnel device and no encryption\n"
            ">\n"
            "> With 6.1 but with 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567 reverted, I get:\n"
            "> * 9.2 Gb/s with no tunnel device at all\n"
            "> * 7.40 Gb/s with the tunnel device and no encryption\n\n"
            "Thanks, looking into it.\n")
    rows = extract_results(body, 'Re: Big throughput drop since "net: tun: batch the rx path"')
    assert [(r.value, r.condition) for r in rows] == [
        (9.2, "patched"), (3.05, "patched"), (9.2, "baseline"), (7.4, "baseline")]


@pytest.mark.parametrize("line, unit", [
    # transaction rates in words: read wherever a paragraph holds one
    ("Without alloc tagging:\t120547 request/sec", "request/sec"),
    ("The echo server does 75140 msg/s.", "msg/s"),
    ("It peaks at 154643.22 Requests/s.", "Requests/s"),
])
def test_transaction_rates_in_words(line: str, unit: str) -> None:
    rows = extract_results(f"Hi.\n\n{line}\n")
    assert [(r.unit, r.unit_norm) for r in rows] == [(unit, "trans/s")]


def test_a_netperf_tests_value_written_by_hand_takes_the_tests_unit() -> None:
    """ "- r8152.ko: TCP_RR: 1210, UDP_RR: 1250": the test implies the unit (netperf's
    transactions a second; 10^6 bits a second for a stream); a unit written wins."""
    rows = extract_results("Average of three netperf runs:\n- r8152.ko: TCP_RR: 1210, UDP_RR: "
                           "1250\n- r8153_ecm.ko: TCP_RR: 7400, UDP_RR: 7710\n"
                           "- TCP_STREAM: 941\n- TCP_MAERTS: 936 Mbit/s\n")
    assert [(r.line_no, r.value, r.unit_norm, r.test, r.label) for r in rows] == [
        (2, 1210.0, "trans/s", "TCP_RR", "r8152.ko"), (2, 1250.0, "trans/s", "UDP_RR", "r8152.ko"),
        (3, 7400.0, "trans/s", "TCP_RR", "r8153_ecm.ko"),
        (3, 7710.0, "trans/s", "UDP_RR", "r8153_ecm.ko"),
        (4, 941.0, "Mbit/s", "TCP_STREAM", None), (5, 936.0, "Mbit/s", None, "TCP_MAERTS")]
