"""Stable-Baselines3's vector interface (issue 52, point 2): the batched environment as an
SB3 ``VecEnv`` that MaskablePPO trains on directly, and ``SubprocVecEnv`` from the
registered id under every start method."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnv

from noughts.errors import NoughtsError
from noughts.rl import NoughtsVectorEnv
from noughts.rl.sb3 import NoughtsSB3VecEnv

SRC = Path(__file__).resolve().parent.parent / "src"


def _play(envs: NoughtsSB3VecEnv, steps: int, seed: int) -> list[tuple[object, ...]]:
    rng = np.random.default_rng(seed)
    envs.seed(seed)
    observation = envs.reset()
    seen = []
    for _ in range(steps):
        mask = envs.action_masks()
        assert np.array_equal(mask, observation["action_mask"].astype(bool))
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        observation, reward, done, infos = envs.step(actions)
        seen.append((observation["observation"].tobytes(), reward.tolist(), done.tolist(),
                     [info.get("result") for info in infos]))  # fmt: skip
    return seen


def test_the_vec_env_answers_as_sb3_asks() -> None:
    envs = NoughtsSB3VecEnv(4, "3x3", opponent="rules", agent="alternate", max_episode_steps=4)
    assert isinstance(envs, VecEnv) and is_masking_supported(envs)
    assert envs.observation_space["observation"].shape == (3, 3, 2)
    assert envs.get_attr("render_mode") == [None] * 4 and envs.env_is_wrapped(object) == [False] * 4
    assert get_action_masks(envs).shape == (4, 9)
    reference = NoughtsVectorEnv(4, "3x3", "rules", "alternate", max_episode_steps=4,
                                 autoreset_mode="SameStep")  # fmt: skip
    envs.seed(5)
    observation = envs.reset()
    expected, _ = reference.reset(seed=5)
    rng = np.random.default_rng(5)
    ends = truncations = 0
    for _ in range(30):
        assert np.array_equal(observation["observation"], expected["observation"])
        mask = envs.action_masks()
        actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
        observation, reward, done, infos = envs.step(actions)
        expected, expected_reward, terminated, truncated, info = reference.step(actions)
        assert reward.dtype == np.float32 and reward.tolist() == expected_reward.tolist()
        assert done.tolist() == (terminated | truncated).tolist()
        for row in np.flatnonzero(done):
            final = info["final_obs"][row]
            assert np.array_equal(infos[row]["terminal_observation"]["observation"],
                                  final["observation"])  # fmt: skip
            assert infos[row]["TimeLimit.truncated"] == bool(truncated[row])
            if terminated[row]:
                assert infos[row]["result"] == int(np.sign(reward[row]))
        ends += int(done.sum())
        truncations += int(truncated.sum())
    assert ends > 4 and truncations > 0
    assert [len(each) for each in envs.env_method("action_masks", indices=[1, 3])] == [9, 9]
    assert len(envs.env_method("position")) == 4
    assert envs.env_method("action_masks", indices=2)[0].dtype == bool


def test_the_same_seed_replays_and_bad_use_is_named() -> None:
    assert _play(NoughtsSB3VecEnv(3, "4x4k3", exact_info=False), 20, 1) == _play(
        NoughtsSB3VecEnv(3, "4x4k3", exact_info=False), 20, 1
    )
    with pytest.raises(NoughtsError, match="autoreset_mode"):
        NoughtsSB3VecEnv(2, autoreset_mode="NextStep")
    with pytest.raises(NoughtsError, match="needs a step_async"):
        NoughtsSB3VecEnv(2).step_wait()
    with pytest.raises(NoughtsError, match="sets all of them"):
        NoughtsSB3VecEnv(2).set_attr("illegal_reward", -2.0, indices=[0])


def test_maskable_ppo_trains_on_the_batched_vec_env(sb3_logs: Path) -> None:
    torch.set_num_threads(1)
    envs = NoughtsSB3VecEnv(16, "3x3", opponent="random", exact_info=False)
    model = MaskablePPO("MultiInputPolicy", envs, n_steps=32, batch_size=128, seed=0,
                        device="cpu")  # fmt: skip
    model.learn(total_timesteps=1024)
    assert model.num_timesteps == 1024
    assert model.logger.get_dir() == str(sb3_logs)  # not a new SB3-<date> in the system's
    observation = envs.reset()
    actions, _ = model.predict(observation, action_masks=envs.action_masks(), deterministic=True)
    assert envs.action_masks()[np.arange(16), actions].all()  # only legal moves


def test_subproc_vec_env_with_the_module_qualified_id_under_spawn() -> None:
    envs = make_vec_env("noughts.rl:noughts/Noughts-v0", n_envs=2, vec_env_cls=SubprocVecEnv,
                        vec_env_kwargs={"start_method": "spawn"})  # fmt: skip
    try:
        envs.seed(0)
        observation = envs.reset()
        assert observation["action_mask"].sum() == 18
        assert [mask.sum() for mask in envs.env_method("action_masks")] == [9, 9]
    finally:
        envs.close()


def test_subproc_vec_env_with_the_plain_id_under_every_start_method(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent('''
        import sys
        import noughts.rl  # registers the id; spawn and forkserver workers import it too
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import SubprocVecEnv

        if __name__ == "__main__":
            for method in ("fork", "forkserver", "spawn"):
                envs = make_vec_env("noughts/Noughts-v0", n_envs=2, vec_env_cls=SubprocVecEnv,
                                    vec_env_kwargs={"start_method": method})
                envs.seed(0)
                observation = envs.reset()
                masks = envs.env_method("action_masks")
                print(method, int(observation["action_mask"].sum()), [int(m.sum()) for m in masks])
                envs.close()
    '''))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:3] == [
        f"{method} 18 [9, 9]" for method in ("fork", "forkserver", "spawn")
    ]
