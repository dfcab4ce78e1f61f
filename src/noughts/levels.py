"""Difficulty levels 0-10: opponents that make the mistakes people make.

Level 0 plays at random and level 10 is the engine at full strength (perfect wherever
the exact solver applies). In between, a level plays like a person who looks a few
plies ahead and sometimes stops looking too early. Before each move the player draws
what it notices: each stage below independently, with a probability that grows with
the level (the per-board skill scale, see :func:`profile`):

1. a win on the spot (missing it is the classic "didn't see my own line"),
2. the opponent's threat that must be blocked (missing it is a late block),
3. a fork of its own: a move that makes two threats at once,
4. the opponent's fork coming next move (missing it is "missing the fork"),
5. and deeper: each further stage looks two plies more (a shallow plan stops at the
   first one it misses).

Moves whose outcome it notices are taken (wins, fastest first) or avoided (losses);
among the rest it prefers the move its line-count heuristic likes, blurred
by noise that shrinks with the level. Up to four plies the outcomes come from exact
tactics (immediate wins, blocks, forks) on every board; beyond that from the exact
solver where the board is solvable, or from a node-limited anytime search elsewhere:
the engine's own step (:class:`DeepLook`), which the engine hands in.

Randomness comes only from ``seed``: the same seed gives the same move.

>>> from noughts.engine import choose_move
>>> from noughts.position import Position
>>> trap = Position("X../.O./..X")    # O to move: a corner loses to a fork, an edge holds
>>> def corners(level):
...     return sum(choose_move(trap, level=level, seed=s).move in (2, 6) for s in range(200))
>>> corners(2) > 1.5 * corners(9)  # level 2 walks into the fork about twice as often
True
>>> choose_move(Position("XX./OO./..."), level=9, seed=1).move   # wins on the spot
2
>>> PRESETS["impossible"], preset_level("Medium")
(10, 5)
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Protocol

from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.geometry import Bitboard, Geometry, scan_forward
from noughts.position import Position, check_playable
from noughts.results import MAX_LEVEL, Estimate, MoveChoice, MoveEval, Outcome, Scale, Value
from noughts.variants import Variant
from noughts.variants import variant as parse_variant

__all__ = [
    "PRESETS",
    "LevelProfile",
    "profile",
    "preset_level",
    "parse_level",
    "level_move",
    "move_heuristics",
    "DeepLook",
]

PRESETS: dict[str, int] = {"easy": 2, "medium": 5, "hard": 8, "impossible": 10}
"""Named difficulty presets for the page and the CLI, mapped to levels."""


@dataclass(frozen=True)
class LevelProfile:
    """How a level plays on a board.

    ``notice`` holds the probabilities of noticing each stage (win now, block, own fork,
    opponent's fork, then each deeper two-ply stage); ``noise`` blurs the heuristic
    among moves whose outcome lies beyond the horizon; ``deep_nodes`` is the node budget
    of the anytime search used past four plies on boards the solver cannot finish.
    ``skill`` is the point of the skill scale (0-9) the level sits at on that board.
    """

    level: int
    skill: float
    notice: tuple[float, float, float, float, float]
    noise: float
    deep_nodes: int


_SKILL_SCALE: tuple[tuple[tuple[float, float, float, float, float], float, int], ...] = (
    # skill: (win now, block, own fork, stop fork, each deeper stage), noise, deep nodes
    ((0.00, 0.00, 0.00, 0.00, 0.00), 6.00, 100),  # 0
    ((0.15, 0.10, 0.03, 0.03, 0.03), 4.00, 200),  # 1
    ((0.30, 0.20, 0.08, 0.06, 0.08), 2.50, 300),  # 2
    ((0.45, 0.33, 0.15, 0.12, 0.12), 1.80, 500),  # 3
    ((0.58, 0.45, 0.22, 0.18, 0.18), 1.40, 800),  # 4
    ((0.68, 0.56, 0.30, 0.26, 0.25), 1.10, 1200),  # 5
    ((0.77, 0.66, 0.39, 0.34, 0.33), 0.90, 2000),  # 6
    ((0.85, 0.75, 0.48, 0.43, 0.42), 0.70, 3000),  # 7
    ((0.91, 0.84, 0.58, 0.53, 0.52), 0.50, 5000),  # 8
    ((0.96, 0.92, 0.70, 0.65, 0.65), 0.35, 8000),  # 9
)
"""Play at each whole point of the skill scale; points in between interpolate."""


_WIN = 1000.0
"""Perceived score of a visible win in 0 plies; a win in ``p`` scores ``_WIN - p``."""


def profile(level: int, variant: str = "3x3") -> LevelProfile:
    """The profile of ``level`` (1-9; 0 is random play and 10 the full engine) on a board.

    >>> profile(5, "qubic").notice[1]     # level 5 on Qubic blocks a threat 56% of the time
    0.56
    >>> profile(5, "3x3").skill           # on 3x3 it sits a little lower on the scale
    4.6
    """
    if isinstance(level, bool) or level not in range(1, MAX_LEVEL):
        raise NoughtsError(f"levels 1 to 9 have profiles, not {level!r}")
    skills = parse_variant(variant).skills  # measured per variant (calibrate_levels.py)
    skill = float(level) if skills is None else skills[level - 1]
    low = min(int(skill), len(_SKILL_SCALE) - 2)
    part = skill - low
    (notice_a, noise_a, nodes_a), (notice_b, noise_b, nodes_b) = _SKILL_SCALE[low : low + 2]
    a, b, c, d, e = (x + part * (y - x) for x, y in zip(notice_a, notice_b, strict=True))
    return LevelProfile(
        level=level,
        skill=skill,
        notice=(round(a, 4), round(b, 4), round(c, 4), round(d, 4), round(e, 4)),
        noise=noise_a + part * (noise_b - noise_a),
        deep_nodes=round(nodes_a + part * (nodes_b - nodes_a)),
    )


def parse_level(text: str) -> int:
    """A level from its number (``"0"``-``"10"``) or a preset name (case-insensitive).

    >>> parse_level("7"), parse_level(" Hard ")
    (7, 8)
    >>> parse_level("11")
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: '11' is not a level from 0 to 10 nor one of easy, ...
    """
    key = text.strip().lower()
    if key.isdigit() and 0 <= int(key) <= MAX_LEVEL:
        return int(key)
    if key in PRESETS:
        return PRESETS[key]
    raise NoughtsError(
        f"{text!r} is not a level from 0 to {MAX_LEVEL} "
        "nor one of easy, medium, hard, impossible"
    )


def preset_level(name: str) -> int:
    """The level of a named preset (case-insensitive).

    >>> preset_level("easy")
    2
    >>> preset_level("brutal")
    Traceback (most recent call last):
    ...
    noughts.errors.NoughtsError: unknown preset 'brutal': expected easy, medium, hard or impossible
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in PRESETS:
        raise NoughtsError(
            f"unknown preset {name!r}: expected easy, medium, hard or impossible"
        )
    return PRESETS[key]


class DeepLook(Protocol):
    """How a level looks past four plies: given the position, the limit, the level's
    node limit for a search and the level's random generator (a search draws its seed
    from it), every move's exact value where the board can be solved within the limit,
    else a searched move (the engine's plan hands its own in)."""

    def __call__(self, position: Position, limit: Limit | None, nodes: int,
                 rng: random.Random) -> list[MoveEval] | int: ...


def level_move(
    position: Position, level: int, limit: Limit | None = None, *, seed: int | None = None,
    look: DeepLook,
) -> MoveChoice:
    """The move a player of ``level`` (0-9) makes; ``depth`` is how far it looked.

    ``outcome``/``plies`` are set (and ``proven``) when the player saw the chosen move's
    outcome; ``score`` is the perceived score. ``limit`` bounds its searches; ``look``
    looks past four plies (the engine's :func:`~noughts.engine.choose_move` hands in its
    own step, with the level's node limit for a search).
    """
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level < MAX_LEVEL:
        raise NoughtsError(f"level_move plays levels 0 to {MAX_LEVEL - 1}, not {level!r}")
    check_playable(position)
    start = time.perf_counter()
    rng = random.Random(seed)
    if level == 0:
        move = rng.choice(list(position.legal_moves))
        return _result(position, move, level, start, 0, None, 0)
    prof = profile(level, position.variant)
    sight = _draw_sight(prof, rng, position.empty.bit_count())
    return _play(position, prof, sight, rng, start, limit, look)


@dataclass(frozen=True)
class _Sight:
    """What the player notices this move: stages 1-4 and how many plies past them."""

    stages: tuple[bool, bool, bool, bool]
    horizon: int

    def sees(self, plies: int) -> bool:
        if plies <= 4:
            return self.stages[plies - 1]
        return plies <= self.horizon


def _draw_sight(prof: LevelProfile, rng: random.Random, empty: int) -> _Sight:
    """Draw each stage independently; the deep look-ahead goes on two plies at a time."""
    a, b, c, d = (rng.random() < chance for chance in prof.notice[:4])
    horizon = 4
    while horizon < empty and rng.random() < prof.notice[4]:
        horizon += 2
    return _Sight((a, b, c, d), horizon if horizon > 4 else 0)


def _play(
    position: Position,
    prof: LevelProfile,
    sight: _Sight,
    rng: random.Random,
    start: float,
    limit: Limit | None,
    look: DeepLook,
) -> MoveChoice:
    geometry = position.geometry
    me, opp = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
    depth = sight.horizon or sum(sight.stages)
    looked = look(position, limit, prof.deep_nodes, rng) if sight.horizon else []
    if isinstance(looked, int):  # a searched move: the board is beyond the exact solver
        return _result(position, looked, prof.level, start, depth, None, 0)
    heuristics = move_heuristics(me, opp, geometry)
    sign = position.game.rules.line_sign  # (misère: a line of ours is a liability)
    top = max(heuristics.values()) or 1.0
    perceived: dict[int, tuple[float, str | None, int | None]] = {}
    if sight.horizon:
        for entry in looked:
            value = entry.value
            assert value is not None  # the solver's values are exact
            outcome = value.outcome.value
            if outcome != "draw" and sight.sees(value.plies):
                sense = 1 if outcome == "win" else -1
                perceived[entry.move] = (sense * (_WIN - value.plies), outcome, value.plies)
    elif any(sight.stages):
        perceived = _tactics(me, opp, position.game, sight)
    best_move, best_score = -1, -2 * _WIN
    for move in scan_forward(position.empty):
        if move in perceived:
            score = perceived[move][0]
        else:
            score = sign * heuristics[move] / top + rng.gauss(0.0, prof.noise)
        if score > best_score:
            best_move, best_score = move, score
    seen = perceived.get(best_move)
    return _result(
        position,
        best_move,
        prof.level,
        start,
        depth,
        best_score,
        len(heuristics),
        outcome=seen[1] if seen else None,
        plies=seen[2] if seen else None,
    )


# -- tactics: exact outcomes up to four plies, on any board --------------------------------
def _completions(marks: Bitboard, blockers: Bitboard, lines: tuple[Bitboard, ...], k: int) -> int:
    """Cells that complete a line of ``marks`` (lines free of ``blockers``), as a bitboard."""
    cells = 0
    for line in lines:
        if not line & blockers and (line & marks).bit_count() == k - 1:
            cells |= line & ~marks
    return cells


def _tactics(
    me: Bitboard, opp: Bitboard, game: Variant, sight: _Sight
) -> dict[int, tuple[float, str | None, int | None]]:
    """The outcomes the player notices among win in 1, loss in 2, win in 3, loss in 4
    (in misère: the moves that complete a line of ours, a loss in 1; threats force
    nothing there, so blocks and forks do not apply)."""
    geometry = game.geometry
    lines, through, k = geometry.lines, geometry.lines_through, game.rules.k
    empty = geometry.full & ~(me | opp)
    my_wins = _completions(me, opp, lines, k) & empty
    win_now, block, fork, stop_fork = sight.stages
    found: dict[int, tuple[float, str | None, int | None]] = {}
    if not game.rules.threat_search:
        for move in scan_forward(my_wins if win_now else 0):
            found[move] = (-_WIN + 1, "loss", 1)
        return found
    opp_wins = _completions(opp, me, lines, k) & empty
    for move in scan_forward(empty):
        bit = 1 << move
        if my_wins & bit:
            if win_now:
                found[move] = (_WIN - 1, "win", 1)
            continue
        if opp_wins & ~bit:
            if block:
                found[move] = (-_WIN + 2, "loss", 2)
            continue
        if not (fork or stop_fork):
            continue
        mine = me | bit
        left = empty & ~bit
        threats = (my_wins | _completions(mine, opp, through[move], k)) & left
        if threats.bit_count() >= 2:
            if fork:
                found[move] = (_WIN - 3, "win", 3)
            continue
        if stop_fork and _opponent_forks(mine, opp, left, threats, geometry):
            found[move] = (-_WIN + 4, "loss", 4)
    return found


def _opponent_forks(
    me: Bitboard, opp: Bitboard, empty: Bitboard, my_threats: Bitboard, geometry: Geometry
) -> bool:
    """True if the opponent (to move) has a reply that makes an unstoppable double threat."""
    through, k = geometry.lines_through, geometry.k
    replies = my_threats if my_threats else empty  # a threat of ours must be blocked
    base = _completions(opp, me, geometry.lines, k)
    for reply in scan_forward(replies):
        bit = 1 << reply
        theirs = opp | bit
        left = empty & ~bit
        if (my_threats & ~bit) & left:
            continue  # we still win on the spot
        wins = (base | _completions(theirs, me, through[reply], k)) & left
        if wins.bit_count() >= 2:
            return True
    return False


def move_heuristics(me: Bitboard, opp: Bitboard, geometry: Geometry) -> dict[int, float]:
    """The 4x4x4 seed's balanced line count as a per-move gain, for every empty cell.

    A move adds ``3 * 4**m`` for each of its lines holding ``m`` of our marks and none
    of the opponent's, and ``4**n`` for each line it spoils that held ``n`` of theirs.

    >>> g = Position().geometry
    >>> h = move_heuristics(0, 0, g)
    >>> h[4] > h[0] > h[1]       # centre, then corners, then edges
    True
    """
    gains: dict[int, float] = {}
    empty = geometry.full & ~(me | opp)
    for cell in scan_forward(empty):
        gain = 0.0
        for line in geometry.lines_through[cell]:
            mine = line & me
            theirs = line & opp
            if not theirs:
                gain += 3 * 4 ** mine.bit_count()
            if not mine:
                gain += 4 ** theirs.bit_count()
        gains[cell] = gain
    return gains


def _result(
    position: Position,
    move: int,
    level: int,
    start: float,
    horizon: int,
    score: float | None,
    nodes: int,
    *,
    outcome: str | None = None,
    plies: int | None = None,
) -> MoveChoice:
    return MoveChoice(
        move=move,
        game=position.game,
        value=None if outcome is None or plies is None else Value(Outcome(outcome), plies),
        estimate=None if score is None else Estimate(score, Scale.LEVEL),
        depth=horizon,
        pv=(move,),
        nodes=nodes,
        elapsed_ms=(time.perf_counter() - start) * 1000,
        method="level",
        level=level,
    )
