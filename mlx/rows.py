"""Rows of the tables the link and analyse stages build; field names are column names.

(The per-message records live beside the code that makes them: ``MessageRecord`` and
``ErrorRecord`` in ``mlx.ingest.parse``, ``ResultRow`` in ``mlx.extract.results``,
``HardwareRow`` in ``mlx.extract.hardware``, ``Statement`` in
``mlx.extract.statements``.  ``mlx.schema`` builds every Arrow schema from these.)
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class RowCounts:
    """Of a stored message, how many rows each extractor gave it (the last columns of
    ``messages``; null in parts stored before they existed)."""

    n_results: int
    n_hardware: int
    n_statements: int


@dataclass(frozen=True)
class LinkRow:
    """What the link stage adds to one message."""

    uid: str
    thread_id: str | None
    parent_id: str | None  # the parent's Message-ID (a ghost's included)
    parent_uid: str | None
    depth: int | None
    patch_id: str | None


@dataclass(frozen=True)
class ThreadRow:
    thread_id: str
    root_id: str | None
    subject: str | None
    n_messages: int
    first_date: dt.datetime | None
    last_date: dt.datetime | None
    n_ghosts: int


@dataclass(frozen=True)
class PatchRow:
    """One patch posting (cover letters included)."""

    patch_id: str | None
    message_id: str | None
    uid: str
    title: str | None
    subsystem: str | None
    subsystem_path: str | None
    prefixes: list[str]
    tree: str | None
    version: int  # a part without one: its cover's
    version_seen: bool  # the version was in the part's own subject
    part: int | None
    total: int | None
    is_rfc: bool
    is_resend: bool
    is_cover: bool
    series_id: str | None
    files_changed: int | None
    insertions: int | None
    deletions: int | None
    trailers: list[tuple[str, str]]
    commit_refs: list[str]
    from_addr: str | None
    thread_id: str | None
    date: dt.datetime | None
    version_minor: int | None  # PATCHv3.1 -> 1
    is_pull: bool  # a pull request ([GIT PULL]), no cover letter
    is_autosel: bool  # a stable backport the AUTOSEL bot picked ([PATCH AUTOSEL 5.4 ...])
    is_rft: bool  # a request for testing
    # review trailers replies gave in someone else's name (b4 keeps only the sender's)
    trailers_other: list[tuple[str, str]]
    # the patch_id of the posting's cover, else of its first part: Patchwork's "series",
    # b4's revision (``series_id`` joins the versions)
    posting_id: str | None


@dataclass(frozen=True)
class ReportRow:
    """A kernel test robot report."""

    uid: str
    message_id: str | None
    commit: str | None
    metric: str | None
    change_pct: float | None
    verdict: str | None
    tree: str | None
    title: str | None


@dataclass(frozen=True)
class ClaimRow:
    """One claim: a measured baseline/patched pair, an effect stated in words, or a robot
    report, with the patch, message and hosts it belongs to."""

    patch_id: str | None
    title: str | None
    version: int | None
    message_id: str | None
    author: str | None
    date: dt.datetime | None
    kind: str
    tool: str | None
    test: str | None
    metric: str | None
    side: str | None
    stream: str | None
    section: str | None
    config: str | None
    baseline_label: str | None
    baseline_value: float | None
    baseline_n: int | None
    baseline_stdev: float | None
    patched_label: str | None
    patched_value: float | None
    patched_n: int | None
    patched_stdev: float | None
    unit_norm: str | None
    delta_pct: float | None
    verdict: str | None
    note: str | None
    hardware: str | None
    stated_pct: float | None
    agrees: bool | None
    statement: str | None
    baseline_line: str | None
    patched_line: str | None
    baseline_line_no: int | None
    patched_line_no: int | None
    uid: str
    thread_id: str | None
    statistic: str | None
    lower_is_better: bool | None  # how the verdict reads delta_pct (latency, loss, drops)
