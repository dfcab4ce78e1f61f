// Move values as people read them: heat-map labels, the best moves, level names.
//
// A move value from the API is {move, proven, outcome, plies, score, words}: proven values
// say "win" | "draw" | "loss" (for the player making the move) and plies to the end of
// the game; unproven ones carry a heuristic score (higher is better for the mover).
// `words` is the value as the engine words it ("win in 3", "draw"): the page shows those
// and keeps no wording of its own for a proven value. Players see words; the raw numbers
// wait behind the page's "Numbers" details.
// Unit-tested with Node's test runner (tests/js/values.test.mjs).

/** The name of a level: random (0), easy, medium, hard, impossible (10). */
export function levelName(level) {
  if (level <= 0) return "random";
  if (level <= 3) return "easy";
  if (level <= 6) return "medium";
  if (level <= 9) return "hard";
  return "impossible";
}

/** A heuristic score, short enough for a small cell: "+90", "−4.5", "±0". */
export function formatScore(score) {
  const abs = Math.abs(score);
  const text = abs >= 10 ? Math.round(abs).toString() : Number(abs.toFixed(1)).toString();
  if (text === "0") return "±0";
  return `${score > 0 ? "+" : "−"}${text}`;
}

/** {text, label, tone} for a proven move value: short text for the cell ("win 3", the
 * outcome and its plies; "win ≤57" where the plies are only a bound, plies_exact false),
 * the engine's words for people. */
export function describeProven(value) {
  const bound = value.plies_exact === false ? "≤" : "";
  const text = value.outcome === "draw" ? "draw" : `${value.outcome} ${bound}${value.plies}`;
  return { text, label: value.words ?? value.outcome, tone: value.outcome };
}

/** The plain categories of moves nothing is proven about, best first, with the share of
 * the way from the weakest to the strongest score a move needs to earn each. */
export const CATEGORIES = [
  { name: "strong", tone: "up", from: 0.8 },
  { name: "fine", tone: "even", from: 0.2 },
  { name: "weak", tone: "down", from: -Infinity },
];

/** The category ({name, tone}) of a heuristic `score` among scores from `low` to `high`:
 * only the order means something, so a move is judged against the others on the board.
 * @example category(90, 0, 100).name === "strong" */
export function category(score, low, high) {
  if (!(high > low)) return CATEGORIES[1]; // all alike: nothing to choose between them
  const share = (score - low) / (high - low);
  return CATEGORIES.find((c) => share >= c.from);
}

/** "1 move", "3 moves". */
export function moves(n) {
  return `${n} move${n === 1 ? "" : "s"}`;
}

const more = (n) => `${n} more move${n === 1 ? "" : "s"}`;

/** What the engine says of the move it just played, in plain words and from its side:
 * "I am sure this is a draw", "I am sure I win: at most 2 more moves of mine". A proven
 * value's plies count both sides' moves from before the AI's move, its own included; the
 * words count the AI's moves still to come (or the player's, for a loss). Where the move
 * itself is not proven but every reply the player has is a proven loss (`replies`, the
 * player's move values after it), the win is proven all the same, and said so. */
export function verdictInWords(answer, replies = null) {
  if (!answer.proven && Array.isArray(replies) && replies.length &&
      replies.every((m) => m.proven && m.outcome === "loss")) {
    // the player's reply starts each line: the AI's moves are the even plies after it
    const longest = Math.max(...replies.map((m) => m.plies ?? 2));
    const exact = replies.every((m) => m.plies_exact !== false);
    return `I am sure I win, whatever you play: ${exact ? "" : "at most "}${more(Math.ceil(longest / 2))} of mine`;
  }
  if (answer.proven) {
    const plies = answer.plies ?? 1;
    const most = answer.plies_exact === false ? "at most " : "";
    if (answer.outcome === "win") {
      if (plies <= 1) return "I win with this move";
      const mine = Math.ceil((plies - 1) / 2); // after this move
      return `I am sure I win: ${most}${more(mine)} of mine${most ? "" : " if you play your best"}`;
    }
    if (answer.outcome === "loss") {
      const yours = Math.ceil((plies - 1) / 2);
      return `I am sure I lose if you play well: you can win in ${moves(yours)}`;
    }
    return "I am sure this is a draw if we both play well";
  }
  if (!answer.nodes && answer.score == null) return "an opening move";
  if (typeof answer.score !== "number" || Math.abs(answer.score) < 1) return "I think this is even";
  return answer.score > 0 ? "I think this is good for me (not proven)" : "I think you have the better of it (not proven)";
}

/** "1 ply", "57 plies": the Numbers' one unit, a ply being one move of either side. */
export function plies(n) {
  return `${n} ${n === 1 ? "ply" : "plies"}`;
}

/** A proven value with its unit: the engine's words end with the plies ("win in at most
 * 57"), so the unit follows them ("win in at most 57 plies"); "draw" stays as it is. */
export function valueInPlies(answer) {
  const words = String(answer.words ?? answer.outcome);
  const count = typeof answer.plies === "number" ? String(answer.plies) : null;
  return count !== null && words.endsWith(count) ? `${words} ${answer.plies === 1 ? "ply" : "plies"}` : words;
}

/** How far an answer looked ahead, in plies: to the end of the game for an exact
 * answer; none for a level's move judged on its own (depth 0); "—" when not said. */
export function lookAhead(answer) {
  if (typeof answer.depth !== "number") return "—";
  if (answer.depth === 0) return "none (each move judged on its own)";
  return answer.method === "exact" ? `to the end, ${plies(answer.depth)}` : plies(answer.depth);
}

/** The words for a finished game, from the AI's side: they replace its last verdict. */
export function endInWords(winner, aiMark) {
  if (!winner) return "The game is over: a draw";
  return winner === aiMark ? "The game is over: I won" : "The game is over: you won";
}

/** A number ordering move values, larger is better for the mover. */
export function rank(value) {
  if (value.proven && value.outcome === "win") return 1e9 - (value.plies ?? 0);
  if (value.proven && value.outcome === "loss") return -1e9 + (value.plies ?? 0);
  if (value.proven) return 0;
  return typeof value.score === "number" ? Math.max(-1e8, Math.min(1e8, value.score)) : -1e8;
}

/**
 * Map cell -> {text, label, tone, strength (0-1), number} for every move in an analysis,
 * from the side of the player to move. Proven values read "win 5", "draw", "loss 2" (tones
 * win, draw, loss); the others a plain category (strong, fine, weak: tones up, even,
 * down) next to the other unproven moves. `number` is the raw value (the search's score
 * where nothing is proven), for the player who opens the numbers.
 */
export function heatMap(moves) {
  const scores = moves.filter((m) => !m.proven && typeof m.score === "number").map((m) => m.score);
  const [low, high] = [Math.min(...scores), Math.max(...scores)];
  const longest = Math.max(1, ...moves.filter((m) => m.proven).map((m) => m.plies ?? 1));
  const map = new Map();
  for (const m of moves) {
    let info = { text: "?", label: "not evaluated", tone: "even" };
    let number = info.text;
    let strength = 1;
    if (m.proven) {
      info = describeProven(m);
      number = info.text;
      if (info.tone !== "draw") {
        // quick wins and quick losses are the most vivid
        strength = 1 - 0.6 * (((m.plies ?? 1) - 1) / Math.max(1, longest - 1));
      }
    } else if (typeof m.score === "number") {
      const { name, tone } = category(m.score, low, high);
      info = { text: name, label: `${name} (not proven)`, tone };
      number = formatScore(m.score);
      strength = tone === "even" ? 0.5 : 0.8;
    }
    map.set(m.move, { ...info, number, strength: Number(strength.toFixed(3)) });
  }
  return map;
}

/** The set of cells whose value is the best in an analysis. */
export function bestCells(moves) {
  if (!moves.length) return new Set();
  const top = Math.max(...moves.map(rank));
  return new Set(moves.filter((m) => rank(m) === top).map((m) => m.move));
}
