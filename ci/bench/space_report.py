"""The table `bench_space.py` prints (and the README shows)."""

from __future__ import annotations


def _load(load) -> str:
    return "-" if not load else f"{load[0]:.1f}"


def rate(results: dict) -> None:
    """Each run's chosen config, re-measured, over the fastest re-measured choice that lies
    in the same space (the whole space for random and local; for exhaustive, the subspace:
    the other tool's exhaustive winner, or a random/local choice that falls inside it)."""
    fixed = results["meta"]["subspace_fixed"]
    for size in results["sizes"]:
        times = size["remeasured"]
        if not times:
            continue
        everything = list(times)
        inside = [name for name in everything
                  if all(f"{k}={v}" in name.split(",") for k, v in fixed.items())]
        size["best"] = min(everything, key=lambda name: times[name]["median_s"])
        # None when no choice lies in the subspace (a run without the exhaustive family)
        size["best_in_subspace"] = min(inside, key=lambda name: times[name]["median_s"],
                                       default=None)
        for run in size["runs"]:
            reference = size["best_in_subspace" if run["family"] == "exhaustive" else "best"]
            for tool in ("clmodes", "kernel_tuner"):
                mine = times[run[tool]["choice_name"]]["median_s"]
                run[tool]["remeasured_s"] = mine
                run[tool]["quality_ratio_over_best"] = mine / times[reference]["median_s"]


def table(results: dict) -> str:
    if any("best_in_subspace" not in size for size in results["sizes"]):
        rate(results)
    meta = results["meta"]
    lines = [
        f"# bench_space on {meta['device']}: GEMM_SPACE float32, budget {meta['configs']} "
        f"configs, exhaustive subspace {meta['subspace']} configs, Kernel Tuner "
        f"{meta['kernel_tuner']} (answers verified on {meta['kt_verified_configs']} configs); "
        f"load {_load(meta['loadavg_before'])} at start, {_load(meta['loadavg_after'])} at end; "
        f"{meta['total_s']:.0f} s",
        f"{'n':>4} {'family':<10} {'space':>5} | {'clmodes s':>9} {'KT s':>7} {'ratio':>6} | "
        f"{'builds':>9} | {'measured':>8} | {'quality clm':>11} {'KT':>5}",
    ]
    for size in results["sizes"]:
        for run in size["runs"]:
            clm, kt = run["clmodes"], run["kernel_tuner"]
            lines.append(
                f"{size['n']:>4} {run['family']:<10} {run['space_size']:>5} | "
                f"{clm['wall_s']:>9.1f} {kt['wall_s']:>7.1f} "
                f"{run['ratio_wall_clmodes_over_kernel_tuner']:>6.2f} | "
                f"{clm['builds']:>4}/{kt['builds']:<4} | {clm['measured']:>3}/{kt['measured']:<4} | "
                f"{clm['quality_ratio_over_best']:>11.2f} {kt['quality_ratio_over_best']:>5.2f}")
        for label, key in (("whole space", "best"), ("subspace", "best_in_subspace")):
            name = size[key]
            if name is None:
                continue
            lines.append(f"{'':>4} best re-measured choice, {label}, n={size['n']}: {name} "
                         f"{size['remeasured'][name]['median_s'] * 1e3:.2f} ms")
    lines.append("ratio: wall time to a decision, clmodes / Kernel Tuner (target <= 0.4); "
                 "builds, measured: clmodes/KT; quality: chosen config re-measured over the "
                 "fastest re-measured choice of either tool in the same space (whole space, or "
                 "the exhaustive subspace) at that size (target <= 1.05)")
    mlp = results.get("mlp")
    if mlp and "error" in mlp:
        lines.append(f"MLP part failed: {mlp['error'].splitlines()[0]}")
    elif mlp:
        lines.append(f"MLP ({mlp['workload']}, matmul: {mlp['matmul']}): warm / one cold "
                     "execution, same size (target <= 0.8)")
        for label in ("S", "8S"):
            f = mlp[label]
            lines.append(
                f"  {label:<3} {f['rows']:>6} rows: warm {f['warm_inside_s']:.1f} s, cold "
                f"{f['cold_inside_s']:.1f} s -> {f['ratio_warm_over_cold_inside']:.2f} inside, "
                f"{f['ratio_warm_over_cold_wall']:.2f} process wall (steady execution "
                f"{f['execution_s']:.2f} s)")
    return "\n".join(lines)
