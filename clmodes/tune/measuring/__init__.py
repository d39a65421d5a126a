"""Measuring: how a tune times its candidates and decides between them. Every timing goes
through the process's timer (`timing.Timer`: profiling events, or recorded seconds
replayed), a generation is raced (`racing.race`: warm-up, screening, rounds, drops, by
the knobs of `policy.RacePolicy`), the finalists meet in a final of paired rounds
(`finals`), and what a tune knows of each candidate is kept as it is learnt
(`known.Known`). Candidates run on scratch copies of the
caller's arguments, unwritten memory replaced (`inputs`).

Read first: `racing.py`, then `finals.py`. The decision this package holds: measurements
taken at different moments of a shared machine's load are never compared directly; the
decision is the final's, on the median of paired ratios. The trap (`inputs.py`):
memory nobody wrote reads as NaN and subnormal floats, which made a CPU's GEMM 10-60x
slower and a warm choose a config 2x slower on real data.

This package imports no other part of `clmodes.tune`.
"""
