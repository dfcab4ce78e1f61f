// How the page words the engine's values (src/noughts/web/values.js):
//   node --test tests/js/
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  bestCells, category, endInWords, heatMap, lookAhead, valueInPlies, verdictInWords,
} from "../../src/noughts/web/values.js";

test("proven values read as the engine words them; cells show the outcome and its plies", () => {
  // as POST /api/v1/analyze answers (words: noughts.results.describe)
  const map = heatMap([
    { move: 0, proven: true, outcome: "win", plies: 3, score: 997, words: "win in 3" },
    { move: 1, proven: true, outcome: "draw", plies: 6, score: 0, words: "draw" },
    { move: 2, proven: true, outcome: "loss", plies: 2, score: -998, words: "loss in 2" },
  ]);
  assert.deepEqual([...map.values()].map((v) => [v.text, v.tone]), [["win 3", "win"], ["draw", "draw"], ["loss 2", "loss"]]);
  assert.deepEqual([...map.values()].map((v) => v.label), ["win in 3", "draw", "loss in 2"]);
  const worded = heatMap([{ move: 4, proven: true, outcome: "win", plies: 1, words: "a win next move" }]);
  assert.equal(worded.get(4).label, "a win next move"); // the words are the engine's, unchanged
});

test("a win whose plies are only a bound reads as one: at most 57, not 57", () => {
  // the anytime search's proofs on Qubic bound the game's length (plies_exact false)
  const map = heatMap([
    { move: 0, proven: true, outcome: "win", plies: 57, plies_exact: false, words: "win in at most 57" },
    { move: 1, proven: true, outcome: "loss", plies: 8, plies_exact: false, words: "loss in at most 8" },
    { move: 2, proven: true, outcome: "win", plies: 5, plies_exact: true, words: "win in 5" },
  ]);
  assert.deepEqual([...map.values()].map((v) => v.text), ["win ≤57", "loss ≤8", "win 5"]);
  assert.deepEqual([...map.values()].map((v) => v.number), ["win ≤57", "loss ≤8", "win 5"]);
});

test("unproven scores become plain categories judged against the other moves", () => {
  // Qubic-like scores: all negative, none proven; the best is still strong
  const moves = [-1704, -2208, -432, -500, -1500].map((score, move) => ({ move, proven: false, score }));
  const map = heatMap(moves);
  assert.deepEqual([...map.values()].map((v) => v.text), ["fine", "weak", "strong", "strong", "fine"]);
  assert.equal(map.get(1).number, "−2208"); // the raw score, for the Numbers details
  assert.equal(map.get(2).label, "strong (not proven)");
  assert.ok([...map.values()].every((v) => !/\d/.test(v.label)));
  assert.deepEqual([...bestCells(moves)], [2]);
});

test("categories of equal scores are all fine", () => {
  assert.equal(category(5, 5, 5).name, "fine");
  assert.equal(category(100, 0, 100).name, "strong");
  assert.equal(category(0, 0, 100).name, "weak");
});

test("the AI's verdict in words, from its own side, counting its own moves", () => {
  assert.equal(verdictInWords({ proven: true, outcome: "draw", plies: 8 }), "I am sure this is a draw if we both play well");
  // plies count both sides from before the AI's move: a win in 5 is 2 more moves of its own
  assert.equal(
    verdictInWords({ proven: true, outcome: "win", plies: 5, plies_exact: true }),
    "I am sure I win: 2 more moves of mine if you play your best",
  );
  assert.equal(
    verdictInWords({ proven: true, outcome: "win", plies: 3, plies_exact: true }),
    "I am sure I win: 1 more move of mine if you play your best",
  );
  assert.equal(verdictInWords({ proven: true, outcome: "win", plies: 1, plies_exact: true }), "I win with this move");
  // a proof's length (Qubic's strategy) only bounds the game
  assert.equal(
    verdictInWords({ proven: true, outcome: "win", plies: 51, plies_exact: false }),
    "I am sure I win: at most 25 more moves of mine",
  );
  assert.equal(
    verdictInWords({ proven: true, outcome: "loss", plies: 4, plies_exact: true }),
    "I am sure I lose if you play well: you can win in 2 moves",
  );
  assert.equal(verdictInWords({ proven: false, score: -432, nodes: 10 }), "I think you have the better of it (not proven)");
  assert.equal(verdictInWords({ proven: false, score: 4.2, nodes: 8 }), "I think this is good for me (not proven)");
  assert.equal(verdictInWords({ proven: false, score: null, nodes: 0 }), "an opening move");
  assert.ok(!/\b1 moves\b/.test(verdictInWords({ proven: true, outcome: "loss", plies: 2 })));
});

test("an unproven move is a proven win when every reply is a proven loss for the player", () => {
  const answer = { proven: false, score: 120, nodes: 5000 };
  const replies = [
    { move: 1, proven: true, outcome: "loss", plies: 12, plies_exact: false },
    { move: 2, proven: true, outcome: "loss", plies: 8, plies_exact: false },
  ];
  assert.equal(verdictInWords(answer, replies), "I am sure I win, whatever you play: at most 6 more moves of mine");
  // one reply not proven: still a guess
  const open = [...replies, { move: 3, proven: false, score: -40 }];
  assert.equal(verdictInWords(answer, open), "I think this is good for me (not proven)");
});

test("the verdict gives way to the result when the game ends", () => {
  assert.equal(endInWords("O", "O"), "The game is over: I won");
  assert.equal(endInWords("X", "O"), "The game is over: you won");
  assert.equal(endInWords(null, "O"), "The game is over: a draw");
});

test("the numbers count plies and say so", () => {
  assert.equal(valueInPlies({ outcome: "win", plies: 57, words: "win in at most 57" }), "win in at most 57 plies");
  assert.equal(valueInPlies({ outcome: "win", plies: 1, words: "win in 1" }), "win in 1 ply");
  assert.equal(valueInPlies({ outcome: "draw", plies: 8, words: "draw" }), "draw");
  assert.equal(valueInPlies({ outcome: "loss", plies: 4 }), "loss");
  assert.equal(lookAhead({ depth: 12, method: "anytime" }), "12 plies");
  assert.equal(lookAhead({ depth: 9, method: "exact" }), "to the end, 9 plies");
  assert.equal(lookAhead({ depth: 0, method: "level" }), "none (each move judged on its own)");
  assert.equal(lookAhead({ depth: null, method: "level" }), "—");
});
