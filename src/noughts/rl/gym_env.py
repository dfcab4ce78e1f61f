"""A Gymnasium environment: one agent against a noughts opponent, on any board.

The agent plays X, O or each side in turn (``agent="alternate"``); the opponent is named
in the one grammar of :mod:`noughts.rl.opponents` (``"random"`` by default, as in every
environment; ``"rules"``, ``"exact"``, an engine level 0-10, or any player spec:
``"level:7"``, ``"seed-qubic:2"``, a player object, a function ``f(position) -> cell``).
An engine opponent searches :data:`~noughts.rl.opponents.OPPONENT_NODES` nodes a move
(``opponent_nodes=``), so a seed replays the same games under any load;
``opponent_seconds=`` bounds it by time instead (see :mod:`noughts.rl.opponents`).
``render_mode`` is ``"ansi"`` (text), ``"human"`` (printed) or ``"rgb_array"`` (an image
of the board, :func:`~noughts.rl.render.board_image`: what Stable-Baselines3's
``make_vec_env`` asks for and Gymnasium's ``RecordVideo`` records). The environment
deep-copies and pickles (the opponent is rebuilt from its spec). Observations are those of
:func:`~noughts.rl.observation.observe` for the agent; the action is a cell. The reward
is +1 for a win, -1 for a loss, 0 otherwise; an illegal action ends the episode with
``illegal_reward`` (and ``info["illegal_move"]``).

Where the exact solver can finish the position, ``info`` carries its exact value for the
agent and the optimal and result-keeping moves (see :class:`~noughts.rl.exact.ExactView`);
elsewhere ``info["exact"]`` is ``False``.

Registered as ``noughts/Noughts-v0`` when :mod:`noughts.rl` is imported:

>>> import gymnasium
>>> import noughts.rl
>>> env = gymnasium.make("noughts/Noughts-v0", variant_name="3x3", opponent=10)
>>> observation, info = env.reset(seed=0)
>>> info["outcome"], info["optimal_moves"]
('draw', (0, 1, 2, 3, 4, 5, 6, 7, 8))
>>> observation, reward, terminated, truncated, info = env.step(1)  # an edge: still a draw
>>> info["opponent_move"], info["outcome"], terminated
(0, 'draw', False)
"""

from __future__ import annotations

from typing import Any, Literal

import gymnasium
import numpy as np

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.players.protocol import Player
from noughts.position import Position
from noughts.results import Mark
from noughts.rl.aec import render_text
from noughts.rl.exact import exact_view
from noughts.rl.observation import (
    Observation,
    action_cell,
    action_space,
    observation_space,
    observe,
)
from noughts.rl.opponents import (
    DEFAULT_OPPONENT,
    OPPONENT_NODES,
    opponent_allowance,
    player_spec,
)
from noughts.rl.render import board_image
from noughts.variants import variant

__all__ = ["GYM_ID", "NoughtsEnv", "register", "AgentSide"]

GYM_ID = "noughts/Noughts-v0"
AgentSide = Literal["X", "O", "alternate"]
RENDER_MODES = ("ansi", "human", "rgb_array")


def register() -> None:
    """Register :data:`GYM_ID` with Gymnasium (once)."""
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            GYM_ID,
            entry_point="noughts.rl.gym_env:NoughtsEnv",
            vector_entry_point="noughts.rl.vector_env:make_vector_env",
        )


class NoughtsEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """The agent against ``opponent`` on ``variant_name``: see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        variant_name: str | Geometry = "3x3",
        opponent: int | object = DEFAULT_OPPONENT,
        agent: AgentSide = "X",
        *,
        render_mode: str | None = None,
        exact_info: bool = True,
        illegal_reward: float = -1.0,
        opponent_nodes: int | None = OPPONENT_NODES,
        opponent_seconds: float | None = None,
    ) -> None:
        if agent not in ("X", "O", "alternate"):
            raise NoughtsError(f"agent must be 'X', 'O' or 'alternate', not {agent!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise NoughtsError(f"render_mode must be one of {RENDER_MODES} or None")
        self.game = variant(variant_name)
        self.geometry = self.game.geometry
        if self.game.misere and player_spec(opponent).name == "rules":
            raise NoughtsError("the 'rules' opponent plays the usual game, not misere")
        self.opponent = opponent  # as given: the spec is rebuilt from it when unpickled
        self.opponent_spec = player_spec(opponent)
        opponent_allowance(opponent_nodes, opponent_seconds)  # checked now
        self.opponent_nodes, self.opponent_seconds = opponent_nodes, opponent_seconds
        self.agent_side: AgentSide = agent
        self.render_mode = render_mode
        self.exact_info = exact_info
        self.illegal_reward = illegal_reward
        self.observation_space = observation_space(self.geometry)
        self._actions = action_space(self.geometry)  # seeded lazily (noughts.rl.spaces)
        self.action_space = self._actions
        self.position = Position("", self.game)
        self.agent_mark: Mark = "O" if agent == "O" else "X"
        self._episodes = 0
        self._over = True
        self._opponent: Player | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game; ``seed`` seeds the opponent (and the action space's sampling)."""
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset starts the sequence over: X first when alternating
            self._actions.seed_later(seed)
            self._episodes = 0
        if self.agent_side == "alternate":
            self.agent_mark = "X" if self._episodes % 2 == 0 else "O"
        self._episodes += 1
        self._opponent = self.opponent_spec.create(
            seed=int(self.np_random.integers(2**63)),
            allowance=opponent_allowance(self.opponent_nodes, self.opponent_seconds),
        )
        self.position = Position("", self.game)
        self._over = False
        info: dict[str, Any] = {"agent": self.agent_mark}
        if self.agent_mark == "O":
            info["opponent_move"] = self._opponent_moves()
        info.update(self._exact_info())
        if self.render_mode == "human":
            self.render()
        return observe(self.position, self.agent_mark), info

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """The agent marks cell ``action``; then the opponent answers unless the game ended."""
        if self._over:
            raise NoughtsError("the episode is over: call reset() to start a new game")
        cell = action_cell(action)
        info: dict[str, Any] = {"agent": self.agent_mark}
        if cell not in self.position.legal_moves:
            self._over = True
            info["illegal_move"] = cell
            return observe(self.position, self.agent_mark), self.illegal_reward, True, False, info
        self.position = self.position.play(cell)
        if not self.position.is_over:
            info["opponent_move"] = self._opponent_moves()
        reward = 0.0
        result = self.position.result
        if result is not None:
            self._over = True
            reward = 0.0 if result.winner is None else _sign(result.winner == self.agent_mark)
            info["result"] = "draw" if reward == 0 else "win" if reward > 0 else "loss"
        else:
            info.update(self._exact_info())
        if self.render_mode == "human":
            self.render()
        return observe(self.position, self.agent_mark), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """The agent's legal moves as booleans, one per cell (sb3-contrib's MaskablePPO
        reads this method); all ``False`` once the episode is over.

        >>> env = NoughtsEnv("3x3", opponent=10, agent="O")
        >>> _, info = env.reset(seed=0)
        >>> env.action_masks().tolist()
        [False, True, True, True, True, True, True, True, True]
        """
        legal = 0 if self._over else self.position.legal_moves.mask
        return np.array([legal >> cell & 1 for cell in range(self.geometry.cells)], dtype=bool)

    def _opponent_moves(self) -> int:
        assert self._opponent is not None
        cell = self._opponent.move(self.position, Limit()).move
        self.position = self.position.play(cell)
        return cell

    def _exact_info(self) -> dict[str, Any]:
        view = exact_view(self.position) if self.exact_info else None
        return view.as_info() if view is not None else {"exact": False}

    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``), printed too (``"human"``), or as an RGB image
        (``"rgb_array"``).

        >>> env = NoughtsEnv("3x3", render_mode="rgb_array")
        >>> _ = env.reset(seed=0)
        >>> env.render().shape
        (96, 96, 3)
        """
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return board_image(self.position)
        text = render_text(self.position)
        if self.render_mode == "human":
            print(text)
            return None
        return text


    def __getstate__(self) -> dict[str, Any]:
        """The state to pickle: the opponent's spec is left out (its recipe is a closure)
        and rebuilt from :attr:`opponent`; the current game's opponent player stays."""
        state = self.__dict__.copy()
        del state["opponent_spec"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.opponent_spec = player_spec(self.opponent)


def _sign(won: bool) -> float:
    return 1.0 if won else -1.0
