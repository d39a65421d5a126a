"""Time-to-quality curves as a picture for `docs/benchmarks.md` (the `plot` extra).

One PNG per curve (a benchmark's space on one device): each strategy's median best so far
over the best known against seconds since the tune started, on a log time axis (the first
result comes in about a second, the budget is minutes), with the 1.05 line the time to
quality is read at. Without matplotlib nothing is drawn and the page keeps its tables,
which hold the same numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

CEILING = 2.0  # the top of the y axis: a median past it is drawn at it


def file_name(bench: str, device: str, title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower().split("(")[0]).strip("-") or "curve"
    return f"{bench}-{device}-{slug}.png"


def draw(curve: dict, path: Path) -> bool:
    """Write `curve` to `path`; False (nothing written) without matplotlib. A median of
    None (most seeds with no rated best yet) is drawn at the ceiling."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(7, 4))
    moments = curve["moments_s"]
    for name, line in curve["lines"].items():
        values = [CEILING if v is None else min(v, CEILING)
                  for v in line["median_incumbent_vs_best"]]
        style = "-" if name.startswith("clmodes:") else "--"
        axes.plot(moments, values, style, marker="o", markersize=3, label=name)
    axes.axhline(curve.get("within", 1.05), color="grey", linewidth=0.8)
    axes.set_xscale("log")
    axes.set_ylim(0.95, CEILING + 0.05)
    axes.set_xlabel("seconds since the tune started")
    axes.set_ylabel("median best so far / best known")
    axes.set_title(curve.get("title", ""), fontsize=9)
    axes.legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=100)
    plt.close(figure)
    return True
