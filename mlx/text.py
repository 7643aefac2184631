"""The quote prefix of a mail line: one splitter for QP repair and every extractor."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

# "> > [SUM] 0.00-10.04 sec ...", ">>> foo", "  > indented quote": '>' marks, each after at
# most three blanks, and one blank after the last
QUOTE = re.compile(r"^(?:[ \t]{0,3}>)+[ \t]?")


def quote_prefix(line: str) -> str:
    """The quote prefix of one line ("" for unquoted text: its leading blanks are content)."""
    m = QUOTE.match(line) if ">" in line[:16] else None
    return m.group(0) if m else ""


def split_quote(line: str) -> tuple[int, str]:
    """(quote depth, text without the prefix) of one line."""
    prefix = quote_prefix(line)
    return prefix.count(">"), line[len(prefix):]


# "commit 8b42a260ed8f..." over "Author: ...": a commit pasted from git log or a commit
# notification, its message indented by four blanks
COMMIT_HEADER = re.compile(r"^commit [0-9a-f]{40}\b")
COMMIT_FIELD = re.compile(r"^(?:Author|AuthorDate|Commit|CommitDate|Date|Merge):")


def pasted_commits(lines: list[str]) -> set[int]:
    """Indexes of the lines of commits pasted into a body (their header and their indented
    message): someone else's text, as if quoted."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        if not (COMMIT_HEADER.match(lines[i]) and i + 1 < len(lines)
                and COMMIT_FIELD.match(lines[i + 1])):
            i += 1
            continue
        out.add(i)
        i += 1
        while i < len(lines) and COMMIT_FIELD.match(lines[i]):
            out.add(i)
            i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i][:4].isspace()):
            out.add(i)  # the message, indented (blanks or no-break spaces), its blank lines
            i += 1
    return out


class Folded:
    """A case-insensitive regex that runs on lowercased text.

    Under IGNORECASE Python's re loses its skip to the first characters a match can
    start with and tries every branch at every position: on whole bodies the same
    pattern over ``text.lower()`` is 4-10x faster.  The pattern is written in lowercase;
    matches refer to the lowercased text.
    """

    __slots__ = ("rx",)

    def __init__(self, pattern: str) -> None:
        self.rx = re.compile(pattern)

    def search(self, text: str, low: str | None = None) -> re.Match[str] | None:
        """Search ``text``; ``low`` is its lowercased copy where the caller has one."""
        return self.rx.search(text.lower() if low is None else low)


class Words:
    """Tagged words found in one pass over a text (an Aho-Corasick automaton, C speed),
    where a substring test per word would scan the text once per word."""

    def __init__(self, tagged: dict[str, Iterable[str]]) -> None:
        self.tagged = {tag: tuple(words) for tag, words in tagged.items()}
        self._auto: Any = None

    def _automaton(self) -> Any:
        if self._auto is None:  # built on first use, in the process that scans
            import ahocorasick

            tags: dict[str, set[str]] = {}
            for tag, words in self.tagged.items():
                for w in words:
                    tags.setdefault(w, set()).add(tag)
            auto = ahocorasick.Automaton()
            for w, t in tags.items():
                auto.add_word(w, frozenset(t))
            auto.make_automaton()
            self._auto = auto
        return self._auto

    def hits(self, text: str) -> dict[str, list[int]]:
        """Where the words end in ``text`` (the index of their last character), by tag."""
        out: dict[str, list[int]] = {}
        for end, tags in self._automaton().iter(text):
            for tag in tags:
                out.setdefault(tag, []).append(end)
        return out

    def tags(self, text: str) -> set[str]:
        """The tags of the words in ``text``."""
        return set().union(*(tags for _, tags in self._automaton().iter(text)))


class TextCache(Generic[V]):
    """What an expensive read gave for each text, kept in this process: on a list half
    the lines and paragraphs read are quoted again in replies.  Holds at most ``limit``
    (texts, or characters with ``size=len``); full, it starts afresh."""

    def __init__(self, limit: int, size: Callable[[str], int] = lambda text: 1) -> None:
        self.limit, self.size = limit, size
        self.items: dict[str, V] = {}
        self.used = 0

    def get(self, texts: list[str], read: Callable[[list[str]], Iterable[V]]) -> list[V]:
        """The value of each text; ``read`` gets the texts not kept, each once, in order."""
        known = {t: self.items[t] for t in texts if t in self.items}  # kept through a clear
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        cost = sum(map(self.size, todo))
        if self.used + cost > self.limit:
            self.items.clear()
            self.used = 0
        for text, value in zip(todo, read(todo), strict=True):
            known[text] = self.items[text] = value
        self.used += cost
        return [known[t] for t in texts]
