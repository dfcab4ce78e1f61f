"""Spaces that seed their generator when it is first used, not when an environment resets.

Seeding a Gymnasium space builds a NumPy generator (tens of microseconds; three of them
for the observation's ``Dict``), which costs more than a whole 3x3 game when an
environment is reset with a seed every episode and nobody samples from its spaces.
:meth:`LazySeed.seed_later` records the seed; the generator is built from it on first
use, so every sample is the one an eager ``seed`` would have given.

>>> space = LazyDiscrete(9)
>>> space.seed_later(3)
>>> int(space.sample()) == int(_eager(3).sample())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["LazySeed", "LazyDiscrete", "LazyBox", "LazyDict"]


class LazySeed:
    """A space whose :meth:`seed_later` defers :meth:`seed` until its generator is needed."""

    _pending: int | None = None

    def seed_later(self, seed: int) -> None:
        """Seed with ``seed`` when the generator is first used (an eager ``seed`` wins)."""
        self._pending = seed

    def settle(self) -> None:
        """Apply a deferred seed now."""
        pending = self._pending
        if pending is not None:
            self.seed(pending)

    def seed(self, seed: Any = None) -> Any:
        self._pending = None
        return super().seed(seed)  # type: ignore[misc]

    @property
    def np_random(self) -> np.random.Generator:
        self.settle()
        generator: np.random.Generator = super().np_random  # type: ignore[misc]
        return generator


class LazyDiscrete(LazySeed, spaces.Discrete):
    """A ``Discrete`` space seeded lazily."""


class LazyBox(spaces.Box):
    """A ``Box`` inside a :class:`LazyDict`: the dict's deferred seed reaches it first."""

    parent: LazySeed | None = None

    def seed(self, seed: Any = None) -> Any:
        if self.parent is not None:
            self.parent.settle()
        return super().seed(seed)

    @property
    def np_random(self) -> np.random.Generator:
        if self.parent is not None:
            self.parent.settle()
        return super().np_random


class LazyDict(LazySeed, spaces.Dict):
    """A ``Dict`` space of :class:`LazyBox` spaces, seeded lazily."""

    def __init__(self, boxes: dict[str, spaces.Space[Any]]) -> None:
        super().__init__(boxes)
        for box in boxes.values():
            if isinstance(box, LazyBox):
                box.parent = self


def _eager(seed: int) -> spaces.Discrete:
    space = spaces.Discrete(9)
    space.seed(seed)
    return space
