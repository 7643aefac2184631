"""The condition step's names for a configuration (mlx.extract.conditions.short_name)."""

import pytest

from mlx.extract.conditions import short_name


@pytest.mark.parametrize(("label", "name"), [
    # a name stays; a sentence's noun phrase is its head
    ("TCP_RR 32 queues", "TCP_RR 32 queues"),
    ("SMAP on", "SMAP on"),
    ("xdp_redirect, 64B", "xdp_redirect, 64B"),
    ("On my test box with xdp", "test box with xdp"),
    # a lead word is a word ("GET" of redis-benchmark's row is the test's name)
    ("GET(Requests/s)", "GET(Requests/s)"),
    # the machine a test ran on, or what the writer found, names no configuration
    ("Numbers on my box", None),
    ("Tested on two boxes", None),
    ("I see no real difference", None),
    # a version's change log is no section of a table
    ("Main changes in v2", None),
    ("v1 -> v2", None),
    # a clause is no name
    ("Throughput went", None),
    ("Here are more details of the data I collected", None),
])
def test_a_label_as_a_configurations_name(label: str, name: str | None) -> None:
    assert short_name(label) == name
