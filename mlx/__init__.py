"""mlx: mailing-list archives in, tables of patches and performance claims out.

The front end loads on first use (``mlx.ingest``, ``mlx.load``, ``mlx.Archive``), so a
module that reads a store (``mlx.store``, ``mlx.archive``) loads no extractor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mlx.ingest as _ingest_package  # noqa: F401 - empty; loaded first, so the function
from mlx.errors import MlxError  # below keeps the name ``mlx.ingest``

if TYPE_CHECKING:
    from mlx.api import Archive, IngestReport

__all__ = ["Archive", "IngestReport", "MlxError", "ingest", "load"]
__version__ = "0.1.0"


def ingest(*args: Any, **kwargs: Any) -> IngestReport:
    """``mlx.api.ingest``: ingest archives into a store (see there)."""
    from mlx import api
    return api.ingest(*args, **kwargs)


def load(store: str = "mlx-store") -> Archive:
    """``mlx.api.load``: open a store."""
    from mlx.archive import Archive
    return Archive(store)


def __getattr__(name: str) -> Any:
    if name in ("Archive", "IngestReport"):
        from mlx import api
        return getattr(api, name)
    raise AttributeError(f"module 'mlx' has no attribute {name!r}")
