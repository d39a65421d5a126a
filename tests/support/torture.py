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
from clmodes.errors import StoreNotPersistentError
from support import stopping

directory, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bundles = sys.argv[6]  # beside the store's folder: on --full-disk's tmpfs they filled it for good
os.makedirs(bundles, exist_ok=True)
rng = random.Random(seed)
sizes = [int(s) for s in sys.argv[4].split(",")]
ops = sys.argv[5].split(",")

def say(**what):
    print(json.dumps(what), flush=True)

def saved(before):  # did the store file take every write since its failures numbered `before`?
    store = clmodes.default_store()  # a reopening during a full disk falls back to memory
    return store.persistent and len(store.failures) == before

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
def step_of(op, step):
    store = clmodes.default_store()
    failed = len(store.failures)
    if op == "tune":
        n = rng.choice(sizes)
        tune(n)
        if saved(failed):
            say(committed="tune", n=n)
        else:
            say(not_saved="tune", n=n)
    elif op == "warm":
        chosen = rng.sample(sizes, 2)
        # StoreWriteError if its commit failed; StoreNotPersistentError in memory
        clmodes.warm(workload_of(chosen), allow_memory=False)
        say(committed="tune", n=chosen[0]); say(committed="tune", n=chosen[1])
    elif op == "read":
        store.info(); store.tune_rows()
    elif op == "prune":
        store.prune(1 << 40)
    elif op == "export":
        try:
            bundle.export(os.path.join(bundles, f"bundle-{os.getpid()}-{step}.clb"))
        except clmodes.ClmodesError:
            pass  # nothing to export yet
    elif op == "import":
        found = sorted(p for p in os.listdir(bundles) if p.endswith(".clb"))
        if found:
            try:
                bundle.install(os.path.join(bundles, rng.choice(found)), allow_unsigned=True,
                               load_check=False)
            except clmodes.StoreWriteError:
                raise
            except clmodes.ClmodesError:
                pass  # a bundle another worker was killed writing
    elif op == "close":
        store.close()
        clmodes.set_cache_dir(os.environ["CLMODES_CACHE_DIR"])
    elif op == "note":
        name = f"note-{os.getpid()}-{step}"
        store.put_probe(name, {"by": os.getpid()})
        if saved(failed):
            say(committed="note", model=name)

for step in range(count):
    op = rng.choice(ops)
    try:
        step_of(op, step)
    except (clmodes.StoreWriteError, StoreNotPersistentError) as error:  # a full disk: said
        say(not_saved=op, error=str(error))
    except OSError as error:  # a bundle file the full disk refused
        say(not_saved=op, error=str(error))
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
    command: str = ""  # a `clmodes` command's verb and arguments ("": a worker)
    refused: int = 0  # writes the store refused (a full disk), said and not claimed


@dataclasses.dataclass
class Round:
    outcomes: list[Outcome]
    problems: list[str]
    commands: list[Outcome] = dataclasses.field(default_factory=list)
    filled: bool = False  # the disk under the store was full for a moment


# The `clmodes` script's own code (`clmodes_start.run`, what the console script calls),
# started beside the workers and stopped by a signal at a moment of its start-up, its
# verb or its end: it must end with its one line and 128 + the signal, or finish.
COMMAND = ("import os, sys, clmodes_start; clmodes_start.install(); os.write(1, b'ready\\n'); "
           "sys.argv[1:] = sys.argv[2:]; clmodes_start.run()")
COMMANDS = (("cache", "info"), ("warm", "support.torture:final_workload"), ("devices",))
EXIT_NOT_SAVED = 4  # the store refused what the command was to keep (a full disk)
EXIT_REFUSED = 2  # the store could not be opened to keep anything: the command refused


def start_command(directory: Path, argv: tuple[str, ...], device: str) -> subprocess.Popen:
    """The command, once it says "ready": from there on every moment is clmodes' (its
    imports first). Before it is Python's own start-up (the interpreter and `site`, ~25
    ms on a quiet machine), where no code of clmodes runs and a signal ends any Python
    program by Python's rules: the floor, not measured here."""
    started = subprocess.Popen([sys.executable, "-c", COMMAND, "-", *argv],
                               env=environment(directory, CLMODES_DEVICE=device),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert started.stdout is not None
    started.stdout.readline()
    return started


def fill(directory: Path) -> Path:
    """Fill the file system under the store to its last byte (a full disk: every write
    of any process on it fails until `Path.unlink` of what this returns)."""
    filler = directory / "filler"
    try:
        with open(filler, "wb") as out:
            while True:
                out.write(b"\0" * (1 << 20))
                out.flush()
    except OSError:  # full: the last byte written, or not even the file made (full already)
        pass
    return filler


def bundles_of(directory: Path) -> Path:
    """Where workers export and import bundles: beside the store's folder, not in it."""
    return directory.parent / f"{directory.name}-bundles"


def start_worker(directory: Path, seed: int, steps: int, device: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", WORKER, str(directory), str(seed), str(steps),
         ",".join(map(str, WORKER_SIZES)), ",".join(OPS), str(bundles_of(directory))],
        env=environment(directory, CLMODES_DEVICE=device, CLMODES_LOG="WARNING"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_round(directory: Path, rng: random.Random, device: str, workers: int = 3,
              steps: int = 20, stop_chance: float = 0.6, full_disk: bool = False) -> Round:
    """Start `workers` processes at staggered moments, stop some at random moments; one
    `clmodes` command beside them, most stopped by Ctrl-C or SIGTERM in its first second
    (its imports: the window before `main()`); with `full_disk` (the store's folder is a
    small file system of its own), the disk is full for a moment in half the rounds."""
    now = time.monotonic()
    starts = sorted(now + rng.uniform(0.0, 2.0) for _ in range(workers))  # opening at different moments
    plans = [(rng.choice(["SIGKILL", "SIGINT", "SIGTERM"]) if rng.random() < stop_chance else None,
              at + rng.uniform(0.25, 1.5)) for at in starts]
    command_argv = rng.choice(COMMANDS)
    command_at = now + rng.uniform(0.0, 1.0)
    command_plan = (rng.choice(["SIGINT", "SIGTERM"]) if rng.random() < 0.8 else None,
                    command_at + rng.uniform(0.0, 1.0))
    filling = (now + rng.uniform(0.3, 2.0), rng.uniform(0.3, 1.2)) \
        if full_disk and rng.random() < 0.5 else None
    filler: Path | None = None
    procs: list[subprocess.Popen] = []
    command: subprocess.Popen | None = None
    command_stopped: str | None = None
    stopped: list[str | None] = [None] * workers

    def live() -> bool:
        return (len(procs) < workers or any(p.poll() is None for p in procs)
                or command is None or command.poll() is None)

    while live():
        moment = time.monotonic()
        if len(procs) < workers and moment >= starts[len(procs)]:
            procs.append(start_worker(directory, rng.randrange(1 << 30), steps, device))
        if command is None and moment >= command_at:
            command = start_command(directory, command_argv, device)
            command_plan = (command_plan[0], time.monotonic() + command_plan[1] - command_at)
        way, at = command_plan
        if command is not None and way and command_stopped is None and moment >= at \
                and command.poll() is None:
            command.send_signal(getattr(signal, way))
            command_stopped = way
        if filling and filler is None and filling[0] <= moment < filling[0] + filling[1]:
            filler = fill(directory)
        if filling and filler is not None and moment >= filling[0] + filling[1] \
                and filler.exists():
            filler.unlink(missing_ok=True)
        for i, proc in enumerate(procs):
            way, at = plans[i]
            if way and stopped[i] is None and proc.poll() is None and moment >= at:
                proc.send_signal(getattr(signal, way))
                stopped[i] = way
        time.sleep(0.01)
    if filler is not None and filler.exists():
        filler.unlink()
    outcomes = [ended(proc, way) for proc, way in zip(procs, stopped)]
    assert command is not None
    commands = [ended(command, command_stopped, " ".join(command_argv))]
    problems = check_round(directory, outcomes) + check_commands(directory, commands, device)
    return Round(outcomes, problems, commands, filling is not None)


def ended(proc: subprocess.Popen, way: str | None, command: str = "") -> Outcome:
    out, err = proc.communicate(timeout=600)
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return Outcome(way, proc.returncode, [line for line in lines if "committed" in line],
                   err, command, sum(1 for line in lines if "not_saved" in line))


def check_commands(directory: Path, commands: list[Outcome], device: str) -> list[str]:
    """Each command ended with its status and at most one line of its own: 0, 4 (the
    disk refused what it was to keep, said in a line), 2 (a warm that found the store
    fallen back to memory, the disk full as it opened it: refused, said in a line), or
    128 + the signal that stopped it, said in a line; never a traceback, never a silent
    death. A warm that said 0 left
    a store a `check` of its workload passes on (results checked)."""
    problems = []
    for done in commands:
        said = [line for line in done.stderr.splitlines() if line.startswith("clmodes: ")]
        expected = {0, EXIT_NOT_SAVED} | (
            {128 + getattr(signal, done.stopped_by)} if done.stopped_by else set())
        if said and ("is in memory" in said[-1] or "is read-only" in said[-1]):
            expected.add(EXIT_REFUSED)  # opened while the disk was full: refused, and said
        if "Traceback" in done.stderr:
            problems.append(f"clmodes {done.command}: a traceback ({done.stopped_by}): "
                            f"{done.stderr[-1500:]}")
        elif done.returncode not in expected:
            problems.append(f"clmodes {done.command} stopped by {done.stopped_by}: rc "
                            f"{done.returncode} ({'silent' if not said else said[-1]})")
        elif done.returncode != 0 and len(said) != 1:
            problems.append(f"clmodes {done.command}: rc {done.returncode} with {len(said)} "
                            f"lines of its own: {done.stderr[-1500:]}")
        if done.command.startswith("warm") and done.returncode == 0:
            problems += [f"after a warm that said done: {p}" for p in
                         final_check(directory, device, ("check",))]
    return problems


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
        tables = {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        # No tables: no process got to make the store this round (killed, or the disk
        # was full when each opened it): nothing is in it, and any claim is a loss.
        tuned = {json.loads(key).get("n") for (key,) in connection.execute(
            "SELECT tune_key FROM tune WHERE tunable=?", (TUNABLE,))} if "tune" in tables else set()
        notes = {model for (model,) in connection.execute("SELECT model FROM probe")} \
            if "probe" in tables else set()
    finally:
        connection.close()
    for outcome in outcomes:
        for line in outcome.committed:
            if line["committed"] == "tune" and line["n"] not in tuned:
                problems.append(f"a decision reported committed is gone: n={line['n']} "
                                f"(worker stopped by {outcome.stopped_by})")
            if line["committed"] == "note" and line["model"] not in notes:
                problems.append(f"a write reported committed is gone: {line['model']} "
                                f"(worker stopped by {outcome.stopped_by}; it said: "
                                f"{outcome.stderr[-600:]!r})")
    return problems


def final_check(directory: Path, device: str,
                verbs: tuple[str, ...] = ("warm", "check")) -> list[str]:
    """A warm of the whole workload, then `clmodes check`: both pass, results right."""
    problems = []
    env = environment(directory, CLMODES_DEVICE=device)
    for args in ([verb, "support.torture:final_workload"] for verb in verbs):
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
            steps: int = 20, report=print, full_disk: bool = False) -> list[str]:
    """`rounds` rounds on the store in `directory`, then the final check; every problem.
    `full_disk`: `directory` is a small file system of its own, filled for a moment in
    about half the rounds (`ci/torture_store.py --full-disk` mounts it)."""
    rng = random.Random(seed)
    problems: list[str] = []
    kills: dict[str, int] = {}
    commands: dict[str, int] = {}
    commits = filled = refused = 0
    for number in range(rounds):
        found = run_round(directory, rng, device, workers, steps, full_disk=full_disk)
        for outcome in found.outcomes:
            kills[str(outcome.stopped_by)] = kills.get(str(outcome.stopped_by), 0) + 1
        for done in found.commands:
            said = f"{done.command.split()[0]}:{done.stopped_by}:{done.returncode}"
            commands[said] = commands.get(said, 0) + 1
        commits += sum(len(o.committed) for o in found.outcomes)
        refused += sum(o.refused for o in found.outcomes)
        filled += found.filled
        problems += [f"round {number}: {p}" for p in found.problems]
        report(f"round {number}: stops {[o.stopped_by for o in found.outcomes]}, "
               f"commits {sum(len(o.committed) for o in found.outcomes)}, "
               f"command {[(d.command, d.stopped_by, d.returncode) for d in found.commands]}, "
               f"{'disk full for a moment, ' if found.filled else ''}"
               f"problems {len(found.problems)}")
    problems += final_check(directory, device)
    report(f"{rounds} rounds, {commits} commits checked, disk full in {filled} rounds "
           f"({refused} writes refused and said); "
           f"workers ended by {kills}; commands (verb:signal:status) {commands}; final warm "
           f"and check: {'ok' if not problems else 'FAILED'}; {len(problems)} problems")
    return problems
