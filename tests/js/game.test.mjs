// The page's game model (src/noughts/web/game.js) with Node's test runner:
//   node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import { Game, isSeed, markFor, newSeed, outcome, positionProblem, sideFrom } from "../../src/noughts/web/game.js";
import { cellName, findVariant, geometryFrom } from "../../src/noughts/web/geometry.js";

// A catalogue as GET /api/v1/variants gives it (the parts the page reads).
const CATALOG = {
  variants: [
    {
      name: "3x3",
      aliases: ["tictactoe"],
      shape: [3, 3],
      k: 3,
      winning_lines: [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    },
    { name: "4x4", aliases: [], shape: [4, 4], k: 4, winning_lines: [] },
    { name: "4x4x4", aliases: ["qubic"], shape: [4, 4, 4], k: 4, winning_lines: [] },
  ],
};
const geometry = (name) => geometryFrom(findVariant(CATALOG, name));
const g3 = geometry("3x3");

test("moves alternate from the first player", () => {
  const game = new Game(g3, { first: "O" });
  assert.equal(game.toMove(), "O");
  assert.equal(game.play(4, "human"), "O");
  assert.equal(game.toMove(), "X");
  assert.deepEqual(game.history, [{ cell: 4, mark: "O", by: "human" }]);
  assert.equal(game.lastMove, 4);
});

test("a completed line ends the game with its winner and line", () => {
  const game = new Game(g3);
  for (const [cell, by] of [[0, "human"], [3, "ai"], [1, "human"], [4, "ai"], [2, "human"]]) game.play(cell, by);
  assert.equal(game.over, true);
  assert.deepEqual(game.result, { winner: "X", line: [0, 1, 2] });
  assert.throws(() => game.play(5, "ai"), /the game is over/);
});

test("a full board without a line is a draw", () => {
  const board = ["X", "O", "X", "X", "O", "O", "O", "X", "X"];
  assert.deepEqual(outcome(g3, board), { winner: null, line: null });
  assert.equal(new Game(g3, { board }).over, true);
});

test("taken and off-board cells are refused", () => {
  const game = new Game(g3);
  game.play(0, "human");
  assert.throws(() => game.play(0, "ai"), /taken/);
  assert.throws(() => game.play(9, "ai"), /no cell 9/);
  assert.throws(() => new Game(g3, { board: [null] }), /9 cells/);
});

test("undo takes back the AI's reply and the human's move", () => {
  const game = new Game(g3);
  game.play(4, "human");
  game.play(0, "ai");
  game.play(8, "human");
  game.play(2, "ai");
  assert.deepEqual(game.undo(), [2, 8]);
  assert.deepEqual(game.history.map((h) => h.cell), [4, 0]);
  assert.equal(game.board[8], null);
  assert.equal(game.toMove(), "X");
  game.undo();
  assert.equal(game.canUndo(), false);
  assert.deepEqual(game.undo(), []);
});

test("undo reopens a finished game", () => {
  const game = new Game(g3);
  for (const [cell, by] of [[0, "human"], [3, "ai"], [1, "human"], [4, "ai"], [8, "human"], [5, "ai"]]) game.play(cell, by);
  assert.equal(game.result.winner, "O");
  game.undo();
  assert.equal(game.over, false);
});

test("a position from a board string keeps who moves", () => {
  const game = new Game(g3, { first: "X", board: ["X", null, null, null, "O", null, null, null, "X"] });
  assert.equal(game.toMove(), "O");
  assert.equal(game.canUndo(), false);
});

test("variants are found by name or alias, and lines are the catalogue's", () => {
  assert.equal(geometry("TicTacToe").name, "3x3");
  assert.equal(findVariant(CATALOG, "5x5k4"), null);
  assert.deepEqual(g3.linesThrough[4].length, 4);
  assert.deepEqual(g3.coords(5), [1, 2]);
});

test("cell names are the engine's square names", () => {
  assert.deepEqual([0, 4, 8].map((c) => cellName(g3, c)), ["a3", "b2", "c1"]);
  assert.equal(cellName(geometry("qubic"), 16 + 4 + 1), "2b3");
  assert.equal(cellName(geometry("4x4"), 15), "d1");
});

test("a saved game comes back with its moves, so undo still works", () => {
  const game = new Game(g3, { first: "X" });
  game.play(4, "human");
  game.play(0, "ai", { move: 0, proven: true, outcome: "draw" });
  game.play(8, "human");
  const back = Game.restore(g3, JSON.parse(JSON.stringify(game.toJSON())));
  assert.deepEqual(back.board, game.board);
  assert.equal(back.toMove(), "O");
  assert.deepEqual(back.lastNote("ai"), { move: 0, proven: true, outcome: "draw" });
  back.undo();
  assert.deepEqual(back.board, ["O", null, null, null, "X", null, null, null, null]);
  back.undo();
  assert.equal(back.lastNote("ai"), null);
  assert.throws(() => Game.restore(geometry("4x4"), game.toJSON()), /not a 4x4 game/);
});

test("a game has a seed: a new game a fresh one, a saved game its own, undo the same", () => {
  assert.equal(newSeed(() => 0), 0);
  assert.equal(newSeed(() => 0.5), 2 ** 47);
  assert.ok(isSeed(newSeed()) && newSeed() < 2 ** 48 && newSeed(() => 0.999999) < 2 ** 48);
  const seeds = new Set(Array.from({ length: 20 }, () => new Game(g3).seed));
  assert.ok(seeds.size > 1 && [...seeds].every(isSeed)); // each new game its own seed
  assert.equal(new Game(g3, { seed: 42 }).seed, 42);
  assert.ok(isSeed(new Game(g3, { seed: 1.5 }).seed) && new Game(g3, { seed: "7" }).seed !== "7");
  const game = new Game(g3, { seed: 1234 });
  game.play(4, "human");
  game.play(0, "ai");
  const back = Game.restore(g3, JSON.parse(JSON.stringify(game.toJSON())));
  assert.equal(back.seed, 1234); // the same game asks with the same seed after a reload
  back.undo();
  assert.equal(back.seed, 1234);
  const old = { ...game.toJSON() };
  delete old.seed; // a save from before seeds: a fresh one
  assert.ok(isSeed(Game.restore(g3, old).seed));
});

test("a game from a position keeps its start through a save", () => {
  const start = ["X", "X", null, "O", "O", null, null, null, null];
  const game = new Game(g3, { first: "X", board: start });
  game.play(2, "human");
  const back = Game.restore(g3, game.toJSON());
  assert.equal(back.over, true);
  assert.deepEqual(back.result.line, [0, 1, 2]);
  assert.equal(back.history.length, 1);
});

test("a board whose counts differ by more than one is not a position", () => {
  assert.equal(positionProblem(["X", "O", null]), null);
  assert.equal(positionProblem(["X", "X", "O"]), null);
  assert.match(positionProblem(["X", "X", "X", "X"]), /4 X and 0 O/);
});

test("a misère board: the API's name, and whoever completes a line loses", async () => {
  const { variantName, splitVariant } = await import("../../src/noughts/web/geometry.js");
  assert.equal(variantName("3x3", true), "3x3-misere");
  assert.equal(variantName("4x4k3", true), "4x4k3-misere");
  assert.equal(variantName("4x4x4", true), "4x4x4-misere");
  assert.equal(variantName("4x4x4-misere", false), "4x4x4");
  assert.equal(variantName("3x3-misere", true), "3x3-misere"); // never twice
  assert.deepEqual(splitVariant("Qubic-Misere"), { base: "qubic", misere: true });
  assert.deepEqual(splitVariant("4x4"), { base: "4x4", misere: false });
  // a misère name finds its board's entry; the geometry carries the rule
  const geo = geometryFrom(findVariant(CATALOG, "qubic-misere"), true);
  assert.equal(geo.name, "4x4x4-misere");
  assert.equal(geo.base, "4x4x4");
  assert.ok(geo.misere && geo.cells === 64);
  const plain = geometryFrom(findVariant(CATALOG, "3x3"));
  const misere = geometryFrom(findVariant(CATALOG, "3x3-misere"), true);
  const board = ["X", "X", "X", "O", "O", null, null, null, null];
  assert.equal(outcome(plain, board).winner, "X");
  assert.equal(outcome(misere, board).winner, "O"); // X completed the line: X loses
  assert.deepEqual(outcome(misere, board).line, [0, 1, 2]);
});

test("the human's side is one choice: X moves first, so moving first is playing X", () => {
  assert.equal(sideFrom({ you: "o" }), "O");
  assert.equal(sideFrom({ you: "X", first: "ai" }), "X"); // the mark wins over the older word
  assert.equal(sideFrom({ first: "ai" }), "O"); // an older address: the AI first, so it is X
  assert.equal(sideFrom({ first: "you" }), "X");
  assert.equal(sideFrom({ you: "random" }), "random");
  assert.equal(sideFrom({ first: "random" }), "random");
  assert.equal(sideFrom({}), null);
  assert.equal(sideFrom({ you: "Z", first: "maybe" }), null);
  assert.equal(markFor("O"), "O");
  assert.equal(markFor("random", () => 0.2), "X");
  assert.equal(markFor("random", () => 0.7), "O");
  const game = new Game(geometry("3x3"));
  assert.equal(game.toMove(), "X"); // a new game: X first, whoever plays it
});
