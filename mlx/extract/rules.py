"""Named rules: why an extractor turned a value down.

Each extractor that weighs a candidate (an inline value, a stated effect, a piece of
hardware as a setup) holds its tests as an ordered table of ``Rule``: a name, the test
and a line the rule turns down (its test case).  ``rejected_by`` evaluates the table and tells
the name of the first rule that fires: what ``benchmarks/accuracy.py --misses`` prints
for a missed value and what the hardware table's ``rule`` column keeps."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Rule(Generic[T]):
    """A rule that turns a candidate down: its name, its test, and a line it turns down."""

    name: str
    rejects: Callable[[T], bool]
    example: str


def rejected_by(rules: Iterable[Rule[T]], spot: T) -> str | None:
    """The name of the first rule that turns ``spot`` down, None if none does."""
    return next((rule.name for rule in rules if rule.rejects(spot)), None)
