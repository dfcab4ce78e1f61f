"""The Qubic family: the fallible X players O is measured against, and the players
outside it.

The family benchmark (``benchmarks/bench_qubic.py --parts family``) plays the engine as
O against each member; the O book's builders (:mod:`noughts.builders.o_book`,
:mod:`noughts.builders.o_book_deepen`) refuse to build against any of them, so that the
book is never tuned to the players it is measured on. A member is a player spec, with
``@N`` for a node budget a move (:func:`member_player`).

>>> len(DEFAULT_MEMBERS), len(OUTSIDE_MEMBERS)
(10, 9)
>>> measured(["threats:5000", "threats"])
'threats is in the family'
"""

from __future__ import annotations

from collections.abc import Iterable

from noughts.budget import Limit
from noughts.players.protocol import Player, parse_player

__all__ = ["DEFAULT_MEMBERS", "OUTSIDE_MEMBERS", "MEMBER_SETS", "parse_members",
           "member_player", "split_budget", "measured"]

DEFAULT_MEMBERS = (
    "seed-qubic:1",
    "seed-qubic:2",
    "seed-qubic:3",
    "seed-qubic:1:random",
    "seed-qubic:2:random",
    "seed-qubic:3:random",
    "level:10:no-strategy@2000",
    "level:10:no-strategy@20000",
    "level:10:no-strategy@100000",
    "threats",
)
"""The family, in table order: the 4x4x4 seed's bot at look-ahead 1 to 3 with
lowest-cell and with random ties, the engine's own search as X without the shipped
strategy at three node budgets, and the threat player."""

OUTSIDE_MEMBERS = (
    "seed-qubic:4",
    "seed-qubic:4:random",
    "seed-qubic:3:defensive:random",
    "seed-qubic:2:defensive",
    "level:10:no-strategy@40000",
    "level:10:no-strategy@300000",
    "threats:100000",
    "mcts:10000",
    "mcts:30000",
)
"""X players outside the family and outside every O book build: what the family's figure
says about players O was never measured or built against. Three of them search deeper
than any member (the seed's bot at look-ahead 4, with either tie rule, and the engine's
X at 300,000 nodes); the last two are of a kind no member is, Monte Carlo tree search
(:class:`noughts.players.mcts.MctsPlayer`) at 10,000 and 30,000 random games a move."""

MEMBER_SETS = {"family": DEFAULT_MEMBERS, "outside": OUTSIDE_MEMBERS}
"""The names that stand for a whole set of members."""


def parse_members(text: str) -> list[str]:
    """The members a comma-separated list names (a set's name stands for it).

    >>> parse_members("outside,threats")[-2:]
    ['mcts:30000', 'threats']
    >>> len(parse_members("family"))
    10
    """
    members: list[str] = []
    for name in (part.strip() for part in text.split(",")):
        if name:
            members.extend(MEMBER_SETS.get(name, (name,)))
    return members


def member_player(member: str, seed: int) -> Player:
    """The X player named by ``member``: a player spec, ``@N`` for N nodes a move.

    >>> member_player("level:10:no-strategy@500", 1).name
    'level:10:no-strategy'
    >>> member_player("seed-qubic:2:random", 1).name
    'seed-qubic:2:random'
    >>> member_player("threats@x", 1)
    Traceback (most recent call last):
    ...
    ValueError: bad member 'threats@x': after @ comes a node budget
    """
    spec, nodes = split_budget(member)
    allowance = Limit.within(nodes=nodes) if nodes else Limit()
    return parse_player(spec).create(seed=seed, allowance=allowance)


def split_budget(member: str) -> tuple[str, int | None]:
    """``member``'s player spec and its node budget a move (after ``@``), if it names one.

    >>> split_budget("level:10:no-strategy@500")
    ('level:10:no-strategy', 500)
    >>> split_budget("threats:5000")
    ('threats:5000', None)
    >>> split_budget("threats@0")
    Traceback (most recent call last):
    ...
    ValueError: bad member 'threats@0': after @ comes a node budget
    """
    spec, _, nodes = member.partition("@")
    if nodes and (not nodes.isdigit() or int(nodes) < 1):
        raise ValueError(f"bad member {member!r}: after @ comes a node budget")
    return spec, int(nodes) if nodes else None


def measured(specs: Iterable[str]) -> str | None:
    """Why ``specs`` may not build an O book, if they name a player the book is measured
    on (a member of the family or of the players outside it); ``None`` if they do not.

    >>> measured(["level:10:no-strategy@10000", "mcts:30000"])
    'mcts:30000 is in the outside players'
    >>> measured(["level:10:no-strategy@10000"]) is None
    True
    """
    wanted = set(specs)
    for name, members in (("the family", DEFAULT_MEMBERS),
                          ("the outside players", OUTSIDE_MEMBERS)):
        found = wanted & set(members)
        if found:
            return f"{', '.join(sorted(found))} is in {name}"
    return None
