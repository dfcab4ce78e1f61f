// Move values as people read them: heat-map labels, the best moves, level names.
//
// A move value from the API is {move, proven, outcome, plies, score}: proven values say
// "win" | "draw" | "loss" (for the player making the move) and plies to the end of the
// game; unproven ones carry a heuristic score (higher is better for the mover).

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

/** {text, label, tone} for one move value: short text for the cell, a label for people. */
export function describeMove(value) {
  if (value.proven && value.outcome === "win") {
    return { text: `win ${value.plies}`, label: `win in ${value.plies}`, tone: "win" };
  }
  if (value.proven && value.outcome === "loss") {
    return { text: `loss ${value.plies}`, label: `loss in ${value.plies}`, tone: "loss" };
  }
  if (value.proven && value.outcome === "draw") return { text: "draw", label: "draw", tone: "draw" };
  if (typeof value.score === "number") {
    const score = formatScore(value.score);
    const tone = score === "±0" ? "even" : value.score > 0 ? "up" : "down";
    return { text: score, label: `score ${score} (not proven)`, tone };
  }
  return { text: "?", label: "not evaluated", tone: "even" };
}

/** A number ordering move values, larger is better for the mover. */
export function rank(value) {
  if (value.proven && value.outcome === "win") return 1e9 - (value.plies ?? 0);
  if (value.proven && value.outcome === "loss") return -1e9 + (value.plies ?? 0);
  if (value.proven) return 0;
  return typeof value.score === "number" ? Math.max(-1e8, Math.min(1e8, value.score)) : -1e8;
}

/**
 * Map cell -> {text, label, tone, strength (0-1)} for every move in an analysis; tone is
 * win, draw or loss for proven values, up, down or even for heuristic scores.
 */
export function heatMap(moves) {
  const scores = moves.filter((m) => !m.proven && typeof m.score === "number").map((m) => m.score);
  const largest = Math.max(0, ...scores.map(Math.abs));
  const longest = Math.max(1, ...moves.filter((m) => m.proven).map((m) => m.plies ?? 1));
  const map = new Map();
  for (const m of moves) {
    const info = describeMove(m);
    let strength = 1;
    if (info.tone === "win" || info.tone === "loss") {
      // quick wins and quick losses are the most vivid
      strength = 1 - 0.6 * (((m.plies ?? 1) - 1) / Math.max(1, longest - 1));
    } else if (info.tone === "up" || info.tone === "down") {
      // heuristic scores: green above zero, red below, stronger with the size
      strength = largest > 0 ? 0.25 + 0.75 * (Math.abs(m.score) / largest) : 0.5;
    }
    map.set(m.move, { ...info, strength: Number(strength.toFixed(3)) });
  }
  return map;
}

/** The set of cells whose value is the best in an analysis. */
export function bestCells(moves) {
  if (!moves.length) return new Set();
  const top = Math.max(...moves.map(rank));
  return new Set(moves.filter((m) => rank(m) === top).map((m) => m.move));
}
