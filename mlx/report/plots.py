"""Plots of claims and hardware; each returns a matplotlib Figure (nothing is shown)."""

from __future__ import annotations

from typing import Any, Literal

import pandas as pd

from mlx.report.show import claim_label

# Okabe-Ito colours, told apart with any colour vision: improvement blue, regression
# vermillion, no change grey; baseline bars are light grey and hatched, so they differ
# from the patched bar of any verdict by pattern as well as by colour
COLORS = {"improvement": "#0072B2", "regression": "#D55E00", "no-change": "#7F7F7F"}
BASELINE = "#D9D9D9"


def _figure(width: float = 8.0, height: float = 4.5,
            layout: Literal["constrained"] | None = "constrained") -> Any:
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state
    return Figure(figsize=(width, height), layout=layout)


def _nothing(fig: Any, ax: Any, message: str) -> Any:
    """An empty plot that says why it is empty."""
    ax.text(0.5, 0.5, message, ha="center", va="center")
    ax.set_axis_off()
    return fig


def _short(text: Any, n: int = 60) -> str:
    s = "" if text is None or (isinstance(text, float) and pd.isna(text)) else str(text)
    return s if len(s) <= n else s[: n - 1] + "…"


def _line(n: Any) -> str:
    return str(int(n)) if n is not None and not pd.isna(n) else "?"


def patch_bars(claims: pd.DataFrame, patch: str) -> Any:
    """Baseline vs patched bars per test of one patch (patch_id or a title substring)."""
    c = claims[claims.kind == "measured"]
    c = c[(c.patch_id == patch) | c.title.fillna("").str.contains(patch, regex=False)]
    # margins set by hand, not by a constrained layout (it draws each figure twice: a
    # report draws hundreds): names at the left, the legend at the right
    height = 1.2 + 0.45 * max(len(c), 1)
    fig = _figure(9, height, layout=None)
    names = [claim_label(r) for r in c.itertuples()]
    # bars of one name (a heading that tells no run apart) by the line they came from
    names = [_short(n if names.count(n) == 1 else
                    f"{claim_label(r, section=False)}, line {_line(r.patched_line_no)}", 48)
             for n, r in zip(names, c.itertuples(), strict=True)]
    left = min(0.42, 0.04 + 0.0082 * max(map(len, names), default=0))
    fig.subplots_adjust(left=left, right=0.76, top=1 - 0.4 / height, bottom=0.5 / height)
    ax = fig.add_subplot()
    if c.empty:
        return _nothing(fig, ax, f"no measured claims for {patch!r}")
    y = range(len(c))
    ax.barh([i + 0.2 for i in y], c.baseline_value, height=0.4, color=BASELINE,
            edgecolor="#555555", hatch="///", linewidth=0.6, label="baseline")
    ax.barh([i - 0.2 for i in y], c.patched_value, height=0.4,
            color=[COLORS.get(str(v), "#56B4E9") for v in c.verdict], edgecolor="#222222",
            linewidth=0.6, label="patched (colour: verdict)")
    for i, r in zip(y, c.itertuples(), strict=True):
        ax.text(max(r.baseline_value, r.patched_value), i, f"  {r.delta_pct:+.1f}%",
                va="center", fontsize=8)
    ax.set_yticks(list(y), names, fontsize=8)
    ax.invert_yaxis()
    unit = c.unit_norm.dropna().iloc[0] if c.unit_norm.notna().any() else ""
    ax.set_xlabel(unit)
    ax.set_title(_short(c.title.iloc[0], 80), fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    ax.margins(x=0.15)
    return fig


def delta_histogram(claims: pd.DataFrame) -> Any:
    """Distribution of measured deltas, coloured by verdict."""
    c = claims[(claims.kind == "measured") & claims.delta_pct.notna()]
    fig = _figure()
    ax = fig.add_subplot()
    if c.empty:
        return _nothing(fig, ax, "no measured claims")
    clipped = c.delta_pct.clip(-100, 200)
    for v, color in COLORS.items():
        sel = clipped[c.verdict == v]
        if len(sel):
            ax.hist(sel, bins=40, range=(-100, 200), color=color, alpha=0.85,
                    label=f"{v} ({len(sel)})")
    ax.set_xlabel("delta, % (clipped to -100..200)")
    ax.set_ylabel("claims")
    ax.set_title("Measured before/after deltas")
    ax.legend(fontsize=8)
    return fig


def claims_over_time(claims: pd.DataFrame, title: str = "Claims over time") -> Any:
    """Measured claims by date, coloured (and shaped) by verdict."""
    c = claims[(claims.kind == "measured") & claims.date.notna() & claims.delta_pct.notna()]
    fig = _figure()
    ax = fig.add_subplot()
    if c.empty:
        return _nothing(fig, ax, "no dated claims")
    for (v, color), marker in zip(COLORS.items(), ("^", "v", "o"), strict=True):
        sel = c[c.verdict == v]
        if len(sel):
            ax.scatter(sel.date.dt.tz_convert(None), sel.delta_pct.clip(-100, 200), s=18,
                       color=color, marker=marker, label=v)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel("delta, %")
    ax.set_title(_short(title, 90))
    ax.legend(fontsize=8)
    fig.autofmt_xdate()
    return fig


def hardware_mix(hardware: pd.DataFrame, top: int = 12) -> Any:
    """The CPUs and NICs most often named as a test setup."""
    if "role" in hardware.columns:
        hardware = hardware[hardware.role.fillna("setup") == "setup"]
    fig = _figure(9, 5)
    axes = fig.subplots(1, 2)
    for ax, kind in zip(axes, ("cpu", "nic"), strict=True):
        counts = hardware[hardware.kind == kind].value.value_counts().head(top)
        if counts.empty:
            ax.text(0.5, 0.5, f"no {kind}", ha="center", va="center")
            ax.set_axis_off()
            continue
        ax.barh([_short(i, 34) for i in counts.index], counts.values, color="#0072B2")
        ax.invert_yaxis()
        ax.set_title(f"{kind.upper()} named", fontsize=10)
        ax.tick_params(axis="y", labelsize=7)
    return fig
