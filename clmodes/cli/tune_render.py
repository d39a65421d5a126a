"""The text of `clmodes tune ...`: views of exactly the payload `--json` prints.

Timings are device seconds in the payload; the text picks one unit per table (s, ms or
µs, from the fastest time shown) and states it in the header, so that columns line up
and a reader never guesses what "12.3" means.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from typing import Any

UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
NARROWEST = 8  # a cut column keeps at least this many characters


def unit_for(seconds: Sequence[float | None]) -> tuple[float, str]:
    """(scale, name) of the largest unit in which the fastest time is at least 1."""
    known = [s for s in seconds if s]
    fastest = min(known, default=1.0)
    for scale, name in UNITS:
        if fastest >= scale:
            return scale, name
    return UNITS[-1]


def number(seconds: float | None, scale: float) -> str:
    return "-" if seconds is None else f"{seconds / scale:.4g}"


def when(stamp: float | None) -> str:
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Columns padded to their widest cell; the last column is not padded."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    return [indent + "  ".join(f"{cell:{w}}" for cell, w in zip(row, widths)).rstrip()
            for row in (headers, *rows)]


def origin(entry: dict[str, Any]) -> str:
    if entry["origin"] == "imported":
        return f"from {entry['host']}"
    return entry["origin"]


# -- list --------------------------------------------------------------------------------


def list_text(r: dict[str, Any]) -> str:
    entries = r["entries"]
    if not entries:
        which = f" for tunable {r['tunable']!r}" if r["tunable"] else ""
        return f"no tuned keys{which} in {r['store']}"
    scale, unit = unit_for([e["winner_median_s"] for e in entries])
    keys = f"{len(entries)} tuned key{'s' if len(entries) != 1 else ''}"
    lines = [f"{keys} in {r['store']} (times: median device time, {unit})"]
    headers = ("tunable", "key", "winner", "median", "runner-up", "configs", "roofline",
               "grade", "from", "when")
    columns = shutil.get_terminal_size(fallback=(0, 0)).columns  # 0: not a terminal
    for model in sorted({e["model"] for e in entries}):
        lines.append(model)
        rows = [_list_row(e, scale) for e in entries if e["model"] == model]
        lines.extend(table(*fitted(headers, rows, columns, cut=(1, 2, 4, 0))))
        lines.extend(_not_chosen_lines([e for e in entries if e["model"] == model], scale, unit))
    return "\n".join(lines)


def _not_chosen_lines(entries: list[dict[str, Any]], scale: float, unit: str) -> list[str]:
    """A line under the table for each runner-up faster by median than its winner (its
    cell starts with "* "): why it was not chosen, from the record's final."""
    lines = []
    for e in entries:
        note = e.get("runner_up_not_chosen")
        if note:
            lines.append(f"  * {e['tunable']} {e['key']}: runner-up {e['runner_up']} "
                         f"{number(e['runner_up_median_s'], scale)} {unit} ({note['text']})")
    return lines


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], columns: int,
           cut: Sequence[int], indent: str = "  ") -> tuple[list[str], list[list[str]]]:
    """Headers and rows whose table lines fit `columns` (0: any width): the widest of the
    `cut` columns loses characters first, its cells ending in an ellipsis; `--json`
    has every value whole."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    excess = len(indent) + sum(widths) + 2 * (len(widths) - 1) - columns if columns else 0
    while excess > 0:
        widest = max(cut, key=lambda i: widths[i])
        if widths[widest] <= NARROWEST:
            break
        widths[widest] -= 1
        excess -= 1

    def clip(row: Sequence[str]) -> list[str]:
        return [c if len(c) <= w else c[:w - 1] + "…" for c, w in zip(map(str, row), widths)]
    return clip(headers), [clip(row) for row in rows]


def _list_row(e: dict[str, Any], scale: float) -> list[str]:
    runner = "-"
    if e["runner_up"] is not None:
        ratio = e["runner_up_ratio"]
        marked = "* " if e.get("runner_up_not_chosen") else ""  # first: a cut keeps it
        runner = marked + e["runner_up"] + (f" ({ratio - 1:+.1%})" if ratio is not None else "")
    configs = f"{e['measured']}/{e['configs']}"
    roofline = "-" if e["roofline"] is None else f"{e['roofline']:.0%}"
    return [e["tunable"], e["key"], e["winner"], number(e["winner_median_s"], scale), runner,
            configs, roofline, grade(e), origin(e), when(e["measured_at"])]


def grade(entry: dict[str, Any]) -> str:
    """exact, family, vendor or across; then what timing it here found (`tune.answers.verify`):
    "family, verified here", or "exact, re-tuned here (was family)"."""
    verified = entry.get("verified") or {}
    if verified.get("outcome") == "kept":
        return f"{entry['grade']}, verified here"
    if verified.get("outcome") == "re-tuned":
        return f"{entry['grade']}, re-tuned here (was {verified.get('was')})"
    return entry["grade"]


# -- show --------------------------------------------------------------------------------


def show_text(r: dict[str, Any]) -> str:
    if not r["keys"]:
        return "no readable tune entry selected (see the warnings above)"
    return "\n\n".join(_key_text(k) for k in r["keys"])


def _key_text(k: dict[str, Any]) -> str:
    candidates = k["candidates"]
    scale, unit = unit_for([c["median_s"] for c in candidates])
    tuned = f"tuned in {k['tune_seconds']:.3g} s" if k["tune_seconds"] is not None else "tuned"
    space = f" of a space of {k['space_size']}" if k["space_size"] else ""
    lines = [
        f"{k['tunable']} {k['key']}",
        f"  device: {k['device'] or k['model']}",
        f"  winner: {k['winner']}; {k['measured']} candidates measured, {k['dropped']} dropped"
        f"{space}; {tuned} on {when(k['measured_at'])} ({_origin_long(k)})",
        f"  times in {unit}: device time from profiling events; {k['statistic']} of the "
        f"samples, spread min-max and Q1-Q3",
    ]
    rows = [_candidate_row(c, scale) for c in candidates]
    lines.extend(table(("", "candidate", k["statistic"], "min-max", "Q1-Q3", "samples",
                        "roofline"), rows))
    if k["roofline_s"] is not None:
        lines.append(f"  roofline bound: {number(k['roofline_s'], scale)} {unit} "
                     f"({k['cost']['bytes_moved']:.4g} bytes, {k['cost']['flops']:.4g} FLOPs)")
    if k["grade"] != "exact":
        lines.append(f"  answer graded {grade(k)}: measured on {', '.join(k['graded_from'])}")
    if k["final"]:
        lines.append(f"  decided by a final of {k['final']['rounds']} paired rounds between "
                     f"{len(k['final']['order'])} finalists (lowest median of paired ratios)")
    if k["runner_up_not_chosen"]:
        lines.append(f"  runner-up {k['runner_up']}: {k['runner_up_not_chosen']['text']}")
    if k["verified"]:
        lines.append("  " + _verified_line(k["verified"]))
    if k["inputs_replaced"]:
        lines.append("  measured on uniform values instead of unwritten memory: "
                     + "; ".join(k["inputs_replaced"]))
    if k["check"]:
        lines.append(_check_line(k))
    if k["dropped_candidates"]:
        lines.append("  dropped:")
        lines.extend(table(("candidate", "why"),
                           [(d["name"], d["summary"]) for d in k["dropped_candidates"]],
                           indent="    "))
    return "\n".join(lines)


def _verified_line(v: dict[str, Any]) -> str:
    """What timing an answer here found: its winner against its runner-up, and so what."""
    def seconds(value: object) -> str:
        return f"{value:.3g} s" if isinstance(value, (int, float)) else "-"
    return (f"timed here ({v.get('was')}): {v.get('winner')!r} {seconds(v.get('winner_s'))}, "
            f"runner-up {v.get('runner_up')!r} {seconds(v.get('runner_up_s'))}: "
            f"{'kept' if v.get('kept') else 're-tuned here'}")


def _check_line(k: dict[str, Any]) -> str:
    """What the output check did: its reference, how many it dropped, what it cost."""
    check = k["check"]
    wrong = sum(1 for d in k["dropped_candidates"] if d["kind"] == "wrong")
    cost = (f"; {check['candidates']} runs, {check['seconds']:.3g} s, "
            f"{check['bytes_copied'] / 2**20:.3g} MiB copied"
            if None not in (check["candidates"], check["seconds"], check["bytes_copied"]) else "")
    return (f"  outputs checked against {check['reference']!r}: {wrong} dropped as wrong{cost}")


def _candidate_row(c: dict[str, Any], scale: float) -> list[str]:
    discarded = f" (+{c['discarded_samples']} discarded)" if c["discarded_samples"] else ""
    return ["*" if c["winner"] else "", c["name"], number(c["median_s"], scale),
            f"{number(c['min_s'], scale)}-{number(c['max_s'], scale)}",
            f"{number(c['q1_s'], scale)}-{number(c['q3_s'], scale)}",
            f"{c['samples']}{discarded}"
            + (f" x{c['runs_per_sample']} runs" if c["runs_per_sample"] > 1 else ""),
            "-" if c["roofline"] is None else f"{c['roofline']:.0%}"]


def _origin_long(k: dict[str, Any]) -> str:
    if k["origin"] == "here":
        return f"measured here, {k['host']}"
    if k["origin"] == "imported":
        return f"measured on {k['host']}, imported"
    return "where it was measured is not recorded"


# -- plot and forget ---------------------------------------------------------------------


def plot_text(r: dict[str, Any]) -> str:
    return f"wrote {r['file']}: {r['tunable']} {r['key']} (winner {r['winner']})"


def forget_text(r: dict[str, Any]) -> str:
    lines = [f"forgot {r['deleted']} tune entries in {r['store']}; they are tuned again "
             "at their next call"]
    lines.extend(f"  {e['tunable']} {e['key']} on {e['model']}" for e in r["entries"])
    return "\n".join(lines)
