"""CSV/Parquet export and the HTML report.

CSV files are UTF-8, list columns are joined readably (``a; b``, trailers as
``Key: value``), dates are ISO 8601.  Every string in the HTML report that
comes from a message is escaped.
"""

from __future__ import annotations

import html
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


def _e(value: Any) -> str:
    if value is None or (not isinstance(value, (list, tuple, str)) and pd.isna(value)):
        return ""
    if isinstance(value, float):
        return f"{value:,.2f}"
    return html.escape(str(value))


def report(archive: Any, out: str, top: int = 25) -> str:
    """CSV tables, PNG plots and an index.html showing them; returns the index path."""
    from mlx.report import plots
    export(archive, os.path.join(out, "tables"))
    claims = archive.claims
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)
    figures = {"deltas.png": plots.delta_histogram(claims),
               "over-time.png": plots.claims_over_time(claims),
               "hardware.png": plots.hardware_mix(archive.hardware)}
    measured = claims[claims.kind == "measured"]
    patch_ids = measured.patch_id.dropna().value_counts().index[:8]
    for i, pid in enumerate(patch_ids):
        figures[f"patch-{i + 1}.png"] = plots.patch_bars(claims, pid)
    for name, fig in figures.items():
        fig.savefig(os.path.join(out, "plots", name), dpi=110)
    ranked = measured.assign(size=measured.delta_pct.abs()).sort_values("size", ascending=False)
    rows = "\n".join(
        f"<tr><td>{_e(r.title)}</td><td>{_e(r.test)}</td><td>{_e(r.side)}</td>"
        f"<td>{_e(r.baseline_label)}</td><td>{_e(r.baseline_value)}</td>"
        f"<td>{_e(r.patched_label)}</td><td>{_e(r.patched_value)}</td><td>{_e(r.unit_norm)}</td>"
        f"<td>{_e(f'{r.delta_pct:+.1f}%')}</td><td>{_e(r.verdict)}</td>"
        f"<td>{_e(r.author)}</td><td>{_e(r.hardware)}</td></tr>"
        for r in ranked.head(top).itertuples())
    counts = {n: len(getattr(archive, n)) for n in ("messages", "threads", "patches", "results",
                                                     "hardware", "claims")}
    images = "\n".join(f'<figure><img src="plots/{html.escape(n)}" alt="{html.escape(n)}">'
                       f"</figure>" for n in figures)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mlx report</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}
table{{border-collapse:collapse;font-size:13px}}td,th{{border:1px solid #ccc;padding:3px 6px}}
img{{max-width:100%}}figure{{margin:1em 0}}</style></head><body>
<h1>mlx report</h1>
<p>{", ".join(f"{_e(v)} {_e(k)}" for k, v in counts.items())}.
Tables as CSV in <a href="tables/">tables/</a>.</p>
<h2>Largest measured claims</h2>
<table><tr><th>patch</th><th>test</th><th>side</th><th>baseline</th><th></th><th>patched</th>
<th></th><th>unit</th><th>delta</th><th>verdict</th><th>by</th><th>hardware</th></tr>
{rows}
</table>
<h2>Plots</h2>
{images}
</body></html>
"""
    index = os.path.join(out, "index.html")
    with open(index, "w", encoding="utf-8") as fh:
        fh.write(page)
    return index
