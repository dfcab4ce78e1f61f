"""A general player by Monte Carlo tree search: no evaluation, only random games.

:class:`MctsPlayer` plays any board of the family in normal play. Each of its
``playouts`` iterations walks down a tree of the moves tried so far by UCB1 (the
child of best ``wins / visits + c * sqrt(ln(parent visits) / visits)``), adds one new
move, and finishes the game at random from there. Two rules, known as decisive and
anti-decisive moves, hold in the tree and in the random games alike: a side with a
line one mark short completes it, and a side facing such a line of its opponent's
blocks it. The move played is the root's most visited child.

Its randomness (the order new moves are tried, the random games) comes from the
player's seeded generator, so the same seed plays the same game. It models no other
program: no opening book, no evaluation, no knowledge of who it plays.

>>> from noughts.position import Position
>>> player = MctsPlayer(seed=1, playouts=200)
>>> player.name
'mcts:200'
>>> player.choose(Position("XX./OO./..."))  # X wins now
2
>>> player.choose(Position("XX./O../..."))  # O must block
2
"""

from __future__ import annotations

import math
import random

from noughts.errors import NoughtsError
from noughts.geometry import Geometry, scan_forward
from noughts.players.reference import Bot
from noughts.position import Position, check_playable
from noughts.search.board import tables_for

__all__ = ["MctsPlayer", "DEFAULT_PLAYOUTS"]

DEFAULT_PLAYOUTS = 2_000
"""Iterations (each one random game) a move, by default."""

EXPLORATION = math.sqrt(2)
"""UCB1's exploration constant ``c``, the textbook value for results in [0, 1]."""


class _Node:
    """A position in the tree: ``wins`` counts for the side that moved into it."""

    __slots__ = ("move", "moves", "children", "visits", "wins", "winner")

    def __init__(self, move: int, moves: list[int], winner: int | None) -> None:
        self.move = move  # the move into this node (-1 at the root)
        self.moves = moves  # the moves not yet tried from here
        self.children: list[_Node] = []
        self.visits = 0
        self.wins = 0.0
        self.winner = winner  # the side (0 or 1) that has won here, if the game is decided


class _Game:
    """A game in progress on bitboards, with each side's count of marks in every line."""

    __slots__ = ("lines", "through", "k", "full", "marks", "counts", "pending", "side")

    def __init__(self, geometry: Geometry, marks: tuple[int, int]) -> None:
        tables = tables_for(geometry)
        self.lines, self.through = tables.lines, tables.through
        self.k = geometry.k
        self.full = geometry.full
        self.marks = list(marks)
        self.counts = [[(line & own).bit_count() for line in self.lines] for own in marks]
        empty = self.empty
        self.pending = [  # each side's cells that would complete a line (some since taken)
            [(line & empty).bit_length() - 1
             for line, mine, theirs in zip(self.lines, own, other, strict=True)
             if mine == self.k - 1 and not theirs]
            for own, other in (self.counts, self.counts[::-1])
        ]
        self.side = 0

    @property
    def empty(self) -> int:
        return self.full & ~(self.marks[0] | self.marks[1])

    def threats(self, side: int) -> list[int]:
        """The empty cells that complete a line of ``side``."""
        empty = self.empty
        return sorted({cell for cell in self.pending[side] if empty >> cell & 1})

    def play(self, cell: int) -> bool:
        """Mark ``cell`` for the side to move; True if that completes one of its lines."""
        side = self.side
        self.marks[side] |= 1 << cell
        own, other = self.counts[side], self.counts[1 - side]
        k = self.k
        won = False
        for index in self.through[cell]:
            own[index] += 1
            if own[index] == k - 1 and not other[index]:
                open_cells = self.lines[index] & ~(self.marks[0] | self.marks[1])
                self.pending[side].append(open_cells.bit_length() - 1)
            elif own[index] == k:
                won = True
        self.side = 1 - side
        return won


class MctsPlayer(Bot):
    """Monte Carlo tree search with decisive and anti-decisive moves (see the module).

    ``playouts`` iterations a move; ``exploration`` is UCB1's ``c``; ``seed`` seeds
    the order of new moves and the random games.

    >>> MctsPlayer(playouts=500).name
    'mcts:500'
    >>> MctsPlayer().name
    'mcts'
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        playouts: int = DEFAULT_PLAYOUTS,
        exploration: float = EXPLORATION,
    ) -> None:
        if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
            raise NoughtsError(f"playouts must be a positive integer, not {playouts!r}")
        if not exploration >= 0:
            raise NoughtsError(f"exploration must be a number at least 0, not {exploration!r}")
        self.playouts = playouts
        self.exploration = exploration
        self.rng = random.Random(seed)
        self.name = "mcts" if playouts == DEFAULT_PLAYOUTS else f"mcts:{playouts}"

    def choose(self, position: Position) -> int:
        check_playable(position)
        if position.game.misere:  # its two rules are normal play's
            raise NoughtsError(f"the MCTS player plays normal games, not {position.game.name}")
        geometry = position.geometry
        marks = (position.x, position.o) if position.to_move == "X" else (position.o, position.x)
        game = _Game(geometry, marks)
        wins = game.threats(0)
        if wins:
            return wins[0]
        root = self._node(-1, game, winner=None)
        if len(root.moves) == 1:
            return root.moves[0]
        for _ in range(self.playouts):
            self._iterate(root, _Game(geometry, marks))
        most = max(child.visits for child in root.children)
        return min(child.move for child in root.children if child.visits == most)

    def _node(self, move: int, game: _Game, winner: int | None) -> _Node:
        """A new node for ``game``'s position: its moves are the forced ones, if any."""
        empty = game.empty
        if winner is not None or not empty:
            return _Node(move, [], winner)
        side = game.side
        if game.threats(side):  # the side to move completes a line: decided
            return _Node(move, [], side)
        moves = game.threats(1 - side) or list(scan_forward(empty))
        self.rng.shuffle(moves)
        return _Node(move, moves, None)

    def _iterate(self, root: _Node, game: _Game) -> None:
        """One iteration: select, expand one move, finish at random, back up."""
        path = [root]
        node = root
        while node.winner is None and not node.moves and node.children:
            node = self._select(node)
            game.play(node.move)
            path.append(node)
        if node.winner is None and node.moves:
            move = node.moves.pop()
            mover = game.side
            child = self._node(move, game, mover if game.play(move) else None)
            node.children.append(child)
            node = child
            path.append(node)
        winner = node.winner if node.winner is not None else self._finish(game)
        for depth, visited in enumerate(path):  # path[d] was moved into by side (d - 1) % 2
            visited.visits += 1
            if winner is None:
                visited.wins += 0.5
            elif winner == (depth - 1) % 2:
                visited.wins += 1.0

    def _select(self, node: _Node) -> _Node:
        log_visits = math.log(node.visits)
        c = self.exploration
        return max(node.children,
                   key=lambda child: child.wins / child.visits
                   + c * math.sqrt(log_visits / child.visits))

    def _finish(self, game: _Game) -> int | None:
        """Play ``game`` out at random under the two rules; the winner, None for a draw."""
        free = list(scan_forward(game.empty))
        self.rng.shuffle(free)
        while True:
            side = game.side
            if game.threats(side):
                return side
            blocks = game.threats(1 - side)
            if blocks:
                cell = blocks[0] if len(blocks) == 1 else self.rng.choice(blocks)
            else:
                occupied = game.marks[0] | game.marks[1]
                while free and occupied >> free[-1] & 1:
                    free.pop()
                if not free:
                    return None
                cell = free.pop()
            if game.play(cell):
                return side
