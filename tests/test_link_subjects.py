import pytest

from mlx.link.subjects import looks_like_commit_title, parse_subject


@pytest.mark.parametrize("subject, expected", [
    # the common netdev shape: version and tree in one group
    ("[PATCH v2 net] wireguard: use DEV_STATS_INC()",
     dict(version=2, tree="net", title="wireguard: use DEV_STATS_INC()", subsystem="wireguard")),
    # tree first, version, part
    ("[PATCH net-next v3 07/12] net: mana: fix foo",
     dict(version=3, part=7, total=12, tree="net-next", subsystem="net",
          subsystem_path="net/mana")),
    # comma-separated tokens and RFC before PATCH
    ("[RFC PATCH net-next,v3 1/4] tcp: add bar",
     dict(is_rfc=True, version=3, part=1, total=4, tree="net-next")),
    # b4 reads this as v1 with 24 revisions: it is v6, part 19 of 24
    ("[PATCH v6,19/24] media: foo", dict(version=6, part=19, total=24, tree=None)),
    # version glued to PATCH
    ("[PATCHv3 2/5] mm: baz", dict(version=3, part=2, total=5)),
    # tree before PATCH
    ("[net-next PATCH v2 1/2] ipv6: quux", dict(version=2, part=1, total=2)),
    # mercurial patchbomb
    ("[PATCH 1 of 3] hg: thing", dict(part=1, total=3, version=1, version_seen=False)),
    # version after the title (Patchwork misses it)
    ("[PATCH] tcp: fix foo (v2)", dict(version=2, title="tcp: fix foo")),
    # resend of a cover letter
    ("[PATCH RESEND v4 0/7] tcp: series", dict(is_resend=True, version=4, part=0, total=7)),
    # replies in several languages, stacked, before the brackets
    ("Re: Re: AW: [PATCH] x: y", dict(is_reply=True, title="x: y", kind="patch")),
    ("RE: [PATCH] x: y", dict(is_reply=True)),
    ("Aw: [PATCH] x: y", dict(is_reply=True)),
    ("SV: [PATCH] x: y", dict(is_reply=True)),
    ("Fwd: [PATCH] x: y", dict(is_reply=True)),
    ("Re[2]: [PATCH] x: y", dict(is_reply=True)),
    # a list tag before the reply prefix, and a reply prefix after the brackets
    ("[Intel-wired-lan] Re: [PATCH iwl-next] igc: z", dict(is_reply=True, tree="iwl-next",
                                                        title="igc: z")),
    # every bracket token kept
    ("[PATCH bpf-next v2 3/3] selftests/bpf: t", dict(prefixes=["PATCH bpf-next v2 3/3"],
                                                    subsystem="selftests/bpf")),
    # no tag at all: not a patch subject, version defaulted
    ("AF_XDP tear down and up fail", dict(kind="other", version=1, version_seen=False,
                                          subsystem=None)),
    # the kernel test robot is its own kind
    ("[LKP] [tcp] 8b27dae5a2: netperf.Throughput_Mbps -25.7% regression",
     dict(kind="robot", robot_commit="8b27dae5a2", robot_metric="netperf.Throughput_Mbps",
          robot_change_pct=-25.7)),
    ("[linus:master] [mm]  c544a952ba:  vm-scalability.throughput 33.3% improvement",
     dict(kind="robot", robot_commit="c544a952ba", robot_change_pct=33.3, tree="linus:master")),
    # stable review: the kernel version is the tree
    ("[PATCH 5.10 001/123] net: sched: fix", dict(tree="5.10", part=1, total=123)),
])
def test_parse_subject(subject: str, expected: dict) -> None:
    got = parse_subject(subject)
    for key, value in expected.items():
        assert getattr(got, key) == value, (key, getattr(got, key))


def test_cover_and_flags() -> None:
    cover = parse_subject("[PATCH net-next v2 0/2] tcp: batch the ack path")
    assert cover.is_cover and cover.kind == "patch"
    assert not parse_subject("[PATCH net-next v2 1/2] tcp: x").is_cover


def test_rfc2047_is_decoded_before() -> None:
    # the parser sees decoded subjects: mlx.ingest decodes RFC 2047 first
    assert parse_subject("[PATCH] Jörg: fix").subsystem == "Jörg"


@pytest.mark.parametrize("title, ok", [
    ("receive: use gro call instead of plain call", True),  # seed 002
    ("Note: this is prose", False),  # a capitalised word before the colon
    ("AF_XDP tear down and up fail", False),
    ("tcp: x", False),  # too short to be a commit title
])
def test_looks_like_commit_title(title: str, ok: bool) -> None:
    assert looks_like_commit_title(title) is ok
