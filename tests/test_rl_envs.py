"""The learning environments: the upstream checkers, and agreement with the engine's rules."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from hypothesis import given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():  # PettingZoo warns about its own lazy loader on import
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.classic import tictactoe_v3
    from pettingzoo.test import api_test, seed_test

from noughts import GameOverError, IllegalMoveError, NoughtsError, Position, analyze
from noughts.rl import AGENT_OF, GYM_ID, NoughtsAECEnv, NoughtsEnv, aec_env, exact_view

# 3x3, 4x4k3, two m x n k boards (one the solver reaches, one it does not), 3x3x3, Qubic.
VARIANTS = ["3x3", "4x4k3", "4x5k3", "6x6k4", "3x3x3", "qubic"]
# Strong but quick opponents: level 10 where the solver answers at once, weaker elsewhere.
OPPONENTS = {"3x3": 10, "4x4k3": 10, "4x5k3": 10, "6x6k4": 3, "3x3x3": 10, "qubic": "random"}


def _upstream(check: object, *args: object, **options: object) -> None:
    """Run an upstream checker; its advisory warnings are not failures (errors are)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(*args, **options)  # type: ignore[operator]


@pytest.mark.parametrize("name", VARIANTS)
def test_pettingzoo_api_test_passes(name: str) -> None:
    _upstream(api_test, aec_env(name), num_cycles=300)


@pytest.mark.parametrize("name", ["3x3", "qubic"])
def test_pettingzoo_seed_test_passes(name: str) -> None:
    _upstream(seed_test, lambda: aec_env(name), num_cycles=50)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("agent", ["X", "O", "alternate"])
def test_gymnasium_check_env_passes(name: str, agent: str) -> None:
    env = NoughtsEnv(name, opponent=OPPONENTS[name], agent=agent, render_mode="ansi")  # type: ignore[arg-type]
    _upstream(check_env, env)


def test_registered_with_gymnasium() -> None:
    import gymnasium

    env = gymnasium.make(GYM_ID, variant_name="4x4k3", opponent="level:2", agent="O")
    observation, info = env.reset(seed=4)
    assert observation["observation"].shape == (4, 4, 2)
    assert info["agent"] == "O" and observation["observation"][..., 1].sum() == 1
    env.close()


def test_import_noughts_needs_no_rl_packages() -> None:
    code = (
        "import sys, noughts, noughts.players, noughts.arena, noughts.cli\n"
        "loaded = [m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_aec_illegal_move_ends_the_game_with_minus_one() -> None:
    env = aec_env("3x3")
    env.reset()
    env.step(4)
    env.step(4)  # O plays on X's mark
    assert all(env.terminations.values())
    assert env.rewards == {"player_1": 0, "player_2": -1}


def test_bare_aec_env_raises_on_an_illegal_move() -> None:
    env = NoughtsAECEnv("3x3")
    env.reset()
    env.step(0)
    with pytest.raises(IllegalMoveError, match="occupied"):
        env.step(0)


def test_aec_render_modes() -> None:
    env = NoughtsAECEnv("3x3", render_mode="ansi")
    env.reset()
    env.step(4)
    assert env.render() == ". . .\n. X .\n. . .\nO to move"
    image = NoughtsAECEnv("3x3", render_mode="rgb_array")
    image.reset()
    image.step(4)
    assert image.render().shape == (96, 96, 3)
    with pytest.raises(ValueError, match="render_mode"):
        NoughtsAECEnv("3x3", render_mode="rgb")


def test_gym_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = NoughtsEnv("3x3", opponent=10, render_mode="human")
    env.reset(seed=0)
    env.step(4)
    assert "X to move" in capsys.readouterr().out


def test_gym_illegal_action_ends_the_episode() -> None:
    env = NoughtsEnv("3x3", opponent=10, agent="O")
    _, info = env.reset(seed=1)
    reply = info["opponent_move"]
    _, reward, terminated, truncated, info = env.step(reply)
    assert (reward, terminated, truncated, info["illegal_move"]) == (-1.0, True, False, reply)
    with pytest.raises(NoughtsError, match="reset"):
        env.step(0)


def test_gym_bad_arguments_are_named() -> None:
    with pytest.raises(NoughtsError, match="agent must be"):
        NoughtsEnv("3x3", agent="both")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="level"):
        NoughtsEnv("3x3", opponent=11)
    with pytest.raises(NoughtsError, match="unknown variant"):
        NoughtsEnv("3x3k4")


def test_gym_alternate_switches_sides_and_a_seed_restarts_the_sequence() -> None:
    env = NoughtsEnv("3x3", opponent=0, agent="alternate")
    sides = [env.reset(seed=7)[1]["agent"], env.reset()[1]["agent"], env.reset()[1]["agent"]]
    assert sides == ["X", "O", "X"]
    assert env.reset(seed=7)[1]["agent"] == "X"


def test_gym_info_carries_exact_values_only_where_the_solver_reaches() -> None:
    env = NoughtsEnv("qubic", opponent="random")
    _, info = env.reset(seed=0)
    assert info["exact"] is False
    env = NoughtsEnv("3x3", opponent=10, agent="O")
    _, info = env.reset(seed=0)
    position = env.position
    values = {m.move: m.value for m in analyze(position)}
    best = max(values.values(), key=lambda value: value.score)
    assert info["outcome"] == best.outcome.value == "draw"
    assert set(info["optimal_moves"]) == {m for m, v in values.items() if v == best}
    assert info == {
        "agent": "O",
        "opponent_move": info["opponent_move"],
        **exact_view(position).as_info(),
    }  # type: ignore[union-attr]


# -- the environments against the engine's rules, on random games -------------------------
def _check_observation(seen: dict[str, np.ndarray], position: Position, mark: str) -> None:
    cells = position.geometry.cells
    own = position.x if mark == "X" else position.o
    rival = position.o if mark == "X" else position.x
    planes = seen["observation"].reshape(cells, 2)
    assert [c for c in range(cells) if planes[c, 0]] == [c for c in range(cells) if own >> c & 1]
    assert [c for c in range(cells) if planes[c, 1]] == [c for c in range(cells) if rival >> c & 1]
    legal = list(position.legal_moves) if position.to_move == mark else []
    assert np.flatnonzero(seen["action_mask"]).tolist() == legal


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(["3x3", "4x4k3", "4x5k3", "6x6k4", "3x3x3", "qubic"]),
    choices=st.lists(st.integers(0, 10**6), min_size=64, max_size=64),
)
def test_aec_env_follows_the_engine_on_random_games(name: str, choices: list[int]) -> None:
    env = NoughtsAECEnv(name)
    env.reset(seed=0)
    position = Position("", name)
    for choice in choices:
        if position.is_over:
            break
        agent = env.agent_selection
        assert agent == AGENT_OF[position.to_move]
        for other_agent, mark in (("player_1", "X"), ("player_2", "O")):
            _check_observation(env.observe(other_agent), position, mark)
        moves = list(position.legal_moves)
        move = moves[choice % len(moves)]
        env.step(move)
        position = position.play(move)
        assert all(env.terminations.values()) is position.is_over
    assert position.is_over and all(env.terminations.values())
    winner = position.winner
    expected = {"player_1": 0, "player_2": 0}
    if winner is not None:
        expected[AGENT_OF[winner]] = 1
        expected[AGENT_OF["O" if winner == "X" else "X"]] = -1
    assert env.rewards == expected
    with pytest.raises(GameOverError):
        position.play(next(iter(range(position.geometry.cells))))


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["3x3", "4x4k3", "3x3x3", "qubic"]),
    agent=st.sampled_from(["X", "O"]),
    seed=st.integers(0, 1000),
    choices=st.lists(st.integers(0, 10**6), min_size=32, max_size=32),
)
def test_gym_env_follows_the_engine_on_random_games(
    name: str, agent: str, seed: int, choices: list[int]
) -> None:
    env = NoughtsEnv(name, opponent="random", agent=agent, exact_info=name != "qubic")  # type: ignore[arg-type]
    seen, info = env.reset(seed=seed)
    position = Position("", name)
    if agent == "O":
        position = position.play(info["opponent_move"])
    for choice in choices:
        _check_observation(seen, position, agent)
        moves = list(position.legal_moves)
        move = moves[choice % len(moves)]
        seen, reward, terminated, _, info = env.step(move)
        position = position.play(move)
        if "opponent_move" in info:
            position = position.play(info["opponent_move"])
        assert env.position == position and terminated is position.is_over
        if terminated:
            winner = position.winner
            assert reward == (0.0 if winner is None else 1.0 if winner == agent else -1.0)
            break
        assert reward == 0.0
        view = exact_view(position) if name != "qubic" else None
        assert info.get("optimal_moves") == (view.optimal_moves if view else None)


# -- PettingZoo's own tic-tac-toe as a referee ---------------------------------------------
def _their_action(cell: int) -> int:
    """``tictactoe_v3`` numbers cells column by column; noughts row by row."""
    row, col = divmod(cell, 3)
    return col * 3 + row


@settings(max_examples=40, deadline=None)
@given(choices=st.lists(st.integers(0, 10**6), min_size=9, max_size=9))
def test_3x3_agrees_with_pettingzoo_tictactoe_v3(choices: list[int]) -> None:
    ours, theirs = aec_env("3x3"), tictactoe_v3.env()
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for choice in choices:
        if all(ours.terminations.values()):
            break
        agent = ours.agent_selection
        assert theirs.agent_selection == agent
        our_mask = ours.observe(agent)["action_mask"]
        their_mask = theirs.observe(agent)["action_mask"]
        assert [their_mask[_their_action(c)] for c in range(9)] == our_mask.tolist()
        legal = np.flatnonzero(our_mask)
        cell = int(legal[choice % len(legal)])
        ours.step(cell)
        theirs.step(_their_action(cell))
        assert ours.terminations == theirs.terminations
        assert ours.rewards == theirs.rewards
    assert all(theirs.terminations.values())


def test_actions_are_cell_indices() -> None:
    env = NoughtsEnv("3x3", opponent=0)
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="cell index"):
        env.step(4.0)  # type: ignore[arg-type]
    _, reward, terminated, _, _ = env.step(np.array(4))
    assert reward == 0.0 and not terminated and env.position.x == 1 << 4
    bare = NoughtsAECEnv("3x3")
    bare.reset()
    with pytest.raises(IllegalMoveError, match="cell index"):
        bare.step("4")


def test_action_masks_for_maskable_ppo_follow_the_observation() -> None:
    env = NoughtsEnv("4x4k3", opponent="random", agent="alternate")
    rng = np.random.default_rng(0)
    for episode in range(6):
        seen, _ = env.reset(seed=episode)
        done = False
        while not done:
            masks = env.action_masks()
            assert masks.dtype == bool and masks.shape == (16,)
            assert masks.tolist() == seen["action_mask"].astype(bool).tolist()
            seen, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(masks))))
        assert not env.action_masks().any()


# -- spaces seeded lazily give the samples eager seeding gives ----------------------------
def _eager_spaces(name: str, seed: int) -> tuple[Any, Any]:
    from gymnasium import spaces

    geometry = NoughtsAECEnv(name).geometry
    actions = spaces.Discrete(geometry.cells)
    observations = spaces.Dict(
        {
            "observation": spaces.Box(0, 1, shape=(*geometry.shape, 2), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, shape=(geometry.cells,), dtype=np.int8),
        }
    )
    actions.seed(seed)
    observations.seed(seed)
    return actions, observations


@pytest.mark.parametrize("name", ["3x3", "qubic"])
def test_seeded_resets_sample_as_eager_seeding_did(name: str) -> None:
    env = NoughtsAECEnv(name)
    for seed in (0, 7, 123):
        env.reset(seed=seed)
        env.step(0)  # play a little first: seeding waits for the first sample
        actions, observations = _eager_spaces(name, seed)
        ours = [int(env.action_space("player_2").sample()) for _ in range(5)]
        assert ours == [int(actions.sample()) for _ in range(5)]
        assert data_equivalence(env.observation_space("player_1").sample(), observations.sample())
    env.reset(seed=5)  # a subspace sampled first, then seeded by hand: as eager
    _, observations = _eager_spaces(name, 5)
    box = env.observation_space("player_1")["action_mask"]
    assert data_equivalence(box.sample(), observations["action_mask"].sample())
    box.seed(9)
    observations["action_mask"].seed(9)
    assert data_equivalence(box.sample(), observations["action_mask"].sample())
    env.reset(seed=4)
    env.action_space("player_1").seed(11)  # an explicit seed overrides the pending one
    actions, _ = _eager_spaces(name, 11)
    assert int(env.action_space("player_1").sample()) == int(actions.sample())


def test_gym_seeded_reset_samples_as_eager_seeding_did() -> None:
    env = NoughtsEnv("3x3", opponent="random")
    env.reset(seed=21)
    actions, _ = _eager_spaces("3x3", 21)
    assert [int(env.action_space.sample()) for _ in range(6)] == [
        int(actions.sample()) for _ in range(6)
    ]


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["3x3", "4x4k3", "qubic"]),
    choices=st.lists(st.integers(0, 10**6), min_size=40, max_size=40),
    illegal_at=st.integers(0, 12),
)
def test_aec_env_does_what_pettingzoos_wrappers_do(
    name: str, choices: list[int], illegal_at: int
) -> None:
    from pettingzoo.utils import wrappers

    ours = aec_env(name)
    theirs = wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(NoughtsAECEnv(name), illegal_reward=-1)
        )
    )
    for env in (ours, theirs):
        env.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PettingZoo's illegal-move warning
        for index, choice in enumerate(choices):
            if not ours.agents:
                break
            observation, reward, termination, truncation, info = ours.last()
            expected = theirs.last()
            assert data_equivalence((observation, reward, termination, truncation, info), expected)
            assert ours.agent_selection == theirs.agent_selection
            if termination or truncation:
                action = None
            elif index == illegal_at and observation["action_mask"].min() == 0:
                action = int(np.flatnonzero(observation["action_mask"] == 0)[0])  # occupied
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[choice % len(legal)])
            for env in (ours, theirs):
                env.step(action)
            assert ours.rewards == theirs.rewards
            assert ours._cumulative_rewards == theirs._cumulative_rewards
            assert ours.terminations == theirs.terminations
            assert ours.truncations == theirs.truncations
    with pytest.raises(AssertionError, match="action space"):
        fresh = aec_env(name)
        fresh.reset()
        fresh.step(10**6)
