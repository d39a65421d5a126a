"""`start=`: the configs a space's search measures first, before its strategy proposes.

A strategy started cold spends its first generations finding the region where good
configs live; a kernel's author usually knows it per kind of device (CLBlast ships
per-device defaults for the same reason). `Tunable(space=..., start=[...])` or
`start=fn(device) -> [configs]` makes those configs the first generation, built in one
batch with the rest of it; their times are then told to the strategy as if a previous
tune had measured them, so a local search starts from the best of them, a genetic one
breeds from them, a random or exhaustive one skips them. The strategy is otherwise
unchanged, and so is every rule of a tune: under COMPILE_ONLY the start configs are what
is queued, the budget counts them, a stored measurement of one is reused.

Why a device callable and not one list: the best regions of a GEMM on a CPU (no local
memory staging, wide vectors) and on a GPU (staged tiles) are far apart, and on PoCL a
config that stages through local memory costs several times the code generation at its
first launch of one that does not (`kernels_cl.gemm`; first launches per config were
measured by the former `ci/bench/bench_gemm_batch.py` at commit 2fb9fda,
docs/decisions/generation-size.md): starting a CPU tune from GPU configs would cost more
than the whole tune should.

The start is part of what a decision is about (the tunable's checksum), like the strategy:
a changed start is a new decision, with every stored measurement reused.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

from clmodes.tune.search.space import Config, TuningSpace, Value

log = logging.getLogger("clmodes")

StartConfigs = Sequence[Mapping[str, Value]]
StartSpec = Union[StartConfigs, Callable[[Any], StartConfigs]]


@dataclasses.dataclass(frozen=True)
class Start:
    """Where a search starts: fixed configs, or a function of the device."""

    configs: tuple[Config, ...] = ()
    chooser: Callable[[Any], StartConfigs] | None = None

    @classmethod
    def of(cls, spec: StartSpec | None, space: TuningSpace, owner: str) -> "Start":
        """Checked now where it can be: a fixed config that is not valid in the space is
        the tunable's author's mistake, refused in one line naming it."""
        if spec is None:
            return cls()
        if callable(spec):
            return cls(chooser=spec)
        if isinstance(spec, (str, bytes, Mapping)):
            raise TypeError(f"{owner}: start= takes a list of configs or fn(device) -> configs, "
                            f"not one {type(spec).__name__}")
        return cls(configs=tuple(_checked(config, space, owner) for config in spec))

    @property
    def label(self) -> str:
        """What the start is, for the tunable's checksum."""
        if self.chooser is not None:
            module = getattr(self.chooser, "__module__", "?")
            return f"start={module}.{getattr(self.chooser, '__qualname__', repr(self.chooser))}"
        return "start=" + ";".join(",".join(f"{k}={v}" for k, v in c.items()) for c in self.configs)

    def configs_for(self, device: Any, space: TuningSpace, owner: str) -> list[Config]:
        """The start configs for `device` (None: unknown, the fixed ones only). A chooser
        that raises or returns a config outside the space costs that config, with one
        warning, never the tune."""
        if self.chooser is None or device is None:
            return list(self.configs)
        try:
            chosen = list(self.chooser(device))
        except Exception as error:  # noqa: BLE001 - a start is a hint, never a failure
            log.warning("%s: start chooser failed on %s (%s); starting from the strategy alone",
                        owner, getattr(device, "label", device), error)
            return []
        configs = []
        for config in chosen:
            try:
                configs.append(_checked(config, space, owner))
            except (TypeError, ValueError) as error:
                log.warning("%s: %s; skipped", owner, error)
        return configs


def _checked(config: object, space: TuningSpace, owner: str) -> Config:
    if not isinstance(config, Mapping):
        raise TypeError(f"{owner}: a start config must be a mapping, not {type(config).__name__}")
    unknown = sorted(set(config) - set(space.params))
    if unknown:
        raise ValueError(f"{owner}: start config {dict(config)} has parameters its space "
                         f"lacks: {', '.join(unknown)}")
    try:
        name = space.name(config)
        return space.config(name)
    except ValueError as error:
        raise ValueError(f"{owner}: start config is not one of its space: {error}") from None
