"""Reporting: what a tune record says and how people and scripts read it back. The
store's tune entries as typed, frozen records (`report`: `TunedKey`,
`MeasuredCandidate`, `DroppedCandidate`), which entries a `clmodes tune show|plot|forget`
names (`selecting`), and each measured candidate's roofline fraction, written into the
record when it is made (`scoring`).

Read first: `report.py`. The decision this package holds: a record is JSON that bundles
carry from other machines and versions, so it is decoded in one place
(`TuneRecord.from_json`) and the verbs never index JSON themselves; a row that is no
record is skipped with a warning. The trap (`scoring.py`): a tune never triggers a
throughput probe (seconds, at whichever call missed); without a cached probe the record
simply has no roofline.

This package imports `tune.decisions` of `clmodes.tune` (a key's canonical form).
"""
