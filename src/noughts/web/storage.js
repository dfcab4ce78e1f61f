// What the page remembers in localStorage: the score tally per variant and the
// player's last choices. Every access tolerates a browser that refuses storage.

const TALLY_KEY = "noughts.tally.v1";
const PREFS_KEY = "noughts.prefs.v1";
const GAME_KEY = "noughts.game.v1";
const GAMES_KEY = "noughts.games.v1"; // each board's last game, by variant

function loadJson(key) {
  try {
    const value = JSON.parse(window.localStorage.getItem(key) || "null");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function saveJson(key, value) {
  try {
    window.localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // private mode or storage full: the page works without it
  }
}

/** {you, ai, draws} for a variant. */
export function tallyFor(variant) {
  return { you: 0, ai: 0, draws: 0, ...(loadJson(TALLY_KEY)[variant] || {}) };
}

/** Count one finished game: outcome is "you", "ai" or "draws"; `by` -1 takes one back
 * (a finished game undone). */
export function addToTally(variant, outcome, by = 1) {
  const tally = loadJson(TALLY_KEY);
  const entry = tallyFor(variant);
  entry[outcome] = Math.max(0, entry[outcome] + by);
  tally[variant] = entry;
  saveJson(TALLY_KEY, tally);
}

/** Forget a variant's tally. */
export function resetTally(variant) {
  const tally = loadJson(TALLY_KEY);
  delete tally[variant];
  saveJson(TALLY_KEY, tally);
}

/** The game on the board (Game.toJSON plus the page's own fields), or {} if none. */
export function loadGame() {
  return loadJson(GAME_KEY);
}

export function saveGame(game) {
  saveJson(GAME_KEY, game);
  if (game && game.variant) saveJson(GAMES_KEY, { ...loadJson(GAMES_KEY), [game.variant]: game });
}

/** The last game saved on the board `variant` (as saveGame got it), or {} if none: a
 * board left for another keeps its game. */
export function loadGameOn(variant) {
  const game = loadJson(GAMES_KEY)[variant];
  return game && typeof game === "object" ? game : {};
}

/** The saved choices: {variant, mark, first, level, think, engineView, view} (any may be missing). */
export function loadPrefs() {
  return loadJson(PREFS_KEY);
}

export function savePrefs(prefs) {
  saveJson(PREFS_KEY, prefs);
}
