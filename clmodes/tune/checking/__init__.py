"""Candidates, their identity and their checking: what a tune chooses among
(`candidates.CandidateSet`: hand-written candidates, or a space searched by a strategy,
and a checksum of what the set is), what code each candidate is (`identity`: the keys of
the kernels it launches), and whether its output is the reference's (`rule.Checking`: the
Tunable's rule; `reference.Checker` runs it, `comparison` compares host arrays).

Read first: `identity.py`. The decision this package holds: a stored decision and a
stored measurement stand only while every candidate they measured still launches the
same kernels (a tune entry keyed by names once outlived an edited kernel), and a fast
candidate that computes the wrong answer never wins. The trap (`comparison.py`):
floating-point candidates that sum in another order differ legitimately, so the default
tolerance scales with the largest magnitude of the reference, not each element's.

`checking.py` is `comparison.py` here (`tune.checking.checking` would read twice). This
package imports only `tune.search` of `clmodes.tune`.
"""
