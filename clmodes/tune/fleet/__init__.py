"""Who measures a tune: this process alone, or a fleet's identical devices each measuring
a share of every generation. The tuner is one ask -> measure -> tell loop whatever
measures; its `measurer.Measurer` answers who measures which part of a generation, when
the search stops and who decides: `measurer.Local` (everything here) or
`spreading.Spreading` (this node's share, on the `sharing.Sharing` hook and its ledger),
chosen in one place (`spreading.measurer_for`).

Read first: `measurer.py`, then `sharing.py`. The decision this package holds: nothing but
results crosses nodes; every node tells its seeded search the same results in the same
order, so each proposes the same next generation, and only the leader re-races the
finalists. The trap: a ledger is first-write-wins per share, so a share a dead node never
posted is measured by a waiting node, and a late post is ignored by everyone alike.

The tune's side only: `clmodes.fleet` (Ray, a layer above) installs the hook. This
package imports only `tune.search` of `clmodes.tune`.
"""
