"""The host a hardware fact is on: the prefix of its line ("Server: ...", "pbx4: AMD
GX-412TC SOC"), a shell prompt's host, or the line its indentation continues; never a
field's name ("Kernel version:"), a kernel log's device ("usb 2-1:"), a driver's or a
platform's prefix ("ath10k:") or a patch title's subsystem."""

from __future__ import annotations

import re

from mlx.extract.document import Document
from mlx.extract.hwshapes import Fact
from mlx.extract.hwvocab import BODY_HW, FIELDS, HOST_PREFIX, PROMPT

# a patch's title in a cover letter or a pull request names what the patch is about
# ("ramips: remove wan_mac setup ...": a lowercase subsystem, then a lowercase verb)
TITLE_LINE = re.compile(r"^[ \t]*(?:\[?\d+/\d+\]?[ \t]+)?(?:[0-9a-f]{7,40}[ \t]+)?"
                        r"([a-z0-9][\w./-]{1,30}): "
                        # ("ath10k: QCA9888 hw2.0: update firmware-5.bin to ...")
                        r"(?:[\w./-]{2,30}(?:[ \t][\w./-]{2,12})?: )*(?:[a-z]{2,}|[A-Z][a-z]+)\b")

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


# a spec sheet's numbered field ("WLAN2: QCA9880", "WiFi0:", "Radio1:"), no host
NUMBERED_FIELD = re.compile(r"(?i)^(?:wlan|wifi|radio|phy|eth|lan|wan)\d{1,2}$")


def host_of(text: str) -> str | None:
    if TITLE_LINE.match(text):
        return None  # "ath10k: add tx ...": a patch title, its prefix no host
    m = HOST_PREFIX.match(text)
    if m and m.group(1).lower() not in FIELDS and not BODY_HW.match(m.group(1)) and \
            not NUMBERED_FIELD.match(m.group(1)):
        return m.group(1)
    p = PROMPT.match(text)
    return p.group(1) if p else None


def machine(prefix: str | None) -> str | None:
    """A line's prefix as the host its facts are on: none where it names a field, a device
    or a driver (the line still reads as a setup line)."""
    if prefix is None or NOT_HOST.search(prefix) is not None or \
            not FIELD_WORDS.isdisjoint(prefix.lower().split()):
        return None
    return prefix


def line_host(i: int, doc: Document, found: dict[int, list[Fact]]) -> str | None:
    """The host of line i: its own prefix, or that of the line its indentation continues."""
    depth, text = doc.depth(i), doc.text(i)
    host = host_of(text)
    while host is None and text[:1] in (" ", "\t") and i > 0:
        i -= 1  # "      Ethernet controller: ..." under "pbx4: AMD GX-412TC SOC"
        if doc.depth(i) != depth or not doc.text(i).strip():
            return None
        text = doc.text(i)
        if text[:1] not in (" ", "\t"):
            return host_of(text) if i in found else None
    return host


def near_host_line(i: int, found: dict[int, list[Fact]]) -> bool:
    """A line under a host line ("Server: 6.7.0-rc1, ..., 196608 MB") is read too (if a
    weak word stands on it)."""
    return any(j in found for j in range(i - 3, i))
