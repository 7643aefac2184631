import pytest

from mlx.extract.results import extract_results

BANNER = ("MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 192.0.2.1 () "
          "port 0 AF_INET : demo\n")

TCP_STREAM = BANNER + """\
Recv   Send    Send                          
Socket Socket  Message  Elapsed              
Size   Size    Size     Time     Throughput  
bytes  bytes   bytes    secs.    10^6bits/sec  

131072  16384  16384    10.00    9387.21   
"""

TCP_STREAM_CPU = BANNER + """\
Recv   Send    Send                          Utilization       Service Demand
Socket Socket  Message  Elapsed              Send     Recv     Send    Recv
Size   Size    Size     Time     Throughput  local    remote   local   remote
bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB
 87380  16384  16384    10.00      1894.26   12.94    18.23    2.238   3.153
"""

TCP_RR = ("MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to "
          "192.0.2.1 () port 0 AF_INET : first burst 0\n") + """\
Local /Remote
Socket Size   Request  Resp.   Elapsed  Trans.
Send   Recv   Size     Size    Time     Rate         
bytes  Bytes  bytes    bytes   secs.    per sec   

16384  131072 1        1       30.00    29150.15   
16384  131072
"""

UDP_STREAM = """\
MIGRATED UDP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 192.0.2.1 () port 0 AF_INET
Socket  Message  Elapsed      Messages                
Size    Size     Time         Okay Errors   Throughput
bytes   bytes    secs            #      #   10^6bits/sec

212992   65507   10.00      235592      0    12347.24
212992           10.00      235001             12316.27
"""

MBYTES = BANNER.replace("STREAM", "MAERTS") + """\
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    MBytes/sec
131072  16384  16384    10.00     1117.50
"""


@pytest.mark.parametrize("text, expected", [
    # classic TCP_STREAM with trailing blanks in the header and a blank before the data
    (TCP_STREAM, [("TCP_STREAM", 9387.21, "10^6bits/sec", 9387.21, None)]),
    # -c -C: CPU and service-demand columns, no blank line before the data
    (TCP_STREAM_CPU, [("TCP_STREAM", 1894.26, "10^6bits/s", 1894.26, None)]),
    # RR: the rate; the second row of socket sizes holds no value
    (TCP_RR, [("TCP_RR", 29150.15, "trans/s", 29150.15, None)]),
    # UDP_STREAM: sent and received rows
    (UDP_STREAM, [("UDP_STREAM", 12347.24, "10^6bits/sec", 12347.24, "send"),
                  ("UDP_STREAM", 12316.27, "10^6bits/sec", 12316.27, "recv")]),
    # -f M: MBytes are powers of two
    (MBYTES, [("TCP_MAERTS", 1117.50, "MBytes/sec", 1117.50 * 2**20 * 8 / 1e6, None)]),
])
def test_tables(text: str, expected: list) -> None:
    rows = extract_results(text)
    got = [(r.test, r.value, r.unit, r.value_norm, r.side) for r in rows]
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g[:3] == e[:3] and g[3] == pytest.approx(e[3]) and g[4] == e[4]
    assert all(r.tool == "netperf" and r.is_summary for r in rows)


def test_cpu_columns() -> None:
    (row,) = extract_results(TCP_STREAM_CPU)
    assert (row.cpu_local, row.cpu_remote, row.sd_local, row.sd_remote) == (12.94, 18.23,
                                                                            2.238, 3.153)


def test_test_name_from_command() -> None:
    text = "# netperf -H 192.0.2.1 -t TCP_CRR -l 30\n" + TCP_RR.split("\n", 1)[1]
    (row,) = extract_results(text)
    assert (row.test, row.duration, row.command) == ("TCP_CRR", 30.0,
                                                     "netperf -H 192.0.2.1 -t TCP_CRR -l 30")


def test_wrapped_banner() -> None:
    wrapped = TCP_STREAM.replace("AF_INET to 192.0.2.1", "AF_INET\nto 192.0.2.1", 1)
    assert [r.test for r in extract_results(wrapped)] == ["TCP_STREAM"]


def test_omni_keyval_and_interim() -> None:
    text = """\
$ netperf -H 192.0.2.1 -t TCP_RR -- -k THROUGHPUT,THROUGHPUT_UNITS,P99_LATENCY
THROUGHPUT=41234.56
THROUGHPUT_UNITS=Trans/s
P99_LATENCY=31

Interim result: 9401.77 10^6bits/s over 1.000 seconds ending at 1700000000.123
"""
    rows = extract_results(text)
    got = [(r.metric, r.value_norm, r.unit_norm, r.is_summary) for r in rows]
    assert got == [("rate", 41234.56, "trans/s", True), ("latency", 31.0, "us", True),
                   ("throughput", 9401.77, "Mbit/s", False)]
    assert rows[1].statistic == "p99"


def test_omni_csv() -> None:
    text = ("$ netperf -H 192.0.2.1 -t TCP_STREAM -- -o throughput,throughput_units\n"
            "Throughput,Throughput Units\n9401.77,10^6bits/s\n")
    (row,) = extract_results(text)
    assert (row.test, row.value_norm, row.unit_norm) == ("TCP_STREAM", 9401.77, "Mbit/s")


def test_repeated_runs_under_one_header() -> None:
    """Three TCP_STREAM runs printed under one header are three values, and the sentence
    ending in ":" above them labels them."""
    from mlx.extract.results import extract_results
    text = """\
Starting with no svq and a
baseline average of ~9009.96Mbps:
Recv   Send    Send
Socket Socket  Message  Elapsed
Size   Size    Size     Time     Throughput
bytes  bytes   bytes    secs.    10^6bits/sec
131072  16384  16384    30.01    9061.03
131072  16384  16384    30.01    8962.94
131072  16384  16384    30.01    9005.92
"""
    rows = [r for r in extract_results(text) if r.tool == "netperf"]
    assert [r.value for r in rows] == [9061.03, 8962.94, 9005.92]
    assert {r.condition for r in rows} == {"baseline"}
