"""Giving memory back to the system in the processes that ingest and link: glibc keeps the
pages a chunk's bodies freed (``trim`` returns them), and pyarrow's default allocator
(mimalloc) keeps what a pass's tables used until the process ends (``system_arrow_pool``
has pyarrow allocate with the C library, which ``trim`` reaches)."""

from __future__ import annotations

import ctypes
from typing import Any

import pyarrow as pa


def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or None (another libc)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def trim() -> None:
    """Return the heap's free pages to the system (glibc only; elsewhere nothing)."""
    if _TRIM is not None:
        _TRIM(0)


def system_arrow_pool() -> None:
    """Have pyarrow allocate with the C library in this process (a worker's, the link
    pass's): what a chunk's or a pass's tables used is freed for ``trim`` to return."""
    pa.set_memory_pool(pa.system_memory_pool())
