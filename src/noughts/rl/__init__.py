"""Environments for learning agents, with exact opponents and an exact judge.

Needs the ``rl`` extra (``pip install '.[rl]'`` in a clone: PettingZoo and Gymnasium);
``import noughts`` never imports it.

- :func:`aec_env`: a PettingZoo AEC environment for any variant (two agents, X and O),
  and :func:`parallel_env`, its PettingZoo parallel form;
- :class:`NoughtsEnv` (``gymnasium.make("noughts/Noughts-v0", ...)``): one agent against
  an engine level or any player, with exact values in ``info`` where the solver reaches;
- :class:`NoughtsVectorEnv` (``gymnasium.make_vec("noughts/Noughts-v0", num_envs=N,
  vectorization_mode="vector_entry_point")``): ``N`` boards stepped at once in NumPy,
  self-play or against an opponent computed in the batch;
- :func:`evaluate`: wins, draws, losses and the blunder rate of a policy, measured against
  exact values;
- :func:`observe`: the observation both environments give, for policies that play from a
  :class:`~noughts.Position`.

>>> result = evaluate("level:10", "3x3", games=4, opponent="random")
>>> result.losses, result.blunders
(0, 0)
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover - the extra is installed for the tests
    raise ImportError(
        f"noughts.rl needs the rl extra: pip install '.[rl]' in a clone of noughts ({error})"
    ) from error

from noughts.rl.aec import AGENT_OF, AGENTS, NoughtsAECEnv, aec_env, render_text
from noughts.rl.exact import ExactView, exact_view
from noughts.rl.gym_env import GYM_ID, NoughtsEnv, register
from noughts.rl.judge import Judgement, evaluate
from noughts.rl.observation import action_space, observation_space, observe
from noughts.rl.opponents import DEFAULT_OPPONENT
from noughts.rl.parallel import NoughtsParallelEnv, parallel_env
from noughts.rl.render import board_image
from noughts.rl.vector_env import NoughtsVectorEnv

register()

__all__ = [
    "AGENTS",
    "AGENT_OF",
    "DEFAULT_OPPONENT",
    "GYM_ID",
    "ExactView",
    "Judgement",
    "NoughtsAECEnv",
    "NoughtsEnv",
    "NoughtsParallelEnv",
    "NoughtsVectorEnv",
    "aec_env",
    "action_space",
    "board_image",
    "evaluate",
    "exact_view",
    "observation_space",
    "observe",
    "parallel_env",
    "register",
    "render_text",
]
