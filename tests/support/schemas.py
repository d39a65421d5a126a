"""Small schemas for the JSON the command prints, and a checker (no dependency).

A schema is a type or tuple of types (`(float, NONE)`: a number or null), a dict of
key -> schema (exactly those keys: a field added to the output must be added here), a
one-item list (every item matches it), or a predicate (a function returning a bool).
`check` raises AssertionError naming the path of the first value that does not match.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NONE = type(None)
NUMBER = (int, float)
MAYBE_NUMBER = (int, float, NONE)
MAYBE_TEXT = (str, NONE)


def check(value: Any, schema: Any, path: str = "$") -> None:
    if isinstance(schema, dict):
        assert isinstance(value, dict), f"{path}: expected an object, got {value!r}"
        assert set(value) == set(schema), (
            f"{path}: keys differ: missing {sorted(set(schema) - set(value))}, "
            f"unexpected {sorted(set(value) - set(schema))}")
        for key, item in schema.items():
            check(value[key], item, f"{path}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), f"{path}: expected an array, got {value!r}"
        for index, item in enumerate(value):
            check(item, schema[0], f"{path}[{index}]")
    elif isinstance(schema, (type, tuple)):
        types = schema if isinstance(schema, tuple) else (schema,)
        assert isinstance(value, types) and not (isinstance(value, bool) and bool not in types), \
            f"{path}: expected {' or '.join(t.__name__ for t in types)}, got {value!r}"
    elif callable(schema):
        assert schema(value), f"{path}: {value!r} does not satisfy {schema.__name__}"
    else:
        raise TypeError(f"not a schema: {schema!r}")


def one_of(*choices: object) -> Callable[[object], bool]:
    def is_one(value: object) -> bool:
        return value in choices
    is_one.__name__ = f"one of {choices}"
    return is_one


def non_negative(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


SPREAD = {"nodes": (int, NONE), "measured_on": dict, "reraced_on": MAYBE_TEXT,
          "adopted_on": MAYBE_TEXT}

CHECK = {"reference": MAYBE_TEXT, "candidates": (int, NONE), "seconds": MAYBE_NUMBER,
         "bytes_copied": (int, NONE)}

NOT_CHOSEN = {"reason": one_of("lost-final", "not-in-final", "unrecorded"), "text": str,
              "faster": NUMBER, "final_rounds": (int, NONE), "slower_rounds": (int, NONE),
              "shared_rounds": (int, NONE), "score": MAYBE_NUMBER, "winner_score": MAYBE_NUMBER}

FINAL = {"order": [str], "rounds": int, "scores": dict, "against_winner": dict, "from_race": int}

TUNE_SUMMARY = {
    "tunable": str, "key": str, "model": str, "device": MAYBE_TEXT, "winner": str,
    "winner_median_s": MAYBE_NUMBER, "runner_up": MAYBE_TEXT,
    "runner_up_median_s": MAYBE_NUMBER, "runner_up_ratio": MAYBE_NUMBER,
    "measured": int, "dropped": int, "configs": int, "space_size": (int, NONE),
    "roofline": MAYBE_NUMBER, "origin": one_of("here", "imported", "unknown"),
    "host": MAYBE_TEXT, "measured_at": MAYBE_NUMBER, "tune_seconds": MAYBE_NUMBER,
    "clmodes": MAYBE_TEXT,
    "spread": lambda v: v is None or check(v, SPREAD) is None,  # a tune spread over a fleet
    "inputs_replaced": [str],  # arguments measured on uniform values (clmodes.tune.measuring.inputs)
    "check": lambda v: v is None or check(v, CHECK) is None,  # outputs checked (tune.checking.reference)
    "grade": one_of("exact", "family", "vendor", "across"),  # tune.answers.nearest
    "graded_from": [str],
    "verified": lambda v: v is None or isinstance(v, dict),  # tune.answers.verify
    # why a runner-up faster by median was not chosen (tune.reporting.report.RunnerUpNote)
    "runner_up_not_chosen": lambda v: v is None or check(v, NOT_CHOSEN) is None,
}

TUNE_LIST = {"store": str, "host": str, "unit": one_of("s"), "tunable": MAYBE_TEXT,
             "entries": [TUNE_SUMMARY]}

CANDIDATE = {
    "name": str, "winner": bool, "median_s": non_negative, "min_s": non_negative,
    "max_s": non_negative, "q1_s": non_negative, "q3_s": non_negative, "samples": int,
    "samples_s": [non_negative], "discarded_samples": int, "roofline": MAYBE_NUMBER,
    "runs_per_sample": int, "parameters": dict,
}

DROPPED = {"name": str, "kind": one_of("screened", "slower", "failed", "untimed", "wrong",
                                                 "other"),
           "reason": str, "summary": str}

COST = {"bytes_moved": NUMBER, "flops": NUMBER, "bandwidth_gbps": NUMBER,
        "compute_gflops": NUMBER}

TUNE_KEY = {**TUNE_SUMMARY, "statistic": str, "unit": one_of("s"), "candidates": [CANDIDATE],
            "dropped_candidates": [DROPPED], "cost": lambda v: v is None or check(v, COST) is None,
            "roofline_s": MAYBE_NUMBER,
            "final": lambda v: v is None or check(v, FINAL) is None}  # the final (tune.measuring.finals)

TUNE_SHOW = {"store": str, "unit": one_of("s"), "keys": [TUNE_KEY]}

TUNE_PLOT = {"file": str, "tunable": str, "key": str, "model": str, "winner": str}

TUNE_FORGET = {"store": str, "deleted": int,
               "entries": [{"model": str, "tunable": str, "key": str}]}
