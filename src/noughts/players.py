"""Players: anything with a ``name`` and a ``move(position)`` method, and how to name them.

A player's ``move`` returns a cell (``int``) or a :class:`~noughts.engine.MoveResult`
carrying its value, depth and nodes. The arena builds a fresh player for every game
from a :class:`PlayerSpec`, seeded, so the same seed gives the same games.

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
                                   ``strong`` (default: a random corner or centre,
                                   as the seed meant) or ``first16`` (a random cell
                                   among 0-15, as its code does)
``seed-qubic-legacy[:D[:STYLE]]``  our earlier copy, ``D`` plies in all (1-6,
                                   default 3), its own tie order: what
                                   ``seed-qubic:D`` meant before the faithful copy
``seed-4x4``                       the 4x4 backend seed's region bot
``seed-random``                    the seed-style random bot
``module:callable``                any importable callable ``f(position) -> move``,
                                   a player object, or a class/factory building one
=================================  =================================================

>>> from noughts.position import Position
>>> spec = parse_player("level:hard")
>>> spec.name
'level:8'
>>> player = spec.create(seed=1)
>>> move_of(player.move(Position("XX./OO./...")))
2
>>> parse_player("level:11")
Traceback (most recent call last):
...
noughts.errors.NoughtsError: bad player 'level:11': level must be an integer from 0 to 10
"""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from noughts.engine import MAX_LEVEL, MoveResult, choose_move
from noughts.errors import NoughtsError
from noughts.levels import PRESETS
from noughts.position import Position

__all__ = [
    "Player",
    "PlayerSpec",
    "Budget",
    "RandomPlayer",
    "LevelPlayer",
    "CallablePlayer",
    "parse_player",
    "as_spec",
    "move_of",
]

MoveAnswer = int | MoveResult


@runtime_checkable
class Player(Protocol):
    """What the arena plays: a name and a move for any position where the game goes on."""

    name: str

    def move(self, position: Position) -> MoveAnswer: ...


def move_of(answer: object) -> object:
    """The cell of a player's answer (an ``int`` or anything with ``.move``), unchecked.

    >>> move_of(4), move_of(choose_move(Position("XX./OO./...")))
    (4, 2)
    """
    if isinstance(answer, int):
        return answer
    return getattr(answer, "move", answer)


class RandomPlayer:
    """Uniformly random legal moves from a seeded generator."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def move(self, position: Position) -> int:
        return self._rng.choice(list(position.legal_moves))


class LevelPlayer:
    """The engine at ``level`` (0-10); ``time_limit``/``nodes`` bound its searches."""

    def __init__(
        self,
        level: int,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        nodes: int | None = None,
    ) -> None:
        self.name = f"level:{level}"
        self.level = level
        self.time_limit = time_limit
        self.nodes = nodes
        self._rng = random.Random(seed)

    def move(self, position: Position) -> MoveResult:
        return choose_move(
            position,
            level=self.level,
            time_limit=self.time_limit,
            nodes=self.nodes,
            seed=self._rng.getrandbits(63),
        )


class CallablePlayer:
    """A plain function ``f(position) -> move`` wrapped as a player."""

    def __init__(self, function: Callable[[Position], Any], name: str) -> None:
        self.name = name
        self._function = function

    def move(self, position: Position) -> Any:
        return self._function(position)


class _BotPlayer:
    """A bot from :mod:`noughts.bots` whatever its move method is called."""

    def __init__(self, bot: Any, name: str) -> None:
        self.name = name
        self._bot = bot
        for method in ("move", "choose_move", "choose", "best_move", "get_move"):
            if callable(getattr(bot, method, None)):
                self._method: Callable[[Position], Any] = getattr(bot, method)
                break
        else:
            if not callable(bot):
                raise NoughtsError(f"{name}: the bot has no move method")
            self._method = bot

    def move(self, position: Position) -> Any:
        return self._method(position)


@dataclass(frozen=True)
class Budget:
    """What an engine player may spend on a move: seconds and/or search nodes."""

    time_limit: float | None = None
    nodes: int | None = None


@dataclass(frozen=True)
class PlayerSpec:
    """A named recipe for a player: ``create(seed, budget)`` builds a fresh one."""

    name: str
    factory: Callable[[int | None, Budget], Player]

    def create(self, seed: int | None = None, budget: Budget | None = None) -> Player:
        """A new player, seeded; engine players think within ``budget``."""
        return self.factory(seed, budget or Budget())


def _level_spec(level: int) -> PlayerSpec:
    return PlayerSpec(
        f"level:{level}",
        lambda seed, budget: LevelPlayer(
            level, seed, time_limit=budget.time_limit, nodes=budget.nodes
        ),
    )


def _parse_level(text: str) -> int:
    if text.lower() in PRESETS:
        return PRESETS[text.lower()]
    if not text.isdigit() or not 0 <= int(text) <= MAX_LEVEL:
        raise ValueError(f"level must be an integer from 0 to {MAX_LEVEL}")
    return int(text)


def _bots() -> Any:
    try:
        return importlib.import_module("noughts.bots")
    except ImportError as error:
        raise ValueError(f"the seed-style bots are not available ({error})") from None


_SEED_STYLES = ("balanced", "aggressive", "defensive")
_SEED_OPENINGS = ("strong", "first16")


def _seed_qubic_spec(parts: list[str]) -> PlayerSpec:
    """``seed-qubic[:DEPTH[:STYLE][:OPENING]]``: the faithful copy of the seed's bot."""
    if len(parts) > 3:
        raise ValueError("expected seed-qubic[:DEPTH[:STYLE][:OPENING]]")
    depth = _seed_depth(parts[0] if parts else "3", 0, 5, "the depth (the seed's AI_DEPTH)")
    styles = [part.lower() for part in parts[1:] if part.lower() in _SEED_STYLES]
    openings = [part.lower() for part in parts[1:] if part.lower() in _SEED_OPENINGS]
    if len(styles) + len(openings) < len(parts[1:]) or len(styles) > 1 or len(openings) > 1:
        raise ValueError(
            "after the depth come a style (balanced, aggressive or defensive) and an "
            f"opening (strong or first16), each at most once, not {':'.join(parts[1:])!r}"
        )
    style = styles[0] if styles else "balanced"
    opening = openings[0] if openings else "strong"

    def build(seed: int | None, budget: Budget) -> Player:
        bot = _bots().SeedQubicBot(depth, style, seed, opening=opening)
        return _BotPlayer(bot, bot.name)

    return PlayerSpec(_bots().SeedQubicBot(depth, style, opening=opening).name, build)


def _legacy_seed_qubic_spec(parts: list[str]) -> PlayerSpec:
    """``seed-qubic-legacy[:PLIES[:STYLE]]``: our earlier, shallower copy."""
    if len(parts) > 2:
        raise ValueError("expected seed-qubic-legacy[:PLIES[:STYLE]]")
    depth = _seed_depth(parts[0] if parts else "3", 1, 6, "the depth (plies in all)")
    style = parts[1].lower() if len(parts) > 1 else "balanced"
    if style not in _SEED_STYLES:
        raise ValueError("the style must be balanced, aggressive or defensive")

    def build(seed: int | None, budget: Budget) -> Player:
        bot = _bots().LegacySeedQubicBot(depth, style, seed)
        return _BotPlayer(bot, bot.name)

    return PlayerSpec(_bots().LegacySeedQubicBot(depth, style).name, build)


def _seed_depth(text: str, low: int, high: int, what: str) -> int:
    if not text.isdigit() or not low <= int(text) <= high:
        raise ValueError(f"{what} must be an integer from {low} to {high}")
    return int(text)


def _simple_bot_spec(name: str, class_name: str) -> PlayerSpec:
    def build(seed: int | None, budget: Budget) -> Player:
        return _BotPlayer(getattr(_bots(), class_name)(seed), name)

    return PlayerSpec(name, build)


def _import_spec(text: str) -> PlayerSpec:
    module_name, _, attribute = text.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"cannot import module {module_name!r} ({error})") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    return as_spec(target, name=text)


def parse_player(text: str) -> PlayerSpec:
    """The player named by a command-line spec (see the module docstring)."""
    if not isinstance(text, str) or not text.strip():
        raise NoughtsError(f"a player spec is a non-empty string, not {text!r}")
    spec = text.strip()
    head, _, rest = spec.partition(":")
    key = head.lower()
    try:
        if key == "random" and not rest:
            return PlayerSpec("random", lambda seed, budget: RandomPlayer(seed))
        if key in PRESETS and not rest:
            return _level_spec(PRESETS[key])
        if key == "level":
            return _level_spec(_parse_level(rest))
        if key == "seed-qubic":
            return _seed_qubic_spec(rest.split(":") if rest else [])
        if key == "seed-qubic-legacy":
            return _legacy_seed_qubic_spec(rest.split(":") if rest else [])
        if key == "seed-4x4" and not rest:
            return _simple_bot_spec("seed-4x4", "SeedRegionsBot")
        if key == "seed-random" and not rest:
            return _simple_bot_spec("seed-random", "RandomBot")
        if rest:
            return _import_spec(spec)
    except ValueError as error:
        raise NoughtsError(f"bad player {spec!r}: {error}") from None
    raise NoughtsError(
        f"unknown player {spec!r}: expected random, level:N, easy/medium/hard/impossible, "
        "seed-qubic[:D[:STYLE][:OPENING]], seed-qubic-legacy[:D[:STYLE]], seed-4x4, "
        "seed-random or module:callable"
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
    if isinstance(player, Player) and not inspect.isclass(player):
        shared = player
        return PlayerSpec(label, lambda seed, budget: shared)
    if inspect.isclass(player) or _takes_seed(player):
        maker: Any = player

        def build(seed: int | None, budget: Budget) -> Player:
            built = maker(seed=seed)
            if isinstance(built, Player):
                return built
            return _BotPlayer(built, label)

        return PlayerSpec(label, build)
    if callable(player):
        function: Any = player
        return PlayerSpec(label, lambda seed, budget: CallablePlayer(function, label))
    raise NoughtsError(f"not a player: {player!r} has no move method and is not callable")


def _takes_seed(function: object) -> bool:
    if not callable(function):
        return False
    try:
        return "seed" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
