"""CSV/Parquet export and the HTML report.

CSV files are UTF-8, list columns are joined readably (``a; b``, trailers as
``Key: value``), dates are ISO 8601.  Every string in the HTML report that
comes from a message is escaped.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from mlx.errors import MlxError

TABLES = ("messages", "threads", "patches", "results", "hardware", "claims", "errors",
          "reports", "statements")
# list columns that hold dicts (attachments) or pairs (trailers)
DROP_IN_CSV = {"messages": ["body"]}


def _cell(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        parts = []
        for v in value:
            if isinstance(v, tuple) and len(v) == 2:
                parts.append(f"{v[0]}: {v[1]}")
            elif isinstance(v, dict):
                parts.append(", ".join(f"{k}={x}" for k, x in v.items()))
            else:
                parts.append(str(v))
        return "; ".join(parts)
    return value


def for_csv(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for col in out.columns:
        if out[col].dtype == object and out[col].map(lambda v: isinstance(v, (list, tuple))).any():
            out[col] = out[col].map(_cell)
        elif isinstance(out[col].dtype, pd.DatetimeTZDtype):
            out[col] = out[col].map(lambda t: t.isoformat() if pd.notna(t) else None)
    return out


def export(archive: Any, out: str, fmt: str = "csv", tables: tuple[str, ...] = TABLES,
           with_bodies: bool = False) -> list[str]:
    """Write one file per table; returns the paths written."""
    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        raise MlxError(f"unknown table {unknown[0]!r}; choose from {', '.join(TABLES)}")
    if fmt not in ("csv", "parquet"):
        raise MlxError(f"unknown format {fmt!r}; use csv or parquet")
    os.makedirs(out, exist_ok=True)
    written = []
    for name in tables:
        df = getattr(archive, name)
        path = os.path.join(out, f"{name}.{fmt}")
        if fmt == "parquet":
            df.to_parquet(path, index=False)
        else:
            drop = [] if with_bodies else [c for c in DROP_IN_CSV.get(name, []) if c in df]
            for_csv(df.drop(columns=drop)).to_csv(path, index=False, encoding="utf-8")
        written.append(path)
    return written


def report(archive: Any, out: str, progress: Any = None) -> str:
    """The claims' CSV tables, PNG plots, ``index.html`` (every distinct claim, sortable
    and filterable) and a page per patch and per message a claim cites
    (``mlx.report.site``); returns the index path.  The report carries what its claims
    rest on; whole tables are ``export``'s."""
    from mlx.report import site
    claims = archive.claims
    tables = os.path.join(out, "tables")
    os.makedirs(tables, exist_ok=True)
    cited = set(claims.uid.dropna())
    results, hardware = archive.results, archive.hardware
    for name, df in (("claims", claims), ("results", results[results.uid.isin(cited)]),
                     ("hardware", hardware[hardware.uid.isin(cited)])):
        for_csv(df).to_csv(os.path.join(tables, f"{name}.csv"), index=False, encoding="utf-8")
    return site.build(archive, out, progress)
