"""The batched environment's step in C (``noughts.rl._step``), where it is built.

The compiled module is optional, as the search core is: an install without a C
compiler runs the NumPy reference (:class:`~noughts.rl.NoughtsVectorEnv` with
``native=False``). The C step works on the environment's own state arrays (held through
the buffer protocol) and draws from the environment's own NumPy generator, one number
where the reference draws one, so both play the same games for the same seed and
actions (``tests/test_rl_native.py``). It serves every board of up to 64 cells and every
batched opponent but Qubic's exact X (the shipped strategy, board by board in Python);
:func:`build_table` builds an exact table in C.

>>> available()
True
>>> import numpy as np
>>> from noughts.rl import NoughtsVectorEnv
>>> envs = NoughtsVectorEnv(2, "3x3", opponent=None)
>>> envs.native is not None
True
>>> _ = envs.reset(seed=0)
>>> envs.random_actions().tolist()  # from the batch's generator: a legal cell a board
[5, 2]
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from noughts.rl.vector_env import NoughtsVectorEnv

__all__ = ["NativeStep", "available", "build_table", "MAX_CELLS"]

MAX_CELLS = 64
"""The largest board the compiled step serves."""

OPPONENT_CODES = {None: 0, "random": 1, "rules": 2, "exact": 3}
SIDE_CODES = {"X": 0, "O": 1, "alternate": 2}


def _module() -> ModuleType | None:
    try:
        from noughts.rl import _step  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        return None
    return _step  # type: ignore[no-any-return, unused-ignore]


_STEP = _module()


def available() -> bool:
    """True if the compiled step is built (``sh build`` or a wheel)."""
    return _STEP is not None


def build_table(
    geometry: Any, lines: np.ndarray, misere: bool
) -> tuple[np.ndarray, int] | None:
    """Every reachable position's score in C (the layout of :mod:`noughts.rl.tables`;
    ``lines`` its :func:`~noughts.rl.tables.line_cells`) and the reachable count, or
    ``None`` without the module."""
    if _STEP is None:
        return None
    values = np.empty(3**geometry.cells, dtype=np.int8)
    # any of the board's symmetries serve (each keeps every value): at most 64 of them
    perms = np.array(geometry.symmetry_group.perms[:64], dtype=np.uint8).tobytes()
    cells_of_lines = lines.astype(np.uint8).tobytes()
    positions = _STEP.build_table(values, geometry.cells, geometry.k, cells_of_lines, misere, perms)
    return values, int(positions)


class NativeStep:
    """The compiled step of one batched environment, holding its state arrays."""

    def __init__(self, envs: NoughtsVectorEnv) -> None:
        assert _STEP is not None
        self.envs = envs
        table = envs.table.values if envs.table is not None else None
        self.batch = _STEP.batch(
            envs.board, envs.ply, envs.steps, envs.agent, envs.index, envs.over,
            envs._episodes, envs._lines.astype(np.uint8).tobytes(), envs.geometry.k,
            OPPONENT_CODES[envs.opponent], SIDE_CODES[envs.agent_side],
            envs.max_episode_steps or 0, float(envs.illegal_reward), envs._line_reward, table,
        )  # fmt: skip

    @staticmethod
    def serves(envs: NoughtsVectorEnv) -> bool:
        """True if the compiled step can play this environment."""
        return (
            _STEP is not None
            and envs.cells <= MAX_CELLS
            and not envs.strategy_x
            and envs.opponent != "policy"  # a Python function: the NumPy path calls it
        )

    def _rng(self) -> Any:
        return self.envs.np_random.bit_generator.capsule

    def start(self, rows: np.ndarray, info: dict[str, Any]) -> None:
        """New games on ``rows`` (the opponents' openings into ``info``)."""
        n = self.envs.num_envs
        chosen = np.zeros(n, dtype=bool)
        chosen[rows] = True
        moves, moved = np.full(n, -1, dtype=np.intp), np.zeros(n, dtype=bool)
        _STEP.start(self.batch, chosen, self._rng(), moves, moved)  # type: ignore[union-attr]
        if moved.any():
            merge(info, "opponent_move", moves, moved)

    def step(self, actions: np.ndarray, next_step: bool) -> tuple[Any, ...]:
        """One step of every board: (observation, reward, terminated, truncated, final,
        info), ``final`` ``None`` where no game ended."""
        envs = self.envs
        n = envs.num_envs
        reward = np.empty(n, dtype=np.float64)
        terminated, truncated = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        moves, moved = np.empty(n, dtype=np.intp), np.empty(n, dtype=bool)
        illegal, illegal_at = np.empty(n, dtype=np.int64), np.empty(n, dtype=bool)
        result, resulted = np.empty(n, dtype=np.int8), np.empty(n, dtype=bool)
        planes = np.empty((n, *envs.geometry.shape, 2), dtype=np.int8)
        mask = np.empty((n, envs.cells), dtype=np.int8)
        flags = _STEP.step(  # type: ignore[union-attr]
            self.batch, np.ascontiguousarray(actions, dtype=np.int64), self._rng(), next_step,
            reward, terminated, truncated, moves, moved, illegal, illegal_at, result, resulted,
            planes, mask,
        )  # fmt: skip
        info: dict[str, Any] = {}
        if flags & 1:
            info["opponent_move"], info["_opponent_move"] = moves, moved
        if flags & 2:
            info["illegal_move"] = illegal.astype(actions.dtype)
            info["_illegal_move"] = illegal_at
        if flags & 4:
            info["result"], info["_result"] = result, resulted
        final = terminated | truncated if flags & 8 else None
        observation = {"observation": planes, "action_mask": mask}
        return observation, reward, terminated, truncated, final, info

    def exact_info(self, info: dict[str, Any]) -> None:
        """The exact values of every board whose game goes on, into ``info`` (the keys
        and masks of the NumPy reference's ``_finish_info``)."""
        n, cells = self.envs.num_envs, self.envs.cells
        exact, outcome = np.empty(n, dtype=bool), np.empty(n, dtype=np.int8)
        plies = np.empty(n, dtype=np.int16)
        optimal, keeping = np.empty((n, cells), dtype=bool), np.empty((n, cells), dtype=bool)
        values = np.empty((n, cells), dtype=np.int16)
        live = _STEP.exact_info(  # type: ignore[union-attr]
            self.batch, exact, outcome, plies, optimal, keeping, values
        )
        info["exact"], info["_exact"] = exact, np.ones(n, dtype=bool)
        if live:  # as SyncVectorEnv: no key that no board has
            for key, array in (("outcome", outcome), ("plies", plies),
                               ("optimal_moves", optimal), ("keeping_moves", keeping),
                               ("move_values", values)):  # fmt: skip
                info[key], info["_" + key] = array, exact.copy()

    def observe(self) -> dict[str, np.ndarray]:
        """Every board's observation, in fresh arrays."""
        envs = self.envs
        planes = np.empty((envs.num_envs, *envs.geometry.shape, 2), dtype=np.int8)
        mask = np.empty((envs.num_envs, envs.cells), dtype=np.int8)
        _STEP.observe(self.batch, planes, mask)  # type: ignore[union-attr]
        return {"observation": planes, "action_mask": mask}

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal cell a board, from the batch's generator."""
        actions = np.empty(self.envs.num_envs, dtype=np.int64)
        _STEP.random_actions(self.batch, self._rng(), actions)  # type: ignore[union-attr]
        return actions


def merge(info: dict[str, Any], key: str, values: np.ndarray, has: np.ndarray) -> None:
    """``info[key]`` where ``has``, Gymnasium's ``info["_key"]`` mask beside it."""
    if key not in info:
        info[key], info["_" + key] = values, has
    else:
        info[key][has] = values[has]
        info["_" + key] |= has
