"""A full link pass in batches of whole components gives the tables of a pass over all."""

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import DATA, corpus_path
from test_link_incremental import (
    FIXTURES,
    TABLES,
    _equals_a_full_link,
    _ingest_in_batches,
    _messages,
    _rows,
    _split,
)

import mlx
import mlx.link
from mlx.link import batches, link
from mlx.store import Store


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of batches of each batched pass."""
    seen: list[int] = []
    real = batches.component_batches

    def spy(st: Store, limit: int) -> batches.Batches:
        out = real(st, limit)
        seen.append(out.count)
        return out
    monkeypatch.setattr(mlx.link, "component_batches", spy)
    return seen


def _linked_both_ways(store: Path, tmp_path: Path, limit: int,
                      monkeypatch: pytest.MonkeyPatch) -> tuple[Store, Store]:
    """Copies of ``store`` linked in full at once and in batches of ``limit`` messages."""
    whole, batched = tmp_path / "whole", tmp_path / "batched"
    for out in (whole, batched):
        shutil.copytree(store, out)
    link(Store(str(whole)), full=True)
    monkeypatch.setattr(mlx.link, "BATCH_MESSAGES", limit)
    link(Store(str(batched)), full=True)
    monkeypatch.undo()
    return Store(str(whole)), Store(str(batched))


def _same_tables(a: Store, b: Store, same_parts: bool = True) -> None:
    """(``same_parts``: the stores' parts have the same names.)"""
    skip = {"comp"} if same_parts else {"comp", "part"}
    for name in TABLES:
        got, want = _rows(b.read_link(name)), _rows(a.read_link(name))
        if name == "keys":  # component labels differ: the rest
            got, want = ([json.dumps({k: v for k, v in json.loads(r).items() if k not in skip},
                                     sort_keys=True) for r in rows] for rows in (got, want))
            got, want = sorted(got), sorted(want)
        assert got == want, name
    for key in ("counts", "rows", "lists", "list_ids", "delta_rows"):
        assert b.link_info()[key] == a.link_info()[key], key
    assert sorted(b.read_link("subjects").column("subject").to_pylist()) == \
        sorted(a.read_link("subjects").column("subject").to_pylist())


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_fixtures_linked_in_batches(source: Path, tmp_path: Path, counted: list[int],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # batches of 2 messages: every component a batch of its own, or two small ones
    mlx.ingest([str(source)], store=str(tmp_path / "s"), workers=1)
    whole, batched = _linked_both_ways(tmp_path / "s", tmp_path, 2, monkeypatch)
    assert counted  # (series-out-of-order.mbox is one component: one batch)
    _same_tables(whole, batched)


@pytest.mark.parametrize("rel", ["lists/xdp-newbies.mbox.gz", "lists/linux-sctp.mbox.gz"])
def test_real_lists_linked_in_batches(rel: str, tmp_path: Path, counted: list[int],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    mlx.ingest([str(corpus_path(*rel.split("/")))], store=str(tmp_path / "s"), workers=2)
    whole, batched = _linked_both_ways(tmp_path / "s", tmp_path, 300, monkeypatch)
    assert counted[-1] > 3
    _same_tables(whole, batched)


def test_the_first_pass_folds_the_workers_parses(tmp_path: Path, counted: list[int],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the ingest's own pass is the first: its subjects come from the workers' parses
    source = str(DATA / "threads" / "patch-attribution.mbox")
    mlx.ingest([source], store=str(tmp_path / "whole"), workers=1)
    monkeypatch.setattr(mlx.link, "BATCH_MESSAGES", 3)
    mlx.ingest([source], store=str(tmp_path / "batched"), workers=1)
    assert counted == [counted[0]] and counted[0] > 1
    batched = Store(str(tmp_path / "batched"))
    assert not batched.part_paths("subject_parses")
    subjects = batched.read_link("subjects").column("subject").to_pylist()
    assert len(subjects) == len(set(subjects))  # each subject once
    _same_tables(Store(str(tmp_path / "whole")), batched, same_parts=False)


def test_stale_parses_and_old_parts_in_batches(tmp_path: Path, counted: list[int],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # parts stored before thread_refs existed, and a link/subjects of another parser
    mlx.ingest([str(DATA / "threads" / "patch-attribution.mbox")], store=str(tmp_path / "s"),
               workers=1)
    for part in (tmp_path / "s" / "messages").glob("*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(["thread_refs"]), part)
    subjects = tmp_path / "s" / "link" / "subjects.parquet"
    table = pq.read_table(subjects)
    pq.write_table(table.replace_schema_metadata({"parser": "an older one"}), subjects)
    whole, batched = _linked_both_ways(tmp_path / "s", tmp_path, 2, monkeypatch)
    assert counted[-1] > 1
    _same_tables(whole, batched)


def test_an_incremental_pass_after_a_batched_one(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the components a batched pass stored are those a later pass plans with
    monkeypatch.setattr("mlx.link.incremental.COMPACT", 1e9)
    monkeypatch.setattr(mlx.link, "BATCH_MESSAGES", 4)
    messages = _messages(DATA / "threads" / "versions-and-intruder.mbox")
    st = _ingest_in_batches(tmp_path, _split(messages, [0.7], 3))
    assert len(st.link_gens()) == 1
    _equals_a_full_link(tmp_path, st)


def test_batches_hold_whole_components(tmp_path: Path) -> None:
    mlx.ingest([str(DATA / "threads" / "patch-attribution.mbox")], store=str(tmp_path / "s"),
               workers=1)
    st = Store(str(tmp_path / "s"))
    keys = st.read_link("keys", columns=["comp", "part", "row"])
    plan = batches.component_batches(st, 1)  # a batch per component
    assert plan.count == len(set(keys.column("comp").to_pylist()))
    names = [p.rsplit("/", 1)[-1] for p in plan.paths]
    batch_of = {(names[p], r): b for p, r, b in zip(plan.part.tolist(), plan.row.tolist(),
                                                    plan.batch.tolist(), strict=True)}
    comp_batches: dict[int, set[int]] = {}
    for comp, part, row in zip(*(keys.column(c).to_pylist() for c in ("comp", "part", "row")),
                               strict=True):
        comp_batches.setdefault(comp, set()).add(batch_of[(part, row)])
    assert all(len(b) == 1 for b in comp_batches.values())
    # in store order: a batch's first message comes after the last batch's first
    firsts = [int(np.flatnonzero(plan.batch == b)[0]) for b in range(plan.count)]
    assert firsts == sorted(firsts)
    # every batch is given the parses of its subjects, and no others
    for at, parses in plan.plan():
        subjects = {s for path, rows in at.items()
                    for s in st.read_part(path, ["subject"]).column("subject")
                    .take(rows).to_pylist() if s is not None}
        assert set(parses.column("subject").to_pylist()) == subjects


def test_key_set_merges_its_recent_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys added stay found once merged into the sorted array, added again or not."""
    monkeypatch.setattr(batches.KeySet, "MERGE", 50)
    rng = np.random.default_rng(7)
    keys, seen = batches.KeySet(), set()
    for i in range(30):
        add = rng.integers(-2**63, 2**63 - 1, size=int(rng.integers(1, 120)), dtype=np.int64)
        if i % 3 == 0 and seen:  # some known again
            add = np.concatenate([add, np.array(sorted(seen)[:20], dtype=np.int64)])
        keys.add(add)
        seen.update(add.tolist())
        asked = np.concatenate([add[:10], rng.integers(-2**63, 2**63 - 1, size=50,
                                                       dtype=np.int64)])
        assert keys.has(asked).tolist() == [v in seen for v in asked.tolist()]
    assert len(keys.sorted) > 0 and (np.diff(keys.sorted) > 0).all()
    assert set(keys.sorted.tolist()) | keys.recent == seen
