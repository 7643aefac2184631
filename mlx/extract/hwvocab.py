"""The words of hardware: token shapes, token patterns, the NIC gazetteer.

The patterns are spaCy Matcher patterns, held by the span ruler of spaCy's hardware
pipeline (``mlx.extract.nlp.hardware``: a tokenizer that splits at whitespace only and
peels brackets, quotes and a sentence's punctuation off a token, so ``E5-2620``,
``Cortex-A53`` or ``6.7.0-rc1`` stay whole).  They come from three places: token shapes
(model numbers, versions, sizes), the CPU, board and OS names of ``data/platforms.tsv``,
and the NIC and wifi model tokens of ``data/nics.tsv``, built from the PCI and USB ID
databases by ``scripts/build_gazetteer.py`` (one-token phrases: spaCy's PhraseMatcher)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"

# A message names hardware only if one of these stands in it (3.5% of netfilter-devel):
# the patterns of BODY_HW, and the lowercase driver and platform words of STRONG_LOWER.
# One Aho-Corasick pass looks for the plain start of each pattern and for the lowercase
# words; BODY_HW confirms a match only where a start stands (``hardware.PREFILTER``).
STRONG = ["Intel", "AMD", "GHz", "Xeon", "EPYC", "Ryzen", "Cortex", "Neoverse", "Ampere", "BCM",
          "Broadcom", "Mellanox", "ConnectX", "Ethernet controller", "Network controller",
          "Model name", "GNU/Linux", r"RAM\b", "RHEL", "Ubuntu", "Debian", "Fedora", "OpenWrt",
          "CentOS", "Raspberry", "Banana", r"APU\d", "PC Engines", "ThinkPad", "GbE", "I350",
          r"I21\d", "E810", r"8259\d", "QCA", r"MT7\d", "RTL8", r"AX2\d\d", "BPI-", "MLX", "DWMAC",
          "KSZ", "IPQ", "AQC", r"EVK\b", r"(?<![A-Za-z])ICE\b", r"E3-\d{4}", r"E5-\d{4}",
          r"E7-\d{4}", r"Dell\b", "ASRock", "Supermicro", "Lenovo", "GIGABYTE"]
# (each pattern starts with plain text, its ``literal_head``; "test machine:" lines name
# an Intel CPU)
STRONG_LOWER = ("mlx", "ixgbe", "i40e", "veth", "dwmac", "stmmac", "ethqos", "gbeth", "ath1",
                "iwl", "qca", "ar71xx", "ath79", "ramips", "imx", "evk", "devkit")
# A neighbour of such a line is read when it holds one of these (kernel, memory, link).
WEAK_WORDS = ("ernel", "emory", "RAM", "-rc", "MB", "GB", "MiB", "GiB", "G ", "G,", "MHz",
              "Linux", "igc", "igb", "virtio", "NIC", "SoC", "GbE", "Gb", "DDR")
BODY_HW = re.compile("(?=[{}])(?:{})".format("".join(sorted({w[0] for w in STRONG})),
                                              "|".join(STRONG)))


def literal_head(pattern: str) -> str:
    """The plain text every match of a STRONG pattern starts with ("RAM" of ``RAM\\b``,
    "ICE" of ``(?<![A-Za-z])ICE\\b``): what a substring scan looks for before the regex."""
    m = re.match(r"(?:\(\?<!?[^)]*\))?([\w /-]+)", pattern)
    assert m is not None, pattern
    head = m.group(1)
    # a quantified last character is optional: "RTL8" of RTL8, but "MT7" of MT7\d
    return head[:-1] if pattern[len(m.group(0)):][:1] in ("?", "*", "{") else head


# Model name:            Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz        (lscpu)
# "Model name:  ..." (lscpu), "model name\t: ..." (/proc/cpuinfo)
LSCPU = re.compile(r"^[ \t]*[Mm]odel name[ \t]*:[ \t]+(\S[^\n]{0,150}?)[ \t]*$")
# 01:00.0 Ethernet controller: Intel Corporation I210 Gigabit Network Connection (rev 03)
LSPCI = re.compile(r"(Ethernet|Network) controller(?: \[\w{4}\])?:[ \t]+(\S[^\n]{0,150}?)"
                   r"(?:[ \t]+\[[0-9a-f]{4}:[0-9a-f]{4}\])?(?:[ \t]+\(rev [0-9a-f]{1,4}\))?[ \t]*$")
# Linux pbx4 3.16.57-astlinux #1 SMP PREEMPT Mon Jul 9 17:25:31 CDT 2018 x86_64 GNU/Linux
UNAME = re.compile(r"\bLinux[ \t]+([\w.-]{1,64})[ \t]+(\d\.\d{1,2}(?:\.\d{1,3})?[\w.+~-]{0,60})"
                   r"[ \t]+#\d{1,6}[^\n]{0,200}?(?:[ \t](x86_64|aarch64|armv7l|armv8l|mips|mipsel|"
                   r"riscv64|ppc64le|ppc64|s390x|i686|arm64))?(?:[ \t]+GNU/Linux)?[ \t]*\"?,?$")
# test machine: 128 threads 2 sockets Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz (Ice Lake)
#   with 256G memory
LKP = re.compile(r"test machine:[ \t]+(\d{1,5})[ \t]+threads[ \t]+"
                 r"(?:(\d{1,3})[ \t]+sockets?[ \t]+)?(\S[^\n]{0,120}?)"
                 r"(?:[ \t]+\(([\w \t-]{1,40})\))?[ \t]+with[ \t]+(\d{1,6})[ \t]*"
                 r"([GMT])(?:i?B)?[ \t]+memory")
# "Client: RHEL9.2, CPU ..."   "pbx4: AMD GX-412TC SOC"   "DUT (host A): ..."
HOST_PREFIX = re.compile(r"^[ \t]{0,3}([A-Za-z][\w.-]{0,24}(?:[ \t][A-Za-z0-9][\w.-]{0,12})?)"
                         r"[ \t]*:[ \t]+\S")
# pbx4 ~ # iperf3 -c ...      root@dut1:~# ...
PROMPT = re.compile(r"^[ \t]*(?:\[?[\w.-]{1,32}@)?([\w.-]{1,32})(?:[ \t]+~|:~?[\w/.-]{0,40})"
                    r"[ \t]*[#$][ \t]")
# words that name a field, not a host, before a colon
FIELDS = {"cpu", "cpus", "nic", "nics", "memory", "mem", "ram", "kernel", "os", "board", "model",
          "model name", "system", "processor", "platform", "hardware", "hw", "setup", "driver",
          "firmware", "distro", "distribution", "arch", "architecture", "soc", "device", "link",
          "network", "ethernet", "storage", "disk", "note", "notes", "subject", "from", "to",
          "cc", "date", "fixes", "reported-by", "signed-off-by", "tested-by",
          "reviewed-by", "acked-by", "machine", "test machine", "server side", "client side",
          "result", "results", "before", "after", "base", "baseline", "test", "tests", "config",
          "tested", "tested hw", "tested hardware", "tested on", "tested with", "tested-on",
          "environment", "env", "testbed", "test setup", "target",
          "cmdline", "command", "re", "ps", "p.s", "commit", "speed", "bandwidth",
          # device spec sheets (OpenWrt): "Flash: SPI-NOR 1 MiB, NAND 512 MiB" is no memory
          "flash", "nand", "nor", "emmc", "sd", "wifi", "wlan", "wireless", "switch", "usb",
          "serial", "power", "ports", "leds", "buttons", "antenna", "antennas", "radio",
          "radios", "bootloader", "uart", "gpio", "console"}
MEMORY_UNITS = {"k": 1 / 1024, "kb": 1 / 1024, "kib": 1 / 1024, "m": 1, "mb": 1, "mib": 1,
                "g": 1024, "gb": 1024, "gib": 1024, "t": 1024**2, "tb": 1024**2, "tib": 1024**2}

NUM = r"^\d{1,7}(?:\.\d{1,3})?$"
SIZE_UNIT = r"^(?:[KMGT]i?B|[GT])$"
KVER_RC = r"^v?[2-7]\.\d{1,2}(?:\.\d{1,3})?-rc\d{1,2}[\w.+~-]{0,30}$"
KVER = r"^v?[2-7]\.\d{1,2}(?:\.\d{1,3})?(?:[-+][\w.+~-]{0,40})?$"
INTEL_FAMILY = r"^(?:Xeon|Core|Atom|Celeron|Pentium)(?:\((?:R|TM)\))?$"
INTEL_MODEL = (r"^(?:Gold|Silver|Platinum|Bronze|Max|Ultra|[EWD]-?\d{4}\w{0,4}|E[357]-\d{4}\w{0,3}|"
               r"i[3579]-\d{4,5}\w{0,3}|[NJ]\d{4}\w?|v\d|\d{4}[A-Z]{0,2}|[A-Z]\d{4}[A-Z]{0,2}|"
               r"[3579])$")
NIC_MODEL = (r"^(?:[Ii]2[1-2][015](?:-V|-LM|-IT|-T\d)?|I350(?:-T\d)?|XL?710(?:-DA\d)?|XXV710|"
             r"BCM9?57\d{3}\w{0,3}|(?i:mlx[45]\w{0,5})|(?i:dwmac\w{0,12})|"
             r"X5[2-5]0(?:-\w{1,6})?|8259\d[A-Z]{0,2}|8257\d[A-Z]{0,2}|E810(?:-[A-Z]{1,4})?|E82[1-9]|"
             r"BCM57\d{3}[A-Z]?|BCM5720|ConnectX-?[3-8](?:-?(?:Lx|Dx|Ex|lx|dx|ex|VPI))?|"
             r"CX-?[4-8](?:Lx|Dx|lx|dx)?|mlx[45]_(?:core|en)|ixgbe|ixgbevf|igc|igb|i40e|iavf|"
             r"e1000e?|virtio_net|virtio-net|bnxt_en|r8169|r8125|stmmac|mvneta|mvpp2|tg3|sfc|"
             r"nfp|qede|cxgb4|hns3|enetc|dpaa2-eth|mtk_eth_soc|veths?|stmmac|dwmac\w{0,12}|"
             r"[a-z0-9]{2,12}-(?:dwmac|ethqos|gbeth|eqos)|"
             # PHYs people name as the NIC of a board: KSZ9131, 88E1512, RTL8211F, DP83867
             r"KSZ\d{4}\w{0,4}|88[EQX]\d{4}\w{0,3}|mv88[eqx]\d{4}\w{0,3}|RTL821\d\w{0,3}|"
             r"DP83\d{3}\w{0,3}|AR803\d|YT85\d\d\w{0,2}|LAN87\d\d\w{0,2}|"
             r"RTL81\d\d\w{0,3}|RTL8125\w{0,2}|RTL815\d\w{0,2}|AQC1\d\d\w{0,2})$")
WIFI_MODEL = (r"^(?:AX2[01]\d|AX1[0-9]{3}|BE200|MT79[12]\d[A-Z]?|MT76(?:0\d|1\d|3\d|63)[A-Z]?|"
              r"(?i:ath1[012]k(?:-ct)?|iwl\d{4}\w{0,3}|qca9\d\dx|qca\d{4}\w{0,3})|MT79\d\d[A-Z]?|"
              r"AWUS\d{3}\w{0,6}|"
              r"QCA9\d{3}|QCA6\d{3}|QCN\d{4}|WCN\d{4}|RTL88\d{2}[A-Z]{0,3}|RTL8192\w{0,3}|AR9\d{3}|"
              r"BCM43\d{2,3}\w?|iwlwifi|mt76|rtw8[89]|ath9k|ath1[012]k)$")
SOC_MODEL = (r"^(?:Cortex-[AMR]\d{1,3}|Neoverse-[NVE]\d{1,2}|Graviton\d?|ThunderX\d?|Kunpeng\w*|"
             r"IPQ\d{2,4}\w{0,3}|(?i:i\.?mx\d\w{0,6})|ar71xx|ath79|ramips|VRX?\d{2,3}|(?i:vrx-\d{3})|"
             r"BCM2(?:711|712|837|835|836)|MT762[0-8]A?|MT798[168]A?|IPQ\d{4}|QCA95[0-9]{2}|"
             r"RK3\d{3}|A3720|Armada-?\d{3,4})$")
OS_NAME = (r"^(?:RHEL|Ubuntu|Debian|Fedora|OpenWrt|CentOS|Rocky|AlmaLinux|SLES|openSUSE|Alpine|"
           r"(?i:openwrt|ubuntu|debian|fedora|manjaro|windows))")


# Token shapes the rules ask for, by name.
SHAPES = {
    "intel": r"^Intel(?:\(R\))?$",
    "intel_family": INTEL_FAMILY,
    "intel_model": INTEL_MODEL,
    "ghz": r"^\d{1,2}(?:\.\d{1,2})?GHz$",
    "amd_family": (r"^(?:EPYC|Ryzen|Opteron|Athlon|Threadripper|Phenom|GX-\w{3,8}|G-\w{3,6}|"
                   r"Embedded|FX(?:\(tm\))?-\d{4}\w?)$"),
    "amd_model": (r"^(?:\d{1,2}|[A-Z]?\d{3,5}[A-Z0-9]{0,3}|PRO|SOC|Processor|\d{1,3}-Core|"
                  r"V\d{4}\w?)$"),
    "soc": SOC_MODEL,
    "nic": NIC_MODEL,
    "nic_suffix": r"^(?:Lx|Dx|Ex|EN|VPI)$",
    "link": r"^(?:\d{1,3}(?:\.5)?(?i:gbe|gige|gbit)|(?:10|25|40|50|100|200|400|800)G)$",
    "wifi": WIFI_MODEL,
    "width": r"^(?:20|40|80|160|320)$",
    "wifi_mode": r"^(?:VHT|HE|EHT|HT)(?:20|40|80|160|320)$",
    "num": NUM,
    "size_unit": SIZE_UNIT,
    "size_mb": r"^(?:[MGT]i?B)$",
    "size_glued": r"^\d{1,7}(?:\.\d{1,3})?(?:[KMGT]i?B|[GT])$",
    "kver_rc": KVER_RC,
    "kver_v": r"^v[2-7]\.\d{1,2}(?:\.\d{1,3})?\+?$",
    "kver": KVER,
    "os_glued": OS_NAME + r"-?\d{1,2}(?:\.\d{1,2}){0,2}$",
    "os_name": OS_NAME + r"$",
    "os_version": r"^\d{1,2}(?:\.\d{1,2}){0,2}(?:-?LTS)?$",
    "apu": r"^(?i:apu\d\w{0,3}|alix\w{0,4})$",
    "board": r"^(?:APU[1-6][A-Da-d]?\d?|BPI-R\d\w{0,4})$",
    "bpi": r"^(?:BPI-)?[A-Z]\w{0,6}$",
    "rpi": r"^(?:\d|Zero|CM\d)$",
    "rpi_model": r"^[AB]\+?$",
    "thinkpad": r"^[A-Z]\d{1,3}[a-z]?$",
    "gen": r"^\d{1,2}$",
    "nanopi": r"^R\d\w{0,3}$",
    # "XPS 13", "Archer C7 v2", "Pi 5", "R740": what follows a board's name
    "board_model": (r"^(?:[A-Z]{0,4}\d{1,5}[A-Za-z+]{0,4}|v\d{1,2}(?:\.\d)?|[A-Z]{1,3}\d{0,3}[+]?|"
                    r"Pro|Max|Air|Nano|Mini|Plus|Ultra|Gen)$"),
}


def _s(name: str, op: str | None = None) -> dict[str, Any]:
    """A token pattern: the token has this shape.

    (A token attribute holding precomputed shapes was tried: spaCy reads custom
    attributes through Python and it ran slower than these regex predicates.)
    """
    pattern: dict[str, Any] = {"TEXT": {"REGEX": SHAPES[name]}}
    if op:
        pattern["OP"] = op
    return pattern


MEMORY_WORDS = ["ram", "memory", "ddr3", "ddr4", "ddr5", "lpddr4", "lpddr4x", "lpddr5", "ecc"]


# makers of boards, machines and routers: "Dell XPS 13", "ASRock QC5000-ITX/PH"
MAKERS = ["asrock", "gigabyte", "msi", "supermicro", "dell", "hpe", "lenovo", "tp-link", "linksys",
          "asus", "zyxel", "mikrotik", "ubiquiti", "xiaomi", "gl.inet", "avm", "fritz!box"]


VENDOR = {"LOWER": {"IN": ["intel", "mellanox", "nvidia", "broadcom", "marvell", "realtek",
                           "chelsio", "solarflare", "netronome", "qlogic", "mediatek",
                           "qualcomm", "atheros", "aquantia", "microchip", "micrel", "ti",
                           "motorcomm", "asix", "netgear", "alfa", "tp-link", "d-link",
                           "edimax", "asus"]}, "OP": "?"}


def _patterns() -> list[dict[str, Any]]:
    """The span ruler's patterns: the shapes of named parts, then those built on the
    vocabulary's sets."""
    return [{"label": kind, "pattern": pattern}
            for kind, pattern in (*_named_shapes(), *_set_shapes())]


def _named_shapes() -> list[tuple[str, list[dict[str, Any]]]]:
    """CPUs, NICs, boards, wifi adapters and distributions by their makers' names."""
    cpu_tail = [{"LOWER": "cpu", "OP": "?"}, {"ORTH": "@", "OP": "?"}, _s("ghz", op="?")]
    return [
        ("cpu", [_s("intel"), _s("intel_family", op="?"), _s("intel_model", op="{1,3}"),
                 *cpu_tail]),
        ("cpu", [_s("intel"), _s("intel_family"), _s("intel_model", op="{0,3}"), *cpu_tail]),
        # lscpu's older shape: "Intel(R) Xeon(R) CPU E5-2690 v4 @ 2.60GHz"
        ("cpu", [_s("intel"), _s("intel_family"), {"LOWER": "cpu"}, _s("intel_model", op="{1,3}"),
                 {"ORTH": "@", "OP": "?"}, _s("ghz", op="?")]),
        ("cpu", [{"LOWER": "amd"}, _s("amd_family"), _s("amd_model", op="{0,4}")]),
        # "Xeon 1225 V6", "a Xeon E5-2690 box": the family without the vendor
        ("cpu", [{"TEXT": {"REGEX": r"^Xeon(?:\(R\))?$"}}, _s("intel_model", op="{1,3}")]),
        # "Xeon's with Intel E810-CQDA2", "on two EPYCs": a family alone, as written
        ("cpu", [{"TEXT": {"REGEX": r"^(?:Xeon|EPYC|Ryzen|Opteron|Threadripper)s?$"}}]),
        # "my CPU E5-1650 v4 @ 3.60GHz": a Xeon model without its family
        ("cpu", [{"TEXT": {"REGEX": r"^E[357]-\d{4}\w{0,3}$"}},
                 {"TEXT": {"REGEX": r"^v\d$"}, "OP": "?"}, {"ORTH": "@", "OP": "?"},
                 _s("ghz", op="?")]),
        # "a ConnectX 5 100G link", "ICE" (the ice driver, as people write it)
        ("nic", [{"LOWER": "connectx"}, {"TEXT": {"REGEX": r"^[3-8](?:Lx|Dx|lx|dx)?$"}}]),
        ("nic", [{"TEXT": {"REGEX": r"(?i)^connectx-?[3-8](?:lx|dx)$"}}]),  # "ConnectX-4Lx"
        ("nic", [{"ORTH": "ICE"}]),
        # "a virtual machine with virtio NICs"
        ("nic", [{"LOWER": "virtio"}, {"LOWER": {"IN": ["nic", "nics", "interface", "interfaces",
                                                          "netdev", "netdevs"]}}]),
        # "ASRock QC5000-ITX/PH", "Supermicro SYS-1028R-TDW", "Dell R740": maker and model
        ("board", [{"LOWER": {"IN": MAKERS}},
                   {"TEXT": {"REGEX": r"^(?=[\w./-]*\d)[A-Za-z0-9][\w./+-]{1,30}$"}},
                   {"TEXT": {"REGEX": r"^(?:v\d{1,2}|[A-Z]\d{0,3}|Pro|Plus)$"}, "OP": "?"}]),
        # "B650 AORUS ELITE", "X670E TUF GAMING": a motherboard by chipset and line
        ("board", [{"TEXT": {"REGEX": r"^[ABHXZ]\d{3}[A-Z]?$"}},
                   {"LOWER": {"IN": ["aorus", "tuf", "rog", "prime", "steel", "tomahawk",
                                     "gaming", "taichi", "phantom"]}},
                   {"TEXT": {"REGEX": r"^[A-Z][A-Za-z0-9+-]{1,12}$"}, "OP": "{0,3}"}]),
        # "Netgear A8000", "ALFA AWUS036AXML": USB wifi adapters
        ("wifi", [{"LOWER": "netgear"}, {"TEXT": {"REGEX": r"^A\d{4}$"}}]),
        ("wifi", [{"LOWER": "alfa"}, {"TEXT": {"REGEX": r"^AWUS\w{3,12}$"}}]),
        # "Debian bookworm", "Ubuntu jammy": a distribution and its release
        ("os", [{"LOWER": {"IN": ["debian", "ubuntu"]}},
                {"LOWER": {"IN": ["bookworm", "bullseye", "buster", "trixie", "jammy", "focal",
                                  "noble", "bionic", "sid"]}}]),
        # "RZ/V2N EVK", "i.MX8MP EVK", "Orin Nano devkit": an evaluation kit
        ("board", [{"TEXT": {"REGEX": r"^(?=[\w/.-]*\d)[A-Za-z][\w/.+-]{1,20}$"}, "OP": "{1,2}"},
                   {"LOWER": {"IN": ["evk", "devkit", "dev-kit", "smarc"]}}]),
        ("cpu", [_s("soc")]),
        ("cpu", [{"LOWER": "ampere"}, {"LOWER": {"IN": ["altra", "one"]}},
                 {"LOWER": "max", "OP": "?"}]),
    ]


def _set_shapes() -> list[tuple[str, list[dict[str, Any]]]]:
    """Parts named by the vocabulary's sets: vendors' NICs and wifi, links, memory,
    kernels, distributions, boards."""
    vendor = VENDOR
    return [
        ("nic", [vendor, _s("nic"), _s("nic_suffix", op="?")]),
        ("link", [_s("link")]),
        ("wifi", [vendor, _s("wifi")]),
        ("wifi", [_s("width"), {"TEXT": "MHz"},
                  {"LOWER": {"IN": ["channel", "channels", "width", "bandwidth", "bw"]}}]),
        ("wifi", [{"LOWER": {"IN": ["channel", "width", "bandwidth", "bw", "ht", "vht", "he"]}},
                  _s("width"), {"TEXT": "MHz"}]),
        ("wifi", [_s("wifi_mode")]),
        ("memory", [{"LOWER": {"IN": ["memory", "ram", "mem", "memtotal"]}},
                    {"ORTH": ":", "OP": "?"}, _s("num"), _s("size_unit")]),
        # "MemTotal: 381.7MB"
        ("memory", [{"LOWER": {"IN": ["memory", "ram", "mem", "memtotal"]}},
                    {"ORTH": ":", "OP": "?"}, _s("size_glued")]),
        ("memory", [_s("size_glued"), {"LOWER": {"IN": MEMORY_WORDS}}]),
        ("memory", [_s("num"), _s("size_unit"), {"LOWER": {"IN": MEMORY_WORDS}}]),
        # "128 GB of ECC RAM"
        ("memory", [_s("num"), _s("size_unit"), {"LOWER": "of"}, {"LOWER": {"IN": MEMORY_WORDS}},
                    {"LOWER": {"IN": MEMORY_WORDS}, "OP": "?"}]),
        ("size", [_s("num"), _s("size_mb")]),
        ("kernel", [_s("kver_rc")]),
        ("kernel", [_s("kver_v")]),
        ("kernel", [{"LOWER": {"IN": ["kernel", "linux", "net-next", "mainline", "upstream",
                                     "linux-next", "bpf-next"]}},
                    {"LOWER": {"IN": ["at", "version", "is", "on", "v"]}, "OP": "?"},
                    _s("kver")]),
        ("os", [_s("os_glued")]),
        ("os", [_s("os_name"), _s("os_version")]),
        ("os", [{"LOWER": "red"}, {"LOWER": "hat"}, {"LOWER": "enterprise"}, {"LOWER": "linux"},
                _s("os_version")]),
        ("board", [{"LOWER": "pc"}, {"LOWER": "engines"}, _s("apu", op="?")]),
        # "Dell XPS 13", "Dell Salomon WD19 docking station": a maker's product line
        ("board", [{"LOWER": {"IN": MAKERS}},
                   {"LOWER": {"IN": ["xps", "latitude", "precision", "optiplex", "poweredge",
                                     "inspiron", "vostro", "salomon", "thinkcentre", "elitebook",
                                     "proliant", "nuc"]}},
                   _s("board_model", op="{0,2}"),
                   {"LOWER": {"IN": ["docking", "dock"]}, "OP": "?"},
                   {"LOWER": "station", "OP": "?"}]),
        ("board", [_s("board")]),
        ("board", [{"LOWER": "banana"}, {"LOWER": "pi"}, _s("bpi", op="?")]),
        ("board", [{"LOWER": "raspberry"}, {"LOWER": "pi"}, _s("rpi", op="?"),
                   {"LOWER": "model", "OP": "?"}, _s("rpi_model", op="?")]),
        ("board", [{"LOWER": "thinkpad"}, _s("thinkpad"), {"LOWER": "carbon", "OP": "?"},
                   {"LOWER": "gen", "OP": "?"}, _s("gen", op="?")]),
        ("board", [{"LOWER": "turris"}, {"LOWER": {"IN": ["omnia", "mox"]}}]),
        ("board", [{"LOWER": "nanopi"}, _s("nanopi")]),
    ]


@cache
def nic_tokens() -> dict[str, tuple[str, str, str]]:
    """token (lowercase) -> (kind, vendor, device name), from data/nics.tsv."""
    out: dict[str, tuple[str, str, str]] = {}
    for line in (DATA / "nics.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            token, kind, vendor, name = line.split("\t")
            out[token] = (kind, vendor, name)
    return out


@cache
def platform_phrases() -> list[tuple[str, str]]:
    """(kind, phrase) of data/platforms.tsv."""
    out = []
    for line in (DATA / "platforms.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            kind, phrase = line.split("\t")
            out.append((kind, phrase))
    return out


@cache
def kernel_phrases() -> list[tuple[str, str]]:
    """(kind, phrase) of data/kernel.tsv: boards, SoCs, CPU code names, NIC and wifi
    drivers and parts, as the kernel tree names them (``scripts/kernel_gazetteer.py``)."""
    out = []
    for line in (DATA / "kernel.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            phrase, kind, _ = line.split("\t")
            out.append((kind, phrase))
    return out


def _gazetteer_patterns() -> list[dict[str, Any]]:
    tokens = nic_tokens()
    out: list[dict[str, Any]] = []
    for kind in ("nic", "wifi"):
        words = sorted(t for t, (k, _, _) in tokens.items() if k == kind)
        # "I211", "x550-T2": the token alone, a phrase (spaCy's PhraseMatcher, on LOWER)
        out += [{"label": kind, "pattern": w} for w in words]
        # "Intel I211", "Realtek RTL8852BU": with its vendor before it
        out.append({"label": kind, "pattern": [{"LOWER": VENDOR["LOWER"]},
                                               {"LOWER": {"IN": words}}]})
    # "ODROID-C2", "Sapphire Rapids", "rtl8822cu": a phrase (spaCy's PhraseMatcher, on LOWER)
    out += [{"label": kind, "pattern": phrase} for kind, phrase in kernel_phrases()]
    for kind, phrase in platform_phrases():
        words = phrase.lower().split()
        out.append({"label": kind, "pattern": [{"LOWER": w} for w in words]
                    + ([_s("board_model", op="{0,2}")] if kind == "board" else [])
                    + ([_s("os_version", op="?")] if kind == "os" else [])})
    return out


# spaCy's tokenizer rules for these lines: "Intel(R)" and "Core(TM)" keep their ")"; a
# sentence's "." and ")" go, a possessive's "'s" ("Xeon's with Intel E810-CQDA2") and
# U-Boot's device index ("ethact=ftgmac100#0"), a list's slash ("nbg6817/ QCA9984/ ath10k")
PREFIX = re.compile(r"""^[\(\["'<*]""").search
SUFFIX = re.compile(r"""(?<!\(R)(?<!\(TM)[\)\]"'>,;:!?*/]$|\.$|['’]s$|#\d{1,2}$""").search


@cache
def patterns() -> list[dict[str, Any]]:
    """The rules and the gazetteer, as span ruler patterns in order (of matches of one
    span, the first pattern's label is kept)."""
    return [{k: v for k, v in p.items()} for p in _patterns() + _gazetteer_patterns()]


@cache
def platform_words() -> frozenset[str]:
    """The words a line must hold to name a platform, lowercase: the first word of every
    platform phrase, the makers (``platform_firsts``) and the kernel phrases' keys."""
    return platform_firsts() | frozenset(kernel_keys())


@cache
def platform_firsts() -> frozenset[str]:
    """The first word of every platform phrase and the makers, lowercase."""
    return frozenset([p.lower().split()[0] for _, p in platform_phrases()] + MAKERS)


@cache
def kernel_keys() -> dict[str, tuple[str, ...]]:
    """The key word of each kernel phrase (``_key_word``) -> the phrases it keys: a line is
    read for them only if it holds one of these phrases whole."""
    out: dict[str, list[str]] = {}
    for _, phrase in kernel_phrases():
        if key := _key_word(phrase):
            out.setdefault(key, []).append(phrase)
    return {k: tuple(v) for k, v in out.items()}


# words of kernel phrases that prose uses for other things: a line holding one is no
# candidate for the phrase ("Data Modul ...", "Check Point ...", "Google Kevin")
COMMON_WORDS = frozenset("""
access action article base basic board boards boundary brain bridge carrier check classic
cloud communication compact computer computers computing console controller core data demo
design developer development device devices disk display dual echo edge edition electronics
embedded emulation endian engineering ethernet evaluation express extended first flex
freedom full game gateway general generation generic global google home honor inc. industrial
intel international internet inverse kit laptop linux lion lite logic machine machines magic
main mate max media micro mini model module modules nano network networks note open
performance personal phone platform play plus point power pro prototype quad reference router
semiconductor server shared shift single smart solutions space square starter steam storage
summit surface swift system systems tablet technologies technology touch traverse tree
ultimate version versatile video watch wireless zero zombie
""".split())


def _key_word(phrase: str) -> str | None:
    """The word of a kernel phrase a line must hold to be read for it: the longest with a
    digit, else the longest; no common word, nothing under four letters ("hardkernel
    odroid-c2": "odroid-c2"; "turris omnia": "turris")."""
    words = [w for w in phrase.split() if len(w) >= 4 and not w.isdigit()
             and w not in COMMON_WORDS]
    numbered = [w for w in words if any(c.isdigit() for c in w)]
    return max(numbered or words, key=len) if words else None
