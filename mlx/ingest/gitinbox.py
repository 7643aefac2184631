"""public-inbox v2 git epochs: one commit per message, the raw message in blob ``m``.

A commit whose tree holds ``d`` instead of ``m`` records a deletion and is
skipped.  Blobs are read in bulk through one long-lived ``git cat-file
--batch`` per repository and process, never one process per message.
"""

from __future__ import annotations

import atexit
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

from mlx.errors import GitError
from mlx.ingest.split import MAX_MESSAGE


@dataclass(frozen=True)
class GitBlob:
    """The message blob of one commit; ``data`` is None for a deletion."""

    commit: str
    data: bytes | None
    size: int
    truncated: int = 0


def _git() -> str:
    git = shutil.which("git")
    if git is None:
        raise GitError("git is not installed; install git to read public-inbox epochs")
    return git


def rev_list(repo: str, since: str | None = None) -> list[str]:
    """Commits of the epoch oldest first; only those after ``since`` if given."""
    spec = f"{since}..HEAD" if since else "HEAD"
    proc = subprocess.run([_git(), "--git-dir", repo, "rev-list", "--reverse", spec],
                          capture_output=True, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        if since and rev_exists(repo, "HEAD"):
            # history rewritten under us (or the old tip was pruned): read it all
            return rev_list(repo, None)
        if b"unknown revision" in proc.stderr or b"ambiguous argument 'HEAD'" in proc.stderr:
            return []  # an epoch with no commits yet
        raise GitError(f"{repo}: git rev-list failed: {err[-1] if err else proc.returncode}")
    return proc.stdout.decode().split()


def rev_exists(repo: str, rev: str) -> bool:
    proc = subprocess.run([_git(), "--git-dir", repo, "rev-parse", "--verify", "-q", rev],
                          capture_output=True, check=False)
    return proc.returncode == 0


class CatFile:
    """One ``git cat-file --batch`` process answering ``<commit>:m`` requests."""

    def __init__(self, repo: str, max_message: int = MAX_MESSAGE) -> None:
        self.repo = repo
        self.max_message = max_message
        self.proc = subprocess.Popen([_git(), "--git-dir", repo, "cat-file", "--batch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=1 << 16)

    def _ask(self, spec: str) -> tuple[bytes | None, int, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline()
        parts = header.split()
        if len(parts) != 3 or parts[1] != b"blob":
            if not header:
                raise GitError(f"{self.repo}: git cat-file stopped answering")
            return None, 0, 0  # "<spec> missing"
        size = int(parts[2])
        keep = min(size, self.max_message)
        data = self.proc.stdout.read(keep)
        rest = size - keep
        while rest:
            rest -= len(self.proc.stdout.read(min(rest, 1 << 20)))
        self.proc.stdout.read(1)  # the newline after every object
        return data, size, size - keep

    def blob(self, commit: str) -> GitBlob:
        data, size, dropped = self._ask(f"{commit}:m")
        return GitBlob(commit, data, size, dropped)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


_CATFILES: dict[str, CatFile] = {}


def cat_file(repo: str) -> CatFile:
    """This process's long-lived reader for ``repo``."""
    cf = _CATFILES.get(repo)
    if cf is None or cf.proc.poll() is not None:
        cf = _CATFILES[repo] = CatFile(repo)
    return cf


@atexit.register
def _close_all() -> None:
    for cf in _CATFILES.values():
        try:
            cf.close()
        except (OSError, subprocess.TimeoutExpired):  # process already gone
            pass
    _CATFILES.clear()


def read_blobs(repo: str, commits: list[str]) -> Iterator[GitBlob]:
    reader = cat_file(repo)
    for commit in commits:
        yield reader.blob(commit)
