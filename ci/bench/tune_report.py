"""The printed report of `bench_tune.py` (its figures, as its JSON has them)."""

from __future__ import annotations

from tune_sides import BLOCK_X, BLOCK_Y


def _header(results: dict[str, object]) -> list[str]:
    """What ran where, and the heading of part 1."""
    meta = results["meta"]
    lines = [
        f"clmodes autotune benchmark on {meta['device']}",
        f"{meta['n']}x{meta['n']} float32 matmul ({meta['kernel']} kernel), 16 work-group shapes (block_size_x {list(BLOCK_X)} x "
        f"block_size_y {list(BLOCK_Y)}), {meta['reps']} repetition(s), order alternating",
        f"POCL_KERNEL_CACHE={meta['env']['POCL_KERNEL_CACHE']} "
        f"PYOPENCL_NO_CACHE={meta['env']['PYOPENCL_NO_CACHE']}  kernel_tuner "
        f"{meta['kernel_tuner']}  pyopencl {meta['pyopencl']}  clmodes {meta['clmodes']}  "
        f"python {meta['python']}  cpus {meta['cpus']}  load average before/after "
        f"{meta['loadavg_before'][0]:.2f}/{meta['loadavg_after'][0]:.2f}",
        "",
        "1. Wall time to a decision (cold: nothing compiled or cached), per repetition",
    ]
    return lines


def _wall_time(results: dict[str, object]) -> list[str]:
    """Part 1: wall time to a decision per repetition, and where it went."""
    meta = results["meta"]
    summary = results["summary"]
    lines: list[str] = []
    header = (f"  {'rep':>3}  {'first':<12}  {'KernelTuner s':>13}  {'clmodes s':>9}  "
              f"{'clm/KT':>6}  {'KT choice':>9}  {'clm choice':>10}")
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for rep in results["reps"]:
        kt, clm = rep["kernel_tuner"], rep["clmodes"]
        lines.append(
            f"  {rep['rep']:>3}  {rep['first']:<12}  {kt['wall_s']:>13.2f}  {clm['wall_s']:>9.2f}  "
            f"{clm['wall_s'] / kt['wall_s']:>6.2f}  {kt['choice']:>9}  {clm['choice']:>10}"
        )
    lines.append(
        f"  {'med':>3}  {'':<12}  {summary['kernel_tuner_wall_s']:>13.2f}  "
        f"{summary['clmodes_wall_s']:>9.2f}  {summary['ratio_clmodes_over_kernel_tuner']:>6.2f}"
        "  (target <= 0.50)"
    )
    lines.append("  where the time went (median over repetitions):")
    b = summary["breakdown"]
    lines.append(
        f"    Kernel Tuner: 16 Program.build {b['kt_compile_s']:.2f} s; runs "
        f"{b['kt_benchmark_s']:.2f} s ({b['kt_runs_per_config']} per config: "
        f"{b['kt_sampled_device_s']:.2f} s of kernel time, the rest mostly PoCL's code "
        f"generation at each config's first launch); other {b['kt_other_s']:.2f} s"
    )
    lines.append(
        f"    clmodes:      1 Program.build of 16 {b['clm_build_s']:.2f} s; "
        f"{b['clm_samples']:.0f} samples, {b['clm_sampled_device_s']:.2f} s of kernel time "
        f"({b['clm_dropped']:.0f} of 16 dropped after the first round); other "
        f"{b['clm_other_s']:.2f} s "
        "(warm-ups incl. PoCL's first-launch code generation, host)"
    )
    lines.append(
        f"    clmodes on Kernel Tuner's evidence (one race, no final, one warm-up timing): "
        f"{summary['race_only_wall_s']:.2f} s, {summary['ratio_race_only_over_kernel_tuner']:.2f}"
        f" of Kernel Tuner, worst choice {summary['quality_ratio_race_only_choice_over_best']:.3f}x"
        " the best"
    )
    lines.append(
        f"    (clmodes client + input buffers set up before its clock: "
        f"{meta['clmodes_setup_s']:.2f} s)"
    )
    return lines


def _quality(results: dict[str, object]) -> list[str]:
    """Part 2: each choice against the exhaustive re-measurement."""
    meta = results["meta"]
    summary = results["summary"]
    lines: list[str] = []
    lines.append("")
    lines.append(
        f"2. Choice quality: every config re-measured (profiling events, median of "
        f"{meta['exhaustive_rounds']} interleaved runs after 2 warm-ups)"
    )
    ex = results["exhaustive"]
    best = summary["exhaustive_best"]
    ranked = sorted(ex, key=lambda n: ex[n]["median_s"])
    lines.append(
        f"  exhaustive best {best} {ex[best]['median_s'] * 1e3:.3f} ms, then "
        + ", ".join(f"{n} {ex[n]['median_s'] / ex[best]['median_s']:.3f}x" for n in ranked[1:4])
        + f"; worst {ranked[-1]} {ex[ranked[-1]]['median_s'] / ex[best]['median_s']:.3f}x"
    )
    best_min = summary["exhaustive_best_by_min"]
    spread = max(t["min_s"] for t in ex.values()) / ex[best_min]["min_s"]
    lines.append(
        f"  by each config's fastest run instead: best {best_min} {ex[best_min]['min_s'] * 1e3:.3f}"
        f" ms, slowest {spread:.3f}x"
    )
    header = (f"  {'rep':>3}  {'tool':<12}  {'choice':>7}  {'time ms':>8}  {'vs best':>8}"
              f"  {'(by min)':>8}")
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for rep in results["reps"]:
        for tool, label in (("kernel_tuner", "KernelTuner"), ("clmodes", "clmodes"),
                            ("race_only", "race-only")):
            q = rep[tool]["quality"]
            lines.append(
                f"  {rep['rep']:>3}  {label:<12}  {rep[tool]['choice']:>7}  "
                f"{q['time_s'] * 1e3:>8.3f}  {q['relative_to_best']:>7.3f}x"
                f"  {q['relative_to_best_by_min']:>7.3f}x"
            )
    lines.append("  (target: within 1.05x of the exhaustive best)")
    return lines


def _hit(results: dict[str, object]) -> list[str]:
    """Part 3: the tune-cache hit overhead."""
    lines: list[str] = [""]
    hit = results["hit_overhead"]
    lines.append(
        f"3. Tune-cache hit under COMPILE_AND_AUTOTUNE (launch dropped), "
        f"{hit['calls_per_side']} calls per side in {hit['rounds']} interleaved rounds, median"
    )
    lines.append(f"  {'tunable(stream, C, A, B, n)':<40} {hit['tunable_call_us']:>7.2f} us")
    lines.append(f"  {'winner candidate fn called directly':<40} {hit['candidate_call_us']:>7.2f} us")
    lines.append(f"  {'stream.launch(winner kernel)':<40} {hit['stream_launch_us']:>7.2f} us")
    lines.append(
        f"  {'hit overhead (tunable - stream.launch)':<40} {hit['hit_overhead_us']:>7.2f} us"
        "   (target < 20 us)"
    )
    lines.append(
        f"  {'  (fastest round of each side)':<40} {hit['hit_overhead_best_round_us']:>7.2f} us"
    )
    lines.append(
        f"  {'  of which key + cache lookup':<40} {hit['lookup_us']:>7.2f} us; "
        f"candidate wrapper + launch fn {hit['candidate_wrapper_us']:.2f} us"
    )
    return lines


def table(results: dict[str, object]) -> str:
    meta = results["meta"]
    lines = _header(results) + _wall_time(results) + _quality(results) + _hit(results)
    lines.append("")
    lines.append(f"total benchmark time {meta['total_s']:.1f} s")
    return "\n".join(lines)


