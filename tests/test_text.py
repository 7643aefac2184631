from mlx.text import Scanner, Words


def test_words_sharing_a_scanner_keep_their_own_tags() -> None:
    shared = Scanner()
    units = Words({"unit": ("bits/sec", "Mbps"), "rate": ("pps",)}, shared)
    setup = Words({"setup": ("ested on", "DUT"), "rate": ("pps", "bps")}, shared)
    text = "Tested on the DUT: 940 Mbps, 1.2 Mpps"
    assert units.hits(text) == {"unit": [text.index("Mbps") + 3], "rate": [len(text) - 1]}
    assert setup.hits(text) == {"setup": [text.index("ested on") + 7, text.index("DUT") + 2],
                                "rate": [text.index("Mbps") + 3, len(text) - 1]}
    assert units.tags("nothing here") == set() and setup.tags("DUT") == {"setup"}


def test_the_last_text_is_scanned_once_and_new_words_are_seen() -> None:
    shared = Scanner()
    first = Words({"a": ("foo",)}, shared)
    text = "foo bar"
    assert first.hits(text) is first.hits("foo" + " bar")  # an equal text: the kept scan
    second = Words({"b": ("bar",)}, shared)  # added after a scan: the automaton is rebuilt
    assert second.hits(text) == {"b": [6]} and first.hits(text) == {"a": [2]}


def test_words_alone_have_a_scanner_of_their_own() -> None:
    alone = Words({"x": ("abc",)})
    assert alone.scanner.owners == 1 and alone.tags("xabcx") == {"x"}


def test_hits_are_character_positions_in_text_order() -> None:
    words = Words({"rate": ("bps", "pps")})
    text = "Ωbps 😀 10 Mpps, 5 Gbps"  # a two-byte and a four-byte character before them
    ends = words.hits(text)["rate"]
    assert ends == sorted(ends) and [text[e - 2:e + 1] for e in ends] == ["bps", "pps", "bps"]


def test_a_lone_surrogate_is_scanned_with_its_positions_kept() -> None:
    words = Words({"unit": ("Mbits/sec",)})
    text = "\ud800 Tested: 940 Mbits/sec"
    assert words.hits(text) == {"unit": [len(text) - 1]}


def test_matched_at_tries_the_pattern_only_at_its_offsets_before_a_found_literal() -> None:
    import re

    from mlx.text import matched_at
    rx = re.compile(r"\d[ \t]?Mbps")
    text = "Mbps at 940 Mbps and 80Mbps"
    ends = [m.end() - 1 for m in re.finditer("bps", text)]  # where a scan ends "bps"
    assert matched_at(rx, text, ends, (4, 5)) == ends[1:]  # the first has no digit before
    assert matched_at(rx, text, ends, (4,)) == ends[2:]  # "940 Mbps" starts 5 back
    assert matched_at(rx, text, [2], (4, 5)) == []  # no start before the text's


def test_matched_at_with_heads_credits_only_the_literal_a_match_starts_at() -> None:
    import re

    from mlx.text import matched_at
    rx = re.compile(r"Intel|E3-\d{4}")
    text = "Intel\nE3-"  # no digits after "E3-" (ending at 8), but "Intel" matches 8 back
    ends = [4, 8]
    assert matched_at(rx, text, ends, (2, 4, 8)) == [4, 8]  # any match at an offset
    assert matched_at(rx, text, ends, (2, 4, 8), {"Intel", "E3-"}) == [4]
    assert matched_at(rx, "Intel\nE3-1230", [4, 8], (2, 4), {"Intel", "E3-"}) == [4, 8]
