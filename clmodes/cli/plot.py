"""`clmodes tune plot`: one tune entry's candidates as a PNG or SVG (matplotlib).

matplotlib is the optional extra `plot`: it is imported by this verb only, and its
absence is one line naming the extra. The figure is drawn from the payload `tune show
--json` prints for the key (like the text views, never a second source of numbers):

- every measured candidate, fastest first: its median, its IQR (thick) and min-max
  (thin), the winner marked, the roofline bound as a line when the record has a cost
  (a probe was cached when it was tuned);
- for a tuning space (candidate names that read as configurations, "TILE=16,WPT=4
  local=16x4"), one more panel per parameter that varies: each candidate's median
  against that parameter's value.

`matplotlib.figure.Figure` is used without pyplot: no GUI backend, no global figure
state. SVG keeps its text as text (`svg.fonttype: none`), so the names in it can be
searched and read by tests; the image is rendered to memory first and written beside the
target and renamed, so a failed plot leaves an existing file as it was.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from clmodes.atomic import write_replacing
from clmodes.cli.errors import UsageError
from clmodes.cli.tune_render import unit_for

EXTRA = "clmodes tune plot needs matplotlib, the 'plot' extra: pip install 'clmodes[plot]'"
FORMATS = {".png": "png", ".svg": "svg"}
WINNER, OTHERS, ROOFLINE = "#c0392b", "#2c6fad", "#555555"
PANELS_PER_ROW = 3


def write_plot(details: dict[str, Any], path: Path) -> None:
    """Draw `details` (one key of `tune show --json`) to `path` (.png or .svg)."""
    image_format = _format(path)
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(EXTRA) from None
    if not details["candidates"]:
        raise UsageError(f"tunable {details['tunable']!r} key {details['key']}: no measured "
                         "candidate to plot")
    spaces = varying_parameters(details["candidates"])
    rows = -(-len(spaces) // PANELS_PER_ROW)
    top = max(2.6, 0.32 * len(details["candidates"]) + 1.9)
    figure = Figure(figsize=(11, top + 3.0 * rows), layout="constrained")
    # Subfigures, not one grid: the candidates' long names must not shift the panels.
    parts: Any = figure.subfigures(2, 1, height_ratios=[top, 3.0 * rows]) if rows else [figure]
    scale, unit = unit_for([c["median_s"] for c in details["candidates"]])
    _candidates_panel(parts[0].add_subplot(), details, scale, unit)
    if rows:
        panels = parts[1].subplots(rows, PANELS_PER_ROW, squeeze=False).ravel()
        for axes, (parameter, values) in zip(panels, spaces.items()):
            _parameter_panel(axes, details, parameter, values, scale, unit)
        for axes in panels[len(spaces):]:
            axes.set_visible(False)
    buffer = io.BytesIO()
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format=image_format, dpi=110)
    _write(path, buffer.getvalue())


def _format(path: Path) -> str:
    image_format = FORMATS.get(path.suffix.lower())
    if image_format is None:
        raise UsageError(f"{path}: tune plot writes .png or .svg, not "
                         f"{path.suffix or 'a name without a suffix'}")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; name the image file to write")
    if not path.parent.is_dir():
        raise UsageError(f"{path}: the folder {path.parent} does not exist")
    return image_format


def varying_parameters(candidates: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Parameter -> its values in order (numbers numerically), for every parameter with
    two or more values among the candidates; {} when the names are not configurations."""
    values: dict[str, set[str]] = {}
    for candidate in candidates:
        for parameter, value in candidate["parameters"].items():
            values.setdefault(parameter, set()).add(value)
    return {p: sorted(v, key=_order) for p, v in values.items() if len(v) > 1}


def _order(value: str) -> tuple[int, float, str]:
    """Numbers first and numerically ("8" before "16"), then "8x8" by its first number,
    then words."""
    head = value.split("x", 1)[0]
    try:
        return (0, float(head), value)
    except ValueError:
        return (1, 0.0, value)


def _candidates_panel(axes: Any, details: dict[str, Any], scale: float, unit: str) -> None:
    candidates = details["candidates"]
    for y, c in enumerate(candidates):
        color = WINNER if c["winner"] else OTHERS
        axes.hlines(y, c["min_s"] / scale, c["max_s"] / scale, color=color, linewidth=1)
        axes.hlines(y, c["q1_s"] / scale, c["q3_s"] / scale, color=color, linewidth=6,
                    alpha=0.45)
        axes.plot([c["median_s"] / scale], [y], marker="*" if c["winner"] else "o",
                  markersize=13 if c["winner"] else 6, color=color, linestyle="none")
    axes.set_yticks(range(len(candidates)),
                    [f"{c['name']}  (winner)" if c["winner"] else c["name"] for c in candidates])
    for label, c in zip(axes.get_yticklabels(), candidates):
        if c["winner"]:
            label.set_color(WINNER)
            label.set_fontweight("bold")
    axes.set_ylim(len(candidates) - 0.5, -0.5)  # fastest at the top
    if details["roofline_s"] is not None:
        bound = details["roofline_s"] / scale
        axes.axvline(bound, color=ROOFLINE, linestyle="--", linewidth=1.2)
        axes.text(bound, -0.45, f" roofline bound {bound:.3g} {unit}", color=ROOFLINE,
                  va="top", ha="left", fontsize=8)
    _time_axis(axes, [c["min_s"] / scale for c in candidates]
               + [c["max_s"] / scale for c in candidates], unit, horizontal=True)
    axes.grid(axis="x", alpha=0.3)
    axes.set_title(_title(details, scale, unit), loc="left", fontsize=10)


def _title(details: dict[str, Any], scale: float, unit: str) -> str:
    winner = next(c for c in details["candidates"] if c["winner"]) \
        if any(c["winner"] for c in details["candidates"]) else None
    best = f", median {winner['median_s'] / scale:.3g} {unit}" if winner else ""
    dropped = _dropped_counts(details["dropped_candidates"])
    space = f" of {details['space_size']} in the space" if details["space_size"] else ""
    return (f"{details['tunable']}  {details['key']}\n{details['model']}\n"
            f"winner {details['winner']}{best}; {details['measured']} measured{space}"
            f"{'; dropped: ' + dropped if dropped else ''}\n"
            "median (dot, star: the winner), IQR (thick bar), min-max (thin line)")


def _dropped_counts(dropped: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for d in dropped:
        counts[d["kind"]] = counts.get(d["kind"], 0) + 1
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))


def _parameter_panel(axes: Any, details: dict[str, Any], parameter: str, values: list[str],
                     scale: float, unit: str) -> None:
    position = {value: index for index, value in enumerate(values)}
    at: dict[str, list[dict[str, Any]]] = {}
    for c in details["candidates"]:
        if parameter in c["parameters"]:
            at.setdefault(c["parameters"][parameter], []).append(c)
    times = []
    for value, group in at.items():
        # Spread candidates sharing a value side by side: their bars would hide each other.
        # Narrowly, so that each stays over its own value's tick.
        width = min(0.5, 0.1 * (len(group) - 1))
        offsets = [0.0] if len(group) == 1 else [
            -width / 2 + width * i / (len(group) - 1) for i in range(len(group))]
        for offset, c in zip(offsets, group):
            x, color = position[value] + offset, WINNER if c["winner"] else OTHERS
            axes.vlines(x, c["q1_s"] / scale, c["q3_s"] / scale, color=color, linewidth=3,
                        alpha=0.45)
            axes.plot([x], [c["median_s"] / scale], marker="*" if c["winner"] else "o",
                      markersize=12 if c["winner"] else 5, color=color, linestyle="none")
            times += [c["q1_s"] / scale, c["q3_s"] / scale]
    axes.set_xticks(range(len(values)), values)
    axes.set_xlim(-0.5, len(values) - 0.5)
    axes.set_xlabel(parameter)
    _time_axis(axes, times, unit, horizontal=False)
    axes.grid(axis="y", alpha=0.3)
    axes.set_title(f"median and IQR against {parameter}", fontsize=9)


def _time_axis(axes: Any, times: list[float], unit: str, horizontal: bool) -> None:
    """Label the time axis; logarithmic when the times span more than 20x."""
    label = f"device time per call ({unit})"
    positive = [t for t in times if t > 0]
    log = bool(positive) and max(positive) > 20 * min(positive)
    if horizontal:
        axes.set_xlabel(label)
        if log:
            axes.set_xscale("log")
    else:
        axes.set_ylabel(label)
        if log:
            axes.set_yscale("log")


def _write(path: Path, data: bytes) -> None:
    try:
        write_replacing(path, data)
    except OSError as error:
        raise UsageError(f"{path}: cannot write ({error.strerror or error})") from error
