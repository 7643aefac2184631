import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SEEDS = ROOT / "data" / "seeds"
CORPUS = Path(os.environ.get("MLX_CORPUS", ROOT.parent / "shared" / "corpus"))


@pytest.fixture
def data() -> Path:
    return DATA


def corpus_path(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus not present: {path}")
    return path
