"""Rows of every table, as records whose field names are the column names.

The per-message records the workers make (``MessageRecord``, ``ErrorRecord``,
``PatchFacts``, ``ResultRow``, ``HardwareRow``, ``Statement``) and the rows the link and
analyse stages build (``LinkRow``, ``ThreadRow``, ``PatchRow``, ``ReportRow``,
``ClaimRow``).  ``mlx.schema`` builds every Arrow schema from these, and depends on this
module alone: a reader of the store never loads an extractor.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

# the words the tables use, as types: a value of another spelling is a bug mypy finds
Condition = Literal["baseline", "patched"]  # which side of a change a value was measured on
Verdict = Literal["improvement", "regression", "no-change"]
ClaimKind = Literal["measured", "prose", "robot"]
Role = Literal["setup", "subject"]  # a hardware fact: what a measurement ran on, or not


@dataclass(frozen=True)
class Attachment:
    filename: str | None
    content_type: str
    size: int


@dataclass(frozen=True)
class MessageRecord:
    """One stored message; field names are the ``messages`` column names."""

    uid: str
    message_id: str | None
    date: dt.datetime | None
    from_name: str | None
    from_addr: str | None
    to: list[str]
    cc: list[str]
    subject: str | None
    in_reply_to: list[str]
    references: list[str]
    list_id: str | None
    body: str | None
    source: str
    offset: int | None
    length: int
    commit: str | None
    defects: list[str]
    attachments: list[Attachment] = field(default_factory=list)
    content_type: str | None = None
    raw_size: int = 0
    archived_at: str | None = None  # the Archived-At URL (http(s) only)
    list_archive: str | None = None  # the List-Archive URL (http(s) only)


@dataclass(frozen=True)
class ErrorRecord:
    """A chunk that could not be read as a message, or a fault of the link stage on some
    messages; columns of ``errors``."""

    source: str | None
    offset: int | None
    length: int
    reason: str
    commit: str | None = None
    stage: str = "parse"  # split, parse, extract, link or claims
    uid: str | None = None  # of the link stage's faults: the first message concerned
    concerns: str | None = None  # "thread <thread_id>", "message <Message-ID>", ...


@dataclass(frozen=True)
class PatchFacts:
    """What a body says about code: its diff, diffstat, trailers and commit refs."""

    has_diff: bool = False
    diff_files: int = 0
    diff_insertions: int = 0
    diff_deletions: int = 0
    diffstat_files: int | None = None
    diffstat_insertions: int | None = None
    diffstat_deletions: int | None = None
    trailers: list[tuple[str, str]] = field(default_factory=list)
    commit_refs: list[str] = field(default_factory=list)
    request_pull: bool = False  # git request-pull output, unquoted
    signed_off: bool = False  # an unquoted Signed-off-by: a [PATCH] whose diff was stripped


@dataclass(frozen=True)
class ResultRow:
    """One measured value; field names are the ``results`` column names."""

    tool: str
    test: str | None
    metric: str
    value: float
    unit: str
    value_norm: float | None
    unit_norm: str | None
    side: str | None = None
    stream: str | None = None
    interval_start: float | None = None
    interval_end: float | None = None
    is_summary: bool = True
    retransmits: int | None = None
    label: str | None = None
    condition: Condition | None = None
    section: str | None = None
    command: str | None = None
    quoted: bool = False
    quote_depth: int = 0
    line_no: int = 0
    line: str = ""
    host: str | None = None
    streams: int | None = None
    reverse: bool | None = None
    protocol: str | None = None
    duration: float | None = None
    config: str | None = None
    role: str | None = None
    cpu_local: float | None = None
    cpu_remote: float | None = None
    sd_local: float | None = None
    sd_remote: float | None = None
    statistic: str | None = None
    sender_host: str | None = None  # iperf3: which end sent the data (-R makes it the server)
    pair: str | None = None  # values the text pairs itself (a table row, "X -> Y") share it
    # every label of the value but the condition's, as written ("config" keeps the short
    # names): what keeps runs of different configurations apart when they are paired
    scope: str | None = None


@dataclass(frozen=True)
class HardwareRow:
    """One stated fact about a machine; field names are the ``hardware`` column names."""

    host: str | None
    kind: str
    text: str
    value: str | None
    line_no: int
    quoted: bool = False
    quote_depth: int = 0
    line: str = ""
    role: Role = "subject"
    count: int = 1
    rule: str | None = None  # the rule that made it no setup (``hwrole.ROLE_RULES``)


@dataclass(frozen=True)
class Statement:
    """One stated effect; field names are the ``statements`` column names."""

    kind: Literal["prose", "robot"]
    text: str
    stated_pct: float | None
    direction: Verdict | None
    metric: str | None = None
    baseline_value: float | None = None
    patched_value: float | None = None
    base_commit: str | None = None
    head_commit: str | None = None
    quoted: bool = False
    line_no: int = 0
    # what the effect is stated against when it is no code without the change: an earlier
    # version of the series ("v6", "previous version"); a prose claim's baseline label
    versus: str | None = None


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
    verdict: Verdict | None
    tree: str | None
    title: str | None


@dataclass(frozen=True, kw_only=True)
class ClaimRow:
    """One claim: a measured baseline/patched pair, an effect stated in words, or a robot
    report, with the patch, message and hosts it belongs to.  The pairing and the stated
    claims build it with their own columns (by keyword); the message's, patch's, thread's
    and hardware's come with its context (``mlx.analyse.claims``)."""

    patch_id: str | None = None
    title: str | None = None
    version: int | None = None
    message_id: str | None = None
    author: str | None = None
    date: dt.datetime | None = None
    kind: ClaimKind
    tool: str | None = None
    test: str | None = None
    metric: str | None = None
    side: str | None = None
    stream: str | None = None
    section: str | None = None
    config: str | None = None
    baseline_label: str | None = None
    baseline_value: float | None = None
    baseline_n: int | None = None
    baseline_stdev: float | None = None
    patched_label: str | None = None
    patched_value: float | None = None
    patched_n: int | None = None
    patched_stdev: float | None = None
    unit_norm: str | None = None
    delta_pct: float | None = None
    verdict: Verdict | None = None
    note: str | None = None
    hardware: str | None = None
    stated_pct: float | None = None
    agrees: bool | None = None
    statement: str | None = None
    baseline_line: str | None = None
    patched_line: str | None = None
    baseline_line_no: int | None = None
    patched_line_no: int | None = None
    uid: str
    thread_id: str | None = None
    statistic: str | None = None
    lower_is_better: bool | None = None  # how the verdict reads delta_pct (latency, loss, drops)
