import datetime as dt
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlx.ingest.parse import ErrorRecord, MessageRecord, Where, parse_message, parse_text_rendering
from mlx.ingest.split import split_bytes

W = Where("test", 0, 0)
UTC = dt.timezone.utc


def parse(data: bytes) -> MessageRecord:
    rec = parse_message(data, W)
    assert isinstance(rec, MessageRecord), rec
    return rec


def msg(headers: str, body: str = "body\n") -> bytes:
    return (headers.strip("\n") + "\n\n" + body).encode()


def test_headers_unfolded_and_decoded(data) -> None:
    rec = parse((data / "mail" / "rfc2047-folded.eml").read_bytes())
    assert rec.subject == "Re: [PATCH v2 net] wireguard: use DEV_STATS_INC()"
    assert rec.from_name == "Jörg Roßberg"
    assert rec.from_addr == "joerg@example.de"
    assert rec.to == ["john@example.org", "netdev@vger.kernel.org"]
    assert rec.cc == ["andre@example.fr"]
    assert rec.message_id == "ZVsP5cmxRtn3mXDa@Laptop-X1"
    # "(Eric's message of ...)" after the id is no id
    assert rec.in_reply_to == ["20231117141733.3344158-1-edumazet@example.com"]
    # only <...> tokens count; "<y>" is dropped later by threading, kept here as written
    assert rec.references[:2] == ["20231117141733.3344158-1-edumazet@example.com",
                                  "CAHmME9oDkFVNHm-wx2s7oJyVmF2g7A2tGQ2cBHHcFz7ow@mail.example.com"]
    assert rec.date == dt.datetime(2023, 11, 20, 7, 56, 2, tzinfo=UTC)
    assert rec.list_id == "netdev.vger.kernel.org"
    assert rec.body == "Tested on Jörg's box.\n"
    assert rec.defects == []


@pytest.mark.parametrize("date, expected, defect", [
    # zone converted to UTC
    ("Fri, 13 Jul 2018 08:49:45 -0500", dt.datetime(2018, 7, 13, 13, 49, 45, tzinfo=UTC), None),
    # pipermail writes asctime without a zone: taken as UTC, marked
    ("Thu Nov  1 11:19:12 2001", dt.datetime(2001, 11, 1, 11, 19, 12, tzinfo=UTC),
     "date-no-timezone"),
    # junk never crashes: NaT and a defect
    ("the day after tomorrow", None, "bad-date"),
    ("Mon, 99 Foo 20xx 99:99:99 +9999", None, "bad-date"),
])
def test_dates(date: str, expected, defect) -> None:
    rec = parse(msg(f"From: a@b.c\nSubject: s\nMessage-ID: <1@b.c>\nDate: {date}"))
    assert rec.date == expected
    if defect:
        assert defect in rec.defects
    else:
        assert rec.defects == []


def test_missing_headers_are_defects_not_errors() -> None:
    rec = parse(b"X-Foo: bar\n\nhello\n")
    assert {"no-message-id", "no-date", "no-from", "no-subject"} <= set(rec.defects)
    assert rec.message_id.endswith("@mlx.generated")
    assert rec.date is None and rec.subject is None


def test_pipermail_month(data) -> None:
    a, b = [parse(m.data) for m in split_bytes((data / "mbox" / "2019-June.txt").read_bytes())]
    assert (a.from_addr, a.from_name) == ("alice@example.org", "Alice Novak")
    assert (b.from_addr, b.from_name) == ("bob.lund@example.net", "Bob Lund")
    assert b.in_reply_to == ["5CF4C9AC.1040507@example.org"]


def test_message_id_without_brackets() -> None:
    rec = parse(msg("From: a@b.c\nMessage-ID: CY4PR10MB1528@outlook.example.com\nSubject: s"))
    assert rec.message_id == "CY4PR10MB1528@outlook.example.com"
    assert "message-id-no-brackets" in rec.defects


def test_qp_damage_repaired(data) -> None:
    rec = parse((data / "mail" / "qp-no-cte.eml").read_bytes())
    assert ("[SUM]   0.00-10.04  sec   301 MBytes   252 Mbits/sec   30             sender"
            in rec.body.splitlines())
    assert "41 °C, René measured" in rec.body
    assert "?id=0123456789abcdef0123456789abcdef01234567" in rec.body
    assert "qp-repaired" in rec.defects


def test_code_with_equals_untouched(data) -> None:
    raw = (data / "mail" / "qp-lookalike-code.eml").read_bytes()
    rec = parse(raw)
    assert rec.body == raw.split(b"\n\n", 1)[1].decode()
    assert rec.defects == []


def test_latin1_bytes_declared_utf8() -> None:
    raw = (b"From: a@b.c\nSubject: s\nMessage-ID: <1@b.c>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
           b"Content-Type: text/plain; charset=utf-8\n\nGr\xfc\xdfe aus M\xfcnchen\n")
    rec = parse(raw)
    assert rec.body == "Grüße aus München\n"
    assert rec.defects == ["charset-mismatch"]


def test_multipart_with_patch_and_image(data) -> None:
    rec = parse((data / "mail" / "multipart-patch-attachment.eml").read_bytes())
    assert "from 410 Mbps to 455 Mbps — see below" in rec.body
    assert "+int x = 2;" in rec.body  # the attached patch is text the extractors read
    names = [(a.filename, a.content_type) for a in rec.attachments]
    assert names == [("0001-ath10k-fix-the-thing.patch", "text/x-patch"),
                     ("graph.png", "image/png")]
    assert all(a.size > 0 for a in rec.attachments)
    assert rec.defects == []


def test_html_only() -> None:
    raw = msg("From: a@b.c\nSubject: s\nMessage-ID: <1@b.c>\nContent-Type: text/html",
              "<p>Throughput: 9.4 Gbps</p>")
    rec = parse(raw)
    assert rec.body == "Throughput: 9.4 Gbps"
    assert "html-only" in rec.defects


def test_base64_body_and_crlf() -> None:
    raw = (b"From: a@b.c\r\nSubject: s\r\nMessage-ID: <1@b.c>\r\nContent-Type: text/plain; "
           b"charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\nSGVsbG8gd29ybGQhCg==\r\n")
    assert parse(raw).body == "Hello world!\n"


def test_binary_junk_chunk_is_an_error_row() -> None:
    rec = parse_message(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", Where("f", 10, 20))
    assert isinstance(rec, ErrorRecord)
    assert (rec.source, rec.offset, rec.length) == ("f", 10, 20)
    assert "no mail headers" in rec.reason
    assert isinstance(parse_message(b"\n\n", W), ErrorRecord)


def test_nul_bytes() -> None:
    rec = parse(b"From: a@b.c\nSubject: s\x00x\nMessage-ID: <1@b.c>\n\nhel\x00lo\n")
    assert rec.body == "hello\n"
    assert rec.subject == "sx"
    assert "nul-bytes" in rec.defects


def test_mime_nested_1000_deep() -> None:
    head = "From: a@b.c\nSubject: deep\nMessage-ID: <deep@b.c>\n"
    parts = []
    for i in range(1000):
        parts.append(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n')
    raw = (head + "".join(parts) + "Content-Type: text/plain\n\nbottom\n"
           + "".join(f"--b{i}--\n" for i in reversed(range(1000)))).encode()
    rec = parse(raw)
    assert rec.subject == "deep"
    assert "mime-too-deep" in rec.defects


def test_header_of_10_mb() -> None:
    raw = b"From: a@b.c\nSubject: " + b"x" * (10 << 20) + b"\nMessage-ID: <1@b.c>\n\nbody\n"
    rec = parse(raw)
    assert len(rec.subject) <= 64 << 10
    assert "header-too-long" in rec.defects
    assert rec.body == "body\n"


def test_text_rendering(data) -> None:
    raw = (data / "text" / "rendering.txt").read_bytes()
    rec = parse_text_rendering(raw, W)
    assert isinstance(rec, MessageRecord)
    assert rec.subject == "Re: [PATCH net-next v3 0/4] tcp: faster foo"
    assert (rec.from_name, rec.from_addr) == ("Frank Mills", "frank@example.org")
    assert rec.body.startswith("On Tue, Mar 05, 2024")
    assert "=== 1in1 TCP_STREAM: 9420.55 Mbits/sec ===" in rec.body
    assert rec.message_id.endswith("@mlx.generated")
    # the id is stable, so re-ingest dedups it
    assert parse_text_rendering(raw, W).uid == rec.uid


def test_defect_registry_matches_the_code_and_the_readme() -> None:
    """Every defect code the ingest code writes is in the registry, and README's table
    lists exactly the registry."""
    import re

    from mlx.ingest.defects import DEFECTS, known
    root = Path(__file__).resolve().parent.parent
    written = set()
    for path in (root / "mlx" / "ingest").glob("*.py"):
        text = path.read_text()
        written |= set(re.findall(r'defects\.append\("([a-z0-9-]+)"\)', text))
        written |= set(re.findall(r'\("([a-z0-9-]+)",\)', text))  # ("truncated",)
        written |= set(re.findall(r'\["([a-z0-9-]+)"\]', text)) & set(DEFECTS)
    written |= {"text-rendering", "no-message-id", "no-date"}  # the text rendering's
    assert written and all(known(c) for c in written), sorted(c for c in written if not known(c))
    readme = (root / "README.md").read_text()
    table = readme[readme.index("### Defect codes"):readme.index("## Store")]
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", table, re.M))
    assert listed == set(DEFECTS)


def test_strict_mode_stops_at_the_first_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    from mlx.ingest.defects import DefectError
    raw = b"From: a <a@example.org>\nSubject: x\nDate: Mon, 2 Mar 2020 10:00:00 +0000\n\nhi\n"
    assert "no-message-id" in parse_message(raw, Where("x", 0, len(raw))).defects
    monkeypatch.setenv("MLX_STRICT", "1")
    with pytest.raises(DefectError, match="no-message-id"):
        parse_message(raw, Where("x", 0, len(raw)))


MAIL_BITS = st.sampled_from([
    b"From: ", b"Subject: ", b"Message-ID: <", b">", b"In-Reply-To: ", b"References: ",
    b"Date: ", b"Content-Type: multipart/mixed; boundary=", b"--", b"\n", b"\r\n", b"\n\n",
    b"Content-Transfer-Encoding: base64\n", b"Content-Transfer-Encoding: quoted-printable\n",
    b"=?utf-8?q?", b"?=", b"=?utf-8?b?", b"=C3=A9", b"=\n", b"charset=", b"\x00", b"\xff",
    b" ", b"\t", b"a@b.c", b"diff --git a/x b/x\n", b"@@ -1 +1 @@\n", b"Reviewed-by: "])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=3000),
                 st.lists(st.one_of(MAIL_BITS, st.binary(max_size=40)), max_size=80)
                 .map(b"".join)))
def test_parse_message_never_raises(data: bytes) -> None:
    """Patchwork's fuzz contract: any bytes give a record or an error record."""
    got = parse_message(data, Where("fuzz", 0, len(data)))
    assert isinstance(got, MessageRecord | ErrorRecord)


def test_mutated_real_messages_never_raise() -> None:
    """Real messages (the corpus's single messages, else the test mails) with bytes
    flipped, cut, doubled and dropped give a record or an error record."""
    import random

    from conftest import CORPUS
    root = Path(__file__).resolve().parent
    corpus = CORPUS / "fixtures" / "single-messages"
    files = sorted(corpus.glob("*")) if corpus.is_dir() else []
    files += sorted((root / "data" / "mail").glob("*.eml"))
    rng = random.Random(16)
    tried = 0
    for path in files:
        if not path.is_file():
            continue
        data = path.read_bytes()
        for _ in range(40):
            b = bytearray(data)
            for _ in range(rng.randint(1, 12)):
                at = rng.randrange(max(len(b), 1))
                op = rng.randrange(4)
                if op == 0 and b:
                    b[at] = rng.randrange(256)
                elif op == 1:
                    del b[at:at + rng.randint(1, 200)]
                elif op == 2:
                    b[at:at] = b[at:at + rng.randint(1, 300)]
                else:
                    b[at:at] = rng.choice([b"\n\n", b"=\n", b"--", b"=?", b"\r", b"\x00"])
            got = parse_message(bytes(b), Where(path.name, 0, len(b)))
            assert isinstance(got, MessageRecord | ErrorRecord)
            tried += 1
    assert tried >= 100


def test_an_encoded_comment_beside_plain_ids_is_no_encoded_id() -> None:
    raw = (b"From: a <a@example.org>\nSubject: x\nMessage-ID: <m@example.org>\n"
           b"In-Reply-To: <a@x> (=?utf-8?q?Bob?=)\nReferences: <z@x> =?utf-8?q?hello?= <a@x>\n"
           b"Date: Mon, 2 Mar 2020 10:00:00 +0000\n\nhi\n")
    got = parse_message(raw, Where("x", 0, len(raw)))
    assert isinstance(got, MessageRecord)
    assert "encoded-message-id" not in got.defects
    assert (got.in_reply_to, got.references) == (["a@x"], ["z@x", "a@x"])


@given(st.lists(st.sampled_from([b"\n", b"\r", b"\r\n", b"a", b"H: v", b" "]), max_size=14))
@settings(max_examples=600, deadline=None)
def test_header_end_is_the_blank_line_regex(parts: list[bytes]) -> None:
    """Two finds give the end of the first match of ``\\r?\\n\\r?\\n``, whatever the line ends."""
    import re

    from mlx.ingest.parse import header_end
    data = b"".join(parts)
    m = re.search(rb"\r?\n\r?\n", data)
    assert header_end(data) == (m.end() if m else -1)
