"""The kernel test robot's comparison tables: the ``%stddev %change %stddev`` table of an
LKP report, one statement per metric with the base and head values, the change in
percent and the two commits compared."""

from __future__ import annotations

import re

from mlx.rows import Statement

# a5b1a8c1e5ae7ddc 8b27dae5a22b6d98bd1b7f9e2e6
ROBOT_COMMITS = re.compile(r"^[ \t]*([0-9a-f]{10,40})[ \t]+([0-9a-f]{10,40})[ \t]*$")
ROBOT_HEADER = re.compile(r"%stddev[ \t]+%change[ \t]+%stddev")
#      10455           -25.7%       7768        netperf.Throughput_Mbps
#      10455 ±  2%     -25.7%       7768 ±  3%  netperf.Throughput_Mbps
ROBOT_ROW = re.compile(
    r"^[ \t]*(\d{1,15}(?:\.\d{1,6})?(?:e[-+]?\d{1,3})?)(?:[ \t]*±[ \t]*\d{1,4}%)?[ \t]+"
    r"([-+]\d{1,6}(?:\.\d{1,3})?)%[ \t]+(\d{1,15}(?:\.\d{1,6})?(?:e[-+]?\d{1,3})?)"
    r"(?:[ \t]*±[ \t]*\d{1,4}%)?[ \t]+([\w.:/-]{1,120})[ \t]*$")



def robot_rows(body: str) -> list[Statement]:
    """One statement per row of each comparison table of a robot's report."""
    lines = body.split("\n")
    out: list[Statement] = []
    commits: tuple[str, str] | None = None
    in_table = False
    for i, line in enumerate(lines):
        if m := ROBOT_COMMITS.match(line):
            commits = (m.group(1), m.group(2))
        elif ROBOT_HEADER.search(line):
            in_table = True
        elif in_table and (m := ROBOT_ROW.match(line)):
            pct = float(m.group(2))
            out.append(Statement(
                "robot", line.strip()[:500], pct, None, metric=m.group(4),
                baseline_value=float(m.group(1)), patched_value=float(m.group(3)),
                base_commit=commits[0] if commits else None,
                head_commit=commits[1] if commits else None, line_no=i + 1))
        elif in_table and not line.strip():
            in_table = False
    return out
