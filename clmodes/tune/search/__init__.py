"""Search: what a tune may measure and how much of it (a `TuningSpace` cut by restrictions,
the `start=` configs, the `Budget` and its `Spending`), and the strategies that propose
generations of it (`strategies/`).

Read first: `space.py`, then `strategies/__init__.py` (the ask/tell rules every strategy
keeps). The decision this package holds: strategies only propose; what is measured and
when the budget is spent is `spending.Spending`'s, the one place the budget is checked,
so "a budget of N configs measures exactly N" holds for every strategy. The trap:
restrictions come from users, so they are parsed (`restriction.py`), never `eval`ed.

Nothing here measures, builds or touches OpenCL: the package imports no other part of
`clmodes.tune`, and the rest of it imports this.
"""
