"""scripts/kernel_gazetteer.py: the kernel tree's hardware names, and the shipped file."""

import hashlib
import os
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import kernel_gazetteer as K  # noqa: E402

TREE = ROOT / "tests" / "data" / "kernel-tree"


def test_rows_of_a_small_tree() -> None:
    """Each source gives its names: a board's model, its CamelCase and compatible names, the
    name before the word that says it is a board ("Grey Heron CPU and Breakout boards"),
    and its SoC (the compatible after it, the file name's first word, the marketing name
    of its .dtsi's header); Intel, Arm and MIPS code names; modules of the Ethernet, USB
    and Bluetooth drivers, Kconfig part numbers (a Realtek part with its RTL), PHY
    drivers' names, the controllers
    a Bluetooth driver names, stmmac's cores; a MAC glue's prompt names its SoC's family
    ("Acme ZX31xx DWMAC": a cpu). A child node's compatible, "FOUNDATION", speeds,
    library and class modules, a PHY's revision, an MDIO bus's name and vendor
    directories give nothing."""
    got = K.rows(K.tree_files(TREE))
    assert [(p, k) for p, k, _ in got] == [
        ("9999xu", "wifi"), ("99kc", "cpu"), ("acme zx3100 pebbleboard one", "board"),
        ("acme9152", "nic"), ("acme9961", "wifi"), ("acme_zx9", "nic"), ("aqz113", "nic"),
        ("bcm9999c5", "wifi"),
        ("cortex a99", "cpu"), ("cortex-a99", "cpu"),
        ("dwmac-pebble", "nic"), ("dwmac4", "nic"), ("dwxgmac2", "nic"), ("gmac4", "nic"),
        ("grey heron", "board"), ("grey heron cpu and breakout boards based on zx3100", "board"),
        ("mips 99kc", "cpu"), ("neoverse q7", "cpu"), ("neoverse-q7", "cpu"),
        ("pebbleboard", "board"), ("pebbleboard one", "board"), ("pebblemont", "cpu"),
        ("quill router", "board"), ("quill-r2", "board"), ("rtl9999bu", "wifi"),
        ("rtl9999xu", "wifi"),
        ("willow lake", "cpu"), ("willowlake", "cpu"), ("xgmac", "nic"), ("xgmac2", "nic"),
        ("z-chip w3", "cpu"), ("zx3100", "cpu"), ("zx31xx", "cpu"), ("zx9-40g", "nic")]
    assert dict((p, s) for p, _, s in got)["zx3100"].endswith("zx3100-grey-heron.dts")


def test_known_tokens_are_left_to_the_pci_gazetteer() -> None:
    assert "xgmac" not in {p for p, _, _ in K.rows(K.tree_files(TREE), known={"xgmac"})}


# The package the shipped file was built from (its header names it and its sha256).
HEADER = (ROOT / "mlx/extract/data/kernel.tsv").read_text(encoding="utf-8").split("\n", 1)[0]
DEB = HEADER.split("(", 1)[1].split(",", 1)[0]
POOL = "http://deb.debian.org/debian/pool/main/l/linux/"


def _package(tmp_path: Path) -> Path:
    """The package: $MLX_KERNEL_DEB (.ci/run fetches it), else downloaded from Debian's pool."""
    if path := os.environ.get("MLX_KERNEL_DEB"):
        return Path(path)
    out = tmp_path / DEB
    try:
        urllib.request.urlretrieve(POOL + DEB.replace("~", "%7E").replace("+", "%2B"), out)
    except OSError as e:
        pytest.fail(f"{DEB} could not be fetched ({e}): rebuild mlx/extract/data/kernel.tsv "
                    "with `python scripts/kernel_gazetteer.py` from the current package")
    return out


def test_the_shipped_gazetteer_regenerates_from_its_package(tmp_path: Path) -> None:
    deb = _package(tmp_path)
    digest = hashlib.sha256(deb.read_bytes()).hexdigest()
    assert f"sha256 {digest}" in HEADER, "the package is not the one the file was built from"
    out = tmp_path / "kernel.tsv"
    K.write(out, K.rows(K.deb_files(deb), K.known_tokens()),
            f"{deb.name}, sha256 {digest}")
    assert out.read_text(encoding="utf-8") == \
        (ROOT / "mlx/extract/data/kernel.tsv").read_text(encoding="utf-8")
