"""The summary and printed report of `bench_warm.py`: medians per kind, the checks, the table."""

from __future__ import annotations

import statistics

KINDS = ("floor", "cold_S", "warm_S", "warmed_S", "warm_8S", "cold_8S")


def median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(reps: list[dict]) -> dict:
    """Medians per kind of every numeric figure."""
    out: dict[str, dict] = {}
    for kind in KINDS:
        runs = [r[kind] for r in reps]
        figures: dict[str, float | None] = {}
        for name in ("inside_s", "process_wall_s", "import_s", "build_s", "load_s", "tune_s",
                     "tune_build_s", "capture_s"):
            default = None if name in ("inside_s", "process_wall_s", "import_s") else 0.0
            figures[name] = median([r.get(name, default) for r in runs])
        if runs[0].get("passes_s"):
            figures["gather_pass_s"] = median([r["passes_s"][0] for r in runs])
            figures["tune_pass_s"] = median([r["passes_s"][1] for r in runs])
        if runs[0].get("probes_s"):
            figures["execution_s"] = median([min(r["probes_s"]) for r in runs])
        if kind != "floor":
            # what the named parts leave: for runs, execution and PoCL's code generation at
            # each kernel's first enqueue; for warm, the gather pass, dropped launches, the
            # store commit
            figures["other_s"] = median([
                r["inside_s"] - r["import_s"] - sum(r.get(k, 0.0) for k in (
                    "build_s", "load_s", "tune_s", "capture_s"))
                for r in runs
            ])
        out[kind] = figures
    return out


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def verdicts(reps: list[dict]) -> dict:
    """Did the warmed runs hit the store? Do results agree? Did the fingerprint drift?"""
    checks: dict[str, object] = {}
    for size_tag in ("S",):
        hits = []
        for r in reps:
            warmed, warm = r[f"warmed_{size_tag}"], r[f"warm_{size_tag}"]
            s = warmed["statistics"]
            comp, tune = s["compilation"], s["autotune"]
            hit = (comp["compiled"] == 0 and comp["builds"] == 0 and tune["keys"] == 0
                   and comp["loaded"] == comp["kernels"])
            hits.append({"hit": hit, "warmed": s, "warm": warm["statistics"],
                         "same_model": warm["model"] == warmed["model"]})
        checks[f"warmed_{size_tag}"] = hits
        agree = []
        for r in reps:
            a, b = r[f"cold_{size_tag}"].get("checksum"), r[f"warmed_{size_tag}"].get("checksum")
            agree.append(None if a is None or b is None
                         else abs(a - b) <= 1e-4 * max(1.0, abs(a)))
        checks[f"results_agree_{size_tag}"] = agree
    checks["reference_max_abs_error"] = {
        kind: [r[kind].get("reference_max_abs_error") for r in reps]
        for kind in ("cold_S", "warmed_S", "cold_8S")
    }
    checks["statistics_rep1"] = {
        kind: (run["statistics"]["compilation"], run["statistics"]["autotune"])
        for kind, run in reps[0].items() if "statistics" in run
    }
    models = sorted({run["model"] for r in reps for run in r.values()})
    mems = sorted({run["global_mem_size"] for r in reps for run in r.values()})
    checks["device_models_seen"] = models
    checks["global_mem_sizes_seen"] = mems
    return checks


def fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f} s"


def compile_and_tune(cold: dict) -> float | None:
    """What a cold run pays beyond executing: its time inside less one steady-state
    execution (its fastest probe). A warm is worth its cost when it is near this: it
    compiles and tunes what the cold run would, without the work (target <= 1.15)."""
    execution = cold.get("execution_s")
    if execution is None:
        return None
    rest = cold["inside_s"] - execution
    return rest if rest > 0 else None


def fmt_x(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _rows(m: dict) -> list[tuple[str, str, str]]:
    """The figures' rows: (label, inside, process wall)."""
    a_in = ratio(m["cold_S"]["inside_s"], m["warmed_S"]["inside_s"])
    a_wall = ratio(m["cold_S"]["process_wall_s"], m["warmed_S"]["process_wall_s"])
    b_in = ratio(m["warm_8S"]["inside_s"], m["warm_S"]["inside_s"])
    b_wall = ratio(m["warm_8S"]["process_wall_s"], m["warm_S"]["process_wall_s"])
    c_in = ratio(m["warm_8S"]["inside_s"], m["cold_8S"]["inside_s"])
    c_wall = ratio(m["warm_8S"]["process_wall_s"], m["cold_8S"]["process_wall_s"])
    ex_S, ex_8S = m["cold_S"].get("execution_s"), m["cold_8S"].get("execution_s")

    def ok(value, target, better):
        if value is None:
            return "n/a"
        return "PASS" if (value >= target if better == "high" else value <= target) else "FAIL"

    rows: list[tuple[str, str, str]] = []
    add = rows.append
    add(("(a) cold run S: compile+tune+execute", fmt_s(m["cold_S"]["inside_s"]),
         fmt_s(m["cold_S"]["process_wall_s"])))
    add(("(a) warmed run S: after warm(), fresh process", fmt_s(m["warmed_S"]["inside_s"]),
         fmt_s(m["warmed_S"]["process_wall_s"])))
    add((f"(a) speed-up cold/warmed  [target >= 5x: {ok(a_in, 5, 'high')}]", fmt_x(a_in),
         fmt_x(a_wall)))
    add(("(b) warm() S", fmt_s(m["warm_S"]["inside_s"]), fmt_s(m["warm_S"]["process_wall_s"])))
    add(("(b) warm() 8S", fmt_s(m["warm_8S"]["inside_s"]),
         fmt_s(m["warm_8S"]["process_wall_s"])))
    add((f"(b) warm 8S / warm S  [target <= 1.2: {ok(b_in, 1.2, 'low')}]", fmt_x(b_in),
         fmt_x(b_wall)))
    add(("(c) cold run 8S: compile+tune+execute", fmt_s(m["cold_8S"]["inside_s"]),
         fmt_s(m["cold_8S"]["process_wall_s"])))
    add(("(c) warm() 8S / cold run 8S", fmt_x(c_in), fmt_x(c_wall)))
    add(("    execution alone (steady state) S", fmt_s(ex_S), ""))
    add(("    execution alone (steady state) 8S, 8S/S", fmt_s(ex_8S), fmt_x(ratio(ex_8S, ex_S))))
    for size in ("S", "8S"):
        d_in = ratio(m[f"warm_{size}"]["inside_s"], compile_and_tune(m[f"cold_{size}"]))
        add((f"(d) warm() {size} / cold {size}'s compiling and tuning (inside less one "
             f"execution)  [target <= 1.15: {ok(d_in, 1.15, 'low')}]", fmt_x(d_in), ""))
    add(("    floor: import clmodes + client + stream", fmt_s(m["floor"]["inside_s"]),
         fmt_s(m["floor"]["process_wall_s"])))
    return rows


def _breakdown(m: dict) -> list[str]:
    """Where each kind's time went."""
    lines: list[str] = []
    lines.append("")
    lines.append("breakdown (medians, inside the subprocess; build/tune/load/capture are summed "
                 "clmodes calls):")
    for kind in ("cold_S", "warm_S", "warmed_S", "warm_8S", "cold_8S"):
        f = m[kind]
        parts = [f"import {fmt_s(f['import_s'])}", f"build {fmt_s(f['build_s'])}",
                 f"tune {fmt_s(f['tune_s'])} (its builds {fmt_s(f['tune_build_s'])})"]
        if f.get("load_s"):
            parts.append(f"load {fmt_s(f['load_s'])}")
        if kind.startswith("warm_"):
            parts.append(f"capture (BINARIES) {fmt_s(f['capture_s'])}")
            parts.append(f"[passes: gather {fmt_s(f.get('gather_pass_s'))}, "
                         f"tune {fmt_s(f.get('tune_pass_s'))}]")
        parts.append(f"other {fmt_s(f['other_s'])}")
        lines.append(f"  {kind:<9} {fmt_s(f['inside_s']):>8} = " + ", ".join(parts))
    lines.append("  (other: execution and PoCL's per-kernel code generation at first enqueue "
                 "for runs; gather pass, dropped launches, store commit for warm)")
    return lines


def _checks(meta: dict, checks: dict) -> list[str]:
    """Statistics, store hits, agreement, device models, notes."""
    lines: list[str] = []
    lines.append("")
    stats = checks["statistics_rep1"]
    lines.append("clmodes statistics (rep 1): " + "; ".join(
        f"{kind}: {c['kernels']} kernels ({c['compiled']} compiled, {c['loaded']} loaded, "
        f"{c['builds']} builds), {a['keys']} keys"
        for kind, (c, a) in stats.items()))
    for tag in ("S",):
        hits = checks[f"warmed_{tag}"]
        n_hit = sum(1 for h in hits if h["hit"])
        lines.append(
            f"warmed run {tag}: store hit in {n_hit}/{len(hits)} rep(s) (hit = nothing "
            f"compiled or tuned, every kernel loaded); results agree with cold: "
            f"{checks[f'results_agree_{tag}']}"
        )
        for h in hits:
            if not h["hit"]:
                lines.append(f"  MISS: warmed stats {h['warmed']}; same device model as the "
                             f"warm: {h['same_model']}")
    errors = checks["reference_max_abs_error"]
    if any(e is not None for v in errors.values() for e in v):
        lines.append(f"max abs error vs the workload's numpy reference: {errors}")
    lines.append(f"device models seen: {checks['device_models_seen']}")
    if meta.get("notes"):
        lines += [f"note: {n}" for n in meta["notes"]]
    return lines




def table(m: dict, meta: dict, checks: dict) -> str:
    rows = _rows(m)
    width = max(len(r[0]) for r in rows)
    lines = [
        f"clmodes warm benchmark - {meta['device']}",
        f"workload: {meta['workload']}",
        f"S = {meta['size']} {meta['size_unit']}, 8S = {8 * meta['size']}; median of {meta['reps']} "
        f"rep(s); POCL_KERNEL_CACHE=0; memory pin: {meta['pin']}",
        f"load average before/after: {meta['load_before']} / {meta['load_after']}",
        "",
        f"{'':{width}}  {'inside':>10}  {'process wall':>12}",
    ]
    lines += [f"{name:{width}}  {inside:>10}  {wall:>12}" for name, inside, wall in rows]
    lines += _breakdown(m) + _checks(meta, checks)
    return "\n".join(lines)
