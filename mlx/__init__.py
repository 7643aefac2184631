"""mlx: mailing-list archives in, tables of patches and performance claims out."""

from mlx.api import Archive, IngestReport, ingest, load
from mlx.errors import MlxError

__all__ = ["Archive", "IngestReport", "MlxError", "ingest", "load"]
__version__ = "0.1.0"
