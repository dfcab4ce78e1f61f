"""The prompt of ``noughts play``: a person's moves and commands, the board drawn.

The game itself runs in the one game loop (:func:`noughts.players.game.play_game`): a
person is a player whose move comes from the prompt, the AI seats are the engine's
players, and each move the loop makes is recorded in the :class:`Session` and drawn.

At a terminal it prompts with :func:`input` (line editing works) and draws in colour; in
a pipe it reads standard input line by line, echoes each line after the prompt, and
writes plain text, so a game can be scripted and its transcript read back. Commands:
a cell name, ``u`` undo, ``h`` hint, ``a`` analysis, ``b`` board, ``?`` help, ``q`` quit.
End of input and Ctrl-C end the game with a one-line summary.
"""

from __future__ import annotations

import io
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO, TypeVar

from rich.console import Console
from rich.markup import escape

from noughts.budget import Limit
from noughts.errors import IllegalMoveError
from noughts.play.coordinates import cell_name, describe_scheme, parse_cell
from noughts.play.render import MARK_STYLES, board_text
from noughts.play.session import Session
from noughts.players.game import StopGame, play_game
from noughts.players.protocol import CallablePlayer, Player
from noughts.position import Mark, Position
from noughts.results import MoveChoice, MoveEval, describe, format_score

__all__ = ["Terminal", "GameLoop", "TakeBack", "EXIT_OK", "EXIT_INTERRUPTED"]

EXIT_OK = 0
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells expect); the summary is still printed."""

_Advice = TypeVar("_Advice", MoveEval, list[MoveEval])

_ASCII_FALLBACK = str.maketrans({"·": "-", "…": "..."})

ANALYSIS_PER_LINE = 6
"""Heuristically valued moves listed per line of an analysis."""

COMMANDS_HELP = "u undo · h hint · a analysis · b board · ? help · q quit"


@dataclass
class Terminal:
    """Where the game reads lines and draws: a Rich console and an input stream.

    ``interactive`` is true when both ends are a terminal: then the prompt goes through
    :func:`input`; otherwise lines are read from ``stdin`` and echoed after the prompt.
    """

    console: Console
    stdin: TextIO
    interactive: bool
    echo: bool = True

    @classmethod
    def standard(cls) -> Terminal:
        """The process's own terminal or pipes (colour only when stdout is a terminal)."""
        console = Console(highlight=False, soft_wrap=True)
        if isinstance(sys.stdin, io.TextIOWrapper):
            sys.stdin.reconfigure(errors="replace")  # a stray byte is a bad move, not a crash
        stdin_is_terminal = sys.stdin.isatty()
        interactive = stdin_is_terminal and console.is_terminal
        return cls(console, sys.stdin, interactive, echo=not stdin_is_terminal)

    @property
    def unicode(self) -> bool:
        return self.console.encoding.lower().startswith("utf")

    def fit(self, text: str) -> str:
        """``text`` with its few non-ASCII characters spelled in ASCII where needed."""
        if self.unicode:
            return text
        text = text.translate(_ASCII_FALLBACK)
        return text.encode("ascii", "replace").decode("ascii")

    def say(self, markup: str) -> None:
        self.console.print(self.fit(markup))

    def read(self, prompt: str) -> str | None:
        """One line of input after ``prompt`` (Rich markup); ``None`` at end of input."""
        if self.interactive:
            try:
                self.console.print(self.fit(prompt), end="")
                _wait_for_input(self.stdin)
                return self.console.input()
            except EOFError:
                self.console.print()
                return None
        self.console.print(self.fit(prompt), end="")
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            self.console.print()
            return None
        line = line.rstrip("\r\n")
        self.console.print(self.fit(escape(line)) if self.echo else "")
        return line


def _wait_for_input(stdin: TextIO) -> None:
    """Wait until ``stdin`` (a terminal) has a line, or a signal comes.

    CPython runs a signal's handler between bytecodes, so a Ctrl-C that lands after the
    prompt is out but before :func:`input` has started its blocking read would only
    raise once a key is pressed. Here a signal also writes a byte to a wakeup pipe,
    which ends the wait: Ctrl-C stops the game at once whenever it comes. (POSIX main
    thread only; elsewhere :func:`input` reads at once, as before.)
    """
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return
    try:
        reading = stdin.fileno()
    except OSError:  # a stream with no file descriptor: nothing to wait on
        return
    wakeup, wakeup_writer = os.pipe()
    os.set_blocking(wakeup_writer, False)
    previous = signal.set_wakeup_fd(wakeup_writer)
    try:
        ready: list[int] = []
        while reading not in ready:
            ready = select.select([reading, wakeup], [], [])[0]
            if wakeup in ready:
                os.read(wakeup, 64)  # a signal whose handler raised nothing (not Ctrl-C)
    finally:
        signal.set_wakeup_fd(previous)
        os.close(wakeup)
        os.close(wakeup_writer)


class TakeBack(StopGame):
    """Moves were taken back at the prompt: the game loop stops, and the terminal plays
    on from the session's position."""


@dataclass
class _Thinking:
    """An AI seat at a terminal: its player, with a spinner while it thinks."""

    name: str
    player: Player
    terminal: Terminal
    text: str

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        with self.terminal.console.status(self.text):
            return self.player.move(position, limit)


class GameLoop:
    """Plays one :class:`Session` on a :class:`Terminal` until the game ends or is left."""

    def __init__(self, session: Session, terminal: Terminal, *, delay: float = 0.0) -> None:
        self.session = session
        self.terminal = terminal
        self.delay = delay
        self._results: list[str] = []
        self._players = self._seat_players()
        self._commands: dict[str, Callable[[], None]] = {}
        for names, handler in (
            (("u", "undo"), self._undo),
            (("h", "hint"), self._hint),
            (("a", "analysis", "analyse", "analyze"), self._analysis),
            (("b", "board"), self._board),
            (("?", "help"), self._help),
            (("q", "quit", "exit"), self._quit),
        ):
            for name in names:
                self._commands[name] = handler

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> int:
        """Play until the end; returns the exit status (0, or 130 after Ctrl-C).

        At a terminal with a human playing, a finished game offers undo, a new game or
        quit; in a pipe the program ends with the game.
        """
        try:
            self._introduce()
            self._board()
            while True:
                stopped = self._play_out()
                if stopped is not None:
                    self._summary(stopped)
                    break
                self._summary()
                self._record()
                if not self._after_game():
                    break
        except KeyboardInterrupt:
            self.terminal.console.print()
            self._summary("interrupted")
            self._tally()
            return EXIT_INTERRUPTED
        self._tally()
        return EXIT_OK

    def _seat_players(self) -> dict[Mark, Player]:
        """The player at each mark, as the session seats them now."""
        marks: tuple[Mark, Mark] = ("X", "O")
        return {mark: self._player(mark) for mark in marks}

    def _player(self, mark: Mark) -> Player:
        """The player at ``mark``: the session's AI, or a person at the prompt."""
        ai = self.session.ai_players.get(mark)
        if ai is None:
            return CallablePlayer(self._read_move, self._seat_label(mark))
        if not self.terminal.interactive:
            return ai
        seat = self.session.seats[mark]
        thinking = self.terminal.fit(f"{self._mark(mark)} ({seat}) is thinking…")
        return _Thinking(ai.name, ai, self.terminal, thinking)

    def _play_out(self) -> str | None:
        """The game in the one game loop until it ends (``None``) or stops (the reason)."""
        while True:
            try:
                game = play_game(self._players, self.session.position, report=self._moved)
            except TakeBack:
                continue  # play on from the position the undo left
            except StopGame as stop:
                return stop.reason
            return None if game.failure is None else game.reason

    def _after_game(self) -> bool:
        """At a terminal, offer undo or a new game; True to play on."""
        if not (self.terminal.interactive and self.session.humans):
            return False
        while True:
            line = self.terminal.read("[dim]u undo · n new game · q quit[/]: ")
            choice = (line or "q").strip().lower()
            if choice in ("q", "quit", "exit", ""):
                return False
            if choice in ("u", "undo"):
                self._results.pop()
                self._take_back()
                return True
            if choice in ("n", "new"):
                self.session.restart()
                self._players = self._seat_players()
                first = self.session.position.to_move
                self.terminal.say(
                    f"New game: {self._mark(first)} ({self._seat_label(first)}) moves first."
                )
                self._board()
                return True
            self._complain(f"{choice!r}: type u, n or q")

    def _record(self) -> None:
        winner = self.session.position.winner
        if winner is None:
            self._results.append("drawn")
        elif self.session.humans == 1:
            self._results.append("you won" if not self.session.seats[winner].is_ai else "AI won")
        else:
            self._results.append(f"{winner} won")

    # -- turns --------------------------------------------------------------------------
    def _read_move(self, position: Position) -> int:
        """A person's move from the prompt; commands run in between, bad input gets a
        line and the prompt again. ``q`` and the end of input stop the game."""
        while True:
            line = self.terminal.read(self._prompt())
            if line is None:
                raise StopGame("end of input")
            text = line.strip()
            command = self._commands.get(text.lower())
            if command is not None:
                command()
            elif text and (cell := self._empty_cell(position, text)) is not None:
                return cell

    def _empty_cell(self, position: Position, text: str) -> int | None:
        """The empty cell ``text`` names, or ``None`` after saying what is wrong."""
        geometry = self.session.geometry
        try:
            cell = parse_cell(geometry, text)
        except IllegalMoveError as error:
            self._complain(str(error))
            return None
        if position.occupied >> cell & 1:
            holder = "X" if position.x >> cell & 1 else "O"
            self._complain(f"{cell_name(geometry, cell)} is taken by {holder}: pick an empty cell")
            return None
        return cell

    def _moved(self, choice: MoveChoice) -> None:
        """Record a move the game loop made, and show it."""
        session = self.session
        mark, seat = session.to_move, session.seat
        session.play(choice.move)
        if seat.is_ai:
            self.terminal.say(
                f"{self._mark(mark)} ({seat}) plays [bold]{self._name(choice.move)}[/]"
                f"[dim] · {escape(self._effort(choice))}[/]"
            )
        elif session.humans == 2:
            self.terminal.say(f"{self._mark(mark)} plays {self._name(choice.move)}")
        self._board()
        if seat.is_ai and self.delay and session.humans == 0 and not session.is_over:
            time.sleep(self.delay)

    # -- commands -----------------------------------------------------------------------
    def _undo(self) -> None:
        if self._take_back():
            raise TakeBack("moves taken back")

    def _take_back(self) -> bool:
        """Undo the last moves (see :meth:`Session.undo`); False if there were none."""
        taken = self.session.undo()
        if not taken:
            self._complain("nothing to undo")
            return False
        names = ", ".join(self._name(cell) for cell in taken)
        self.terminal.say(f"Took back {names}.")
        self._board()
        return True

    def _hint(self) -> None:
        advice = self._advise(self.session.hint)
        self.terminal.say(
            f"Hint for {self._mark(self.session.to_move)}: play "
            f"[bold]{self._name(advice.move)}[/] ({escape(describe(advice))})"
        )

    def _analysis(self) -> None:
        """Every move by value, best first: proven values grouped, heuristic scores listed."""
        evals = self._advise(self.session.analysis)
        say = self.terminal.say
        say(f"Moves for {self._mark(self.session.to_move)}, best first:")
        runs: list[tuple[str, list[MoveEval]]] = []
        for value in evals:
            label = describe(value) if value.proven else "heuristic scores"
            if runs and runs[-1][0] == label:
                runs[-1][1].append(value)
            else:
                runs.append((label, [value]))
        for label, values in runs:
            if values[0].proven:
                say(f"  {escape(label)}: {' '.join(self._name(v.move) for v in values)}")
                continue
            say(f"  {label}:")
            entries = [f"{self._name(v.move)} {format_score(v.score or 0.0)}" for v in values]
            for start in range(0, len(entries), ANALYSIS_PER_LINE):
                say("    " + "  ".join(entries[start : start + ANALYSIS_PER_LINE]))

    def _advise(self, ask: Callable[[], _Advice]) -> _Advice:
        """Run a hint or an analysis (with a spinner at a terminal)."""
        if not self.terminal.interactive:
            return ask()
        with self.terminal.console.status(self.terminal.fit("Thinking…")):
            return ask()

    def _board(self) -> None:
        console = self.terminal.console
        console.print(
            board_text(
                self.session.position,
                last_move=self.session.last_move,
                unicode=self.terminal.unicode,
                width=console.width,
            )
        )

    def _help(self) -> None:
        scheme = escape(describe_scheme(self.session.geometry))
        self.terminal.say(f"Type {scheme}, or a command: {COMMANDS_HELP}")
        if self.session.humans == 1:
            self.terminal.say("Undo takes back your last move and the AI's reply.")

    def _quit(self) -> None:
        raise StopGame("you quit")

    # -- text ---------------------------------------------------------------------------
    def _introduce(self) -> None:
        session = self.session
        seats = ", ".join(f"{self._mark(mark)}: {self._seat_label(mark)}" for mark in ("X", "O"))
        first = session.position.to_move
        self.terminal.say(
            f"[bold]noughts[/] {session.geometry.name} ({session.geometry.k} in a row) · "
            f"{seats} · {self._mark(first)} moves first"
        )
        if session.humans:
            self.terminal.say(
                f"[dim]Type {escape(describe_scheme(session.geometry))}, or {COMMANDS_HELP}[/]"
            )

    def _seat_label(self, mark: Mark) -> str:
        seat = self.session.seats[mark]
        if seat.is_ai:
            return str(seat)
        return "you" if self.session.humans == 1 else "player"

    def _prompt(self) -> str:
        mark = self.session.to_move
        if self.session.humans == 1:
            return f"Your move ({self._mark(mark)}): "
        return f"{self._mark(mark)} to move: "

    def _summary(self, reason: str | None = None) -> None:
        session = self.session
        moves = " ".join(self._name(cell) for cell in session.moves) or "none"
        count = session.ply
        plural = "move" if count == 1 else "moves"
        if reason is None:
            headline = f"[bold]Game over: {escape(session.result_text())}[/]"
        else:
            headline = f"[bold]Game stopped ({reason}): {escape(session.result_text())}[/]"
        self.terminal.say(f"{headline} after {count} {plural}. Moves: {moves}")

    def _tally(self) -> None:
        """After more than one game, how they ended (a lone finished game has its summary)."""
        results = self._results
        unfinished = not self.session.is_over and self.session.ply > 0
        if len(results) > 1 or (results and (unfinished or self.session.ply == 0)):
            tally = ", ".join(
                f"{label} {results.count(label)}" for label in dict.fromkeys(sorted(results))
            )
            self.terminal.say(f"Games finished: {len(results)} ({escape(tally)})")

    def _complain(self, reason: str) -> None:
        self.terminal.say(f"[red]{escape(reason)}[/]")

    def _mark(self, mark: Mark) -> str:
        return f"[{MARK_STYLES[mark]}]{mark}[/]"

    def _name(self, cell: int) -> str:
        return cell_name(self.session.geometry, cell)

    def _effort(self, result: MoveChoice) -> str:
        """What the AI saw and what it cost; a level's private guesses stay private."""
        seconds = result.elapsed_ms / 1000
        parts = []
        if result.method != "level" and (result.proven or result.score is not None):
            parts.append(describe(result))
        if result.method == "anytime" and result.depth:
            parts.append(f"depth {result.depth}")
        parts.append(f"{seconds:.2f} s")
        return ", ".join(parts)
