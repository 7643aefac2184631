import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlx.ingest.split import (
    Splitter,
    escape_mboxrd,
    is_from_line,
    split_blocks,
    split_bytes,
    unescape,
    write_mboxrd,
)


@pytest.mark.parametrize("line, ok", [
    # public-inbox / lore mboxrd export
    (b"From mboxrd@z Thu Jan  1 00:00:00 1970", True),
    # pipermail month: the address is written "x at y", two spaces before the day
    (b"From alice at example.org  Mon Jun  3 09:12:44 2019", True),
    # git format-patch
    (b"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001", True),
    # LISTSERV export through BigBang
    (b"From MAILER-DAEMON Thu Aug 26 16:49:36 2021", True),
    # mutt and procmail sometimes add the zone after the year
    (b"From benh@kernel.crashing.org Fri Oct 22 11:51:02 2010 +0000", True),
    # a body line in an mboxo file is not a separator
    (b"From my testing, the handshake takes 2 ms", False),
    (b"From: Alice <alice@example.org>", False),
    # a weekday-looking word but no time and year
    (b"From Monday on, Jun 3 we ship", False),
    (b"From x Mon Jun  3 09:12:44", False),
])
def test_strict_from_line(line: bytes, ok: bool) -> None:
    assert is_from_line(line) is ok


def test_mboxrd_unescapes_one_level(data) -> None:
    msgs = split_bytes((data / "mbox" / "escaped-from.mboxrd").read_bytes())
    assert len(msgs) == 2
    body = msgs[0].data
    assert b"\nFrom the numbers I posted last week" in body
    assert b"\n>From a quoted quote." in body
    assert b"\n>>From three levels." in body
    # an unescaped body "From " line that is no strict From_ line stays in the message
    assert b"\nFrom my testing, the handshake" in body
    assert msgs[1].data.startswith(b"From: Bob Lund")
    # "> >From" is no escaped line (it starts with "> "): kept as the replier wrote it
    assert b"\n> >From the numbers" in msgs[1].data


def test_pipermail_month(data) -> None:
    raw = (data / "mbox" / "2019-June.txt").read_bytes()
    msgs = split_bytes(raw)
    assert len(msgs) == 2
    # mboxo: ">From " is unescaped, the unescaped body From line is no separator
    assert msgs[0].data.count(b"\nFrom my testing") == 2
    assert msgs[0].offset == 0
    assert msgs[1].offset == raw.index(b"From bob.lund at")
    assert msgs[0].length == msgs[1].offset


def test_separator_blank_line_removed_and_offsets() -> None:
    raw = write_mboxrd([b"Subject: a\n\nx\n", b"Subject: b\n\ny\n"])
    a, b = split_bytes(raw)
    assert a.data == b"Subject: a\n\nx\n"
    assert b.data == b"Subject: b\n\ny\n"
    assert raw[b.offset:].startswith(b"From mboxrd@z")
    assert a.length + b.length == len(raw)


def test_crlf_mbox() -> None:
    raw = (b"From a@b Mon Jun  3 09:12:44 2019\r\nSubject: a\r\n\r\nx\r\n\r\n"
           b"From a@b Mon Jun  3 09:12:45 2019\r\nSubject: b\r\n\r\ny\r\n")
    msgs = split_bytes(raw)
    assert [m.data for m in msgs] == [b"Subject: a\r\n\r\nx\r\n", b"Subject: b\r\n\r\ny\r\n"]


def test_preamble_is_reported_not_lost() -> None:
    sp = Splitter()
    raw = b"junk before\n" + write_mboxrd([b"Subject: a\n\nx\n"])
    msgs = list(sp.feed(raw)) + list(sp.close())
    assert len(msgs) == 1
    assert bytes(sp.preamble) == b"junk before\n"
    assert sp.preamble_len == 12


def test_no_from_line_at_all_is_preamble() -> None:
    sp = Splitter()
    assert list(sp.feed(b"\x89PNG\r\n\x00\x01")) + list(sp.close()) == []
    assert sp.preamble_len == 8


def test_oversized_message_is_capped_and_marked() -> None:
    big = b"Subject: big\n\n" + b"A" * 100 + b"\n"
    body = big + b"B" * (3 << 20) + b"\n"
    raw = write_mboxrd([body, b"Subject: next\n\nok\n"])
    blocks = [raw[i:i + 65536] for i in range(0, len(raw), 65536)]
    first, second = split_blocks(blocks, max_message=1 << 20)
    assert first.truncated > 0 and "truncated" in first.defects
    assert first.data.startswith(big)
    assert len(first.data) < (3 << 20)
    assert first.length == second.offset  # provenance counts the dropped bytes
    assert second.data == b"Subject: next\n\nok\n"


@pytest.mark.parametrize("size", [1, 2, 5, 7, 64, 4096])
def test_block_size_does_not_matter(data, size: int) -> None:
    raw = (data / "mbox" / "escaped-from.mboxrd").read_bytes()
    blocks = [raw[i:i + size] for i in range(0, len(raw), size)]
    assert list(split_blocks(blocks)) == split_bytes(raw)


def test_unescape_modes() -> None:
    assert unescape(b">From x\n>>From y\n", "mboxrd") == b"From x\n>From y\n"
    assert unescape(b">From x\n>>From y\n", "mboxo") == b"From x\n>>From y\n"
    assert escape_mboxrd(b"From x\n>From y\nFromage\n") == b">From x\n>>From y\nFromage\n"


line = st.one_of(
    st.sampled_from([b"From x", b">From x", b">>From x", b"From mboxrd@z Thu Jan  1 00:00:00 1970",
                     b"", b"text", b"From:", b">", b"From my testing, ok"]),
    st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
)
body = st.lists(line, max_size=12).map(
    lambda ls: b"Subject: s\n\n" + b"".join(x + b"\n" for x in ls))


@settings(max_examples=300, deadline=None)
@given(st.lists(body, min_size=1, max_size=6), st.integers(min_value=1, max_value=97))
def test_mboxrd_round_trip(bodies: list[bytes], block: int) -> None:
    raw = write_mboxrd(bodies)
    blocks = [raw[i:i + block] for i in range(0, len(raw), block)]
    got = [m.data for m in split_blocks(blocks)]
    assert got == bodies
    assert write_mboxrd(got) == raw


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.integers(min_value=1, max_value=300))
def test_splitter_never_raises(raw: bytes, block: int) -> None:
    sp = Splitter()
    out = []
    for i in range(0, len(raw), block):
        out.extend(sp.feed(raw[i:i + block]))
    out.extend(sp.close())
    # every byte is a message or preamble
    assert sum(m.length for m in out) + sp.preamble_len == len(raw)
