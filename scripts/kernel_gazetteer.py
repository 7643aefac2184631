"""Build mlx/extract/data/kernel.tsv: the hardware vocabulary of the Linux kernel tree.

    python scripts/kernel_gazetteer.py [DEB_OR_TREE]
        (default: Debian's linux-source-6.12 package, downloaded by apt-get download)

The kernel names the hardware it runs on, so the names people write in mail are in its
tree (GPL-2.0; names and part numbers are facts, no code is copied):

- boards and SoCs from the device trees (``arch/*/boot/dts/**.dts``): the root node's
  ``model`` ("Hardkernel ODROID-C2", "Turris Omnia"), the tokens of it that name the board
  on their own (``odroid-c2``, ``macchiatobin``, ``beaglebone``), the board part of the
  first ``compatible`` ("hardkernel,odroid-c2"), and the SoC: the part of the last
  ``compatible`` ("amlogic,meson-gxbb") and the first word of the file's name
  (``am335x``-boneblack.dts, ``rk3399``-rock-pi-4b.dts); the name before the word that
  says it is a board ("Renesas White Hawk CPU and Breakout boards": ``white hawk``); and
  the SoC's marketing name in its ``.dtsi``'s header ("Device Tree Source for the R-Car
  V4H (R8A779G0) SoC": ``r-car v4h``);
- CPU code names: Intel's from ``arch/x86/include/asm/intel-family.h`` (``alderlake``,
  ``sapphire rapids``, ``goldmont``), Arm cores from ``arch/arm64/include/asm/cputype.h``
  (``cortex-a72``, ``neoverse n1``, ``thunderx2``), MIPS cores from
  ``arch/mips/kernel/cpu-probe.c`` (``24kc``, ``mips 24kc``), POWER and PowerPC from
  ``arch/powerpc/kernel/cpu_specs*.h`` (``power10``, ``e500mc``);
- NICs and wifi: the modules of the Makefiles of the hardware drivers (``drivers/net/``'s
  ethernet, wireless, usb, phy, can, dsa, wwan and pcs, and ``drivers/bluetooth``) that
  name a chip (``r8169``, ``mvpp2``, ``mt7921e``, ``r8152``, ``mcp251xfd``), the part
  numbers of their Kconfig prompts ("Realtek 8822CU USB wireless network adapter":
  ``rtl8822cu``), the PHY drivers' names ("Aquantia AQR113": ``aqr113``), the
  controllers the Bluetooth drivers name (``bcm4345c5``, ``wcn6855``, ``rtl8761bu``), and the
  Synopsys MAC cores of stmmac (``dwmac4``/``gmac4``, ``dwxgmac2``/``xgmac``).

One line per phrase: phrase (lowercase, words split at whitespace as the hardware
tokenizer splits them), kind (``board``, ``cpu``, ``nic``, ``wifi``), the file it came
from.  A phrase two kinds claim keeps the first of cpu, nic, wifi, board; tokens the
PCI/USB gazetteer (``nics.tsv``) holds are left to it.  ``rows(files)`` is the whole
derivation, from (path, text) pairs, so tests run it on a small tree of their own.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import re
import subprocess
import sys
import tarfile
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "mlx" / "extract" / "data"
OUT = DATA / "kernel.tsv"
PACKAGE = "linux-source-6.12"
# the files read, by path inside the tree
WANTED = re.compile(r"^arch/[\w-]+/boot/dts/.*\.dtsi?$|^arch/x86/include/asm/intel-family\.h$|"
                    r"^arch/arm64/include/asm/cputype\.h$|^arch/mips/kernel/cpu-probe\.c$|"
                    r"^arch/powerpc/kernel/cpu_specs\w*\.h$|"
                    r"^drivers/net/(?:ethernet|wireless|usb|phy|can|dsa|wwan|pcs)/"
                    r".*(?:Kconfig|Makefile)$|^drivers/bluetooth/(?:Kconfig|Makefile)$|"
                    r"^drivers/net/phy/[\w-]+\.c$|^drivers/bluetooth/[\w-]+\.c$|"
                    r"^drivers/net/ethernet/stmicro/stmmac/[\w-]+\.c$")
KIND_ORDER = ("cpu", "nic", "wifi", "board")

# a word with a letter and a digit ("odroid-c2", "rk3399", "8822cu"), not a version or size
PART = re.compile(r"^(?=[\w.+-]*[a-z])(?=[\w.+-]*\d)[a-z0-9][\w.+-]{2,30}$")
NOT_PART = re.compile(r"^(?:v|rev|r)\d{1,2}(?:\.\d{1,3})*[a-z]?\+?$|"
                      r"^rev\.?[a-z]?\d{1,2}(?:\.\d{1,3})*$|"  # "rev.b0"
                      r"^(?:gen|ver|mk|ddr|lpddr|usb|pcie?|sata|emmc|m\.?2|x|sku|"
                      r"eth|ether|lan|wan|wlan|port)[\d_-][\w.-]*$|"
                      r"^\d+(?:\.\d+)?(?:[kmgt](?:i?b|bit|bits|bps|be)?|gbe|mhz|ghz|bit|ports?|"
                      r"lanes?|x\d+|p|w|base-?\w*)$|"
                      # "43xx", "5xxx": a family of parts, no part; "ieee802.11n"
                      r"^\d+x+$|802\.|"
                      # software named like a chip: test modules, simulators, protocol helpers
                      r"hwsim|tests?$|^virt|crypto|ipsec|ktls|^ptp|^mii|^mac80211|"
                      r"^\d+(?:-\w+)?-(?:bit|port|core|way|lane)s?$|^[a-z]\d$|^ipv\d$|"
                      r"^802\.\w+$|^(?:dual|quad|single)-\w+$")
# "BeagleBone", "MACCHIATOBin", "VoCore2": a mixed-case word names a product
CAMEL = re.compile(r"^(?=.*[a-z])(?=.*(?:[a-z][A-Z]|[A-Z]{2}[a-z]))[A-Za-z][A-Za-z0-9+-]{5,30}$")
# "AM62x", "AM335x": a SoC family written in a board's model
SOC_FAMILY = re.compile(r"^[a-z]{1,6}\d{2,5}x{1,2}$")
# words that name no board on their own, whatever their case
GENERIC = {"board", "boards", "evk", "evb", "eval", "evaluation", "development", "dev",
           "devkit", "kit", "reference", "platform", "system", "module", "som", "carrier",
           "baseboard", "base", "mini", "plus", "pro", "max", "lite", "the", "and", "with",
           "for", "on", "of", "in", "a", "edition", "version", "router", "gateway", "tablet",
           "phone", "laptop", "chromebook", "computer", "server", "switch", "access", "point",
           "wireless", "ethernet", "single", "dual", "quad", "core", "soc", "cpu", "compact",
           "multilink", "quadcore", "quadplus", "onetouch", "ultralite", "microdev"}
# the words after a board's name in its model: "White Hawk CPU board", "V3M Starter Kit"
BOARD_WORDS = {"board", "boards", "cpu", "evk", "evb", "kit", "devkit", "som", "module",
               "carrier", "baseboard", "development", "evaluation", "reference", "platform"}
ROOT = re.compile(r"(?m)^/[ \t]*\{")
PROPERTY = re.compile(r"(?s)^[ \t]*(model|compatible)[ \t]*=[ \t]*(.*?);", re.M)
STRING = re.compile(r'"([^"]*)"')


def _words(text: str) -> list[str]:
    return [re.sub(r"-(?:based|family)$", "", w.strip(",;:()[]\"'")) for w in text.split()]


def _named(w: str) -> bool:
    """Does a lowercase word name a part on its own ("odroid-c2", "rk3399", "24kc")?"""
    return len(w) >= 4 and PART.match(w) is not None and NOT_PART.search(w) is None and \
        (w[0].isalpha() or len(re.findall(r"[a-z]", w)) >= 2)


def _root_props(text: str) -> tuple[str | None, list[str]]:
    """The root node's model and compatible list (properties before its first child)."""
    m = ROOT.search(text)
    if m is None:
        return None, []
    body = text[m.end():]
    child = re.search(r"(?m)^[ \t]*[\w@,.-]+[ \t]*\{|^[ \t]*&\w+[ \t]*\{", body)
    body = body[:child.start()] if child else body
    model, compatible = None, []
    for p in PROPERTY.finditer(body):
        values = STRING.findall(p.group(2))
        if p.group(1) == "model" and values and model is None:
            model = values[0]
        elif p.group(1) == "compatible" and values and not compatible:
            compatible = values
    return model, compatible


def _part(compatible: str) -> str:
    return compatible.split(",", 1)[-1].lower()


def dts_rows(path: str, text: str, vendors: set[str]) -> Iterator[tuple[str, str]]:
    """(phrase, kind) of one device tree: its board and its SoC."""
    model, compatible = _root_props(text)
    socs = set()
    stem = path.rsplit("/", 1)[-1].removesuffix(".dts").lower()
    first = stem.split("-")[0]
    # "am335x-boneblack.dts": the SoC, where a compatible after the board's starts with it
    if _named(first) and any(_part(c).startswith(first) for c in compatible[1:]):
        socs.add(first)
    # the SoC's compatible: the last, and any after the board's without a dash
    # ("atmel,sama5d2-ptc_ek", "atmel,sama5d2", "atmel,sama5")
    for k, c in enumerate(compatible[1:], 2):
        if _named(soc := _part(c)) and (k == len(compatible) or "-" not in soc):
            socs.add(soc)
    for soc in socs:
        yield soc, "cpu"
    if compatible:
        board = _part(compatible[0])
        if _named(board) and board not in socs:
            yield board, "board"
    if not model:
        return
    words = _words(model)
    low = [w.lower() for w in words if w]
    if 1 < len(low) <= 6:
        yield " ".join(low), "board"
    rest = low[:]
    # "TI AM335x BeagleBone Black": the board's name without its maker and its SoC
    while rest and (rest[0] in vendors or rest[0] in socs or SOC_FAMILY.match(rest[0])):
        rest = rest[1:]
    if 1 < len(rest) < len(low) and not set(rest) <= GENERIC:
        yield " ".join(rest), "board"
    # "Renesas White Hawk CPU and Breakout boards based on r8a779g0": the words before the
    # word that says it is a board ("white hawk")
    name = list(itertools.takewhile(lambda w: w not in GENERIC and w not in socs, rest))
    if 1 < len(name) < len(rest) and rest[len(name)] in BOARD_WORDS:
        yield " ".join(name), "board"
    for word, w in zip(words, low, strict=True):
        if w in GENERIC or w in socs or w in vendors:
            continue
        if SOC_FAMILY.match(w):
            yield w, "cpu"
            continue
        if _named(w) or CAMEL.match(word):
            yield w, "board"


# "Device Tree Source for the R-Car V4H (R8A779G0) SoC", "Device Tree Include file for Marvell
# Armada XP family SoC": the SoC's name in the header of its .dtsi
SOC_HEADER = re.compile(r"\bfor (?:the )?((?:[A-Z][\w'./+-]* ){0,3}?[A-Z][\w./+-]*)"
                        r"(?: \([^)]*\))?(?: family)? SoCs?\b")


def soc_rows(text: str, vendors: set[str]) -> Iterator[tuple[str, str]]:
    """(phrase, "cpu") of the SoC a .dtsi's header comment names by its marketing name."""
    head = " ".join(line.strip(" \t/*") for line in text.splitlines()[:15]
                    if line.lstrip().startswith(("/*", "*", "//")))
    for m in SOC_HEADER.finditer(head):
        words = [w.lower() for w in m.group(1).split()]
        while words and (words[0] in vendors or words[0].endswith("'s")):
            words = words[1:]  # "Samsung's Exynos850", "Marvell Armada XP": no maker
        if 2 <= len(words) <= 3 and not set(words) & GENERIC:
            yield " ".join(words), "cpu"  # "r-car v4h", "armada xp"


# "INTEL_SAPPHIRERAPIDS_X", "INTEL_ATOM_GOLDMONT_D", "INTEL_CORE2_MEROM": a family's name
INTEL = re.compile(r"^#define[ \t]+INTEL_(?:FAM6_)?([A-Z0-9_]+)[ \t]+IFM\(")
INTEL_SUFFIX = re.compile(r"_(?:L|X|D|G|H|N|P|S|U|M|EP|EX|MID|TABLET|PLUS|NNPI|GRACEMONT|"
                          r"MOBILE)$")
# the words Intel's names run together: "SAPPHIRERAPIDS" is "Sapphire Rapids"
JOINED = re.compile(r"^([A-Z]+?)(LAKE|RAPIDS|BRIDGE|FOREST|RIDGE|TRAIL|MONT|COVE|WELL|FIELD)$")
ARM = re.compile(r"^#define[ \t]+(?:ARM|APM|CAVIUM|BRCM|QCOM|NVIDIA|FUJITSU|HISI|APPLE|AMPERE|"
                 r"MICROSOFT)_CPU_PART_([A-Z0-9_]+)[ \t]")
MIPS = re.compile(r'__cpu_name\[cpu\][ \t]*=[ \t]*"([^"]+)"')
PPC = re.compile(r'\.cpu_name[ \t]*=[ \t]*"([^"]+)"')


def cpu_rows(path: str, text: str) -> Iterator[tuple[str, str]]:
    """(phrase, "cpu") of the CPU names one header or table of the tree holds."""
    for line in text.splitlines():
        if m := INTEL.match(line):
            name = INTEL_SUFFIX.sub("", m.group(1))
            if name in ("ANY", "PENTIUM_PRO"):
                continue
            name = re.sub(r"^(?:ATOM|CORE2?|XEON_PHI)_", "", name)
            for part in name.split("_"):
                if len(part) < 4 or part.isdigit():
                    continue
                yield part.lower(), "cpu"
                if (j := JOINED.match(part)) and len(j.group(1)) >= 3 and \
                        j.group(2) not in ("MONT", "WELL", "FIELD"):
                    yield f"{j.group(1)} {j.group(2)}".lower(), "cpu"  # "alder lake"
        elif m := ARM.match(line):
            name = m.group(1).lower()
            if name in ("aem_v8", "foundation") or name.startswith(("octx2", "kryo_")):
                continue
            name = re.sub(r"_(?:pro|max|v1)$", "", name)
            parts = name.split("_")
            if parts[0] in ("m1", "m2") and len(parts) == 2:
                parts = parts[1:]  # Apple's "M1_ICESTORM": the core "icestorm"
            if len("".join(parts)) >= 4:
                yield "-".join(parts), "cpu"  # "cortex-a72", "neoverse-n1"
                if len(parts) > 1:
                    yield " ".join(parts), "cpu"  # "neoverse n1", "cortex a72"
    for rx in (MIPS, PPC):
        for m in rx.finditer(text):
            words = [w for w in _words(re.sub(r"\([^)]*\)|\bRev\..*$", "", m.group(1)).lower())
                     if w]
            if not words:
                continue
            if len(words) > 1:
                yield " ".join(words), "cpu"  # "mips 24kc", "broadcom bmips5000"
            for w in words:
                if _named(w):
                    yield w, "cpu"  # "24kc", "power10", "e500mc"


MAKE_OBJ = re.compile(r"obj-\$\(CONFIG_\w+\)[ \t]*[+:]?=[ \t]*([^\n#]+)")
PROMPT = re.compile(r'^[ \t]*(?:tristate|bool)[ \t]+"([^"]+)"', re.M)
BT_CHIP = re.compile(r"\b((?:RTL|QCA|WCN|MT|BCM|CYW|AR|SD)\d{3,5}[A-Z0-9]{0,4})\b|"
                     r'"rtl_bt/(rtl\d{4}[a-z]{0,3})_')
# what a network driver's prompt names beside its chip: the CPU or bus of the board it
# sits on ("on ARM7 ...", "PC/104", "MPC5xxx")
NOT_A_NIC = re.compile(r"^(?:arm\d{1,2}\w*|pc-?104|mpc\d\w*)$")
# a PHY driver's name in its phy_driver table: '.name = "Aquantia AQR113",'
PHY_NAME = re.compile(r'^[ \t]*\.name[ \t]*=[ \t]*"([^"]+)"', re.M)
STMMAC_CORE = re.compile(r"^(dw(?:x?l?x?g)?mac\d*)_(?:core|dma|lib)\.c$")


def driver_rows(path: str, text: str, vendor_dirs: set[str]) -> Iterator[tuple[str, str]]:
    """(phrase, kind) of the chip names a network driver Makefile, Kconfig or stmmac
    file gives."""
    kind = "wifi" if path.startswith(("drivers/net/wireless/", "drivers/bluetooth/")) else "nic"
    name = path.rsplit("/", 1)[-1]
    if path.startswith("drivers/bluetooth/") and name.endswith(".c"):
        # the controllers a Bluetooth driver knows: "BCM4345C5", "WCN6855", and the
        # chips of its firmware names ("rtl_bt/rtl8761bu_fw.bin")
        for m in BT_CHIP.finditer(text):
            if _named(low := (m.group(1) or m.group(2)).lower()):
                yield low, "wifi"
    elif path.startswith("drivers/net/phy/") and name.endswith(".c"):
        # a PHY driver's name: "Aquantia AQR113", "Microchip KSZ9131 Gigabit PHY"
        for m in PHY_NAME.finditer(text):
            for w in _words(m.group(1).replace("/", " ")):
                if _named(low := w.lower()):
                    yield low, "nic"
    elif name == "Makefile":
        for m in MAKE_OBJ.finditer(text):
            for obj in m.group(1).split():
                mod = obj.removesuffix(".o").rstrip("/").lower()
                if obj.endswith("/") and mod in vendor_dirs:
                    continue  # "intel/": a vendor's directory
                # a module with a digit, "_" or "-" names a chip ("r8169", "mtk_eth");
                # a plain word may be English ("tulip", "typhoon", "falcon")
                if re.search(r"[\d_-]", mod) and _named(mod) and not re.search(
                            r"(?:common|core|lib|ptp|mdio|regmap|debugfs|trace|phy|"
                            r"switch|platform|pci|spi|i2c|uart|ops|mbox|desc|pool)$", mod):
                    yield mod, kind
    elif name == "Kconfig":
        for m in PROMPT.finditer(text):
            prompt = m.group(1)
            realtek = prompt.lower().startswith("realtek")
            for w in _words(prompt.replace("/", " ")):
                low = w.lower()
                if _named(low) and not NOT_A_NIC.match(low):
                    yield low, kind
                    if realtek and low[0].isdigit():
                        yield "rtl" + low, kind  # "Realtek 8822CU": the RTL8822CU
    elif name.startswith("dwmac-") and name.endswith(".c"):
        glue = name.removesuffix(".c")
        if len(glue) > len("dwmac-"):
            yield glue, "nic"  # "dwmac-sun8i", "dwmac-rk"
    elif m := STMMAC_CORE.match(name):
        core = m.group(1)
        yield core, "nic"  # "dwmac4", "dwxgmac2"
        # the cores as Synopsys and stmmac's messages name them: GMAC4, XGMAC
        if core == "dwmac4":
            yield "gmac4", "nic"
        elif core.startswith(("dwxgmac", "dwxlgmac")):
            yield core[2:], "nic"
            yield core[2:].rstrip("0123456789"), "nic"


def rows(files: Iterable[tuple[str, str]], known: Collection[str] = frozenset()
         ) -> list[tuple[str, str, str]]:
    """(phrase, kind, source path) of every name the files give, one per phrase, sorted;
    ``known`` phrases (the PCI/USB gazetteer's) are left out."""
    files = list(files)
    vendors: set[str] = set()
    vendor_dirs: set[str] = set()
    for path, text in files:
        if path.endswith(".dts"):
            _, compatible = _root_props(text)
            vendors.update(c.split(",", 1)[0].lower() for c in compatible if "," in c)
        elif path == "drivers/net/ethernet/Makefile":
            vendor_dirs.update(o.rstrip("/").lower() for m in MAKE_OBJ.finditer(text)
                               for o in m.group(1).split() if o.endswith("/"))
    vendors |= {"ti", "nxp", "fsl", "st", "stm", "intel", "amd", "arm", "qualcomm", "qcom",
                "mediatek", "marvell", "broadcom", "nvidia", "rockchip", "allwinner",
                "amlogic", "renesas", "samsung", "microchip", "atmel", "xilinx", "aspeed"}
    found: dict[str, tuple[str, str]] = {}
    socs: list[str] = []
    for path, text in sorted(files, key=lambda f: (not f[0].endswith(".dts"), f[0])):
        if path.endswith(".dts"):
            got: Iterable[tuple[str, str]] = dts_rows(path, text, vendors)
        elif path.endswith(".dtsi"):
            got = soc_rows(text, vendors)
        elif path.startswith("arch/"):
            got = cpu_rows(path, text)
        else:
            got = driver_rows(path, text, vendor_dirs)
        for phrase, kind in got:
            phrase = " ".join(phrase.split())
            if not phrase or phrase in known or phrase in GENERIC or len(phrase) < 4 or \
                    re.match(r"\d+(?:[-.]|\s|$)", phrase):
                continue  # "1-bay", "13-inch", "4 model b": a size or a count first
            if kind == "cpu" and path.endswith(".dts"):
                socs.append(phrase)
            elif kind in ("nic", "wifi") and any(s.startswith(phrase) for s in socs):
                continue  # "AM65 CPSW" in a NIC's prompt: the SoC's name, no NIC's
            elif kind == "nic" and "x" in phrase and (family := re.compile(
                    re.escape(phrase).replace("x", r"\w") + "$")) and \
                    any(family.match(s) for s in socs):
                kind = "cpu"  # "Qualcomm IPQ806x DWMAC": the family of the SoC ipq8064
            have = found.get(phrase)
            if have is None or KIND_ORDER.index(kind) < KIND_ORDER.index(have[0]):
                found[phrase] = (kind, path)
    return sorted((p, k, src) for p, (k, src) in found.items())



def tree_files(root: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of the wanted files of a kernel tree on disk."""
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if WANTED.match(rel) and p.is_file() and not p.is_symlink():  # as in the package
            yield rel, p.read_text(encoding="utf-8", errors="replace")


def deb_files(deb: Path) -> Iterator[tuple[str, str]]:
    """(path, text) of the wanted files of Debian's linux-source package, streamed: the
    package's data holds the tree as one tar.xz."""
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as outer:
        member = next(m for m in outer.getmembers() if m.name.endswith(".tar.xz"))
        inner = outer.extractfile(member)
        assert inner is not None
        with tarfile.open(fileobj=inner, mode="r|xz") as tree:
            for m in tree:
                rel = m.name.split("/", 1)[-1]
                if m.isfile() and WANTED.match(rel):
                    fh = tree.extractfile(m)
                    if fh is not None:
                        yield rel, fh.read().decode("utf-8", "replace")


def write(out: Path, found: list[tuple[str, str, str]], source: str) -> None:
    with out.open("w", encoding="utf-8") as fh:
        fh.write(f"# hardware names of the Linux kernel tree ({source}), by "
                 "scripts/kernel_gazetteer.py; phrase, kind, file\n")
        for row in found:
            fh.write("\t".join(row) + "\n")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def known_tokens() -> set[str]:
    nics = DATA / "nics.tsv"
    return {line.split("\t", 1)[0] for line in nics.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")}


def main(argv: list[str]) -> int:
    if argv:
        src = Path(argv[0])
    else:
        subprocess.run(["apt-get", "download", PACKAGE], check=True, cwd="/tmp")
        src = max(Path("/tmp").glob(f"{PACKAGE}_*.deb"))
    if not src.exists():
        print(f"Error: {src} not found", file=sys.stderr)
        return 1
    if src.is_dir():
        files, source = tree_files(src), src.name
    else:
        files, source = deb_files(src), f"{src.name}, sha256 {sha256(src)}"
    found = rows(files, known_tokens())
    write(OUT, found, source)
    print(f"{len(found)} phrases -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
