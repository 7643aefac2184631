"""The condition step: names for a configuration (``short_name``) and the conditions labels
imply beside each other (``effective_conditions``)."""

import pytest

from mlx.extract.conditions import effective_conditions, short_name


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
    ("the echo server and its bench tool gets me", None),
])
def test_a_label_as_a_configurations_name(label: str, name: str | None) -> None:
    assert short_name(label) == name


@pytest.mark.parametrize(("labels", "title", "want"), [
    # the one label naming what the title adds is patched; of two, the other is the baseline
    (["epoll", "io_uring"], "io_uring zero copy rx", ["baseline", "patched"]),
    # a word both labels share names no side; camel-case parts count as words
    (["SMC-NoCork", "SMC-AutoCork"], "net/smc: Add autocork support", ["baseline", "patched"]),
    # of more labels, the baseline shares the patched label's other words; the third
    # comparator stays no side
    (["TCP", "SMC-NoBatch", "SMC-TxBatching"], "net/smc: add tx batching",
     [None, "baseline", "patched"]),
    (["gro", "gro list"], "net: add gro list support", ["baseline", "patched"]),
    # a label's word may name the start of the title's ("Virt-bufs": "virtually")
    (["Phys-bufs", "Virt-bufs"], "net/smc: Allow virtually contiguous sndbufs",
     ["baseline", "patched"]),
    (["Cont-pool", "Scat-pool"], "net: foo: scatter the pool pages", ["baseline", "patched"]),
    # labels naming none of the title's words, or each one: nothing is implied
    (["TCP", "UDP"], "net: foo: batch the tx path", [None, None]),
    (["zerocopy tx", "zerocopy rx"], "net: zerocopy rx and tx", [None, None]),
])
def test_the_label_naming_the_title_is_patched(labels: list[str], title: str,
                                               want: list[str | None]) -> None:
    got = effective_conditions([(name, None) for name in labels], title)
    assert [cond for _, cond in got] == want


@pytest.mark.parametrize(("label", "condition"), [
    ("with v6.1 patch", "patched"),
    ("w/napi_gro_receive patch", "patched"),
    ("without the series", "baseline"),
    # "with" and the change in two sentences name no side
    ("with some success.   This is the code change made", None),
])
def test_with_and_the_change_stand_in_one_sentence(label: str, condition: str | None) -> None:
    from mlx.extract.conditions import condition_of
    assert condition_of(label) == condition


@pytest.mark.parametrize(("labels", "title", "want"), [
    # a thing with and without it, which the patch title names: the patch brings it
    (["Without POST keep-alive:", "With POST keep-alive:"],
     "net: ncsi: send POST keep-alive frames", ["baseline", "patched"]),
    (["w/ tx batching", "w/o tx batching"], "net/smc: add tx batching", ["patched", "baseline"]),
    # ... unless the patch removes it
    (["with GRO", "without GRO"], "net: foo: remove GRO from the rx path",
     ["baseline", "patched"]),
    # a thing the title does not name is a configuration compared, whatever the title adds
    (["Without XDP:", "With XDP:"], "net: ftgmac100: add batched rx refill support",
     [None, None]),
    # two different things are no switch
    (["with GRO", "without TSO"], "net: foo: GRO and TSO", [None, None]),
])
def test_a_thing_with_and_without_it_is_a_switch_the_title_names(
        labels: list[str], title: str, want: list[str | None]) -> None:
    got = effective_conditions([(name, None) for name in labels], title)
    assert [cond for _, cond in got] == want


@pytest.mark.parametrize(("labels", "want"), [
    # beside one baseline, each label naming a change is a variant of it: one claim each
    ([("vanilla", "baseline"), ("vanilla+rx_batch", None), ("patch_set_2", None),
      ("patch_set_3", None)], ["baseline", "patched", "patched", "patched"]),
    ([("before", "baseline"), ("after", "patched"), ("fix v2", None)],
     ["baseline", "patched", "patched"]),
    # a label naming no change stays open (a third comparator, no side)
    ([("vanilla", "baseline"), ("vanilla+rx_batch", None), ("other driver", None)],
     ["baseline", "patched", None]),
])
def test_beside_a_baseline_each_label_naming_a_change_is_a_variant(
        labels: list[tuple[str, str | None]], want: list[str | None]) -> None:
    assert [cond for _, cond in effective_conditions(labels, "can: foo: batch rx")] == want
