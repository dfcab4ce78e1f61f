"""A batched Gymnasium environment: ``num_envs`` boards stepped at once, in C
(:mod:`noughts.rl.native`) or in NumPy, its reference.

``gymnasium.make_vec("noughts/Noughts-v0", num_envs=N,
vectorization_mode="vector_entry_point", variant_name=...)`` returns it. Every board of
the family, the same observations as :class:`~noughts.rl.NoughtsEnv` batched
(``observation["action_mask"]`` has shape ``(N, cells)``), and two forms:

- against an opponent computed in the batch (``opponent=``, in the one grammar of
  :mod:`noughts.rl.opponents`; ``"random"`` by default): ``"random"`` (uniform over the
  legal moves; level 0), ``"rules"`` (win if it can, else block the agent's win, else
  random) or ``"exact"`` (level 10: a move of best exact value, ties at random, from
  :func:`~noughts.rl.tables.exact_table` on boards of at most 16 cells; on Qubic, as X,
  the shipped strategy's winning moves), or a function on the batched observation (a
  frozen policy: :func:`~noughts.rl.opponents.policy_moves`). The agent plays
  ``agent="X"``, ``"O"`` or ``"alternate"``; a step is its move and the opponent's
  answer; rewards are the agent's.
- self-play (``opponent=None``): the action is for the side to move on each board, the
  observation is that side's, and the reward goes to the player who just moved.

Autoreset follows Gymnasium 1.x: ``metadata["autoreset_mode"]`` says which
(``NEXT_STEP`` by default: the step after an episode's end resets that board and ignores
its action; ``SAME_STEP`` resets at once, as ``SyncVectorEnv`` does: the finished boards'
last observations in ``info["final_obs"]`` (an object array, one observation or ``None``
per board) and a deep copy of their last ``info`` in ``info["final_info"]``, each with its
``_`` mask, while ``info`` itself holds the new games'; ``DISABLED`` leaves finished
boards to ``reset(options={"reset_mask": mask})``). ``max_episode_steps`` (which
``make_vec`` passes on) truncates a board's episode after that many agent steps.

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

import copy
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from noughts.errors import NoughtsError
from noughts.geometry import Geometry
from noughts.position import Position
from noughts.rl.native import NativeStep
from noughts.rl.observation import Observation, action_space, observation_space
from noughts.rl.opponents import (
    BATCHED,
    DEFAULT_OPPONENT,
    Batched,
    batched_opponent,
    policy_moves,
)
from noughts.rl.render import board_image
from noughts.rl.strategy_x import strategy_x_move, strategy_x_serves
from noughts.rl.tables import (
    NO_MOVE,
    WIN,
    ExactTable,
    exact_table,
    has_table,
    line_cells,
)
from noughts.variants import Variant, variant

__all__ = ["NoughtsVectorEnv", "OPPONENTS", "make_vector_env", "strategy_x_move"]

OPPONENTS = BATCHED
"""The opponents computed in the batch (``None`` for self-play; see
:mod:`noughts.rl.opponents`)."""

X, NOUGHT = 1, -1  # a board's cells hold 1 for X, -1 for O, 0 when empty
_MARKS = np.array(["X", "O"])  # the mark of X (0) and O (1), for info


class NoughtsVectorEnv(VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """``num_envs`` boards of ``variant_name`` stepped together: see the module docstring.

    ``exact_info=True`` (where a table serves) puts, for the agent to move, its exact
    ``outcome`` (+1 win, 0 draw, -1 loss), ``plies``, the ``optimal_moves`` and
    ``keeping_moves`` as ``(N, cells)`` masks and every cell's exact ``move_values``
    (``(N, cells)`` ``int16``, as :class:`~noughts.rl.exact.ExactView` has them) in
    ``info`` (``info["exact"]`` says where).
    A misere variant (``"3x3-misere"``) plays the game where completing a line loses.
    """

    metadata = {  # noqa: RUF012
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["rgb_array"],
        "render_fps": 4,
    }

    def __init__(
        self,
        num_envs: int = 1,
        variant_name: str | Variant | Geometry = "3x3",
        opponent: object = DEFAULT_OPPONENT,
        agent: Literal["X", "O", "alternate"] = "X",
        *,
        exact_info: bool = True,
        illegal_reward: float = -1.0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        native: bool | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise NoughtsError(f"num_envs must be a positive integer, not {num_envs!r}")
        if agent not in ("X", "O", "alternate"):
            raise NoughtsError(f"agent must be 'X', 'O' or 'alternate', not {agent!r}")
        if render_mode not in (None, "rgb_array"):
            raise NoughtsError(
                f"the batched environment renders 'rgb_array' (one image per board) or "
                f"nothing (None), not {render_mode!r}"
            )
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, int)
            or max_episode_steps < 1
        ):
            raise NoughtsError(
                f"max_episode_steps must be a positive integer or None, not {max_episode_steps!r}"
            )
        self.game = variant(variant_name)
        self.geometry = self.game.geometry
        misere = self.game.misere  # a completed line loses: the rewards and tables say so
        name = batched_opponent(opponent)
        if name == "rules" and misere:
            raise NoughtsError("the 'rules' opponent plays the usual game, not misere")
        self.opponent: Batched | None = name
        # a function of the batched observation (a frozen policy), called on the NumPy path
        self.policy = cast(Callable[[Observation], object], opponent) if name == "policy" else None
        self.agent_side = agent
        self.misere = misere
        self.illegal_reward = illegal_reward
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = render_mode
        self.table: ExactTable | None = None
        self.strategy_x = False  # the exact opponent is X playing the shipped strategy
        if name == "exact" and not has_table(self.geometry):
            self.strategy_x = strategy_x_serves(self.game, agent)
        elif name == "exact" or (exact_info and has_table(self.geometry)):
            self.table = exact_table(self.game)
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
        self.steps = np.zeros(num_envs, dtype=np.int32)  # the agent's steps this episode
        self.agent = np.full(num_envs, NOUGHT if agent == "O" else X, dtype=np.int8)
        self.index = np.zeros(num_envs, dtype=np.int64)  # base-3 table index
        self.over = np.ones(num_envs, dtype=bool)
        self._episodes = np.zeros(num_envs, dtype=np.int64)
        self._rows = np.arange(num_envs)
        if native and not NativeStep.serves(self):
            raise NoughtsError(
                "the compiled step is not built here, or does not play this opponent (Qubic's "
                "exact X and a policy function are Python's): native=None picks"
            )
        self.native = NativeStep(self) if native is not False and NativeStep.serves(self) else None

    def __getstate__(self) -> dict[str, Any]:
        """The state to copy or pickle: the compiled step's handle is rebuilt, not copied."""
        state = self.__dict__.copy()
        state["native"] = state["native"] is not None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.native = NativeStep(self) if state["native"] else None

    # -- the Gymnasium API ----------------------------------------------------------------
    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Observation, dict[str, Any]]:
        """New games on every board (or those of ``options["reset_mask"]``); ``seed`` is
        one integer or, as ``SyncVectorEnv`` takes it, a list of one per board (the
        batch has one generator: the list seeds it)."""
        if seed is not None and not isinstance(seed, int | np.integer):
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise NoughtsError(
                    f"a list of seeds has one per board: {self.num_envs}, not {len(seeds)}"
                )
            if any(each is None for each in seeds):
                if any(each is not None for each in seeds):
                    raise NoughtsError("a list of seeds is all integers or all None")
                seed = None
            else:
                entropy = [int(each) for each in seeds]  # type: ignore[arg-type]
                self._np_random = np.random.Generator(np.random.PCG64(entropy))
                self._np_random_seed = entropy[0]
                seed = None
                self._episodes[:] = 0
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
        if self.autoreset_mode is AutoresetMode.DISABLED and self.over.any():
            raise NoughtsError(  # SyncVectorEnv asserts the same
                f"boards {np.flatnonzero(self.over).tolist()[:8]} have finished games: with "
                "autoreset_mode='Disabled', reset them first "
                "(reset(options={'reset_mask': mask}))"
            )
        if self.native is not None:
            next_step = self.autoreset_mode is AutoresetMode.NEXT_STEP
            observation, reward, terminated, truncated, final, info = self.native.step(
                actions, next_step
            )
        else:
            reward, terminated, truncated, info = self._step_reference(actions)
            final = terminated | truncated
            observation = self._observe()
        info = self._finish_info(info)
        if self.autoreset_mode is AutoresetMode.SAME_STEP and final is not None and final.any():
            info = self._same_step_reset(final, observation, info)
            observation = self._observe()
        return observation, reward, terminated, truncated, info

    def _step_reference(self, actions: np.ndarray) -> tuple[Any, ...]:
        """The step in NumPy (the reference of the compiled one): (reward, terminated,
        truncated, info)."""
        reward = np.zeros(self.num_envs, dtype=np.float64)
        info: dict[str, Any] = {}
        waiting = self.over.copy()
        if self.autoreset_mode is AutoresetMode.NEXT_STEP and waiting.any():
            self._start(np.flatnonzero(waiting), info)
        live = np.flatnonzero(~waiting)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        if len(live):
            self._play_live(live, actions[live], reward, terminated, info)
            self.steps[live] += 1
            if self.max_episode_steps is not None:
                out_of_time = live[self.steps[live] >= self.max_episode_steps]
                truncated[out_of_time] = ~terminated[out_of_time]
                self.over[out_of_time] = True
        return reward, terminated, truncated, info

    def _same_step_reset(
        self, final: np.ndarray, observation: Observation, info: dict[str, Any]
    ) -> dict[str, Any]:
        """New games on the ``final`` boards now, as ``SyncVectorEnv`` does: their last
        observations and (a deep copy of) their last info under ``final_obs`` and
        ``final_info``, the new games' info in their place."""
        final_info = copy.deepcopy(info)
        for key in [key for key in final_info if key.startswith("_")]:
            final_info[key] &= final  # only the finished boards' entries
        final_obs = np.full(self.num_envs, None, dtype=object)
        for row in np.flatnonzero(final):
            final_obs[row] = {key: value[row].copy() for key, value in observation.items()}
        fresh: dict[str, Any] = {}
        for key, value in info.items():  # the boards going on keep their step's info
            if key.startswith("_") or f"_{key}" not in info:
                continue
            fresh[key], fresh[f"_{key}"] = value, info[f"_{key}"] & ~final
        self._start(np.flatnonzero(final), fresh)
        fresh = self._finish_info(fresh)
        fresh["final_obs"], fresh["_final_obs"] = final_obs, final.copy()
        fresh["final_info"], fresh["_final_info"] = final_info, final.copy()
        return fresh

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal cell a board for the side observing (0 where it has no
        move), from the batch's generator: one number a board, the ``floor(u * legal)``-th
        legal cell (in C where the compiled step runs, the same cells in NumPy).

        >>> envs = NoughtsVectorEnv(3, opponent=None, native=False)
        >>> _ = envs.reset(seed=0)
        >>> envs.random_actions().tolist()
        [5, 2, 0]
        """
        if self.native is not None:
            return self.native.random_actions()
        mask = self._observe()["action_mask"].astype(bool)
        pick = (self.np_random.random(self.num_envs) * mask.sum(axis=1)).astype(np.int64)
        return np.asarray((np.cumsum(mask, axis=1) > pick[:, None]).argmax(axis=1), np.int64)

    def action_masks(self) -> np.ndarray:
        """Each board's legal moves for its player to act, as booleans (``(N, cells)``;
        sb3-contrib's ``action_masks`` name): the observation's mask."""
        return self._observe()["action_mask"].astype(bool)

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One RGB image of each board (``render_mode="rgb_array"``), else ``None``."""
        if self.render_mode != "rgb_array":
            return None
        return tuple(board_image(self.position(row)) for row in range(self.num_envs))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """``name`` of every board, as ``SyncVectorEnv.get_attr`` answers: the batch's
        own attribute, once per board (every board shares the settings).

        >>> envs = NoughtsVectorEnv(2, opponent="rules")
        >>> envs.get_attr("opponent")
        ('rules', 'rules')
        """
        value = getattr(self, name)
        return tuple(value for _ in range(self.num_envs))

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call ``name`` for every board, as ``SyncVectorEnv.call`` does: a method with a
        per-board answer (``position``, ``action_masks``, ``render``) gives each board's;
        another method is called once for the batch, its answer given for every board;
        an attribute that is not callable is returned as :meth:`get_attr` does.

        >>> envs = NoughtsVectorEnv(2, opponent="rules")
        >>> _ = envs.reset(seed=0)
        >>> [str(position.board) for position in envs.call("position")]
        ['.../.../...', '.../.../...']
        """
        if name == "position":
            return tuple(self.position(row, *args, **kwargs) for row in range(self.num_envs))
        if name == "action_masks":
            return tuple(self.action_masks(*args, **kwargs))
        if name == "render":
            images = self.render(*args, **kwargs)
            return (None,) * self.num_envs if images is None else images
        attribute = getattr(self, name)
        answer = attribute(*args, **kwargs) if callable(attribute) else attribute
        return tuple(answer for _ in range(self.num_envs))

    # -- games ----------------------------------------------------------------------------
    def _start(self, rows: np.ndarray, info: dict[str, Any]) -> None:
        """New games on ``rows``; the opponent opens where the agent is O."""
        if self.native is not None:
            self.native.start(rows, info)
            return
        self.board[rows] = 0
        self.ply[rows] = 0
        self.steps[rows] = 0
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
        if self.policy is not None:
            cells = policy_moves(self.policy, self.board[rows], mover, self.geometry.shape)
            _put(info, "opponent_move", rows, cells, self.num_envs, -1)
            return (rows, *self._play(rows, cells, mover))
        empty = self.board[rows] == 0
        noise = self.np_random.random(empty.shape)
        if self.opponent == "random":
            priority = noise
        elif self.opponent == "rules":
            blocks, wins = self._completing(rows, -mover), self._completing(rows, mover)
            priority = noise + 2 * blocks + 4 * wins
        elif self.table is not None:
            scores = self.table.move_scores(self.index[rows], np.where(mover == X, 1, 2))
            priority = noise + (scores == scores.max(axis=1, keepdims=True)) * 2
        else:  # Qubic's exact X: the shipped strategy, board by board
            priority = np.zeros(empty.shape)
            priority[np.arange(len(rows)), self._strategy_moves(rows)] = 1.0
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
        if self.native is not None:
            return self.native.observe()
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
        every = np.ones(self.num_envs, dtype=bool)
        if self.opponent is not None:
            info["agent"], info["_agent"] = _MARKS.take(self.agent < 0), every
        else:
            info["to_move"] = _MARKS.take(self.ply & 1)
            info["_to_move"] = every.copy()
        if not self.exact_info:
            info["exact"], info["_exact"] = np.zeros(self.num_envs, dtype=bool), every.copy()
            return info
        assert self.table is not None
        if self.native is not None:
            self.native.exact_info(info)
            return info
        rows = np.flatnonzero(~self.over)
        info["exact"], info["_exact"] = ~self.over, every.copy()
        if not len(rows):  # as SyncVectorEnv: no key that no board has
            return info
        scores = self.table.move_scores(self.index[rows], np.where(self._to_move(rows) == X, 1, 2))
        best = scores.max(axis=1)
        outcome = np.sign(best).astype(np.int8)
        plies = np.where(best == 0, self.cells - self.ply[rows], WIN - np.abs(best))
        keeping = np.where(outcome[:, None] > 0, scores > 0, scores >= outcome[:, None] * WIN)
        n, cells = self.num_envs, self.cells
        _put(info, "outcome", rows, outcome, n, 0)
        _put(info, "plies", rows, plies.astype(np.int16), n, 0)
        _put(info, "optimal_moves", rows, scores == best[:, None], n, False, cells)
        _put(info, "keeping_moves", rows, keeping, n, False, cells)
        _put(info, "move_values", rows, scores, n, NO_MOVE, cells)
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


    def _strategy_moves(self, rows: np.ndarray) -> np.ndarray:
        """X's moves on ``rows`` by the shipped strategy (Qubic): its proven move where
        the position is one of its entries, else the engine's (the strategy's other
        positions are won by a chain of threats, which the engine's search finds)."""
        moves = np.empty(len(rows), dtype=np.intp)
        for index, row in enumerate(rows):
            moves[index] = strategy_x_move(self.position(int(row)))
        return moves


def make_vector_env(num_envs: int = 1, **options: Any) -> NoughtsVectorEnv:
    """The ``vector_entry_point`` of ``noughts/Noughts-v0`` (``make_vec``'s arguments,
    ``max_episode_steps`` included)."""
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


