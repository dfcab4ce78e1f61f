"""A batched Gymnasium environment: ``num_envs`` boards stepped at once in NumPy.

``gymnasium.make_vec("noughts/Noughts-v0", num_envs=N,
vectorization_mode="vector_entry_point", variant_name=...)`` returns it. Every board of
the family, the same observations as :class:`~noughts.rl.NoughtsEnv` batched
(``observation["action_mask"]`` has shape ``(N, cells)``), and two forms:

- against an opponent computed in the batch (``opponent=``): ``"random"`` (uniform over
  the legal moves, the single environment's ``"random"``), ``"rules"`` (win if it can,
  else block the agent's win, else random) or ``"exact"`` (a move of best exact value,
  ties at random, from :func:`~noughts.rl.tables.exact_table`: boards of at most 16
  cells). The agent plays ``agent="X"``, ``"O"`` or ``"alternate"``; a step is its move
  and the opponent's answer; rewards are the agent's.
- self-play (``opponent=None``): the action is for the side to move on each board, the
  observation is that side's, and the reward goes to the player who just moved.

Autoreset follows Gymnasium 1.x: ``metadata["autoreset_mode"]`` says which
(``NEXT_STEP`` by default: the step after an episode's end resets that board and ignores
its action; ``SAME_STEP`` resets at once and puts the last observation in
``info["final_obs"]``; ``DISABLED`` leaves finished boards to
``reset(options={"reset_mask": mask})``).

>>> import gymnasium, numpy as np
>>> import noughts.rl
>>> envs = gymnasium.make_vec("noughts/Noughts-v0", num_envs=3,
...     vectorization_mode="vector_entry_point", variant_name="3x3", opponent="exact")
>>> observation, info = envs.reset(seed=0)
>>> observation["observation"].shape, observation["action_mask"].shape
((3, 3, 3, 2), (3, 9))
>>> info["outcome"].tolist(), int(info["optimal_moves"][0].sum())  # draws, every move keeps it
([0, 0, 0], 9)
>>> observation, reward, terminated, truncated, info = envs.step(np.array([4, 0, 1]))
>>> reward.tolist(), terminated.tolist()
([0.0, 0.0, 0.0], [False, False, False])
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.rl.observation import Observation, action_space, observation_space
from noughts.rl.tables import WIN, ExactTable, exact_table, has_table, line_cells
from noughts.variants import Variant, variant

__all__ = ["NoughtsVectorEnv", "OPPONENTS", "make_vector_env"]

OPPONENTS = ("random", "rules", "exact")
"""The opponents computed in the batch (``None`` for self-play)."""
_ALIASES: dict[object, str] = {0: "random", "level:0": "random", 10: "exact", "level:10": "exact"}

X, NOUGHT = 1, -1  # a board's cells hold 1 for X, -1 for O, 0 when empty


class NoughtsVectorEnv(VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """``num_envs`` boards of ``variant_name`` stepped together: see the module docstring.

    ``exact_info=True`` (where a table serves) puts, for the agent to move, its exact
    ``outcome`` (+1 win, 0 draw, -1 loss), ``plies``, and the ``optimal_moves`` and
    ``keeping_moves`` as ``(N, cells)`` masks in ``info`` (``info["exact"]`` says where).
    A misere variant (``"3x3-misere"``) plays the game where completing a line loses.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        variant_name: str | Variant | Geometry = "3x3",
        opponent: object = "random",
        agent: Literal["X", "O", "alternate"] = "X",
        *,
        exact_info: bool = True,
        illegal_reward: float = -1.0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise NoughtsError(f"num_envs must be a positive integer, not {num_envs!r}")
        if agent not in ("X", "O", "alternate"):
            raise NoughtsError(f"agent must be 'X', 'O' or 'alternate', not {agent!r}")
        if render_mode is not None:
            raise NoughtsError("the batched environment does not render (render_mode=None)")
        self.game = variant(variant_name)
        self.geometry = self.game.geometry
        misere = self.game.misere  # a completed line loses: the rewards and tables say so
        name = _ALIASES.get(opponent, opponent) if _hashable(opponent) else opponent
        if name is not None and name not in OPPONENTS:
            raise NoughtsError(
                f"the batched opponent is one of {OPPONENTS} or None (self-play), not {opponent!r}"
            )
        if name == "rules" and misere:
            raise NoughtsError("the 'rules' opponent plays the usual game, not misere")
        self.opponent: str | None = name
        self.agent_side = agent
        self.misere = misere
        self.illegal_reward = illegal_reward
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        self.table: ExactTable | None = None
        if name == "exact" or (exact_info and has_table(self.geometry)):
            self.table = exact_table(self.game)  # raises off the small boards
        self.exact_info = exact_info and self.table is not None
        self.num_envs = num_envs
        self.single_observation_space = observation_space(self.geometry)
        self.single_action_space = action_space(self.geometry)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        cells = self.cells = self.geometry.cells
        # The winner's reward when a move completes a line (misere: the mover loses).
        self._line_reward = -1.0 if misere else 1.0
        self._lines = line_cells(self.geometry)
        self._line_matrix = np.zeros((len(self._lines), cells), dtype=np.float32)
        np.put_along_axis(self._line_matrix, self._lines, 1.0, axis=1)
        through = [np.flatnonzero(self._line_matrix[:, cell]) for cell in range(cells)]
        widest = max(len(lines) for lines in through)
        # Lines through each cell, padded with a repeat of the first (harmless: any line
        # the mover completed earlier would have ended the game).
        self._through = np.array([np.resize(lines, widest) for lines in through], dtype=np.intp)
        self._powers = 3 ** np.arange(cells, dtype=np.int64)
        self.board = np.zeros((num_envs, cells), dtype=np.int8)
        self.ply = np.zeros(num_envs, dtype=np.int16)
        self.agent = np.full(num_envs, NOUGHT if agent == "O" else X, dtype=np.int8)
        self.index = np.zeros(num_envs, dtype=np.int64)  # base-3 table index
        self.over = np.ones(num_envs, dtype=bool)
        self._episodes = np.zeros(num_envs, dtype=np.int64)
        self._rows = np.arange(num_envs)

    # -- the Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """New games on every board (or those of ``options["reset_mask"]``)."""
        super().reset(seed=seed)
        if seed is not None:
            self._episodes[:] = 0
        mask = None if options is None else options.get("reset_mask")
        rows = self._rows if mask is None else np.flatnonzero(np.asarray(mask, dtype=bool))
        info: dict[str, Any] = {}
        self._start(rows, info)
        return self._observe(), self._finish_info(info)

    def step(
        self, actions: np.ndarray
    ) -> tuple[Observation, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every board's move (self-play) or the agent's move and the opponent's answer."""
        actions = np.asarray(actions).reshape(self.num_envs)
        if not np.issubdtype(actions.dtype, np.integer):
            raise NoughtsError(f"actions are cell indices, not {actions.dtype}")
        reward = np.zeros(self.num_envs, dtype=np.float64)
        info: dict[str, Any] = {}
        waiting = self.over.copy()
        if self.autoreset_mode is AutoresetMode.NEXT_STEP and waiting.any():
            self._start(np.flatnonzero(waiting), info)
        live = np.flatnonzero(~waiting)
        terminated = np.zeros(self.num_envs, dtype=bool)
        if len(live):
            self._play_live(live, actions[live], reward, terminated, info)
        final = terminated.copy()
        observation = self._observe()
        if self.autoreset_mode is AutoresetMode.SAME_STEP and final.any():
            info["final_obs"], info["_final_obs"] = observation, final
            info["final_info"] = self._finish_info(dict(info))
            self._start(np.flatnonzero(final), info)
            observation = self._observe()
        truncated = np.zeros(self.num_envs, dtype=bool)
        return observation, reward, terminated, truncated, self._finish_info(info)

    # -- games ----------------------------------------------------------------------------
    def _start(self, rows: np.ndarray, info: dict[str, Any]) -> None:
        """New games on ``rows``; the opponent opens where the agent is O."""
        self.board[rows] = 0
        self.ply[rows] = 0
        self.index[rows] = 0
        self.over[rows] = False
        if self.agent_side == "alternate":
            self.agent[rows] = np.where(self._episodes[rows] % 2 == 0, X, NOUGHT)
        self._episodes[rows] += 1
        if self.opponent is not None:
            opening = rows[self.agent[rows] == NOUGHT]
            if len(opening):
                self._opponent_moves(opening, info)

    def _play_live(
        self,
        rows: np.ndarray,
        cells: np.ndarray,
        reward: np.ndarray,
        terminated: np.ndarray,
        info: dict[str, Any],
    ) -> None:
        """The movers' moves on ``rows``, then the opponent's answers where the game goes on."""
        legal = (cells >= 0) & (cells < self.cells)
        legal[legal] = self.board[rows[legal], cells[legal]] == 0
        if not legal.all():
            bad = rows[~legal]
            reward[bad] = self.illegal_reward
            terminated[bad] = self.over[bad] = True
            _put(info, "illegal_move", bad, cells[~legal], self.num_envs, -1)
            rows, cells = rows[legal], cells[legal]
        mover = self._to_move(rows)
        won, full = self._play(rows, cells, mover)
        ended = won | full
        if self.opponent is None:  # self-play: the reward goes to the mover
            reward[rows[won]] = self._line_reward
        else:
            reward[rows[won]] = self._line_reward
            going = rows[~ended]
            if len(going):
                answered, answer_won, answer_full = self._opponent_moves(going, info)
                reward[answered[answer_won]] = -self._line_reward
                terminated[answered[answer_won | answer_full]] = True
        terminated[rows[ended]] = True
        done = np.flatnonzero(terminated)
        self.over[done] = True
        if self.opponent is not None and len(done):
            _put(info, "result", done, np.sign(reward[done]).astype(np.int8), self.num_envs, 0)

    def _opponent_moves(
        self, rows: np.ndarray, info: dict[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The opponent's moves on ``rows``: (rows, won, full)."""
        mover = self._to_move(rows)
        empty = self.board[rows] == 0
        noise = self.np_random.random(empty.shape)
        if self.opponent == "random":
            priority = noise
        elif self.opponent == "rules":
            blocks, wins = self._completing(rows, -mover), self._completing(rows, mover)
            priority = noise + 2 * blocks + 4 * wins
        else:
            assert self.table is not None
            scores = self.table.move_scores(self.index[rows], np.where(mover == X, 1, 2))
            priority = noise + (scores == scores.max(axis=1, keepdims=True)) * 2
        cells = np.where(empty, priority, -1.0).argmax(axis=1)
        _put(info, "opponent_move", rows, cells, self.num_envs, -1)
        won, full = self._play(rows, cells, mover)
        return rows, won, full

    def _completing(self, rows: np.ndarray, mark: np.ndarray) -> np.ndarray:
        """Empty cells where ``mark`` would complete a line, per board (0/1 floats)."""
        board = self.board[rows]
        own = (board == mark[:, None]).astype(np.float32) @ self._line_matrix.T
        rival = (board == -mark[:, None]).astype(np.float32) @ self._line_matrix.T
        open_lines = (own == self.geometry.k - 1) & (rival == 0)
        completing = (open_lines.astype(np.float32) @ self._line_matrix) > 0
        return np.asarray(completing & (board == 0))

    def _play(
        self, rows: np.ndarray, cells: np.ndarray, mover: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``mover`` marks ``cells`` on ``rows`` (legal moves): did it complete a line, fill
        the board?"""
        self.board[rows, cells] = mover
        self.ply[rows] += 1
        self.index[rows] += np.where(mover == X, 1, 2) * self._powers[cells]
        lines = self._lines[self._through[cells]]  # (boards, lines through, k)
        won = (self.board[rows[:, None, None], lines] == mover[:, None, None]).all(2).any(1)
        full = ~won & (self.ply[rows] == self.cells)
        self.over[rows[won | full]] = True
        return won, full

    def _to_move(self, rows: np.ndarray) -> np.ndarray:
        return np.where(self.ply[rows] % 2 == 0, X, NOUGHT).astype(np.int8)

    # -- what the agent sees --------------------------------------------------------------
    def _viewer(self) -> np.ndarray:
        """The side each board's observation is for."""
        return self._to_move(self._rows) if self.opponent is None else self.agent

    def _observe(self) -> Observation:
        viewer = self._viewer()[:, None]
        planes = np.stack((self.board == viewer, self.board == -viewer), axis=-1)
        moving = ~self.over
        if self.opponent is not None:
            moving &= self._to_move(self._rows) == self.agent
        mask = (self.board == 0) & moving[:, None]
        return {
            "observation": planes.view(np.int8).reshape(self.num_envs, *self.geometry.shape, 2),
            "action_mask": mask.view(np.int8),
        }

    def _finish_info(self, info: dict[str, Any]) -> dict[str, Any]:
        """Add the exact values for the agent to move (where a table serves)."""
        if self.opponent is not None:
            info["agent"] = np.where(self.agent == X, "X", "O")
        else:
            info["to_move"] = np.where(self._to_move(self._rows) == X, "X", "O")
        if not self.exact_info:
            return info
        assert self.table is not None
        rows = np.flatnonzero(~self.over)
        scores = self.table.move_scores(self.index[rows], np.where(self._to_move(rows) == X, 1, 2))
        best = scores.max(axis=1)
        outcome = np.sign(best).astype(np.int8)
        plies = np.where(best == 0, self.cells - self.ply[rows], WIN - np.abs(best))
        keeping = np.where(outcome[:, None] > 0, scores > 0, scores >= outcome[:, None] * WIN)
        n, cells = self.num_envs, self.cells
        info["exact"] = ~self.over
        _put(info, "outcome", rows, outcome, n, 0)
        _put(info, "plies", rows, plies.astype(np.int16), n, 0)
        _put(info, "optimal_moves", rows, scores == best[:, None], n, False, cells)
        _put(info, "keeping_moves", rows, keeping, n, False, cells)
        return info

    # -- for people and tests -------------------------------------------------------------
    def position(self, board: int) -> Position:
        """Board number ``board`` as a :class:`~noughts.Position`.

        >>> envs = NoughtsVectorEnv(2, "4x4k3", opponent=None, exact_info=False)
        >>> _ = envs.reset(seed=0)
        >>> _ = envs.step(np.array([5, 0]))
        >>> envs.position(0).board
        '..../.X../..../....'
        """
        row = self.board[board]
        x = sum(1 << int(cell) for cell in np.flatnonzero(row == X))
        o = sum(1 << int(cell) for cell in np.flatnonzero(row == NOUGHT))
        return Position.from_bitboards(x, o, self.game)


def make_vector_env(num_envs: int = 1, **options: Any) -> NoughtsVectorEnv:
    """The ``vector_entry_point`` of ``noughts/Noughts-v0`` (``make_vec``'s arguments)."""
    options.pop("max_episode_steps", None)
    return NoughtsVectorEnv(num_envs, **options)


def _put(
    info: dict[str, Any],
    key: str,
    rows: np.ndarray,
    values: np.ndarray,
    boards: int,
    blank: object,
    width: int | None = None,
) -> None:
    """``info[key][rows] = values`` with Gymnasium's ``info["_key"]`` mask beside it."""
    if key not in info:
        shape = (boards,) if width is None else (boards, width)
        info[key] = np.full(shape, blank, dtype=np.asarray(values).dtype)
        info["_" + key] = np.zeros(boards, dtype=bool)
    info[key][rows] = values
    info["_" + key][rows] = True


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
