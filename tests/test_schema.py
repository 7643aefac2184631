"""Every table's columns are its record's fields: one place says what a row holds."""

import dataclasses

import pytest

from mlx import schema
from mlx.extract.patches import PatchFacts
from mlx.ingest.parse import MessageRecord


@pytest.mark.parametrize("name", sorted(schema.TABLES))
def test_columns_are_the_record_fields(name: str) -> None:
    cls, table = schema.TABLES[name]
    fields = [f.name for f in dataclasses.fields(cls)]
    lead = ["uid", "message_id"] if name in ("results", "hardware", "statements") else []
    assert table.names == lead + fields


def test_messages_columns() -> None:
    names = [f.name for f in dataclasses.fields(MessageRecord)]
    names.insert(names.index("references") + 1, "thread_refs")
    assert schema.MESSAGES.names == names + [f.name for f in dataclasses.fields(PatchFacts)] \
        + ["n_results", "n_hardware", "n_statements"]
    # one count per extractor's table, named after it
    from mlx.pipeline import EXTRACTORS
    assert list(schema.COUNT_COLUMNS) == [f"n_{e.table}" for e in EXTRACTORS.values()]


def test_types_from_hints() -> None:
    import pyarrow as pa
    assert schema.PATCHES.field("trailers").type == pa.list_(schema.TRAILER)
    assert schema.MESSAGES.field("date").type == pa.timestamp("us", tz="UTC")
    assert schema.RESULTS.field("value_norm").type == pa.float64()
    assert schema.CLAIMS.field("agrees").type == pa.bool_()
