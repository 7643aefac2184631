import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.extract import iperf
from mlx.extract.results import extract_results


@pytest.mark.parametrize("line, expected", [
    # iperf3 TCP client interval with Retr and Cwnd
    ("[  5]   0.00-1.00   sec   112 MBytes   941 Mbits/sec    0    409 KBytes",
     dict(stream="5", start=0.0, end=1.0, rate=941.0, rate_unit="Mbits/sec", retransmits=0,
          side=None, decimals=2)),
    # iperf3 summary, sender, with retransmits
    ("[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162             sender",
     dict(stream="SUM", rate=390.0, retransmits=162, side="sender")),
    # receiver summary has no Retr column
    ("[  5]   0.00-10.00  sec  1.09 GBytes   936 Mbits/sec                  receiver",
     dict(side="receiver", retransmits=None, transfer=1.09, transfer_unit="GBytes")),
    # UDP: jitter and lost/total (percent)
    ("[  5]   0.00-10.00  sec  1.25 MBytes  1.05 Mbits/sec  0.011 ms  0/906 (0%)  receiver",
     dict(jitter_ms=0.011, lost=0, total=906, loss_pct=0.0, side="receiver")),
    # --bidir role column
    ("[  7][RX-C]   0.00-10.00  sec  2.17 GBytes  1.86 Gbits/sec                  receiver",
     dict(stream="7", role="RX-C", rate=1.86, rate_unit="Gbits/sec")),
    # iperf2 with space-padded interval
    ("[  3]  0.0- 2.0 sec   225 MBytes   944 Mbits/sec", dict(start=0.0, end=2.0, decimals=1)),
    # iperf 2.1 four decimals
    ("[  1] 0.0000-10.0011 sec  1.10 GBytes   943 Mbits/sec", dict(end=10.0011, decimals=4)),
    # iperf2 UDP server report: "0/  893"
    ("[  3]  0.0-10.0 sec  1.25 MBytes  1.05 Mbits/sec   0.017 ms    0/  893 (0%)",
     dict(jitter_ms=0.017, total=893)),
    # iperf2 enhanced (-e) columns after the bitrate do not confuse it
    ("[  1] 0.00-10.00 sec  1.10 GBytes   943 Mbits/sec  8999/0  12  1234K/567 us  12345.67",
     dict(rate=943.0)),
])
def test_parse_line(line: str, expected: dict) -> None:
    v = iperf.parse_line(line)
    assert v is not None
    for key, value in expected.items():
        assert getattr(v, key) == value, key


@pytest.mark.parametrize("line", [
    "[ ID] Interval           Transfer     Bitrate         Retr",
    "[  5] local 10.0.0.1 port 43210 connected to 10.0.0.2 port 5201",
    "[  5]   0.00-1.00   sec  (omitted)",
    "TCP window size: 85.0 KByte (default)",
])
def test_not_a_value(line: str) -> None:
    assert iperf.parse_line(line) is None


CLIENT = """\
$ iperf3 -c 192.0.2.1 -u -b 1G -t 3
Connecting to host 192.0.2.1, port 5201
[  5] local 192.0.2.2 port 40000 connected to 192.0.2.1 port 5201
[ ID] Interval           Transfer     Bitrate         Total Datagrams
[  5]   0.00-1.00   sec   119 MBytes   999 Mbits/sec  86232
[  5]   1.00-2.00   sec   119 MBytes  1.00 Gbits/sec  86318
[  5]   2.00-3.00   sec   119 MBytes  1.00 Gbits/sec  86324
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams
[  5]   0.00-3.00   sec   358 MBytes  1000 Mbits/sec  0.000 ms  0/258874 (0%)  sender
[  5]   0.00-3.00   sec   350 MBytes   979 Mbits/sec  0.004 ms  5440/258874 (2.1%)  receiver
"""


def test_udp_client_block() -> None:
    rows = extract_results(CLIENT)
    thr = [r for r in rows if r.metric == "throughput"]
    assert [r.is_summary for r in thr] == [False, False, False, True, True]
    assert all(r.tool == "iperf3" and r.test == "udp" for r in rows)
    assert thr[1].value_norm == 1000.0  # 1.00 Gbits/sec in Mbit/s
    loss = [r for r in rows if r.metric == "loss"]
    assert [(r.value, r.side) for r in loss] == [(0.0, "sender"), (2.1, "receiver")]
    jitter = [r for r in rows if r.metric == "latency"]
    assert jitter[1].value_norm == pytest.approx(4.0)  # 0.004 ms in us
    assert all(r.command == "iperf3 -c 192.0.2.1 -u -b 1G -t 3" for r in rows)
    assert thr[0].duration == 3.0 and thr[0].protocol == "udp"


IPERF2 = """\
------------------------------------------------------------
Client connecting to 192.0.2.1, TCP port 5001
TCP window size: 85.0 KByte (default)
------------------------------------------------------------
[  3] local 192.0.2.2 port 50000 connected with 192.0.2.1 port 5001
[ ID] Interval       Transfer     Bandwidth
[  3]  0.0- 2.0 sec   225 MBytes   944 Mbits/sec
[  3]  2.0- 4.0 sec   224 MBytes   940 Mbits/sec
[  3]  0.0- 4.0 sec   449 MBytes   942 Mbits/sec
"""


def test_iperf2_summary_by_span() -> None:
    rows = extract_results(IPERF2)
    assert [(r.tool, r.is_summary) for r in rows] == [("iperf2", False), ("iperf2", False),
                                                       ("iperf2", True)]
    # MBytes are powers of 2, bits powers of 10; the window size line gives nothing
    assert len(rows) == 3


def test_wrapped_role_and_qp_break() -> None:
    text = ("[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162\n"
            "sender\n"
            "[SUM]   0.00-10.00  sec   463 MBytes   389 Mbits/sec\n"
            "receiver\n")
    rows = extract_results(text)
    assert [(r.side, r.is_summary) for r in rows] == [("sender", True), ("receiver", True)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]SUM 0123456789.-secMGKbitsBy/\tsenderms()%")),
               max_size=200))
def test_line_parser_never_raises(line: str) -> None:
    iperf.parse_line(line)
    extract_results(line + "\n" + line)


JSON = """\
{
	"start":	{
		"system_info":	"Linux lab1 6.8.0 #1 SMP x86_64",
		"test_start":	{ "protocol": "TCP", "num_streams": 1, "duration": 10 }
	},
	"end":	{
		"sum_sent":	{
			"start":	0,
			"end":	10.000041,
			"seconds":	10.000041,
			"bytes":	11811160064,
			"bits_per_second":	9448890427.5,
			"retransmits":	21,
			"sender":	true
		},
		"sum_received":	{
			"start":	0,
			"end":	10.000338,
			"bytes":	11808014336,
			"bits_per_second":	9446129108.2,
			"sender":	true
		}
	}
}
"""


def test_iperf3_json() -> None:
    rows = extract_results("Here is -J output:\n" + JSON)
    got = [(r.side, round(r.value_norm, 2), r.retransmits, r.is_summary) for r in rows]
    assert got == [("sender", 9448.89, 21, True), ("receiver", 9446.13, None, True)]
    assert all(r.tool == "iperf3" and r.test == "tcp" and r.unit_norm == "Mbit/s" for r in rows)
    assert rows[0].label == "Here is -J output"
