from pathlib import Path

import pandas as pd
import pytest
from link_reference import ThreadInput, thread

import mlx
from mlx.link.rules import patch_key
from mlx.link.threads import choose_parent, thread_refs

DATA = Path(__file__).resolve().parent / "data" / "threads"


def load(tmp_path: Path, *names: str) -> mlx.Archive:
    store = str(tmp_path / "s")
    mlx.ingest([str(DATA / n) for n in names], store=store, workers=1)
    return mlx.load(store)


def by_mid(df: pd.DataFrame) -> pd.DataFrame:
    return df.set_index("message_id")


def test_series_out_of_order(tmp_path: Path) -> None:
    """Stored reply-first; the tree is the same as in date order:

        c0  [PATCH 0/2] tcp: helper series
        ├── p1  [PATCH 1/2] tcp: add helper
        │   └── r1  Re: 1/2  (Reviewed-by)
        ├── p2  [PATCH 2/2] tcp: use helper
        └── r2  Re: 0/2  (Acked-by, for the series)
    """
    a = load(tmp_path, "series-out-of-order.mbox")
    m = by_mid(a.messages)
    assert m.loc["c0@example.org", "depth"] == 0
    assert m.thread_id.nunique() == 1
    assert m.loc["p1@example.org", "parent_id"] == "c0@example.org"
    assert (m.loc["r1@example.net", "parent_id"], m.loc["r1@example.net", "depth"]) == (
        "p1@example.org", 2)
    # replies take their nearest patch ancestor; a reply to the cover takes the cover
    assert m.loc["r1@example.net", "patch_id"] == m.loc["p1@example.org", "patch_id"]
    assert m.loc["r2@example.com", "patch_id"] == m.loc["c0@example.org", "patch_id"]
    p = by_mid(a.patches)
    assert len(p) == 3 and p.series_id.nunique() == 1
    assert p.loc["c0@example.org", "is_cover"]
    assert (p.loc["c0@example.org", "files_changed"], p.loc["c0@example.org", "insertions"],
            p.loc["c0@example.org", "deletions"]) == (1, 3, 1)
    # counted from the diff itself
    assert (p.loc["p1@example.org", "insertions"], p.loc["p1@example.org", "deletions"]) == (2, 0)
    t1 = p.loc["p1@example.org", "trailers"]
    assert ("Signed-off-by", "Alice Novak <alice@example.org>") in t1
    assert ("Reviewed-by", "Bob Lund <bob@example.net>") in t1  # from the reply
    assert ("Acked-by", "Carol Weiss <carol@example.com>") in t1  # given on the cover
    assert ("Reviewed-by", "Bob Lund <bob@example.net>") not in p.loc["p2@example.org", "trailers"]
    t = a.threads.iloc[0]
    assert (t.root_id, t.n_messages, t.n_ghosts) == ("c0@example.org", 5, 0)
    assert t.subject == "[PATCH net-next 0/2] tcp: helper series"


def test_ghosts_loops_duplicates(tmp_path: Path) -> None:
    """
        (missing-root)            ghost root
        ├── (missing-parent)      ghost
        │   └── g2
        └── g3                    In-Reply-To with a comment after the id

        loop-a <-> loop-b         cut at the earliest: loop-a is the root
        └── loop-b

        dup (first)               two messages, one id: both kept
        ├── dup-reply             "<y>" dropped; the earliest dup is the parent
        dup (changed body)        its own thread
    """
    a = load(tmp_path, "ghosts-loops-dups.mbox")
    m = a.messages.set_index("subject")
    assert m.loc["Re: ring sizes", "thread_id"].nunique() == 1
    g = a.messages.set_index("message_id")
    assert g.loc["g2@example.com", "parent_id"] == "missing-parent@example.com"
    assert g.loc["g2@example.com", "depth"] == 2
    assert g.loc["g3@example.org", "parent_id"] == "missing-root@example.com"
    ghost = a.threads[a.threads.root_id == "missing-root@example.com"].iloc[0]
    assert (ghost.n_messages, ghost.n_ghosts) == (2, 2)
    assert g.loc["loop-a@example.org", "depth"] == 0
    assert g.loc["loop-b@example.org", "parent_id"] == "loop-a@example.org"
    dups = a.messages[a.messages.message_id == "dup@example.org"].sort_values("date")
    assert len(dups) == 2 and dups.thread_id.nunique() == 2
    reply = g.loc["dup-reply@example.org"]
    assert reply.parent_id == "dup@example.org"
    assert reply.thread_id == dups.iloc[0].thread_id
    assert len(a.threads) == 4


def test_versions_and_intruder(tmp_path: Path) -> None:
    """
        v1  [PATCH bpf-next] bpf: speed up the map walk         series S
        v2  [PATCH bpf-next v2] ... (not a reply to v1)         series S
        q   question about map walk timing
        └── intruder  [PATCH] bpf: fix the walk timer           its own patch and series
            └── q2  Re: (Tested-by)
        about-v3  Re: [PATCH bpf-next v3] ...  parent missing: keyed by title and v3
    """
    a = load(tmp_path, "versions-and-intruder.mbox")
    p = by_mid(a.patches)
    assert set(p.index) == {"v1@example.org", "v2@example.org", "intruder@example.com"}
    assert p.loc["v1@example.org", "series_id"] == p.loc["v2@example.org", "series_id"]
    assert p.loc["v1@example.org", "patch_id"] != p.loc["v2@example.org", "patch_id"]
    assert (p.loc["v2@example.org", "version"], p.loc["v1@example.org", "version"]) == (2, 1)
    assert not p.loc["v1@example.org", "version_seen"]
    assert p.loc["intruder@example.com", "series_id"] != p.loc["v1@example.org", "series_id"]
    assert ("Tested-by", "Bob Lund <bob@example.net>") in p.loc["intruder@example.com", "trailers"]
    m = by_mid(a.messages)
    assert pd.isna(m.loc["q@example.net", "patch_id"])  # the question is about no patch
    assert m.loc["q2@example.net", "patch_id"] == p.loc["intruder@example.com", "patch_id"]
    assert m.loc["about-v3@example.com", "patch_id"] == patch_key("bpf: speed up the map walk", 3)


def test_order_independent(tmp_path: Path) -> None:
    one = load(tmp_path / "a", "series-out-of-order.mbox", "ghosts-loops-dups.mbox")
    two = load(tmp_path / "b", "ghosts-loops-dups.mbox", "series-out-of-order.mbox")
    cols = ["uid", "thread_id", "parent_id", "depth", "patch_id"]
    a = one.messages[cols].sort_values("uid").reset_index(drop=True)
    b = two.messages[cols].sort_values("uid").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_seeds_land_under_their_patches(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent / "data" / "seeds"
    store = str(tmp_path / "s")
    mlx.ingest([str(root)], store=store, workers=1)
    m = mlx.load(store).messages.set_index("subject")
    assert (m.loc["Re: [PATCH v2 net] wireguard: use DEV_STATS_INC()", "patch_id"]
            == patch_key("wireguard: use DEV_STATS_INC()", 2))
    assert (m.loc["receive: use gro call instead of plain call", "patch_id"]
            == patch_key("receive: use gro call instead of plain call", 1))


@pytest.mark.parametrize("irt, refs, own, addrs, parent", [
    # one well-formed In-Reply-To id wins
    (["a@x"], ["r@x", "b@x"], "m@x", set(), "a@x"),
    # "<y>" from an old git-send-email prompt is no id
    (["y"], ["r@x", "b@x"], "m@x", set(), "b@x"),
    # an address in angle brackets is no id
    (["bob@example.net"], ["r@x"], "m@x", {"bob@example.net"}, "r@x"),
    # two ids in In-Reply-To: fall back to References
    (["a@x", "c@x"], ["r@x"], "m@x", set(), "r@x"),
    # a message naming itself is no parent
    (["m@x"], [], "m@x", set(), None),
])
def test_choose_parent(irt, refs, own, addrs, parent) -> None:
    assert choose_parent(irt, refs, own, addrs) == parent


def test_thread_cycle_of_ghost_references() -> None:
    # References that make a ghost chain loop (a -> b -> a) terminate
    refs = [thread_refs(["b"], ["a", "b"], "m1", set()),
            thread_refs(["a"], ["b", "a"], "m2", set())]
    assert refs == [["a", "b"], ["b", "a"]]
    out = thread(ThreadInput(["u1", "u2"], ["m1", "m2"], [1.0, 2.0], refs))
    assert len(set(out.thread_id)) == 1


@pytest.mark.parametrize("irt, refs, chain", [
    (["p@x"], ["r@x", "p@x"], ["r@x", "p@x"]),
    # In-Reply-To names a parent References lacks: it goes last
    (["p@x"], ["r@x"], ["r@x", "p@x"]),
    (["y"], [], []),
])
def test_thread_refs_end_with_the_parent(irt, refs, chain) -> None:
    assert thread_refs(irt, refs, "m@x", set()) == chain


def test_parts_stored_before_thread_refs_are_threaded_from_headers(tmp_path: Path) -> None:
    import pyarrow.parquet as pq
    new = load(tmp_path, "series-out-of-order.mbox")
    for part in (tmp_path / "s" / "messages").glob("*.parquet"):
        table = pq.read_table(part)
        pq.write_table(table.drop_columns(["thread_refs"]), part)
    from mlx.link import link
    from mlx.store import Store
    link(Store(str(tmp_path / "s")))
    old = mlx.load(str(tmp_path / "s"))
    cols = ["message_id", "parent_id", "depth", "thread_id", "patch_id"]
    pd.testing.assert_frame_equal(old.messages[cols], new.messages[cols])


def test_postings_of_a_prolific_author_group_by_thread_and_window() -> None:
    from link_reference import Row, link_patches
    rows = []
    for k in range(1000):  # a posting a day, each in its own thread, same author and total
        for part in (1, 2):
            rows.append(Row(uid=f"u{k}-{part}", message_id=f"m{k}-{part}",
                            subject=f"[PATCH {part}/2] net: change {k}",
                            from_addr="prolific@example.org", date=k * 86400.0 + part,
                            thread_id=f"t{k}", parent_uid=None, has_diff=True,
                            diffstat_files=None))
    # and one unthreaded posting whose parts arrive a minute apart
    for part in (1, 2):
        rows.append(Row(uid=f"x{part}", message_id=f"x{part}", subject=f"[PATCH {part}/2] x: y z",
                        from_addr="prolific@example.org", date=5e8 + 60 * part,
                        thread_id=f"x{part}", parent_uid=None, has_diff=True,
                        diffstat_files=None))
    patches, _, _ = link_patches(rows)
    series = {p["uid"]: p["series_id"] for p in patches}
    assert all(series[f"u{k}-1"] == series[f"u{k}-2"] for k in range(1000))
    assert len({series[f"u{k}-1"] for k in range(1000)}) == 1000
    assert series["x1"] == series["x2"]


def test_patch_attribution_by_posting(tmp_path: Path) -> None:
    """patch-attribution.mbox: replies, trailers, versions and series tied to postings.

        p1  [PATCH net] tcp: fix the probe timer      r1 (Reviewed-by own, Acked-by Dana's)
        p2  [PATCH RESEND net] tcp: fix ...           r2 (Acked-by), robot1 (Reported-by)
        p3  the same title by another author, 2023    r3 (parent a ghost, p3 in References)
        c1  [PATCH 0/2] udp: batch the receive path   c1-1, c1-2
        c3  [PATCH v3 0/2] udp: a faster receive path c3-1 <- c3-2 (parts say no version;
            Cc/Fixes/Reviewed-by in the cover)         c3-r (Acked-by own, Jo Park's)
            ghost-walk: In-Reply-To a ghost, References c3 c3-2 ghost
        fork-a  Re: [PATCH] bar: ... (patch absent)   fork-b  Other topic (was: ...)
        pull1  [GIT PULL]; pr1, pr2  [PATCH net 0/1] Frob fixes for net (request-pull)
        bare  "clean up the frob code v2" (diffstat, no brackets) <- bare-1 [PATCH 1/1]
        set1, set2  [PATCH 0/1] [Set N] mlxsw: more offloads
        stripped  [PATCH net] ... with a Signed-off-by, its diff stripped  <- stripped-r
        no-patch  [PATCH] a question ... (no diff, no sign-off)
    """
    a = load(tmp_path, "patch-attribution.mbox")
    p = by_mid(a.patches)
    m = by_mid(a.messages)
    # one key per posting: a resend and another author's patch of the same title are apart
    assert p.patch_id.is_unique
    assert m.loc["r1@example.net", "patch_id"] == p.loc["p1@example.org", "patch_id"]
    assert m.loc["r2@example.com", "patch_id"] == p.loc["p2@example.org", "patch_id"]
    assert m.loc["r3@example.net", "patch_id"] == p.loc["p3@example.net", "patch_id"]
    # a reply's trailers reach its posting alone; a trailer in someone else's name is apart
    bob = ("Reviewed-by", "Bob Lund <bob@example.net>")
    assert bob in p.loc["p1@example.org", "trailers"]
    assert ("Acked-by", "Dana Reyes <dana@example.com>") in p.loc["p1@example.org",
                                                                 "trailers_other"]
    assert bob not in p.loc["p2@example.org", "trailers"] + p.loc["p3@example.net", "trailers"]
    assert ("Acked-by", "Carol Weiss <carol@example.com>") in p.loc["p2@example.org", "trailers"]
    assert ("Acked-by", "Carol Weiss <carol@example.com>") not in p.loc["p1@example.org",
                                                                        "trailers"]
    assert ("Tested-by", "Bob Lund <bob@example.net>") in p.loc["p3@example.net", "trailers"]
    assert not [t for t in p.loc["p2@example.org", "trailers"] if "robot" in t[1]]
    # parts under a versioned cover carry its version (not seen in their own subject)
    assert p.loc[["c3-1@example.org", "c3-2@example.org"], "version"].tolist() == [3, 3]
    assert not p.loc["c3-1@example.org", "version_seen"]
    assert p.loc[["c1-1@example.org", "c1-2@example.org"], "version"].tolist() == [1, 1]
    # a retitled cover: v1 and v3 share both patch titles, so they are one series
    assert p.loc[["c1@example.org", "c1-1@example.org", "c3@example.org",
                  "c3-2@example.org"], "series_id"].nunique() == 1
    # the cover's review trailers reach its parts, its Cc and Fixes do not
    part = p.loc["c3-1@example.org", "trailers"]
    assert ("Reviewed-by", "Hana Ito <hana@example.org>") in part
    assert ("Acked-by", "Ivan Roth <ivan@example.com>") in part  # given on the cover
    assert not [t for t in part if t[0] in ("Cc", "Fixes")]
    assert ("Acked-by", "Jo Park <jo@example.org>") in p.loc["c3-1@example.org",
                                                            "trailers_other"]
    # past a ghost parent the References reach the patch (not the v1 part of that title)
    assert m.loc["ghost-walk@example.net", "patch_id"] == p.loc["c3-2@example.org", "patch_id"]
    kim = ("Reviewed-by", "Kim Aalto <kim@example.net>")
    assert kim in p.loc["c3-2@example.org", "trailers"]
    assert kim not in p.loc["c1-2@example.org", "trailers"]
    # a patch the archive lacks: its title's key, inherited by a forked subthread
    assert m.loc["fork-a@example.org", "patch_id"] == patch_key("bar: fix the frob", 1)
    assert m.loc["fork-b@example.com", "patch_id"] == m.loc["fork-a@example.org", "patch_id"]
    # pull requests: [GIT PULL] is no cover; request-pull covers are series of their own
    assert p.loc["pull1@example.org", "is_pull"] and not p.loc["pull1@example.org", "is_cover"]
    assert p.loc["pr1@example.org", "is_pull"] and p.loc["pr1@example.org", "is_cover"]
    assert not p.loc["pr1-1@example.org", "is_pull"]
    assert p.loc["pr1@example.org", "series_id"] != p.loc["pr2@example.org", "series_id"]
    assert p.loc["pr1-1@example.org", "series_id"] == p.loc["pr1@example.org", "series_id"]
    # a cover without brackets, versioned at its end, and its part
    assert p.loc["bare@example.net", "is_cover"] and p.loc["bare@example.net", "version"] == 2
    assert p.loc["bare-1@example.net", "version"] == 2
    assert p.loc["bare-1@example.net", "series_id"] == p.loc["bare@example.net", "series_id"]
    # [Set N] keeps two postings of one title apart
    assert p.loc["set1@example.org", "series_id"] != p.loc["set2@example.org", "series_id"]
    assert p.loc["set2@example.org", "prefixes"] == ["PATCH 0/1", "Set 2"]
    # a [PATCH] posting whose diff was stripped is a patch; a question titled so is not
    assert pd.isna(p.loc["stripped@example.com", "files_changed"])
    assert ("Reviewed-by", "Rita Ng <rita@example.org>") in p.loc["stripped@example.com",
                                                                 "trailers"]
    assert "no-patch@example.net" not in p.index


def test_encoded_message_ids_thread(tmp_path: Path) -> None:
    """A Message-Id a mailer wrote as folded RFC 2047 words is the id it hides: replies
    citing the real id, or citing it encoded, thread to it."""
    a = load(tmp_path, "encoded-message-id.mbox")
    m = by_mid(a.messages)
    real = "20230928-frob_bar-v1-10-0123abcd@example.org"
    assert real in m.index
    assert "encoded-message-id" in m.loc[real, "defects"]
    assert "encoded-message-id" in m.loc["reply-encoded-refs@example.com", "defects"]
    for reply in ("reply-to-encoded@example.net", "reply-encoded-refs@example.com"):
        assert m.loc[reply, "parent_id"] == real
        assert m.loc[reply, "patch_id"] == m.loc[real, "patch_id"]
    trailers = by_mid(a.patches).loc[real, "trailers"]
    assert ("Reviewed-by", "Bob Lund <bob@example.net>") in trailers
    assert ("Tested-by", "Carol Weiss <carol@example.com>") in trailers
