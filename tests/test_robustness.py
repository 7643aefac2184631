"""benchmarks/robustness.py on the corpus archives up to 20 MB (issue 32): every one
ingests with exit status 0 as a whole ``mlx ingest`` command, alone and all in one store,
and every Message-ID it holds is stored or at the offset of an ``errors`` row."""

import importlib.util
import sys

import pytest
from conftest import CORPUS, ROOT


def test_every_small_corpus_archive_ingests_and_loses_nothing(tmp_path, capsys) -> None:
    if not (CORPUS / "candidates").is_dir():
        pytest.skip(f"corpus not present: {CORPUS}")
    spec = importlib.util.spec_from_file_location("robustness",
                                                  ROOT / "benchmarks" / "robustness.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["robustness"] = module
    spec.loader.exec_module(module)
    status = module.main(["--small", "--work", str(tmp_path)])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.endswith(" ok")]
    assert status == 0, out
    # each small archive, the smaller half and all in one store
    assert len(rows) == len(module.archives(CORPUS, small=True)) + 2, out
    assert all(line.split()[-2] == "0" for line in rows), out  # no Message-ID lost
