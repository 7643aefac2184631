import shutil
import subprocess
from pathlib import Path

import pytest

import mlx

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(["git", "--git-dir", str(repo), *args], input=input, env=env,
                         capture_output=True, check=True)
    return out.stdout.decode().strip()


def commit(repo: Path, name: str, data: bytes) -> str:
    """One public-inbox v2 commit: a tree holding only blob ``name``."""
    blob = git(repo, "hash-object", "-w", "--stdin", input=data)
    tree = git(repo, "mktree", input=f"100644 blob {blob}\t{name}\n".encode())
    parent = git(repo, "rev-parse", "-q", "--verify", "HEAD") if has_head(repo) else ""
    args = ["commit-tree", tree, "-m", "msg"] + (["-p", parent] if parent else [])
    sha = git(repo, *args)
    git(repo, "update-ref", "HEAD", sha)
    return sha


def has_head(repo: Path) -> bool:
    return subprocess.run(["git", "--git-dir", str(repo), "rev-parse", "-q", "--verify", "HEAD"],
                          capture_output=True).returncode == 0


def mail(i: int) -> bytes:
    return (f"From: a{i}@example.org\nSubject: m{i}\nMessage-ID: <m{i}@example.org>\n"
            f"Date: Mon, 1 Jan 2024 00:00:0{i} +0000\n\nbody {i}\n").encode()


@pytest.fixture
def inbox(tmp_path: Path) -> Path:
    repo = tmp_path / "inbox" / "git" / "0.git"
    repo.parent.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    return repo


def test_epoch_blobs_and_deletions(inbox: Path, tmp_path: Path) -> None:
    shas = [commit(inbox, "m", mail(i)) for i in range(3)]
    commit(inbox, "d", mail(1))  # public-inbox records a deletion as blob "d"
    store = str(tmp_path / "store")
    report = mlx.ingest([str(inbox.parent.parent)], store=store, workers=1)
    assert (report.raw, report.stored, report.deleted) == (3, 3, 1)
    msgs = mlx.load(store).messages.sort_values("subject")
    assert list(msgs.subject) == ["m0", "m1", "m2"]
    assert list(msgs.commit) == shas
    assert msgs.offset.isna().all()

    # new commits: only they are read
    commit(inbox, "m", mail(4))
    again = mlx.ingest([str(inbox)], store=store, workers=1)
    assert (again.raw, again.stored) == (1, 1)
    assert mlx.ingest([str(inbox)], store=store).raw == 0


def test_git_chunks_are_few_on_big_epochs_and_of_500_commits_on_small_ones() -> None:
    from mlx.ingest.chunks import git_batch
    assert [git_batch(n) for n in (10, 1_941, 10_000, 39_402, 394_020)] == \
        [500, 500, 1_250, 2_000, 2_000]
