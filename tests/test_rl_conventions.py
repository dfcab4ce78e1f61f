"""The conventions a Gymnasium, Stable-Baselines3 or PettingZoo user relies on (issue 45,
points 13-20): ``final_info`` as Gymnasium 1.x gives it, ``rgb_array`` rendering (SB3's
``make_vec_env``, Gymnasium's ``RecordVideo``), copying and pickling, one opponent
grammar and default, the vector API's seeds, masks, step limit, ``get_attr`` and
``call``, the parallel PettingZoo form and Qubic's exact X in the batch."""

from __future__ import annotations

import copy
import pickle
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import noughts.rl
import noughts.rl.opponents
from noughts.errors import NoughtsError
from noughts.position import Position
from noughts.rl import NoughtsEnv, NoughtsVectorEnv, aec_env

GYM_ID = noughts.rl.GYM_ID
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def random_legal(observation: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    mask = observation["action_mask"].astype(bool)
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


# -- 13: final_info ---------------------------------------------------------------------------
def test_same_step_final_info_is_the_finished_games_own() -> None:
    """The issue's case: 64 boards, agent O against random play, SameStep. Each finished
    game's ``final_info["opponent_move"]`` is its last opponent move (the new game's
    opening overwrote it in 208 of 345 games), ``_final_info`` is there, ``final_obs``
    is not repeated inside ``final_info``, and ``info`` holds the new games'."""
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=64, vectorization_mode="vector_entry_point", opponent="random",
        agent="O", autoreset_mode="SameStep", exact_info=False,
    )  # fmt: skip
    rng = np.random.default_rng(0)
    observation, info = envs.reset(seed=0)
    finished = 0
    for _ in range(20):
        before = observation["observation"][:, :, :, 1].reshape(64, 9).copy()  # X's marks
        observation, _, terminated, truncated, info = envs.step(random_legal(observation, rng))
        final = terminated | truncated
        if not final.any():
            continue
        assert info["_final_info"].tolist() == final.tolist()
        assert info["_final_obs"].tolist() == final.tolist()
        final_info = info["final_info"]
        assert "final_obs" not in final_info and "final_info" not in final_info
        assert final_info["opponent_move"] is not info["opponent_move"]  # a deep copy
        for board in np.flatnonzero(final):
            finished += 1
            x_after = info["final_obs"][board]["observation"][:, :, 1].reshape(9)
            new_x = set(np.flatnonzero(x_after & ~before[board]).tolist())
            if final_info["_opponent_move"][board]:
                assert new_x == {int(final_info["opponent_move"][board])}
            else:  # the agent's own move ended the game
                assert new_x == set()
            # the new game: X (the opponent) has opened, as info["opponent_move"] says
            opening = observation["observation"][board, :, :, 1].reshape(9)
            assert info["_opponent_move"][board]
            assert np.flatnonzero(opening).tolist() == [int(info["opponent_move"][board])]
            assert "result" not in info or not info["_result"][board]
    assert finished > 100


def test_same_step_info_has_the_structure_sync_vector_env_gives() -> None:
    """The batched environment's SameStep info has the keys, masks and kinds that
    ``SyncVectorEnv`` over the single environment gives (self-play aside)."""
    options: dict[str, Any] = {"opponent": "random", "agent": "X", "exact_info": False}
    batched = NoughtsVectorEnv(4, autoreset_mode="SameStep", **options)
    synced = SyncVectorEnv([lambda: NoughtsEnv(**options) for _ in range(4)],
                           autoreset_mode=AutoresetMode.SAME_STEP)  # fmt: skip
    for envs in (batched, synced):
        rng = np.random.default_rng(1)
        observation, _ = envs.reset(seed=3)
        while True:
            observation, _, terminated, _, info = envs.step(random_legal(observation, rng))
            if terminated.any():
                break
        assert info["final_obs"].dtype == object and isinstance(info["final_info"], dict)
        board = int(np.flatnonzero(terminated)[0])
        assert set(info["final_obs"][board]) == {"observation", "action_mask"}
        assert info["final_info"]["_result"][board] and info["final_info"]["_agent"][board]
        for key in info:
            if not key.startswith("_"):
                assert f"_{key}" in info, key


# -- 14: rgb_array, SB3, RecordVideo ----------------------------------------------------------
def test_rgb_array_renders_the_board_in_every_environment() -> None:
    env = gymnasium.make(GYM_ID, render_mode="rgb_array", variant_name="qubic")
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.shape == (128, 560, 3)
    env.step(0)
    assert not np.array_equal(env.render(), image)  # the marks are drawn
    parallel = noughts.rl.parallel_env("4x4k3", render_mode="rgb_array")
    parallel.reset()
    assert parallel.render().shape == (128, 128, 3)
    batched = NoughtsVectorEnv(3, render_mode="rgb_array")
    batched.reset(seed=0)
    assert [image.shape for image in batched.render()] == [(96, 96, 3)] * 3


def test_sb3_checks_the_environment_and_builds_vector_envs_of_it() -> None:
    """SB3's ``check_env`` and its ``make_vec_env``, which asks for ``rgb_array``
    (it fell back only on a TypeError; noughts raised NoughtsError)."""
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.env_util import make_vec_env

    for agent in ("X", "O"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # advice on the Dict space's int8 boxes
            check_env(NoughtsEnv("3x3", opponent="random", agent=agent), warn=False)
    envs = make_vec_env(GYM_ID, n_envs=2, env_kwargs={"opponent": "random"}, seed=0)
    observations = envs.reset()
    assert observations["observation"].shape == (2, 3, 3, 2)
    masks = observations["action_mask"].astype(bool)
    _, rewards, _, _ = envs.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert rewards.shape == (2,)
    assert envs.render_mode == "rgb_array"
    assert envs.get_images()[0].shape == (96, 96, 3)


def test_record_video_records_games(tmp_path: Path) -> None:
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gymnasium.make(GYM_ID, render_mode="rgb_array", opponent="random"),
        str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True,
    )  # fmt: skip
    rng = np.random.default_rng(0)
    for seed in range(2):
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = observation["action_mask"].astype(bool)
            cell = int(rng.choice(np.flatnonzero(mask)))
            observation, _, terminated, truncated, _ = env.step(cell)
            done = terminated or truncated
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 2 and all(video.stat().st_size > 1000 for video in videos)


# -- 15: copies -------------------------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["random", 10, "rules", "seed-qubic:1"])
def test_a_copied_or_pickled_env_goes_on_as_the_original(opponent: object) -> None:
    env = NoughtsEnv("3x3", opponent=opponent, agent="O")
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.position == env.position
        moves = [int(np.flatnonzero(twin.action_masks())[-1])]
        ours, theirs = env_copy_step(copy.deepcopy(env), moves), env_copy_step(twin, moves)
        assert ours == theirs


def env_copy_step(env: NoughtsEnv, moves: list[int]) -> list[Any]:
    out = []
    for move in moves:
        observation, reward, terminated, _, info = env.step(move)
        out.append((observation["observation"].tobytes(), reward, terminated,
                    info.get("opponent_move")))  # fmt: skip
    return out


def test_positions_and_every_env_copy_and_pickle() -> None:
    position = Position("XO./.X./...", "3x3")
    assert pickle.loads(pickle.dumps(position)) == position
    assert copy.deepcopy(position) is position
    envs = (aec_env("4x4k3"), noughts.rl.parallel_env("3x3"), NoughtsVectorEnv(2, opponent="rules"))
    for env in envs:
        env.reset(seed=1)
        for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
            assert type(twin) is type(env)


# -- 16: one opponent grammar, one default ----------------------------------------------------
def test_one_default_opponent_in_make_and_every_make_vec_mode() -> None:
    assert noughts.rl.opponents.DEFAULT_OPPONENT == "random"
    single = gymnasium.make(GYM_ID).unwrapped
    assert single.opponent_spec.name == "random"
    for mode in ("sync", "async"):
        envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode=mode)
        assert envs.get_attr("opponent") == ("random", "random")
        envs.close()
    batched = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert batched.unwrapped.opponent == "random"


@pytest.mark.parametrize(
    ("opponent", "single", "batched"),
    [
        ("random", "random", "random"), (0, "random", "random"), ("level:0", "random", "random"),
        ("rules", "rules", "rules"), ("exact", "level:10", "exact"), (10, "level:10", "exact"),
        ("level:10", "level:10", "exact"), ("impossible", "level:10", "exact"),
        (5, "level:5", None), ("level:5", "level:5", None), ("hard", "level:8", None),
    ],
)  # fmt: skip
def test_one_opponent_grammar(opponent: object, single: str, batched: str | None) -> None:
    assert NoughtsEnv("3x3", opponent=opponent).opponent_spec.name == single
    if batched is None:
        with pytest.raises(NoughtsError, match="'sync' or 'async' plays any opponent"):
            NoughtsVectorEnv(2, opponent=opponent)
    else:
        assert NoughtsVectorEnv(2, opponent=opponent).opponent == batched


def test_self_play_is_the_batched_envs_and_rules_refuse_misere() -> None:
    with pytest.raises(NoughtsError, match="self-play"):
        NoughtsEnv("3x3", opponent=None)
    assert NoughtsVectorEnv(2, opponent=None).opponent is None
    for make in (lambda: NoughtsEnv("3x3-misere", opponent="rules"),
                 lambda: NoughtsVectorEnv(2, "3x3-misere", opponent="rules")):  # fmt: skip
        with pytest.raises(NoughtsError, match="not misere"):
            make()


def test_the_single_envs_rules_opponent_wins_and_blocks() -> None:
    env = NoughtsEnv("3x3", opponent="rules", agent="O")
    punished = 0
    for seed in range(20):
        _, info = env.reset(seed=seed)
        x = info["opponent_move"]
        corner = next(c for c in (0, 2, 6, 8) if c != x and c != 4)
        _, _, _, _, info = env.step(corner if x != 4 else 0)
        assert env.position.x.bit_count() == 2  # X answered; a win next needs a block
        threats = env.position.geometry.completing(env.position.x, env.position.empty)
        if threats:  # O must block or lose: play elsewhere, X wins at once
            spare = next(c for c in np.flatnonzero(env.action_masks()) if c not in threats)
            _, reward, terminated, _, _ = env.step(int(spare))
            assert terminated and reward == -1.0
            punished += 1
    assert punished > 0


# -- 17: the vector API -----------------------------------------------------------------------
def test_reset_takes_a_list_of_seeds_and_is_repeatable() -> None:
    envs = gymnasium.make_vec(GYM_ID, num_envs=4, vectorization_mode="vector_entry_point",
                              opponent="random", agent="O")  # fmt: skip
    first, _ = envs.reset(seed=[0, 1, 2, 3])
    again, _ = envs.reset(seed=[0, 1, 2, 3])
    other, _ = envs.reset(seed=[4, 5, 6, 7])
    assert np.array_equal(first["observation"], again["observation"])
    assert not np.array_equal(first["observation"], other["observation"])
    envs.reset(seed=[None] * 4)


def test_every_info_key_has_its_mask() -> None:
    for opponent in ("exact", None):
        envs = NoughtsVectorEnv(3, opponent=opponent, agent="alternate")
        _, info = envs.reset(seed=0)
        _, _, _, _, step_info = envs.step(np.array([4, 4, 4]))
        for each in (info, step_info):
            for key, value in each.items():
                if not key.startswith("_"):
                    assert f"_{key}" in each and each[f"_{key}"].shape == (3,), key
                    assert len(value) == 3
        assert ("agent" if opponent else "to_move") in info and "exact" in info


def test_max_episode_steps_truncates_in_the_batch() -> None:
    envs = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point",
                              opponent=None, max_episode_steps=3)  # fmt: skip
    assert envs.unwrapped.max_episode_steps == 3
    envs.reset(seed=0)
    truncated_at = []
    for step, cells in enumerate(([0, 8], [1, 7], [3, 5])):
        _, _, terminated, truncated, _ = envs.step(np.array(cells))
        truncated_at.append(truncated.tolist())
        assert not terminated.any(), step
    assert truncated_at == [[False, False], [False, False], [True, True]]
    observation, _, _, _, _ = envs.step(np.array([4, 4]))  # NEXT_STEP: the reset step
    assert observation["observation"].sum() == 0


def test_get_attr_and_call_answer_per_board() -> None:
    envs = gymnasium.make_vec(GYM_ID, num_envs=3, vectorization_mode="vector_entry_point",
                              variant_name="4x4k3", opponent="random")  # fmt: skip
    envs.reset(seed=0)
    envs.step(np.array([5, 6, 9]))
    assert envs.get_attr("opponent") == ("random",) * 3
    positions = envs.call("position")
    assert [p.x.bit_count() for p in positions] == [1, 1, 1]
    masks = envs.call("action_masks")
    assert [int(m.sum()) for m in masks] == [14, 14, 14]
    assert envs.call("num_envs") == (3, 3, 3)


# -- 18: the MaskablePPO example --------------------------------------------------------------
def test_the_maskable_ppo_example_gives_a_quick_check(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("maskable_ppo", EXAMPLES / "maskable_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--steps", "256", "--games", "20"])
    out = capsys.readouterr().out
    assert out.startswith("trained 256 steps in ") and "s wall" in out
    assert "as X against random over 20 games" in out


# -- 20: PettingZoo's parallel form; Qubic's exact X in the batch ------------------------------
@pytest.mark.parametrize("name", ["3x3", "4x4k3", "3x3x3", "qubic", "3x3-misere"])
def test_parallel_form_passes_pettingzoos_api_test(name: str) -> None:
    from pettingzoo.test import parallel_api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(noughts.rl.parallel_env(name), num_cycles=200)


def test_parallel_form_plays_the_aec_game() -> None:
    """Random games played through both forms end alike, step for step."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        aec, par = aec_env("4x4k3"), noughts.rl.parallel_env("4x4k3")
        aec.reset()
        observations, infos = par.reset()
        while par.agents:
            mover = next(agent for agent in par.agents if infos[agent]["to_move"])
            assert mover == aec.agent_selection
            mask = observations[mover]["action_mask"].astype(bool)
            cell = int(rng.choice(np.flatnonzero(mask)))
            aec.step(cell)
            observations, rewards, terminations, _, infos = par.step({"player_1": cell,
                                                                      "player_2": cell})
            for agent in rewards:
                assert rewards[agent] == aec.rewards[agent]
                assert terminations[agent] == aec.terminations[agent]
        assert par.position == aec.position


def test_qubics_exact_x_in_the_batch_is_the_shipped_strategy() -> None:
    """Agent O against the batched exact X on Qubic: X wins every game, and its moves
    are the strategy's wherever the strategy has the position."""
    from noughts.knowledge.strategy import shipped_strategy, strategy_move

    envs = NoughtsVectorEnv(4, "qubic", opponent="exact", agent="O")
    observation, info = envs.reset(seed=0)
    assert strategy_move(Position("", "qubic"), shipped_strategy()) is not None
    assert all(int(m) in strategy_moves_of_empty() for m in info["opponent_move"])
    rng = np.random.default_rng(2)
    results = np.zeros(4)
    done = np.zeros(4, dtype=bool)
    for _ in range(40):
        positions = [envs.position(board) for board in range(4)]
        observation, reward, terminated, _, info = envs.step(random_legal(observation, rng))
        for board in np.flatnonzero(~done & info["_opponent_move"]):
            before = positions[board]  # X's reply to O's move: the strategy's, where it has it
            own = observation["observation"][board, ..., 0].reshape(64)
            (o_move,) = np.flatnonzero(own & (1 - _marks(before.o)))
            found = strategy_move(before.play(int(o_move)), shipped_strategy())
            if found is not None:
                assert int(info["opponent_move"][board]) == found.move
        results[~done & terminated] = reward[~done & terminated]
        done |= terminated
        if done.all():
            break
    assert done.all() and (results == -1.0).all()


def strategy_moves_of_empty() -> set[int]:
    from noughts.knowledge.strategy import proven_moves, shipped_strategy

    return set(proven_moves(Position("", "qubic"), shipped_strategy()))


def _marks(bits: int) -> np.ndarray:
    return np.array([bits >> cell & 1 for cell in range(64)], dtype=np.int8)


# -- issue 52, point 4: order, Disabled mode, one info schema -----------------------------------
def _error_of(call: Any) -> type[BaseException] | None:
    try:
        call()
    except (AssertionError, AttributeError) as error:
        return type(error)
    return None


def test_the_aec_env_enforces_order_as_tictactoe_v3_does() -> None:
    from pettingzoo.classic import tictactoe_v3

    def calls(env: Any) -> list[Any]:
        return [
            lambda: env.step(0),
            lambda: env.observe("player_1"),
            lambda: env.last(),
            lambda: env.render(),
            lambda: env.agent_iter(),
            lambda: env.rewards,
            lambda: env.agent_selection,
        ]

    ours, theirs = aec_env("3x3", render_mode="ansi"), tictactoe_v3.env(render_mode="ansi")
    before = [_error_of(call) for call in calls(ours)]
    assert before == [_error_of(call) for call in calls(theirs)]
    # last() reads agent_selection first, whence its AttributeError
    assert before == [AssertionError] * 2 + [AttributeError] + [AssertionError] * 2 + [
        AttributeError
    ] * 2
    ours.reset(seed=0)  # (tictactoe_v3's own "ansi" render fails after reset: not compared)
    assert [_error_of(call) for call in calls(ours)] == [None] * 7
    assert ours.observe("player_2")["observation"].sum() == 1  # the step after reset played


@pytest.mark.parametrize(
    ("variant_name", "exact"), [("3x3", True), ("3x3-misere", True), ("qubic", False)]
)
def test_sync_info_through_the_adapter_equals_the_batched_info(
    variant_name: str, exact: bool
) -> None:
    from gymnasium.utils.env_checker import data_equivalence

    from noughts.rl.infos import as_batched_info

    boards = 4
    batched = NoughtsVectorEnv(boards, variant_name, "random", "alternate", exact_info=exact)
    queues: list[list[int]] = [[] for _ in range(boards)]

    def single(queue: list[int]) -> Any:
        return lambda: gymnasium.make(
            GYM_ID, variant_name=variant_name, agent="alternate", exact_info=exact,
            opponent=lambda position: queue.pop(0),
        )  # fmt: skip

    sync = SyncVectorEnv([single(queue) for queue in queues])

    def feed(info: dict[str, Any]) -> None:
        for board in np.flatnonzero(info.get("_opponent_move", np.zeros(boards, bool))):
            queues[board].append(int(info["opponent_move"][board]))

    observation, info = batched.reset(seed=3)
    feed(info)
    sync_observation, sync_info = sync.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(60):
        assert data_equivalence(observation, sync_observation, exact=True)
        assert data_equivalence(info, as_batched_info(sync_info, batched.cells), exact=True)
        actions = random_legal(observation, rng)
        observation, reward, terminated, _, info = batched.step(actions)
        feed(info)
        sync_observation, sync_reward, sync_terminated, _, sync_info = sync.step(actions)
        assert reward.tolist() == sync_reward.tolist()
        assert terminated.tolist() == sync_terminated.tolist()
        ends += int(terminated.sum())
    assert ends > boards and not any(queues)
