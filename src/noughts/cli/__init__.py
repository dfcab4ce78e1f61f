"""The ``noughts`` command line: one small module per command, imported only when run.

Start-up stays lean: the parser is plain :mod:`argparse`, and each command module
imports its heavy dependencies (the web stack, Rich) inside its ``run`` function.
Bad input prints one line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, Protocol, cast

__all__ = ["main", "COMMANDS", "fail", "version_line"]

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module under noughts.cli, one-line help)
    "move": ("engine_commands", "the engine's move for a board"),
    "analyze": ("engine_commands", "every legal move with its value"),
    "solve": ("engine_commands", "the exact value of a variant's empty board"),
    "stats": ("stats_commands", "position and game counts of a small variant"),
    "tree": ("stats_commands", "the complete decision tree of a small variant"),
    "explain": ("explain_command", "watch minimax and alpha-beta decide, node by node"),
    "serve": ("serve_command", "serve the web page and the move API"),
    "play": ("play_command", "play in the terminal"),
    "arena": ("arena_commands", "bot-vs-bot matches with statistics"),
    "replay": ("arena_commands", "print a saved arena game move by move"),
    "prove": ("proof_commands", "prove a forced win, loss or draw (proof-number search)"),
    "verify-book": ("proof_commands", "check the shipped Qubic strategy with simple code"),
    "build-book": ("proof_commands", "grow a Qubic strategy file offline, resumably"),
}


class CommandModule(Protocol):
    def add_arguments(self, name: str, parser: argparse.ArgumentParser) -> None: ...

    def run(self, name: str, args: argparse.Namespace) -> int: ...


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


def fail(message: str) -> UsageError:
    """An error to raise from a command: ``raise fail("unknown variant 'x'")``."""
    return UsageError(message)


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized without importing :mod:`shutil` (a cold-start cost); a
    description or epilog written on several lines (a command's examples) keeps them."""

    def __init__(self, prog: str) -> None:
        try:
            width = int(os.environ.get("COLUMNS") or os.get_terminal_size().columns)
        except (OSError, ValueError):
            width = 80
        super().__init__(prog, width=max(width - 2, 20))

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class _Parser(argparse.ArgumentParser):
    def __init__(self, **options: Any) -> None:
        super().__init__(formatter_class=_Formatter, **options)

    def error(self, message: str) -> None:  # type: ignore[override]  # raises instead
        raise UsageError(message)


def version_line() -> str:
    """The one line ``noughts --version`` prints: the installed package's version and
    the search core that runs (``compiled``, or ``python`` where the extension is not
    built or ``NOUGHTS_PURE_PYTHON=1`` asks for it).

    >>> version_line().startswith("noughts "), "search core" in version_line()
    (True, True)
    """
    from importlib.metadata import PackageNotFoundError, version

    from noughts.search import core

    try:
        release = version("noughts")
    except PackageNotFoundError:
        release = "(version unknown: the package is not installed)"
    return f"noughts {release}, search core: {core.name()}"


def _load(name: str) -> CommandModule:
    module_name, _ = COMMANDS[name]
    return cast(CommandModule, importlib.import_module(f"noughts.cli.{module_name}"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    started = time.perf_counter()
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args_list, started)
    except UsageError as error:
        print(f"noughts: error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:  # every NoughtsError is a ValueError naming the problem
        print(f"noughts: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("noughts: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _dispatch(args_list: list[str], started: float) -> int:
    """Parse and run a command (``args.started``: when :func:`main` began, on the
    ``perf_counter`` clock). A known command gets only its own parser (every parser
    costs start-up: argparse looks up its translations on disk); anything else gets the
    parser listing every command, for its help and its error message."""
    if args_list[:1] == ["--version"]:
        print(version_line())
        return 0
    chosen = args_list[0] if args_list and args_list[0] in COMMANDS else None
    if chosen is not None:
        module = _load(chosen)
        parser = _Parser(prog=f"noughts {chosen}", description=COMMANDS[chosen][1])
        module.add_arguments(chosen, parser)
        args = parser.parse_args(args_list[1:])
        if hasattr(args, "variant_default"):  # (a command of limits.add_variant_arguments)
            from noughts.cli.limits import settle_variant

            settle_variant(args)
        args.command = chosen
        args.started = started
        return module.run(chosen, args)
    parser = _Parser(prog="noughts", description="A fast, exact tic-tac-toe-family engine.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text)
    parser.parse_args(args_list)  # no command: the help, or the error naming the choices
    parser.print_help()
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
