import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mlx.extract import hwrole
from mlx.extract.document import Document
from mlx.extract.hardware import extract_hardware
from mlx.extract.rules import rejected_by


def rows(text: str) -> list[tuple]:
    return [(r.host, r.kind, r.text, r.value) for r in extract_hardware(text)]


@pytest.mark.parametrize("line, expected", [
    # the seed's host lines: four facts each, host from the prefix
    ("Client: RHEL9.2, CPU  Intel E5-2620, Memory 4096 MB, NIC I350",
     [("Client", "os", "RHEL9.2", "RHEL9.2"), ("Client", "cpu", "Intel E5-2620", "Intel E5-2620"),
      ("Client", "memory", "Memory 4096 MB", "4096"), ("Client", "nic", "I350", "I350")]),
    # a bare size is memory on a host line
    ("Server: 6.7.0-rc1, CPU Intel Xeon Silver 4216, 196608 MB, NIC I350",
     [("Server", "kernel", "6.7.0-rc1", "6.7.0-rc1"),
      ("Server", "cpu", "Intel Xeon Silver 4216", "Intel Xeon Silver 4216"),
      ("Server", "memory", "196608 MB", "196608"), ("Server", "nic", "I350", "I350")]),
    # registered marks kept as written, dropped from the value
    ("pbx:  Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz",
     [("pbx", "cpu", "Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz",
       "Intel Core i3-6100U CPU @ 2.30GHz")]),
    ("pbx4: AMD GX-412TC SOC (1 GHz, 4-core)", [("pbx4", "cpu", "AMD GX-412TC SOC",
                                                 "AMD GX-412TC SOC")]),
    ("The box is an AMD EPYC 7713 64-Core Processor.",
     [(None, "cpu", "AMD EPYC 7713 64-Core Processor", "AMD EPYC 7713 64-Core Processor")]),
    ("DUT: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
     [("DUT", "cpu", "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz",
       "Intel Xeon Gold 6338 CPU @ 2.00GHz")]),
    ("Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz", [(None, "cpu",
                                                   "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz",
                                                   "Intel Xeon CPU E5-2690 v4 @ 2.60GHz")]),
    # Arm cores and SoCs
    ("Tested on a Cortex-A53 board and on Neoverse-N1 (Ampere Altra).",
     [(None, "cpu", "Cortex-A53", "Cortex-A53"), (None, "cpu", "Neoverse-N1", "Neoverse-N1"),
      (None, "cpu", "Ampere Altra", "Ampere Altra")]),
    ("Raspberry Pi 4 (BCM2711), Ubuntu 22.04",
     [(None, "board", "Raspberry Pi 4", "Raspberry Pi 4"), (None, "cpu", "BCM2711", "BCM2711"),
      (None, "os", "Ubuntu 22.04", "Ubuntu 22.04")]),
    # NICs by model and by driver; link speeds
    ("Both hosts use Mellanox ConnectX-6 Dx (mlx5_core) back to back over 100G",
     [(None, "nic", "Mellanox ConnectX-6 Dx", "Mellanox ConnectX-6 Dx"),
      (None, "nic", "mlx5_core", "mlx5_core"), (None, "link", "100G", "100000 Mbit/s")]),
    ("NIC: Intel E810-C, ixgbe on the other side, 25GbE",
     [(None, "nic", "Intel E810-C", "Intel E810-C"), (None, "nic", "ixgbe", "ixgbe"),
      (None, "link", "25GbE", "25000 Mbit/s")]),
    # wifi chips and channel width
    ("AP: MT7915 on a Banana Pi BPI-R3, client Intel AX210, 80 MHz channel",
     [("AP", "wifi", "MT7915", "MT7915"), ("AP", "board", "Banana Pi BPI-R3", "Banana Pi BPI-R3"),
      ("AP", "wifi", "Intel AX210", "Intel AX210"), ("AP", "wifi", "80 MHz channel",
                                                      "80 MHz channel")]),
    # memory in MiB, kernel and OS shapes
    ("Lab box: ThinkPad X1 Carbon Gen 6, 16G memory, Fedora 39, kernel v6.8-rc3+",
     [("Lab box", "board", "ThinkPad X1 Carbon Gen 6", "ThinkPad X1 Carbon Gen 6"),
      ("Lab box", "memory", "16G memory", "16384"), ("Lab box", "os", "Fedora 39", "Fedora 39"),
      ("Lab box", "kernel", "kernel v6.8-rc3+", "6.8-rc3+")]),
    ("It runs net-next at 6.3.0-rc1 with 512 GB RAM and 2 GB DDR4 on the switch CPU",
     [(None, "kernel", "net-next at 6.3.0-rc1", "6.3.0-rc1"),
      (None, "memory", "512 GB RAM", "524288"), (None, "memory", "2 GB DDR4", "2048")]),
])
def test_lines(line: str, expected: list) -> None:
    assert rows(line) == expected


def test_seed_002_shape() -> None:
    text = """\
Here is a test on a PC Engines APU2 ...

pbx4: AMD GX-412TC SOC (1 GHz, 4-core)
      Ethernet controller: Intel Corporation I210

pbx:  Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz
      Ethernet controller: Intel Corporation I211

# uname -a
Linux pbx4 3.16.57-astlinux #1 SMP PREEMPT Mon Jul 9 17:25:31 CDT 2018 x86_64 GNU/Linux
"""
    got = rows(text)
    assert (None, "board", "PC Engines APU2", "PC Engines APU2") in got
    assert ("pbx4", "nic", "Intel Corporation I210", "Intel Corporation I210") in got
    assert ("pbx", "nic", "Intel Corporation I211", "Intel Corporation I211") in got
    assert ("pbx4", "kernel", "3.16.57-astlinux", "3.16.57-astlinux") in got
    assert ("pbx4", "arch", "x86_64", "x86_64") in got


def test_lscpu_lspci_and_robot() -> None:
    text = ("Model name:                      AMD EPYC 7551 32-Core Processor\n"
            "03:00.0 Ethernet controller: Intel Corporation Ethernet Controller E810-C for QSFP "
            "(rev 02)\n"
            "test machine: 128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz "
            "(Ice Lake) with 256G memory\n")
    got = rows(text)
    assert got[0] == (None, "cpu", "AMD EPYC 7551 32-Core Processor",
                      "AMD EPYC 7551 32-Core Processor")
    assert got[1] == (None, "nic", "Intel Corporation Ethernet Controller E810-C for QSFP",
                      "Intel Corporation Ethernet Controller E810-C for QSFP")
    assert [(k, v) for _, k, _, v in got[2:]] == [
        ("threads", "128"), ("sockets", "2"), ("cpu", "Intel Xeon Gold 6338 CPU @ 2.00GHz"),
        ("memory", "262144")]


@pytest.mark.parametrize("text", [
    # versions of other software, a patch version, dates
    "Built with gcc 12.2.0 and iperf 3.9 on Intel boxes, see [PATCH v2] from 2024-03-05.",
    # a driver patch adding I210 to a PCI table states no test setup
    "Add the new ids.\n\ndiff --git a/drivers/net/igb.c b/drivers/net/igb.c\n"
    "--- a/drivers/net/igb.c\n+++ b/drivers/net/igb.c\n@@ -1 +1,2 @@\n x\n+\t{ I210, X710 },\n",
    # a plain diff -u without "diff --git"
    "Ids.\n--- a/igb.c\n+++ b/igb.c\n@@ -1 +1,2 @@\n x\n+\t{ Intel I210, 4096 MB RAM },\n",
    # sizes that are no memory: a transfer, a file
    "Intel said the firmware image is 512 MB; the test moved 466 MBytes.",
])
def test_precision(text: str) -> None:
    assert [r for r in extract_hardware(text) if r.kind in ("memory", "kernel", "nic")] == []


def test_quoted_rows_are_marked() -> None:
    (row,) = extract_hardware("> Client: Intel Xeon Silver 4216\n")
    assert (row.host, row.quoted, row.quote_depth) == ("Client", True, 1)


def facts(text: str, subject: str | None = None) -> list[tuple]:
    return [(r.kind, r.text, r.role) for r in extract_hardware(text, subject)]


@pytest.mark.parametrize("line, expected", [
    # NIC models written bare or lower-case, found in the PCI ID gazetteer
    ("Tested on my box with an i211 and an i226-V, a x550-T2 and an E823.",
     [("nic", "i211"), ("nic", "i226-V"), ("nic", "E823"), ("nic", "x550-T2")]),
    ("Tested with 82599ES, BCM57508 and CX-7 cards.",
     [("nic", "82599ES"), ("nic", "BCM57508"), ("nic", "CX-7")]),
    # CPU code names and families
    ("Tested on Sapphire Rapids and Ice Lake-SP, a RPL-P laptop and a Zen 4 desktop.",
     [("cpu", "Sapphire Rapids"), ("cpu", "Ice Lake-SP"), ("cpu", "RPL-P"), ("cpu", "Zen 4")]),
    ("Tested on a Skylake box and on Neoverse N1.", [("cpu", "Skylake"), ("cpu", "Neoverse N1")]),
    # boards, dev kits, routers, phones and laptops; USB adapters by brand and model
    ("I tested on a B650 AORUS ELITE, a Raspberry Pi 5 and an Orin Nano devkit.",
     [("board", "B650 AORUS ELITE"), ("board", "Raspberry Pi 5"), ("board", "Orin Nano")]),
    ("Tested on a TP-Link Archer AX23, a Pixel 7 and a ThinkPad T14.",
     [("board", "Archer AX23"), ("board", "Pixel 7"), ("board", "ThinkPad T14")]),
    ("Tested with a Netgear A8000 and an ALFA AWUS036AXML.",
     [("wifi", "Netgear A8000"), ("wifi", "ALFA AWUS036AXML")]),
    # wifi and SoC chips by vendor prefix
    ("Tested on RTL8852BU, MT7996, QCN9274, WCN7850, AR9271 and an IPQ8074 board.",
     [("wifi", "RTL8852BU"), ("wifi", "MT7996"), ("wifi", "QCN9274"), ("wifi", "WCN7850"),
      ("wifi", "AR9271"), ("cpu", "IPQ8074")]),
    # OSes with or without versions; vendor kernels
    ("Tested on Ubuntu, Fedora 40, OpenWrt 23.05 and Debian bookworm.",
     [("os", "Ubuntu"), ("os", "Fedora 40"), ("os", "OpenWrt 23.05"), ("os", "Debian bookworm")]),
    ("Tested on kernels 5.15.0-105-generic and 4.9.253-tegra.",
     [("kernel", "5.15.0-105-generic"), ("kernel", "4.9.253-tegra")]),
    # shell prompts that name the board or the OS
    ("root@imx8mp-evk-rev2:~# iperf3 -c 10.0.0.2", [("board", "imx8mp-evk-rev2")]),
    ("root@OpenWrt:~# iperf3 -c 192.168.1.10", [("os", "OpenWrt")]),
    # evaluation kits, sockets and threads, code names without a blank
    ("Tested on the RZ/G3E EVK and an i.MX93 EVK board.",
     [("board", "RZ/G3E EVK"), ("board", "i.MX93 EVK")]),
    ("The test platform is a 2 sockets 48C/96T machine, one SapphireRapids box.",
     [("cpu", "SapphireRapids"), ("threads", "48C/96T"), ("sockets", "2 sockets")]),
    # the ice driver as people write it, ConnectX with a blank, a Xeon without its family
    ("Tested on ICE and a ConnectX 6 100G link, my CPU E5-2650 v3 @ 2.30GHz.",
     [("nic", "ICE"), ("nic", "ConnectX 6"), ("link", "100G"),
      ("cpu", "E5-2650 v3 @ 2.30GHz")]),
    # a ConnectX with its Lx written on, a family alone
    ("Tested on two EPYCs with ConnectX-4Lx.", [("cpu", "EPYCs"), ("nic", "ConnectX-4Lx")]),
    # machines by maker and line, memory "of RAM", kernels listed and tested on
    ("I verified this on a Dell Latitude 7420 with 64 GB of ECC RAM.",
     [("board", "Dell Latitude 7420"), ("memory", "64 GB of ECC RAM")]),
    ("Tested kernels:\n- 6.6.30: fine\n- 6.6.31: hangs (also tested on 6.9)",
     [("kernel", "6.6.30"), ("kernel", "6.6.31"), ("kernel", "6.9")]),
    # the distribution a kernel names, sysstat's header, a link wrapped in a boot log
    ("Tested on Linux box1 5.4.0-52-generic #58~18.04.1-Ubuntu SMP x86_64",
     [("kernel", "5.4.0-52-generic"), ("arch", "x86_64"), ("os", "18.04.1-Ubuntu")]),
    ("$ mpstat -P3\nLinux 5.4.0-52-generic (host1) \t12/23/2020 \t_x86_64_\t(8 CPU)",
     [("kernel", "5.4.0-52-generic"), ("arch", "x86_64"), ("threads", "8 CPU")]),
    ("Tested on:\n[   59.07] eth0: Link is Up -\n1Gbps/Full - flow control rx/tx",
     [("link", "1Gbps")]),
    # veths the test ran over are its setup NIC, as the gold set labels them
    ("Tested using veths between two netns: 9.41 Gbits/sec", [("nic", "veths")]),
])
def test_setup_vocabulary(line: str, expected: list) -> None:
    assert [(k, t) for k, t, _ in facts(line)] == expected
    assert {role for _, _, role in facts(line)} == {"setup"}


def test_roles() -> None:
    text = """\
This adds support for the Intel I226-V found on newer boards.

Tested on my desk box: AMD Ryzen 9 7950X, Ubuntu 24.04, kernel 6.8.0-31-generic.
iperf3 gives 2.35 Gbits/sec with the patch.
"""
    got = {(k, t): role for k, t, role in facts(text, "[PATCH net-next] igc: add I226-V ids")}
    assert got[("nic", "Intel I226-V")] == "subject"  # the chip the patch is about
    assert got[("cpu", "AMD Ryzen 9 7950X")] == "setup"
    assert got[("kernel", "kernel 6.8.0-31-generic")] == "setup"


def test_one_row_per_fact_and_message() -> None:
    # a debug log naming the driver on every line is one fact, with a count
    log = "".join(f"[ {i}.000001] i40e 0000:3b:00.0: tx hang on queue {i}\n" for i in range(50))
    rows = [r for r in extract_hardware("Tested with my X710:\n" + log) if r.text == "i40e"]
    assert len(rows) == 1 and rows[0].count == 50 and rows[0].role == "setup"


@pytest.mark.parametrize("text", [
    # headers quoted in the body, trailers and Fixes: lines are no setup
    "Subject: [PATCH] i40e: fix a crash on X710\nFixes: 1234567890ab (\"ixgbe: add E610\")\n"
    "Reported-by: Bob <bob@example.org> # i40e on Xeon\n",
    # a build bot's branch names ("...next-queue.git 40GbE") and file paths
    "tree:   https://git.kernel.org/pub/scm/linux/kernel/git/tnguy/next-queue.git 40GbE\n"
    "head:   1234567890abcdef\nfile: drivers/net/ethernet/intel/i40e/i40e_main.c\n",
])
def test_no_setup_from_headers_trailers_and_bots(text: str) -> None:
    assert extract_hardware(text) == []


@pytest.mark.parametrize("text, subject", [
    # patch titles listed in a cover letter or a pull request, a maintainer's "Applied"
    ("Kalle Valo (2):\n  a7368c395fc3 ath10k: Add wmi tlv vdev subtype for QCA9888\n"
     "  ath10k: Fix rate table for QCA6174\n", "[PULL] ath-next 2020-03-01"),
    ("Applied to ath-next branch of the ath10k tree, tested on QCA9984.", "Re: [PATCH] ath10k: x"),
    # the spec list of a device a patch adds
    ("Specs of the new board:\n- CPU: MT7621A\n- WiFi: MT7615N 5GHz\n\nTested on it.",
     "[PATCH] ramips: add support for Foo Router X1"),
    # OpenWrt build targets named in passing, git am's "Applying:", a bot citing a commit
    ("I built it for ramips and ath79 and ran iperf3 -c host: 940 Mbits/sec", None),
    ("Applying: ramips: add support for Mikrotik RBM11G\nTested: 940 Mbits/sec", None),
    ("The bot is fixing commit: 1a7fecb766c8 ath10k: reset chip after supported check", None),
    # a test only planned, software named after the chip, a grep pattern
    ("I would like to setup RF tests for a QCA9377-3 next week.", None),
    ("Sorry, I don't have any ConnectX-5 NICs to test with.", None),
    ("Only compile-tested on arm64 and for the MT7621A target.", None),
    ("Tested with the ath10k firmware from github on my box.", None),
    ("root@ap:~# dmesg | grep ath10k", None),
    # a tool's version is no kernel, a firmware's is none either
    ("Tested with autoconf-2.69 and firmware 10.4-3.5.3-00057 on my box.", None),
])
def test_no_setup_from_titles_specs_and_versions(text: str, subject) -> None:
    setup = [(k, t) for k, t, role in facts(text, subject) if role == "setup"]
    assert not [f for f in setup if f[0] in ("wifi", "nic", "cpu", "kernel")], setup


def test_spec_sheet_is_the_subject() -> None:
    text = "Specifications:\n\n- MT7628NN @ 580 MHz\n- 64 MB RAM\n- 5x 10/100 Mbps Ethernet\n"
    assert {role for _, _, role in facts(text, "[PATCH] ramips: add support for Foo R1")} \
        == {"subject"}


def test_a_spec_list_under_a_prose_heading_is_the_device_added() -> None:
    """ "The detailed specifications are:" heads the list of the device a patch adds: its
    rows are the patch's subject; "My test box specs:" heads a setup."""
    body = ("Foo Router X1 is a dual-sim router. The detailed\n"
            "specifications are:\n\n- MT7620A (580MHz)\n- 64MB RAM\n- 16MB of flash\n")
    rows = extract_hardware(body, "[PATCH v3] ramips: add support for Foo Router X1")
    assert {(r.text, r.role) for r in rows if r.kind == "memory"} == {("64MB RAM", "subject")}
    body = ("My test box specs:\n\n- Intel Xeon Gold 6230\n- 64GB RAM\n\n"
            "iperf3 gives 9.41 Gbits/sec with the patch, 8.12 Gbits/sec without.\n")
    rows = extract_hardware(body, "Re: [PATCH net] tcp: fix the probe timer")
    assert ("Intel Xeon Gold 6230", "setup") in {(r.text, r.role) for r in rows}


def test_the_chip_after_soc_is_a_cpu() -> None:
    """dmesg's "SoC: Qualcomm Atheros QCA956X" names the SoC, not a wifi chip."""
    rows = extract_hardware("[    0.000000] SoC: Qualcomm Atheros QCA956X ver 1 rev 0\n",
                            "Re: [PATCH] ath79: fix the switch")
    assert [(r.kind, r.text) for r in rows] == [("cpu", "Atheros QCA956X")]


# the prefilter as it was written before one automaton did it: a substring test per word
def _reading_by_substrings(head: str) -> str | None:
    from mlx.extract.hardware import RATE, SETUP_WORDS
    from mlx.extract.hwvocab import BODY_HW, STRONG_LOWER
    if any(w in head for w in SETUP_WORDS) or (("pps" in head or "bps" in head) and
                                                RATE.search(head) is not None):
        return "deep"
    if BODY_HW.search(head) is not None or any(w in head for w in STRONG_LOWER):
        return "strong"
    return None


def _pieces() -> list[str]:
    from mlx.extract.hardware import SETUP_WORDS
    from mlx.extract.hwvocab import STRONG, STRONG_LOWER, literal_head
    return [literal_head(p) for p in STRONG] + list(STRONG_LOWER) + list(SETUP_WORDS) + [
        "pps", "bps", "5 Mpps", "940 Mbps", "2", "620", "-2620", "1", "7", "a", "x", " ",
        "\n", "\\b", "Z", "ICE", "nICE", "RAM", "RAMx", "Dell", "Delly", "E5-", "E5-26"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_pieces()), max_size=12))
def test_the_one_pass_prefilter_reads_what_the_substring_tests_read(parts: list[str]) -> None:
    from mlx.extract.hardware import PREFILTER, _reading
    text = "".join(parts)
    assert _reading(text, PREFILTER.hits(text)) == _reading_by_substrings(text)


def _line_pieces() -> list[str]:
    from mlx.extract.hardware import SHAPE_WORDS
    from mlx.extract.hwvocab import WEAK_WORDS
    return _pieces() + list(SHAPE_WORDS) + list(WEAK_WORDS) + [
        "ink", "k is", "-r", "c", "Dell", "ThinkPad", "debian-11", "i211", "X550-T2", "Rasp",
        "AR9271", "arch", "İ", "ΑΣ", "Not tainted", "DMI:"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_line_pieces()), max_size=12))
@example(parts=["Intel", "\n", "E3-"])  # BODY_HW matches 8 back of "E3-": at "Intel"
def test_line_words_are_the_lines_each_kind_of_word_stands_on(parts: list[str]) -> None:
    from mlx.extract.hardware import LOG_WORDS, SHAPE_WORDS, _line_words
    from mlx.extract.hwvocab import BODY_HW, STRONG_LOWER, WEAK_WORDS, nic_tokens, platform_words
    text = "".join(parts)
    lines = list(enumerate(text.split("\n")))
    assert _line_words(text) == {
        "strong": {i for i, line in lines if BODY_HW.search(line)
                   or any(w in line for w in STRONG_LOWER + LOG_WORDS)},
        "shape": {i for i, line in lines if any(w in line for w in SHAPE_WORDS)},
        "weak": {i for i, line in lines if any(w in line for w in WEAK_WORDS)},
        "platform": {i for i, line in lines if any(w in line.lower() for w in platform_words())},
        "model": {i for i, line in lines if any(w in line.lower() for w in nic_tokens())}}


def test_every_strong_pattern_starts_with_its_literal_head() -> None:
    import re

    from mlx.extract.hwvocab import STRONG, literal_head
    samples = {"RAM\\b": "RAM", "APU\\d": "APU2", "I21\\d": "I211", "8259\\d": "82599",
               "MT7\\d": "MT76", "AX2\\d\\d": "AX210", "EVK\\b": "EVK",
               "(?<![A-Za-z])ICE\\b": "ICE", "E3-\\d{4}": "E3-1230", "E5-\\d{4}": "E5-2620",
               "E7-\\d{4}": "E7-8890", "Dell\\b": "Dell"}
    for p in STRONG:
        sample = samples.get(p, p)
        assert re.fullmatch(p, sample), p
        assert sample.startswith(literal_head(p)) and literal_head(p), p


@pytest.mark.parametrize("text,subject", [
    # OpenWrt targets built, their SDK or their sources: nothing ran on a machine
    ("And the build test (on ramips) was successful.\n", "Re: [PATCH] ramips: fix leds"),
    ("Tested via buildroot & ImageBuilder on ath79/generic and imx6.\n",
     "[PATCH] build: add image metadata"),
    ("I tried to compile kmod-foo for ar71xx with kernel 4.14 and it failed.\n",
     "Re: [PATCH] kernel: bump 4.14"),
    ("Probably copy-pasted from the ar71xx files. Tested on my C7: 340 Mbits/sec.\n",
     "Re: [PATCH] ath79: add Foo R1"),
])
def test_build_targets_built_are_no_setup(text: str, subject: str) -> None:
    setup = [(k, t) for k, t, role in facts(text, subject) if role == "setup"]
    assert not [f for f in setup if f[1].lower() in ("ramips", "ath79", "imx6", "ar71xx")], setup


@pytest.mark.parametrize("text", [
    "Tested on my C7v2 (ar71xx), iperf3 gives 340 Mbits/sec.\n",
    "Tested on ar71xx: iperf3 gives 340 Mbits/sec with the new build.\n",
    "Tested on ar71xx, with the files from the latest snapshot: 340 Mbits/sec.\n",
])
def test_a_target_a_test_ran_on_is_still_a_setup(text: str) -> None:
    assert ("cpu", "ar71xx", "setup") in facts(text, "Re: [PATCH] ar71xx: fix ethernet")


def test_review_prose_about_a_driver_is_no_setup() -> None:
    assert {role for _, _, role in facts("This is using the mlx5 helper incorrectly, see below.\n",
                                         "Re: [PATCH] net/mlx5e: foo")} == {"subject"}


@pytest.mark.parametrize("line", [
    "my gcc: gcc (Ubuntu 7.4.0-1ubuntu1~18.04.1) 7.4.0\n",
    "[cannot apply to v5.3-rc3 next-20190808]\n",
    # a boot log's module registration: a driver loaded, no device it drives
    "[    1.383406] usbcore: registered new interface driver r8152\n",
])
def test_compiler_strings_and_robot_trees_state_no_setup(line: str) -> None:
    assert not [f for f in facts("Tested on my box.\n" + line, "Re: [PATCH] foo")
                if f[1] in ("Ubuntu", "v5.3-rc3", "5.3-rc3", "r8152")]


def test_a_list_under_a_setup_heading_is_the_setup() -> None:
    """ "The environment is as follows:" heads the list of what a test ran on; a driver
    the (non-patch) subject names is the reporter's, not a patch's."""
    body = ("I have a question about the latency we see in a test.\n"
            "The environment is as follows:\n\n- Debian Bookworm, running 6.1.0-18-amd64\n"
            "- Intel X710-DA2 using the i40e driver of the kernel\n")
    rows = {(r.kind, r.text, r.role) for r in
            extract_hardware(body, "XDP redirect latency with i40e")}
    assert {("os", "Debian Bookworm", "setup"), ("nic", "i40e", "setup"),
            ("nic", "Intel X710-DA2", "setup")} <= rows, rows
    # a board file's "Description for what hardware this is:" lists no test
    body = ("* Description for what hardware this is:\n  - it is an IPQ4019 based board\n")
    assert {r.role for r in extract_hardware(body, "ath10k-firmware: add board data")} \
        == {"subject"}


@pytest.mark.parametrize("text,subject,fact", [
    ("The hardware I am using is a Mellanox ConnectX-4 card.\n", "Re: XDP drops", "ConnectX-4"),
    ("Yes, I'm using an Intel XL710 here.\n", "Re: line rate", "Intel XL710"),
    # the board of the patch's title, tested on
    ("These patches have been tested on the Foo-X9 EVK with v6.14.\n",
     "[PATCH 0/9] Add support for the Foo-X9 SoC and EVK", "Foo-X9 EVK"),
    # a kernel log's lines without timestamps: phylib attaching, a driver's own prefix
    ("eth0: attached PHY\ndriver [Microchip KSZ9131 Gigabit PHY] (irq=POLL)\n",
     "Re: [PATCH] net: fix", "KSZ9131"),
    ("model name\t: AMD EPYC 7542 32-Core Processor\n", "Re: slow forwarding",
     "AMD EPYC 7542 32-Core Processor"),
])
def test_more_ways_of_saying_what_ran(text: str, subject: str, fact: str) -> None:
    rows = {(t, role) for _, t, role in facts(text, subject)}
    assert any(fact in t and role == "setup" for t, role in rows), rows


@pytest.mark.parametrize("text", [
    # the DMI string of a virtual machine, syslog's host field
    "Tested on my box:\n[    3.48] Hardware name: QEMU Ubuntu 24.04 PC v2 (i440FX + PIIX, "
    "1996), BIOS 1.16.3\n",
    "Tested on my box:\nMar 06 14:26:57 fedora kernel: mlx5_core 0000:99:00.0 det1: Link up\n",
    # the stable bot's trees, lspci's capability lines
    "Tested on my box.\nThe bot has tested the following trees: v5.2.13, v4.19.71.\n\n"
    "v5.2.13: Failed to apply! Possible dependencies:\nv4.19.71: Build OK!\n",
    "Tested on my laptop:\n\tCapabilities: [70] Express Endpoint, MSI 00\n",
])
def test_misread_platform_strings_are_no_setup(text: str) -> None:
    setup = [(k, t) for k, t, role in facts(text, "Re: [PATCH] ath10k: fix rx") if role == "setup"]
    # (the DMI string names the machine, a virtual one too: its board, not its OS)
    assert not [f for f in setup if f[0] in ("os", "kernel")], setup


def test_the_indented_lines_of_a_spec_field_are_the_device_added() -> None:
    body = ("ramips: add Foo R9\n\nSoC:\tMediaTek MT7621AT dual-core @ 880MHz\n"
            "RAM:\t256M\nWiFi:\t- 2.4GHz MediaTek MT7615N bgn\n\t- 5GHz MediaTek MT7615N nac\n")
    rows = extract_hardware(body, "[PATCH v4] ramips: add support for Foo R9")
    assert rows and {r.role for r in rows} == {"subject"}, [(r.text, r.role) for r in rows]


def test_the_line_cache_keeps_what_it_returns_when_it_fills(monkeypatch) -> None:
    from mlx.extract import hardware
    from mlx.text import TextCache
    monkeypatch.setattr(hardware, "LINE_FACTS", TextCache(3))
    first = hardware._line_facts(["CPU: Intel Xeon Gold 6338", "NIC: Intel E810"])
    again = hardware._line_facts(["CPU: Intel Xeon Gold 6338", "RAM: 256 GB", "x Xeon"])
    assert again[0] == first[0] and len(hardware.LINE_FACTS.items) <= 3


def test_the_hardware_a_question_names_in_its_subject_is_the_askers() -> None:
    """A chip in a patch's subject is what the patch is about; in a question's subject
    ("Re: ixgbe zero-copy performance") it is what the asker runs."""
    text = "With kernel 6.5.0 and the same ixgbe driver, this is what we see:\n\n  rx 3.2 Mpps\n"
    assert ("nic", "ixgbe", "setup") in facts(text, "Re: ixgbe zero-copy performance")
    assert ("nic", "ixgbe", "subject") in facts(text, "Re: [PATCH net] ixgbe: fix zero-copy rx")


def test_a_speed_in_an_lspci_product_name_is_no_link() -> None:
    text = ("Tested on my box:\n01:00.0 Ethernet controller: Intel Corporation Ethernet "
            "Connection X722 for 10GbE SFP+ (rev 09)\n\tSubsystem: Super Micro Computer Inc "
            "Ethernet Connection X722 for 10GbE SFP+\n")
    assert not [f for f in facts(text, "Re: XDP on X722") if f[0] == "link"]


def test_a_router_soc_is_a_cpu_though_the_id_databases_list_its_radio() -> None:
    rows = facts("Tested on my Archer C7 v5 (QCA9563): 940 Mbits/sec with simple firewall.\n",
                 "Re: [PATCH] ath79: add nft offload")
    assert ("cpu", "QCA9563", "setup") in rows, rows


def test_a_drivers_version_is_no_kernel() -> None:
    assert facts("Tested on my router:\n[   12.3] PPPoL2TP kernel driver, V2.0\n",
                 "Re: [PATCH] l2tp: fix") == []


def test_a_speed_in_a_nic_name_is_no_model_and_driver_sources_no_setup() -> None:
    rows = facts("Tested on: - 5.19.0-42 on Intel 82599ES 10-Gigabit SFI/SFP+ Network "
                 "Connection\n", "Re: AF_XDP drops")
    assert ("nic", "Intel 82599ES", "setup") in rows and \
        not [r for r in rows if "Gigabit" in r[1] and r[0] == "nic" and "82599" not in r[1]]
    rows = facts("Tested with a Compex WLE900VX. Copied the ath10k driver sources from "
                 "linux-5.3-rc7.\n", "Re: ath10k: crash on boot")
    assert ("wifi", "ath10k", "subject") in rows


def test_tool_output_names_the_drivers_that_ran() -> None:
    """ethtool -i's "driver:", a network driver's kernel log line (with its netdev), and
    the adapter lsusb lists (wrapped or not) are the reporter's setup; the hubs are not."""
    text = ("> # ethtool -i enp65s0f0\n> driver: ice\n> version: 6.8.0\n\n"
            "dmesg after boot:\n"
            "[   38.271431] mtk_soc_eth 15100000.ethernet eth1: configuring for inband/2500base-x "
            "link mode\n"
            "[   44.500077] mtk_soc_eth 15100000.ethernet eth1: phy link up "
            "2500base-x/2.5Gbps/Full/none/off\n"
            "[   17.695763] ath10k_pci 0000:01:00.0 wlp1s0: renamed from wlan0\n"
            "[   18.000000] br-lan: port 1(eth1) entered blocking state\n\n"
            "lsusb:\n"
            "Bus 002 Device 004: ID 2109:0815 VIA Labs, Inc. USB3.0 Hub\n"
            "Bus 001 Device 003: ID 07d1:3c0a D-Link System DWA-140 RangeBooster N\n"
            "Adapter(rev.B2) [Ralink RT3072]\n")
    rows = facts(text, "Re: mt7986 drops at 2.5G")
    for fact in [("nic", "ice", "setup"), ("nic", "mtk_soc_eth", "setup"),
                 ("link", "2.5Gbps", "setup"), ("wifi", "ath10k_pci", "setup"),
                 ("wifi", "RT3072", "setup")]:
        assert fact in rows, (fact, rows)
    assert not [r for r in rows if r[1] in ("br-lan", "1000base-x", "2500base-x")]
    # a hub's USB generation is a bus, no network link
    assert not [r for r in rows if r[0] == "link" and "USB" in r[1]], rows


def test_a_uname_line_wrapped_by_the_mailer_keeps_its_arch() -> None:
    text = ("My system:\n\nLinux box 6.6.7-1-MANJARO #1 SMP PREEMPT Wed Dec 13 10:09:19 UTC \n"
            "2023 x86_64 GNU/Linux\n")
    rows = facts(text, "PROBLEM: USB stops working")
    assert ("arch", "x86_64", "setup") in rows and ("kernel", "6.6.7-1-MANJARO", "setup") in rows


@pytest.mark.parametrize("line, fact", [
    # a robot's test image; "the rootfs is ..."
    ("It was 'cgroup v2' with a 'debian-12.1' rootfs.", ("os", "debian-12.1")),
    ("I can reproduce the issue on 6.6.30, not on 6.6.29.", ("kernel", "6.6.30")),
    ("Ubuntu 22.04 LTS running Linux 6.5.0-14-generic", ("os", "Ubuntu 22.04")),
    ("I applied it to the 6.8.0-rc3 branch I've been working with so far.",
     ("kernel", "6.8.0-rc3")),
    ("I also tested this in a virtual machine with virtio NICs in SKB mode.",
     ("nic", "virtio NICs")),
    ("The small-buffer variant lowers throughput on an IPQ40xx device from 494 Mbit/s "
     "to 438 Mbit/s.", ("cpu", "IPQ40xx")),
    ("With this series I'm able to negotiate both 1000Mbps and 100Mbps\nlinks.",
     ("link", "100Mbps")),
])
def test_setup_said_in_passing(line: str, fact: tuple[str, str]) -> None:
    # (a body read for its setup at all: a tested-on line, too far away to be the cue)
    text = "Tested on my box.\n" + "\n" * 12 + line + "\n"
    assert (*fact, "setup") in facts(text, "Re: regression in 6.6"), facts(text, "Re: x")


def test_a_config_heading_lists_the_setup() -> None:
    text = ("> Config:\n> - Uses AF_XDP with zero copy as a bump in the wire\n"
            "> - Dual Xeon with Intel E810-CQDA2 (firmware 4.40)\n"
            "> - Xeon's with an Intel E810-XXVDA2 ('s: no part of the name)\n")
    got = facts(text, "Re: ICE + XSK ZC page faults")
    assert {("nic", "E810-CQDA2", "setup"), ("cpu", "Xeon", "setup"),
            ("nic", "E810-XXVDA2", "setup")} <= set(got), got
    assert not [t for _, t, _ in got if "'" in t], got


@pytest.mark.parametrize("line", [
    "The script boots an OpenWrt x86/64 rootfs in no time, or Debian or Alpine rootfs.",
    "Set the swap flag in the ath79 device tree for these boards.",
    "Disclaimer: I don't own any ramips based hardware, so this is build-tested only.",
])
def test_an_image_or_target_named_in_passing_is_no_setup(line: str) -> None:
    rows = facts("Tested on my box.\n\n\n\n\n\n\n\n\n\n\n" + line + "\n", "Re: [PATCH] tools: x")
    assert not [r for r in rows if r[2] == "setup" and r[0] in ("os", "cpu")], rows


@pytest.mark.parametrize("line, role", [
    ("I don't think we use this property anywhere else in ath79 (or other targets).", "subject"),
    ("Note that for ar71xx I only sent a patch for openwrt-19.07, so please test it.", "subject"),
    ("I've just checked this on ath79 (archer-c7-v5) and it works.", "setup"),
    ("Test platform: Compex WPJ-531 (ar71xx)", "setup"),
    ("I have another WL-330N3G running on ramips kernel 4.14.101.", "setup"),
])
def test_an_openwrt_target_is_a_setup_only_where_something_ran_on_it(line: str, role: str) -> None:
    rows = facts("Tested it here.\n" + "\n" * 12 + line + "\n", "Re: [PATCH] ath79: fix mac")
    assert [r[2] for r in rows if r[1] in ("ath79", "ar71xx", "ramips")] == [role], rows


def test_a_device_patchs_spec_list_is_what_it_adds_in_a_reply_too() -> None:
    spec = ("Head Weblink HDRM200 is a dual-sim router based on MT7620A.\n\n"
            "Hardware:\n* SoC: Qualcomm Atheros QCA9558\n* WiFi 2.4GHz: Qualcomm Atheros QCA9558\n"
            "- 6x 10/100Mbps Ethernet (built-in switch)\n")
    for subject in ("[OpenWrt-Devel] [PATCH v3] ramips: add support for Head HDRM200",
                    "Re: [OpenWrt-Devel] [PATCH v3] ramips: add support for Head HDRM200"):
        rows = facts(spec, subject)
        assert not [r for r in rows if r[2] == "setup"], (subject, rows)


@pytest.mark.parametrize("line", [
    "Gcc : gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)",
    "After that change I can't build OpenWrt anymore on my laptop.",
    "I attached the makefiles and patches I used for my openwrt build.",
])
def test_a_compiler_or_a_build_names_no_os_that_ran(line: str) -> None:
    rows = facts("Tested on my box.\n" + "\n" * 12 + line + "\n", "Re: build failure")
    assert not [r for r in rows if r[0] == "os" and r[2] == "setup"], rows


def test_the_architectures_a_series_was_compile_tested_for_ran_nothing() -> None:
    text = ("Only patch 1 changes any code.\n\nThe series was compile-tested on top of "
            "next-20240315 for\ni386, x86_64, arm, arm64, riscv and s390.\n")
    rows = facts("Tested on my box.\n" + "\n" * 12 + text, "[PATCH 00/11] sysctl: constify")
    assert not [r for r in rows if r[0] == "arch" and r[2] == "setup"], rows


@pytest.mark.parametrize("line, fact, role", [
    ("I tested this on Ubuntu 21.10 and it worked. I will apply this for Linux 5.18-rc1.",
     ("os", "Ubuntu 21.10"), "setup"),
    ("I tested this on Ubuntu 21.10 and it worked. I will apply this for Linux 5.18-rc1.",
     ("kernel", "Linux 5.18-rc1"), "subject"),
    ("I have seen this on some old OpenWrt documentation pages.", ("os", "OpenWrt"), "subject"),
    ("- Update autoconf to build cleanly on Debian bookworm", ("os", "Debian bookworm"),
     "subject"),
    ("After digging through the ath10k patchwork I found this patch.", ("wifi", "ath10k"),
     "subject"),
])
def test_a_project_a_patch_queue_or_a_target_release_is_no_setup(
        line: str, fact: tuple[str, str], role: str) -> None:
    rows = facts("Tested on my box.\n" + "\n" * 12 + line + "\n", "Re: [PATCH] fix build")
    assert (*fact, role) in rows, rows


@pytest.mark.parametrize("line, fact", [
    ("jeff@deb-devel:~/devel/openwrt$ git remote -v show openwrt", ("os", "openwrt")),
    ("That's the point: RHEL won't make updates for anything but critical bugs.", ("os", "RHEL")),
    ("FWIW: In Debian bullseye we have 0.9.8 based nftables.", ("os", "Debian bullseye")),
])
def test_a_command_line_or_a_distribution_as_a_product_is_no_setup(
        line: str, fact: tuple[str, str]) -> None:
    rows = facts("Tested on my box.\n" + "\n" * 12 + line + "\n", "Re: nft: fix")
    assert (*fact, "setup") not in rows, rows


@pytest.mark.parametrize("line, fact, role", [
    # a switch driver's log line is a NIC's, not a wifi chip's
    ("[   12.345678] mt7530 mdio-bus:1f lan1: Link is Up - 1Gbps/Full", ("nic", "mt7530"),
     "setup"),
    ("We solved this with a helper in ath79 already.", ("cpu", "ath79"), "subject"),
    ("Tested with the Intel X710 I had at hand: 9.4 Gbits/sec", ("nic", "Intel X710"), "setup"),
    ("I run OpenWrt release 23.05.2 on my Archer C7.", ("os", "OpenWrt"), "setup"),
    ("Fedora 39 doesn't boot with the patch on my laptop.", ("os", "Fedora 39"), "setup"),
    ("I configured OpenWrt on my Archer C7 and ran iperf.", ("os", "OpenWrt"), "setup"),
    ("root@dut:~# modprobe ixgbe", ("nic", "ixgbe"), "setup"),
])
def test_setup_lines_the_subject_rules_leave_alone(line: str, fact: tuple[str, str],
                                                   role: str) -> None:
    rows = facts("Tested on my box.\n" + "\n" * 12 + line + "\n", "Re: [PATCH] net: fix")
    assert (*fact, role) in rows, rows


def test_no_join_after_a_whole_lspci_line_nor_after_a_hub() -> None:
    text = ("lspci:\n01:00.0 Ethernet controller: Intel Corporation I210 Gigabit Network "
            "Connection (rev 03)\nWith 9000 MTU it drops\n\n"
            "Bus 002 Device 001: ID 1d6b:0003 Linux Foundation 3.0 root hub\n"
            "I would buy an Intel AX210 for it\n")
    rows = facts(text, "Re: igb drops")
    assert ("nic", "Intel Corporation I210 Gigabit Network Connection", "setup") in rows, rows
    assert ("wifi", "Intel AX210", "setup") not in rows, rows


def test_a_board_config_in_review_is_no_setup_heading() -> None:
    text = ("Tested on my box.\n" + "\n" * 12 + "Looks good, but drop this from the board "
            "config:\n\tcompatible = \"mediatek,mt7621-soc\";\n\tMT7621A SoC\n")
    rows = facts(text, "Re: [PATCH] ramips: add support for Foo")
    assert not [r for r in rows if r[2] == "setup"], rows


def test_a_field_a_device_or_a_driver_before_a_colon_is_no_host() -> None:
    text = """\
Tested on my router, throughput went from 310 Mbit/s to 450 Mbit/s:

Kernel version: 6.6.30
SoC Type: MediaTek MT7621
Hardwares tested: Xiaomi Mi Router 4A Gigabit
Distributor ID: Ubuntu
filename:       /lib/modules/6.1.0/kernel/drivers/net/wireless/ath/ath10k/ath10k_pci.ko
usb 2-1: new high-speed USB device number 3 using xhci_hcd, RTL8812AU
ath10k_pci 0000:01:00.0: qca988x hw2.0 target 0x4100016c chip_id 0x043202ff
ath10k: QCA9880 on the other box
kube-4: 2x Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz
"""
    hosts = {(r.host, r.text) for r in extract_hardware(text)}
    assert ("kube-4", "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz") in hosts
    assert {h for h, _ in hosts} == {None, "kube-4"}, hosts
    assert (None, "6.6.30") in hosts and (None, "MT7621") in hosts


@pytest.mark.parametrize("rule", hwrole.ROLE_RULES, ids=lambda r: r.name)
def test_each_role_rule_turns_its_example_down(rule) -> None:
    """The table's examples are its test cases; the row keeps the rule's name (under the
    title of a patch adding the device where the rule is about one)."""
    subject = "[PATCH] igc: add " + ("support for " if "adding" in rule.name else "") + "the I226-V"
    rows = extract_hardware(rule.example, subject)
    assert rows, rule.example
    assert any(r.rule == rule.name and r.role == "subject" for r in rows), rows


@pytest.mark.parametrize("rule", hwrole.SHAPED_RULES, ids=lambda r: r.name)
def test_each_rule_of_a_tools_line_turns_its_example_down(rule) -> None:
    rows = extract_hardware(rule.example, "[PATCH] igc: add support for the I226-V")
    assert any(r.rule == rule.name and r.role == "subject" for r in rows), rows


@pytest.mark.parametrize(("rule", "fact"), [
    (hwrole.FACT_RULES[0], ("os", "Ubuntu")), (hwrole.FACT_RULES[1], ("link", "10GbE")),
    (hwrole.FACT_RULES[2], ("size", "512 MB")), (hwrole.FACT_RULES[3], ("nic", "ixgbe")),
    (hwrole.FACT_RULES[4], ("kernel", "5.27-rc1")), (hwrole.FACT_RULES[5], ("board", "MikroTik")),
    (hwrole.FACT_RULES[6], ("memory", "0G"))],
    ids=lambda r: getattr(r, "name", ""))
def test_each_fact_rule_drops_its_example(rule, fact) -> None:
    doc = Document.of(rule.example)
    found = {0: [(*fact, None, None, False)]}
    at = hwrole._Line(doc, 0, found, hwrole._Subject.of(None), {})
    assert rejected_by(hwrole.FACT_RULES, hwrole._Spot(at, *fact)) == rule.name
    assert hwrole.rows_of(found, doc, None) == []


def test_a_setup_row_has_no_rule_and_setup_wins_over_a_rule() -> None:
    rows = extract_hardware("The I350 has four ports.\n\nTested on my box with an I350.\n")
    assert [(r.text, r.role, r.rule, r.count) for r in rows] == [("I350", "setup", None, 2)]


def test_a_utilisation_under_a_cpu_field_is_no_processor() -> None:
    """"CPU: iperf3 22.5% ksoftirqd 16.6%" below a run is the load of each process; a CPU
    field naming a part stays a fact."""
    body = ("Tested on my box.\n\n$ iperf3 -c 192.0.2.1\n"
            "[  5] 0.00-10.00  sec  10.3 GBytes  8.83 Gbits/sec\n"
            "CPU: iperf3 22.5% ksoftirqd 16.6%\n")
    assert [r for r in extract_hardware(body) if r.kind == "cpu"] == []
    assert [(r.kind, r.text) for r in extract_hardware("Test setup:\nCPU: Xeon Gold 6338\n")
            if r.kind == "cpu"] == [("cpu", "Xeon Gold 6338")]


def test_a_boot_log_names_its_kernel_cpu_and_arch() -> None:
    """The banner's kernel, though it names the compiler that built it; arch/arm's CPU
    line; an oops header's release and the arch a distribution's release ends in."""
    text = ("> [    0.000000] Booting Linux on physical CPU 0x0\n"
            "> [    0.000000] Linux version 6.19.0-rc2-next-20260102 (builder@farm) "
            "(arm-linux-gnueabihf-gcc (Debian 14.2.0-3) 14.2.0, GNU ld 2.44) #1 SMP\n"
            "> [    0.000000] CPU: ARMv7 Processor [410fc075] revision 5 (ARMv7), cr=10c5387d\n"
            "[  211.402113] CPU: 3 PID: 977 Comm: xsk_fwd Tainted: G  E  "
            "6.1.118-2.el9.x86_64 #1\n")
    got = facts(text, "Re: [PATCH] net: foo")
    assert {("kernel", "6.19.0-rc2-next-20260102", "setup"),
            ("cpu", "ARMv7 Processor", "setup"), ("arch", "ARMv7", "setup"),
            ("kernel", "6.1.118-2.el9.x86_64", "setup"), ("arch", "x86_64", "setup")} \
        <= set(got), got


def test_a_boot_logs_noise_names_no_setup_and_its_fields_do() -> None:
    """A driver's banner prints whether or not its device is there; DMI's memory slots,
    the placeholder of a board the device tree does not name and the BIOS memory map
    ("e820") name no machine. A bound device's link (four digits), a console's "<6>"
    level, systemd's architecture and U-Boot's bold speed do."""
    text = ("Tested on my box:\n"
            "[    1.100000] igb: Intel(R) Gigabit Ethernet Network Driver\n"
            "[    1.100000] igb: Copyright (c) 2007-2014 Intel Corporation.\n"
            "[    1.200000] ixgbe: Intel(R) 10 Gigabit PCI Express Network Driver\n"
            "[    1.210000] e1000e 0000:03:00.0 eth0: NIC Link is Up 1000 Mbps Full Duplex\n"
            "<6>[    0.000000] Hardware name: Acme Foo3 board\n"
            "[    0.000000] Hardware name: Generic DT based system\n"
            "[    0.000000] DMI: Memory slots populated: 2/4\n"
            "[    0.000000] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"
            "[    2.000000] systemd[1]: Detected architecture x86-64.\n\n"
            "U-Boot says:\nftgmac#0: link up, *100Mbps half-duplex*\n")
    got = facts(text, "Re: [PATCH] net: foo")
    assert set(got) == {("nic", "e1000e", "setup"), ("link", "1000 Mbps", "setup"),
                        ("board", "Acme Foo3 board", "setup"), ("arch", "x86-64", "setup"),
                        ("nic", "ftgmac", "setup"), ("link", "100Mbps", "setup")}, got


def test_a_cover_letters_account_of_its_parts_names_what_they_are_about() -> None:
    """ "Patch 1/2 ... for the KSZ9031" describes a part of the series; "I'm able to"
    says what the writer ran; "from what I have seen" reports reading, no machine."""
    text = ("This series enables EEE for the KSZ9131 PHY.\n\n"
            "Patch 1/2 moves the helpers the KSZ9131 code can now share with the\n"
            "KSZ9031. Patch 2/2 adds the new sequence.\n\n"
            "With this series I'm able to negotiate both 1000Mbps and 100Mbps\n"
            "links without issue.\n\n"
            "From what I have seen the sequence is the same as in the KSZ9477.\n")
    got = facts(text, "[net-next 0/2] net: phy: acme: enable EEE")
    assert ("link", "100Mbps", "setup") in got, got
    assert {("nic", "KSZ9131", "subject"), ("nic", "KSZ9031", "subject"),
            ("nic", "KSZ9477", "subject")} <= set(got), got


@pytest.mark.parametrize("line, fact", [
    # a kernel field names the tree that ran, though the subject names it as the target
    ("- Kernel: net-next (at 1a2b3c4d5e)", ("kernel", "net-next")),
    # as many sockets as CPUs; a rate over the line rate it ran on
    ("- two 16-core EPYCs, 128 GB", ("sockets", "two 16-core EPYCs")),
    ("- throughput: 9.41/10gbps", ("link", "10gbps")),
    # U-Boot's device and its index, with its bold link speed; the index in prose
    ("- ftgmac100#0: link up, *1000Mbps full-duplex*", ("nic", "ftgmac100")),
    ("- the BMC's ftgmac100#1 port to the host", ("nic", "ftgmac100")),
])
def test_a_setup_list_under_a_heading(line: str, fact: tuple[str, str]) -> None:
    got = facts("Test setup:\n" + line + "\n", "[PATCH net-next] net: acme: foo")
    assert (*fact, "setup") in got, got


@pytest.mark.parametrize("line", [
    "- Kernel: the one from my last mail",  # no version, no tree
    "- 6x 10/100Mbps Ethernet ports",  # a port's rates, no line rate
    "- 494/432 Mbit/s (download/upload)",  # two rates
])
def test_fields_and_slashes_that_name_no_kernel_or_link(line: str) -> None:
    got = facts("Test setup:\n" + line + "\n", "[PATCH net-next] net: acme: foo")
    assert not [f for f in got if f[0] in ("kernel", "link")], got


def test_an_env_field_is_a_setup_cue() -> None:
    got = facts("Env: an Intel Xeon Gold 6338 with an X710\n", "Re: [PATCH] net: i40e: foo")
    assert [f for f in got if f[2] == "setup"], got


@pytest.mark.parametrize("text, fact, role", [
    # a regression report's machine: bisected, confirmed, affected; a version that ends
    # its sentence
    ("I've bisected the stalls on my RK3399 board to one commit.\n", ("cpu", "RK3399"),
     "setup"),
    ("I've bisected it: broken since 6.9-rc1.\n", ("kernel", "6.9-rc1"), "setup"),
    ("With the fix on 6.6.30 I confirmed my BCM4345C5 works again.\n",
     ("wifi", "BCM4345C5"), "setup"),
    # a banner with its version; a bus probed; a board set against the tested one; a
    # counterfactual
    ("Tested on my box:\n[    1.200000] ixgbe: Intel(R) 10 Gigabit PCI Express Network Driver "
     "- version 5.1.0-k\n", ("nic", "ixgbe"), None),
    ("Tested on my box:\n[    1.300000] libphy: Fixed MDIO Bus: probed\n", None, None),
    ("Tested now also on an i.MX8MP EVK, with no problems like on the RK3399.\n",
     ("cpu", "RK3399"), "subject"),
    ("Tested on my box; an X710 would be valid to reproduce it too.\n", ("nic", "X710"),
     "subject"),
])
def test_regression_reports_banners_and_contrasts(text: str, fact, role) -> None:
    got = facts(text, "Re: [REGRESSION] net: stalls")
    if fact is None:
        assert not got, got
    elif role is None:
        assert not [f for f in got if f[:2] == fact], got
    else:
        assert (*fact, role) in got, got


@pytest.mark.parametrize("text, subject, fact", [
    # a spec sheet's numbered field is no host; "Support for <device>" adds a device
    ("The device:\nWLAN2: Qualcomm Atheros QCA9880 (5 GHz)\n",
     "[PATCH v2] Support for Acme AR-900 router", ("wifi", "Atheros QCA9880")),
    # a patch title's "kernel: bump ..." is no kernel field
    ("Patches:\n  kernel: bump 4.9 to 4.9.171\n  kernel: bump 4.14 to 4.14.114\n",
     "[OpenWrt-Devel] pending patches", ("kernel", "4.9")),
    # a build is no run; a driver's commit is software; what one is developing is no setup
    ("I tried to compile it with kernel 4.14 and it failed.\n", "Re: build error",
     ("kernel", "kernel 4.14")),
    ("Tested with the latest ath10k-ct commit, results to follow.\n", "Re: ath10k-ct",
     ("wifi", "ath10k-ct")),
    ("I have been working on implementing the XDP multi-buffer for i40e.\n",
     "RE: XDP multi-buffer", ("nic", "i40e")),
    # an advisory's affected releases ran nothing
    ("OpenWrt versions 18.06.0 to 18.06.7 and 19.07.0 to 19.07.2 are affected.\n",
     "OpenWrt security advisory", ("os", "OpenWrt 19.07.2")),
    # a cue in the quoted line above is the other writer's
    ("> I see the kernel code does that.\nSame as on the VRX200 SoCs.\n", "Re: lantiq: foo",
     ("cpu", "VRX200")),
])
def test_named_but_not_what_ran(text: str, subject: str, fact: tuple[str, str]) -> None:
    got = facts(text, subject)
    assert (*fact, "setup") not in got, got


@pytest.mark.parametrize("line", [
    "cpu model\t\t: MIPS 24KEc V5.0",  # a CPU's revision, no kernel
    "Depends: kernel (=4.19.85-1-f24e301b), kmod-nf-conntrack",  # a package's dependency
    " *      kernel (= 4.19.79-1-cddfa99a50fa71ae)",  # opkg's unmet dependency
    # the rest of an oops's module list, wrapped
    "[  511.127531]  async_memcpy async_pq async_xor raid6_pq libcrc32c raid1 igb i40e libahci",
])
def test_tool_lines_that_name_no_kernel_or_nic(line: str) -> None:
    got = facts("Tested on my box:\n" + line + "\n", "Re: soft lockup")
    assert not [f for f in got if f[0] in ("kernel", "nic")], got


def test_a_programs_sockets_are_no_cpu_sockets() -> None:
    got = facts("Tested on my box: two sockets with AF_XDP on one queue, 2 sockets of a 2 "
                "socket Xeon box.\n", "Re: xsk: foo")
    assert not [f for f in got if f[0] == "sockets"], got
    assert ("sockets", "2 sockets", "setup") in facts(
        "Tested on my box: a 2 sockets Xeon Gold 6338 machine.\n", "Re: foo")


def test_a_spec_list_under_a_device_adding_title_in_a_reply_is_the_device_added() -> None:
    """A reply that pastes the next version's commit message: its title adds a device, the
    spec fields under it are that device (a title "Support for ..." after "Re:" too)."""
    body = ("Thanks, fixed in the next version:\n\nramips: add Acme RX-300\n\n"
            "SoC:   MediaTek MT7621A @ 880MHz\nRAM:   128M (Nanya NT5CC64M16)\n"
            "WiFi:  MediaTek MT7603EN bgn\nWiFi:  MediaTek MT7613BE ac\nGBE:   RTL8211F\n")
    for subject in ("Re: [PATCH] ramips: fix leds", "Re: [OpenWrt-Devel] [PATCH] Support for Acme"
                    " RX-300"):
        assert not [f for f in facts(body, subject) if f[2] == "setup"], subject


@pytest.mark.parametrize("text, subject, fact, role", [
    # the card a patch adds an ID for, shown by lspci: what the patch is about
    ("This card shows up in lspci as:\n\n  02:00.0 Network controller [0280]: Qualcomm "
     "Atheros AR9462 Wireless Network Adapter (rev 01)\n",
     "[PATCH iwinfo] iwinfo: add device id for Atheros AR9462 card", ("wifi", "AR9462"),
     "subject"),
    # a firmware package's changelog names chips, nothing ran on them
    ("The firmware package now carries:\nath10k: QCA9888 hw2.0: update firmware-5.bin to "
     "10.4-3.9.0.2-00131\nath10k: QCA4019 hw1.0: update firmware-5.bin to 10.4-3.6-00140\n",
     "Re: ath10k firmware crash", ("wifi", "QCA9888"), "subject"),
    # "based on my experience": an opinion, no machine
    ("The datasheet says 20 ns, so 50 MHz on the AR9331 (based on my experience, more\n"
     "breaks reads).\n", "Re: SPI clock on ar7240", ("wifi", "AR9331"), "subject"),
    # a radio's bit rate in iwconfig is no measured value near the chip
    ("The board has two MT7615N radios:\nra0 RTWIFI SoftAP ESSID:\"lab\"\nBit Rate=600 Mb/s\n",
     "Re: [PATCH] ramips: add Acme", ("wifi", "MT7615N"), "subject"),
    # a command's output under its prompt is the machine's own
    ("and got the following on it:\n\n root@router:/# cat /proc/cpuinfo\n system type"
     "             : MediaTek MT7628AN ver:1 eco:2\n machine                 : Acme WR-800\n",
     "Re: [PATCH] ath79: add rng", ("board", "Acme WR-800"), "setup"),
])
def test_what_a_device_patch_a_changelog_or_an_opinion_names(text: str, subject: str,
                                                             fact: tuple, role: str) -> None:
    got = facts("On ath79 boards.\n" + text, subject)
    assert [r for r in got if r[:2] == fact or (r[0] == fact[0] and fact[1] in r[1])]
    assert all(r[2] == role for r in got if r[0] == fact[0] and fact[1] in r[1]), got


@pytest.mark.parametrize("text, fact", [
    # a question wrapped over two lines asks about the other writer's setup
    ("Now how many queues are you running on the veth device in your benchmarks, and how\n"
     "have you configured the RPS?\n", ("nic", "veth")),
    # what a series adds support for, for testing: development work, no setup
    ("* Added veth support for zero-copy Rx, for testing and demonstration.\n",
     ("nic", "veth")),
])
def test_a_wrapped_question_or_the_support_a_change_adds_is_no_setup(text: str,
                                                                    fact: tuple) -> None:
    got = facts(text, "Re: [PATCH net-next] net: foo")
    assert [r for r in got if r[:2] == fact], got
    assert (*fact, "setup") not in got, got


def test_a_patch_adding_a_soc_describes_it_unless_it_says_what_it_was_tested_on() -> None:
    subject = "[PATCH v3 00/12] Add new Acme AX9 SoC and Acme AX9 EVK support"
    got = facts("AX9 has a quad-core Cortex-A55 (1.2 GHz) CPU.\n\nIts firmware runs on one of "
                "the Cortex-A55 cores.\n\nThis series has been tested on a Raspberry Pi 4\n"
                "and a BeagleBone Black.\n", subject)
    assert ("cpu", "Cortex-A55", "subject") in got, got
    assert ("board", "BeagleBone Black", "setup") in got, got


def test_a_list_of_link_speeds_is_no_measured_value() -> None:
    got = facts("The MAC of the R-Car V4H connects using a\n10 Mbps, 100 Mbps, or 1 Gbps "
                "full-duplex link via RGMII.\n", "[PATCH net-next] net: rtsn: fix rx")
    assert not [r for r in got if r[2] == "setup"], got


@pytest.mark.parametrize("line, fact, role", [
    # grepped from a build file: no machine
    ("target/linux/ath79/image/generic.mk:  ATH_SOC := qca9563", ("cpu", "qca9563"), None),
    # dmesg's "SoC Type:" names the CPU, whatever the gazetteer calls the chip
    ("[    0.000000] SoC Type: MediaTek MT7688 ver:1 eco:2", ("cpu", "MT7688"), "setup"),
    # a list's slashes are no part of a name
    ("On both ipq806x (nbg6817/ QCA9984/ ath10k, WDS-AP/ WPA2PSK) it works.",
     ("wifi", "QCA9984"), "setup"),
    # the backports' own version is no kernel that ran
    ("[   10.1] Loading modules backported from Linux version v5.4.27-0-g585e0cc08069",
     ("kernel", "v5.4.27-0-g585e0cc08069"), None),
])
def test_build_files_soc_fields_lists_and_backports(line: str, fact: tuple, role) -> None:
    got = facts("Tested on my box.\n" + line + "\n", "Re: [PATCH] ath79: foo")
    if role is None:
        assert not [r for r in got if r[0] == fact[0]], got
    else:
        assert (*fact, role) in got, got


def test_a_fact_set_up_later_shows_the_line_that_made_it_a_setup() -> None:
    rows = extract_hardware("ath10k-ct was updated to match the API changes.\n\nI tested AP mode"
                            " on an IPQ4019 with ath10k-ct.\n", "[PATCH] mac80211: update")
    assert [(r.text, r.role, r.line_no) for r in rows if r.text == "ath10k-ct"] == [
        ("ath10k-ct", "setup", 3)]


def test_what_a_device_patch_says_the_device_is_based_on_is_no_setup() -> None:
    got = facts("Acme NAS-2 is a dual bay NAS, based on Marvell Armada 370\n\nHardware:\n"
                "   SoC:   Marvell 88F6707-A1\n   CPU:   Cortex-A9 1200 MHz, 1 core\n"
                "   Ethernet:    1x 10/100/1000 Mbps\n   SATA:        2x 3.0 Gbps\n"
                "   ETH:   Qualcomm QCA8075\n",
                "[PATCH] mvebu: add support for Acme NAS-2")
    assert got and not [r for r in got if r[2] == "setup"], got
