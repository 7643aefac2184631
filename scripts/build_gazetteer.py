"""Build mlx/extract/data/nics.tsv: NIC and wifi model names from the PCI and USB ID databases.

    python scripts/build_gazetteer.py [--pci PATH] [--usb PATH]   (default /usr/share/misc/)

Debian's ``pci.ids`` and ``usb.ids`` packages install the databases
(https://pci-ids.ucw.cz, https://www.linux-usb.org/usb-ids.html; pci.ids is
BSD-3-Clause or GPL-2.0-or-later, usb.ids GPL-2.0-or-later or BSD-3-Clause).
A device entry is a network or wireless device when its name says so
(``Ethernet``, ``Network``, ``Wireless``, ``802.11``, ``Wi-Fi``, ...) or its
vendor makes nothing else (Mellanox, Chelsio, Solarflare, ...).  From each such
name the model tokens are kept (``I210``, ``X710``, ``82599ES``, ``BCM57416``,
``ConnectX-5``, ``RTL8125``, ``QCA9984``, ``AX210``): a token with a letter and
a digit, not a speed, a bus or a standard.  The output is one line per token:
token (lowercase), kind (``nic`` or ``wifi``), vendor, the device name it came
from; tokens two kinds claim keep the first.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "mlx" / "extract" / "data" / "nics.tsv"
# "	15fb  Ethernet Connection (13) I219-LM": a device line under its vendor
DEVICE = re.compile(r"^\t([0-9a-f]{4})  (.+)$")
# "8086  Intel Corporation": a vendor line
VENDOR = re.compile(r"^([0-9a-f]{4})  (.+)$")
WIFI = re.compile(r"(?i)wireless|wlan|wi-?fi|802\.11|\bwave ?2\b|\bax2\d\d|\bbe2\d\d")
NET = re.compile(r"(?i)ethernet|network|gigabit|\bgbe\b|\b\d+g(?:b|bit)?e?\b|\bnic\b|connectx|"
                 r"netxtreme|bluefield|\blan\b|fast ethernet|sfp|qsfp|nbase-t|\bcna\b|"
                 r"unified wire|fabric adapter")
# vendors whose devices are network devices (pci.ids vendor ids)
NETWORK_VENDORS = {"15b3", "1425", "1924", "19ee", "1d6a", "1dd8", "1fc9", "8088", "1137",
                   "19a2", "1077", "14c1"}
# "I219-LM", "X710", "82599ES", "BCM57416", "ConnectX-5", "MT27800", "RTL8111/8168/8411"
TOKEN = re.compile(r"(?<![\w.-])([A-Za-z]{0,10}-?\d[\w]*(?:-[\w]+)*)(?![\w.-])")
# speeds, buses and standards are no model: "10GbE", "PCIe", "x8", "Gen3", "802.11ac", "2.5G"
NOT_MODEL = re.compile(r"(?i)^(?:\d+(?:\.\d+)?(?:g|m|k)?(?:b|bit|bps|be|bit/s|hz|gbe|base\w*)?|"
                       r"\d+x\d+\w*|x\d{1,2}|gen\d|pcie?\d*|v\d+|rev\d*|802\w*|ieee\w*|"
                       r"\d+(?:mhz|ghz|ports?|lanes?)|ddr\d|usb\d*|sata\d*|\d{1,3}|\d+-port|"
                       r"qsfp\d*\w*|sfp\d*\w*|osfp\w*|cfp\d*|\d+gb?|\d+mb)$")


# words with a digit that name no chip: protocols, hashes, encodings, CPU flags, arches
NOT_A_CHIP = re.compile(r"(?i)^(?:ipv\d|crc\d+|sha\d+|md5|utf\d+|x86\w*|i[3-6]86|amd64|arm64|"
                        r"l[2-4]\w?|vf\d*|pf\d*|wifi\d\w?|cx\d{1,2}|usb\d\w*|gen\d\w*|"
                        r"rev\d\w*|\d{3,4}[km]?b?ps|\d+base[\w-]*|[a-z]\d|\d+-bit|\d+-port|"
                        r"\d+-lane|\d+-way)$")


def tokens(name: str) -> list[str]:
    """The model tokens of one device name."""
    out = []
    for raw in TOKEN.findall(name.replace("/", " ")):
        tok = raw.strip("-")
        if len(tok) < 4 or NOT_MODEL.match(tok) or NOT_A_CHIP.match(tok) or \
                not re.search(r"[A-Za-z]", tok) and len(tok) < 5:
            continue
        out.append(tok.lower())
        if "-" in tok and not tok.lower().startswith(("connectx", "bcm")):
            head = tok.split("-")[0]
            if len(head) >= 4 and re.search(r"\d", head) and re.search(r"[A-Za-z]", head) \
                    and not NOT_A_CHIP.match(head):
                out.append(head.lower())  # "I219-LM" is also written "I219"
    return out


def read(path: Path, usb: bool) -> list[tuple[str, str, str, str]]:
    """(token, kind, vendor, name) of every network or wireless device of one database."""
    rows = []
    vendor_id = vendor = ""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("C "):
            break  # the class list follows the vendors
        if m := VENDOR.match(line):
            vendor_id, vendor = m.group(1), m.group(2)
            continue
        m = DEVICE.match(line)
        if m is None:
            continue
        name = m.group(2)
        wifi = WIFI.search(name) is not None
        if not (wifi or NET.search(name) or (not usb and vendor_id in NETWORK_VENDORS)):
            continue
        if re.search(r"(?i)bluetooth|modem|\bbt\b|storage|raid|sas\b|fibre channel|switch "
                     r"chip|infiniband|nvme", name) and not wifi:
            continue
        short = re.sub(r",? (?:Inc|Corp|Corporation|Co|Ltd|Technologies|Technology|"
                       r"Semiconductor|Communications|Systems|and subsidiaries)\.?.*$", "",
                       vendor)
        for tok in tokens(name):
            rows.append((tok, "wifi" if wifi else "nic", short, name))
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pci", type=Path, default=Path("/usr/share/misc/pci.ids"))
    ap.add_argument("--usb", type=Path, default=Path("/usr/share/misc/usb.ids"))
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    for path in (a.pci, a.usb):
        if not path.exists():
            print(f"Error: {path} not found; apt-get install pci.ids usb.ids", file=sys.stderr)
            return 1
    seen: dict[str, tuple[str, str, str, str]] = {}
    rows = read(a.pci, usb=False) + read(a.usb, usb=True)
    # a token standing in its own device's name first ("I211 Gigabit Network Connection"),
    # before a board maker's entry that names the chip ("Lenovo ... Intel 82599ES ...")
    rows.sort(key=lambda r: not r[3].lower().startswith(r[0].split("-")[0]))
    for row in rows:
        seen.setdefault(row[0], row)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", encoding="utf-8") as fh:
        fh.write(f"# NIC and wifi model tokens from {a.pci.name} and {a.usb.name} "
                 "(scripts/build_gazetteer.py); token, kind, vendor, device name\n")
        for tok in sorted(seen):
            fh.write("\t".join(seen[tok]) + "\n")
    print(f"{len(seen)} tokens -> {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
