"""Raw message bytes -> a ``MessageRecord`` (or an ``ErrorRecord``).

mail-parser parses the sender and the date (its address and date parsers
handle the obsolete forms real archives hold); it is handed a message holding
only those headers, because on kernel mail most of its time otherwise goes to
``Received:`` headers and long ``To:``/``Cc:`` lists mlx does not need parsed.
mlx adds what mail-parser lacks: unfolding, RFC 2047 everywhere, Message-ID
normalisation, pipermail ``at`` addresses, charset fallback, QP repair and
bounded handling of hostile input.  Nothing here raises on bad mail.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import email.message
import email.utils
import hashlib
import logging
import quopri
import re
from dataclasses import dataclass
from email import policy
from email.parser import BytesParser
from functools import lru_cache
from typing import Any

import mailparser

from mlx.ingest import repair
from mlx.ingest.defects import DefectError, email_code, strict
from mlx.rows import Attachment, ErrorRecord, MessageRecord

log = logging.getLogger(__name__)

MAX_HEADER = 64 << 10  # longer header values are cut (a 10 MB header line seen in fuzzing)
MAX_MIME_BOUNDARIES = 100  # deeper nesting is not parsed as MIME
MAX_BODY_CHARS = 4 << 20  # body text kept per message

# Message-ID: <20231120.123456.abc@example.org>
MSGID_TOKEN = re.compile(r"<([^<>\s]+)>")
# pipermail hides addresses: "From: jjl at pobox.com (John J. Lee)"
PIPERMAIL_AT = re.compile(r"(?<![@\w.+-])([\w.+-]+) at ([\w-]+(?:\.[\w-]+)+)")
# "netdev@vger.kernel.org", "Foo Bar <foo@bar.org>": addresses in To/Cc
ADDRESS = re.compile(r"[\w.+'=/-]+@[\w-]+(?:\.[\w-]+)*")
# "[Hangbin Liu <liuhangbin@gmail.com>]": author line of a plain-text rendering
TEXT_AUTHOR = re.compile(r"\[\s*(.*?)\s*<([^>]+)>\s*\]")
# "... 08:49:45 -0500", "... +0000 (UTC)", "... GMT": a date that names its zone
DATE_ZONE = re.compile(r"(?:[+-]\d{4}|GMT|UTC?|[ECMP][SD]T)(?:[ \t]*\([^()]{0,40}\))?[ \t]*$")
# the first line of a message must look like a header ("Return-Path: <x>")
FIRST_HEADER = re.compile(rb"[!-9;-~]{1,200}:")
PATCH_TYPES = {"text/x-patch", "text/x-diff", "text/x-patch-file", "application/x-patch"}
PATCH_NAME = re.compile(r"\.(?:patch|diff)$", re.I)

WANTED = ("message-id", "list-id", "from", "date", "subject", "to", "cc", "in-reply-to",
          "references", "content-type", "content-transfer-encoding", "content-disposition",
          "archived-at", "list-archive")
# Archived-At: <https://lore.kernel.org/r/...>, List-Archive: <https://lists.example.org/x/>
WEB_URL = re.compile(r"<\s*(https?://[^\s<>\"']+)\s*>|^\s*(https?://[^\s<>\"']+)", re.I)
# one wanted header field with its folded continuation lines: "\nSubject: foo\n bar".
# The leading "\n" literal lets the regex engine jump from line to line at C speed.
HEADER_FIELD = re.compile(rb"\n(?i:(" + "|".join(WANTED).encode() + rb"))[ \t]*:[ \t]*"
                          rb"([^\n]*(?:\n[ \t][^\n]*)*)")
FULL = BytesParser(policy=policy.compat32)








@dataclass(frozen=True)
class Where:
    """Provenance of one raw message."""

    source: str
    offset: int | None
    length: int
    commit: str | None = None


def dedup_key(list_id: str | None, message_id: str | None, headers: bytes, body: bytes) -> str:
    """Same list, same Message-ID, byte-identical body: one stored message."""
    h = hashlib.sha1(usedforsecurity=False)
    h.update((list_id or "").encode() + b"\0" + (message_id or "").encode() + b"\0")
    if message_id is None:
        h.update(headers)
    h.update(body)
    return h.hexdigest()[:20]


def parse_ids(value: str | None) -> list[str]:
    """Message-IDs in a header: only ``<...>`` tokens count, in order, once each."""
    if not value:
        return []
    seen: dict[str, None] = {}
    for token in MSGID_TOKEN.findall(value):
        seen.setdefault(token, None)
    return list(seen)


def parse_message_id(value: str | None, defects: list[str]) -> str | None:
    if not value:
        defects.append("no-message-id")
        return None
    ids = MSGID_TOKEN.findall(value)
    if ids:
        return ids[0]
    bare = value.strip().split()
    if bare and "@" in bare[0]:
        defects.append("message-id-no-brackets")
        return bare[0]
    defects.append("bad-message-id")
    return value.strip() or None


def web_url(value: str | None) -> str | None:
    """The http(s) URL of an Archived-At or List-Archive header (no other scheme)."""
    m = WEB_URL.search(value or "")
    return (m.group(1) or m.group(2)) if m else None


def parse_list_id(value: str | None) -> str | None:
    if not value:
        return None
    ids = MSGID_TOKEN.findall(value)
    return (ids[-1] if ids else value.strip()).lower() or None


def addresses(value: str | None) -> list[str]:
    if not value:
        return []
    value = PIPERMAIL_AT.sub(r"\1@\2", value) if "@" not in value else value
    return [a.lower() for a in ADDRESS.findall(value)]


class _SenderDateParser(mailparser.MailParser):  # type: ignore[misc]
    """mail-parser's header parsing (addresses, dates) without its body walk.

    ``MailParser.parse`` walks every part and builds a dict of all headers;
    mlx decodes bodies itself and asks only for the sender and the date.
    """

    def parse(self) -> _SenderDateParser:
        self._reset()
        return self


def _mailparser(header: str, value: str) -> Any:
    """mail-parser on a message holding one header; None when it gives up."""
    small = email.message.Message()
    small[header] = value
    try:
        return _SenderDateParser(small)
    except Exception:  # noqa: BLE001 - mail-parser raises assorted errors on junk headers
        log.debug("mail-parser failed on %s: %r", header, value, exc_info=True)
        return None


@lru_cache(maxsize=1 << 16)
def _sender(from_value: str) -> tuple[str | None, str | None, bool]:
    """(name, address, parsed) of a From value; cached, since senders repeat."""
    if "@" not in from_value:
        from_value = PIPERMAIL_AT.sub(r"\1@\2", from_value)
    mp = _mailparser("From", from_value)
    senders = (mp.from_ or []) if mp is not None else []
    if not senders:
        name, addr = _loose_sender(from_value)
        return name, addr, False
    name, addr = senders[0]
    name = (name or "").strip().strip('"').strip() or None
    if name:
        name = repair.decode_header(name)[0]
    return name, (addr or "").strip().lower() or None, True


def _sender_and_date(from_value: str | None, date_value: str | None,
                     defects: list[str]) -> tuple[str | None, str | None, dt.datetime | None]:
    """Sender and date, parsed by mail-parser; missing or broken ones are defects."""
    name = addr = None
    if from_value:
        name, addr, parsed = _sender(from_value)
        if not parsed:
            defects.append("bad-from")
    else:
        defects.append("no-from")
    date = _rfc5322_date(date_value) if date_value else None
    if date is None and date_value:
        mp = _mailparser("Date", date_value)  # the obsolete and broken forms
        date = mp.date if mp is not None else None
    if date is None and date_value:
        date = _fallback_date(date_value)
    if date is None:
        defects.append("bad-date" if date_value else "no-date")
    elif date.tzinfo is None:
        date = date.replace(tzinfo=dt.timezone.utc)
        defects.append("date-no-timezone")
    if date is not None:
        date = date.astimezone(dt.timezone.utc)
        if not 1970 <= date.year <= 2100:
            defects.append("implausible-date")
    return name, addr, date


def _loose_sender(value: str) -> tuple[str | None, str | None]:
    """Name and address from a From that mail-parser could not parse.

    '"Rodriguez-Herrera, Alfonso"     Alfonso.Rodriguez-Herrera@SPIRENT.COM'
    'siopis at umich.edu (Christos Siopis <siopis@umich.edu>)'
    """
    found = addresses(value)
    addr = found[0] if found else None
    rest = PIPERMAIL_AT.sub(r"\1@\2", value)
    rest = re.sub(r"<[^>]*>|[\w.+'=/-]+@[\w-]+(?:\.[\w-]+)*", " ", rest)
    name = re.sub(r"\s+", " ", rest.replace('"', " ").replace("(", " ").replace(")", " ")).strip()
    return (repair.decode_header(name)[0] if name else None), addr


def _rfc5322_date(value: str) -> dt.datetime | None:
    """The common case, "Fri, 13 Jul 2018 08:49:45 -0500", by the standard library.

    mail-parser gives the same answer for these at about ten times the cost
    (a MailParser per message); it still reads every date this one refuses.
    """
    if not DATE_ZONE.search(value):
        return None  # no zone (pipermail's asctime): mail-parser decides, the defect says so
    try:
        parts = email.utils.parsedate_tz(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parts is None or parts[9] is None or not 1900 <= parts[0] <= 2200:
        return None
    try:
        stamp = dt.datetime(*parts[:6], tzinfo=dt.timezone(dt.timedelta(seconds=parts[9])))
    except (ValueError, OverflowError):
        return None
    return stamp.astimezone(dt.timezone.utc)


def _fallback_date(value: str) -> dt.datetime | None:
    try:
        return email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


Headers = dict[str, str]


def read_headers(head: bytes) -> Headers:
    """First value of each wanted header (lowercased name), folding kept, bytes escaped.

    Non-ASCII bytes come back surrogate-escaped, as compat32 gives them; a line
    that is neither a field nor a continuation is skipped.
    """
    out: Headers = {}
    for m in HEADER_FIELD.finditer(b"\n" + head):
        name = m.group(1).decode("ascii").lower()
        if name not in out:
            out[name] = m.group(2).decode("ascii", "surrogateescape").replace("\r", "")
    return out


def _raw_header(headers: Headers, name: str, defects: list[str]) -> str | None:
    value = headers.get(name)
    if value is None:
        return None
    if len(value) > MAX_HEADER:
        if "header-too-long" not in defects:
            defects.append("header-too-long")
        value = value[:MAX_HEADER]
    return value


def _id_header(headers: Headers, name: str, defects: list[str]) -> str | None:
    """Message-ID, In-Reply-To or References, raw; a value a mailer wrote as RFC 2047
    encoded words (``=?utf-8?q?=3C20230928-foo=40example=2Ecom=3E?=``, folded) is
    decoded to the ``<...>`` ids it hides (defect ``encoded-message-id``)."""
    value = _raw_header(headers, name, defects)
    if value is None or "=?" not in value or MSGID_TOKEN.search(value):
        return value  # plain ids (an encoded comment beside them is no encoded id)
    for attempt in (repair.unfold(value), re.sub(r"\r?\n[ \t]*", "", value)):
        text, _ = repair.decode_rfc2047(attempt)
        if text != attempt and MSGID_TOKEN.search(text):
            if "encoded-message-id" not in defects:
                defects.append("encoded-message-id")
            return text
    return value


def _header(headers: Headers, name: str, defects: list[str]) -> str | None:
    value = _raw_header(headers, name, defects)
    if value is None:
        return None
    text, errs = repair.decode_header(value)
    defects.extend(e for e in errs if e not in defects)
    return text


def _content_headers(headers: Headers) -> email.message.Message:
    """A Message holding only the MIME headers, for email's parameter parsing."""
    msg = email.message.Message()
    for name in ("content-type", "content-transfer-encoding", "content-disposition"):
        if name in headers:
            msg[name] = headers[name][:MAX_HEADER]
    return msg


def _decode_transfer(payload: bytes, cte: str, defects: list[str]) -> bytes:
    if cte == "base64":
        try:
            return base64.b64decode(payload + b"=" * (-len(payload.strip()) % 4), validate=False)
        except (binascii.Error, ValueError):
            defects.append("bad-base64")
            return payload
    if cte == "quoted-printable":
        return quopri.decodestring(payload)
    return payload


def _part_text(payload: bytes, cte: str, charset: str | None, defects: list[str]) -> str:
    data = _decode_transfer(payload, cte, defects)
    text, errs = repair.decode_bytes(data, charset)
    defects.extend(e for e in errs if e not in defects)
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if cte not in ("base64", "quoted-printable"):
        text, errs = repair.repair_qp(text)
        defects.extend(e for e in errs if e not in defects)
    return text


def _cte(part: email.message.Message) -> str:
    return str(part.get("Content-Transfer-Encoding", "")).strip().lower()


def _single_part_body(msg: email.message.Message, body: bytes,
                      defects: list[str]) -> tuple[list[str], list[Attachment]]:
    ctype = msg.get_content_type()
    if ctype.startswith("text/") or ctype == "application/x-patch":
        text = _part_text(body, _cte(msg), msg.get_content_charset(), defects)
        if ctype == "text/html":
            defects.append("html-only")
            text = repair.html_to_text(text)
        return [text], []
    defects.append("no-text-part")
    return [], [Attachment(_filename(msg), ctype, _decoded_size(body, _cte(msg)))]


def _decoded_size(payload: bytes | str, cte: str) -> int:
    n = len(payload)
    return n * 3 // 4 if cte == "base64" else n


def _filename(part: email.message.Message) -> str | None:
    try:
        name = part.get_filename()
    except (TypeError, ValueError, LookupError):  # malformed RFC 2231 parameters
        return None
    return repair.decode_header(name)[0] if name else None


def _multipart_body(data: bytes, defects: list[str]) -> tuple[list[str], list[Attachment]]:
    try:
        msg = FULL.parsebytes(data)
    except RecursionError:
        defects.append("mime-too-deep")
        return [], []
    texts: list[str] = []
    html_parts: list[str] = []
    files: list[Attachment] = []
    for part in msg.walk():
        for d in part.defects:
            code = email_code(type(d).__name__)
            if code not in defects:
                defects.append(code)
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        name = _filename(part)
        attached = str(part.get("Content-Disposition", "")).lower().startswith("attachment")
        # the undecoded payload: get_payload(decode=False) would already run a
        # lossy charset decode over 8-bit bytes (mail-parser reads it the same way)
        raw = part._payload  # type: ignore[attr-defined]
        if not isinstance(raw, str):
            continue
        is_patch = ctype in PATCH_TYPES or bool(name and PATCH_NAME.search(name))
        if (ctype == "text/plain" and not (attached and name)) or is_patch:
            payload = raw.encode("ascii", "surrogateescape")
            texts.append(_part_text(payload, _cte(part), part.get_content_charset(), defects))
            if is_patch or name:
                files.append(Attachment(name, ctype, _decoded_size(raw, _cte(part))))
        elif ctype == "text/html" and not attached:
            payload = raw.encode("ascii", "surrogateescape")
            html_parts.append(_part_text(payload, _cte(part), part.get_content_charset(), defects))
        else:
            files.append(Attachment(name, ctype, _decoded_size(raw, _cte(part))))
    if not texts and html_parts:
        defects.append("html-only")
        texts = [repair.html_to_text(h) for h in html_parts]
    if not texts:
        defects.append("no-text-part")
    return texts, files


def parse_message(data: bytes, where: Where, defects_in: tuple[str, ...] = ()
                  ) -> MessageRecord | ErrorRecord:
    """Parse one raw message. Never raises on bad mail (in strict mode, ``DefectError``
    on its first defect, and on a message that cannot be parsed)."""
    try:
        return _checked(_parse(data, where, list(defects_in)), where)
    except DefectError:
        raise
    except RecursionError:
        if strict():
            raise
        return ErrorRecord(where.source, where.offset, where.length,
                           "recursion limit while parsing", where.commit)
    except Exception as exc:  # noqa: BLE001 - one bad message must never stop a run
        if strict():
            raise
        log.debug("parse failed at %s:%s", where.source, where.offset, exc_info=True)
        return ErrorRecord(where.source, where.offset, where.length,
                           f"parse failed: {type(exc).__name__}: {exc}"[:300], where.commit)


def _checked(record: MessageRecord | ErrorRecord, where: Where) -> MessageRecord | ErrorRecord:
    """The record, unless strict mode stops at its first defect or error."""
    if strict():
        place = f"{where.source}@{where.commit or where.offset}"
        if isinstance(record, ErrorRecord):
            raise DefectError("error", f"{place}: {record.reason}")
        if record.defects:
            raise DefectError(record.defects[0], place)
    return record


def header_end(data: bytes) -> int:
    """Where the body starts: after the first blank line (``\n\n``, ``\n\r\n``), or -1.
    Two memchr-speed finds; the regex ``\r?\n\r?\n`` tries every byte of a message."""
    lf = data.find(b"\n\n")
    crlf = data.find(b"\n\r\n", 0, lf + 2 if lf >= 0 else len(data))
    if crlf >= 0:
        return crlf + 3
    return lf + 2 if lf >= 0 else -1


def _parse(data: bytes, where: Where, defects: list[str]) -> MessageRecord | ErrorRecord:
    stripped = data.lstrip(b"\r\n")
    if not stripped.strip():
        return ErrorRecord(where.source, where.offset, where.length, "empty message", where.commit)
    if not FIRST_HEADER.match(stripped):
        return ErrorRecord(where.source, where.offset, where.length,
                           "no mail headers: first line is not a header", where.commit)
    if b"\x00" in data:
        defects.append("nul-bytes")
        stripped = stripped.replace(b"\x00", b"")
    end = header_end(stripped)
    head, body = (stripped[:end], stripped[end:]) if end >= 0 else (stripped, b"")
    if end < 0:
        defects.append("no-body")
    hdrs = read_headers(head)
    message_id = parse_message_id(_id_header(hdrs, "message-id", defects), defects)
    list_id = parse_list_id(_header(hdrs, "list-id", defects))
    from_name, from_addr, date = _sender_and_date(
        _raw_header(hdrs, "from", defects), _raw_header(hdrs, "date", defects), defects)
    subject = _header(hdrs, "subject", defects)
    if subject is None:
        defects.append("no-subject")
    msg = _content_headers(hdrs)
    ctype = msg.get_content_type()
    if ctype.startswith("multipart/"):
        if body.count(b"boundary=") + head.count(b"boundary=") > MAX_MIME_BOUNDARIES:
            defects.append("mime-too-deep")
            texts: list[str] = []
            files: list[Attachment] = []
        else:
            texts, files = _multipart_body(stripped, defects)
    else:
        texts, files = _single_part_body(msg, body, defects)
    text = "\n".join(t for t in texts if t).replace("\x00", "")
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS]
        defects.append("body-truncated")
    return MessageRecord(
        uid=dedup_key(list_id, message_id, head, body),
        message_id=message_id or _generated_id(stripped),
        date=date, from_name=from_name, from_addr=from_addr,
        to=addresses(_header(hdrs, "to", defects)),
        cc=addresses(_header(hdrs, "cc", defects)),
        subject=subject,
        in_reply_to=parse_ids(_id_header(hdrs, "in-reply-to", defects)),
        references=parse_ids(_id_header(hdrs, "references", defects)),
        list_id=list_id, body=text or None,
        source=where.source, offset=where.offset, length=where.length, commit=where.commit,
        defects=_unique(defects), attachments=files, content_type=ctype, raw_size=len(data),
        archived_at=web_url(_header(hdrs, "archived-at", defects)),
        list_archive=web_url(_header(hdrs, "list-archive", defects)),
    )


def _generated_id(data: bytes) -> str:
    """A stable id for a message without one, as public-inbox assigns."""
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:24] + "@mlx.generated"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def parse_text_rendering(data: bytes, where: Where) -> MessageRecord | ErrorRecord:
    """The plain-text rendering of one message: subject, ``[Name <addr>]``, body."""
    text, defects = repair.decode_bytes(data, None)
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    subject = lines[0].strip() or None
    rest = lines[1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    m = TEXT_AUTHOR.fullmatch(rest[0].strip()) if rest else None
    if m is None:
        return ErrorRecord(where.source, where.offset, where.length,
                           "no [Name <addr>] line after the subject", where.commit)
    rest = rest[1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    body, errs = repair.repair_qp("\n".join(rest))
    defects += errs + ["text-rendering", "no-message-id", "no-date"]
    message_id = _generated_id(data)
    return MessageRecord(
        uid=dedup_key(None, message_id, b"", data), message_id=message_id, date=None,
        from_name=m.group(1) or None, from_addr=m.group(2).strip().lower(),
        to=[], cc=[], subject=subject, in_reply_to=[], references=[], list_id=None,
        body=body.rstrip("\n") + "\n" if body.strip() else None,
        source=where.source, offset=where.offset, length=where.length, commit=where.commit,
        defects=_unique(defects), content_type="text/plain", raw_size=len(data),
    )

