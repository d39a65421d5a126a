"""One measurement of a key across processes sharing a store: claim, or wait and adopt.

Threads of one process are coordinated by the tune cache (`tune.decisions.cache`); processes by a
lease in the store (`clmodes.store.tuning`, which says why waiting beats measuring
twice). The owner keeps its lease alive from a heartbeat thread while it measures, so a
long tune is never mistaken for a dead one and a killed tuner is taken over within
`STALE_S` (at once on the same host); the taker-over resumes from the stored
measurements instead of starting again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from collections.abc import Iterator
from clmodes.store.tuning import HEARTBEAT_S, LeaseKey, new_owner
from clmodes.store.store import Store
from clmodes.records.tune import TuneRecord, parsed

log = logging.getLogger("clmodes")

OWNER = new_owner()
POLL_S = 0.1

def measure_or_adopt(store: Store, key: LeaseKey, measure: Callable[[], TuneRecord],
                     acceptable: Callable[[TuneRecord], bool], describe: str) -> TuneRecord:
    """The decision for `key`: another process's, when it made (or is making) one that is
    `acceptable` (same candidates, same code), else the one `measure` makes here.

    Waits while another live process holds the lease; a store in memory has no other
    processes to agree with."""
    if store.in_memory:
        return measure()
    waited_for: str | None = None
    while True:
        try:
            claim = store.claim_tune(key, OWNER)
        except sqlite3.Error as error:  # a store that cannot take writes: measure alone
            log.debug("%s: no tune lease (%s); measuring without one", describe, error)
            return measure()
        if claim.decision is not None:
            record = parsed(claim.decision)
            if record is not None and acceptable(record):
                log.info("%s: adopted the decision of another process", describe)
                if not claim.committed:
                    # Its owner may still be stopped before committing: recorded here too
                    # (the first row wins, so both agree), with this process's own writes.
                    store.put_tune_record(*key, record)
                return record
            return measure()  # not one of ours (other code, or unreadable): measure it
        if claim.mine:
            return _measure_holding(store, key, measure)
        if claim.owner != waited_for:
            waited_for = claim.owner
            log.info("%s: waiting for process %s, which is measuring it", describe, claim.owner)
        time.sleep(POLL_S)


def _measure_holding(store: Store, key: LeaseKey, measure: Callable[[], TuneRecord]) -> TuneRecord:
    with _heartbeat(store, key):
        try:
            record = measure()
        except BaseException:
            store.release_tune(key, OWNER)
            raise
    store.decide_tune(key, OWNER, json.dumps(record.to_json(), sort_keys=True))
    return record


@contextmanager
def _heartbeat(store: Store, key: LeaseKey) -> Iterator[None]:
    """Refresh the lease every HEARTBEAT_S while the block runs."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(HEARTBEAT_S):
            store.beat_tune(key, OWNER)

    thread = threading.Thread(target=beat, name="clmodes-tune-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def withdraw_uncommitted(store: Store) -> None:
    """This process's warm failed before committing: withdraw the decisions it published
    to waiters (`tuning.withdraw` in `clmodes.store`), so that nobody adopts one no tune row will back."""
    if store.in_memory:
        return
    withdrawn = store.withdraw_decisions(OWNER)
    if withdrawn:
        log.debug("withdrew %d published decisions of a warm that did not commit", withdrawn)
