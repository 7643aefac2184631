"""Threading speed on synthetic header rows (default 1,000,000).

    python benchmarks/threads.py [N]

Builds N messages in threads of 1-40 replies (each reply names a random
earlier message of its thread as parent, with the full References chain), 2%
of parents missing (ghosts), 0.1% duplicate Message-IDs and a few reference
loops, then times the per-message threading of ``tests/link_reference.py`` on them (the
rule ``mlx.link.threads`` states; the link pass threads on columns). Target: seconds, not
minutes.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from link_reference import ThreadInput, thread  # noqa: E402  (the per-message oracle)

from mlx.link.threads import thread_refs  # noqa: E402


def synthetic(n: int, seed: int = 1) -> ThreadInput:
    rnd = random.Random(seed)
    uid, mid, date, irt, refs, addrs = [], [], [], [], [], []
    chains: list[list[str]] = []
    i = 0
    while i < n:
        size = rnd.randint(1, 40)
        chains = []
        for j in range(min(size, n - i)):
            m = f"m{i}@example.org" if rnd.random() > 0.001 else f"m{i - 1}@example.org"
            if j == 0:
                chain: list[str] = []
            else:
                chain = chains[rnd.randrange(len(chains))] + [mid[-rnd.randint(1, j)]]
                if rnd.random() < 0.02:
                    chain = chain[:-1] + [f"gone{i}@example.org"]
            uid.append(f"u{i}")
            mid.append(m)
            date.append(float(i))
            irt.append(chain[-1:])
            refs.append(chain[-20:])
            addrs.append({"a@example.org"})
            chains.append(chain)
            i += 1
    # a few loops: a message whose parent names it back
    for k in range(0, n - 1, max(1, n // 50)):
        irt[k] = [mid[k + 1]]
    return ThreadInput(uid, mid, date, [thread_refs(i, r, m, a) for i, r, m, a
                                        in zip(irt, refs, mid, addrs, strict=True)])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    t = time.perf_counter()
    inp = synthetic(n)
    built = time.perf_counter() - t
    t = time.perf_counter()
    out = thread(inp)
    secs = time.perf_counter() - t
    print(f"{n:,} messages (built in {built:.1f}s): threaded in {secs:.1f}s "
          f"({n / secs:,.0f} msg/s), {len(out.threads):,} threads, max depth {max(out.depth)}")


if __name__ == "__main__":
    main()
