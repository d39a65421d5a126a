"""Everything the command prints: `--json` for scripts, text for people.

Verbs build a plain payload (the JSON a script reads) and hand it here with the text
renderer that goes with it, so that the text is always a view of exactly what `--json`
would print, never a second source of numbers. Renderers are pure functions of the
payload: no library calls, no device access.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

Payload = Any


def emit(as_json: bool, payload: Payload, text: Callable[[Payload], str]) -> None:
    """Print `payload` as indented JSON or as `text(payload)`; the one print of a verb."""
    print(json.dumps(payload, indent=2) if as_json else text(payload))


# -- devices ---------------------------------------------------------------------------


def devices_text(rows: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"[{r['index']}] {r['label']}{'' if r.get('usable', True) else '  (UNUSABLE)'}\n"
        f"    model: {r['model']}\n    exact: {r['exact']}"
        + f"\n    pyopencl: PYOPENCL_CTX={r['pyopencl_ctx']}"
        + ("" if r.get("usable", True)
           else f"\n    unusable: {r['reason']}\n    remedy: {r['remedy']}")
        for r in rows
    )


# -- warm and demo ---------------------------------------------------------------------


def warm_text(r: dict[str, Any]) -> str:
    c = r["compilation"]
    return (
        f"warmed {r['workload']} on {', '.join(r['devices']) or 'no device'} "
        f"in {r['seconds']} s\n"
        f"  kernels: {c['compiled']} compiled, {c['loaded']} loaded, in {c['builds']} build(s)\n"
        f"  autotune: {r['autotune']['keys']} keys tuned\n"
        + _reads_line(r.get("reads", {}).get("discarded", 0))
        + _outside_line(r.get("outside"))
        + _offline_lines(r.get("offline"))
        + f"  store: {r['store']}"
    )


def _offline_lines(found: dict[str, Any] | None) -> str:
    if not found:
        return ""
    return (f"  offline: {found['batches']} batches built by ocloc {found['compiler_version']} "
            f"for {', '.join(found['families'])}: {found['binaries']} binaries in "
            f"{found['offline_s']} s (the local warm: {found['local_warm_s']} s); "
            "built offline, not loaded on a real device here\n"
            + "".join(f"  offline: {line}\n" for line in found.get("refused", [])))


def _reads_line(count: int) -> str:
    if not count:
        return ""
    return (f"  reads: the workload read device memory {count} time(s) while launches were "
            "dropped (those values are meaningless; see the README's warmable workloads)\n")


def _outside_line(found: dict[str, Any] | None) -> str:
    """Kernels that ran outside clmodes during the warm, named (nothing if none)."""
    if not found or not found.get("kernels"):
        return ""
    names = ", ".join(found["names"][:8]) + (", ..." if len(found["names"]) > 8 else "")
    return (f"  outside clmodes: {found['kernels']} kernels ({names}): pyopencl programs on a "
            "context clmodes does not manage, not gathered, not persisted\n")


def demo_text(r: dict[str, Any]) -> str:
    c0 = r["after_compile_only"]["compilation"]
    c1 = r["after_compile_and_autotune"]["compilation"]
    return (
        f"device: {r['device']}\n"
        f"COMPILE_ONLY pass:         {c0['kernels']} kernels obtained, {c0['builds']} builds\n"
        f"COMPILE_AND_AUTOTUNE pass: {c1['kernels']} kernels obtained "
        f"({c1['compiled']} compiled, {c1['loaded']} loaded), {c1['builds']} build(s)\n"
        f"EXECUTE pass result correct: {r['result_ok']}  ({r['seconds']} s)"
    )


# -- cache -----------------------------------------------------------------------------


def cache_info_text(info: dict[str, Any]) -> str:
    read_only = ", read-only: this process's writes stay in memory" if info.get("read_only") else ""
    lines = [f"store: {info['location']} ({info['bytes']} bytes{read_only})",
             f"size: {info['entry_bytes']} bytes of entries, {_cap_text(info)}"]
    if not info["devices"]:
        lines.append("  (empty)")
    for model, entry in info["devices"].items():
        lines.extend(_cache_model_lines(model, entry))
    if info.get("remote"):
        lines.append(_remote_line(info["remote"]))
    return "\n".join(lines)


def _remote_line(r: dict[str, Any]) -> str:
    reach = (f"reachable ({r['round_trip_s'] * 1000:.1f} ms)" if r["reachable"]
             else "unreachable (runs use the local store only)")
    came = r["from_remote"]
    return (f"remote: {r['url']}, {reach}; in this store from it: {came['tune_results']} tune "
            f"results, {came['binaries']} program binaries; {r['trusted_keys']} trusted key(s)")


def _cache_model_lines(model: str, entry: dict[str, Any]) -> list[str]:
    lines = [f"  {model}",
             f"    tune results: {entry['tune_results']} ({entry['tune_bytes']} bytes)"]
    if entry.get("probe_results"):
        lines.append(f"    throughput probe: {entry['probe_results']}")
    for exact, driver in entry["drivers"].items():
        lines.append(f"    {_driver_part(exact, model)}")
        lines.append(
            f"      program binaries: {driver['binaries']} ({driver['binary_bytes']} bytes)"
            f", kernels indexed: {driver['kernels']}"
        )
    return lines


def _cap_text(info: dict[str, Any]) -> str:
    if info.get("max_size_error"):
        return f"no cap ({info['max_size_error']})"
    if info.get("max_size") is None:
        return "no cap ($CLMODES_CACHE_MAX_SIZE unset)"
    return f"cap {info['max_size']} bytes ($CLMODES_CACHE_MAX_SIZE)"


def cache_prune_text(r: dict[str, Any]) -> str:
    e = r["evicted"]
    lines = [f"pruned {r['location']} to at most {r['max_size']} bytes: evicted {e['binaries']} "
             f"program binaries ({e['kernels']} kernels indexed), {e['tune_results']} tune "
             f"results, {e['measurements']} measurements ({r['evicted_bytes']} bytes)",
             f"entries: {r['bytes_before']} -> {r['bytes_after']} bytes; file: "
             f"{r['file_bytes_before']} -> {r['file_bytes_after']} bytes ({r['compacted']})"]
    if r["in_use"]:
        lines.append(f"kept {r['in_use']} entries a live tune is using")
    if r["over_cap"]:
        lines.append("still over the cap: what is left is in use")
    return "\n".join(lines)


def cache_clear_text(r: dict[str, Any]) -> str:
    return (f"cleared {r['deleted']} entries from {r['store']}"
            + (f" for {r['device']}" if r["device"] else ""))


def _driver_part(exact: str, model: str) -> str:
    """An exact fingerprint is `model + " / " + driver...`: show what the model line lacks."""
    return exact[len(model) + 3:]


# -- bundles ---------------------------------------------------------------------------


def bundle_export_text(r: dict[str, Any]) -> str:
    return f"exported {r['file']}: " + _counts(r["manifest"]) + "\n" + _manifest_devices(r["manifest"])


def bundle_merge_text(r: dict[str, Any], inputs: int) -> str:
    return (f"merged {inputs} bundles into {r['file']}: " + _counts(r["manifest"]) + "\n"
            + _manifest_devices(r["manifest"]))


def bundle_import_text(r: dict[str, Any]) -> str:
    lines = [f"imported {r['file']} into {r['store']}"]
    for d in r["devices"]:
        lines.extend(_imported_device_lines(d))
    if not any(r["added"].values()):
        lines.append("nothing applied: no entry in this bundle is new for a device here")
    return "\n".join(lines)


def _imported_device_lines(d: dict[str, Any]) -> list[str]:
    lines = [f"  {d['exact'] or d['model']}", "    " + _match_text(d)]
    if d["match"] == "none":
        return lines
    binaries = d["binaries"]
    if d["match"] != "offline":  # an offline build has no tune results
        lines.append(f"    tune results: {d['tune']['added']} added of {d['tune']['in_bundle']}"
                     " (entries measured here are kept)")
    used = "added" if binaries["used"] else "dropped (driver differs)"
    lines.append(f"    program binaries: {binaries['added'] if binaries['used'] else 0} "
                 f"of {binaries['in_bundle']} {used}")
    return lines


def bundle_inspect_text(r: dict[str, Any]) -> str:
    manifest = r["manifest"]
    return (
        f"{r['file']}: clmodes bundle schema {manifest['schema']}, made by clmodes "
        f"{manifest['clmodes']} on {manifest['created']}\n"
        + _counts(manifest) + "\n" + _manifest_devices(manifest) + "\non this machine:\n"
        + "\n".join(f"  {m['exact'] or m['model']}\n    {_match_text(m)}" for m in r["matches"])
        + "".join(f"\n{x['binaries']} binaries {x['note']}" for x in r.get("offline", []))
        + "".join(f"\nroofline: {x['tunable']} {x['key']}: {x['winner']} at {x['roofline']:.0%}"
                  for x in r.get("roofline", []))
        + "".join(f"\ntune answers for {a['local_device']}: {a['grade']} (from "
                  f"{', '.join(a['from'])})" for a in r.get("answers", []))
    )


def _counts(manifest: dict[str, Any]) -> str:
    c = manifest["counts"]
    return (f"{c['tune']} tune results, {c['binaries']} program binaries, "
            f"{c['kernels']} kernels, {len(manifest['devices'])} device model(s)")


def _manifest_devices(manifest: dict[str, Any]) -> str:
    lines = []
    for d in manifest["devices"]:
        lines.append(f"  [{d['vendor']}] {d['model']}: {d['tune']} tune results")
        for driver in d["drivers"]:
            lines.append(f"      {_driver_part(driver['exact'], d['model'])}: "
                         f"{driver['binaries']} binaries, {driver['kernels']} kernels")
    return "\n".join(lines)


def _match_text(m: dict[str, Any]) -> str:
    if m["match"] == "offline":
        return (f"built offline, fits {m['local_device']} ({m['grade']} driver): binaries "
                "used if its driver loads them")
    if m["match"] == "exact":
        return f"exact match with {m['local_device']}: binaries and tune results used"
    if m["match"] == "model":
        return (f"same model as {m['local_device']}, other {', '.join(m['differs']) or 'driver'}: "
                "tune results used, binaries dropped")
    if m.get("offline"):
        return f"no match here ({'; '.join(m['differs'])}): skipped"
    return f"no match here (differs in {', '.join(m['differs'])}): skipped"


# -- probe -----------------------------------------------------------------------------

_PROBE_HEADER = (f"  {'figure':8} {'value':>9}  {'unit':8} {'per launch':>12}  "
                 f"{'global x local':>16}  {'per item':>8}  samples  rounds  stable")


def probe_text(r: dict[str, Any]) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r["measured_at"]))
    origin = "cached" if r["from_cache"] else "measured now"
    lines = [f"{r['device']}", f"  {origin}: {when}, took {r['seconds']:.2f} s", _PROBE_HEADER]
    lines.extend(_figure_row(f) for f in (*r["bandwidth"], *r["compute"]))
    lines.append(f"  roofline: min({r['bandwidth_gbps']:.2f} GB/s x FLOP/byte, "
                 f"{r['compute_gflops']:.2f} GFLOP/s); ridge at "
                 f"{r['compute_gflops'] / r['bandwidth_gbps']:.2f} FLOP/byte")
    lines.append(f"  statistic: {r['statistic']}")
    return "\n".join(lines)


def _figure_row(f: dict[str, Any]) -> str:
    work = f"{f['work'] / 2**20:.0f} MiB" if f["unit"] == "GB/s" else f"{f['work'] / 1e9:.2f} GFLOP"
    shape = f"{f['global_size']} x {f['local_size']}"
    return (f"  {f['name']:8} {f['value']:9.2f}  {f['unit']:8} {work:>12}  "
            f"{shape:>16}  {f['per_item']:>8}  "
            f"{f['samples']:>7}  {f['rounds']:>6}  {'yes' if f['stable'] else 'no':>6}")
