"""Players: a ``name`` and ``move(position, limit) -> MoveChoice``, and how to name them.

Every player -- the engine's levels, the seed projects' reference bots, random play --
answers a :class:`~noughts.results.MoveChoice` within a :class:`~noughts.budget.Limit`
that it polls (the game loop, :func:`noughts.players.game.play_game`, makes one per
move). An engine player asks the engine's one plan (:func:`noughts.engine.choose_move`)
within that limit and its own allowance a move, itself a :class:`~noughts.budget.Limit`.
Outside players (a function ``f(position) -> cell``, an object whose ``move(position)``
answers a cell) are adapted once, by :func:`as_spec`. The arena builds a fresh player
for every game from a :class:`PlayerSpec`, seeded, so the same seed gives the same games.

Player specs on the command line:

=================================  =================================================
``random``                         uniformly random legal moves (``level:0``)
``level:N``                        engine level ``N`` (0-10); presets ``easy``,
                                   ``medium``, ``hard``, ``impossible`` (also as
                                   ``level:hard``)
``seed-qubic[:D[:STYLE][:OPEN]]``  the 4x4x4 seed's bot as its code plays:
                                   ``D`` is its ``AI_DEPTH`` (0-5, default 3), so it
                                   searches ``D + 1`` plies (its move and ``D``
                                   more); style ``balanced`` (default),
                                   ``aggressive`` or ``defensive``; first move
                                   ``first16`` (default: a random cell among 0-15,
                                   as its code does) or ``strong`` (a random corner
                                   or centre, as the seed meant); ties ``lowest``
                                   (default: the lowest cell, as its code does) or
                                   ``random`` (seeded), e.g. ``seed-qubic:2:random``
``seed-qubic-legacy[:D[:STYLE]]``  our earlier copy, ``D`` plies in all (1-6,
                                   default 3), its own tie order: what
                                   ``seed-qubic:D`` meant before the faithful copy
``threats[:N]``                    :class:`~noughts.players.threats.ThreatPlayer`:
                                   wins by successive threats (``N`` threat-search
                                   nodes a move, default 20000), else a line-weight
                                   heuristic, seeded random ties
``mcts[:N]``                       :class:`~noughts.players.mcts.MctsPlayer`:
                                   Monte Carlo tree search, ``N`` random games a
                                   move (default 2000), with decisive and
                                   anti-decisive moves; seeded
``level:10:no-strategy``           the engine at level 10 without the shipped Qubic
                                   strategy (its search alone)
``seed-4x4``                       the 4x4 backend seed's region bot
``seed-random``                    the seed-style random bot
``rules``                          one ply of rules: win if it can, else block, else random
``module:callable``                any importable callable ``f(position) -> move``,
                                   a player object, or a class/factory building one
=================================  =================================================

>>> from noughts.budget import Limit
>>> from noughts.position import Position
>>> spec = parse_player("level:hard")
>>> spec.name
'level:8'
>>> player = spec.create(seed=1, allowance=Limit.within(seconds=5.0))
>>> round(player.time_limit, 6)
5.0
>>> player.move(Position("XX./OO./..."), Limit()).move
2
>>> parse_player("level:11")
Traceback (most recent call last):
...
noughts.errors.NoughtsError: bad player 'level:11': '11' is not a level from 0 to 10 nor one of ...
"""

from __future__ import annotations

import importlib
import inspect
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

from noughts.budget import Limit
from noughts.engine import choose_move
from noughts.errors import NoughtsError
from noughts.knowledge.shipped import SHIPPED, Knowledge
from noughts.levels import PRESETS, parse_level
from noughts.players.choice import choice_of
from noughts.position import Position
from noughts.results import MoveChoice

__all__ = [
    "Player",
    "PlayerSpec",
    "RandomPlayer",
    "LevelPlayer",
    "CallablePlayer",
    "parse_player",
    "as_spec",
]

@runtime_checkable
class Player(Protocol):
    """What plays a game: a name and a move for any position where the game goes on."""

    name: str

    def move(self, position: Position, limit: Limit) -> MoveChoice: ...


class RandomPlayer:
    """Uniformly random legal moves from a seeded generator."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        started = time.perf_counter()
        return choice_of(position, self._rng.choice(list(position.legal_moves)), started=started)


class LevelPlayer:
    """The engine at ``level`` (0-10); ``time_limit``/``nodes`` bound its searches.

    A ``seed`` seeds every move's choices (so the same seed plays the same game);
    without one the engine's own defaults apply (at level 10: the lowest of equally good
    cells). ``knowledge`` says which of the shipped knowledge it consults (all of it by
    default); ``strategy=False`` leaves the shipped Qubic strategy out of it (the search
    alone; name ``level:N:no-strategy``).
    """

    def __init__(
        self,
        level: int,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        nodes: int | None = None,
        strategy: bool = True,
        knowledge: Knowledge = SHIPPED,
    ) -> None:
        self.knowledge = knowledge if strategy else knowledge._replace(strategy=False)
        self.name = f"level:{level}" + ("" if self.knowledge.strategy else ":no-strategy")
        self.level = level
        self.time_limit = time_limit
        self.nodes = nodes
        self._rng = None if seed is None else random.Random(seed)

    @property
    def strategy(self) -> bool:
        """Whether it plays the shipped strategy where it serves."""
        return self.knowledge.strategy

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        seed = None if self._rng is None else self._rng.getrandbits(63)
        mine = limit.inner(self.time_limit, self.nodes)  # this move's allowance in it
        return choose_move(position, mine, level=self.level, seed=seed,
                           knowledge=self.knowledge)


class CallablePlayer:
    """An outside player answering a cell (or a :class:`MoveChoice`) from
    ``answer(position)``: a plain function, or the ``move`` method of an object."""

    def __init__(self, answer: Callable[[Position], object], name: str) -> None:
        self.name = name
        self._answer = answer

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        started = time.perf_counter()
        answer = self._answer(position)
        if isinstance(answer, MoveChoice):
            return answer
        return choice_of(position, answer, started=started)


@dataclass(frozen=True)
class PlayerSpec:
    """A named recipe for a player: ``create(seed, allowance)`` builds a fresh one."""

    name: str
    factory: Callable[[int | None, Limit], Player]

    def create(self, seed: int | None = None, allowance: Limit | None = None) -> Player:
        """A new player, seeded; engine players think within ``allowance`` (its seconds
        and nodes) every move."""
        return self.factory(seed, allowance or Limit())


def _level_spec(level: int, strategy: bool = True) -> PlayerSpec:
    return PlayerSpec(
        f"level:{level}" + ("" if strategy else ":no-strategy"),
        lambda seed, allowance: LevelPlayer(
            level, seed, time_limit=allowance.seconds, nodes=allowance.node_limit,
            strategy=strategy,
        ),
    )


def _level_option_spec(rest: str) -> PlayerSpec:
    """``level:N`` or ``level:N:no-strategy``."""
    level, _, option = rest.partition(":")
    if option and option.lower() != "no-strategy":
        raise ValueError(f"the only option after a level is no-strategy, not {option!r}")
    return _level_spec(parse_level(level), strategy=not option)


def _bots() -> Any:
    from noughts.players import reference

    return reference


_SEED_STYLES = ("balanced", "aggressive", "defensive")
_SEED_OPENINGS = ("first16", "strong")
_SEED_TIES = ("lowest", "random")


def _seed_qubic_spec(parts: list[str]) -> PlayerSpec:
    """``seed-qubic[:DEPTH[:STYLE][:OPENING][:TIES]]``: the faithful copy of the seed's bot."""
    if len(parts) > 4:
        raise ValueError("expected seed-qubic[:DEPTH[:STYLE][:OPENING][:TIES]]")
    depth = _seed_depth(parts[0] if parts else "3", 0, 5, "the depth (the seed's AI_DEPTH)")
    options = [part.lower() for part in parts[1:]]
    styles = [part for part in options if part in _SEED_STYLES]
    openings = [part for part in options if part in _SEED_OPENINGS]
    ties = [part for part in options if part in _SEED_TIES]
    if (len(styles) + len(openings) + len(ties) < len(options)
            or max(len(styles), len(openings), len(ties)) > 1):
        raise ValueError(
            "after the depth come a style (balanced, aggressive or defensive), an "
            "opening (first16 or strong) and ties (lowest or random), each at most once, "
            f"not {':'.join(parts[1:])!r}"
        )
    style = styles[0] if styles else "balanced"
    opening = openings[0] if openings else "first16"
    tie = ties[0] if ties else "lowest"

    def build(seed: int | None, allowance: Limit) -> Player:
        bot: Player = _bots().SeedQubicBot(depth, style, seed, opening=opening, ties=tie)
        return bot

    return PlayerSpec(_bots().SeedQubicBot(depth, style, opening=opening, ties=tie).name, build)


def _legacy_seed_qubic_spec(parts: list[str]) -> PlayerSpec:
    """``seed-qubic-legacy[:PLIES[:STYLE]]``: our earlier, shallower copy."""
    if len(parts) > 2:
        raise ValueError("expected seed-qubic-legacy[:PLIES[:STYLE]]")
    depth = _seed_depth(parts[0] if parts else "3", 1, 6, "the depth (plies in all)")
    style = parts[1].lower() if len(parts) > 1 else "balanced"
    if style not in _SEED_STYLES:
        raise ValueError("the style must be balanced, aggressive or defensive")

    def build(seed: int | None, allowance: Limit) -> Player:
        bot: Player = _bots().LegacySeedQubicBot(depth, style, seed)
        return bot

    return PlayerSpec(_bots().LegacySeedQubicBot(depth, style).name, build)


def _threats_spec(rest: str) -> PlayerSpec:
    """``threats[:NODES]``: :class:`~noughts.players.threats.ThreatPlayer`."""
    from noughts.players.threats import DEFAULT_NODES, ThreatPlayer

    return _counted_spec(rest, "the threat search's nodes", DEFAULT_NODES,
                         lambda seed, nodes: ThreatPlayer(seed, nodes=nodes))


def _mcts_spec(rest: str) -> PlayerSpec:
    """``mcts[:PLAYOUTS]``: :class:`~noughts.players.mcts.MctsPlayer`."""
    from noughts.players.mcts import DEFAULT_PLAYOUTS, MctsPlayer

    return _counted_spec(rest, "the MCTS player's playouts", DEFAULT_PLAYOUTS,
                         lambda seed, playouts: MctsPlayer(seed, playouts=playouts))


def _counted_spec(rest: str, what: str, default: int,
                  make: Callable[[int | None, int], Player]) -> PlayerSpec:
    """A player built by ``make(seed, count)``, ``count`` from ``rest`` (else ``default``)."""
    if rest and (not rest.isdigit() or int(rest) < 1):
        raise ValueError(f"{what} must be a positive integer, not {rest!r}")
    count = int(rest) if rest else default
    return PlayerSpec(make(None, count).name, lambda seed, allowance: make(seed, count))


def _seed_depth(text: str, low: int, high: int, what: str) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{what} must be an integer from {low} to {high}")
    return int(text)


def _simple_bot_spec(name: str, class_name: str) -> PlayerSpec:
    def build(seed: int | None, allowance: Limit) -> Player:
        bot: Player = getattr(_bots(), class_name)(seed)
        bot.name = name
        return bot

    return PlayerSpec(name, build)


def _import_spec(text: str) -> PlayerSpec:
    module_name, _, attribute = text.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and module_name.startswith(error.name):
            raise ValueError(f"cannot import module {module_name!r} ({error})") from None
        return _broken_spec(text, error)  # the module is there but its own imports fail
    except Exception as error:  # the module raised while importing: its player is broken
        return _broken_spec(text, error)
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    return as_spec(target, name=text)


def _broken_spec(text: str, error: Exception) -> PlayerSpec:
    """A player whose module failed to import: it cannot start, so it loses every game
    (the reason is in each record) and the arena still ends with its report."""
    reason = f"its module failed to import: {type(error).__name__}: {error}"

    def cannot_start(seed: int | None, allowance: Limit) -> Player:
        raise RuntimeError(reason)

    return PlayerSpec(text, cannot_start)


def parse_player(text: str) -> PlayerSpec:
    """The player named by a command-line spec (see the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise NoughtsError(f"a player spec is a non-empty string, not {text!r}")
    spec = text.strip()
    head, _, rest = spec.partition(":")
    key = head.lower()
    try:
        if key == "random" and not rest:
            return PlayerSpec("random", lambda seed, allowance: RandomPlayer(seed))
        if key in PRESETS and not rest:
            return _level_spec(PRESETS[key])
        if key == "level":
            return _level_option_spec(rest)
        if key == "seed-qubic":
            return _seed_qubic_spec(rest.split(":") if rest else [])
        if key == "seed-qubic-legacy":
            return _legacy_seed_qubic_spec(rest.split(":") if rest else [])
        if key == "threats":
            return _threats_spec(rest)
        if key == "mcts":
            return _mcts_spec(rest)
        if key == "seed-4x4" and not rest:
            return _simple_bot_spec("seed-4x4", "SeedRegionsBot")
        if key == "seed-random" and not rest:
            return _simple_bot_spec("seed-random", "RandomBot")
        if key == "rules" and not rest:
            return _simple_bot_spec("rules", "RulesBot")
        if rest:
            return _import_spec(spec)
    except ValueError as error:  # NoughtsError included
        raise NoughtsError(f"bad player {spec!r}: {error}") from None
    raise NoughtsError(
        f"unknown player {spec!r}: expected random, level:N, easy/medium/hard/impossible, "
        "seed-qubic[:D[:STYLE][:OPENING][:TIES]], seed-qubic-legacy[:D[:STYLE]], "
        "threats[:N], mcts[:N], seed-4x4, "
        "seed-random, rules or module:callable"
    )


def as_spec(player: object, *, name: str | None = None) -> PlayerSpec:
    """A spec from a spec string, a spec, a player object, a player class or a function.

    A class (or a factory function with a ``seed`` parameter) is called with
    ``seed=...`` for every game; a player object is shared by every game.

    >>> as_spec(lambda position: 0, name="first-cell").create().name
    'first-cell'
    """
    if isinstance(player, PlayerSpec):
        return player
    if isinstance(player, str):
        return parse_player(player)
    label = name or getattr(player, "name", None) or getattr(player, "__name__", "player")
    label = str(label)
    if not inspect.isclass(player) and _plays(player):
        shared = cast(Player, player)
        return PlayerSpec(label, lambda seed, allowance: shared)
    if inspect.isclass(player) or _takes_seed(player):
        maker: Any = player
        return PlayerSpec(label, lambda seed, allowance: _as_player(maker(seed=seed), label))
    if callable(player) or callable(getattr(player, "move", None)):
        shared_outside = _as_player(player, label)
        return PlayerSpec(label, lambda seed, allowance: shared_outside)
    raise NoughtsError(f"not a player: {player!r} has no move method and is not callable")


def _plays(player: object) -> bool:
    """True if ``player`` follows the protocol: ``move(position, limit)``."""
    method = getattr(player, "move", None)
    if not callable(method):
        return False
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return len(parameters) >= 2


def _as_player(built: object, label: str) -> Player:
    """``built`` as a player: itself if it follows the protocol, else adapted."""
    if _plays(built):
        return cast(Player, built)
    method = getattr(built, "move", None)
    if callable(method):
        return CallablePlayer(method, str(getattr(built, "name", label)))
    if callable(built):
        return CallablePlayer(built, label)
    raise NoughtsError(f"{label}: not a player (no move method, not callable)")


def _takes_seed(function: object) -> bool:
    if not callable(function):
        return False
    try:
        return "seed" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
