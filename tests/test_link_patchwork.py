"""Patchwork's series suite (``patchwork/tests/test_series.py``) on its own mails.

Patchwork's "series" is one posting of one version: ``posting_id`` here.  For each
mbox of ``../shared/corpus/fixtures/patchwork/series`` (skipped when absent): the
cover letters, patches and replies Patchwork parses, and the patches and covers of
each posting, postings in the order of their first message.  Revisions of one series
also share a ``series_id`` (Patchwork keeps them apart; b4 and mlx join them).
"""

from pathlib import Path

import pytest
from conftest import corpus_path

import mlx

# mbox: (covers, patches, replies), patches per posting, covers per posting
SUITE = {
    "base-single-patch.mbox": ((0, 1, 0), [1], [0]),
    "base-cover-letter.mbox": ((1, 2, 0), [2], [1]),
    "base-no-cover-letter.mbox": ((0, 2, 0), [2], [0]),
    "base-deep-threaded.mbox": ((1, 2, 0), [2], [1]),
    "base-out-of-order.mbox": ((1, 2, 0), [2], [1]),
    "base-different-versions.mbox": ((1, 4, 0), [4], [1]),
    "bugs-multiple-references.mbox": ((1, 4, 0), [4], [1]),
    "base-no-references.mbox": ((0, 2, 0), [2], [0]),
    "base-no-references-no-cover.mbox": ((1, 2, 0), [2], [1]),
    "bugs-multiple-content-types.mbox": ((0, 1, 1), [1], [0]),
    "revision-basic.mbox": ((2, 4, 0), [2, 2], [1, 1]),
    "revision-threaded-to-single-patch.mbox": ((0, 2, 0), [1, 1], [0, 0]),
    "revision-threaded-to-cover.mbox": ((2, 4, 0), [2, 2], [1, 1]),
    "revision-threaded-to-patch.mbox": ((2, 4, 0), [2, 2], [1, 1]),
    "revision-out-of-order.mbox": ((2, 4, 0), [2, 2], [1, 1]),
    "revision-no-cover-letter.mbox": ((1, 4, 0), [2, 2], [1, 0]),
    "revision-unlabeled.mbox": ((2, 4, 0), [2, 2], [1, 1]),
    "revision-unlabeled-noreferences.mbox": ((0, 4, 0), [2, 2], [0, 0]),
    "bugs-unnumbered.mbox": ((1, 2, 0), [1, 1], [1, 0]),
    "bugs-nocover-noversion.mbox": ((0, 4, 0), [2, 2], [0, 0]),
    "bugs-nocover.mbox": ((0, 4, 0), [2, 2], [0, 0]),
    "bugs-spamming.mbox": ((0, 3, 0), [1, 1, 1], [0, 0, 0]),
    "bugs-mixed-versions.mbox": ((0, 2, 0), [1, 1], [0, 0]),
    "base-incomplete.mbox": ((1, 1, 0), [1], [1]),
    "base-extra-patches.mbox": ((1, 3, 0), [3], [1]),
    "mercurial-cover-letter.mbox": ((1, 2, 0), [2], [1]),
    "mercurial-no-cover-letter.mbox": ((0, 2, 0), [2], [0]),
}
# other mboxes whose postings are revisions (or repeats) of one series
REVISED = {"bugs-nocover.mbox", "bugs-nocover-noversion.mbox", "bugs-spamming.mbox"}


@pytest.mark.parametrize("name", sorted(SUITE))
def test_patchwork_series(name: str, tmp_path: Path) -> None:
    path = corpus_path("fixtures", "patchwork", "series", name)
    mlx.ingest([str(path)], store=str(tmp_path / "s"), workers=1, extract=())
    archive = mlx.load(str(tmp_path / "s"))
    p, m = archive.patches, archive.messages
    counts, patches, covers = SUITE[name]
    assert (int(p.is_cover.sum()), int((~p.is_cover).sum()), len(m) - len(p)) == counts
    assert p.posting_id.isin(p.patch_id).all()  # a posting is named by one of its patches
    order = p.groupby("posting_id").date.min().sort_values(kind="stable").index
    by = p.groupby("posting_id")
    assert [int((~by.get_group(k).is_cover).sum()) for k in order] == patches
    assert [int(by.get_group(k).is_cover.sum()) for k in order] == covers
    assert p.patch_id.is_unique  # every posting is its own patch
    if name.startswith("revision-") or name in REVISED:
        assert p.series_id.nunique() == 1  # the revisions of one series
