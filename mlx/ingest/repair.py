"""Text repair: charset fallback, RFC 2047 words, header unfolding, QP damage.

Pure functions of ``str``/``bytes``; each returns the repaired text and the
defect codes it recorded, so the caller can put them on the message row.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re

from mlx.text import quote_prefix

# charsets seen declared in the wild that Python spells differently or that
# have a superset which decodes what senders really wrote
CHARSET_ALIASES = {
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030",
    "big5": "big5hkscs", "x-big5": "big5hkscs",
    "ks_c_5601-1987": "cp949", "euc-kr": "cp949",
    "iso-8859-8-i": "iso-8859-8", "x-mac-roman": "mac_roman",
    "unicode-1-1-utf-7": "utf-7", "utf8": "utf-8", "x-unknown": "",
    "unknown-8bit": "", "default": "", "us-ascii": "ascii", "ansi_x3.4-1968": "ascii",
}
LATIN1_FAMILY = {"latin-1", "iso8859-1", "cp1252", "ascii"}
FALLBACKS = ("utf-8", "cp1252", "latin-1")

# Subject: =?UTF-8?Q?J=C3=B6rg_Ro=C3=9Fberg?= <joerg@example.org>
# Subject: =?utf-8*en?B?W1BBVENIXSB0Y3A6IGZpeA==?=
ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([QqBb])\?([^?]*?)\?=")
ENCODED_GAP = re.compile(r"[ \t\r\n]*")
# "Re: [PATCH]\n\tfoo" and "Re: [PATCH]\r\n foo": folded header lines
FOLD = re.compile(r"[ \t]*\r?\n[ \t]*")
QP_ESCAPE = re.compile(r"=[0-9A-F]{2}")
QP_HEX_RUN = re.compile(r"(?:=[0-9A-F]{2})+")
Q_WORD_HEX = re.compile(rb"=([0-9A-Fa-f]{2})")
# '=' that QP can never produce: not "=XX" hex and not a soft break at line end
# ("a == b", "int x = 5;", "id=beef")
QP_INVALID = re.compile(r"=(?![0-9A-F]{2})(?![ \t]*$)", re.M)
# escapes that a QP encoder writes and plain text almost never holds:
# "=3D" ('='), "=20"/"=09" (trailing blanks), "=C2=B1" (non-ASCII bytes)
QP_STRONG = re.compile(r"=(?:3D|20|09|[89A-F][0-9A-F])")
TAG = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.S | re.I)
BLOCK_TAG = re.compile(r"<(?:br|/p|/div|/tr|/li|/h\d)\b[^>]*>", re.I)


def normalize_charset(declared: str | None) -> str:
    """Codec name for a declared charset, '' when none or unknown to Python."""
    if not declared:
        return ""
    name = declared.strip().strip("\"'").lower()
    name = CHARSET_ALIASES.get(name, name)
    if not name:
        return ""
    try:
        return codecs.lookup(name).name
    except LookupError:
        return ""


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, list[str]]:
    """Decode body bytes: declared charset, then utf-8, cp1252, latin-1."""
    if data.isascii():
        return data.decode("ascii"), []
    charset = normalize_charset(declared)
    defects: list[str] = []
    if declared and not charset:
        defects.append("unknown-charset")
    if charset and charset != "ascii":
        try:
            text = data.decode(charset)
        except UnicodeDecodeError:
            defects.append("charset-mismatch")
        else:
            if charset in LATIN1_FAMILY and _is_utf8(data):
                # utf-8 bytes under a latin-1 label: "JÃ¶rg" would be wrong
                return data.decode("utf-8"), ["charset-mismatch"]
            return text, defects
    elif charset == "ascii" or not declared:
        defects.append("undeclared-8bit" if not declared else "charset-mismatch")
    for fallback in FALLBACKS:
        try:
            return data.decode(fallback), defects
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_header_bytes(value: str) -> tuple[str, list[str]]:
    """Undo compat32's surrogateescape on raw 8-bit header bytes."""
    if value.isascii():
        return value, []
    raw = value.encode("utf-8", "surrogateescape")
    if _is_utf8(raw):
        return raw.decode("utf-8"), []
    text, _ = decode_bytes(raw, None)
    return text, ["header-charset"]


def unfold(value: str) -> str:
    """One line from a folded header; runs of folding whitespace become one space."""
    if "\n" not in value:
        return value.strip()
    return FOLD.sub(" ", value).strip()


def _decode_word(charset: str, enc: str, payload: str) -> bytes:
    if enc in "Bb":
        data = payload.encode("ascii", "replace")
        data += b"=" * (-len(data) % 4)
        return base64.b64decode(data, validate=False)
    raw = payload.replace("_", " ").encode("ascii", "replace")
    return Q_WORD_HEX.sub(lambda m: bytes([int(m.group(1), 16)]), raw)


def decode_rfc2047(value: str) -> tuple[str, list[str]]:
    """Decode encoded words anywhere in a header value.

    Adjacent words of one charset are joined as bytes before decoding, so a
    multi-byte character split over two words comes out whole; whitespace
    between two encoded words is dropped, as RFC 2047 says.
    """
    if "=?" not in value:
        return value, []
    out: list[str] = []
    defects: list[str] = []
    pending: list[bytes] = []
    pending_cs = ""
    pos = 0

    def flush() -> None:
        if pending:
            text, errs = decode_bytes(b"".join(pending), pending_cs or None)
            out.append(text)
            defects.extend(e for e in errs if e not in defects)
            pending.clear()

    for m in ENCODED_WORD.finditer(value):
        gap = value[pos:m.start()]
        if gap and not (pending and ENCODED_GAP.fullmatch(gap)):
            flush()
            out.append(gap)
        charset = m.group(1).split("*", 1)[0]
        try:
            data = _decode_word(charset, m.group(2), m.group(3))
        except (binascii.Error, ValueError):
            flush()
            out.append(m.group(0))
            defects.append("bad-encoded-word")
            pos = m.end()
            continue
        if pending and charset.lower() != pending_cs.lower():
            flush()
        pending_cs = charset
        pending.append(data)
        pos = m.end()
    flush()
    out.append(value[pos:])
    return "".join(out), defects


def decode_header(value: str | None) -> tuple[str | None, list[str]]:
    """Unfold, undo raw 8-bit bytes and decode RFC 2047 words of one header."""
    if value is None:
        return None, []
    text, defects = decode_header_bytes(str(value))
    text, more = decode_rfc2047(unfold(text))
    text = text.replace("\x00", "")
    return (text or None), defects + more


def _split_quote(line: str) -> tuple[str, str, int]:
    prefix = quote_prefix(line)
    return prefix, line[len(prefix):], prefix.count(">")


def looks_like_qp(contents: list[str]) -> bool:
    """Decide on evidence whether lines are quoted-printable left undecoded.

    Real QP never holds a bare '=' ("a == b", "x = 5;"), so one such '='
    rules QP out.  Then it needs escapes only an encoder writes ("=3D",
    "=20", "=C3=A9") next to soft breaks, or many soft breaks on lines of the
    76-column width encoders wrap at (C code continuing with '=' has neither).
    """
    text = "\n".join(contents)
    if "=" not in text or QP_INVALID.search(text):
        return False
    soft = [c for c in text.split("\n") if c.endswith("=")]
    strong = len(QP_STRONG.findall(text))
    if strong and (soft or strong >= 2):
        return True
    wide = sum(1 for c in soft if 60 <= len(c) <= 77)
    return len(soft) >= 2 and wide >= 0.8 * len(soft)


def repair_qp(text: str) -> tuple[str, list[str]]:
    """Decode quoted-printable that arrived without a transfer-encoding header.

    Works per quote depth, because a reply quotes the damaged text under "> "
    and its own text may be clean (or the other way round).
    """
    if "=" not in text or ("=\n" not in text and not QP_ESCAPE.search(text)):
        return text, []  # no soft break and no escape: nothing to repair
    if not text.startswith(">") and "\n>" not in text and not looks_like_qp([text]):
        return text, []  # no quoted text: one depth, decided without splitting lines
    lines = text.split("\n")
    split = [_split_quote(ln) for ln in lines]
    by_depth: dict[int, list[str]] = {}
    for _, content, depth in split:
        by_depth.setdefault(depth, []).append(content)
    bad = {d for d, contents in by_depth.items() if looks_like_qp(contents)}
    if not bad:
        return text, []
    out: list[str] = []
    i = 0
    while i < len(lines):
        prefix, content, depth = split[i]
        if depth not in bad:
            out.append(lines[i])
            i += 1
            continue
        parts = [content]
        spaced = prefix.endswith((" ", "\t"))
        while parts[-1].endswith("=") and i + 1 < len(lines) and split[i + 1][2] == depth:
            parts[-1] = parts[-1][:-1]
            i += 1
            more_prefix, more, _ = split[i]
            if not spaced and more_prefix.endswith((" ", "\t")):
                # ">Client is=" / "> a laptop": the blank after ">" is the text's own
                more = more_prefix[-1] + more
            parts.append(more)
        if parts[-1].endswith("=") and i + 1 == len(lines):
            parts[-1] = parts[-1][:-1]
        out.append(prefix + QP_HEX_RUN.sub(_hex_run, "".join(parts)))
        i += 1
    return "\n".join(out), ["qp-repaired"]


def _hex_run(m: re.Match[str]) -> str:
    raw = bytes.fromhex(m.group(0).replace("=", ""))
    return decode_bytes(raw, "utf-8")[0]


def html_to_text(markup: str) -> str:
    """Readable text of an HTML part (only used when a message has no text/plain)."""
    text = BLOCK_TAG.sub("\n", markup)
    text = TAG.sub("", text)
    text = html.unescape(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
