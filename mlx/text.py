"""The quote prefix of a mail line: one splitter for QP repair and every extractor."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
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
    matches refer to the lowercased text.  ``needs``: words one of which every match
    holds, tested first (a substring test is far cheaper than a pattern that may start
    at every "it" of a body).
    """

    __slots__ = ("rx", "needs")

    def __init__(self, pattern: str, needs: tuple[str, ...] = ()) -> None:
        self.rx = re.compile(pattern)
        self.needs = needs

    def search(self, text: str, low: str | None = None) -> re.Match[str] | None:
        """Search ``text``; ``low`` is its lowercased copy where the caller has one."""
        low = text.lower() if low is None else low
        if self.needs and not any(w in low for w in self.needs):
            return None
        return self.rx.search(low)


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class Scanner:
    """The words of several prefilters found in one pass over a text (an Aho-Corasick
    automaton, ``ahocorasick_rs``: twice pyahocorasick's speed on bodies), the last
    text's hits kept: the extractors run one after another on the same head of a body,
    and a substring test per word would scan it once per word."""

    def __init__(self) -> None:
        self.words: dict[str, set[tuple[int, str]]] = {}  # word -> {(owner, tag)}
        self.owners = 0
        self._auto: Any = None
        self._last: tuple[str, dict[int, dict[str, list[int]]]] | None = None

    def add(self, tagged: Mapping[str, Iterable[str]]) -> int:
        """Take a prefilter's tagged words; its owner number."""
        owner, self.owners = self.owners, self.owners + 1
        for tag, words in tagged.items():
            for w in words:
                self.words.setdefault(w, set()).add((owner, tag))
        self._auto = self._last = None  # built again on the next scan, with these words
        return owner

    def hits(self, text: str) -> dict[int, dict[str, list[int]]]:
        """Where the words end in ``text`` (their last character), by owner and tag."""
        last = self._last  # read once: another thread may replace it
        if last is not None and last[0] == text:
            return last[1]
        out: dict[int, dict[str, list[int]]] = {}
        auto, pairs_of = self._automaton()
        try:
            found = auto.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:  # a lone surrogate: one replacement keeps the positions
            found = auto.find_matches_as_indexes(LONE_SURROGATE.sub("\ufffd", text),
                                                 overlapping=True)
        for i, _, end in found:
            for owner, tag in pairs_of[i]:
                out.setdefault(owner, {}).setdefault(tag, []).append(end - 1)
        self._last = (text, out)
        return out

    def _automaton(self) -> tuple[Any, list[frozenset[tuple[int, str]]]]:
        built = self._auto
        if built is None:  # built on first use, in the process that scans
            import ahocorasick_rs

            words = list(self.words)
            # a DFA: twice as fast a scan as the default NFA (0.16 s against 0.34 s for the
            # 65 MB of netfilter-devel's heads), for some memory on a few thousand words
            built = (ahocorasick_rs.AhoCorasick(words, matchkind=ahocorasick_rs.MatchKind.Standard,
                                                implementation=ahocorasick_rs.Implementation.DFA),
                     [frozenset(self.words[w]) for w in words])
            self._auto = built
        return built


def matched_at(rx: re.Pattern[str], text: str, ends: Iterable[int],
               backs: Iterable[int], heads: Collection[str] | None = None) -> list[int]:
    """The ends (of a literal a scan found) where ``rx`` matches from ``back`` characters
    before one of them: a pattern whose every match holds that literal at a known offset is
    tried there only, not at every character of the text.  With ``heads`` (the literals,
    when every match starts with one), only from where the literal ending there starts: a
    match starting at another literal, ``back`` characters before, is not this one's."""
    backs = tuple(backs)
    return [end for end in ends if any(
        (heads is None or text[end - b:end + 1] in heads) and rx.match(text, end - b)
        for b in backs if end >= b)]


class Words:
    """One prefilter's tagged words, found by a ``Scanner`` (its own, or one it shares
    with other prefilters that read the same texts)."""

    def __init__(self, tagged: Mapping[str, Iterable[str]], scanner: Scanner | None = None) -> None:
        self.scanner = Scanner() if scanner is None else scanner
        self.owner = self.scanner.add(tagged)

    def hits(self, text: str) -> dict[str, list[int]]:
        """Where the words end in ``text`` (the index of their last character), by tag.
        Shared with the scanner's cache: read it, never change it."""
        return self.scanner.hits(text).get(self.owner, {})

    def tags(self, text: str) -> set[str]:
        """The tags of the words in ``text``."""
        return set(self.hits(text))


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
