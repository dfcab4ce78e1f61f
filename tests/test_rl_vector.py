"""The batched environment: Gymnasium's vector API, and agreement with the single environments."""

from __future__ import annotations

from collections import deque
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from noughts import NoughtsError, Position, analyze
from noughts.rl import GYM_ID, NoughtsAECEnv, NoughtsEnv, exact_view
from noughts.rl.aec import AGENT_OF
from noughts.rl.tables import WIN, exact_table
from noughts.rl.vector_env import NoughtsVectorEnv

OUTCOMES = {1: "win", 0: "draw", -1: "loss"}


def _random_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """A uniformly random legal cell per board (cell 0 where the board has no move)."""
    return np.where(mask.astype(bool), rng.random(mask.shape), -1.0).argmax(axis=1)


# -- Gymnasium's conventions ------------------------------------------------------------------
def test_make_vec_returns_the_batched_environment_and_other_modes_still_work() -> None:
    envs = gymnasium.make_vec(
        GYM_ID, num_envs=4, vectorization_mode="vector_entry_point", variant_name="qubic"
    )
    assert isinstance(envs.unwrapped, NoughtsVectorEnv) and envs.num_envs == 4
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    observation, _ = envs.reset(seed=0)
    assert observation["observation"].shape == (4, 4, 4, 4, 2)
    assert observation["action_mask"].shape == (4, 64)
    synced = gymnasium.make_vec(
        GYM_ID, num_envs=2, vectorization_mode="sync", variant_name="3x3", opponent="random"
    )
    assert isinstance(synced, SyncVectorEnv)
    assert synced.reset(seed=0)[0]["action_mask"].shape == (2, 9)


def _check_vector_env(make: Any, steps: int = 60, seed: int = 3) -> None:
    """What Gymnasium's checks ask of an environment, asked of a batched one: spaces
    batched, answers inside them with the documented shapes and types, fresh arrays at
    every call, and the same answers for the same seed and actions."""
    first, second = make(), make()
    n = first.num_envs
    assert first.observation_space == gymnasium.vector.utils.batch_space(
        first.single_observation_space, n
    )
    assert first.action_space.shape == (n,)
    answers = [env.reset(seed=seed) for env in (first, second)]
    assert data_equivalence(answers[0], answers[1], exact=True)
    assert first.observation_space.contains(answers[0][0])
    rng = np.random.default_rng(seed)
    previous = answers[0][0]
    for _ in range(steps):
        actions = _random_actions(rng, previous["action_mask"])
        out = first.step(actions)
        assert data_equivalence(out, second.step(actions), exact=True)
        observation, reward, terminated, truncated, info = out
        assert first.observation_space.contains(observation)
        assert reward.shape == terminated.shape == truncated.shape == (n,)
        assert reward.dtype == np.float64 and terminated.dtype == truncated.dtype == bool
        assert all(len(value) == n for value in info.values() if isinstance(value, np.ndarray))
        assert observation["observation"] is not previous["observation"]
        assert not np.shares_memory(observation["action_mask"], previous["action_mask"])
        previous = observation
    first.action_space.seed(seed)
    assert first.action_space.sample().shape == (n,)


@pytest.mark.parametrize(
    ("variant_name", "opponent", "agent"),
    [
        ("3x3", None, "X"),
        ("3x3", "random", "alternate"),
        ("3x3", "rules", "O"),
        ("3x3", "exact", "X"),
        ("4x5k3", "rules", "alternate"),
        ("3x3x3", "random", "O"),
        ("qubic", None, "X"),
        ("qubic", "rules", "X"),
    ],
)
def test_vector_checks(variant_name: str, opponent: str | None, agent: str) -> None:
    _check_vector_env(lambda: NoughtsVectorEnv(8, variant_name, opponent, agent))  # type: ignore[arg-type]


# -- the same games as the single environments ------------------------------------------------
def _replay_against_single(
    variant_name: str, opponent: str, agent: str, boards: int, steps: int, seed: int
) -> int:
    """Random games in the batched environment, replayed board by board in ``NoughtsEnv``
    with an opponent that plays the batched opponent's moves: the same observations,
    rewards, ends and exact values. Returns the number of finished games."""
    envs = NoughtsVectorEnv(boards, variant_name, opponent, agent)  # type: ignore[arg-type]
    queues = [deque[int]() for _ in range(boards)]
    singles = []
    for queue in queues:

        def scripted(position: Position, queue: deque[int] = queue) -> int:
            return queue.popleft()

        singles.append(
            NoughtsEnv(variant_name, scripted, agent, exact_info=envs.exact_info)  # type: ignore[arg-type]
        )
    observation, info = envs.reset(seed=seed)
    seen = []
    for board, single in enumerate(singles):
        if info.get("_opponent_move", np.zeros(boards, bool))[board]:
            queues[board].append(int(info["opponent_move"][board]))
        seen.append(single.reset(seed=seed))
    rng = np.random.default_rng(seed)
    finished = 0
    over = np.zeros(boards, dtype=bool)
    for _ in range(steps):
        for board, (single_seen, single_info) in enumerate(seen):
            assert data_equivalence(
                {key: value[board] for key, value in observation.items()}, single_seen, exact=True
            )
            if not over[board]:
                _same_exact_info(info, board, single_info, envs.exact_info)
                assert info["agent"][board] == single_info["agent"]
        actions = _random_actions(rng, observation["action_mask"])
        observation, reward, terminated, _, info = envs.step(actions)
        for board, single in enumerate(singles):
            if info.get("_opponent_move", np.zeros(boards, bool))[board]:
                queues[board].append(int(info["opponent_move"][board]))
            if over[board]:  # the batched board was reset (next-step autoreset)
                assert reward[board] == 0 and not terminated[board]
                seen[board] = single.reset()
                continue
            single_seen, single_reward, single_end, _, single_info = single.step(
                int(actions[board])
            )
            assert (reward[board], terminated[board]) == (single_reward, single_end)
            if single_end:
                assert OUTCOMES[int(info["result"][board])] == single_info["result"]
            seen[board] = (single_seen, single_info)
        assert not any(queues), "the single environment did not take every batched move"
        over = terminated
        finished += int(terminated.sum())
    return finished


def _same_exact_info(
    info: dict[str, Any], board: int, single: dict[str, Any], exact: bool
) -> None:
    if not exact:
        assert not info["exact"][board]
        return
    assert info["exact"][board]
    if not single["exact"]:  # the table reaches where the solver does not (4x4k3-misere)
        return
    assert OUTCOMES[int(info["outcome"][board])] == single["outcome"]
    assert info["plies"][board] == single["plies"]
    assert tuple(np.flatnonzero(info["optimal_moves"][board])) == single["optimal_moves"]
    assert tuple(np.flatnonzero(info["keeping_moves"][board])) == single["keeping_moves"]
    assert tuple(info["move_values"][board].tolist()) == single["move_values"]


@pytest.mark.parametrize(
    ("variant_name", "opponent", "agent"),
    [
        ("3x3", "random", "X"),
        ("3x3", "rules", "O"),
        ("3x3", "exact", "alternate"),
        ("4x4k3", "random", "alternate"),
        ("4x4k3", "exact", "O"),
        ("5x5k4", "rules", "X"),
        ("qubic", "random", "alternate"),
        ("3x3-misere", "exact", "alternate"),
        ("4x4k3-misere", "random", "O"),
    ],
)
def test_batched_and_single_environments_agree(
    variant_name: str, opponent: str, agent: str
) -> None:
    assert _replay_against_single(variant_name, opponent, agent, 6, 40, seed=11) > 6


@pytest.mark.parametrize("variant_name", ["3x3", "4x4k3", "3x3x3", "qubic", "3x3-misere"])
def test_self_play_agrees_with_the_aec_environment(variant_name: str) -> None:
    boards = 5
    envs = NoughtsVectorEnv(boards, variant_name, opponent=None, exact_info=False)
    singles = [NoughtsAECEnv(variant_name) for _ in range(boards)]
    observation, info = envs.reset(seed=2)
    for single in singles:
        single.reset(seed=2)
    rng = np.random.default_rng(2)
    over = np.zeros(boards, dtype=bool)
    games = 0
    for _ in range(100):
        for board, single in enumerate(singles):
            agent = single.agent_selection
            assert info["to_move"][board] == single.position.to_move
            expected = single.observe(agent)
            assert data_equivalence(
                {key: value[board] for key, value in observation.items()}, expected, exact=True
            )
        actions = _random_actions(rng, observation["action_mask"])
        observation, reward, terminated, _, info = envs.step(actions)
        for board, single in enumerate(singles):
            if over[board]:
                single.reset()
                continue
            mover = single.agent_selection
            single.step(int(actions[board]))
            assert reward[board] == single.rewards[mover]
            assert terminated[board] == all(single.terminations.values())
            assert envs.position(board) == single.position
        over = terminated
        games += int(terminated.sum())
    assert games > boards


# -- the opponents ----------------------------------------------------------------------------
def _opponent_positions(variant_name: str, opponent: str, steps: int = 30) -> list[Any]:
    """(position before the opponent's move, its move) over random games."""
    envs = NoughtsVectorEnv(16, variant_name, opponent, "alternate", exact_info=False)
    rng = np.random.default_rng(5)
    observation, info = envs.reset(seed=5)
    before = [envs.position(board) for board in range(16)]
    seen = []
    for _ in range(steps):
        actions = _random_actions(rng, observation["action_mask"])
        live = observation["action_mask"].any(axis=1)
        after_agent = [before[b].play(int(actions[b])) if live[b] else None for b in range(16)]
        observation, _, _, _, info = envs.step(actions)
        for board in np.flatnonzero(info.get("_opponent_move", np.zeros(16, bool))):
            start = after_agent[board] if live[board] else Position("", variant_name)
            seen.append((start, int(info["opponent_move"][board])))
        before = [envs.position(board) for board in range(16)]
    return seen


def _completions(position: Position, mark: str) -> set[int]:
    marks = position.marks(mark)  # type: ignore[arg-type]
    return {
        cell
        for cell in position.legal_moves
        if position.geometry.wins_after(marks | 1 << cell, cell)
    }


@pytest.mark.parametrize("variant_name", ["3x3", "4x5k3", "qubic"])
def test_the_rules_opponent_wins_then_blocks(variant_name: str) -> None:
    checked = {"win": 0, "block": 0}
    for position, move in _opponent_positions(variant_name, "rules"):
        me = position.to_move
        wins = _completions(position, me)
        blocks = _completions(position, "O" if me == "X" else "X")
        if wins:
            assert move in wins
            checked["win"] += 1
        elif blocks:
            assert move in blocks
            checked["block"] += 1
    assert checked["win"] and checked["block"]


def test_the_exact_opponent_plays_optimal_moves() -> None:
    seen = _opponent_positions("3x3", "exact")
    for position, move in seen:
        view = exact_view(position)
        assert view is not None and move in view.optimal_moves
    assert len({move for position, move in seen if position.ply == 0}) > 1  # ties at random


# -- the exact table ---------------------------------------------------------------------------
def _table_value(variant_name: str, position: Position) -> int:
    table = exact_table(variant_name)
    return int(table.values[table.index_of(position)])


def _engine_score(position: Position) -> int:
    best = max((entry.value for entry in analyze(position)), key=lambda value: value.score)
    sign = {"win": 1, "draw": 0, "loss": -1}[best.outcome.value]
    return sign * (WIN - best.plies)


def test_the_3x3_table_holds_every_reachable_positions_exact_value() -> None:
    table = exact_table("3x3")
    assert table.positions == 5478  # every reachable 3x3 position, finished ones included
    stack, checked = [Position()], set()
    while stack:
        position = stack.pop()
        if position in checked:
            continue
        checked.add(position)
        if position.is_over:
            expected = -WIN if position.winner else 0
        else:
            expected = _engine_score(position)
            stack.extend(position.play(move) for move in position.legal_moves)
        assert _table_value("3x3", position) == expected, position
    assert len(checked) == 5478


def test_the_4x4k3_table_agrees_with_the_solver_on_random_positions() -> None:
    rng = np.random.default_rng(0)
    assert exact_table("4x4k3").positions == 6_036_001
    for _ in range(60):
        position = Position("", "4x4k3")
        for _ in range(int(rng.integers(0, 9))):
            if position.is_over:
                break
            moves = list(position.legal_moves)
            position = position.play(moves[int(rng.integers(len(moves)))])
        if not position.is_over:
            assert _table_value("4x4k3", position) == _engine_score(position), position


def test_misere_table_and_rewards() -> None:
    table = exact_table("3x3-misere")
    assert table.values[0] == 0  # misere 3x3 is a draw too
    position = Position("XX./OO./...")  # X to move: 2 completes X's line and loses at once
    index = table.index_of(position)
    scores = table.move_scores(np.array([index]), np.array([1]))[0]
    assert scores[2] == -(WIN - 1)
    envs = NoughtsVectorEnv(1, "3x3-misere", opponent=None, exact_info=False)
    envs.reset(seed=0)
    for cell in (0, 3, 1, 4):
        envs.step(np.array([cell]))
    _, reward, terminated, _, _ = envs.step(np.array([2]))
    assert (reward[0], terminated[0]) == (-1.0, True)


# -- autoreset modes, illegal actions, bad arguments ------------------------------------------
def _finish_board_zero(envs: NoughtsVectorEnv) -> Any:
    envs.reset(seed=0)
    out = None
    # Board 0: X wins on the top row at the fifth ply; board 1 goes on (self-play).
    for cells in ((0, 8), (3, 7), (1, 6), (4, 5), (2, 4)):
        out = envs.step(np.array(cells))
    return out


def test_same_step_autoreset_returns_the_new_game_and_the_final_observation() -> None:
    envs = NoughtsVectorEnv(2, "3x3", opponent=None, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    observation, reward, terminated, _, info = _finish_board_zero(envs)
    assert terminated.tolist() == [True, False] and reward[0] == 1.0
    assert observation["observation"][0].sum() == 0 and observation["action_mask"][0].all()
    assert info["_final_obs"].tolist() == [True, False]
    # as SyncVectorEnv: one observation (or None) per board, in an object array
    assert info["final_obs"][1] is None
    assert info["final_obs"][0]["observation"].sum() == 5  # the finished board
    assert info["final_obs"][0]["action_mask"].sum() == 0


def test_next_step_autoreset_ignores_the_action_after_the_end() -> None:
    envs = NoughtsVectorEnv(2, "3x3", opponent=None)
    observation, _, terminated, _, _ = _finish_board_zero(envs)
    assert terminated[0] and observation["action_mask"][0].sum() == 0
    observation, reward, terminated, _, _ = envs.step(np.array([5, 3]))
    assert reward[0] == 0 and not terminated[0] and observation["observation"][0].sum() == 0
    assert envs.position(1).ply == 6


def test_disabled_autoreset_waits_for_a_reset_mask() -> None:
    envs = NoughtsVectorEnv(2, "3x3", opponent=None, autoreset_mode=AutoresetMode.DISABLED)
    _finish_board_zero(envs)
    with pytest.raises(NoughtsError, match=r"boards \[0\] have finished games"):
        envs.step(np.array([5, 3]))  # as SyncVectorEnv, which asserts
    assert envs.position(0).is_over and envs.position(1).ply == 5  # nothing was played
    observation, _ = envs.reset(options={"reset_mask": np.array([True, False])})
    assert envs.position(0).ply == 0 and envs.position(1).ply == 5
    assert observation["action_mask"][0].all()
    envs.step(np.array([0, 3]))  # every board has a game now
    assert envs.position(0).ply == 1 and envs.position(1).ply == 6


def test_an_illegal_action_ends_that_game_with_the_illegal_reward() -> None:
    envs = NoughtsVectorEnv(3, "3x3", opponent="random", agent="O", illegal_reward=-2.0)
    _, info = envs.reset(seed=1)
    taken = info["opponent_move"]
    _, reward, terminated, _, info = envs.step(np.array([taken[0], 9, (taken[2] + 1) % 9]))
    assert reward[:2].tolist() == [-2.0, -2.0] and terminated[:2].all()
    assert info["_illegal_move"].tolist() == [True, True, False]
    assert info["illegal_move"][:2].tolist() == [taken[0], 9]


def test_bad_arguments_are_named() -> None:
    with pytest.raises(NoughtsError, match="computes its opponent in NumPy"):
        NoughtsVectorEnv(2, "3x3", opponent="level:5")
    with pytest.raises(NoughtsError, match="needs an exact table"):
        NoughtsVectorEnv(2, "3x3x3", opponent="exact")
    with pytest.raises(NoughtsError, match="plays X only"):
        NoughtsVectorEnv(2, "qubic", opponent="exact", agent="X")
    with pytest.raises(NoughtsError, match="max_episode_steps"):
        NoughtsVectorEnv(2, max_episode_steps=0)
    with pytest.raises(NoughtsError, match="rgb_array"):
        NoughtsVectorEnv(2, render_mode="human")
    with pytest.raises(NoughtsError, match="one per board"):
        NoughtsVectorEnv(2).reset(seed=[1, 2, 3])
    with pytest.raises(NoughtsError, match="rules"):
        NoughtsVectorEnv(2, "3x3-misere", opponent="rules")
    with pytest.raises(NoughtsError, match="num_envs"):
        NoughtsVectorEnv(0)
    with pytest.raises(NoughtsError, match="agent must be"):
        NoughtsVectorEnv(2, agent="both")  # type: ignore[arg-type]
    with pytest.raises(NoughtsError, match="cell indices"):
        NoughtsVectorEnv(2).step(np.array([1.0, 2.0]))


def test_level_aliases_and_agents_of() -> None:
    assert NoughtsVectorEnv(1, opponent=10).opponent == "exact"
    assert NoughtsVectorEnv(1, opponent="level:0").opponent == "random"
    assert AGENT_OF["X"] == "player_1"
