"""Several processes on one store, each at random opening, tuning, warming, reading,
pruning, exporting, importing and closing it, some stopped by SIGKILL, SIGINT or SIGTERM
at random moments; after every round, what each process reported committed must be in
the store for a fresh process, the file must pass `PRAGMA integrity_check`, and (at the
end) a warm then `clmodes check` must pass with results checked. The suite runs a few
rounds (tests/e2e/test_store_torture.py), `ci/torture_store.py` several hundred.

A worker prints one JSON line *after* each write returns (so after its commit): what a
line names is committed, whatever becomes of the worker a moment later. The order of
opening and closing is random on purpose: the store's old loss needed a process to
close while another, which had written, kept it open (`clmodes.store.recovery`)."""

from __future__ import annotations

import dataclasses
import json
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from support.subprocesses import environment

TUNABLE = "stopping-thrice"  # support.stopping's: the final warm and check use it too
SIZES = (256, 512, 768, 1024, 2048)  # the final warm's and check's tune keys
WORKER_SIZES = tuple(range(64, 8193, 64))  # the keys workers pick from: mostly new, so tuned
OPS = ("tune", "warm", "read", "prune", "export", "import", "close", "note")

WORKER = r"""
import json, os, random, sys, time
import numpy as np, pyopencl.array as cla
import clmodes
from clmodes import bundle
from support import stopping

directory, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
sizes = [int(s) for s in sys.argv[4].split(",")]
ops = sys.argv[5].split(",")

def say(**what):
    print(json.dumps(what), flush=True)

def tune(n):
    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    out = cla.zeros_like(x)
    stopping.THRICE(stream, out, x, n)
    assert np.array_equal(out.get(), 3 * x.get()), f"wrong result for n={n}"

def workload_of(chosen):
    def run():
        for n in chosen:
            tune(n) if clmodes.process_mode() is clmodes.ProcessMode.EXECUTE else _launch(n)
    return run

def _launch(n):
    stream = clmodes.client().stream()
    x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
    stopping.THRICE(stream, cla.zeros_like(x), x, n)

say(started=os.getpid())
for step in range(count):
    op = rng.choice(ops)
    store = clmodes.default_store()
    if op == "tune":
        n = rng.choice(sizes)
        tune(n)
        say(committed="tune", n=n)
    elif op == "warm":
        chosen = rng.sample(sizes, 2)
        clmodes.warm(workload_of(chosen))
        say(committed="tune", n=chosen[0]); say(committed="tune", n=chosen[1])
    elif op == "read":
        store.info(); store.tune_rows()
    elif op == "prune":
        store.prune(1 << 40)
    elif op == "export":
        try:
            bundle.export(os.path.join(directory, f"bundle-{os.getpid()}-{step}.clb"))
        except clmodes.ClmodesError:
            pass  # nothing to export yet
    elif op == "import":
        found = sorted(p for p in os.listdir(directory) if p.endswith(".clb"))
        if found:
            try:
                bundle.install(os.path.join(directory, rng.choice(found)), allow_unsigned=True,
                               load_check=False)
            except clmodes.ClmodesError:
                pass  # a bundle another worker was killed writing
    elif op == "close":
        store.close()
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])
    elif op == "note":
        name = f"note-{os.getpid()}-{step}"
        store.put_probe(name, {"by": os.getpid()})
        say(committed="note", model=name)
    time.sleep(rng.random() * 0.05)
say(done=True)
"""


@dataclasses.dataclass
class Outcome:
    """One worker's end: how it was stopped (None: it finished) and what it reported."""

    stopped_by: str | None
    returncode: int
    committed: list[dict]
    stderr: str


@dataclasses.dataclass
class Round:
    outcomes: list[Outcome]
    problems: list[str]


def start_worker(directory: Path, seed: int, steps: int, device: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(directory), str(seed), str(steps),
         ",".join(map(str, WORKER_SIZES)), ",".join(OPS)],
        env=environment(directory, CLMODES_DEVICE=device, CLMODES_LOG="WARNING"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_round(directory: Path, rng: random.Random, device: str, workers: int = 3,
              steps: int = 20, stop_chance: float = 0.6) -> Round:
    """Start `workers` processes at staggered moments, stop some at random moments."""
    now = time.monotonic()
    starts = sorted(now + rng.uniform(0.0, 2.0) for _ in range(workers))  # opening at different moments
    plans = [(rng.choice(["SIGKILL", "SIGINT", "SIGTERM"]) if rng.random() < stop_chance else None,
              at + rng.uniform(0.25, 1.5)) for at in starts]
    procs: list[subprocess.Popen] = []
    stopped: list[str | None] = [None] * workers
    while len(procs) < workers or any(p.poll() is None for p in procs):
        if len(procs) < workers and time.monotonic() >= starts[len(procs)]:
            procs.append(start_worker(directory, rng.randrange(1 << 30), steps, device))
        for i, proc in enumerate(procs):
            way, at = plans[i]
            if way and stopped[i] is None and proc.poll() is None and time.monotonic() >= at:
                proc.send_signal(getattr(signal, way))
                stopped[i] = way
        time.sleep(0.01)
    outcomes = []
    for proc, way in zip(procs, stopped):
        out, err = proc.communicate(timeout=600)
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        outcomes.append(Outcome(way, proc.returncode,
                                [line for line in lines if "committed" in line], err))
    return Round(outcomes, check_round(directory, outcomes))


def check_round(directory: Path, outcomes: list[Outcome]) -> list[str]:
    """What is wrong after a round: each reported commit missing for a fresh connection,
    integrity, and any worker that failed for another reason than its stop."""
    problems = []
    for outcome in outcomes:
        if outcome.stopped_by is None and outcome.returncode != 0:
            problems.append(f"a worker failed (rc {outcome.returncode}): {outcome.stderr[-2000:]}")
        if "Traceback" in outcome.stderr and outcome.stopped_by is None:
            problems.append(f"a traceback: {outcome.stderr[-2000:]}")
    connection = sqlite3.connect(directory / "store.sqlite3")
    try:
        integrity = connection.execute("PRAGMA integrity_check").fetchall()
        if integrity != [("ok",)]:
            problems.append(f"integrity_check: {integrity[:3]}")
        tuned = {json.loads(key).get("n") for (key,) in connection.execute(
            "SELECT tune_key FROM tune WHERE tunable=?", (TUNABLE,))}
        notes = {model for (model,) in connection.execute("SELECT model FROM probe")}
    finally:
        connection.close()
    for outcome in outcomes:
        for line in outcome.committed:
            if line["committed"] == "tune" and line["n"] not in tuned:
                problems.append(f"a decision reported committed is gone: n={line['n']} "
                                f"(worker stopped by {outcome.stopped_by})")
            if line["committed"] == "note" and line["model"] not in notes:
                problems.append(f"a write reported committed is gone: {line['model']} "
                                f"(worker stopped by {outcome.stopped_by})")
    return problems


def final_check(directory: Path, device: str) -> list[str]:
    """A warm of the whole workload, then `clmodes check`: both pass, results right."""
    problems = []
    env = environment(directory, CLMODES_DEVICE=device)
    for args in (["warm", "support.torture:final_workload"],
                 ["check", "support.torture:final_workload"]):
        out = subprocess.run([sys.executable, "-m", "clmodes", *args], env=env,
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            problems.append(f"clmodes {' '.join(args)}: rc {out.returncode}: "
                            f"{(out.stdout + out.stderr)[-2000:]}")
    return problems


def final_workload() -> None:
    """Every size a worker may tune; results checked when it really runs."""
    import numpy as np
    import pyopencl.array as cla

    import clmodes
    from support import stopping

    stream = clmodes.client().stream()
    for n in SIZES:
        x = cla.to_device(stream.queue, np.arange(n, dtype=np.float32))
        out = cla.zeros_like(x)
        stopping.THRICE(stream, out, x, n)
        if clmodes.process_mode() is clmodes.ProcessMode.EXECUTE:
            assert np.array_equal(out.get(), 3 * x.get()), f"wrong result for n={n}"


def torture(directory: Path, rounds: int, seed: int, device: str, workers: int = 3,
            steps: int = 20, report=print) -> list[str]:
    """`rounds` rounds on the store in `directory`, then the final check; every problem."""
    rng = random.Random(seed)
    problems: list[str] = []
    kills: dict[str, int] = {}
    for number in range(rounds):
        found = run_round(directory, rng, device, workers, steps)
        for outcome in found.outcomes:
            kills[str(outcome.stopped_by)] = kills.get(str(outcome.stopped_by), 0) + 1
        problems += [f"round {number}: {p}" for p in found.problems]
        report(f"round {number}: stops {[o.stopped_by for o in found.outcomes]}, "
               f"commits {sum(len(o.committed) for o in found.outcomes)}, "
               f"problems {len(found.problems)}")
    problems += final_check(directory, device)
    report(f"{rounds} rounds, workers ended by {kills}; final warm and check: "
           f"{'ok' if not problems else 'FAILED'}; {len(problems)} problems")
    return problems
