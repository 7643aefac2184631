import pytest

from mlx.ingest.repair import (
    decode_bytes,
    decode_header,
    decode_rfc2047,
    html_to_text,
    repair_qp,
    unfold,
)


@pytest.mark.parametrize("data, declared, text, defects", [
    # plain ASCII takes the fast path whatever is declared
    (b"iperf3 -c host", "utf-8", "iperf3 -c host", []),
    # the declared charset is right
    ("Jörg".encode("iso-8859-1"), "iso-8859-1", "Jörg", []),
    # latin-1 bytes in a message declaring utf-8: still right, with a defect
    ("Jörg Roßberg".encode("latin-1"), "utf-8", "Jörg Roßberg", ["charset-mismatch"]),
    # utf-8 bytes under a latin-1 label would give mojibake "JÃ¶rg"
    ("Jörg".encode(), "iso-8859-1", "Jörg", ["charset-mismatch"]),
    # openwrt-devel holds charset=true and charset=y
    ("Jörg".encode(), "true", "Jörg", ["unknown-charset"]),
    # us-ascii declared, 8-bit bytes sent anyway
    ("±5%".encode(), "us-ascii", "±5%", ["charset-mismatch"]),
    # no charset at all: utf-8, then cp1252 ("smart quotes" from Outlook)
    (b"\x93quoted\x94", None, "\u201cquoted\u201d", ["undeclared-8bit"]),
    # gb2312 declared, gb18030-only characters written (ath10k, openwrt)
    ("中文".encode("gb18030"), "gb2312", "中文", []),
])
def test_decode_bytes(data: bytes, declared, text: str, defects: list[str]) -> None:
    assert decode_bytes(data, declared) == (text, defects)


@pytest.mark.parametrize("value, text", [
    ("=?UTF-8?Q?J=C3=B6rg_Ro=C3=9Fberg?=", "Jörg Roßberg"),
    # whitespace between adjacent encoded words is dropped
    ("=?UTF-8?Q?Re:_[PATCH_v2]_use?= =?UTF-8?Q?_DEV=5FSTATS?=", "Re: [PATCH v2] use DEV_STATS"),
    # a multi-byte character split over two words comes out whole
    ("=?UTF-8?B?SsO=?= =?UTF-8?B?tnJn?=", "Jörg"),
    # lowercase q and a language tag (RFC 2231)
    ("=?iso-8859-1*fr?q?Andr=E9?=", "André"),
    # text around encoded words is kept
    ("Re: =?utf-8?b?w7w=?= test", "Re: ü test"),
    # base64 without padding
    ("=?utf-8?B?SGVsbG8?=", "Hello"),
])
def test_rfc2047(value: str, text: str) -> None:
    assert decode_rfc2047(value)[0] == text


def test_header_unfold_and_decode() -> None:
    assert unfold("Re: [PATCH]\n\tfoo\r\n  bar") == "Re: [PATCH] foo bar"
    folded = "=?UTF-8?Q?Re:_[PATCH_v2_net]_wireguard:_use_DEV?=\n =?UTF-8?Q?=5FSTATS=5FINC()?="
    assert decode_header(folded)[0] == "Re: [PATCH v2 net] wireguard: use DEV_STATS_INC()"
    # raw utf-8 bytes in a header (compat32 hands them over surrogate-escaped)
    raw = "Jörg".encode().decode("ascii", "surrogateescape")
    assert decode_header(raw) == ("Jörg", [])
    raw = "Jörg".encode("latin-1").decode("ascii", "surrogateescape")
    assert decode_header(raw) == ("Jörg", ["header-charset"])


SUM_QP = ("[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162             =\n"
          "sender\n")


@pytest.mark.parametrize("text, repaired", [
    # the seed's damage: soft breaks plus an "=3D" escape
    (SUM_QP + "see ?id=3D95951af7249912a4356b9a03cf3ad=\ndc7e3f8f724=",
     "[SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162             sender\n"
     "see ?id=95951af7249912a4356b9a03cf3addc7e3f8f724"),
    # non-ASCII escapes decode as utf-8
    ("41 =C2=B0C, Ren=C3=A9 =\nagrees\n", "41 °C, René agrees\n"),
    # the same damage inside "> " quoted text of a reply, own text clean
    ("Thanks, looks good == to me.\n> " + SUM_QP.replace("\n", "\n> ", 1) + "> a=3Db\n",
     "Thanks, looks good == to me.\n> [SUM]   0.00-10.04  sec   466 MBytes   390 Mbits/sec  162"
     "             sender\n> a=b\n"),
    # a soft break before a line that starts with a blank: the blank is text, not a prefix
    ("The client is=\n a laptop, caf=C3=A9 wifi=\n\n", "The client is a laptop, café wifi\n"),
    # the same quoted: "> " is the prefix, the second blank is text
    ("> The client is=\n>  a laptop, caf=C3=A9\n", "> The client is a laptop, café\n"),
    # quoted without a blank after ">": then the blank after the next ">" is text
    (">The client is=\n> a laptop, caf=C3=A9\n", ">The client is a laptop, café\n"),
])
def test_qp_repair(text: str, repaired: str) -> None:
    assert repair_qp(text) == (repaired, ["qp-repaired"])


@pytest.mark.parametrize("text", [
    # a diff comparing with "==" is no QP: real QP would have written "=3D=3D"
    "+\tif (a == b)\n+\t\treturn x =\n+\t\t\tfoo();\n",
    # C continuation lines ending in '=' without any escape
    "\tstruct foo_priv *priv =\n\t\tnetdev_priv(dev);\n\tint ret =\n\t\treset(priv);\n",
    # shell assignment and a lowercase hex lookalike
    "export CFLAGS=-O2\nid=beef\n",
    # one "=20" in a config line is no evidence by itself
    "#define FOO=20\n",
])
def test_qp_lookalikes_untouched(text: str) -> None:
    assert repair_qp(text) == (text, [])


def test_html_to_text() -> None:
    assert html_to_text("<p>a&amp;b<br>c</p><script>x()</script>") == "a&b\nc"


@pytest.mark.parametrize("line, depth, text", [
    ("> > [SUM] 0.00-10.04 sec", 2, "[SUM] 0.00-10.04 sec"),
    # an indented quote is a quote for QP repair and extraction alike
    ("  > x", 1, "x"),
    (">>>  y", 3, " y"),
    # unquoted text keeps its leading blanks
    ("   [  5] 0.00-1.00", 0, "   [  5] 0.00-1.00"),
])
def test_split_quote(line: str, depth: int, text: str) -> None:
    from mlx.text import split_quote
    assert split_quote(line) == (depth, text)
