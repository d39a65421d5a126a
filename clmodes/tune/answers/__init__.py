"""Nearest-device answers and their verification: a key nobody tuned on this device model
answered from another model's decision, graded (`nearest`: "family", "vendor",
"across"), stored marked as such (`answering`), and timed once here at the next warm
(`verify`: the winner raced against the record's runner-up), then kept or re-tuned.

Read first: `nearest.py`. The decision this package holds: an answer only chooses which
*correct* candidate runs (every candidate was checked on the device it was measured on;
binaries stay exact-device only), and it is not a tune: nothing is measured or counted
for it, and a measured decision for this model is never replaced by one. The trap: a
vendor's name is not its kind; "vendor" also needs the same kind of device (a CPU's
decision never answers for its vendor's GPU), and "across" pools this kind when any is.

`answers.py` is `answering.py` here (`tune.answers.answers` would read twice). This
package imports `tune.decisions` and `tune.measuring` of `clmodes.tune`.
"""

from clmodes import lazy as _lazy

# `clmodes.tune.answers.nearest` and `.verify`, as docs/contract.md names them, load at
# first use (`clmodes.lazy`): a process that never answers a key never loads them.
__getattr__, __dir__ = _lazy.on_first_use(globals(), {})
