"""The notebook runs top to bottom in a fresh kernel, so it never rots."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "explore.ipynb"


def test_notebook_runs() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                   for o in outputs)
    assert "6 raw messages, 6 stored, 0 errors" in text
    assert "improvement" in text
    assert "mean_delta_pct" in text  # the SQL query ran
    assert "wireguard.lists.zx2c4.com" in text  # claims per list
    # the plots came out as images
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 3
