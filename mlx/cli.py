"""The ``mlx`` command: parses options, calls the library, prints.

Library errors become one ``Error: ...`` line on stderr and exit status 1.
Stdout is for data; progress and summaries go to stderr.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from mlx import api
from mlx.errors import MlxError

STORE = click.option("--store", default="mlx-store", show_default=True,
                     help="Store directory.", type=click.Path(file_okay=False))


def _fail(exc: MlxError) -> None:
    raise click.ClickException(str(exc)) from None


@click.group()
@click.version_option(package_name="mlx-mailarchive")
def main() -> None:
    """Mailing-list archives in, tables of patches and performance claims out."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@STORE
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes [default: one per core].")
@click.option("--engine", type=click.Choice(["local"]), default="local", show_default=True,
              help="Where chunks run.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary.")
@click.option("--extract", "extract", default="results,hardware,statements", show_default=True,
              help="Extractors to run on message bodies, comma-separated.")
@click.option("--no-extract", is_flag=True,
              help="Run no extractor (messages, threads, patches only).")
def ingest(paths: tuple[str, ...], store: str, workers: int | None, engine: str,
           quiet: bool, extract: str, no_extract: bool) -> None:
    """Ingest mbox/mboxrd files (.gz/.bz2/.xz), Maildirs, .eml files,
    public-inbox epochs, or folders of them, into the store.

    Running it again adds only what is new.
    """
    bar: Any = None
    if not quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(unit=" msg", file=sys.stderr, desc="ingest", smoothing=0.1)
    try:
        report = api.ingest(list(paths), store=store, workers=workers, engine=engine,
                            progress=bar.update if bar else None,
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
    if r.linked:
        k = r.linked
        lines.append(f"  linked: {k['threads']:,} threads, {k['patches']:,} patches "
                     f"({k['covers']:,} cover letters) in {k['series']:,} series, "
                     f"{k['reports']:,} robot reports")
    lines.append(f"  store: {r.store}")
    return "\n".join(lines)


@main.command()
@STORE
def info(store: str) -> None:
    """Counts of what the store holds."""
    try:
        archive = api.load(store)
        msgs = archive.messages
        errs = archive.errors
    except MlxError as exc:
        _fail(exc)
        return
    click.echo(f"store:    {store}")
    click.echo(f"messages: {len(msgs):,}")
    click.echo(f"errors:   {len(errs):,}")
    click.echo(f"threads:  {len(archive.threads):,}")
    patches = archive.patches
    click.echo(f"patches:  {len(patches):,} ({int(patches.is_cover.sum()):,} cover letters, "
               f"{patches.series_id.nunique():,} series)")
    if len(msgs):
        click.echo(f"lists:    {msgs.list_id.nunique():,}")
        click.echo(f"sources:  {msgs.source.nunique():,}")
        click.echo(f"dates:    {msgs.date.min()} .. {msgs.date.max()}")


if __name__ == "__main__":  # pragma: no cover
    main()
