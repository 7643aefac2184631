"""Hardware read by the shape of a tool's line (lscpu, lspci, uname, sysstat, ethtool -i,
a kernel log's device line, a shell prompt) and the links, kernels, architectures and
machine sizes a regex reads on any line, with the values they are normalised to (memory
in MiB, a link in Mbit/s, a CPU without its (R) and (TM)).  A ``Fact`` is what a line
gives: its kind, its text, its value, the host the tool named and whether the line's shape
alone says it was the setup."""

from __future__ import annotations

import re
from typing import NamedTuple

from mlx.extract.document import Document
from mlx.extract.hwvocab import LKP, LSCPU, LSPCI, MEMORY_UNITS, PROMPT, UNAME, nic_tokens


class Fact(NamedTuple):
    """One fact a line gives (a tuple: lines' facts are cached and pickled by the
    thousand)."""

    kind: str  # cpu, nic, memory, kernel, os, board, ...
    text: str  # as written
    value: str | None  # normalised where it makes sense
    host: str | None  # the host a tool's prompt named
    shaped: bool  # the line's shape alone says it was the setup


MAX_LINE = 400

# "[    2.345678] renesas-gbeth 15c30000.ethernet eth0: ...": a boot log, the setup's own
TIMESTAMP = r"\[[ \t]*\d{1,6}\.\d{3,6}\]"

# (with the console's "<6>" printk level before it)
DMESG = re.compile(r"^[ \t]*(?:<\d>)?" + TIMESTAMP)

# ethtool -i's "driver: i40e"
ETHTOOL_DRIVER = re.compile(r"^[ \t]*driver:[ \t]+([a-z][\w-]{1,30})[ \t]*$")

# the wifi drivers among them ("ath10k_pci", "mt7921e"; not the switches "mt7530",
# "brcm-sf2", "rtl8365mb")
WIFI_DRIVER = re.compile(r"ath\d|iwl|mt76|mt79\d\d|rtw8|rtl8(?:1[89]|7|8)\d|brcmfmac|brcmsmac|"
                         r"mwifiex|mwl8|wl\d|rt2[58x]")

# "[ 52.7] gemini-ethernet-port 6000c000.ethernet-port eth1: link up", "mlx5_core
# 0000:08:00.0 enp8s0f0: Link up": the driver that printed of a network device, by its name
NETDEV_LOG = re.compile(r"^[ \t]*(?:" + TIMESTAMP + r"[ \t]*)?([a-z][\w-]{1,30}) "
                        r"[\w:.-]{3,40} (?:eth|lan|wan|wlan|wlp|enp|eno|ens|enx|sw)\d\w{0,12}: ")

# "2021 x86_64 GNU/Linux": the end of a uname -a line a mail client wrapped
UNAME_TAIL = re.compile(r"^[ \t]*(?:\d{4}[ \t]+)?(?:x86_64|aarch64|armv7l|mips|ppc64le|riscv64|"
                        r"i686)(?:[ \t]+GNU/Linux)?[ \t]*$")

# phylink's "eth0: phy link up sgmii/10Mbps/Half/pause/off": the speed it came up at
PHY_LINK = re.compile(r"(?i)\blink up [\w-]+/(\d{1,3}(?:\.\d)?[GM]bps)/(?:full|half)\b")

# "... both 1000Mbps and 100Mbps" / "links without issue": a link wrapped after its speed
SPEED_AT_END = re.compile(r"\d[ \t]?[GM](?:bps|bit/s|b/s)[ \t]*$")

LINK_AT_START = re.compile(r"[ \t]*(?:links?|connections?)\b")

# "03:00.0 Ethernet controller: Intel Corporation Ethernet Connection" / "X552 10 GbE SFP+":
# the rest of a wrapped product name (no field, no next device, not indented)
LSPCI_TAIL = re.compile(r"(?![0-9a-f]{2,4}:[0-9a-f]{2}[.:])[A-Za-z0-9][^:\n]{0,60}$")

# a lowercase word outside parentheses: a sentence ("With 9000 MTU it drops"), not the
# rest of a product name ("SFI/SFP+ Network Connection (rev 01)")
LOWER_WORD = re.compile(r"\b[a-z]{2,}\b")

BRACKETED = re.compile(r"\([^)]*\)|\[[^\]]*\]")

# Link is Up - 1Gbps/Full - flow control off      eth0: Link is Up 1000 Mbps Full Duplex
LINK_UP = re.compile(r"(?i)\blink is up\b[ \t-]*(\d{1,5}(?:\.\d)?[ \t]?[GM]bps)(?:/(?:full|half))?")

# "1000Mbps full duplex link", "10GBit CAT6 link", "a 25G link", "USB3.0 SuperSpeed"
LINK_WORDS = re.compile(r"(?i)\b(\d{1,4}(?:\.\d)?[ \t]?(?:[GM]bit|[GM]b|[GM]bps|GbE|G)(?:/s)?"
                        r"(?:[ \t](?:full[ -]duplex|ethernet|cat ?\d\w?))?)[ \t]+"
                        r"(?:links?|connections?)\b|"
                        # "I'm using 40G copper"
                        r"\b(\d{1,3}G[ \t](?:copper|fib(?:er|re)|DAC))\b|"
                        # "unshaped 10gigE": a link by its speed, whatever the case
                        r"\b(\d{1,3}(?:\.5)?[ \t]?gig(?:abit)?e)\b|"
                        # "a USB 3.0 link" (a USB generation alone is a bus, no network link)
                        r"\b(USB[ \t]?[23](?:\.\d)?(?:[ \t]SuperSpeed(?:\+|[ \t]Plus)?)?)"
                        r"(?=[ \t]+(?:links?|connections?)\b)")

# a kernel field's value that names a kernel: a version or a tree
KERNEL_TREE = re.compile(r"(?i)\d\.\d|\b[\w-]*next\b|\bmainline\b|\bupstream\b|\bstable\b|"
                         r"\btorvalds\b|\blinus\b")

# "9.41/10gbps": a rate over the line rate it runs on (not "494/432 Mbit/s", two rates,
# nor "10/100/1000Mbps" or "1/10G", a port's list of rates)
LINE_RATES = {"1", "2.5", "5", "10", "25", "40", "50", "100", "200", "400", "1000"}
LINE_RATE = re.compile(r"(?i)(?<![\w./])(\d{1,4}(?:\.\d{1,3})?)/"
                       r"((1|2\.5|5|10|25|40|50|100|200|400|1000)[ \t]?"
                       r"(?:[GM]bps|[GM]bit/s|[GM]b/s))"
                       r"(?![\w/])")

# a bare kernel version where a kernel is talked about: "kernel 6.1.95", "5.15.0-105-generic"
KERNEL = re.compile(
    # "kernel 6.1.95", "running net-next 6.8.0-rc1" (not "2.4 GHz", nor the version of a
    # "PPPoL2TP kernel driver, V2.0")
    r"(?i)\b(?:kernel(?![ \t]+(?:driver|module)s?\b)|linux|running|stable|lts|base(?:line)?|"
    r"net-next|mainline|tested on|reproduc(?:e|ed|es|ible)|"
    r"tested with)\b[^\n]{0,25}?"
    r"(?:(?<![\w.-])|(?<=linux-)|(?<=kernel-))"
    r"v?([2-7]\.\d{1,2}(?:\.\d{1,3})?(?:-[\w.+~-]{1,40})?)(?![\w.])"
    r"(?![ \t]?[GM]Hz)|"
    # "4.9-rc5", "v6.14" anywhere (not "cgroup-for-6.11-rc4-fixes", a merge tag, nor a
    # driver's "V2.0": a bare v-version is a kernel from v2.6 on)
    r"(?<![\w-])(v?[2-7]\.\d{1,2}(?:\.\d{1,3})?-rc\d{1,2}\+?|"
    r"(?-i:v)(?:[3-7]\.\d{1,2}|2\.6)(?:\.\d{1,3})?\+?)"  # (a CPU's "V5.0" is its revision)
    r"(?![\w-]|\.\w)|"  # (a sentence's "." may follow: "... since 6.9-rc1.")
    # distribution kernels: "5.15.0-105-generic", "5.14.0-362.el9.x86_64", "4.9.253-tegra"
    r"\b([2-7]\.\d{1,2}\.\d{1,3}-\d{1,4}-(?:generic|amd64|arm64|lowlatency|azure|aws|MANJARO|"
    r"rt\d*)|[2-7]\.\d{1,2}\.\d{1,3}-[\w.]{1,20}\.(?:el\d\w*|fc\d\d)\.\w+|"
    r"[2-7]\.\d{1,2}\.\d{1,3}-tegra|[2-7]\.\d{1,2}\.\d{1,3}-(?:bpf|net)-next)\b|"
    # "Tested kernels:" over "- 6.1.84: process exits smoothly"
    r"^[ \t]*[-*][ \t]+v?([2-7]\.\d{1,2}\.\d{1,3})(?=[ \t]*:)|"
    # "on a 6.1 kernel", "broken since 6.6", "applied to 6.12.3+": a version the sentence
    # says a kernel is
    r"(?<![\w.-])v?([3-7]\.\d{1,2}(?:\.\d{1,3})?(?:-[\w.+~-]{1,40})?)[ \t]+(?i:kernels?)\b|"
    r"(?i:\b(?:since|under|applied (?:on|to)|on top of|rebased on|against))[ \t]+"
    r"v?([3-7]\.\d{1,2}(?:\.\d{1,3})?(?:-rc\d{1,2})?\+?)(?![\w-]|\.\d)")

# "x86_64", "aarch64": a machine's architecture, not a path component
# ("arm64: dts: ..." is a patch title's prefix)
ARCH = re.compile(r"(?<![/\w-])(x86_64|aarch64|arm64|armv7l|riscv64|ppc64le|s390x)(?![/\w:-])|"
                  r"(?<=[ \t]_)(x86_64|aarch64)(?=_[ \t])")  # sysstat's "_x86_64_"

# "72C/144T", "8 cores, HT disabled", "8 CPUs": the size of a machine (with a word that
# says so: "on 2 cores the old scheme gets ..." is a run's configuration)
THREADS = re.compile(r"\b(\d{1,3}C/\d{1,3}T\b|\d{1,3}[ \t](?:cores?|CPUs|threads|vCPUs)\b"
                     r"(?=[^.]{0,40}\b(?:HT|SMT|hyper-?thread\w*|socket|NUMA|node)\b))|"
                     # "on my board with 4 Cores", "the server has 16 CPUs", dmesg's "smp:
                     # Brought up 1 node, 8 CPUs"
                     r"(?:(?<=with )|(?<=has )|(?<=node, )|(?<=nodes, ))"
                     r"(\d{1,3}[ \t](?i:cores?|cpus|threads|vcpus))\b|"
                     r"(?<=_[ \t]\()(\d{1,4}[ \t]CPU)(?=\))")  # sysstat's "_x86_64_ (8 CPU)"

# sysstat's header (mpstat, sar, iostat): "Linux 5.4.0-52-generic (host1) ... _x86_64_ (8 CPU)"
SYSSTAT = re.compile(r"^[ \t]*Linux[ \t]+([2-7]\.[\w.+~-]{1,60})[ \t]+\(([\w.-]{1,64})\)"
                     r"[^\n]{0,60}?[ \t]_(\w{3,12})_[ \t]+\((\d{1,4}[ \t]CPU)\)")

# "a 4 sockets machine", "a dual socket AMD EPYC"
# "two sockets" of a program (AF_XDP, UDP, ...): no CPU sockets
NET_SOCKETS = re.compile(r"(?i)\b(?:af_xdp|xsk|xdp|udp|tcp|raw|netlink|unix)\b")
SOCKETS = re.compile(r"(?i)\b((?:\d{1,2}|single|dual|two|quad|four|eight)[ -]sockets?)\b|"
                     # "two 16-core CPUs": as many sockets as CPUs
                     r"\b((?:[2-8]|two|four|eight)[ \t]+\d{1,3}-core[ \t]+"
                     r"(?:CPUs|processors|Xeons|EPYCs))\b")

# "root@rzv2h-evk-alpha:~#", "root@OpenWrt:~#": a prompt's host that names the board or OS
BOARD_HOST = re.compile(r"(?i)evk|devkit|zcu\d|rpi\d|raspberrypi|jetson|rk3\d{3}|bananapi|"
                        r"bpi-|orangepi|beagle|nanopi|odroid|rzv2|rzg2|rzg3|salvator|ulcb|"
                        r"apalis|colibri|verdin|stm32mp|imx\d")

OS_HOST = re.compile(r"(?i)^(?:openwrt|lede|ubuntu|debian|fedora|archlinux|alpine|centos|rocky)$")

# uname's "#28~18.04.1-Ubuntu", a "-MANJARO" kernel: the distribution that built it
KERNEL_OS = re.compile(r"~(\d{2}\.\d{2}(?:\.\d)?-Ubuntu)\b|-(MANJARO)\b")

# a model-number word: the candidates looked up in the NIC gazetteer
WORD_EDGE = str.maketrans({c: " " for c in "()[]{},;:\"'<>"})

DIGIT = re.compile(r"\d")

# "10-Gigabit" of "Intel 82599ES 10-Gigabit SFI/SFP+": a speed in a product name, no model
SPEED_WORD = re.compile(r"\d+(?:\.\d+)?-?(?:gigabit|gbe|gbit|gb|g|mbit|megabit)$")

NUMBERED_WORD = re.compile(r"(?<!\S)\S*\d\S*")  # a word with a digit in it

DASH_SLASH = re.compile(r"[-/]")

# "40G X710", "Broadcom BCM957508 200G", "2x100G ConnectX-6": a speed that names a card
NIC_SPEED = re.compile(r"(?i)\b(?:\d+x)?\d{1,3}G(?:bE)?\b")


def memory_mib(number: str, unit: str) -> str | None:
    factor = MEMORY_UNITS.get(unit.lower())
    if factor is None:
        return None
    mib = float(number) * factor
    return str(int(mib)) if mib == int(mib) else f"{mib:.1f}"


def value(kind: str, text: str) -> str | None:
    if kind in ("memory", "size"):
        m = re.search(r"(\d{1,7}(?:\.\d{1,3})?)[ \t]*([KMGT]i?B|[KMGT])\b", text)
        return memory_mib(m.group(1), m.group(2)) if m else None
    if kind == "link":
        m = re.match(r"(\d{1,4}(?:\.\d)?)[ \t]?([GM])?", text)
        if m is None:
            return text
        factor = 1 if (m.group(2) or "G").upper() == "M" else 1000
        return f"{float(m.group(1)) * factor:g} Mbit/s"
    if kind == "kernel":
        m = re.search(r"(?<![\d.])v?(\d\.\d{1,2}[\w.+~-]*)", text)  # (not 22.04's "2.04")
        return m.group(1) if m else None
    if kind == "cpu":
        return re.sub(r"\((?:R|TM|r|tm)\)", "", text).replace("  ", " ").strip()
    return text


def bare_models(text: str) -> list[Fact]:
    """NIC and wifi models written bare or lower-case, from the PCI/USB ID gazetteer."""
    tokens = nic_tokens()
    out: list[Fact] = []
    for word in NUMBERED_WORD.findall(text.translate(WORD_EDGE)):
        word = word.rstrip("./")  # (a sentence's period, a list's slash: "QCA9984/ ath10k")
        low = word.lower()
        hit = tokens.get(low) or tokens.get(DASH_SLASH.split(low, maxsplit=1)[0])
        if hit and not low.isdigit() and not SPEED_WORD.match(low):
            out.append(Fact(hit[0], word, word, None, False))
    return out


# a boot log's lines that name the machine (its fields meant for that): the board of
# "Machine model:", "DMI:" and "Hardware name:" (before its BIOS), the kernel of "Linux
# version" and of an oops's "Not tainted"/"Tainted: ..." header (and the arch its release
# ends in), the CPU and arch of arch/arm's "CPU: ... revision N (ARMv7)", the memory of
# "Memory: <a>K/<b>K available", the link of U-Boot's "ethernet@<addr>: link up, 1000Mbps"
# (not DMI's second line, "DMI: Memory slots populated: 2/4", nor the placeholder of a
# board the device tree does not name, "Hardware name: Generic DT based system")
BOOT_BOARD = re.compile(r"\b(?:Machine model|DMI(?!:[ \t]+Memory slots)|Hardware name):[ \t]+"
                        r"(?!Generic DT based system)(.+?)(?:,[ \t]*BIOS\b.*)?"
                        r"[ \t]*$")
BOOT_KERNEL = re.compile(r"\bLinux version[ \t]+([2-7]\.\d{1,2}[\w.+~-]{0,60})|"
                         r"\b(?:Not tainted|Tainted:[ \t]+[A-Z ]{1,20}?)[ \t]+"
                         r"([2-7]\.\d{1,2}[\w.+~-]{0,60})[ \t]+#")
BOOT_MEMORY = re.compile(r"\bMemory:[ \t]+\d{1,10}K/(\d{1,10})K available\b")
# arch/arm's "CPU: ARMv7 Processor [414fc0f0] revision 0 (ARMv7), cr=10c5387d"
BOOT_ARM_CPU = re.compile(r"\bCPU:[ \t]+(.{2,60}?)[ \t]+\[[0-9a-f]{8}\][ \t]+revision[ \t]+\d+"
                          r"[ \t]+\((ARMv[\w-]{1,8})\)")
# a distribution's kernel release names its arch: "6.1.106-1.el9.x86_64", "5.14.0-427.el9.aarch64"
RELEASE_ARCH = re.compile(r"\.(x86_64|aarch64|ppc64le|s390x|i686|armv7hl|riscv64)$")
UBOOT_DEVICE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?([a-z][\w-]{2,30})#\d{1,2}:[ \t]")
LINK_UP_SPEED = re.compile(r"(?i)\blink up,[ \t]+\*?(\d{1,5}[ \t]?[GM]bps)\b")  # "*1000Mbps"
# systemd's "Detected architecture x86-64." at boot
BOOT_ARCH = re.compile(r"\bDetected architecture (x86-64|x86|arm64|arm|riscv64|ppc64-le|s390x|"
                       r"mips\w{0,6}|loongarch64)\.")


def _boot_log(text: str) -> list[Fact]:
    if ":" in text and (m := BOOT_BOARD.search(text)):
        return [Fact("board", m.group(1), m.group(1), None, True)]
    if "ersion" in text or "ainted" in text:
        if m := BOOT_KERNEL.search(text):
            ver = m.group(1) or m.group(2)
            arch = RELEASE_ARCH.search(ver)
            return [Fact("kernel", ver, ver, None, True)] + (
                [Fact("arch", arch.group(1), arch.group(1), None, True)] if arch else [])
    if "revision" in text and (m := BOOT_ARM_CPU.search(text)):
        return [Fact("cpu", m.group(1), m.group(1), None, True),
                Fact("arch", m.group(2), m.group(2), None, True)]
    if "architecture" in text and (m := BOOT_ARCH.search(text)):
        return [Fact("arch", m.group(1), m.group(1), None, True)]
    if "K available" in text and (m := BOOT_MEMORY.search(text)):
        mib = memory_mib(m.group(1), "K")
        return [Fact("memory", f"{m.group(1)}K", mib, None, True)]
    if "ink up," in text and (m := LINK_UP_SPEED.search(text)):
        link = Fact("link", m.group(1), value("link", m.group(1)), None, True)
        dev = UBOOT_DEVICE.match(text)  # "ftgmac100#0: link up": U-Boot's driver and index
        return [_driver(dev.group(1)), link] if dev else [link]
    return []


def shaped(text: str) -> list[Fact]:
    """Facts from lines of a known tool's shape (they state a setup)."""
    if boot := _boot_log(text):
        return boot
    if "odel name" in text and (m := LSCPU.match(text)):
        return [Fact("cpu", m.group(1), value("cpu", m.group(1)), None, True)]
    if "controller" in text and (m := LSPCI.search(text)):
        kind = "nic" if m.group(1) == "Ethernet" else "wifi"
        return [Fact(kind, m.group(2), m.group(2), None, True)]
    if "test machine" in text and (m := LKP.search(text)):
        rows: list[Fact] = [Fact("threads", m.group(1), m.group(1), None, True)]
        if m.group(2):
            rows.append(Fact("sockets", m.group(2), m.group(2), None, True))
        cpu = m.group(3) + (f" ({m.group(4)})" if m.group(4) else "")
        rows.append(Fact("cpu", cpu, value("cpu", m.group(3)), None, True))
        rows.append(Fact("memory", f"{m.group(5)}{m.group(6)} memory",
                     memory_mib(m.group(5), m.group(6)), None, True))
        return rows
    if "Linux" in text and (m := UNAME.search(text)):
        facts: list[Fact] = [Fact("kernel", m.group(2), m.group(2), m.group(1), True)]
        if m.group(3):
            facts.append(Fact("arch", m.group(3), m.group(3), m.group(1), True))
        if os := KERNEL_OS.search(text):
            name = next(g for g in os.groups() if g)
            facts.append(Fact("os", name, name, m.group(1), True))
        return facts
    if "CPU)" in text and (m := SYSSTAT.match(text)):
        return [Fact("kernel", m.group(1), m.group(1), m.group(2), True),
                Fact("arch", m.group(3), m.group(3), m.group(2), True),
                Fact("threads", m.group(4), m.group(4), m.group(2), True)]
    if "driver:" in text and (m := ETHTOOL_DRIVER.match(text)):
        return [_driver(m.group(1))]
    if ": " in text and (m := NETDEV_LOG.match(text)):
        link = LINK_UP.search(text) or PHY_LINK.search(text)
        return [_driver(m.group(1))] + (
            [Fact("link", link.group(1), value("link", link.group(1)), None, True)] if link else [])
    if "ink is" in text and (m := LINK_UP.search(text)):
        return [Fact("link", m.group(1), value("link", m.group(1)), None, True)]
    if prompt := _prompt_platform(text):
        return prompt
    return []


def _driver(name: str) -> Fact:
    """The NIC or wifi chip a driver name stands for, as a tool printed it."""
    return Fact("wifi" if WIFI_DRIVER.match(name) else "nic", name, name, None, True)


def prompt(text: str) -> re.Match[str] | None:
    """A shell prompt at the line's start (tested only where a "#" or "$" stands)."""
    return PROMPT.match(text) if "#" in text or "$" in text else None


# "NIC: ENA with LRO", "- Board: Acme PebbleBoard One", "Hardware: c6i instances": a list's
# field whose name is a kind of hardware gives its value as a fact of that kind (up to
# " with", a comma or a parenthesis); "CPU: 3 PID: ..." (an oops), numbers and percents give
# none
KEYED = {"nic": "nic", "nics": "nic", "network card": "nic", "ethernet": "nic",
         "network adapter": "nic", "board": "board", "platform": "board", "machine": "board",
         "hardware": "board", "laptop": "board", "kernel": "kernel", "kernel version": "kernel",
         "soc": "cpu", "cpu": "cpu", "processor": "cpu", "wifi": "wifi", "wlan": "wifi"}
KEY_VALUE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?(?i:(?:test |dut |my )?("
                       + "|".join(sorted(KEYED, key=len, reverse=True)) +
                       r"))s?[ \t]*:[ \t]+([A-Za-z][\w.+/-]*(?:[ \t]+(?!with\b)[\w.+/-]+){0,4})")
# "on my Acme Foo3 board", "our PebbleBoard One platform", "breaks my ZenBook laptop": a
# product named by the speaker with what it is
MY_PRODUCT = re.compile(r"\b(?:on|with|using|in|breaks|of) (?:my|our) "
                        r"((?:[A-Z0-9][\w.+/-]*[ \t]+){1,3}?)"
                        r"(board|platform|laptop|router|dev ?kit|SBC|system|module|adapter)\b")


def keyed(text: str) -> list[Fact]:
    """A fact a line gives by its field's name, or as "my <product> board"."""
    # ("CPU: iperf3 22.5% ksoftirqd 16.6%": a utilisation per process, no processor)
    if ":" in text and (m := KEY_VALUE.match(text)) and "%" not in text[m.start(2):m.end(2) + 2]:
        val = re.split(r"[ \t]*(?:,|\(|;| with\b| on\b| and\b)", m.group(2), maxsplit=1)[0]
        kind = KEYED[m.group(1).lower()]
        # "Kernel: net-next (at 1a2b3c4d)", "Kernel: v6.8": a version or a tree, not
        # "Kernel: the one from my last mail"
        if len(val) >= 3 and not val.isdigit() and (kind != "kernel" or KERNEL_TREE.search(val)):
            return [Fact(kind, val, value(kind, val), None, False)]
    if (" my " in text or " our " in text) and (m := MY_PRODUCT.search(text)):
        name = m.group(1).strip()
        kind = {"module": "wifi", "adapter": "nic"}.get(m.group(2).lower(), "board")
        if any(c.isdigit() or c.isupper() for c in name[1:]) or len(name.split()) > 1:
            return [Fact(kind, name, name, None, False)]
    return []


def by_shape(text: str) -> list[Fact]:
    """Facts a regex reads on any line: links, kernels, architectures, core counts."""
    out: list[Fact] = keyed(text)
    for m in LINK_WORDS.finditer(text):
        if m.group(4) and "controller" in text:
            continue  # "USB controller: ... USB 3.0 xHCI": a controller, not the link
        span = m.group(1) or m.group(2) or m.group(3) or m.group(4)
        out.append(Fact("link", span, span if m.group(4) else value("link", span), None, False))
    if "/" in text:
        out += [Fact("link", m.group(2), value("link", m.group(2)), None, False)
                for m in LINE_RATE.finditer(text)
                if float(m.group(1)) < float(m.group(3)) and m.group(1) not in LINE_RATES]
    for m in KERNEL.finditer(text):
        span = next(g for g in m.groups() if g).rstrip(".")
        out.append(Fact("kernel", span, span, None, False))
        if os := KERNEL_OS.search(span):
            name = next(g for g in os.groups() if g)
            out.append(Fact("os", name, name, None, False))
    for m in ARCH.finditer(text):
        span = m.group(1) or m.group(2)
        out.append(Fact("arch", span, span, None, False))
    for m in THREADS.finditer(text):
        span = next(g for g in m.groups() if g)
        out.append(Fact("threads", span, span, None, False))
    if not NET_SOCKETS.search(text):
        for m in SOCKETS.finditer(text):
            span = m.group(1) or m.group(2)
            out.append(Fact("sockets", span, span, None, False))
    return out


def _prompt_platform(text: str) -> list[Fact]:
    """The board or OS a shell prompt's host names ("root@OpenWrt:~# iperf3 -c ...")."""
    m = prompt(text)
    if m is None:
        return []
    host = m.group(1)
    if OS_HOST.match(host):
        return [Fact("os", host, host, None, True)]
    if BOARD_HOST.search(host):
        return [Fact("board", host, host, None, True)]
    return []


def unwrapped(doc: Document, i: int, text: str) -> str:
    """Line ``i`` with the next one joined where a mail client wrapped a tool's line: a
    boot log's "Link is Up -", a uname line before its arch, lspci's product name, a
    speed before "links"."""
    if i + 1 >= len(doc) or doc.depth(i + 1) != doc.depth(i):
        return text
    after = doc.text(i + 1)
    if len(after) > MAX_LINE:
        return text
    if text.rstrip().endswith("Link is Up -") or ("Linux" in text and UNAME_TAIL.match(after)) \
            or (SPEED_AT_END.search(text) and LINK_AT_START.match(after)) \
            or ("controller" in text and not text.rstrip().endswith((")", "]"))
                and LSPCI_TAIL.match(after) and not LOWER_WORD.search(BRACKETED.sub("", after))
                and LSPCI.search(text)):
        return text.rstrip() + " " + after.strip()
    return text


def without_nic_speeds(facts: list[Fact], text: str) -> list[Fact]:
    """A link speed written in a NIC's name is that NIC's, not the setup's link."""
    nics = [f.text for f in facts if f.kind == "nic"]
    if not nics:
        return facts
    out = []
    for f in facts:
        if f.kind == "link" and not re.search(re.escape(f.text) + r"[ \t]+(?:link|connection)\b",
                                            text) and any(
                re.search(re.escape(f.text) + r"[ \t]+" + re.escape(n), text) or
                re.search(re.escape(n) + r"[ \t]+" + re.escape(f.text), text) for n in nics):
            continue
        out.append(f)
    return out
