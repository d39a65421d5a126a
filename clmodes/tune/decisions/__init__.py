"""Decisions: where a tune's decision lives and who may make it. The tune cache
(`cache.TuneCache`: memory, then the store, then one tune per key), the key a decision
is stored under (`cache.TuneKey`, `cache.canonical_key`), and one measurement of a key
across processes sharing a store (`coordination.measure_or_adopt`).

Read first: `cache.py`. The decision this package holds: a key is measured once,
whoever asks: threads of a process wait on the cache, processes on a lease in the store,
and a waiter adopts the owner's decision instead of measuring it again (two processes
measuring one device at once both measure noise). The trap: a tune key's mapping must
have string keys (`canonical_key` refuses others), or JSON would give two keys one entry.

`keys.py` (30 lines, `canonical_key`) was folded into `cache.py`: it made `TuneKey.key`
and nothing else. This package imports no other part of `clmodes.tune`.
"""
