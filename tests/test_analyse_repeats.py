"""Claims repeated across the postings of a series: one claim, its versions listed."""

from __future__ import annotations

import pandas as pd

from mlx.analyse.repeats import fold, version_span

MEASURED = {"kind": "measured", "tool": "netperf", "test": "TCP_STREAM", "metric": "throughput",
            "side": "tx", "stream": None, "statistic": None, "config": "send-512",
            "unit_norm": "Mbit/s", "baseline_value": 5120.40, "patched_value": 5098.12,
            "statement": None, "stated_pct": None, "thread_id": None, "uid": None}


def claims(*rows: dict) -> pd.DataFrame:
    out = []
    for n, r in enumerate(rows):
        row = {**MEASURED, "title": "net: batch the tx path", "uid": f"u{n}", "patch_id": None,
               **r}
        row["date"] = pd.Timestamp(f"2025-01-{10 + row['version']:02d}", tz="UTC")
        out.append(row)
    return pd.DataFrame(out)


def test_a_table_reposted_in_v2_to_v6_is_one_claim_with_its_versions() -> None:
    """The same pair in five postings: the first keeps repeat_of NA, the others point at
    it, all list the versions; a claim whose value moved in v4 is a claim of its own."""
    c = claims(*[{"version": v, "message_id": f"v{v}@example.org"} for v in (3, 2, 6, 4, 5)],
               {"version": 4, "message_id": "v4@example.org", "patched_value": 5301.0})
    got = fold(c)
    assert got.claim_id.tolist() == ["v3@example.org#1", "v2@example.org#1",
                                     "v6@example.org#1", "v4@example.org#1",
                                     "v5@example.org#1", "v4@example.org#2"]
    first = "v2@example.org#1"  # the earliest posting, not the first row
    assert got.repeat_of.tolist() == [first, None, first, first, first, None]
    assert got.versions.tolist() == ["2,3,4,5,6"] * 5 + ["4"]
    assert len(got) == len(c) and got.columns[:len(c.columns)].tolist() == c.columns.tolist()


def test_what_makes_two_claims_one() -> None:
    """Another side, configuration or series is another claim; a prose sentence repeated
    verbatim (whitespace aside) is one."""
    c = claims({"version": 1, "message_id": "a@x"},
               {"version": 2, "message_id": "b@x", "side": "rx"},
               {"version": 2, "message_id": "b@x", "config": "send-64"},
               {"version": 2, "message_id": "c@x", "title": "net: another series"},
               {"version": 1, "message_id": "a@x", "kind": "prose",
                "statement": "This improves  throughput by 7%.", "stated_pct": 7.0},
               {"version": 2, "message_id": "b@x", "kind": "prose",
                "statement": "This improves throughput\nby 7%.", "stated_pct": 7.0})
    got = fold(c)
    assert got.repeat_of.tolist() == [None, None, None, None, None, "a@x#2"]
    assert got.versions.tolist() == ["1", "2", "2", "2", "1,2", "1,2"]


def test_an_empty_table_gets_the_columns() -> None:
    got = fold(pd.DataFrame(columns=list(MEASURED)))
    assert {"claim_id", "repeat_of", "versions"} <= set(got.columns) and got.empty


def test_version_span_reads_as_runs() -> None:
    assert version_span("2,3,4,5,6") == "v2-v6"
    assert version_span("1,3,4,6") == "v1,v3-v4,v6"
    assert version_span("2") == "v2"
    assert version_span(None) == "" and version_span("") == ""


def test_patches_of_one_series_or_one_title_are_one_series() -> None:
    """A cover letter's sentence copied into two patches of a posting (two titles, one
    series_id) is one claim; so is a v1 the link pass put in a series of its own but
    under the same title; a title of another series is not."""
    prose = {"kind": "prose", "statement": "This greatly improves insertion speed.",
             "stated_pct": None}
    c = claims({"version": 1, "message_id": "p2@x", "title": "set: split lookup",
                "patch_id": "a2", **prose},
               {"version": 1, "message_id": "p3@x", "title": "set: avx2 insertions",
                "patch_id": "a3", **prose},
               {"version": 2, "message_id": "q3@x", "title": "set: avx2 insertions",
                "patch_id": "b3", **prose},
               {"version": 2, "message_id": "r1@x", "title": "other: unrelated",
                "patch_id": "c1", **prose})
    got = fold(c, {"a2": "s1", "a3": "s1", "b3": "s2", "c1": "s3"})
    assert got.repeat_of.tolist() == [None, "p2@x#1", "p2@x#1", None]
    assert got.versions.tolist() == ["1,2", "1,2", "1,2", "2"]


def test_a_series_renamed_between_versions_is_one_series() -> None:
    """Its author posts the very same claim under the old and the new title: one claim, as
    a title kept would be; another author's equal pair under another title stays apart."""
    c = claims({"version": 1, "message_id": "a@x", "author": "Pat",
                "title": "netfilter: nf_nat: recalculate TS offset when snat changes sport"},
               {"version": 2, "message_id": "b@x", "author": "Pat",
                "title": "netfilter: nf_nat: recalculate TS offset after port rewrite"},
               {"version": 2, "message_id": "b@x", "author": "Pat", "config": "send-64",
                "title": "netfilter: nf_nat: recalculate TS offset after port rewrite"},
               {"version": 1, "message_id": "c@x", "author": "Tess",
                "title": "net: an unrelated series"})
    got = fold(c)
    assert got.repeat_of.tolist() == [None, "a@x#1", None, None]
    assert got.versions.tolist() == ["1,2", "1,2", "2", "1"]
