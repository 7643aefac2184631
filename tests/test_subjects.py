import pytest

from mlx.subjects import looks_like_commit_title, parse_subject


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
    # AUTOSEL and RFT are flags, and the stable version after AUTOSEL is the tree
    ("[PATCH AUTOSEL 5.4 10/25] net: fix", dict(is_autosel=True, tree="5.4", part=10,
                                               total=25, version=1)),
    ("[PATCH RFT] ath10k: add hw param", dict(is_rft=True, is_rfc=False, tree=None)),
    ("[RFC/RFT PATCH v2] mediatek: split", dict(is_rft=True, is_rfc=True, version=2)),
    # internal tags are no tree; a set tag keeps a large series' postings apart
    ("[PATCH S22 3/9] ice: refactor", dict(tree=None, part=3, total=9,
                                         prefixes=["PATCH S22 3/9"])),
    ("[PATCH 00/21] [Set 2] mlxsw: more", dict(set_tag="set 2", part=0, total=21,
                                              prefixes=["PATCH 00/21", "Set 2"],
                                              title="mlxsw: more")),
    # a pull request is its own kind, no cover letter
    ("[GIT PULL] sysctl changes for v6.6-rc1", dict(is_pull=True, kind="patch", tree=None,
                                                     title="sysctl changes for v6.6-rc1")),
    ("[GIT PULL net-next 0/5] mlx5 updates", dict(is_pull=True, tree="net-next", part=0)),
    # minor versions
    ("[PATCHv3.1 2/5] mm: baz", dict(version=3, version_minor=1, part=2)),
    ("[PATCH v7.1] selftests: add", dict(version=7, version_minor=1, version_seen=True)),
    ("[PATCH v2] tcp: x", dict(version=2, version_minor=None)),
    # forwards after a list tag, mail gateway tags
    ("[OpenWrt-Devel] FW: [PATCH] brcm: rename", dict(is_reply=True, kind="patch",
                                                     title="brcm: rename")),
    ("[PATCH] fw: load the blob", dict(is_reply=False, title="fw: load the blob")),
    ("(EXT) Re: [PATCH v2] ath10k: fix", dict(is_reply=True, version=2, title="ath10k: fix")),
    ("RE: [EXT] [PATCH 04/11] mmc: sdio: move", dict(is_reply=True, part=4, total=11)),
    # no PATCH word, but a part number: a patch's subject
    ("[iwl-next v4 6/8] ice: add", dict(kind="patch", version=4, part=6, total=8,
                                       tree="iwl-next")),
    # a bare version ends a subject without brackets; with brackets it is a model's
    ("clean up kernel_read & friends v2", dict(version=2, version_seen=True,
                                                title="clean up kernel_read & friends")),
    ("[PATCH] ramips: add support for Router 3G v2",
     dict(version=1, version_seen=False, title="ramips: add support for Router 3G v2")),
])
def test_parse_subject(subject: str, expected: dict) -> None:
    got = parse_subject(subject)
    for key, value in expected.items():
        assert getattr(got, key) == value, (key, getattr(got, key))


def test_cover_and_flags() -> None:
    cover = parse_subject("[PATCH net-next v2 0/2] tcp: batch the ack path")
    assert cover.is_cover and cover.kind == "patch"
    assert not parse_subject("[PATCH net-next v2 1/2] tcp: x").is_cover
    assert not parse_subject("[GIT PULL 0/3] nf fixes").is_cover


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
