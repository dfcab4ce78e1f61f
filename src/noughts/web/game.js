// The game on the page, without the page: the board, the moves so far and who made
// them, whose turn it is, undo, and the result. Pure (no DOM, no network), so it is
// unit-tested with Node's test runner (tests/js/game.test.mjs); app.js drives it.

import { winningLine } from "./geometry.js";

/** How a board stands: {winner: "X" | "O", line: [cells]}, a draw {winner: null,
 * line: null} on a full board, or null while the game goes on. */
export function outcome(geo, board) {
  const line = winningLine(geo, board);
  if (line) return { winner: board[line[0]], line };
  if (board.every(Boolean)) return { winner: null, line: null };
  return null;
}

export class Game {
  /**
   * A game on `geo` that `first` ("X" | "O") started, from the empty board or from
   * `board` (an array of "X" | "O" | null; the moves that led there are not known).
   */
  constructor(geo, { first = "X", board = null } = {}) {
    if (board && board.length !== geo.cells) throw new Error(`a ${geo.name} board has ${geo.cells} cells`);
    this.geo = geo;
    this.first = first;
    this.board = board ? [...board] : new Array(geo.cells).fill(null);
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

  /** Play `cell` for the side to move; `by` says who chose it ("human" | "ai").
   * Throws on a finished game, a cell off the board, or a taken cell. */
  play(cell, by) {
    if (this.over) throw new Error("the game is over");
    if (!Number.isInteger(cell) || cell < 0 || cell >= this.geo.cells) throw new Error(`no cell ${cell} on ${this.geo.name}`);
    if (this.board[cell]) throw new Error(`cell ${cell} is taken`);
    const mark = this.toMove();
    this.board[cell] = mark;
    this.history.push({ cell, mark, by });
    this.result = outcome(this.geo, this.board);
    return mark;
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
