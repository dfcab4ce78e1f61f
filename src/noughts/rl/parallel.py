"""PettingZoo's parallel form of the same game: every live agent hands in an action at
every step, and the agent whose turn it is plays it.

The game takes turns, so at each step one agent moves: the one whose ``action_mask`` is
not all zeros (``infos[agent]["to_move"]`` says it too). The other agent's action is
ignored (any value will do; PettingZoo's tests sample it from the all-zero mask). The
agents, observations, rewards and the handling of illegal moves are those of
:func:`~noughts.rl.aec_env` (an illegal move ends the game with -1 for the agent that
made it); both agents finish together, when the game ends. ``render_mode`` is
``"ansi"``, ``"human"`` or ``"rgb_array"``.

>>> env = parallel_env("3x3")
>>> observations, infos = env.reset(seed=0)
>>> [agent for agent in env.agents if infos[agent]["to_move"]]
['player_1']
>>> for cell in (0, 3, 1, 4, 2):  # X takes the top row
...     mover = next(agent for agent in env.agents if infos[agent]["to_move"])
...     observations, rewards, terminations, truncations, infos = env.step(
...         {agent: cell if agent == mover else 0 for agent in env.agents})
>>> rewards, env.agents
({'player_1': 1.0, 'player_2': -1.0}, [])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.rl.aec import AGENTS, RENDER_MODES, CheckedAECEnv
from noughts.rl.observation import Observation

__all__ = ["NoughtsParallelEnv", "parallel_env"]


class NoughtsParallelEnv(ParallelEnv):  # type: ignore[misc]  # PettingZoo ships no type hints
    """The parallel form: see the module docstring."""

    metadata = {  # noqa: RUF012  (PettingZoo reads it from the class)
        "render_modes": list(RENDER_MODES),
        "name": "noughts_parallel_v0",
        "is_parallelizable": True,
    }

    def __init__(self, variant_name: str | Geometry = "3x3", render_mode: str | None = None):
        self._game = CheckedAECEnv(variant_name, render_mode)
        self.render_mode = render_mode
        self.possible_agents: list[str] = list(AGENTS)
        self.agents: list[str] = []

    @property
    def position(self) -> Position:
        """The game so far, as a :class:`~noughts.Position`."""
        return self._game.position

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._game.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._game.action_space(agent)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """A new game on the empty board; ``seed`` seeds the spaces' sampling."""
        self._game.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos()

    def step(
        self, actions: dict[str, int | np.integer[Any] | None]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """The agent to move plays its action; the others' actions are ignored."""
        if not self.agents:
            raise NoughtsError("the game is over: call reset() to start a new one")
        mover = self._game.agent_selection
        if mover not in actions or actions[mover] is None:
            raise NoughtsError(f"{mover} is to move: its action is missing from {actions!r}")
        self._game.step(actions[mover])
        game = self._game
        live = self.agents
        observations = self._observations()
        rewards = {agent: float(game.rewards[agent]) for agent in live}
        terminations = {agent: bool(game.terminations[agent]) for agent in live}
        truncations = {agent: bool(game.truncations[agent]) for agent in live}
        infos = self._infos()
        if any(terminations.values()) or any(truncations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Observation]:
        return {agent: self._game.observe(agent) for agent in self.agents}

    def _infos(self) -> dict[str, dict[str, Any]]:
        game = self._game
        over = any(game.terminations.values())
        return {
            agent: {"to_move": not over and agent == game.agent_selection}
            for agent in self.agents
        }

    def render(self) -> str | np.ndarray | None:
        """As :meth:`NoughtsAECEnv.render <noughts.rl.aec.NoughtsAECEnv.render>`."""
        return self._game.render()

    def close(self) -> None:
        """Nothing to release."""


def parallel_env(variant_name: str | Geometry = "3x3", render_mode: str | None = None) -> Any:
    """The parallel form of :func:`~noughts.rl.aec_env` for ``variant_name``."""
    return NoughtsParallelEnv(variant_name, render_mode)
