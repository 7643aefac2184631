"""mlx.memory: what the ingest's processes give back."""

import subprocess
import sys

from mlx import memory


def test_trim_runs_on_any_libc() -> None:
    memory.trim()  # glibc's malloc_trim, or nothing


def test_a_process_can_switch_arrow_to_the_c_library() -> None:
    """In a process of its own (the pool is process-wide), as a worker or the link pass."""
    code = ("import pyarrow as pa; from mlx import memory; memory.system_arrow_pool(); "
            "print(pa.default_memory_pool().backend_name)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.strip()
    assert out == "system"
