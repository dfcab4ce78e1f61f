// The game on the page, without the page: the board, the moves so far and who made
// them, whose turn it is, undo, and the result. Pure (no DOM, no network), so it is
// unit-tested with Node's test runner (tests/js/game.test.mjs); app.js drives it.

import { winningLine } from "./geometry.js";

/** How a board stands: {winner: "X" | "O", line: [cells]}, a draw {winner: null,
 * line: null} on a full board, or null while the game goes on. On a misère board
 * (geo.misere) whoever completed the line loses. */
export function outcome(geo, board) {
  const line = winningLine(geo, board);
  if (line) return { winner: geo.misere ? (board[line[0]] === "X" ? "O" : "X") : board[line[0]], line };
  if (board.every(Boolean)) return { winner: null, line: null };
  return null;
}

/** Why `board` cannot come from a game (the marks' counts differ by more than one), or
 * null if it can. */
export function positionProblem(board) {
  const xs = board.filter((m) => m === "X").length;
  const os = board.filter((m) => m === "O").length;
  if (Math.abs(xs - os) <= 1) return null;
  return `it has ${xs} X and ${os} O, but in a game the counts differ by at most one`;
}

/** The human's side, one choice ("X" | "O" | "random"): X always moves first, so moving
 * first is playing X. `you` (a mark or "random") says it; else `first` ("you" | "ai" |
 * "random", an older way to say it); null when neither names a side. */
export function sideFrom({ you = null, first = null } = {}) {
  const mark = String(you ?? "").toUpperCase();
  if (mark === "X" || mark === "O") return mark;
  if (mark === "RANDOM") return "random";
  return { you: "X", ai: "O", random: "random" }[first] ?? null;
}

/** The human's mark for a new game on `side`; `random` (0 <= r < 1) picks for "random". */
export function markFor(side, random = Math.random) {
  if (side === "X" || side === "O") return side;
  return random() < 0.5 ? "X" : "O";
}

/** A fresh game seed: a whole number below 2**48 (`random`: 0 <= r < 1). The API's
 * `seed`: where several moves are equally good, the seed picks one, so the same seed
 * gives the same game and a new game another. */
export function newSeed(random = Math.random) {
  return Math.floor(random() * 2 ** 48);
}

/** True if `seed` can be sent as a game seed (a whole number the API takes exactly). */
export function isSeed(seed) {
  return Number.isSafeInteger(seed);
}

export class Game {
  /**
   * A game on `geo` that `first` ("X" | "O") started, from the empty board or from
   * `board` (an array of "X" | "O" | null; the moves that led there are not known),
   * with its game `seed` (a fresh one unless given).
   */
  constructor(geo, { first = "X", board = null, seed = null } = {}) {
    if (board && board.length !== geo.cells) throw new Error(`a ${geo.name} board has ${geo.cells} cells`);
    this.geo = geo;
    this.first = first;
    this.seed = isSeed(seed) ? seed : newSeed();
    this.board = board ? [...board] : new Array(geo.cells).fill(null);
    this.start = board ? [...board] : null; // the position the game began from
    this.history = []; // {cell, mark, by}, oldest first
    this.result = outcome(geo, this.board);
  }

  /** The mark to move: the first player when the counts are equal. */
  toMove() {
    const xs = this.board.filter((m) => m === "X").length;
    const os = this.board.filter((m) => m === "O").length;
    if (xs === os) return this.first;
    return xs > os ? "O" : "X";
  }

  get over() {
    return this.result !== null;
  }

  /** The last move's cell, or null. */
  get lastMove() {
    return this.history.length ? this.history[this.history.length - 1].cell : null;
  }

  /** Play `cell` for the side to move; `by` says who chose it ("human" | "ai"), `note`
   * anything to keep with the move (the page keeps the engine's answer). Throws on a
   * finished game, a cell off the board, or a taken cell. */
  play(cell, by, note = null) {
    if (this.over) throw new Error("the game is over");
    if (!Number.isInteger(cell) || cell < 0 || cell >= this.geo.cells) throw new Error(`no cell ${cell} on ${this.geo.name}`);
    if (this.board[cell]) throw new Error(`cell ${cell} is taken`);
    const mark = this.toMove();
    this.board[cell] = mark;
    this.history.push(note === null ? { cell, mark, by } : { cell, mark, by, note });
    this.result = outcome(this.geo, this.board);
    return mark;
  }

  /** The note of the latest move `by` made ("human" | "ai") still on the board, or null. */
  lastNote(by) {
    for (let i = this.history.length - 1; i >= 0; i--) {
      if (this.history[i].by === by) return this.history[i].note ?? null;
    }
    return null;
  }

  /** A plain object to save (JSON) and give back to Game.restore. */
  toJSON() {
    return { variant: this.geo.name, first: this.first, start: this.start, history: this.history, seed: this.seed };
  }

  /** The game `saved` (from toJSON) on `geo`: its start position, then its moves replayed,
   * with its seed (a fresh one if it has none). Throws if the moves do not fit the board. */
  static restore(geo, saved) {
    if (saved.variant !== geo.name) throw new Error(`a saved ${saved.variant} game is not a ${geo.name} game`);
    const start = saved.start ? saved.start.map((m) => (m === "X" || m === "O" ? m : null)) : null;
    const game = new Game(geo, { first: saved.first === "O" ? "O" : "X", board: start, seed: saved.seed });
    for (const { cell, by, note } of saved.history || []) {
      game.play(cell, by === "ai" ? "ai" : "human", note ?? null);
    }
    return game;
  }

  /** True if a human move can be taken back. */
  canUndo() {
    return this.history.some((h) => h.by === "human");
  }

  /** Take back the AI's replies and the last human move; returns the cells freed. */
  undo() {
    if (!this.canUndo()) return [];
    const freed = [];
    const take = () => {
      const { cell } = this.history.pop();
      this.board[cell] = null;
      freed.push(cell);
    };
    while (this.history.length && this.history[this.history.length - 1].by === "ai") take();
    take();
    this.result = outcome(this.geo, this.board);
    return freed;
  }
}
