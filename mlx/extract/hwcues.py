"""The words and line shapes a hardware fact's role is read from (``hwrole``): what says
a line describes a setup ("Tested on", "Test setup:", a measured value near), and what
says it names none (a plan, a suggestion, a build, a spec sheet, a trailer, a stack
trace)."""

from __future__ import annotations

import re

# "Tested on", "on my box", "Client:", "DUT": words that say a line describes a setup
SETUP_CUE = re.compile(r"(?i)\btest(?:ed|ing|s)?\b(?!/unstable)|\bsetup\b|\btest ?bed\b|\bdut\b|"
                       # (not "based on my experience", "on our side")
                       r"\b(?:on|using|with) (?:my|our|two|both)\b(?! (?:experience|opinion|"
                       r"understanding|knowledge|side|end|part|own|mind|behalf|list)\b)|"
                       r"\brunning (?:on|a|an|the|linux|kernel)\b|\b(?:ran|runs?) on\b|"
                       r"\b(?:verified|reproduc(?:e|ed)|tried|checked) (?:\w+ ){0,3}on\b|"
                       # (not "from what i have seen", "I have no idea")
                       r"\bi (?:have|use|used|ran|run|tested|see|saw|get|got|tried)\b"
                       r"(?! (?:seen|read|heard|looked|no|not|never|been)\b)|"
                       r"\bmy (?:machine|box|host|server|client|router|laptop|board|system|"
                       r"setup|nic|card|cpu|test)|\bwe (?:use|used|ran|run|tested)\b|"
                       # "breaks my ZenBook laptop", "on our Acme Foo3 board"
                       r"\b(?:my|our) (?:[\w.+/-]+ ){1,3}?(?:board|platform|laptop|router|"
                       r"system|devkit|module|adapter)\b|"
                       # (not a patch title's "kernel: bump 4.9 to 4.9.171")
                       r"\b(?:cpu|nic|memory|ram|kernel|os|distro|hardware|platform|env)\s*:"
                       r"(?![ \t]+(?:bump|update|add|fix|backport|refresh|remove|drop|move|"
                       r"switch|enable|disable|introduce)\b)|"
                       r"\bbench(?:mark)?(?:ed|s|ing)?\b|\bmeasur\w*|\bresults?\b|"
                       # ("I'm running into i40e rx_dropped ...": the reporter's NIC)
                       r"\b(?:i|we)(?:'m| am|'re| are) (?:using|running|testing|able to)\b|"
                       # "the 5.5.0-rc3 branch I've been working with", "a 'debian-11.1' rootfs"
                       r"\b(?:i|we)(?:'ve| have) been (?:using|running|testing|"
                       r"working (?:with|on(?![ \t]+\w+ing\b)))\b|"
                       # "I've bisected it to ...", "confirmed my device works", "6.6 is
                       # equally affected": a regression report's machine
                       r"\b(?:i|we)'ve (?:bisected|tested|tried|run|seen it|reproduced)\b|"
                       r"\bbisect\w*|\bconfirmed (?:that )?(?:my|our|it|the)\b|"
                       r"\b(?:is|are|was|were) (?:also|equally) affected\b|\bmy device\b|"
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
                      r"\d[ \t]?[KMGkmg](?:bps|bit/s|b/s)\b"
                      r"(?!(?:[ \t]*(?:,[ \t]*(?:and|or)?|and|or)[ \t]*(?:an?[ \t]+)?\d{1,5}"
                      r"[ \t]?[KMG](?:bps|bit/s|b/s)){0,4}[ \t]*(?i:ethernet|link|port|nic|"
                      r"switch|wan|lan|phy|full|half|radios?|wi-?fi|wlan|band|/))")
# ("both 1000Mbps and 100Mbps links", "a 600 Mbps and an 1733 Mbps radio", "a 10 Mbps,
# 100 Mbps, or 1 Gbps full-duplex link")
# iwconfig's "Bit Rate=600 Mb/s", iw's "tx bitrate: 866.7 MBit/s": the rate a radio's link
# is set to, no measured value
LINK_RATE = re.compile(r"(?i)\b(?:[rt]x )?bit ?rate[ \t]*[=:]")

# a test only planned, offered, denied or compiled: nothing ran on what the line names
PLANNED = re.compile(r"(?i)\b(?:would like to|want to|plan(?:ning)? to|going to|will (?:test|try)|"
                     r"I'll (?:test|try|only test)|can set ?up|could test|don't have|do not have|"
                     r"haven't|have no|no idea|not (?:yet )?tested|untested|compile[- ]tested|"
                     r"tried to (?:compile|build)|"
                     r"build[- ]tested|only (?:built|compiled)|would be happy|other tests|"
                     # "If further testing is required, I have a Unifi AC Mesh at hand":
                     # an offer to test (not "the X710 I had at hand: 9.4 Gbits/sec")
                     r"if (?:further |more )?test(?:ing|s)? (?:is|are) (?:needed|required|wanted)|"
                     # "an X would be valid to reproduce it too": a counterfactual
                     r"would (?:also )?be (?:valid|enough|fine|possible)|"
                     r"(?:can|could) test (?:it |this |that )?if (?:needed|required|you want))\b")

# "I will apply this for Linux 5.18-rc1": the release a patch goes to, no kernel that ran
APPLY_FOR = r"(?i)\bapply (?:it|this|them|these)\b[^.;]{0,20}?\b(?:for|to|on)\b[^.;]{0,12}?"

# "the ath10k firmware", "ath10k driver sources": software named after a chip or driver
SOFTWARE_AFTER = (r"(?:-ct)?(?:[ \t]+driver)?(?:[ \t]+\w*\d\w*)?[ \t]+(?:firmware|sources?|code|"
                  r"tree|git|repo(?:sitory)?|patchwork|patches|mailing list|commits?)\b")

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
                            r"^(?:\[[^]]*\][ \t]*)*(?:[\w-]+: )?support (?:for|of)\b|"
                            r"\b(?:ramips|ath79|ar71xx|ipq40xx|ipq806x|mediatek|mvebu|lantiq|"
                            r"bcm27xx|bcm53xx|realtek|kirkwood|octeon|x86|imx6?):[ \t]+add\b")

# "ramips: add Acme RX-300" over a spec list: a commit's title that adds a device (pasted
# in a reply, or one of a series' patches in a cover letter)
DEVICE_TITLE = re.compile(r"(?i)^[ \t]*[a-z0-9][\w./-]{1,30}: add (?:support for )?[\w-]+")

# "SoC: Qualcomm Atheros QCA956X ver 1 rev 0" (dmesg), "SoC: MediaTek MT7621A"
# router SoCs that the PCI/USB ID databases list for their built-in radio: QCA95xx,
# AR934x/AR724x/AR913x, MT7620/MT7621/MT7628/MT7688 ("MT7615" and "AR9380" are radios)
SOC_CHIP = re.compile(r"(?i)\b(?:QCA95\d\d|AR934\d|AR724\d|AR913\d|MT762[018]\w{0,2}|MT7688)\b")

SOC_LABEL = re.compile(r"(?i)\bSoC(?:[ \t]+type)?[ \t]*[:=][ \t]*(?:[\w-]+[ \t]+){0,2}$")

SPEC_FIELD = re.compile(r"(?i)^[ \t]*[-*]?[ \t]*(?:SoC|CPU|RAM|DRAM|Memory|Flash|NAND|NOR|WiFi|"
                        r"WLAN|Wireless|Ethernet|ETH|GbE|LAN|WAN|Switch|Ports?|USB|LEDs?|Buttons?|"
                        r"BTN|BLE|TPM|Radio\w*|"
                        r"Serial|UART|Power|Antennas?|PHY)[ \t]*"
                        r"(?:[\d.]+[ \t]?[GM]Hz[ \t]*|\d[ \t]*)?[:=]")  # "WiFi 2.4GHz:", "WIFI0:"

# "Specifications:": the lines under it describe a device a patch supports
SPEC_HEAD = re.compile(r"(?i)^[ \t]*(?:specifications?|specs|hardware specs?|features)"
                       r"[ \t]*:?[ \t]*$|"
                       # "The detailed specifications are:", "Hardware specs of the Foo:"
                       # (not "My test box specs:", which lists a setup)
                       r"^(?!.*\b(?:my|our|test\w*|bench\w*)\b).{0,60}\b(?:specifications?|specs)"
                       r"(?:[ \t]+(?:are|is|of\b.{0,40}))?[ \t]*:[ \t]*$")

# a sentence of a build test that goes on to the next line
BUILT_FOR = re.compile(r"(?i)\b(?:compile|build|cross-compile)[- ]?tested\b[^.:()]*\b(?:for|on)"
                       r"[ \t]*$")

# three lowercase words in a row: a sentence, no product name's rest
PROSE = re.compile(r"\b[a-z]+ [a-z]+ [a-z]+\b")

# lsusb's "Bus 001 Device 003: ID 07d1:3c0a D-Link System DWA-140 ...": a device plugged in
LSUSB = re.compile(r"^[ \t]*Bus \d{3} Device \d{3}: ID [0-9a-f]{4}:[0-9a-f]{4}\b")

# lines that state no setup: trailers, quoted headers, links, paths, build bots
NOT_SETUP = re.compile(r"^[ \t]*(?:[\w-]+-by|Fixes|Link|Closes|Cc|To|From|Subject|Date|Depends|"
                       r"Message-I[Dd]|In-Reply-To|References|tree|branch|head|commit|config|"
                       r"compiler|reproduce)[ \t]*:|https?://|git://|\.git\b|branch HEAD|"
                       r"Modules linked in|root hub|Linux Foundation|Host bridge|PCI bridge|"
                       # "usbcore: registered new interface driver r8152", "igb: Intel(R)
                       # Gigabit Ethernet Network Driver": a module loaded (its banner
                       # prints whether or not a device is there)
                       r"registered new (?:interface )?driver|\][ \t]+[\w-]+:[ \t]+[^:]{0,100}"
                       r"\b[Dd]river\b[^:]{0,40}$|\][ \t]+[\w-]+:[ \t]+Copyright\b|"
                       # "libphy: Fixed MDIO Bus: probed": a bus, no device
                       r"\bMDIO [Bb]us\b.{0,40}\bprobed\b|"
                       # the rest of an oops's "Modules linked in:" list, wrapped: names
                       r"^(?:.*\][ \t]+)?(?=(?:[^_\n]*_){3})(?:[a-z][a-z0-9_]*(?:\([A-Z+-]+\))?"
                       r"[ \t]+){5,}[a-z][a-z0-9_]*(?:\([A-Z+-]+\))?[ \t]*$|"
                       # "Applied to ath-next, thanks.", "the ath10k tree": where a patch goes
                       r"^[ \t]*(?:Patch(?:es)? )?[Aa]pplied\b|^[ \t]*Applying:|\|[ \t]*grep\b|"
                       # a forwarded message's headers in other languages
                       r"^[ \t]*(?:Para|Von|Envoy[ée]|Enviado|Asunto|Betreff|Objet|Oggetto)[ \t]*:|"
                       r"\bcommit:[ \t]+[0-9a-f]{7,40}\b|"
                       # a robot's "[cannot apply to v5.3-rc3 ...]"; a compiler's version
                       # string "gcc (Ubuntu 4.8.4-2ubuntu1~14.04.4) 4.8.4"
                       r"\bcannot apply to\b|\bgcc (?:version )?\(|"
                       # a Makefile's "ATH_SOC := qca9563" (grepped from a build file); the
                       # backports' "Loading modules backported from Linux version v5.4.27"
                       r"\b[A-Z][A-Z0-9_]{2,}[ \t]*[:+?]=[ \t]|\bbackported from\b|"
                       # opkg's " *      kernel (= 4.19.79-1-cddfa99a)": a dependency
                       r"\bkernel[ \t]*\([<>]?=|"
                       # the stable bot's "has tested the following trees: v5.2.13, ..." and
                       # "v4.14.142: Failed to apply!"; lspci -vv's "Capabilities: [70] ..."
                       r"\btested the following trees\b|^[ \t]*v\d+\.\d+(?:\.\d+)?:[ \t]+"
                       r"(?:Build OK|Failed to apply)|^[ \t]*Capabilities:[ \t]+\[|"
                       r"\b(?:git|[\w-]+-next|ath1\dk|ath|wireless|net) tree\b|"
                       r"\b\d[TR]\d[TR]\b|"
                       r"(?:^|[ \t(])(?:drivers|arch|net|include|tools|Documentation|firmware)"
                       r"/[\w/.-]+|\bCC \[M\]|^[ \t]*(?:LD|CC|AR)[ \t]")

NEAR_LINES = 8  # hardware this close to a measured value is what it was measured on

# the kernel test robot's build reports: "[linux-next:master] BUILD SUCCESS <sha>", their
# "configs tested:" list and its "<arch>  <config>  <compiler>" lines
BUILD_REPORT = re.compile(r"\bBUILD (?:SUCCESS|REGRESSION|FAILURE|WARNING)\b")
BUILD_MATRIX = re.compile(r"^[ \t]*(?:configs tested|tested configs)[ \t]*:|"
                          r"^[ \t]*[a-z][\w-]{1,15}[ \t]+[\w.-]*config[\w.-]*[ \t]+"
                          r"(?:gcc|clang)-\d")
# "could you try the latest stable?", "please test on", "you might try", "if you run on":
# a suggestion, a question or a condition, no machine that ran
SUGGESTED = re.compile(r"(?i)\b(?:could|can|would|will) you\b|\b(?:won't|will not|wouldn't|"
                       r"would not|doesn't|does not) work on\b|\bon any\b|"
                       r"\bplease (?:try|test|use|run|"
                       r"check)\b|\byou (?:could|might|may|should|can) (?:try|test|use|run|"
                       r"check)\b|\b(?:have|did) you (?:tried|tested|try|test)\b|\bif you\b|"
                       r"\bwhether\b|\bhow about\b|\bwhat about\b")
SENTENCE_END = re.compile(r"[.!?](?:[ \t]+|$)")
# "testing on an X, not a Y": the fact right after a negation
# (or set against it: "no problems like on the X", "unlike the Y")
NEGATED = re.compile(r"(?i)(?:\bnot|n't|\brather than|\binstead of|\bexcept(?: for)?|\blike|"
                     r"\bunlike|\bsimilar to)[ \t]+"
                     r"(?:on[ \t]+|with[ \t]+|using[ \t]+)?(?:an?[ \t]+|the[ \t]+|my[ \t]+)?$")
# a stack trace's lines: registers, frames ("RIP: 0010:tcp_sendmsg+0x1a2/0xd40 [ixgbe]"); a
# log names the machine only in the fields meant for it ("Hardware name:", "CPU: ... Not
# tainted <kernel>", "Linux version")
STACK_LINE = re.compile(r"\b(?:RIP|RSP|RAX|RBX|RCX|RDX|RBP|RSI|RDI|R\d{1,2}|CR[0-4]|Code|"
                        r"pc|lr|sp|epc|ra)[ \t]*:[ \t]|\+0x[0-9a-f]+/0x[0-9a-f]+|"
                        r"\bCall Trace\b")
