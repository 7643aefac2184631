"""Reading a store: tables as pandas DataFrames, by column, lazily; SQL through DuckDB.

``Archive`` reads nothing when opened.  Each table is read on first use, and
``archive.table("results", columns=[...], where="tool = 'iperf3'")`` reads only
the columns and rows asked for; ``archive.headers`` is ``messages`` without its
bodies.  (``archive.messages`` reads the bodies too: a frame that fetched them on
first use would lose them in every frame derived from it, a sort, a filter, a
``set_index``, which is a worse surprise than the wait.)
``archive.sql("SELECT ...")`` runs DuckDB over the Parquet parts with one view per
table; ``archive.dask("results")`` is a dask DataFrame over the same parts.  The
claims are read as the link stage stored them; ``claims_table(noise_pct)`` gives
them another noise threshold without pairing again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from mlx import schema
from mlx.errors import MlxError
from mlx.linkfiles import LINK_KEYS
from mlx.parts import read_as
from mlx.store import Store, Tables

if TYPE_CHECKING:  # pandas is imported on first use: workers and the CLI start faster
    import pandas as pd

LINK_COLUMNS = ("thread_id", "parent_id", "depth", "patch_id")
MESSAGE_LINKS = (*LINK_COLUMNS, "parent_uid")  # what the link stage adds to a message
HEADERS = ["uid", "message_id", "date", "from_name", "from_addr", "subject", "list_id", "source",
           "offset", "defects"]
PART_TABLES = {"messages": schema.MESSAGES, "errors": schema.ERRORS, "results": schema.RESULTS,
               "hardware": schema.HARDWARE, "statements": schema.STATEMENTS}
LINK_TABLES = {"threads": schema.THREADS, "patches": schema.PATCHES, "reports": schema.REPORTS,
               "claims": schema.CLAIMS, "links": schema.LINKS}
EXTRACTED = ("results", "hardware", "statements")  # rows of a message: they get its patch_id
TABLE_NAMES = [*PART_TABLES, *(n for n in LINK_TABLES if n != "links")]  # the SQL views
VIEW_NAMES = {*PART_TABLES, *(f"{n}_parts" for n in PART_TABLES), *LINK_TABLES}


class Archive:
    """The tables of a store as pandas DataFrames (read on first use, by column)."""

    def __init__(self, path: str, tables: Tables | None = None) -> None:
        """``tables``: what the tables are read from, when not the whole store (the
        messages of one link pass, for their claims)."""
        self.path = path
        self.store = Store(path)
        self.tables: Tables = tables if tables is not None else self.store
        self._cache: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Archive({self.path!r})"

    # ------------------------------------------------------------------ tables

    def table(self, name: str, columns: list[str] | None = None,
              where: str | None = None) -> pd.DataFrame:
        """One table, only the ``columns`` asked for, only the rows ``where`` (an SQL
        condition, run by DuckDB: ``"tool = 'iperf3' AND value_norm > 1000"``)."""
        _schema_of(name)
        if where is not None:
            cols = ", ".join(_quote(c) for c in columns) if columns else "*"
            return self.sql(f"SELECT {cols} FROM {name} WHERE {where}")
        if name == "messages":
            return self._messages(columns)
        if name in LINK_TABLES:
            df = self._link_table(name)
            return df if columns is None else df[columns]
        if name == "errors":
            df = self._errors()
            return df if columns is None else df[columns]
        df = _to_pandas(self.tables.read(name, PART_TABLES[name],
                                         _without(columns, "patch_id")))
        if name in EXTRACTED and (columns is None or "patch_id" in columns):
            df = df.merge(self._patch_ids(set(df.uid)), on="uid", how="left")
            order = list(df.columns)
            order.insert(2, order.pop(order.index("patch_id")))
            df = df[order]
        return df if columns is None else df[[c for c in columns if c in df.columns]]

    def _messages(self, columns: list[str] | None) -> pd.DataFrame:
        import pandas as pd
        own = None if columns is None else [c for c in columns if c not in MESSAGE_LINKS]
        if own is not None and "uid" not in own:
            own = ["uid", *own]
        df = _to_pandas(self.tables.read("messages", schema.MESSAGES, own))
        if columns is None or any(c in MESSAGE_LINKS for c in columns):
            links = self._link_table("links")
            if len(links) and "uid" in df.columns:
                df = df.merge(links, on="uid", how="left")
            for col in LINK_COLUMNS:
                if col not in df.columns:
                    df[col] = pd.Series(pd.NA, index=df.index,
                                        dtype="Int64" if col == "depth" else "string")
        return df if columns is None else df[[c for c in columns if c in df.columns]]

    def _errors(self) -> pd.DataFrame:
        """The chunks that were no message (stage ``split`` or ``parse``) and the link
        stage's faults (``link``, ``claims``: in ``link/errors``, replaced as a pass
        re-links what they concern)."""
        import pandas as pd
        parts = _to_pandas(self.tables.read("errors", schema.ERRORS))
        parts["stage"] = parts.stage.fillna("parse")  # parts written before the column
        linked = self.tables.read_link("errors")
        if linked is None or not linked.num_rows:
            return parts
        return pd.concat([parts, _to_pandas(linked.cast(schema.ERRORS))], ignore_index=True)

    def _link_table(self, name: str) -> pd.DataFrame:
        """A table of the link stage, read once."""
        key = f"link:{name}"
        if key not in self._cache:
            table = self.tables.read_link("messages" if name == "links" else name)
            self._cache[key] = _to_pandas(table if table is not None
                                          else LINK_TABLES[name].empty_table())
        return self._cache[key]

    def _patch_ids(self, uids: set[str]) -> pd.DataFrame:
        """uid and patch_id of the messages ``uids``: from the links table when it was
        read, else only those rows and columns of it (on a store of millions the whole
        table in pandas is hundreds of MiB)."""
        if "link:links" in self._cache:
            return self._cache["link:links"][["uid", "patch_id"]]
        table = self.tables.read_link("messages", uids=uids, columns=["uid", "patch_id"])
        return _to_pandas(table if table is not None
                          else schema.LINKS.empty_table().select(["uid", "patch_id"]))

    def _cached(self, key: str, make: Any) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def messages(self) -> pd.DataFrame:
        """One row per stored message, with its thread and patch (bodies included: for
        a big store take ``headers`` or ``table("messages", columns=[...])``)."""
        return self._cached("messages", lambda: self._messages(None))

    @property
    def headers(self) -> pd.DataFrame:
        """``messages`` without bodies, address lists and references: what the claims
        and ``mlx info`` read, small enough for a store of millions of messages."""
        return self._cached("headers", lambda: self._messages(HEADERS + list(LINK_COLUMNS)))

    def headers_of(self, uids: Iterable[str], columns: list[str] | None = None
                   ) -> pd.DataFrame:
        """``headers`` (or the message ``columns`` asked for, with the link columns) of
        the messages ``uids`` only, read with a filter: what the claims and the report
        need of a big store."""
        import pandas as pd
        uids = set(uids)
        own = HEADERS if columns is None else ["uid", *[c for c in columns if c != "uid"]]
        df = _to_pandas(self.tables.read("messages", schema.MESSAGES, own, uids=uids))
        links = self.tables.read_link("messages", uids=uids)
        links = _to_pandas(links if links is not None else schema.LINKS.empty_table())
        df = df.merge(links[["uid", *LINK_COLUMNS]], on="uid", how="left")
        for col in LINK_COLUMNS:
            if col not in df.columns:
                df[col] = pd.Series(pd.NA, index=df.index,
                                    dtype="Int64" if col == "depth" else "string")
        return df

    def hardware_of_threads(self, threads: set[str]) -> tuple[dict[str, str], pd.DataFrame]:
        """({uid: thread_id}, hardware rows) of the messages in ``threads``: what the
        claims' hardware column reads."""
        links = self.tables.read_link("messages", columns=["uid", "thread_id"])
        if links is None or not threads:
            return {}, _to_pandas(schema.HARDWARE.empty_table())
        import pyarrow.compute as pc
        links = links.filter(pc.is_in(links.column("thread_id"),
                                      pa.array(sorted(threads), pa.string())))
        thread_of = dict(zip(links.column("uid").to_pylist(),
                             links.column("thread_id").to_pylist(), strict=True))
        columns = ["uid", "host", "kind", "value", "quoted", "role"]
        if "hardware" in self._cache:
            hw = self._cache["hardware"]
            return thread_of, hw[hw.uid.isin(thread_of)][columns]
        return thread_of, _to_pandas(self.tables.read("hardware", schema.HARDWARE, columns,
                                                     uids=thread_of))

    def patch_titles(self, patch_ids: Iterable[str]) -> pd.DataFrame:
        """patch_id, title and version of the patches ``patch_ids`` (first posting of
        each)."""
        import pyarrow.compute as pc
        columns = ["patch_id", "title", "version"]
        table = self.tables.read_link("patches", columns=columns)
        if table is None:
            table = schema.PATCHES.empty_table().select(columns)
        table = table.filter(pc.is_in(table.column("patch_id"),
                                      pa.array(sorted(set(patch_ids)), pa.string())))
        return _to_pandas(table).drop_duplicates("patch_id")

    @property
    def threads(self) -> pd.DataFrame:
        """thread_id, root_id, subject, n_messages, first_date, last_date, n_ghosts."""
        return self._link_table("threads")

    @property
    def patches(self) -> pd.DataFrame:
        """One row per patch posting (cover letters included)."""
        return self._link_table("patches")

    @property
    def reports(self) -> pd.DataFrame:
        """Kernel test robot reports: commit, metric, change_pct, verdict."""
        return self._link_table("reports")

    @property
    def results(self) -> pd.DataFrame:
        """One row per measured value (iperf3, iperf2, netperf, tables, prose)."""
        return self._cached("results", lambda: self.table("results"))

    @property
    def hardware(self) -> pd.DataFrame:
        """One row per hardware fact and message: host, kind, text, value, role, count."""
        return self._cached("hardware", lambda: self.table("hardware"))

    @property
    def statements(self) -> pd.DataFrame:
        """Effects stated in words, and rows of kernel test robot comparison tables."""
        return self._cached("statements", lambda: self.table("statements"))

    @property
    def errors(self) -> pd.DataFrame:
        return self._cached("errors", lambda: self.table("errors"))

    # ------------------------------------------------------------------ claims

    @property
    def claims(self) -> pd.DataFrame:
        """Baseline/patched pairs per patch, stated effects and robot reports, as the
        link stage stored them (computed here for a store linked before they were), each
        with its key and the claim of an earlier posting it repeats
        (``mlx.analyse.repeats``: ``claim_id``, ``repeat_of``, ``versions``)."""
        def make() -> pd.DataFrame:
            from mlx.analyse.repeats import fold
            stored = self.tables.read_link("claims")
            if stored is not None:
                claims = self._cached("link:claims", lambda: _to_pandas(stored))
            else:
                from mlx.analyse.claims import build_claims, claim_frames
                claims = build_claims(claim_frames(self))
            patches = self.tables.read_link("patches", columns=["patch_id", "series_id"])
            return fold(claims, {} if patches is None else dict(zip(
                *patches.to_pydict().values(), strict=True)))
        return self._cached("claims", make)

    def claims_table(self, noise_pct: float = 1.0) -> pd.DataFrame:
        """The claims with another noise threshold (percent): verdicts again from the
        stored deltas, no pairing again."""
        from mlx.analyse.claims import NOISE_PCT, reverdict
        claims = self.claims
        return claims if noise_pct == NOISE_PCT else reverdict(claims, noise_pct)

    # ------------------------------------------------------------------ SQL, dask

    def sql(self, query: str) -> pd.DataFrame:
        """A DuckDB query over the store: one view per table (``messages``, ``results``,
        ``hardware``, ``statements``, ``errors``, ``threads``, ``patches``, ``reports``,
        ``claims``), ``messages`` with its thread and patch columns."""
        import duckdb
        con = self._duckdb(query)
        try:
            return con.execute(query).df()
        except duckdb.Error as exc:
            said = str(exc).splitlines()[0]
            if isinstance(exc, duckdb.CatalogException) and "Table with name" in said:
                said += f" (tables: {', '.join(TABLE_NAMES)})"
            raise MlxError(f"SQL: {said}") from None
        finally:
            # no connection outlives its query: a process forked later (the ingest
            # workers) would destroy its copy and crash
            con.close()

    def _duckdb(self, query: str | None = None) -> Any:
        """A new DuckDB connection with the views of the store's tables that ``query``
        names (all when it names none: ``SHOW TABLES``).  A view lists its parts now
        and DuckDB reads every part's footer to bind it (about 1.3 s for the four part
        tables at 1.09M messages), so a query of the claims sets up no view of the
        parts."""
        import duckdb
        words = None if query is None else set(re.findall(r"\w+", query.lower()))
        if words is not None and not words & VIEW_NAMES:
            words = None

        def named(*names: str) -> bool:
            return words is None or any(n in words for n in names)
        con = duckdb.connect()
        for name, table_schema in PART_TABLES.items():
            if named(name, f"{name}_parts"):
                parts = self.store.part_paths(name)
                con.execute(f"CREATE VIEW {name}_parts AS " + (
                    f"SELECT * FROM read_parquet({_list(parts)}, union_by_name=true)" if parts
                    else _empty_select(table_schema)))
        for name, table_schema in LINK_TABLES.items():
            if name == "claims" and named(name):  # with the repeats folded (small: in memory)
                con.register("claims", self.claims)
            elif named(name) or (name == "links" and named("messages")):
                con.execute(f"CREATE VIEW {name} AS " + self._link_select(name, table_schema))
        if named("messages"):
            con.execute("CREATE VIEW messages AS SELECT m.*, l.thread_id, l.parent_id, "
                        "l.depth, l.patch_id FROM messages_parts m LEFT JOIN links l USING (uid)")
        for name in EXTRACTED:
            if named(name):
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM {name}_parts")
        if named("errors"):
            linked = self._link_select("errors", schema.ERRORS)
            con.execute("CREATE VIEW errors AS SELECT * REPLACE (coalesce(stage, 'parse') AS "
                        f"stage) FROM errors_parts UNION ALL BY NAME {linked}")
        return con

    def _link_select(self, name: str, table_schema: pa.Schema) -> str:
        """The live rows of a link table: its base and deltas, less the rows a later
        delta voids (as ``Store.read_link``)."""
        stored = "messages" if name == "links" else name
        files = self.store.link_files(stored)
        if not files:
            return _empty_select(table_schema)
        key = _quote(LINK_KEYS.get(stored) or "uid")
        return " UNION ALL ".join(
            f"SELECT * FROM read_parquet({_list([path])})" + (
                f" WHERE {key} IS NULL OR {key} NOT IN (SELECT {key} FROM "
                f"read_parquet({_list(dead)}))" if dead else "")
            for path, dead in files)

    def dask(self, name: str) -> Any:
        """A ``dask.dataframe`` over the Parquet parts of one table (for a cluster), each
        part read as the table's schema: every column the store's schema has, null where
        a part written by an older mlx lacks one (``table(name)`` adds the link columns:
        ``patch_id`` to the extracted tables, the thread and patch to ``messages``)."""
        try:
            import dask.dataframe as dd
        except ImportError:
            raise MlxError("dask is not installed; pip install 'mlx-mailarchive[dask]'") \
                from None
        table_schema = _schema_of(name)
        if name in LINK_TABLES:
            stored = "messages" if name == "links" else name
            files = self.store.link_files(stored)
            if any(dead for _, dead in files):  # deltas in force: the live rows
                table = self.store.read_link(stored)
                assert table is not None
                return dd.from_pandas(_to_pandas(table), npartitions=len(files))
            parts = [path for path, _ in files]
        else:
            parts = self.store.part_paths(name)
        if not parts:
            raise MlxError(f"{self.path}: no {name} parts to read")
        return dd.from_map(part_frame, parts, fs=self.store.fs, table_schema=table_schema,
                           meta=_to_pandas(table_schema.empty_table()))

    # ------------------------------------------------------------------ plots

    def plot_patch(self, patch: str) -> Any:
        """Baseline vs patched bars per test of a patch (patch_id or title substring)."""
        from mlx.report import plots
        return plots.patch_bars(self.claims, patch)

    def plot_deltas(self) -> Any:
        from mlx.report import plots
        return plots.delta_histogram(self.claims)

    def plot_over_time(self) -> Any:
        from mlx.report import plots
        return plots.claims_over_time(self.claims)

    def plot_hardware(self) -> Any:
        from mlx.report import plots
        return plots.hardware_mix(self.hardware)


def _without(columns: list[str] | None, name: str) -> list[str] | None:
    return None if columns is None else [c for c in columns if c != name]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _list(paths: list[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def _schema_of(name: str) -> pa.Schema:
    """The schema of table ``name``; an error naming the tables when there is none."""
    found = PART_TABLES.get(name) or LINK_TABLES.get(name)
    if found is None:
        raise MlxError(f"no table {name!r}; tables: {', '.join([*PART_TABLES, *LINK_TABLES])}")
    return found


def part_frame(path: str, fs: Any, table_schema: pa.Schema,
               columns: list[str] | None = None) -> pd.DataFrame:
    """One part of a table as a pandas frame of the table's schema (a column the part
    lacks as nulls), only ``columns`` when dask asks for some: what ``Archive.dask`` maps
    over the parts."""
    want = table_schema if columns is None else \
        pa.schema([table_schema.field(c) for c in columns])
    return _to_pandas(read_as(fs, path, want))


def _empty_select(table_schema: pa.Schema) -> str:
    """A view with the table's columns and no row, for a table nothing was written to."""
    import duckdb
    with duckdb.connect() as con:
        con.register("empty", table_schema.empty_table())
        types = dict(row[:2] for row in con.execute("DESCRIBE empty").fetchall())
    cols = ", ".join(f"CAST(NULL AS {types[f.name]}) AS {_quote(f.name)}"
                     for f in table_schema)
    return f"SELECT {cols} WHERE false"


def _to_pandas(table: pa.Table) -> pd.DataFrame:
    import pandas as pd
    df = table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
    for f in table.schema:
        if f.type == pa.list_(schema.TRAILER):  # (key, value) pairs, as the contract says
            df[f.name] = [[(t["key"], t["value"]) for t in v] if v is not None else []
                          for v in df[f.name]]
        elif pa.types.is_list(f.type):
            df[f.name] = [list(v) if v is not None else [] for v in df[f.name]]
    return df
