"""PPO on the batched environment (CleanRL style, one file): 3x3 against random play.

Needs PyTorch besides the ``rl`` extra (``pip install torch``; a CPU build will do). One
policy learns both sides (``agent="alternate"``) against opponents computed in the batch
(by default half the boards against random play, half against the one-ply rules: win,
else block), a lost game weighing ``--loss-weight`` times a won one; illegal moves are
masked out of the policy's logits. Every ``--eval-every``
updates the greedy policy plays 1,000 games as X and 1,000 as O against random play,
and training stops once it loses none of them as X (``--until O`` or ``both`` for the
other side or both; or after ``--total-steps``).

    python examples/ppo_vector.py                 # about a minute on one core
    python examples/ppo_vector.py --seed 1 --num-envs 256

The last line says how many agent steps it took, the wall and CPU time, and the games
of the final evaluation, counted again through ``noughts.rl.evaluate`` (the single-game
judge, which also counts blunders against exact values).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from torch import nn

import noughts.rl
from noughts import Position


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-envs", type=int, default=128)
    parser.add_argument("--num-steps", type=int, default=16, help="steps per env per update")
    parser.add_argument("--total-steps", type=int, default=3_000_000)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument(
        "--opponents",
        default="random,rules",
        help="the batched opponents to train against, boards shared among them",
    )
    parser.add_argument(
        "--loss-weight", type=float, default=3.0, help="a lost game's reward is -this (PPO only)"
    )
    parser.add_argument(
        "--until",
        choices=("X", "O", "both"),
        default="X",
        help="stop when the greedy policy loses none of its games as this side",
    )
    parser.add_argument("--eval-every", type=int, default=10, help="updates between checks")
    parser.add_argument("--eval-games", type=int, default=1000, help="per side")
    return parser.parse_args(argv)


class Agent(nn.Module):
    """A small MLP: the two planes in, masked move logits and a value out."""

    def __init__(self, cells: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(2 * cells, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh()
        )
        self.policy = nn.Linear(128, cells)
        self.value = nn.Linear(128, 1)

    def forward(
        self, planes: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.body(planes)
        logits = self.policy(hidden).masked_fill(~mask, -1e9)
        return logits, self.value(hidden).squeeze(-1)


def tensors(observation: dict[str, np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    planes = torch.from_numpy(
        observation["observation"].reshape(len(observation["action_mask"]), -1)
    )
    mask = torch.from_numpy(observation["action_mask"].astype(bool))
    # A finished board (its mask all zeros) still needs a legal-looking row for the softmax.
    mask[~mask.any(dim=1)] = True
    return planes.float(), mask


def losses_against_random(agent: Agent, side: str, games: int, seed: int) -> tuple[int, int, int]:
    """(wins, draws, losses) of the greedy policy in ``games`` games as ``side``."""
    envs = noughts.rl.NoughtsVectorEnv(games, "3x3", "random", side, exact_info=False)  # type: ignore[arg-type]
    observation, _ = envs.reset(seed=seed)
    result = np.zeros(games, dtype=np.int64)
    done = np.zeros(games, dtype=bool)
    while not done.all():
        with torch.no_grad():
            logits, _ = agent(*tensors(observation))
        observation, reward, terminated, _, _ = envs.step(logits.argmax(dim=1).numpy())
        newly = terminated & ~done
        result[newly] = reward[newly]
        done |= terminated
    return int((result > 0).sum()), int((result == 0).sum()), int((result < 0).sum())


def greedy_player(agent: Agent):  # type: ignore[no-untyped-def]
    def move(position: Position) -> int:
        seen = noughts.rl.observe(position, position.to_move)
        with torch.no_grad():
            logits, _ = agent(*tensors({key: value[None] for key, value in seen.items()}))
        return int(logits.argmax())

    return move


class Joined:
    """Batched environments side by side (one per opponent), stepped as one batch."""

    def __init__(self, parts: list[gymnasium.vector.VectorEnv]) -> None:
        self.parts = parts
        self.num_envs = sum(part.num_envs for part in parts)
        self.single_action_space = parts[0].single_action_space

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], None]:
        return self._join([part.reset(seed=seed + i)[0] for i, part in enumerate(self.parts)]), None

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, None]:
        bounds = np.cumsum([0] + [part.num_envs for part in self.parts])
        outs = [
            part.step(actions[a:b])
            for part, a, b in zip(self.parts, bounds, bounds[1:], strict=False)
        ]
        observation = self._join([out[0] for out in outs])
        reward, terminated, truncated = (
            np.concatenate([out[i] for out in outs]) for i in (1, 2, 3)
        )
        return observation, reward, terminated, truncated, None

    @staticmethod
    def _join(observations: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
        return {
            key: np.concatenate([seen[key] for seen in observations]) for key in observations[0]
        }


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    opponents = args.opponents.split(",")
    envs = Joined(
        [
            gymnasium.make_vec(
                noughts.rl.GYM_ID,
                num_envs=args.num_envs // len(opponents),
                vectorization_mode="vector_entry_point",
                variant_name="3x3",
                opponent=opponent,
                agent="alternate",
                exact_info=False,
                autoreset_mode="SameStep",  # every step a real move; a new game at once
            )
            for opponent in opponents
        ]
    )
    args.num_envs = envs.num_envs
    cells = envs.single_action_space.n
    agent = Agent(int(cells))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    n, t = args.num_envs, args.num_steps
    planes = torch.zeros((t, n, 2 * cells))
    masks = torch.zeros((t, n, cells), dtype=torch.bool)
    actions = torch.zeros((t, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((t, n)) for _ in range(4))
    observation, _ = envs.reset(seed=args.seed)
    started, started_cpu = time.perf_counter(), time.process_time()
    steps = update = 0
    while steps < args.total_steps:
        update += 1
        for step in range(t):
            planes[step], masks[step] = tensors(observation)
            with torch.no_grad():
                logits, value = agent(planes[step], masks[step])
            distribution = torch.distributions.Categorical(logits=logits)
            action = distribution.sample()
            actions[step], logprobs[step], values[step] = (
                action,
                distribution.log_prob(action),
                value,
            )
            observation, reward, terminated, truncated, _ = envs.step(action.numpy())
            reward = np.where(reward < 0, args.loss_weight * reward, reward)
            rewards[step] = torch.from_numpy(reward).float()
            dones[step] = torch.from_numpy(terminated | truncated).float()
            steps += n
        with torch.no_grad():  # generalized advantage estimates; a finished game bootstraps nothing
            _, next_value = agent(*tensors(observation))
            advantages = torch.zeros((t, n))
            running = torch.zeros(n)
            for step in reversed(range(t)):
                following = next_value if step == t - 1 else values[step + 1]
                alive = 1.0 - dones[step]
                delta = rewards[step] + args.gamma * following * alive - values[step]
                running = delta + args.gamma * args.gae_lambda * alive * running
                advantages[step] = running
            returns = advantages + values
        flat = [
            x.reshape(t * n, *x.shape[2:])
            for x in (planes, masks, actions, logprobs, advantages, returns)
        ]
        order = np.arange(t * n)
        size = t * n // args.minibatches
        for _ in range(args.epochs):
            np.random.default_rng(update).shuffle(order)
            for start in range(0, t * n, size):
                batch = torch.from_numpy(order[start : start + size])
                b_planes, b_masks, b_actions, b_logprobs, b_adv, b_returns = (
                    x[batch] for x in flat
                )
                logits, value = agent(b_planes, b_masks)
                distribution = torch.distributions.Categorical(logits=logits)
                ratio = (distribution.log_prob(b_actions) - b_logprobs).exp()
                b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                policy_loss = torch.max(
                    -b_adv * ratio, -b_adv * ratio.clamp(1 - args.clip, 1 + args.clip)
                ).mean()
                loss = policy_loss + 0.5 * ((value - b_returns) ** 2).mean()
                loss = loss - args.ent_coef * distribution.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        if update % args.eval_every == 0:
            as_x = losses_against_random(agent, "X", args.eval_games, seed=update)
            as_o = losses_against_random(agent, "O", args.eval_games, seed=update + 1)
            print(
                f"{steps:>9} steps {time.perf_counter() - started:7.1f} s: as X {as_x} "
                f"as O {as_o} (won, drawn, lost of {args.eval_games})",
                flush=True,
            )
            lost = {"X": as_x[2], "O": as_o[2], "both": as_x[2] + as_o[2]}[args.until]
            if lost == 0:
                break
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    sides = "alternate" if args.until == "both" else args.until
    judged = noughts.rl.evaluate(
        greedy_player(agent),
        "3x3",
        games=args.eval_games * (2 if sides == "alternate" else 1),
        opponent="random",
        policy_plays=sides,  # type: ignore[arg-type]
        seed=args.seed,
    )
    print(
        f"stopped after {steps} agent steps ({update} updates) in {wall:.1f} s wall, "
        f"{cpu:.1f} s CPU; judged again over {judged.games} games against random play "
        f"(as {sides}): {judged.wins} won, {judged.draws} drawn, {judged.losses} "
        f"lost, {judged.blunders} blunders in {judged.judged_moves} moves"
    )


if __name__ == "__main__":
    main()
