"""A PettingZoo AEC environment for every board noughts plays.

Two agents, ``"player_1"`` (X, moving first) and ``"player_2"`` (O), named as in
PettingZoo's ``tictactoe_v3``. Each sees :func:`~noughts.rl.observation.observe` (its own
marks, the opponent's, and a mask of its legal moves); the action is a cell, numbered
row-major (``tictactoe_v3`` numbers its cells column by column). At the end the winner
gets +1 and the loser -1 (0 each for a draw). ``render_mode="ansi"``
returns the board as text, ``"human"`` prints it, ``"rgb_array"`` returns it as an image
(:func:`~noughts.rl.render.board_image`).

:func:`aec_env` is the environment to use: like :class:`NoughtsAECEnv` in PettingZoo's
usual wrappers, an illegal move ends the game with -1 for the agent that made it, but
done in the class (:class:`CheckedAECEnv`), which steps several times faster. The bare
class raises :class:`~noughts.IllegalMoveError` instead.

>>> env = aec_env("4x4k3")
>>> env.reset(seed=1)
>>> env.agent_selection, env.action_space("player_1").n
('player_1', np.int64(16))
>>> for cell in (0, 4, 1, 5, 2):
...     env.step(cell)
>>> env.terminations["player_2"], env.rewards
(True, {'player_1': 1, 'player_2': -1})
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from noughts.geometry import Geometry
from noughts.position import Position, other
from noughts.results import Mark
from noughts.rl.observation import (
    Observation,
    action_cell,
    action_space,
    encode,
    observation_space,
)
from noughts.rl.render import board_image
from noughts.variants import variant

__all__ = [
    "AGENTS",
    "AGENT_OF",
    "BEFORE_RESET",
    "CheckedAECEnv",
    "NoughtsAECEnv",
    "aec_env",
    "render_text",
]

AGENTS: dict[str, Mark] = {"player_1": "X", "player_2": "O"}
"""Agent names and their marks."""
AGENT_OF: dict[Mark, str] = {mark: agent for agent, mark in AGENTS.items()}
RENDER_MODES = ("ansi", "human", "rgb_array")


def render_text(position: Position) -> str:
    """The board as text with whose turn it is or how the game ended.

    >>> print(render_text(Position("XX./OO./...")))
    X X .
    O O .
    . . .
    X to move
    """
    result = position.result
    if result is None:
        status = f"{position.to_move} to move"
    elif result.winner is None:
        status = "draw"
    else:
        status = f"{result.winner} wins"
    return f"{position}\n{status}"


class NoughtsAECEnv(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type hints
    """The bare environment (no wrappers): see the module docstring."""

    metadata = {  # noqa: RUF012  (PettingZoo reads it from the class)
        "render_modes": list(RENDER_MODES),
        "name": "noughts_v0",
        "is_parallelizable": False,
    }

    def __init__(self, variant_name: str | Geometry = "3x3", render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be one of {RENDER_MODES} or None, not {render_mode!r}"
            )
        self.game = variant(variant_name)
        self.geometry = self.game.geometry
        self.render_mode = render_mode
        self.possible_agents: list[str] = list(AGENTS)
        self._observation_space = observation_space(self.geometry)
        self._action_space = action_space(self.geometry)
        self._start()

    @property
    def position(self) -> Position:
        """The game so far, as a :class:`~noughts.Position`."""
        return Position.from_bitboards(self._x, self._o, self.game)

    def _start(self) -> None:
        # The board as two bitboards and the mark to move: a step is a few integer
        # operations and a look at the lines through the cell just played.
        self._x = self._o = 0
        self._mover: Mark = "X"
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = AGENT_OF["X"]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    def observe(self, agent: str) -> Observation:
        x, o = self._x, self._o
        own, rival = (x, o) if AGENTS[agent] == "X" else (o, x)
        # The game's end is known here: no need to look for a line again.
        playing = agent == self.agent_selection and not self.terminations.get(agent, True)
        return encode(self.geometry, own, rival, self.geometry.full & ~(x | o) if playing else 0)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game on the empty board; ``seed`` seeds the action spaces' sampling (when
        they are first sampled: see :mod:`noughts.rl.spaces`)."""
        if seed is not None:
            self._action_space.seed_later(seed)
            self._observation_space.seed_later(seed)
        self._start()

    def step(self, action: int | np.integer[Any]) -> None:
        """The agent to move marks cell ``action`` (a finished agent's step passes ``None``)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        cell = action_cell(action)
        geometry = self.geometry
        x, o, mover = self._x, self._o, self._mover
        if not 0 <= cell < geometry.cells or (x | o) >> cell & 1:
            self.position.play(cell)  # raises the engine's own error, naming the cell
        if mover == "X":
            self._x = marks = x | 1 << cell
        else:
            self._o = marks = o | 1 << cell
        rival = other(mover)
        if geometry.wins_after(marks, cell):  # a line: the mover wins (misere: loses)
            winner = rival if self.game.misere else mover
            self.rewards[AGENT_OF[winner]] = 1
            self.rewards[AGENT_OF[other(winner)]] = -1
            self.terminations = dict.fromkeys(self.agents, True)
        elif self._x | self._o == geometry.full:
            self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._mover = rival
        self.agent_selection = AGENT_OF[rival]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``), printed too (``"human"``), or an RGB image
        (``"rgb_array"``)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return board_image(self.position)
        text = render_text(self.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


BEFORE_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents"}
)
"""What ``OrderEnforcingWrapper`` refuses to read before ``reset()``."""


class CheckedAECEnv(NoughtsAECEnv):
    """The environment as :func:`aec_env` gives it: what PettingZoo's
    ``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` do, done in the class (the three wrappers cost four times
    a step of the bare environment). An action outside the action space fails an
    assertion; a move on an occupied cell ends the game with -1 for the agent that made
    it (PettingZoo's warning included) and 0 for the other. Before the first ``reset()``,
    ``step``, ``observe``, ``render``, ``state`` and ``agent_iter`` raise PettingZoo's own
    errors and :data:`BEFORE_RESET`'s attributes (so ``last()`` too) raise
    ``AttributeError``, as ``OrderEnforcingWrapper`` has it.

    >>> env = aec_env("3x3")
    >>> env.step(4)
    Traceback (most recent call last):
    ...
    AssertionError: reset() needs to be called before step.
    >>> env.reset()
    >>> env.step(4)
    """

    illegal_reward = -1.0
    _has_reset = False

    def __init__(self, variant_name: str | Geometry = "3x3", render_mode: str | None = None):
        super().__init__(variant_name, render_mode)
        for name in BEFORE_RESET:
            delattr(self, name)

    def __getattr__(self, name: str) -> Any:
        """Only reached for a missing attribute: :data:`BEFORE_RESET`'s before ``reset()``."""
        if name in BEFORE_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> Observation:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()  # type: ignore[no-any-return]

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return super().agent_iter(max_iter)

    def step(self, action: int | np.integer[Any] | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        agent = self.agent_selection
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self._action_space.contains(action), "action is not in action space"
        if (self._x | self._o) >> int(action) & 1:  # type: ignore[arg-type]
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards = dict.fromkeys(self.agents, 0)
            self.rewards[agent] = self.illegal_reward  # type: ignore[assignment]
            self._accumulate_rewards()
            self._deads_step_first()
            return
        super().step(action)  # type: ignore[arg-type]


def aec_env(variant_name: str | Geometry = "3x3", render_mode: str | None = None) -> Any:
    """The environment to use: illegal moves end the game with -1 (as PettingZoo's usual
    wrappers have it; see :class:`CheckedAECEnv`)."""
    return CheckedAECEnv(variant_name, render_mode)
