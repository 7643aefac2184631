"""The ``mlx`` command: parses options, calls the library, prints.

Library errors become one ``Error: ...`` line on stderr and exit status 1.
Stdout is for data; progress and summaries go to stderr.
"""

from __future__ import annotations

import atexit
import gc
import sys
from typing import Any

import click

from mlx import api
from mlx.errors import MlxError
from mlx.ingest.fetch import LORE

STORE = click.option("--store", default="mlx-store", show_default=True,
                     help="Store directory.", type=click.Path(file_okay=False))


def _fail(exc: MlxError) -> None:
    raise click.ClickException(str(exc)) from None


@click.group()
@click.version_option(package_name="mlx-mailarchive")
def main() -> None:
    """Mailing-list archives in, tables of patches and performance claims out."""
    # the exit's last collection walks every object of pandas and Arrow (0.25 s
    # after an ingest); frozen, they are left to the process's end
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@STORE
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: one per core].")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local",
              show_default=True, help="Where chunks run: local processes or a Dask cluster.")
@click.option("--scheduler", default=None, metavar="ADDR",
              help="Dask scheduler address (tcp://host:8786); without it a local cluster.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
@click.option("--extract", "extract", default="results,hardware,statements", show_default=True,
              help="Extractors to run on message bodies, comma-separated.")
@click.option("--no-extract", is_flag=True,
              help="Run no extractor (messages, threads, patches only).")
@click.option("--cache", default=None, metavar="DIR",
              help="Where fetched public-inbox epochs are mirrored [default: ~/.cache/mlx].")
@click.option("--lore", default=LORE, show_default=True, metavar="BASE",
              help="The public-inbox server mid:MESSAGE-ID threads are fetched from.")
def ingest(paths: tuple[str, ...], store: str, workers: int | None, engine: str,
           scheduler: str | None, quiet: bool, extract: str, no_extract: bool,
           cache: str | None, lore: str) -> None:
    """Ingest mbox/mboxrd files (.gz/.bz2/.xz), Maildirs, .eml files,
    public-inbox epochs, or folders of them, into the store.

    PATHS may also be URLs: an http(s):// mbox or .mbox.gz (a thread's t.mbox.gz,
    a list's all.mbox.gz), a public-inbox epoch https://HOST/LIST/N (mirrored in
    the cache, fetched again next time), https://HOST/LIST/ for every epoch, or
    mid:MESSAGE-ID for one message's thread.

    Running it again adds only what is new.
    """
    bar: Any = None
    if not quiet and sys.stderr.isatty():
        bar = _Progress()
    try:
        report = api.ingest(list(paths), store=store, workers=workers, engine=engine,
                            progress=bar, scheduler=scheduler,
                            cache=cache, lore=lore,
                            extract=() if no_extract else tuple(
                                e.strip() for e in extract.split(",") if e.strip()))
    except MlxError as exc:
        _fail(exc)
        return
    finally:
        if bar is not None:
            bar.close()
    if not quiet:
        click.echo(format_report(report), err=True)


class _Progress:
    """The ingest's progress on a terminal: messages read, then the link pass."""

    def __init__(self) -> None:
        from tqdm import tqdm
        self.bar = tqdm(unit=" msg", file=sys.stderr, desc="ingest", smoothing=0.1)

    def __call__(self, n: int) -> None:
        self.bar.update(n)

    def stage(self, name: str) -> None:
        if name == "link":
            self.bar.set_description("ingest done")
            self.bar.refresh()
            self.bar.close()
            click.echo("linking threads, patches and claims over the whole store ...",
                       err=True)

    def close(self) -> None:
        self.bar.close()


def format_report(r: api.IngestReport) -> str:
    lines = [
        f"{r.raw:,} raw messages from {r.sources} source(s) in {r.elapsed:.1f}s "
        f"({r.rate:,.0f} msg/s)",
        f"  stored {r.stored:,} new, {r.already:,} already stored, {r.duplicates:,} duplicates, "
        f"{r.errors:,} errors"
        + ("" if r.balanced else "  (COUNTS DO NOT ADD UP: please report)"),
    ]
    if r.unchanged:
        lines.append(f"  {r.unchanged} source(s) unchanged since the last run")
    if r.deleted:
        lines.append(f"  {r.deleted:,} public-inbox deletions skipped")
    if r.skipped_files:
        lines.append(f"  {len(r.skipped_files)} file(s) with no mail skipped, e.g. "
                     f"{r.skipped_files[0]}")
    if r.defects:
        top = ", ".join(f"{code} {n:,}" for code, n in r.defects.most_common(8))
        lines.append(f"  defects: {top}")
    if r.linked.get("link_failed"):
        lines.append("  link pass failed: see `mlx sql \"SELECT * FROM errors WHERE stage = "
                     "'link'\"`; the messages are stored and the next ingest links again")
    elif r.linked:
        k = r.linked
        lines.append(f"  linked: {k['threads']:,} threads, {k['patches']:,} patches "
                     f"({k['covers']:,} cover letters) in {k['series']:,} series, "
                     f"{k['reports']:,} robot reports")
        if k.get("link_errors"):
            lines.append(f"  link errors: {k['link_errors']:,} thread(s) whose claims a rule "
                         f"failed on were skipped (the errors table, stage 'claims')")
    lines.append(f"  store: {r.store}")
    return "\n".join(lines)


def _archive(store: str) -> api.Archive:
    try:
        archive = api.load(store)
        archive.store.manifest  # noqa: B018 - fail now on a missing store
    except MlxError as exc:
        _fail(exc)
    return archive


@main.command()
@STORE
def info(store: str) -> None:
    """Counts per table and the store's sources (from Parquet footers, kept by the link
    pass: quick at any size)."""
    archive = _archive(store)
    st = archive.store
    info = st.link_info()
    facts = st.part_facts(info.get("parts"))
    for name in ("messages", "errors", "threads", "patches", "results", "hardware",
                 "statements", "reports", "claims"):
        click.echo(f"{name + ':':12}{st.row_count(name, facts):>9,}")
    if "lists" in info:
        click.echo(f"{'lists:':12}{info['lists']:>9,}")
    first, last = st.date_range(facts)
    if first is not None:
        click.echo(f"{'dates:':12} {_utc(first)} .. {_utc(last)}")
    click.echo("sources:")
    for path, entry in sorted(st.manifest.get("sources", {}).items()):
        click.echo(f"  {path} ({entry.get('kind', '?')})")


def _utc(stamp: Any) -> str:
    import pandas as pd
    return str(pd.Timestamp(stamp).tz_convert("UTC"))


@main.command()
@STORE
@click.argument("query")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of an aligned table.")
def sql(store: str, query: str, as_csv: bool) -> None:
    """Run an SQL query (DuckDB) over the store's tables and print the rows.

    One view per table: messages, results, hardware, statements, errors, threads,
    patches, reports, claims.  Example: mlx sql "SELECT tool, count(*) FROM results
    GROUP BY tool".
    """
    archive = _archive(store)
    try:
        df = archive.sql(query)
    except MlxError as exc:
        _fail(exc)
    if as_csv:
        click.echo(df.to_csv(index=False), nl=False)
    else:
        click.echo(df.to_string(index=False, max_colwidth=60) if len(df) else "(no rows)")


@main.command()
@click.argument("text")
@STORE
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def show(text: str, store: str, as_json: bool) -> None:
    """One patch: its versions, claims, the lines they come from, the setup hardware
    and its thread's size.  TEXT is a piece of a patch title, a patch_id or a
    Message-ID (mid:ID)."""
    from mlx.report.show import show as do_show
    archive = _archive(store)
    try:
        click.echo(do_show(archive, text, as_json))
    except MlxError as exc:
        _fail(exc)


@main.command()
@STORE
@click.option("--patch", default=None, help="Only claims whose patch title contains TEXT.")
@click.option("--verdict", type=click.Choice(["improvement", "regression", "no-change"]),
              multiple=True, help="Only these verdicts (repeatable).")
@click.option("--kind", type=click.Choice(["measured", "prose", "robot"]), multiple=True,
              help="Only these kinds of claim (repeatable).")
@click.option("--noise", type=float, default=1.0, show_default=True,
              help="Deltas below this percent are no-change.")
@click.option("--all", "every", is_flag=True,
              help="Every row, repeats too (default: one line per distinct claim).")
def claims(store: str, patch: str | None, verdict: tuple[str, ...], kind: tuple[str, ...],
           noise: float, every: bool) -> None:
    """Print the claims per patch, one line per distinct claim with the versions that
    carry it (a table re-posted in v2 to v6 is one line, ``v2-v6``)."""
    archive = _archive(store)
    c = archive.claims_table(noise)
    if patch:
        c = c[c.title.fillna("").str.contains(patch, case=False, regex=False)]
    if verdict:
        c = c[c.verdict.isin(verdict)]
    if kind:
        c = c[c.kind.isin(kind)]
    if c.empty:
        click.echo("no claims", err=True)
        return
    click.echo("\n".join(claim_lines(c, every)))


def _number(value: Any) -> Any:
    """A version as it was written: 2, not 2.0 (a float column's)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def claim_lines(c: Any, every: bool = False) -> list[str]:
    """The claims of frame ``c`` as text, under their patch titles in the order each
    title's first claim comes: one line per distinct claim, starting with the versions
    that carry it where its title has several (``every``: one line per row, each with
    its own version)."""
    import pandas as pd

    from mlx.analyse.repeats import version_span
    from mlx.report.show import claim_text
    if not every and "repeat_of" in c.columns:
        c = c[c.repeat_of.isna()]
    titles = c.title.fillna("(no patch)")
    groups = pd.factorize(titles)[0]
    order = groups.argsort(kind="stable")
    several = c.version.groupby(titles).nunique() > 1
    lines: list[str] = []
    last = None
    for title, r in zip(titles.iloc[order], c.iloc[order].itertuples(), strict=True):
        if title != last:
            lines.append(f"\n{title}")
            last = title
        span = version_span(getattr(r, "versions", None)) if not every else ""
        if every or not span:
            span = f"v{_number(r.version)}" if pd.notna(r.version) else ""
        version = f"{span}  " if span and (several[title] or "," in span or "-" in span) \
            else ""
        lines.append(f"  {version}{claim_text(r)}")
    return lines


@main.command()
@STORE
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv",
              show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--table", "tables", multiple=True,
              help="Only these tables (repeatable) [default: all].")
def export(store: str, fmt: str, out: str, tables: tuple[str, ...]) -> None:
    """Write the tables as CSV or Parquet files, one per table."""
    from mlx.report.export import TABLES
    from mlx.report.export import export as do_export
    archive = _archive(store)
    try:
        for path in do_export(archive, out, fmt, tables or TABLES):
            click.echo(path)
    except MlxError as exc:
        _fail(exc)


@main.command()
@STORE
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output directory.")
def report(store: str, out: str) -> None:
    """CSV tables, PNG plots, an index.html of every claim (sorts and filters) and a
    page per patch with the lines each value came from."""
    from mlx.report.export import report as do_report
    archive = _archive(store)
    bar: Any = None
    if sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(unit=" patch pages", file=sys.stderr, desc="report")
    try:
        click.echo(do_report(archive, out, bar.update if bar is not None else None))
    finally:
        if bar is not None:
            bar.close()


if __name__ == "__main__":  # pragma: no cover
    main()
