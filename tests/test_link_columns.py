"""The columnar link pass gives the tables of the message-by-message reference."""

import math
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from conftest import DATA, ROOT, corpus_path
from link_reference import ThreadInput, link_tables, thread

import mlx
from mlx.link import link
from mlx.link.columns import thread_columns
from mlx.store import Store

sys.path.insert(0, str(ROOT / "benchmarks"))
from threads import synthetic  # noqa: E402  (the threading benchmark's header rows)


def _arrow(inp: ThreadInput) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    return (pa.array(inp.uid, pa.string()), pa.array(inp.message_id, pa.string()),
            pa.array([None if d != d or math.isinf(d) else int(d * 1e6) for d in inp.date],
                     pa.int64()),
            pa.array([list(r) for r in inp.refs], pa.list_(pa.string())))


@pytest.mark.parametrize("n", [1, 200, 5000])
def test_thread_columns_equal_thread(n: int) -> None:
    # threads of 1-40 replies, 2% ghost parents, 0.1% duplicate ids, reference loops
    inp = synthetic(n)
    want = thread(inp)
    uid, mid, dates, refs = _arrow(inp)
    got = thread_columns(uid, mid, dates, refs)
    assert got.thread_ids(uid).to_pylist() == want.thread_id
    assert got.depth.tolist() == want.depth
    assert got.parent_uids(uid).to_pylist() == want.parent_uid
    assert got.parent_ids().to_pylist() == want.parent_id


def test_thread_columns_cut_loops_and_keep_duplicates_apart() -> None:
    # m1 <-> m2 name each other; m3 duplicates m1's id and comes later; m4 answers a
    # ghost whose own parent is m1
    inp = ThreadInput(["u1", "u2", "u3", "u4"], ["m1", "m2", "m1", "m4"],
                      [1.0, 2.0, 3.0, float("nan")],
                      [["m2"], ["m1"], [], ["m1", "gone"]])
    want = thread(inp)
    uid, mid, dates, refs = _arrow(inp)
    got = thread_columns(uid, mid, dates, refs)
    assert got.thread_ids(uid).to_pylist() == want.thread_id
    assert got.depth.tolist() == want.depth == [0, 1, 0, 2]
    assert got.parent_uids(uid).to_pylist() == want.parent_uid


def _same_tables(store: Path) -> None:
    st = Store(str(store))
    want = link_tables(st)
    for _ in range(2):  # the second pass reads the subjects the first one parsed
        link(st)
        for name, table in want.items():
            got = st.read_link(name)
            assert got is not None and got.schema == table.schema, name
            for col in table.column_names:
                assert got.column(col).to_pylist() == table.column(col).to_pylist(), (name, col)


def test_stored_subjects_are_reparsed_when_the_parser_changes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    import mlx.link.subject_columns as pcols
    mlx.ingest([str(DATA / "threads" / "patch-attribution.mbox")], store=str(tmp_path / "s"),
               workers=1)
    st = Store(str(tmp_path / "s"))
    before = st.read_link("patches")
    seen = st.read_link("subjects")
    assert seen is not None and len(seen) >= len(before)
    # a stale parse, as an older parser would have stored it: never read
    stale = seen.set_column(seen.schema.get_field_index("title"), "title",
                            pa.array(["stale"] * len(seen)))
    st.write_link("subjects", stale.replace_schema_metadata({"parser": "old"}))
    link(st)
    assert st.read_link("patches").column("title") == before.column("title")
    monkeypatch.setattr(pcols, "parser_version", lambda: "old")
    st.write_link("subjects", stale.replace_schema_metadata({"parser": "old"}))
    link(st)  # the same parse, now of the running parser's version: read, not redone
    assert set(st.read_link("patches").column("title").to_pylist()) == {"stale"}


def test_the_workers_parse_the_subjects_and_the_link_pass_folds_them_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlx.link as link_module
    given: list[tuple[set[str], set[str]]] = []  # (the messages' subjects, those known)
    real = link_module.parse_subjects

    def recording(subject: pa.ChunkedArray, known: pa.Table | None) -> object:
        given.append(({s for s in subject.to_pylist() if s is not None},
                      set() if known is None else set(known.column("subject").to_pylist())))
        return real(subject, known)

    monkeypatch.setattr(link_module, "parse_subjects", recording)
    store = str(tmp_path / "s")
    seen: set[str] = set()
    for name in ("patch-attribution.mbox", "series-out-of-order.mbox"):
        mlx.ingest([str(DATA / "threads" / name)], store=store, workers=1)
        subjects, known = given[-1]
        assert subjects and subjects <= known  # none left to parse in the link pass
        seen |= subjects
        st = Store(store)
        assert st.part_paths("subject_parses") == []  # folded into link/subjects
        stored = st.read_link("subjects")
        assert stored is not None and set(stored.column("subject").to_pylist()) == seen
        assert len(stored) == len(seen)  # each subject once
    assert all(subjects <= known for subjects, known in given)  # every parse of the passes
    monkeypatch.setattr(link_module, "parse_subjects", real)
    _same_tables(tmp_path / "s")


@pytest.mark.parametrize("source", [
    DATA / "threads" / "ghosts-loops-dups.mbox", DATA / "threads" / "series-out-of-order.mbox",
    DATA / "threads" / "versions-and-intruder.mbox", DATA / "threads" / "patch-attribution.mbox",
    DATA / "claims" / "shapes.mbox",
    ROOT / "data" / "sample.mboxrd", ROOT / "data" / "seeds"])
def test_link_equals_the_reference(source: Path, tmp_path: Path) -> None:
    mlx.ingest([str(source)], store=str(tmp_path / "s"), workers=1)
    _same_tables(tmp_path / "s")


@pytest.mark.parametrize("rel", ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz",
                                 "lists/ath10k.mbox.gz", "perf-threads"])
def test_link_equals_the_reference_on_real_lists(rel: str, tmp_path: Path) -> None:
    path = corpus_path(*rel.split("/"))
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=2, extract=())
    _same_tables(tmp_path / "s")


def test_link_of_an_empty_store(tmp_path: Path) -> None:
    st = Store(str(tmp_path / "s"), create=True)
    st.save_manifest()
    assert link(st) == {"threads": 0, "patches": 0, "covers": 0, "series": 0, "reports": 0,
                        "claims": 0, "link_errors": 0}
    archive = mlx.load(str(tmp_path / "s"))
    assert len(archive.threads) == len(archive.patches) == len(archive.claims) == 0


def test_link_with_no_sender_anywhere(tmp_path: Path) -> None:
    """No message has a From address, and a reply carries a trailer: still linked, as the
    reference links it."""
    from mlx.ingest.split import write_mboxrd
    patch = (b"Subject: [PATCH] x: fix y\nMessage-ID: <p@x>\nDate: Mon, 1 Jan 2024 00:00:00 "
             b"+0000\n\nSigned-off-by: A <a@x>\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n"
             b"@@ -1 +1 @@\n-a\n+b\n")
    reply = (b"Subject: Re: [PATCH] x: fix y\nMessage-ID: <r@x>\nIn-Reply-To: <p@x>\n"
             b"Date: Mon, 1 Jan 2024 01:00:00 +0000\n\nReviewed-by: B <b@x>\n")
    (tmp_path / "m.mbox").write_bytes(write_mboxrd([patch, reply]))
    mlx.ingest([str(tmp_path / "m.mbox")], store=str(tmp_path / "s"), workers=1)
    _same_tables(tmp_path / "s")
    other = Store(str(tmp_path / "s")).read_link("patches").column("trailers_other")
    assert other.to_pylist() == [[{"key": "Reviewed-by", "value": "B <b@x>"}]]
