"""Hardware and test setup: CPUs, NICs, wifi chips, memory, kernels, OSes, boards, links.

One row per fact and message (``count`` says how often it was named), with a
``role``: ``setup`` where the message says something ran or was measured on it (a
host line such as ``Client: ... NIC I350``, ``Tested on ...``, lscpu, lspci,
``uname -a``, a kernel test robot's ``test machine:``, a dmesg ``Link is Up``, or
hardware named near measured values), ``subject`` where it is what the patch is
about or merely named.  Lines of a known tool's shape are read by regexes, the
rest by token patterns (``mlx.extract.hwvocab``, held by the span ruler of spaCy's
hardware pipeline, ``mlx.extract.nlp``); a NIC or wifi model
written bare (``i211``, ``x550-T2``) is looked up in the PCI/USB ID gazetteer.
Nothing is read from diff hunks (a driver patch adding ``I210`` to a PCI table
states no setup), trailers, ``Fixes:``, headers quoted in the body, URLs, paths
or build-bot branch names (``...next-queue.git 40GbE``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

from mlx.extract.document import PREFILTERS, Document, Line
from mlx.extract.document import head as body_head
from mlx.extract.hwvocab import (
    BODY_HW,
    FIELDS,
    HOST_PREFIX,
    LKP,
    LSCPU,
    LSPCI,
    MAKERS,
    MEMORY_UNITS,
    PROMPT,
    STRONG,
    STRONG_LOWER,
    UNAME,
    WEAK_WORDS,
    literal_head,
    nic_tokens,
    platform_phrases,
)
from mlx.extract.nlp import hardware_entities
from mlx.rows import HardwareRow
from mlx.subjects import parse_subject
from mlx.text import TextCache, Words, matched_at

# what makes a message worth reading for its setup besides a strong word: measured
# values, or a line that says what something ran on (plain substrings: C speed)
SETUP_WORDS = ("ested on", "ested with", "est setup", "estbed", "DUT", "Link is Up", "uname",
               "lspci", "lscpu", "bits/sec", "10^6bits", "Trans/s", "running on", "my box",
               "my machine", "est platform", "est machine", "erified on", "eproduced on",
               ":~#", ":~$", "_x86_64_", "_aarch64_")
# "3.5 Mpps", "940 Mbps": a rate written by hand (tested only where "ps" stands at all)
RATE = re.compile(r"\d[ \t]?[kKmMG][bp]ps\b")
# "Tested on", "on my box", "Client:", "DUT": words that say a line describes a setup
SETUP_CUE = re.compile(r"(?i)\btest(?:ed|ing|s)?\b|\bsetup\b|\btest ?bed\b|\bdut\b|"
                       r"\b(?:on|using|with) (?:my|our|two|both)\b|"
                       r"\brunning (?:on|a|an|the|linux|kernel)\b|"
                       r"\b(?:verified|reproduc(?:e|ed)|tried|checked) (?:\w+ ){0,3}on\b|"
                       r"\bi (?:have|use|used|ran|run|tested|see|saw|get|got|tried)\b|"
                       r"\bmy (?:machine|box|host|server|client|router|laptop|board|system|"
                       r"setup|nic|card|cpu|test)|\bwe (?:use|used|ran|run|tested)\b|"
                       r"\b(?:cpu|nic|memory|ram|kernel|os|distro|hardware|platform)\s*:|"
                       r"\bbench(?:mark)?(?:ed|s|ing)?\b|\bmeasur\w*|\bresults?\b|"
                       # ("I'm running into i40e rx_dropped ...": the reporter's NIC)
                       r"\b(?:i|we)(?:'m| am|'re| are) (?:using|running|testing)\b|"
                       # "the 5.5.0-rc3 branch I've been working with", "a 'debian-11.1' rootfs"
                       r"\b(?:i|we)(?:'ve| have) been (?:using|running|testing|"
                       r"working (?:with|on))\b|"
                       r"\b(?:with|on|in|using) an? ['\"]?[\w.-]+['\"]? rootfs\b|\brootfs is\b|"
                       # "This is using 4.9-rc5 as a baseline" (not "... using the mlx5 helper")
                       r"\b(?:this|it) (?:is|was) (?:using|running) (?:kernel |linux |v)?\d")
# "The environment is as follows:", "Test setup:", "Hardware used:": a list of a setup
# ("Description for what hardware this is:" heads a board file's description: no test)
SETUP_HEAD = re.compile(r"(?i)^.{0,80}\b(?:setup|set-up|environment|test ?bed|dut|"
                        r"hardware (?:used|setup)|(?:test|my|our) (?:hardware|box|machine|"
                        r"system|platform|rig)s?|tested (?:on|with))\b[^:]{0,40}:[ \t]*$|"
                        # "Config:" alone (not "drop this from the board config:")
                        r"^[ \t]*(?:test |my |our )?config(?:uration)?[ \t]*:[ \t]*$")
# "These patches have been tested on the RZ/V2N EVK": the chip of the title, tested on
TESTED_ON = re.compile(r"(?i)\b(?:tested|verified|validated)\b[^.;]{0,40}?\b(?:on|with|using)\b")
# phylib's "attached PHY driver [Microchip KSZ9131 Gigabit PHY] (irq=POLL)", a driver's
# "starfive-dwmac 10020000.ethernet eth0: ...": a kernel log's lines, without timestamps
KERNEL_LOG = re.compile(r"\bPHY driver \[|\][ \t]*\((?:mii_bus:phy_addr=\S+,[ \t]*)?"
                        r"irq=(?:POLL|-?\d+)\)|^[ \t]*[a-z][\w-]+ [0-9a-f]{4,}\.[\w-]+"
                        r"(?:[ \t]+\w+)?:[ \t]")
# a measured value on a line: a setup named near it is what it ran on
# (a port's speed in a spec sheet, "5x 10/100 Mbps Ethernet", is no measurement)
MEASURED = re.compile(r"\d[ \t]?(?:[KMGT]?bits/sec|[kKmMG]pps|[Tt]rans/s|10\^6bits)|"
                      r"\b(?:sender|receiver)[ \t]*$|TEST from|"
                      r"\d[ \t]?[KMG](?:bps|bit/s|b/s)\b(?![ \t]*(?i:ethernet|link|port|nic|switch|"
                      r"wan|lan|phy|full|half|/))")
# a patch's title in a cover letter or a pull request names what the patch is about
# ("ramips: remove wan_mac setup ...": a lowercase subsystem, then a lowercase verb)
TITLE_LINE = re.compile(r"^[ \t]*(?:\[?\d+/\d+\]?[ \t]+)?(?:[0-9a-f]{7,40}[ \t]+)?"
                        r"([a-z0-9][\w./-]{1,30}): "
                        r"(?:[\w./-]{2,30}: )*(?:[a-z]{2,}|[A-Z][a-z]+)\b")
# a test only planned, offered, denied or compiled: nothing ran on what the line names
PLANNED = re.compile(r"(?i)\b(?:would like to|want to|plan(?:ning)? to|going to|will (?:test|try)|"
                     r"I'll (?:test|try|only test)|can set ?up|could test|don't have|do not have|"
                     r"haven't|have no|no idea|not (?:yet )?tested|untested|compile[- ]tested|"
                     r"build[- ]tested|only (?:built|compiled)|would be happy|other tests|"
                     # "If further testing is required, I have a Unifi AC Mesh at hand":
                     # an offer to test (not "the X710 I had at hand: 9.4 Gbits/sec")
                     r"if (?:further |more )?test(?:ing|s)? (?:is|are) (?:needed|required|wanted)|"
                     r"(?:can|could) test (?:it |this |that )?if (?:needed|required|you want))\b")
# "I will apply this for Linux 5.18-rc1": the release a patch goes to, no kernel that ran
APPLY_FOR = r"(?i)\bapply (?:it|this|them|these)\b[^.;]{0,20}?\b(?:for|to|on)\b[^.;]{0,12}?"
# "the ath10k firmware", "ath10k driver sources": software named after a chip or driver
SOFTWARE_AFTER = (r"(?:-ct)?(?:[ \t]+driver)?(?:[ \t]+\w*\d\w*)?[ \t]+(?:firmware|sources?|code|"
                  r"tree|git|repo(?:sitory)?|patchwork|patches|mailing list)\b")
# "OpenWrt documentation", "the Debian style", "builds cleanly on Debian bookworm": the
# project or a build platform named, no machine that ran anything
PROJECT_AFTER = (r"[ \t]+(?:documentation|docs|wiki|logo|members?|project|community|"
                 r"developers?|devs|team|style|policy|forum|mailing list|maintainers?|"
                 r"naming)\b")
BUILDS_ON = r"\bbuilds? (?:cleanly |fine |ok )?(?:on|for|with) "
# "RHEL won't make updates", "Fedora ships 1.8.9", "In Debian bullseye we have 0.9.8":
# a distribution as a product, its policy or what it ships (not "Fedora 39 doesn't boot")
AS_PRODUCT = r"(?:[ \t]+[\d.]+)?[ \t]+(?:won't|will not|ships|provides)\b"
# "an IPQ40xx device": a target's name for one machine it runs on (not "ath79 device
# tree", "ramips boards")
TARGET_AS_HARDWARE = r"[ \t]+(?:device|board|router)\b(?![ \t]+tree)"
# OpenWrt's build targets: named everywhere on its list, a setup only where a line says so
OPENWRT_TARGETS = {"ar71xx", "ath79", "ramips", "lantiq", "mvebu", "ipq40xx", "ipq806x",
                   "mediatek", "bcm27xx", "bcm53xx", "imx6", "imx", "kirkwood", "octeon",
                   "mpc85xx", "sunxi", "rockchip", "layerscape", "realtek", "x86"}
# lspci's product strings: a speed in them is part of the name ("X722 for 10GbE SFP+")
PRODUCT_STRING = re.compile(r"\b(?:Ethernet|Network) (?:controller|Connection)\b|"
                            r"^[ \t]*Subsystem:")
# an OS name that is none: the DMI string of a kernel's "Hardware name:" line (a virtual
# machine's type), and the host field of a syslog line ("Mar 06 14:26:57 fedora kernel:")
NOT_AN_OS = re.compile(r"\bHardware name:.*|^[ \t]*[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ |"
                       # "gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)": who built gcc
                       r"\bgcc (?:version )?[\d.]+ \([^)]*")
# "build test (on ramips)", "a self-compiled SDK for ath79", "ar71xx files": a target
# built, its tooling or its sources, nothing run on a machine
BUILD_WORD = r"\b(?:build\w*|built|compil\w*|sdk|imagebuilder|buildroot)\b"
BUILT_AFTER = (r"(?:/\w+)?(?:[ \t]+[\w./-]+){0,3}?[ \t]+"
               r"(?:files?|sources?|dts|builds?|sdk|images?|project|tree|repo\w*)\b")
# a patch adding a device or board, and the lines of its spec list
DEVICE_SUPPORT = re.compile(r"\badd(?:s|ing)?\b.{0,40}\b(?:support|device|board|dts|dtsi)\b|"
                            r"\b(?:ramips|ath79|ar71xx|ipq40xx|ipq806x|mediatek|mvebu|lantiq|"
                            r"bcm27xx|bcm53xx|realtek|kirkwood|octeon|x86|imx6?):[ \t]+add\b")
# "SoC: Qualcomm Atheros QCA956X ver 1 rev 0" (dmesg), "SoC: MediaTek MT7621A"
# router SoCs that the PCI/USB ID databases list for their built-in radio: QCA95xx,
# AR934x/AR724x/AR913x, MT7620/MT7621/MT7628/MT7688 ("MT7615" and "AR9380" are radios)
SOC_CHIP = re.compile(r"(?i)\b(?:QCA95\d\d|AR934\d|AR724\d|AR913\d|MT762[018]\w{0,2}|MT7688)\b")
SOC_LABEL = re.compile(r"(?i)\bSoC[ \t]*[:=][ \t]*(?:[\w-]+[ \t]+){0,2}$")
SPEC_FIELD = re.compile(r"(?i)^[ \t]*[-*]?[ \t]*(?:SoC|CPU|RAM|DRAM|Memory|Flash|NAND|NOR|WiFi|"
                        r"WLAN|Wireless|Ethernet|Switch|Ports?|USB|LEDs?|Buttons?|Radio\w*|"
                        r"Serial|UART|Power|Antennas?|PHY)[ \t]*"
                        r"(?:[\d.]+[ \t]?[GM]Hz[ \t]*|\d[ \t]*)?[:=]")  # "WiFi 2.4GHz:", "WIFI0:"
# "Specifications:": the lines under it describe a device a patch supports
SPEC_HEAD = re.compile(r"(?i)^[ \t]*(?:specifications?|specs|hardware specs?|features)"
                       r"[ \t]*:?[ \t]*$|"
                       # "The detailed specifications are:", "Hardware specs of the Foo:"
                       # (not "My test box specs:", which lists a setup)
                       r"^(?!.*\b(?:my|our|test\w*|bench\w*)\b).{0,60}\b(?:specifications?|specs)"
                       r"(?:[ \t]+(?:are|is|of\b.{0,40}))?[ \t]*:[ \t]*$")
# "[    2.345678] renesas-gbeth 15c30000.ethernet eth0: ...": a boot log, the setup's own
TIMESTAMP = r"\[[ \t]*\d{1,6}\.\d{3,6}\]"
DMESG = re.compile(r"^[ \t]*" + TIMESTAMP)
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
# a sentence of a build test that goes on to the next line
BUILT_FOR = re.compile(r"(?i)\b(?:compile|build|cross-compile)[- ]?tested\b[^.:()]*\b(?:for|on)"
                       r"[ \t]*$")
# three lowercase words in a row: a sentence, no product name's rest
PROSE = re.compile(r"\b[a-z]+ [a-z]+ [a-z]+\b")
# lsusb's "Bus 001 Device 003: ID 07d1:3c0a D-Link System DWA-140 ...": a device plugged in
LSUSB = re.compile(r"^[ \t]*Bus \d{3} Device \d{3}: ID [0-9a-f]{4}:[0-9a-f]{4}\b")
# lines that state no setup: trailers, quoted headers, links, paths, build bots
NOT_SETUP = re.compile(r"^[ \t]*(?:[\w-]+-by|Fixes|Link|Closes|Cc|To|From|Subject|Date|"
                       r"Message-I[Dd]|In-Reply-To|References|tree|branch|head|commit|config|"
                       r"compiler|reproduce)[ \t]*:|https?://|git://|\.git\b|branch HEAD|"
                       r"Modules linked in|root hub|Linux Foundation|Host bridge|PCI bridge|"
                       # "Applied to ath-next, thanks.", "the ath10k tree": where a patch goes
                       r"^[ \t]*(?:Patch(?:es)? )?[Aa]pplied\b|^[ \t]*Applying:|\|[ \t]*grep\b|"
                       # a forwarded message's headers in other languages
                       r"^[ \t]*(?:Para|Von|Envoy[ée]|Enviado|Asunto|Betreff|Objet|Oggetto)[ \t]*:|"
                       r"\bcommit:[ \t]+[0-9a-f]{7,40}\b|"
                       # a robot's "[cannot apply to v5.3-rc3 ...]"; a compiler's version
                       # string "gcc (Ubuntu 4.8.4-2ubuntu1~14.04.4) 4.8.4"
                       r"\bcannot apply to\b|\bgcc (?:version )?\(|"
                       # the stable bot's "has tested the following trees: v5.2.13, ..." and
                       # "v4.14.142: Failed to apply!"; lspci -vv's "Capabilities: [70] ..."
                       r"\btested the following trees\b|^[ \t]*v\d+\.\d+(?:\.\d+)?:[ \t]+"
                       r"(?:Build OK|Failed to apply)|^[ \t]*Capabilities:[ \t]+\[|"
                       r"\b(?:git|[\w-]+-next|ath1\dk|ath|wireless|net) tree\b|"
                       r"\b\d[TR]\d[TR]\b|"
                       r"(?:^|[ \t(])(?:drivers|arch|net|include|tools|Documentation|firmware)"
                       r"/[\w/.-]+|\bCC \[M\]|^[ \t]*(?:LD|CC|AR)[ \t]")
# Link is Up - 1Gbps/Full - flow control off      eth0: Link is Up 1000 Mbps Full Duplex
LINK_UP = re.compile(r"(?i)\blink is up\b[ \t-]*(\d{1,3}(?:\.\d)?[ \t]?[GM]bps)(?:/(?:full|half))?")
# "1000Mbps full duplex link", "10GBit CAT6 link", "a 25G link", "USB3.0 SuperSpeed"
LINK_WORDS = re.compile(r"(?i)\b(\d{1,4}(?:\.\d)?[ \t]?(?:[GM]bit|[GM]b|[GM]bps|GbE|G)(?:/s)?"
                        r"(?:[ \t](?:full[ -]duplex|ethernet|cat ?\d\w?))?)[ \t]+"
                        r"(?:links?|connections?)\b|"
                        # "I'm using 40G copper"
                        r"\b(\d{1,3}G[ \t](?:copper|fib(?:er|re)|DAC))\b|"
                        r"\b(USB[ \t]?[23](?:\.\d)?(?:[ \t]SuperSpeed(?:\+|[ \t]Plus)?)?)\b")
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
    r"v(?:[3-7]\.\d{1,2}|2\.6)(?:\.\d{1,3})?\+?)"
    r"(?![\w.-])|"
    # distribution kernels: "5.15.0-105-generic", "5.14.0-362.el9.x86_64", "4.9.253-tegra"
    r"\b([2-7]\.\d{1,2}\.\d{1,3}-\d{1,4}-(?:generic|amd64|arm64|lowlatency|azure|aws|MANJARO|"
    r"rt\d*)|[2-7]\.\d{1,2}\.\d{1,3}-[\w.]{1,20}\.(?:el\d\w*|fc\d\d)\.\w+|"
    r"[2-7]\.\d{1,2}\.\d{1,3}-tegra|[2-7]\.\d{1,2}\.\d{1,3}-(?:bpf|net)-next)\b|"
    # "Tested kernels:" over "- 6.1.84: process exits smoothly"
    r"^[ \t]*[-*][ \t]+v?([2-7]\.\d{1,2}\.\d{1,3})(?=[ \t]*:)")
# "x86_64", "aarch64": a machine's architecture, not a path component
# ("arm64: dts: ..." is a patch title's prefix)
ARCH = re.compile(r"(?<![/\w-])(x86_64|aarch64|arm64|armv7l|riscv64|ppc64le|s390x)(?![/\w:-])|"
                  r"(?<=[ \t]_)(x86_64|aarch64)(?=_[ \t])")  # sysstat's "_x86_64_"
# "72C/144T", "8 cores, HT disabled", "8 CPUs": the size of a machine (with a word that
# says so: "on 2 cores the old scheme gets ..." is a run's configuration)
THREADS = re.compile(r"\b(\d{1,3}C/\d{1,3}T\b|\d{1,3}[ \t](?:cores?|CPUs|threads|vCPUs)\b"
                     r"(?=[^.]{0,40}\b(?:HT|SMT|hyper-?thread\w*|socket|NUMA|node)\b))|"
                     r"(?<=with )(\d{1,3}[ \t](?:cores?|CPUs|threads|vCPUs))\b|"
                     r"(?<=_[ \t]\()(\d{1,4}[ \t]CPU)(?=\))")  # sysstat's "_x86_64_ (8 CPU)"
# sysstat's header (mpstat, sar, iostat): "Linux 5.4.0-52-generic (host1) ... _x86_64_ (8 CPU)"
SYSSTAT = re.compile(r"^[ \t]*Linux[ \t]+([2-7]\.[\w.+~-]{1,60})[ \t]+\(([\w.-]{1,64})\)"
                     r"[^\n]{0,60}?[ \t]_(\w{3,12})_[ \t]+\((\d{1,4}[ \t]CPU)\)")
# "a 4 sockets machine", "a dual socket AMD EPYC"
SOCKETS = re.compile(r"(?i)\b((?:\d{1,2}|single|dual|two|quad|four|eight)[ -]sockets?)\b")
# "root@rzv2h-evk-alpha:~#", "root@OpenWrt:~#": a prompt's host that names the board or OS
BOARD_HOST = re.compile(r"(?i)evk|devkit|zcu\d|rpi\d|raspberrypi|jetson|rk3\d{3}|bananapi|"
                        r"bpi-|orangepi|beagle|nanopi|odroid|rzv2|rzg2|rzg3|salvator|ulcb|"
                        r"apalis|colibri|verdin|stm32mp|imx\d")
OS_HOST = re.compile(r"(?i)^(?:openwrt|lede|ubuntu|debian|fedora|archlinux|alpine|centos|rocky)$")
# uname's "#28~18.04.1-Ubuntu", a "-MANJARO" kernel: the distribution that built it
KERNEL_OS = re.compile(r"~(\d{2}\.\d{2}(?:\.\d)?-Ubuntu)\b|-(MANJARO)\b")
# a model-number word: the candidates looked up in the NIC gazetteer
WORD_EDGE = str.maketrans({c: " " for c in "()[]{},;:\"'<>"})
MAX_LINE = 400
NEAR_LINES = 8  # hardware this close to a measured value is what it was measured on
WINDOW = 6  # lines around a strong word read for the rest of a setup block




Fact = tuple[str, str, str | None, str | None, bool]  # kind, text, value, host, shaped


def memory_mib(number: str, unit: str) -> str | None:
    factor = MEMORY_UNITS.get(unit.lower())
    if factor is None:
        return None
    mib = float(number) * factor
    return str(int(mib)) if mib == int(mib) else f"{mib:.1f}"


def _value(kind: str, text: str) -> str | None:
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
        m = re.search(r"v?(\d\.\d{1,2}[\w.+~-]*)", text)
        return m.group(1) if m else None
    if kind == "cpu":
        return re.sub(r"\((?:R|TM|r|tm)\)", "", text).replace("  ", " ").strip()
    return text


# every prefilter word, by what it tells: "setup" (SETUP_WORDS), "rate" ("pps", "bps": a
# RATE may stand), "lower" (STRONG_LOWER) and "strong" (the plain start of each STRONG
# pattern: BODY_HW may match)
STRONG_TAGS = {"lower": STRONG_LOWER, "strong": [literal_head(p) for p in STRONG]}
PREFILTER = Words({"setup": SETUP_WORDS, "rate": ("pps", "bps"), **STRONG_TAGS}, PREFILTERS)


def _reading(head: str, hits: dict[str, list[int]]) -> str | None:
    """How much of a body to read: "deep" (every own line: a setup is described or values
    measured), "strong" (only lines naming hardware by a strong word), or None."""
    # a RATE match ends with the "bps"/"pps" found, 4 or 5 characters after its digit
    if "setup" in hits or matched_at(RATE, head, hits.get("rate", ()), (4, 5)):
        return "deep"
    if "lower" in hits or _confirmed(head, hits.get("strong", ())):
        return "strong"
    return None


# a BODY_HW match starts with a STRONG pattern's literal head: one of these before its end
HEADS = frozenset(literal_head(p) for p in STRONG)
HEAD_BACKS = sorted({len(head) - 1 for head in HEADS})


def _confirmed(text: str, ends: Iterable[int]) -> list[int]:
    """The ends of the literal heads found where a BODY_HW match starts (at that head)."""
    return matched_at(BODY_HW, text, ends, HEAD_BACKS, HEADS)


# substrings of the shapes read by regex (links, kernels, architectures, machine sizes)
SHAPE_WORDS = ("ink is", " link", "USB", "_64", "arch64", "arm64", "ernel", "inux", "-rc",
               " v5.", " v6.", " v4.", "driver:", "eproduc", "bps", "cores", "CPUs", "threads",
               "C/", "socket", " connection",
               " copper", " fib", " DAC", "ested on", "ested with", "-next", "- 2.", "- 3.",
               "- 4.", "- 5.", "- 6.", " CPU)")


# the same words over a Document's text (no-break spaces replaced, wraps joined), with
# the words that make a line worth reading by shape (SHAPE_WORDS) or under a host line
# (WEAK_WORDS), on a scanner of their own: the shared one keeps the head for the next
# extractor
LINE_WORDS = Words({**STRONG_TAGS, "shape": SHAPE_WORDS, "weak": WEAK_WORDS})


def _line_words(text: str) -> dict[str, set[int]]:
    """Indexes of the lines a strong word (BODY_HW or STRONG_LOWER), a shape word, a weak
    word, a platform word and a gazetteer model stand on, by "strong", "shape", "weak",
    "platform" and "model" (the last two as substrings of the lowercased text)."""
    hits = LINE_WORDS.hits(text)
    ends = {"strong": hits.get("lower", []), "shape": hits.get("shape", []),
            "weak": hits.get("weak", [])}
    if "strong" in hits:
        ends["strong"] = ends["strong"] + _confirmed(text, hits["strong"])
    lowered = text.lower()
    lower_hits = _lower_words().hits(lowered)
    return {**_lines_at(text, ends), **_lines_at(lowered, {
        "platform": lower_hits.get("platform", []), "model": lower_hits.get("model", [])})}


def _lines_at(text: str, ends: dict[str, list[int]]) -> dict[str, set[int]]:
    """The index of the line each position stands on, by tag."""
    out: dict[str, set[int]] = {tag: set() for tag in ends}
    line, prev = 0, 0
    for pos, tag in sorted((pos, tag) for tag, at in ends.items() for pos in at):
        line += text.count("\n", prev, pos)
        prev = pos
        out[tag].add(line)
    return out


@cache
def _lower_words() -> Words:
    return Words({"platform": platform_words(), "model": nic_tokens()})


DIGIT = re.compile(r"\d")
# "10-Gigabit" of "Intel 82599ES 10-Gigabit SFI/SFP+": a speed in a product name, no model
SPEED_WORD = re.compile(r"\d+(?:\.\d+)?-?(?:gigabit|gbe|gbit|gb|g|mbit|megabit)$")
NUMBERED_WORD = re.compile(r"(?<!\S)\S*\d\S*")  # a word with a digit in it
DASH_SLASH = re.compile(r"[-/]")


def _bare_models(text: str) -> list[Fact]:
    """NIC and wifi models written bare or lower-case, from the PCI/USB ID gazetteer."""
    tokens = nic_tokens()
    out: list[Fact] = []
    for word in NUMBERED_WORD.findall(text.translate(WORD_EDGE)):
        low = word.lower().rstrip(".")
        hit = tokens.get(low) or tokens.get(DASH_SLASH.split(low, maxsplit=1)[0])
        if hit and not low.isdigit() and not SPEED_WORD.match(low):
            out.append((hit[0], word.rstrip("."), word.rstrip("."), None, False))
    return out


def _shaped(text: str) -> list[Fact]:
    """Facts from lines of a known tool's shape (they state a setup)."""
    if "odel name" in text and (m := LSCPU.match(text)):
        return [("cpu", m.group(1), _value("cpu", m.group(1)), None, True)]
    if "controller" in text and (m := LSPCI.search(text)):
        kind = "nic" if m.group(1) == "Ethernet" else "wifi"
        return [(kind, m.group(2), m.group(2), None, True)]
    if "test machine" in text and (m := LKP.search(text)):
        rows: list[Fact] = [("threads", m.group(1), m.group(1), None, True)]
        if m.group(2):
            rows.append(("sockets", m.group(2), m.group(2), None, True))
        cpu = m.group(3) + (f" ({m.group(4)})" if m.group(4) else "")
        rows.append(("cpu", cpu, _value("cpu", m.group(3)), None, True))
        rows.append(("memory", f"{m.group(5)}{m.group(6)} memory",
                     memory_mib(m.group(5), m.group(6)), None, True))
        return rows
    if "Linux" in text and (m := UNAME.search(text)):
        facts: list[Fact] = [("kernel", m.group(2), m.group(2), m.group(1), True)]
        if m.group(3):
            facts.append(("arch", m.group(3), m.group(3), m.group(1), True))
        if os := KERNEL_OS.search(text):
            name = next(g for g in os.groups() if g)
            facts.append(("os", name, name, m.group(1), True))
        return facts
    if "CPU)" in text and (m := SYSSTAT.match(text)):
        return [("kernel", m.group(1), m.group(1), m.group(2), True),
                ("arch", m.group(3), m.group(3), m.group(2), True),
                ("threads", m.group(4), m.group(4), m.group(2), True)]
    if "driver:" in text and (m := ETHTOOL_DRIVER.match(text)):
        return [_driver(m.group(1))]
    if ": " in text and (m := NETDEV_LOG.match(text)):
        link = LINK_UP.search(text) or PHY_LINK.search(text)
        return [_driver(m.group(1))] + (
            [("link", link.group(1), _value("link", link.group(1)), None, True)] if link else [])
    if "ink is" in text and (m := LINK_UP.search(text)):
        return [("link", m.group(1), _value("link", m.group(1)), None, True)]
    if prompt := _prompt_platform(text):
        return prompt
    return []


def _driver(name: str) -> Fact:
    """The NIC or wifi chip a driver name stands for, as a tool printed it."""
    return ("wifi" if WIFI_DRIVER.match(name) else "nic", name, name, None, True)


def _prompt(text: str) -> re.Match[str] | None:
    """A shell prompt at the line's start (tested only where a "#" or "$" stands)."""
    return PROMPT.match(text) if "#" in text or "$" in text else None


def _by_shape(text: str) -> list[Fact]:
    """Facts a regex reads on any line: links, kernels, architectures, core counts."""
    out: list[Fact] = []
    for m in LINK_WORDS.finditer(text):
        if m.group(3) and "controller" in text:
            continue  # "USB controller: ... USB 3.0 xHCI": a controller, not the link
        span = m.group(1) or m.group(2) or m.group(3)
        out.append(("link", span, span if m.group(3) else _value("link", span), None, False))
    for m in KERNEL.finditer(text):
        span = next(g for g in m.groups() if g).rstrip(".")
        out.append(("kernel", span, span, None, False))
        if os := KERNEL_OS.search(span):
            name = next(g for g in os.groups() if g)
            out.append(("os", name, name, None, False))
    for m in ARCH.finditer(text):
        span = m.group(1) or m.group(2)
        out.append(("arch", span, span, None, False))
    for m in THREADS.finditer(text):
        span = next(g for g in m.groups() if g)
        out.append(("threads", span, span, None, False))
    for m in SOCKETS.finditer(text):
        out.append(("sockets", m.group(1), m.group(1), None, False))
    return out


def _prompt_platform(text: str) -> list[Fact]:
    """The board or OS a shell prompt's host names ("root@OpenWrt:~# iperf3 -c ...")."""
    m = _prompt(text)
    if m is None:
        return []
    host = m.group(1)
    if OS_HOST.match(host):
        return [("os", host, host, None, True)]
    if BOARD_HOST.search(host):
        return [("board", host, host, None, True)]
    return []


CANDIDATE_TAGS = ("platform", "model", "shape")


def _candidate(text: str, tags: set[str]) -> str | None:
    """How a line without a strong word may name hardware: "words" (the span ruler reads it),
    "shape" (only the shape regexes: a kernel, a link), or None. Cheapest tests first;
    ``tags`` are the line's ``_line_words``: a word test needs its substring there."""
    if "platform" in tags:
        words = set(text.lower().translate(WORD_EDGE).split())
        if not words.isdisjoint(platform_words()) or \
                not {w.split("-")[0] for w in words if "-" in w}.isdisjoint(platform_words()):
            return "words"  # "Dell XPS 13", "a 'debian-11.1' rootfs"
    if "model" in tags and DIGIT.search(text) and _bare_models(text) or "virtio" in text:
        return "words"  # (and "virtio NICs")
    if _prompt(text):
        return "shape"  # a shell prompt may name the board
    return "shape" if "shape" in tags else None


def extract_hardware(body: str | None, subject: str | None = None) -> list[HardwareRow]:
    """Every hardware fact a body names, once per message, with its host and role."""
    if not body:
        return []
    head = body_head(body)
    mode = _reading(head, PREFILTER.hits(head))
    if mode is None:
        return []
    doc = Document.of(head)
    words = _line_words("\n".join(line.text for line in doc.lines))
    strong = words["strong"]
    # a strong word's paragraph is read too: a setup is described in a block of lines
    window = None if mode == "deep" else {j for i in strong for j in range(i - WINDOW,
                                                                          i + WINDOW + 1)}
    found: dict[int, list[Fact]] = {}
    ruled_lines: list[int] = []
    for i, line in enumerate(doc.lines):
        text = line.text
        if window is not None and i not in window:
            continue
        if line.in_diff or line.in_signature or len(text) > MAX_LINE or not text.strip() \
                or text[:1] in ("+", "@"):
            continue
        how = "words" if i in strong else _candidate(text, {t for t in CANDIDATE_TAGS
                                                             if i in words[t]})
        if how is None and not (i in words["weak"] and _near_host_line(i, found)):
            continue
        if NOT_SETUP.search(text):
            continue
        text = _unwrapped(doc, i, text)
        if shaped := _shaped(text):
            found[i] = shaped
        elif how == "shape":
            if by_shape := _by_shape(text):
                found[i] = by_shape
        else:
            ruled_lines.append(i)
    for i, facts in zip(ruled_lines, _line_facts([doc.text(i) for i in ruled_lines]),
                        strict=True):
        if facts and _prompt(doc.text(i)):
            # a command's arguments name no OS ("$ git remote -v show openwrt"); its
            # "modprobe ixgbe" is the machine's NIC
            facts = tuple(f for f in facts if f[0] != "os")
        if facts:
            found[i] = list(facts)
    return _dedupe(_rows(found, doc, subject))


def _unwrapped(doc: Document, i: int, text: str) -> str:
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


LINE_FACTS: TextCache[tuple[Fact, ...]] = TextCache(20_000)  # line text -> its facts


def _line_facts(texts: list[str]) -> list[tuple[Fact, ...]]:
    """The facts the span ruler and the gazetteer find in each line (a line read before in this
    process, quoted in a reply or a robot's boilerplate, is not read again)."""
    return LINE_FACTS.get(texts, _read_lines)


def _read_lines(texts: list[str]) -> Iterator[tuple[Fact, ...]]:
    """The facts of each line: the entities spaCy's hardware pipeline finds, and the
    models and shapes the gazetteer and the line's shape give."""
    for text, entities in zip(texts, hardware_entities(texts), strict=True):
        facts: list[Fact] = [(label, span, _value(label, span), None, False)
                             for label, span in entities if label not in ("nic", "wifi")
                             or not SPEED_WORD.match(span.lower())]
        spans = " ".join(f[1].lower() for f in facts)
        facts += [f for f in _bare_models(text) + _by_shape(text) if f[1].lower() not in spans]
        yield tuple(_without_nic_speeds(facts, text))


# "40G X710", "Broadcom BCM957508 200G", "2x100G ConnectX-6": a speed that names a card
NIC_SPEED = re.compile(r"(?i)\b(?:\d+x)?\d{1,3}G(?:bE)?\b")


def _without_nic_speeds(facts: list[Fact], text: str) -> list[Fact]:
    """A link speed written in a NIC's name is that NIC's, not the setup's link."""
    nics = [f[1] for f in facts if f[0] == "nic"]
    if not nics:
        return facts
    out = []
    for f in facts:
        if f[0] == "link" and not re.search(re.escape(f[1]) + r"[ \t]+(?:link|connection)\b",
                                            text) and any(
                re.search(re.escape(f[1]) + r"[ \t]+" + re.escape(n), text) or
                re.search(re.escape(n) + r"[ \t]+" + re.escape(f[1]), text) for n in nics):
            continue
        out.append(f)
    return out


def _near_host_line(i: int, found: dict[int, list[Fact]]) -> bool:
    """A line under a host line ("Server: 6.7.0-rc1, ..., 196608 MB") is read too (if a
    weak word stands on it)."""
    return any(j in found for j in range(i - 3, i))


@cache
def platform_words() -> frozenset[str]:
    """The first word of every platform phrase and the makers, lowercase: a line holding
    none names none."""
    return frozenset([p.lower().split()[0] for _, p in platform_phrases()] + MAKERS)


def _host_of(text: str) -> str | None:
    if TITLE_LINE.match(text):
        return None  # "ath10k: add tx ...": a patch title, its prefix no host
    m = HOST_PREFIX.match(text)
    if m and m.group(1).lower() not in FIELDS and not BODY_HW.match(m.group(1)):
        return m.group(1)
    p = PROMPT.match(text)
    return p.group(1) if p else None


# the words of a field's name in a tool's output or a hand-written list ("Kernel version:",
# "SoC Type:", "Hardwares tested:", "Distributor ID:", modinfo's "filename:"), not of a host
FIELD_WORDS = {"version", "type", "name", "model", "tested", "used", "platform", "card", "id",
               "modules", "project", "arch", "is", "on", "step", "kernel", "hardware",
               "hardwares", "hw", "soc", "target", "image", "firmware", "distributor", "system",
               "product", "device", "regarding", "upstream", "userspace", "description",
               "subsystem", "vermagic", "depends", "message", "codename", "devicename", "issue",
               "error", "user-agent", "drivers", "trace", "filename", "index", "notice", "fwiw",
               "but", "an", "dram", "eth", "gbe", "usb", "wlan0", "wlan1", "wlan2"}
# a kernel log's device ("usb 2-1:", "ath10k_ahb a000000.wifi:"), a driver's or a
# platform's prefix ("ath10k:", "ramips:"), a commit's short hash
NOT_HOST = re.compile(r"(?i)^(?:usb|pci|wlan\d|[0-9a-f]{7,40}|ath\d+k\w*|ath79|ar71xx|ramips|"
                      r"mt76\w*|iwlwifi|mwifiex|rtw\w*|brcmf\w*)\b|^\W+$|^\w$")


def _machine(prefix: str | None) -> str | None:
    """A line's prefix as the host its facts are on: none where it names a field, a device
    or a driver (the line still reads as a setup line)."""
    if prefix is None or NOT_HOST.search(prefix) is not None or \
            not FIELD_WORDS.isdisjoint(prefix.lower().split()):
        return None
    return prefix


def _line_host(i: int, doc: Document, found: dict[int, list[Fact]]) -> str | None:
    """The host of line i: its own prefix, or that of the line its indentation continues."""
    depth, text = doc.depth(i), doc.text(i)
    host = _host_of(text)
    while host is None and text[:1] in (" ", "\t") and i > 0:
        i -= 1  # "      Ethernet controller: ..." under "pbx4: AMD GX-412TC SOC"
        if doc.depth(i) != depth or not doc.text(i).strip():
            return None
        text = doc.text(i)
        if text[:1] not in (" ", "\t"):
            return _host_of(text) if i in found else None
    return host


def _rows(found: dict[int, list[Fact]], doc: Document, subject: str | None) -> list[HardwareRow]:
    out: list[HardwareRow] = []
    measured: dict[int, bool] = {}  # line -> holds a measured value (tested where needed)

    def is_measured(j: int) -> bool:
        if j not in measured:
            measured[j] = MEASURED.search(doc.text(j)) is not None
        return measured[j]
    subject_low = (subject or "").lower()
    patch = "patch" in subject_low and not parse_subject(subject).is_reply
    # "[PATCH] ramips: add support for Foo": its "CPU: MT7620A" lines list the device added
    # (a reply too: the patch it forwards or answers lists the device it adds)
    device_patch = "patch" in subject_low and DEVICE_SUPPORT.search(subject_low) is not None
    for i in sorted(found):
        line: Line = doc.lines[i]
        text = line.text
        host = _line_host(i, doc, found)
        facts = found[i]
        host_line = host is not None and ("," in text or len(facts) > 1)
        title = TITLE_LINE.match(text)
        spec = (title is not None and title.group(1).lower() not in FIELDS) or \
            _under_spec(doc, i) or (device_patch and _spec_field(doc, i))
        headed = not spec and _under_heading(doc, i, SETUP_HEAD)
        cue = host is not None or DMESG.match(text) is not None or headed or \
            KERNEL_LOG.search(text) is not None or (not spec and _cue_near(doc, i))
        near = not spec and any(doc.depth(j) == line.depth and is_measured(j) for j in
                                range(max(0, i - NEAR_LINES), min(len(doc), i + NEAR_LINES + 1)))
        # an adapter lsusb lists (its line may be wrapped), not the hubs beside it
        lsusb = LSUSB.match(text) is not None or (
            i > 0 and len(doc.text(i - 1)) >= 68 and LSUSB.match(doc.text(i - 1)) is not None
            and PROSE.search(text) is None)
        not_os = NOT_AN_OS.search(text)
        product = PRODUCT_STRING.search(text) is not None
        # "compile-tested on top of next-20230315 for" / "i386, x86_64, arm64": built for
        built_for = i > 0 and doc.depth(i - 1) == line.depth and \
            BUILT_FOR.search(doc.text(i - 1)[-MAX_LINE:]) is not None
        for kind, span, value, own_host, shaped in facts:
            if kind == "os" and not_os and span.lower() in not_os.group(0).lower():
                continue  # "Hardware name: QEMU Ubuntu 24.04 PC", syslog's host "fedora"
            if kind == "link" and product:
                continue  # "Ethernet Connection X722 for 10GbE SFP+": a product's name
            if kind in ("wifi", "nic") and (SOC_LABEL.search(text[:max(0, text.find(span))])
                                            or SOC_CHIP.search(span)):
                kind = "cpu"  # "SoC: Qualcomm Atheros QCA956X": the chip is the SoC
            if kind == "size":
                if not host_line:
                    continue  # "512 MB" alone is no memory; in "Server: ..., 196608 MB" it is
                kind = "memory"
            setup = shaped or cue or near or (lsusb and kind in ("wifi", "nic"))
            if setup and not shaped and host is None and "patch" in subject_low and \
                    _in_subject(span, subject_low) and \
                    (patch or not (headed or SETUP_CUE.search(text))) and \
                    not _tested_on(span, text):
                # the chip the patch is about, named in its title (in a question's subject,
                # "ixgbe zero-copy performance", it is the asker's hardware)
                setup = False
            if setup and not shaped and kind == "kernel" and re.search(
                    APPLY_FOR + re.escape(span), text):
                setup = False
            if setup and not shaped and kind == "os" and _os_not_run(span, text):
                setup = False
            if setup and not shaped and span.lower() in OPENWRT_TARGETS and \
                    not _target_ran(span, text):
                setup = False  # "ramips", "ath79": a build target named, not a machine
            if setup and not shaped and (PLANNED.search(text) or built_for or (
                    kind in ("wifi", "nic") and re.search(
                        re.escape(span) + SOFTWARE_AFTER, text) is not None)):
                setup = False  # "I would like to test a QCA9377", "the ath10k firmware"
            out.append(HardwareRow(own_host or _machine(host), kind, span, value, i + 1,
                                   line.depth > 0, line.depth, text.strip()[:500],
                                   "setup" if setup else "subject"))
    return out


def _built_only(span: str, text: str) -> bool:
    """Is the target named as what was built ("build test (on ramips)", "a self-compiled
    SDK for ath79", "the ar71xx files"), not as what ran?"""
    at = re.escape(span)
    return re.search(rf"(?i){BUILD_WORD}[^.;]{{0,60}}{at}|{at}{BUILT_AFTER}", text) is not None


def _os_not_run(span: str, text: str) -> bool:
    """Is the OS named as what was built ("I can't build OpenWrt anymore"), a project
    ("OpenWrt documentation"), a build platform ("builds cleanly on Debian bookworm") or a
    product ("RHEL won't make updates", "In Debian bullseye we have 0.9.8"), not as what a
    machine ran?"""
    at = re.escape(span)
    return (span.lower().startswith(("openwrt", "lede")) and _built_only(span, text)) or \
        re.search(rf"(?i){at}(?:{PROJECT_AFTER}|{AS_PRODUCT})|{BUILDS_ON}{at}|"
                  rf"\bin {at}\b[^.;]{{0,20}}\bwe (?:have|ship)\b", text) is not None


def _target_ran(span: str, text: str) -> bool:
    """Does the line say something ran on this OpenWrt target ("tested on ath79", "on my
    C7v2 (ar71xx)", "an IPQ40xx device", "running ath79"), not only name it in a review
    ("we use this property elsewhere in ath79") or a build?"""
    at = re.escape(span)
    return not _built_only(span, text) and (_tested_on(span, text) or re.search(
        rf"(?i)\bon (?:my|our|an?|both|two) [^.;]{{0,40}}?{at}|\b(?:with|using) (?:my|our) "
        rf"[^.;]{{0,40}}?{at}|\ban? {at}"
        rf"{TARGET_AS_HARDWARE}|\brunning (?:on )?{at}\b|\b(?:checked|tried|reproduced|"
        rf"confirmed|observed)\b[^.;]{{0,30}}?\b(?:on|with) {at}\b|"
        rf"^[ \t]*(?:test )?(?:platform|device|router|board|hardware|setup|dut)s?[ \t]*:",
        text) is not None)


def _tested_on(span: str, text: str) -> bool:
    """Does the line say a test ran on this fact ("tested on the RZ/V2N EVK")?"""
    m = TESTED_ON.search(text)
    return m is not None and text.find(span, m.end()) >= 0


def _in_subject(span: str, subject_low: str) -> bool:
    """Does the subject name this fact (its model number, or all of it)?"""
    if not subject_low:
        return False
    models = [w for w in span.lower().split() if any(c.isdigit() for c in w) and len(w) > 2]
    return any(m in subject_low for m in models) if models else span.lower() in subject_low


def _spec_field(doc: Document, i: int) -> bool:
    """Is the line a field of a spec sheet ("WiFi:\t- 2.4GHz MT7615N"), or indented under
    one ("\t- 5GHz MediaTek MT7615N nac")?"""
    while SPEC_FIELD.match(doc.text(i)) is None:
        if doc.text(i)[:1] not in (" ", "\t") or i == 0 or not doc.text(i - 1).strip():
            return False
        i -= 1
    return True


def _under_spec(doc: Document, i: int) -> bool:
    """Is the line in the paragraph under a "Specifications:" heading?"""
    return _under_heading(doc, i, SPEC_HEAD)


def _under_heading(doc: Document, i: int, heading: re.Pattern[str]) -> bool:
    """Is the line in the paragraph under a heading line ("Specifications:", "Test
    setup:"), or in the paragraph that follows it after one blank line?"""
    blank = False
    for j in range(i - 1, max(-1, i - 30), -1):
        text = doc.text(j)
        if not text.strip():
            if blank:
                return False
            blank = True  # "Specifications:", a blank line, then the list
            continue
        if heading.match(text):
            return True
        if blank:
            return False
    return False


def _cue_near(doc: Document, i: int) -> bool:
    """Does the line, or a line of its paragraph just above it, say it describes a setup?"""
    for j in range(i, max(-1, i - 4), -1):
        text = doc.text(j)
        if j < i and not text.strip():
            return False
        if SETUP_CUE.search(text) and not NOT_SETUP.search(text):
            return True
    return False


def _dedupe(rows: list[HardwareRow]) -> list[HardwareRow]:
    """One row per fact, host and quoting: the first line it was named on, and how often
    (a debug log naming ``i40e`` on every line is one fact); setup wins over subject."""
    first: dict[tuple[Any, ...], HardwareRow] = {}
    counts: dict[tuple[Any, ...], int] = {}
    setup: set[tuple[Any, ...]] = set()
    for r in rows:
        key = (r.kind, (r.value or r.text).lower(), r.host, r.quoted)
        first.setdefault(key, r)
        counts[key] = counts.get(key, 0) + 1
        if r.role == "setup":
            setup.add(key)
    return [HardwareRow(r.host, r.kind, r.text, r.value, r.line_no, r.quoted, r.quote_depth,
                        r.line, "setup" if k in setup else "subject", counts[k])
            for k, r in first.items()]
