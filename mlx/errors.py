"""Errors for unusable input of a whole run.

Bad data inside an archive never raises: it becomes a defect code on a message
or a row in the ``errors`` table.  These exceptions are for what makes a whole
run impossible (a missing path, a file with no mail in it, a broken store).
Each message says what was expected and how to fix it; the CLI prints it on one
line.  They carry plain string arguments so they pickle between processes.
"""

from __future__ import annotations


class MlxError(Exception):
    """Base class of every error mlx raises on purpose."""


class InputNotFoundError(MlxError):
    """A path given to ingest does not exist."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: no such file or directory (pass an mbox, Maildir, "
                         f".eml, public-inbox epoch or a folder of them)")
        self.path = path

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (type(self), (self.path,))


class NotMailError(MlxError):
    """A path exists but holds no mail mlx can read."""

    def __init__(self, path: str, found: str) -> None:
        super().__init__(f"{path}: {found}; expected an mbox/mboxrd file (optionally .gz, "
                         f".bz2, .xz), an .eml message, a Maildir or a public-inbox git epoch")
        self.path = path
        self.found = found

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return (type(self), (self.path, self.found))


class StoreError(MlxError):
    """The store directory is missing, not an mlx store, or unreadable."""


class GitError(MlxError):
    """git is missing or a public-inbox epoch cannot be read."""
