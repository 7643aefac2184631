"""Other tools' pasted output: nstat snapshots, openssl speed, unit-column tables."""

from mlx.extract.results import extract_results


def _values(body: str) -> list[tuple[int, float, str, str | None]]:
    return [(r.line_no, round(r.value_norm, 3), r.unit_norm, r.config)
            for r in extract_results(body)]


def test_nstat_one_second_snapshot() -> None:
    body = """\
Receiver side, before:

nstat -n ; sleep 1 ; nstat | grep Udp
UdpInDatagrams                  482113             0.0
UdpInErrors                     1204577            0.0
UdpRcvbufErrors                 1204577            0.0

Nothing else changed.
"""
    # the packet counter is a rate over the second; error counters are left out
    assert _values(body) == [(4, 482113.0, "pps", "UdpInDatagrams")]


def test_nstat_without_the_sleep_is_no_rate() -> None:
    body = "nstat -az | grep Udp\nUdpInDatagrams                  482113             0.0\n"
    assert _values(body) == []


def test_openssl_speed_wrapped() -> None:
    body = """\
root@ap:~# openssl speed sha1
The 'numbers' are in 1000s of bytes per second processed.
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192
bytes  16384 bytes
sha1              6120.50k    15800.25k    29010.00k    37550.75k
40100.10k    40500.00k
"""
    got = _values(body)
    # 1000s of bytes per second: 6120.50k is 48.964 Mbit/s; the wrapped cells too
    assert [v for _, v, _, _ in got] == [48.964, 126.402, 232.08, 300.406, 320.801, 324.0]
    assert {c for _, _, _, c in got} == {"sha1"} and got[-1][0] == 6


def test_unit_column_table() -> None:
    body = """\
2 QUEUES:
Running XDP on dev:eth1 (ifindex:4) action:XDP_DROP options:no_touch
XDP stats       CPU     pps         issue-pps
XDP-RX CPU      0       5120331     0
XDP-RX CPU      1       5118902     0
XDP-RX CPU      total   10239233

Thanks
"""
    assert _values(body) == [(4, 5120331.0, "pps", "XDP-RX CPU 0"),
                             (5, 5118902.0, "pps", "XDP-RX CPU 1"),
                             (6, 10239233.0, "pps", "XDP-RX CPU total")]
    assert {r.label for r in extract_results(body)} == {"2 QUEUES"}


def test_unit_borrowed_from_the_next_field() -> None:
    body = "$ ./ethstats\neth1: portrx: 10021465 rx:  9801207 pps     drop:   220258 pps\n"
    assert sorted(v for _, v, _, _ in _values(body)) == [220258.0, 9801207.0, 10021465.0]
    assert ("portrx" in {c for _, _, _, c in _values(body)})


def test_flent_summary_with_a_percentile_column() -> None:
    """flent's summary may print a percentile column ("99th %": one statistic of two
    words) and N/A where a statistic has no value: every statistic with a value is read
    (the claims pair the averages)."""
    body = """\
Summary of tcp_nup test run from 2024-05-01 10:00:00.000001
  Title: 'base'

                             avg       median       99th %          # data pts
 Ping (ms) ICMP   :         0.53         0.51         1.02 ms              349
 TCP upload sum   :       942.48          N/A          N/A Mbits/s         301
"""
    got = [(r.line_no, round(r.value_norm, 3), r.unit_norm, r.statistic)
           for r in extract_results(body)]
    assert got == [(5, 530.0, "us", "avg"), (5, 510.0, "us", "median"),
                   (5, 1020.0, "us", "99th %"), (6, 942.48, "Mbit/s", "avg")]


def test_flent_summary_names_its_test() -> None:
    """The line over a flent summary names the test it ran, in either of flent's formats
    ("Summary of NAME test run from TIME" over a Title line, or "Summary of NAME test run
    'TITLE' (at TIME):"): rows of tcp_1up and tcp_4up are two tests, never runs of one;
    a summary with no such line over it names none."""
    body = """\
Summary of tcp_1up test run from 2024-05-01 10:00:00.000001
  Title: 'base'

                             avg       median          # data pts
 TCP upload sum   :       942.48       940.10 Mbits/s         301

Summary of tcp_4up test run 'base' (at 2024-05-01 10:10:00.000001):

                             avg       median          # data pts
 TCP upload sum   :       938.10       936.00 Mbits/s         301

                             avg       median          # data pts
 TCP upload sum   :       901.00       900.00 Mbits/s         301
"""
    got = [(r.value, r.test) for r in extract_results(body) if r.statistic == "avg"]
    assert got == [(942.48, "tcp_1up"), (938.10, "tcp_4up"), (901.0, None)]
