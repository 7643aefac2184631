"""The link tables of the fixtures, fingerprinted: output that changes bumps a format.

``mlx.link.formats`` declares ``SUBJECT_FORMAT`` and ``LINK_FORMAT``; a store linked
under other numbers is linked again in full.  This test ingests the fixtures (the sample
archive, the claims shapes and robot reports, the threading fixtures), hashes every
link table row by row (order aside) and compares the hashes with
``tests/data/link_formats.json``, recorded with the numbers they were made under.  A
change to what the link pass or the claims give fails here until the number is bumped
and the file recorded again (``MLX_UPDATE_GOLDEN=1``); a change that gives the same rows
passes with the same numbers, and keeps every user's store.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import mlx
from mlx.link import formats

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
GOLDEN = DATA / "link_formats.json"
FIXTURES = [ROOT / "data", DATA / "claims" / "shapes.mbox", DATA / "claims" / "robot.mbox",
            DATA / "claims" / "unseen.mbox", DATA / "threads"]
# which number a table's rows are under
TABLES = {"subjects": "SUBJECT_FORMAT", "threads": "LINK_FORMAT", "patches": "LINK_FORMAT",
          "reports": "LINK_FORMAT", "claims": "LINK_FORMAT", "links": "LINK_FORMAT"}


def fingerprint(rows: list[dict]) -> str:
    """A hash of the rows as a multiset: the same rows in any order hash alike."""
    lines = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _rows(archive: mlx.Archive, name: str) -> list[dict]:
    """The live rows of a link table as stored (``links``: the messages' link columns)."""
    table = archive.store.read_link("messages" if name == "links" else name)
    assert table is not None, name
    return table.to_pylist()


@pytest.fixture(scope="module")
def fixtures_store(tmp_path_factory) -> mlx.Archive:
    store = str(tmp_path_factory.mktemp("formats") / "s")
    mlx.ingest([str(p) for p in FIXTURES], store=store, workers=1)
    return mlx.load(store)


def test_link_output_changes_only_with_a_format_bump(fixtures_store) -> None:
    got = {name: fingerprint(_rows(fixtures_store, name)) for name in TABLES}
    numbers = {"SUBJECT_FORMAT": formats.SUBJECT_FORMAT, "LINK_FORMAT": formats.LINK_FORMAT}
    if os.environ.get("MLX_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps({"formats": numbers, "tables": got}, indent=1) + "\n")
    want = json.loads(GOLDEN.read_text())
    changed = {name for name in TABLES if got[name] != want["tables"].get(name)}
    stale = sorted({TABLES[name] for name in changed
                    if numbers[TABLES[name]] == want["formats"][TABLES[name]]})
    assert not stale, (
        f"the link tables {sorted(changed)} changed: bump {' and '.join(stale)} in "
        f"mlx/link/formats.py, then record them with MLX_UPDATE_GOLDEN=1")


def test_a_fingerprint_is_of_the_rows_not_their_order() -> None:
    a, b = {"x": 1, "y": None}, {"x": 2, "y": "t"}
    assert fingerprint([a, b]) == fingerprint([b, a]) != fingerprint([a, a])
