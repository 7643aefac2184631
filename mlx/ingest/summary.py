"""The counts of one ingest run: a leaf, so the planner, the taker and the front end all
read it without importing each other."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class IngestReport:
    """Counts of one ingest run. ``raw == stored + errors + duplicates + already``."""

    store: str
    sources: int = 0
    unchanged: int = 0  # sources skipped: nothing new since the last run
    skipped_files: list[str] = field(default_factory=list)
    raw: int = 0
    stored: int = 0
    errors: int = 0
    duplicates: int = 0  # byte-identical copies within this run
    already: int = 0  # already in the store from an earlier run
    deleted: int = 0  # public-inbox deletions
    defects: Counter[str] = field(default_factory=Counter)
    linked: dict[str, int] = field(default_factory=dict)  # threads, patches, series ...
    elapsed: float = 0.0
    link_elapsed: float = 0.0  # of ``elapsed``: the link pass over the whole store

    @property
    def rate(self) -> float:
        return self.raw / self.elapsed if self.elapsed else 0.0

    @property
    def balanced(self) -> bool:
        return self.raw == self.stored + self.errors + self.duplicates + self.already
