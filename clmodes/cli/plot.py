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

import dataclasses
import io
import textwrap
from pathlib import Path
from typing import Any

from clmodes.atomic import write_replacing
from clmodes.cli.errors import UsageError
from clmodes.cli.tune_render import unit_for
from clmodes.tune.reporting.report import parameters

EXTRA = "clmodes tune plot needs matplotlib, the 'plot' extra: pip install 'clmodes[plot]'"
FORMATS = {".png": "png", ".svg": "svg"}
WINNER, OTHERS, ROOFLINE = "#c0392b", "#2c6fad", "#555555"
PANELS_PER_ROW = 3
WIDTH_INCHES = 11.0
TICK_CHARS = 32  # a longer name is keyed ("c3") on the axis and spelt out in the key
TITLE_CHARS = 110  # 10-point text over the figure's width (about 6 points a character)
TITLE_LINE_INCHES = 0.19  # one line of the title (10 points, spaced 1.3)
KEY_CHARS = 140  # 8-point monospace (4.8 points a character) over the figure's width
LINE_INCHES = 0.14  # one line of the key (8 points, spaced 1.25)


def write_plot(details: dict[str, Any], path: Path) -> None:
    """Draw `details` (one key of `tune show --json`) to `path` (.png or .svg)."""
    image_format = _format(path)
    try:
        from matplotlib import rc_context
    except ImportError:
        raise UsageError(EXTRA) from None
    figure = figure_for(details)
    buffer = io.BytesIO()
    with rc_context({"svg.fonttype": "none"}):
        figure.savefig(buffer, format=image_format, dpi=110)
    _write(path, buffer.getvalue())


def figure_for(details: dict[str, Any]) -> Any:
    """The `matplotlib.figure.Figure` of `details`, laid out (what `write_plot` saves).

    Its height follows what it holds (candidates, key lines, parameter panels), and every
    text in it is wrapped or keyed to fit its width: a GEMM config's name is 90
    characters, and as a tick label it squeezed the candidates' panel into a corner and
    pushed the title and the winner's label off the image."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError(EXTRA) from None
    candidates = details["candidates"]
    if not candidates:
        raise UsageError(f"tunable {details['tunable']!r} key {details['key']}: no measured "
                         "candidate to plot")
    labels = labels_for(candidates)
    spaces = varying_parameters(candidates)
    rows = -(-len(spaces) // PANELS_PER_ROW)
    scale, unit = unit_for([c["median_s"] for c in candidates])
    title = _title(details, labels, scale, unit)
    top = max(2.6, 0.32 * len(candidates) + 1.0 + TITLE_LINE_INCHES * (title.count("\n") + 1))
    key = labels.key_lines() if labels.keyed else []
    heights = [top] + ([LINE_INCHES * len(key) + 0.25] if key else []) + ([3.0 * rows] if rows else [])
    figure = Figure(figsize=(WIDTH_INCHES, sum(heights)), layout="constrained")
    # Subfigures, not one grid: the candidates' labels must not shift the panels.
    parts: Any = figure.subfigures(len(heights), 1, height_ratios=heights) \
        if len(heights) > 1 else [figure]
    # The title over the whole width (not the panel's, which the tick labels narrow).
    parts[0].suptitle(title, x=0.01, ha="left", fontsize=10, linespacing=1.3)
    _candidates_panel(parts[0].add_subplot(), details, labels, scale, unit)
    if key:
        _key_panel(parts[1], key)
    if rows:
        panels = parts[-1].subplots(rows, PANELS_PER_ROW, squeeze=False).ravel()
        for axes, (parameter, values) in zip(panels, spaces.items()):
            _parameter_panel(axes, details, parameter, values, scale, unit)
        for axes in panels[len(spaces):]:
            axes.set_visible(False)
    figure.draw_without_rendering()  # constrained layout placed now, for any reader
    return figure


@dataclasses.dataclass(frozen=True)
class Labels:
    """How the candidates are named on the figure: their names when short enough for a
    tick label, else keys ("c1", "c2", ... fastest first) with a key below the panel
    giving each key's parameters that differ between the candidates shown (and, once,
    those common to all), so that no label is wider than the panel it names."""

    ticks: tuple[str, ...]
    names: tuple[str, ...]
    keyed: bool
    winner: int | None = None  # the winner's place among them
    differing: tuple[str, ...] = ()  # parameters with more than one value, in name order
    common: str = ""  # "KWG=32 VWM=1 ...": parameters every candidate has, with one value

    def key_lines(self) -> list[str]:
        """The key's lines: each key and what it stands for, wrapped to the figure."""
        width = max(len(t) for t in self.ticks)
        lines = []
        for place, (tick, candidate) in enumerate(zip(self.ticks, self._shown())):
            marked = f"{candidate}  (winner)" if place == self.winner else candidate
            lines += textwrap.wrap(marked, KEY_CHARS, initial_indent=f"{tick:<{width}}  ",
                                   subsequent_indent=" " * (width + 2)) or [tick]
        if self.common:
            lines += textwrap.wrap(self.common, KEY_CHARS, initial_indent="all: ",
                                   subsequent_indent="     ")
        return lines

    def _shown(self) -> list[str]:
        """Each candidate's part of the key: its differing parameters, or its name."""
        shown = []
        for name in self.names:
            found = parameters(name)
            differing = " ".join(f"{p}={found[p]}" for p in self.differing if p in found)
            shown.append(differing if found and differing else name)
        return shown


def labels_for(candidates: list[dict[str, Any]]) -> Labels:
    """Names as tick labels when each fits `TICK_CHARS`, else keys and a key."""
    names = tuple(c["name"] for c in candidates)
    if max(len(n) for n in names) <= TICK_CHARS:
        return Labels(names, names, keyed=False)
    ticks = tuple(f"c{i}" for i in range(1, len(names) + 1))
    varying = varying_parameters(candidates)
    order = list(dict.fromkeys(p for c in candidates for p in c["parameters"]))
    same = {p: candidates[0]["parameters"][p] for p in order if p not in varying
            and all(p in c["parameters"] for c in candidates)}
    common = " ".join(f"{p}={value}" for p, value in same.items())
    winner = next((i for i, c in enumerate(candidates) if c["winner"]), None)
    return Labels(ticks, names, keyed=True, winner=winner,
                  differing=tuple(p for p in order if p in varying), common=common)


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


def _candidates_panel(axes: Any, details: dict[str, Any], labels: Labels, scale: float,
                      unit: str) -> None:
    candidates = details["candidates"]
    for y, c in enumerate(candidates):
        color = WINNER if c["winner"] else OTHERS
        axes.hlines(y, c["min_s"] / scale, c["max_s"] / scale, color=color, linewidth=1)
        axes.hlines(y, c["q1_s"] / scale, c["q3_s"] / scale, color=color, linewidth=6,
                    alpha=0.45)
        axes.plot([c["median_s"] / scale], [y], marker="*" if c["winner"] else "o",
                  markersize=13 if c["winner"] else 6, color=color, linestyle="none")
    axes.set_yticks(range(len(candidates)),
                    [f"{tick}  (winner)" if c["winner"] else tick
                     for tick, c in zip(labels.ticks, candidates)])
    for label, c in zip(axes.get_yticklabels(), candidates):
        if c["winner"]:
            label.set_color(WINNER)
            label.set_fontweight("bold")
    axes.set_ylim(len(candidates) - 0.5, -0.5)  # fastest at the top
    if details["roofline_s"] is not None:
        bound = details["roofline_s"] / scale
        axes.axvline(bound, color=ROOFLINE, linestyle="--", linewidth=1.2)
        axes.text(bound, -0.45, f" roofline bound {bound:.3g} {unit}", color=ROOFLINE,
                  va="top", ha="left", fontsize=8, clip_on=True)
    _time_axis(axes, [c["min_s"] / scale for c in candidates]
               + [c["max_s"] / scale for c in candidates], unit, horizontal=True)
    axes.grid(axis="x", alpha=0.3)


def _key_panel(part: Any, lines: list[str]) -> None:
    """The key of a keyed figure: monospace, so that its columns line up."""
    part.text(0.01, 0.98, "\n".join(lines), va="top", ha="left", family="monospace",
              fontsize=8, linespacing=1.25)


def _title(details: dict[str, Any], labels: Labels, scale: float, unit: str) -> str:
    """The panel's title, every line whole: wrapped at `TITLE_CHARS`, never cut."""
    candidates = details["candidates"]
    place = next((i for i, c in enumerate(candidates) if c["winner"]), None)
    best = (f", median {candidates[place]['median_s'] / scale:.3g} {unit}"
            if place is not None else "")
    named = f"{labels.ticks[place]} = " if labels.keyed and place is not None else ""
    dropped = _dropped_counts(details["dropped_candidates"])
    space = f" of {details['space_size']} in the space" if details["space_size"] else ""
    lines = [f"{details['tunable']}  {details['key']}", details["model"],
             f"winner {named}{details['winner']}{best}; {details['measured']} measured{space}"
             f"{'; dropped: ' + dropped if dropped else ''}",
             "median (dot, star: the winner), IQR (thick bar), min-max (thin line)"
             + ("; keys c1, c2, ... below" if labels.keyed else "")]
    return "\n".join(wrapped for line in lines
                     for wrapped in textwrap.wrap(line, TITLE_CHARS, break_on_hyphens=False)
                     or [""])


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
