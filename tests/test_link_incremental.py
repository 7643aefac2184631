"""An incremental link pass gives the tables a full re-link of the store gives."""

import json
import random
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import DATA, ROOT, corpus_path

import mlx
import mlx.link.incremental as incremental
import mlx.link.known
import mlx.link.subject_columns as pcols
import mlx.linkfiles
from mlx.ingest.sources import open_stream
from mlx.ingest.split import split_blocks, write_mboxrd
from mlx.link import link
from mlx.link.columns import ranges
from mlx.link.incremental import (
    INDEX,
    KEYS,
    MID,
    NEED,
    PCLASS,
    POST,
    REF,
    SKEY,
    _isin,
    _pairs,
    _union,
    index_table,
)
from mlx.link.known import Known, write_subjects
from mlx.link.rows import EXTRACTED_BIT, Rows, extracted_flags
from mlx.link.subject_columns import subject_parses
from mlx.parts import POOLED, in_sorted, in_threads
from mlx.schema import COUNT_COLUMNS, MESSAGES
from mlx.store import Store

TABLES = ("messages", "threads", "patches", "reports", "claims", "keys")


def _messages(path: Path) -> list[bytes]:
    stream = open_stream(str(path))
    try:
        return [m.data for m in split_blocks(iter(lambda: stream.read(1 << 20), b""))]
    finally:
        stream.close()


def _rows(table: object) -> list[str]:
    assert table is not None
    rows = table.to_pylist()  # type: ignore[attr-defined]
    return sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)


def _ingest_in_batches(tmp_path: Path, batches: list[list[bytes]], extract: bool = True) -> Store:
    store = str(tmp_path / "s")
    for k, batch in enumerate(batches):
        f = tmp_path / f"batch{k}.mbox"
        f.write_bytes(write_mboxrd(batch))
        mlx.ingest([str(f)], store=store, workers=1, **({} if extract else {"extract": ()}))
    return Store(store)


def _equals_a_full_link(tmp_path: Path, st: Store) -> None:
    got = {name: _rows(st.read_link(name)) for name in TABLES}
    info = st.link_info()
    shutil.copytree(st.root, tmp_path / "full")
    full = Store(str(tmp_path / "full"))
    counts = link(full, full=True)
    assert full.link_gens() == []
    for name in TABLES:
        want = _rows(full.read_link(name))
        if name == "keys":  # component labels differ: compare the rest, and the
            # messages each component holds
            assert _components(st) == _components(full)
            got[name] = sorted(json.dumps({k: v for k, v in json.loads(r).items() if k != "comp"},
                                          sort_keys=True) for r in got[name])
            want = sorted(json.dumps({k: v for k, v in json.loads(r).items() if k != "comp"},
                                     sort_keys=True) for r in want)
        assert got[name] == want, name
    assert info["counts"] == counts
    assert info["rows"] == full.link_info()["rows"]
    assert info["lists"] == full.link_info()["lists"]
    # the same live rows through DuckDB
    archive = mlx.load(st.path)
    for name in ("threads", "patches", "claims", "links"):
        assert archive.sql(f"select count(*) as n from {name}").n[0] == \
            len(archive.table(name)), name


def _components(st: Store) -> set[frozenset[str]]:
    keys = st.read_link("keys", columns=["uid", "comp"])
    assert keys is not None
    out: dict[int, set[str]] = {}
    for uid, comp in zip(*(keys.column(c).to_pylist() for c in ("uid", "comp")), strict=True):
        out.setdefault(comp, set()).add(uid)
    return {frozenset(v) for v in out.values()}


def _split(messages: list[bytes], shares: list[float], seed: int) -> list[list[bytes]]:
    order = list(range(len(messages)))
    random.Random(seed).shuffle(order)
    out, start = [], 0
    for share in shares:
        end = start + max(1, round(share * len(messages)))
        out.append([messages[i] for i in sorted(order[start:end])])
        start = end
    out.append([messages[i] for i in sorted(order[start:])])
    return [b for b in out if b]


@pytest.fixture
def always_incremental(monkeypatch: pytest.MonkeyPatch) -> None:
    """Incremental passes however large their share of a small store."""
    monkeypatch.setattr(incremental, "COMPACT", 1e9)


FIXTURES = [DATA / "threads" / "ghosts-loops-dups.mbox",
            DATA / "threads" / "series-out-of-order.mbox",
            DATA / "threads" / "versions-and-intruder.mbox",
            DATA / "threads" / "patch-attribution.mbox",
            DATA / "claims" / "shapes.mbox", ROOT / "data" / "sample.mboxrd"]


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [1, 2])
def test_fixtures_linked_in_three_passes(source: Path, seed: int, tmp_path: Path,
                                         always_incremental: None) -> None:
    st = _ingest_in_batches(tmp_path, _split(_messages(source), [0.5, 0.25], seed))
    assert len(st.link_gens()) == 2  # two incremental passes after the first
    _equals_a_full_link(tmp_path, st)


@pytest.mark.parametrize("source", FIXTURES[:3] + FIXTURES[5:], ids=lambda p: p.name)
def test_subjects_looked_up_rather_than_read(source: Path, tmp_path: Path,
                                             always_incremental: None,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An incremental pass looks the stored parses of its subjects up by key instead of
    reading every stored parse, and parses only the new ones: the same tables, and
    link/subjects still holds each subject once."""
    looked_up, parsed = [], []
    real, real_parse = mlx.link.known_parses, pcols.subject_parses

    def known(st: Store, few: int | None = None) -> Known:
        out = real(st, few)
        looked_up.append(out.st is not None)
        return out

    def parse(subjects: Any) -> Any:
        out = real_parse(subjects)
        parsed.extend(out.column("subject").to_pylist())
        return out
    monkeypatch.setattr(mlx.link, "known_parses", known)
    monkeypatch.setattr(mlx.link.known, "PARSE_COST", 1e9)  # never parsed again,
    monkeypatch.setattr(mlx.link.known, "READ_WHOLE", 0)  # nor read whole: looked up
    monkeypatch.setattr(pcols, "subject_parses", parse)
    batches = _split(_messages(source), [0.5, 0.25], 3)
    st = _ingest_in_batches(tmp_path, batches)
    assert len(st.link_gens()) == 2
    assert looked_up == [False, True, True]  # the first pass reads, the others look up
    texts = [t for path, _ in st.link_files("subjects")
             for t in pq.read_table(path, columns=["subject"]).column("subject").to_pylist()]
    assert len(texts) == len(set(texts))
    # each subject parsed once: by the workers of its chunk (the pass finds them all)
    assert sorted(parsed) == sorted(set(parsed))
    _equals_a_full_link(tmp_path, st)


@pytest.mark.parametrize("source", FIXTURES[:4], ids=lambda p: p.name)
def test_subjects_parsed_again_rather_than_looked_up(source: Path, tmp_path: Path,
                                                     always_incremental: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A pass over few messages parses their subjects again instead of looking the
    stored ones up: the same tables, and link/subjects still holds each subject once."""
    parsed: list[str] = []
    real_parse = pcols.subject_parses

    def parse(subjects: Any) -> Any:
        out = real_parse(subjects)
        parsed.extend(out.column("subject").to_pylist())
        return out
    monkeypatch.setattr(pcols, "subject_parses", parse)
    monkeypatch.setattr(mlx.link.known, "PARSE_COST", 0)
    st = _ingest_in_batches(tmp_path, _split(_messages(source), [0.5, 0.25], 3))
    assert len(st.link_gens()) == 2
    # the workers parsed every subject of their chunks (their parses are not counted
    # here): what the passes parsed were stored subjects of the messages they re-linked
    assert parsed
    texts = [t for path, _ in st.link_files("subjects")
             for t in pq.read_table(path, columns=["subject"]).column("subject").to_pylist()]
    assert len(texts) == len(set(texts))
    _equals_a_full_link(tmp_path, st)


DIFF = ("Signed-off-by: A <a@x>\n---\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n"
        "@@ -1 +1 @@\n-a\n+b\n")


def _mail(mid: str, subject: str, body: str, refs: tuple[str, ...] = (),
          date: str = "Mon, 1 Jan 2024 00:00:00 +0000", frm: str = "A <a@x>") -> bytes:
    """A message replying to the last of ``refs``."""
    head = f"From: {frm}\nSubject: {subject}\nMessage-ID: <{mid}>\nDate: {date}\n"
    if refs:
        head += f"In-Reply-To: <{refs[-1]}>\nReferences: {' '.join(f'<{r}>' for r in refs)}\n"
    return (head + "\n" + body).encode()


def test_a_reply_then_its_patch_then_a_new_version(tmp_path: Path,
                                                   always_incremental: None) -> None:
    """The parent arrives after its reply (a ghost becomes a message), then a v2 of the
    patch in a thread of its own (a reply without references takes the newest)."""
    patch = _mail("p1@x", "[PATCH] net: faster frob", DIFF)
    reply = _mail("r1@x", "Re: [PATCH] net: faster frob", "Tested-by: B <b@x>\n", ("p1@x",),
                  "Mon, 1 Jan 2024 02:00:00 +0000")
    lost = _mail("l1@x", "Re: [PATCH] net: faster frob", "Reviewed-by: C <c@x>\n",
                 date="Mon, 8 Jan 2024 00:00:00 +0000")
    v2 = _mail("p2@x", "[PATCH v2] net: faster frob", DIFF, date="Fri, 5 Jan 2024 00:00:00 +0000")
    other = _mail("o1@x", "[PATCH] tcp: unrelated", DIFF)
    st = _ingest_in_batches(tmp_path, [[reply, other], [patch], [lost], [v2]])
    assert len(st.link_gens()) == 3
    assert st.link_info()["delta_rows"] == 2 + 3 + 4  # "other" never re-linked
    # a delta writes no file of a table it adds no row to (no robot reported here)
    deltas = {p.name for p in (Path(st.root) / "link").glob("*.[0-9].parquet")}
    assert "messages.1.parquet" in deltas and not any(n.startswith("reports.")
                                                      for n in deltas)
    _equals_a_full_link(tmp_path, st)


def test_a_parent_that_cuts_a_reply_off_its_patch(tmp_path: Path,
                                                  always_incremental: None) -> None:
    """A reply to a patch whose parent was a ghost: the parent arrives without references,
    so the reply no longer has the patch above it and takes its patch by title, among
    postings of that title in another component (another author's)."""
    patch = _mail("p1@x", "[PATCH] net: faster frob", DIFF)
    other = _mail("p2@y", "[PATCH] net: faster frob", DIFF, date="Wed, 3 Jan 2024 00:00:00 +0000",
                  frm="B <b@y>")
    reply = _mail("r1@x", "Re: [PATCH] net: faster frob", "Tested-by: C <c@x>\n",
                  ("p1@x", "g1@x"), "Tue, 2 Jan 2024 00:00:00 +0000", frm="C <c@x>")
    parent = _mail("g1@x", "Re: a question", "Looks odd.\n",
                   date="Mon, 1 Jan 2024 12:00:00 +0000", frm="D <d@x>")
    st = _ingest_in_batches(tmp_path, [[patch, other, reply], [parent]])
    assert len(st.link_gens()) == 1
    _equals_a_full_link(tmp_path, st)


@pytest.mark.parametrize("rel", ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz"])
def test_real_lists_linked_incrementally(rel: str, tmp_path: Path,
                                         always_incremental: None) -> None:
    messages = _messages(corpus_path(*rel.split("/")))
    # 96% first, then two passes of 2% each picked at random across the years
    st = _ingest_in_batches(tmp_path, _split(messages, [0.96, 0.02], 7))
    info = st.link_info()
    assert len(st.link_gens()) == 2
    # each pass re-linked what its messages touch: new messages picked at random across
    # years reach a quarter of the list (the components of patch histories are large)
    assert info["delta_rows"] < len(messages)
    _equals_a_full_link(tmp_path, st)


def test_a_full_pass_when_the_deltas_grow(tmp_path: Path) -> None:
    messages = _messages(DATA / "threads" / "patch-attribution.mbox")
    st = _ingest_in_batches(tmp_path, [messages[:2], messages[2:]])
    assert st.link_gens() == []  # the second ingest re-linked more than COMPACT: in full
    assert not list((Path(st.root) / "link").glob("*.1.parquet"))


def test_union_finds_components() -> None:
    # 0-1, 1-2 (a chain), 3 alone, 4-5
    label = _union(6, np.array([0, 1, 5]), np.array([1, 2, 4]))
    assert label.tolist() == [0, 0, 0, 3, 4, 4]
    # a long chain joined from its far end
    n = 1000
    label = _union(n, np.arange(n - 1)[::-1], np.arange(1, n)[::-1])
    assert (label == 0).all()


def test_plan_lookups() -> None:
    # membership by binary search, as np.isin
    values = np.array([5, -3, 7, 5, 0, 2**62])
    assert _isin(values, np.array([5, 2**62, 9])).tolist() == \
        np.isin(values, [5, 2**62, 9]).tolist()
    assert not _isin(values, np.zeros(0, dtype=np.int64)).any()
    # the parts of one key within a window: (key, time) pairs searched in lexical order
    key, when = np.array([1, 1, 1, 2, 2]), np.array([10, 20, 90, 15, 16])
    stored = _pairs(key, when)
    lo = np.searchsorted(stored, _pairs(np.array([1, 2, 3]), np.array([5, 5, 5])), "left")
    hi = np.searchsorted(stored, _pairs(np.array([1, 2, 3]), np.array([25, 15, 25])), "right")
    assert ranges(lo, hi).tolist() == [0, 1, 3]  # key 1 at 10 and 20; key 2 at 15
    assert ranges(np.array([2, 2]), np.array([2, 1])).tolist() == []


def test_parts_stored_before_the_row_counts(tmp_path: Path,
                                           always_incremental: None) -> None:
    # parts of an older mlx lack n_results, ...: which messages have extracted rows is
    # read from the extracted parts instead, and the claims come out the same
    first, second = _split(messages := _messages(DATA / "claims" / "shapes.mbox"), [0.5], 4)
    st = _ingest_in_batches(tmp_path, [first])
    counted = st.read("messages", MESSAGES, ["uid", *COUNT_COLUMNS])
    for part in Path(st.root, "messages").glob("*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(list(COUNT_COLUMNS)), part)
    link(st, full=True)
    flags = extracted_flags(st, Rows(st))
    want = sum((np.asarray(counted.column(f"n_{t}").to_pylist()) > 0) * bit
               for t, bit in EXTRACTED_BIT.items())
    assert flags.tolist() == want.tolist() and flags.any()
    (tmp_path / "second.mbox").write_bytes(write_mboxrd(second))
    mlx.ingest([str(tmp_path / "second.mbox")], store=st.path, workers=1)
    assert len(messages) == len(first) + len(second) and st.link_gens()
    _equals_a_full_link(tmp_path, st)


def test_index_of_keys() -> None:
    # two messages: a patch posting (id 10, title 7, posting key 5 at t=100, series
    # name 3) and a titled reply needing its patch by title (id 11, refs 10 and 12)
    keys = pa.table({
        "uid": ["a", "b"], "comp": [4, 4], "mid": [10, 11], "refs": [[], [10, 12]],
        "norm": [7, 7], "posting": [True, False], "need": [False, True],
        "pclass": [5, None], "when": [100, 200], "series": [None, None], "skey": [3, None],
        "part": pa.array(["p", "p"]).dictionary_encode(), "row": pa.array([0, 1], pa.int32()),
        "thread": ["a", "a"], "patch": [True, False], "cover": [False, False],
        "sid": [9, None]}, schema=KEYS)
    index = index_table(keys.select)
    assert index.schema == INDEX
    rows = sorted(zip(*(index.column(c).to_pylist() for c in ("key", "kind", "comp", "when")),
                      strict=True))
    # b's ref to a (10) is no key of its own: a's id finds their component
    assert rows == sorted([(10, MID, 4, 0), (11, MID, 4, 0), (12, REF, 4, 0),
                           (7, POST, 4, 0), (7, NEED, 4, 0), (3, SKEY, 4, 0),
                           (5, PCLASS, 4, 100)])
    assert index.column("key").to_pylist() == sorted(index.column("key").to_pylist())


def test_in_sorted_searches_the_shorter_side() -> None:
    """Many sorted values (a column of a file sorted by it) and few keys: the keys are
    searched in the values; unsorted values are searched in the keys.  Same answers."""
    rng = np.random.default_rng(5)
    for trial in range(200):
        keys = rng.integers(0, 400, rng.integers(1, 60))
        keys = np.sort(keys) if trial % 2 else np.unique(keys)  # with repeats, or not
        values = rng.integers(0, 400, rng.integers(0, 2000))
        for vals in (np.sort(values), values):
            assert (in_sorted(vals, keys) == np.isin(vals, keys)).all()
    assert not in_sorted(np.arange(10), np.zeros(0, dtype=np.int64)).any()


def test_in_threads_keeps_the_order() -> None:
    for n in (0, 1, POOLED - 1, POOLED, 3 * POOLED):
        assert in_threads(lambda k: k * k, range(n)) == [k * k for k in range(n)]


def test_read_where_reads_only_the_row_groups_hit(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    st = Store(str(tmp_path / "s"), create=True)
    out = st.link_writer()
    out.write("index", pa.table({"key": np.arange(0, 1000, 2), "comp": np.arange(500)}),
              row_group=100)  # groups of keys 0-198, 200-398, ...
    out.close()
    read: list[tuple[tuple[int, ...], tuple[str, ...]]] = []
    real = pq.ParquetFile.read_row_groups

    def spy(self: pq.ParquetFile, groups: list[int], columns: list[str],
            **kw: object) -> pa.Table:
        read.append((tuple(groups), tuple(columns)))
        return real(self, groups, columns=columns, **kw)
    monkeypatch.setattr(pq.ParquetFile, "read_row_groups", spy)
    monkeypatch.setattr(mlx.linkfiles, "GROUPS_READ", 3)
    # 601 lies in group 3's range but is no key there
    got = st.read_link("index", where=("key", np.array([998, 4, 5, 250, 4, 601])),
                       columns=["comp"])
    assert got is not None and sorted(got.column("comp").to_pylist()) == [2, 125, 499]
    both = ("comp", "key")
    assert read == [((0, 1, 3), both), ((4,), both)]  # three groups a call at most
    none = st.read_link("index", where=("key", np.array([], dtype=np.int64)))
    assert none is not None and none.num_rows == 0 and none.column_names == ["key", "comp"]


def test_subjects_looked_up_by_key(tmp_path: Path) -> None:
    # a stored file of parses in no key order, with its sorted keys: a lookup finds the
    # parses of the subjects asked for, reading the groups that hold them
    st = Store(str(tmp_path / "s"), create=True)
    texts = [f"[PATCH] net: change {k}" for k in range(30000)]
    write_subjects(st.write_link, subject_parses(texts))
    known = Known(None, 0, st)
    asked = pa.chunked_array([[texts[7], texts[29999], "never stored", None, texts[7]]])
    table = known.for_subjects(asked)
    assert table is not None
    assert sorted(table.column("subject").to_pylist()) == sorted([texts[7], texts[29999]])
    assert table.column("title").to_pylist() == [f"net: change {k}" for k in (7, 29999)]
    lacking = known.lacking(subject_parses([texts[3], "new one"]))
    assert lacking.column("subject").to_pylist() == ["new one"]


def test_rows_read_each_part_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A subset's rows: in store order, each part opened once however many columns are
    asked for, and a widened subset opens only the parts whose rows changed."""
    msgs = _messages(DATA / "threads" / "patch-attribution.mbox")
    st = _ingest_in_batches(tmp_path, [msgs[:4], msgs[4:8], msgs[8:]], extract=False)
    paths = st.part_paths("messages")
    assert len(paths) >= 3
    every = Rows(st).read(["uid", "subject"])
    opened: list[str] = []
    real = Store.read_part_as
    monkeypatch.setattr(Store, "read_part_as",
                        lambda self, path, want: opened.append(path) or real(self, path, want))
    first = Rows(st, at={paths[0]: np.array([0, 2]), paths[2]: None})
    got = first.read(["uid"])
    first.read(["subject", "date"])
    assert sorted(opened) == sorted([paths[0], paths[2]])
    n2 = len(every) - sum(len(pq.read_table(p, columns=["uid"])) for p in paths[:2])
    assert got.column("uid").to_pylist() == [every.column("uid")[0].as_py(),
                                             every.column("uid")[2].as_py()] + \
        every.column("uid").to_pylist()[len(every) - n2:]
    opened.clear()
    wider = first.widened({paths[0]: np.array([0, 1, 2]), paths[1]: np.array([0]),
                           paths[2]: None})
    table = wider.read(["uid", "subject"])
    assert sorted(opened) == sorted([paths[0], paths[1]])  # paths[2] kept
    part, row = wider.positions()
    assert part.cast(pa.string()).to_pylist()[:4] == [paths[0].rsplit("/", 1)[-1]] * 3 + \
        [paths[1].rsplit("/", 1)[-1]]
    assert row.to_pylist()[:4] == [0, 1, 2, 0]
    assert table.num_rows == 4 + n2


def test_link_info_read_again_when_it_changes(tmp_path: Path) -> None:
    st = _ingest_in_batches(tmp_path, [_messages(DATA / "threads" / "series-out-of-order.mbox")],
                            extract=False)
    info = st.link_info()
    assert info["rows"]["links"] == 5 and st.link_info() is info  # kept while unchanged
    other = Store(st.path)
    other.write_link_info({**info, "lists": 99, "padding": "x" * 10})
    assert st.link_info()["lists"] == 99  # written by another Store: read again
    st.write_link_info(info)
    assert st.link_info()["lists"] == info["lists"]
    (tmp_path / "s" / "link" / "info.json").unlink()
    assert st.link_info() == {}
