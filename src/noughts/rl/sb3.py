"""Stable-Baselines3's own vector interface over the batched environment.

:class:`NoughtsSB3VecEnv` is a ``stable_baselines3.common.vec_env.VecEnv`` whose
``num_envs`` boards are one :class:`~noughts.rl.NoughtsVectorEnv` (its arguments, the
same boards and opponents), so SB3 and sb3-contrib train on the batch directly instead
of on ``num_envs`` single environments: ``step_async``/``step_wait``, ``reset``,
``seed``, ``get_attr``, ``set_attr``, ``env_method``, ``env_is_wrapped``, ``get_images``,
and ``action_masks()`` (sb3-contrib's ``MaskablePPO`` reads it through
``env_method("action_masks")``). It resets a finished board at once, as every SB3
``VecEnv`` does: the game's last observation is in that board's
``info["terminal_observation"]``, ``info["TimeLimit.truncated"]`` says whether a step
limit ended it, and ``info["result"]`` is the agent's +1/0/-1 (against an opponent).

Needs ``stable-baselines3`` (the test extra has it); ``import noughts.rl`` does not
import this module.

>>> from noughts.rl.sb3 import NoughtsSB3VecEnv
>>> envs = NoughtsSB3VecEnv(4, "3x3", opponent="random")
>>> _ = envs.seed(0)
>>> observation = envs.reset()
>>> observation["observation"].shape, envs.action_masks().shape
((4, 3, 3, 2), (4, 9))
>>> observation, reward, done, infos = envs.step(envs.action_masks().argmax(axis=1))
>>> reward.dtype, done.tolist(), len(infos)
(dtype('float32'), [False, False, False, False], 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from noughts.errors import NoughtsError
from noughts.rl.vector_env import NoughtsVectorEnv

__all__ = ["NoughtsSB3VecEnv"]

StepReturn = tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict[str, Any]]]
"""SB3's step answer: observations, rewards (``float32``), dones, one info a board."""
_PER_BOARD = ("action_masks", "position", "render")  # methods with one answer a board


class NoughtsSB3VecEnv(VecEnv):
    """``num_envs`` boards of the batched environment as an SB3 ``VecEnv`` (see the
    module docstring); the arguments are :class:`~noughts.rl.NoughtsVectorEnv`'s, but
    ``autoreset_mode``, which SB3 fixes (a finished board is reset in the same step)."""

    def __init__(self, num_envs: int = 1, variant_name: Any = "3x3", **options: Any) -> None:
        if "autoreset_mode" in options:
            raise NoughtsError("SB3's VecEnv resets a finished board in the same step: "
                               "autoreset_mode is not an option here")
        self.envs = NoughtsVectorEnv(
            num_envs, variant_name, autoreset_mode=AutoresetMode.SAME_STEP, **options
        )
        super().__init__(
            num_envs, self.envs.single_observation_space, self.envs.single_action_space
        )
        self._actions: np.ndarray | None = None

    # -- stepping -------------------------------------------------------------------------
    def reset(self) -> dict[str, np.ndarray]:
        """New games on every board; the seed of :meth:`seed`, if one was set, seeds the
        batch's one generator (the same seed replays the same games)."""
        seed = self._seeds[0]
        observation, _ = self.envs.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> StepReturn:
        if self._actions is None:
            raise NoughtsError("step_wait() needs a step_async(actions) before it")
        actions, self._actions = self._actions, None
        observation, reward, terminated, truncated, info = self.envs.step(actions)
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            final_obs = info["final_obs"]
            final_info = info["final_info"]
            results = final_info.get("result")
            has_result = final_info.get("_result", np.zeros(self.num_envs, dtype=bool))
            for row in np.flatnonzero(done):
                board = infos[row]
                board["terminal_observation"] = final_obs[row]
                board["TimeLimit.truncated"] = bool(truncated[row] and not terminated[row])
                if has_result[row]:
                    board["result"] = int(results[row])
        return observation, reward.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """Every board's legal moves, ``(num_envs, cells)`` booleans (sb3-contrib's name)."""
        return self.envs.action_masks()

    def close(self) -> None:
        """Nothing to release (one process, NumPy arrays)."""
        self.envs.close()

    # -- attributes and methods, SB3's way --------------------------------------------------
    def _rows(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int | np.integer):
            return [int(indices)]
        return [int(index) for index in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """``attr_name`` of the batch, once per board asked (the boards share settings)."""
        value = getattr(self.envs, attr_name)
        return [value for _ in self._rows(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set ``attr_name`` on the batch: every board at once, the only way it can be."""
        if sorted(self._rows(indices)) != list(range(self.num_envs)):
            raise NoughtsError("the boards share one environment: set_attr sets all of them")
        setattr(self.envs, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``method_name`` for the boards asked: ``action_masks``, ``position`` and
        ``render`` answer each board's own; another method is called once for the batch."""
        rows = self._rows(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[row] for row in rows]
        if method_name in _PER_BOARD:
            answers = self.envs.call(method_name, *method_args, **method_kwargs)
            return [answers[row] for row in rows]
        answer = getattr(self.envs, method_name)(*method_args, **method_kwargs)
        return [answer for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No board is wrapped (there are no per-board environments to wrap)."""
        return [False for _ in self._rows(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        """One image per board (``render_mode="rgb_array"``)."""
        images = self.envs.render()
        return [None] * self.num_envs if images is None else list(images)
