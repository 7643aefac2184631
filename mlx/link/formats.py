"""The versions of what the link pass stores, declared: bump one when its output changes.

- ``SUBJECT_FORMAT``: the stored subject parses (``link/subjects``): tags, version, n/m,
  reply, title, and the keys made of them.  Bump it when ``mlx.subjects`` or the subject
  columns of ``mlx.link.patch_columns`` parse any subject differently.
- ``LINK_FORMAT``: every other link table (threads, patches, series, reports, claims, the
  keys and index of the incremental pass).  Bump it when a link or claims rule gives
  other rows (``mlx.link``, ``mlx.analyse``, ``mlx.extract.conditions``,
  ``mlx.extract.vocab``, ...).

A store linked under other numbers is linked again in full on the next ingest; a comment
or a refactor that gives the same rows keeps every store.  ``tests/test_link_formats.py``
holds a fingerprint of the link tables of the test fixtures: it fails when they change
while the numbers stay, and says which to bump.
"""

SUBJECT_FORMAT = 1
LINK_FORMAT = 11
