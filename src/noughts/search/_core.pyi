"""The compiled search core's interface (a C extension; see noughts.search.core)."""

from collections.abc import Callable

from noughts.budget import Limit

MAX_CELLS: int
"""The most cells of a board (a bitboard is one 64-bit word)."""
MAX_LINES: int
"""The most lines of a board's tables."""
MAX_K: int
"""The most marks in a line."""
MAX_THROUGH: int
"""The most lines through one cell."""
MAX_SYMMETRIES: int
"""The most symmetries of a board's tables."""
MAX_KEY_SYMMETRIES: int
"""The most key symmetries of the exact search."""

class Tables:
    """A board's constant tables for the compiled searches."""

    cells: int
    symmetries: int
    def __init__(
        self,
        cells: int,
        k: int,
        lines: tuple[int, ...],
        through: tuple[tuple[int, ...], ...],
        perms: tuple[tuple[int, ...], ...],
        base_x: tuple[int, ...],
        base_o: tuple[int, ...],
        /,
    ) -> None: ...

class Search:
    """The anytime search (board and principal-variation search), compiled. ``root`` and
    ``move_value`` search within the limit they are given, without the GIL (the limit's
    deadline, node limit and switch read as plain values); meanwhile ``nodes`` may be
    read and the limit cancelled from another thread, and any other call raises
    ``RuntimeError``."""

    nodes: int
    root_marks: int
    restricted: bool
    misere: bool
    table_entries: int
    def __init__(
        self,
        tables: Tables,
        x: int,
        o: int,
        to_move: int,
        values: object,
        misere: bool,
        /,
    ) -> None: ...
    def threat_cells(self, side: int, /) -> int: ...
    def empty_count(self) -> int: ...
    def ordered_moves(self, first: int, ply: int, /) -> list[int]: ...
    def safe_moves(self) -> list[int]: ...
    def root(
        self, depth: int, moves: list[int], limit: Limit | None, /
    ) -> tuple[int, int, dict[int, int]]: ...
    def move_value(self, cell: int, depth: int, limit: Limit | None, /) -> int: ...
    def principal_variation(self, first: int, length: int, /) -> tuple[int, ...]: ...

class ThreatSearch:
    """The threat-space search, compiled (noughts.search.threat_search's port): a call
    searches within its limit, without the GIL."""

    nodes: int
    @property
    def hint(self) -> int: ...
    @property
    def failed_entries(self) -> int: ...
    def __init__(self, tables: Tables, /) -> None: ...
    def find(
        self, attacker: int, defender: int, max_threats: int = 12, limit: Limit | None = None
    ) -> list[int] | None: ...
    def refute(
        self, attacker: int, defender: int, max_threats: int = 12, limit: Limit | None = None
    ) -> list[int] | None: ...
    def exhausted(self) -> bool: ...

def defences(tables: Tables, attacker: int, defender: int, line: list[int], /) -> int: ...
def chain_survives(
    tables: Tables, attacker: int, defender: int, move: int, line: list[int], /
) -> bool: ...

class ProofTable:
    """A proof search's table, compiled: shared between searches of one attacker."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def clear(self) -> None: ...

class ProofSearch:
    """The proof-number search (df-pn), compiled (noughts.search.proof_search's port):
    ``run`` searches within its limit, without the GIL."""

    nodes: int
    @property
    def table(self) -> ProofTable: ...
    @property
    def attacker(self) -> int: ...
    def __init__(
        self,
        tables: Tables,
        x: int,
        o: int,
        to_move: int,
        attacker: int,
        table: ProofTable,
        leaf_threat_nodes: int,
        max_threats: int,
        /,
    ) -> None: ...
    def run(
        self,
        limit: Limit | None = None,
        *,
        nodes: int | None = None,
        thresholds: tuple[int, int] = ...,
    ) -> tuple[int, int]: ...
    def play(self, cell: int, /) -> None: ...
    def undo(self, cell: int, /) -> None: ...
    def moves(self) -> list[int]: ...
    def best_move(self) -> int | None: ...
    def children(self) -> list[tuple[int, int, int]]: ...
    def defence_chain(self) -> int: ...
    def proof(self, seen: set[int] | None = None) -> list[tuple[int, int, int, bool, int]]: ...
    def plies(self) -> int: ...
    def resisting_move(self) -> int | None: ...

class Exact:
    """The exact negamax with its table (normal play and misère), compiled."""

    @property
    def nodes(self) -> int: ...
    max_entries: int
    dynamic_empties: int
    def __init__(
        self,
        tables: Tables,
        order: tuple[int, ...],
        win_score: int,
        misere: bool,
        perms: tuple[tuple[int, ...], ...],
        canonical_marks: int,
        book_marks: int,
        book_keys: object,
        book_scores: object,
        max_entries: int,
        dynamic_empties: int,
        /,
    ) -> None: ...
    def search(
        self, me: int, opp: int, alpha: int, beta: int, limit: Limit | None, start: int, /
    ) -> int: ...
    def get(self, key: int, /) -> int | None: ...
    def clear(self) -> None: ...
    def items(self) -> list[tuple[int, int]]: ...
    def __len__(self) -> int: ...

# The strategy checker (csrc/check.c, noughts.builders.strategy_check's port): the
# report as (checked, threat_leaves, open_entries, unsolved, failures as (x, o, kind,
# move, reply), by_plies).
CheckReport = tuple[int, int, int, int, list[tuple[int, int, int, int, int]], dict[int, list[int]]]

def verify_strategy(
    tables: Tables,
    records: bytes,
    x: int,
    o: int,
    x_moves: bool,
    legal: int,
    depth: int,
    progress: Callable[[CheckReport], object] | None,
    /,
) -> CheckReport: ...
def check_entries(
    tables: Tables,
    records: bytes,
    positions: list[tuple[int, int, bool, int]],
    depth: int,
    /,
) -> CheckReport: ...
