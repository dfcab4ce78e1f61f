"""The package's import contract: no cycles, and the core never imports an edge.

Every ``import noughts...`` in every module counts, top-level or inside a function (a
lazy import is still a dependency). ``if TYPE_CHECKING:`` blocks are left out: they
never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import noughts

PACKAGE = Path(noughts.__file__).parent

CORE = (
    "noughts.errors",
    "noughts.geometry",
    "noughts.symmetries",
    "noughts.variants",
    "noughts.notation",
    "noughts.position",
    "noughts.results",
    "noughts.budget",
    "noughts.runtime",
    "noughts.exact",
    "noughts.search",
    "noughts.knowledge",
)
"""Modules (and packages) that must not depend on the edges."""

EDGES = ("noughts.service", "noughts.cli", "noughts.play", "noughts.arena", "noughts.rl")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, package: str) -> set[str]:
    """The noughts modules a module's code imports (relative imports resolved)."""
    found: set[str] = set()
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        pending.extend(ast.iter_child_nodes(node))
    return {name for name in found if name == "noughts" or name.startswith("noughts.")}


def _graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(path): path for path in paths}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = _imports(ast.parse(path.read_text()), package)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _crossings(graph: dict[str, set[str]], importers: tuple[str, ...],
               imported: tuple[str, ...]) -> list[str]:
    """Each import by a module within ``importers`` of one within ``imported``, in words."""
    return sorted(
        f"{name} imports {target}"
        for name, targets in graph.items()
        if _within(name, importers)
        for target in targets
        if _within(target, imported)
    )


def test_the_graph_sees_the_package() -> None:
    graph = _graph()
    assert "noughts.exact.solver" in graph["noughts.engine.plan"]
    assert "noughts.engine" in graph["noughts.service.jobs"]
    assert len(graph) > 40


def test_the_core_imports_no_edge() -> None:
    graph = _graph()
    assert _crossings(graph, CORE, EDGES) == []


def test_the_core_imports_no_player_or_engine_front_door() -> None:
    graph = _graph()
    above = ("noughts.engine", "noughts.levels", "noughts.players", "noughts.teaching")
    assert _crossings(graph, CORE, above) == []


SEARCHES = ("noughts.exact", "noughts.search", "noughts.teaching")
"""The search families: they know positions and the core vocabulary, nothing above."""

ABOVE_THE_SEARCHES = ("noughts.engine", "noughts.levels", "noughts.players", *EDGES)


def test_the_searches_import_nothing_above_them() -> None:
    graph = _graph()
    assert _crossings(graph, SEARCHES, ABOVE_THE_SEARCHES) == []
    assert "noughts.search.evaluate" in graph["noughts.teaching.trace"]  # the graph sees it
    assert "noughts.search.anytime" in graph["noughts.engine.plan"]  # the plan asks below


def _shares(path: Path) -> set[str]:
    """The module-level constants of a module named as a share (``..._SHARE``)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        found.update(t.id for t in targets
                     if isinstance(t, ast.Name) and t.id.endswith("_SHARE"))
    return found


def test_the_plan_sets_every_share_of_a_moves_time() -> None:
    # The searches search the limit (or the share of it) the plan hands them: the
    # shares of a move's time stand beside PLAN, none in a search.
    in_searches = {
        f"{name}.{share}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if _within(name := _module_name(path), SEARCHES)
        for share in _shares(path)
    }
    assert in_searches == set()
    assert {"_WIN_SHARE", "_PROOF_SHARE", "_SEARCH_SHARE", "_SCREEN_SHARE",
            "_DEFENCE_SHARE"} <= _shares(PACKAGE / "engine" / "plan.py")


def test_the_searches_take_the_shipped_knowledge_as_arguments() -> None:
    # The search that plays reads no shipped data and builds nothing: the engine's plan
    # hands it what it may consult. The knowledge is read without any search.
    graph = _graph()
    bad = _crossings(graph, ("noughts.search",),
                     ("noughts.knowledge", "noughts.builders", "noughts.exact")) + _crossings(
        graph, ("noughts.knowledge",), ("noughts.search", "noughts.builders", "noughts.exact"))
    assert bad == []
    assert "noughts.knowledge.strategy" in graph["noughts.engine.plan"]  # the graph sees it


def test_the_offline_builders_sit_above_what_plays() -> None:
    # Only the command line (build-book, verify-book) reaches the builders.
    graph = _graph()
    assert _importers(graph, "noughts.builders") <= {
        name for name in graph if _within(name, ("noughts.cli",))}
    assert "noughts.search.proof" in graph["noughts.builders.strategy_build"]


def test_the_levels_ask_the_engine_for_their_deep_look() -> None:
    graph = _graph()
    assert not {t for t in graph["noughts.levels"]
                if _within(t, ("noughts.exact", "noughts.search", "noughts.engine"))}


ENGINE = ("noughts.engine", "noughts.levels")
"""The engine's front door and its levels: the one plan that answers a move."""


def test_the_players_sit_above_the_engine_and_nothing_below_imports_them() -> None:
    # One way only: players ask the engine's plan; the engine, its levels, the searches
    # and the core never reach up to a player.
    graph = _graph()
    below = (*ENGINE, *SEARCHES, *CORE)
    assert _crossings(graph, below, ("noughts.players",)) == []
    assert "noughts.engine" in graph["noughts.players.protocol"]  # the graph sees it
    assert "noughts.levels" in graph["noughts.engine.plan"]


def test_the_learning_environments_play_through_the_players_not_another_edge() -> None:
    graph = _graph()
    other_edges = tuple(edge for edge in EDGES if edge != "noughts.rl")
    assert _crossings(graph, ("noughts.rl",), other_edges) == []
    assert "noughts.players.game" in graph["noughts.rl.judge"]  # the one game loop


def _importers(graph: dict[str, set[str]], package: str) -> set[str]:
    """Modules outside ``package`` that import it."""
    return {
        name
        for name, targets in graph.items()
        if not _within(name, (package,))
        and any(_within(target, (package,)) for target in targets)
    }


def test_nothing_else_imports_the_learning_environments() -> None:
    # noughts.rl needs the rl extra: nothing outside it may import it.
    assert _importers(_graph(), "noughts.rl") == set()


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as a path that starts and ends at the same module, or ``None``.

    A package's ``__init__`` importing its own submodules is not a cycle of concepts
    (the submodules are its content), so edges from a package to its children are
    left out.
    """
    edges = {
        name: {t for t in targets if not t.startswith(name + ".")}
        for name, targets in graph.items()
    }
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle() -> None:
    assert _cycle(_graph()) is None


def test_the_runtime_knows_no_game() -> None:
    """Worker processes, clusters, atomic files and the LRU import only the errors and
    the limit (and each other): every layer may use them."""
    allowed = ("noughts.runtime", "noughts.errors", "noughts.budget")
    graph = _graph()
    wrong = {
        (name, target)
        for name, targets in graph.items()
        if _within(name, ("noughts.runtime",))
        for target in targets
        if not _within(target, allowed) and target != "noughts"
    }
    assert any(_within(name, ("noughts.runtime",)) for name in graph)
    assert not wrong, sorted(wrong)
