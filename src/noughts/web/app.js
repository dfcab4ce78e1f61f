// The noughts page: play every variant against the engine through its HTTP API.
//
// This is the controller: it wires the page to the game model (game.js: board, moves,
// whose turn, undo, result), the board view draws it (board.js), the API client talks to
// the server (api.js), the geometry knows lines and board strings (geometry.js),
// values.js turns the engine's move values into words and heat-map labels,
// storage.js keeps the score tally, the player's choices and the game on the board, and
// learn.js shows a search deciding on the position on the board (the Learn button).
//
// Address parameters (all optional): api=<base url>, variant=3x3|4x4k3|4x4|4x4x4,
// you=X|O|random (your side: X moves first, so O answers; first=you|ai|random, the older
// way to say it, is read when `you` is absent), level=0-10, board=<board string> (start from a position;
// with equal counts `to`=X|O says who moves), think=<ms> (the AI's time per move on
// boards it cannot solve exactly), view=cube|flat (how Qubic is drawn). The page keeps
// variant, board and to in the address as the game goes (a link to the position) and
// saves the settings with the player's choices.

import { ApiError, apiBase, getJson, postSearch } from "./api.js";
import { BoardView } from "./board.js";
import { Game, markFor, positionProblem, sideFrom } from "./game.js";
import {
  VARIANTS, boardString, cellName, findVariant, geometryFrom, other, parseBoard, splitVariant, variantName,
} from "./geometry.js";
import { openLearn } from "./learn.js";
import { addToTally, loadGame, loadGameOn, loadPrefs, resetTally, saveGame, savePrefs, tallyFor } from "./storage.js";
import {
  bestCells, endInWords, formatScore, heatMap, levelName, lookAhead, valueInPlies, verdictInWords,
} from "./values.js";

const DEFAULT_THINK_MS = 1000;
const MAX_THINK_MS = 5000; // the service's default cap

const $ = (id) => document.getElementById(id);

const params = new URL(window.location.href).searchParams;
const api = apiBase();

const state = {
  catalog: null, // GET /api/v1/variants: every variant's shape, k and lines; the levels
  geo: null,
  human: "X", // the human's mark in the game on the board
  ai: "O",
  side: "X", // the side chosen for new games: X (first) | O (second) | random
  level: 10,
  game: null, // the Game on the board (game.js)
  busy: false, // waiting for the AI's move
  pending: null, // AbortController of the request in flight
  retry: null, // function to retry the failed request
  heat: null, // {map, best} for the position on the board, or null
  heatBoard: "", // board string the heat map belongs to
  heatPending: "", // board string of the analysis in flight
  hintWanted: false, // announce the best move when that analysis lands
  hintShown: false, // the hint marks the best cells (the heat map shows them all)
  engineView: false, // the heat map switch
  numbers: false, // the "Numbers" details are open: raw values instead of words
  tallied: null, // "you" | "ai" | "draws" once the game on the board is in the tally
  boardView: "cube", // Qubic drawn as a 3-D cube or as flat layers
  think: DEFAULT_THINK_MS, // the AI's time per move (ms) on boards it cannot solve exactly
  generation: 0, // bumps on every change that makes answers in flight stale
};

const view = new BoardView($("board"), (cell) => humanPlay(cell));
view.onInfo = (cell) => showCellInfo(cell);

// ---------------------------------------------------------------- preferences

function rememberChoices() {
  savePrefs({
    variant: state.geo.name,
    side: state.side,
    level: state.level,
    think: state.think,
    engineView: state.engineView,
    view: state.boardView,
  });
}

// ---------------------------------------------------------------- game state

function toMove() {
  return state.game.toMove();
}

function humansTurn() {
  return !state.game.over && !state.busy && toMove() === state.human;
}

/** The human plays `mark` in the game on the board, the AI the other mark. */
function setHuman(mark) {
  state.human = mark === "O" ? "O" : "X";
  state.ai = other(state.human);
}

/** The human's mark kept with a saved game, if it has one. */
function humanOf(saved) {
  if (saved.human === "X" || saved.human === "O") setHuman(saved.human);
}

function thinkMs() {
  return state.think;
}

function setThink(ms) {
  const value = Number.isFinite(ms) && ms > 0 ? Math.round(ms) : DEFAULT_THINK_MS;
  state.think = value;
  const select = $("think");
  if (![...select.options].some((o) => Number(o.value) === value)) {
    select.append(new Option(`${value} ms`, String(value)));
  }
  select.value = String(value);
}

/** The API request for the position on the board; a retry gets twice the time. */
function requestBody(extra = {}, attempt = 0) {
  const body = {
    variant: state.geo.name,
    board: boardString(state.geo, state.game.board),
    to_move: toMove(),
    ...extra,
  };
  if (state.geo.dims === 3 || attempt > 0) {
    const base = state.geo.dims === 3 ? thinkMs() : DEFAULT_THINK_MS;
    body.time_ms = Math.min(MAX_THINK_MS, base * 2 ** attempt);
  }
  return body;
}

function abortPending() {
  state.generation += 1;
  state.heatPending = "";
  if (state.pending) state.pending.abort();
  state.pending = null;
  state.busy = false;
}

function newGame() {
  abortPending();
  hideMessage();
  setHuman(markFor(state.side));
  state.game = new Game(state.geo); // X moves first
  begin();
}

/** Show the game just put in state.game and let whoever moves first move. */
function begin(tallied = null) {
  state.tallied = tallied;
  state.heat = null;
  state.hintShown = false;
  renderStats();
  render();
  if (!state.game.over && toMove() === state.ai) aiMove();
  else afterHumanTurnBegins();
}

function place(cell, by, answer = null) {
  state.game.play(cell, by, answer);
  state.heat = null;
  state.hintShown = false;
  if (state.game.over) recordResult();
}

function humanPlay(cell) {
  if (state.game.over) return say("The game is over. Start a new game, or undo your last move.", true);
  if (state.busy) return say("Wait for the AI's move.", true);
  if (toMove() !== state.human) return;
  if (state.game.board[cell]) return say(`${cellName(state.geo, cell)} is taken; pick an empty cell.`, true);
  hideMessage();
  place(cell, "human");
  renderStats();
  render();
  if (!state.game.over) aiMove();
}

async function aiMove() {
  const generation = state.generation;
  const controller = new AbortController();
  state.pending = controller;
  state.busy = true;
  state.retry = null;
  render();
  try {
    // the game's seed: the same game asks the same way, a new game picks other equal moves
    const extra = { level: state.level, seed: state.game.seed };
    const answer = await postSearch(api, "/api/v1/move", (attempt) => requestBody(extra, attempt), {
      signal: controller.signal,
    });
    if (generation !== state.generation) return;
    const cell = answer.move;
    if (!Number.isInteger(cell) || cell < 0 || cell >= state.geo.cells || state.game.board[cell]) {
      throw new ApiError("The engine answered with a move this board cannot take.");
    }
    state.busy = false;
    state.pending = null;
    place(cell, "ai", answerToKeep(answer));
    renderStats();
    render();
    if (!state.game.over) afterHumanTurnBegins();
  } catch (error) {
    if (generation !== state.generation || error.cancelled) return;
    state.busy = false;
    state.pending = null;
    showError(error, () => aiMove());
    render();
  }
}

function afterHumanTurnBegins() {
  if (state.engineView && humansTurn()) showHeat(false);
}

/** The parts of the engine's answer the engine's view shows (kept with the move). */
function answerToKeep(answer) {
  const keys = ["move", "proven", "outcome", "plies", "score", "words", "depth", "nodes", "elapsed_ms", "method", "level", "cached"];
  return Object.fromEntries(keys.filter((k) => k in answer).map((k) => [k, answer[k]]));
}

async function showHeat(fromHint) {
  if (state.game.over || state.busy) return;
  const board = boardString(state.geo, state.game.board);
  if (fromHint) state.hintShown = true;
  if (state.heat && state.heatBoard === board) {
    render();
    if (fromHint) announceHint();
    return;
  }
  if (state.heatPending === board) {
    state.hintWanted ||= fromHint; // the analysis in flight will answer the hint
    return;
  }
  state.heatPending = board;
  state.hintWanted = fromHint;
  const generation = state.generation;
  const before = state.game.history.length;
  const current = () => generation === state.generation && before === state.game.history.length;
  $("hint").setAttribute("aria-busy", "true");
  try {
    const answer = await postSearch(api, "/api/v1/analyze", (attempt) => requestBody({}, attempt), { wanted: current });
    if (!current()) return;
    const moves = Array.isArray(answer.moves) ? answer.moves : [];
    state.heat = { map: heatMap(moves), best: bestCells(moves), moves };
    state.heatBoard = board;
    hideMessage();
    renderStats();
    render();
    if (state.hintWanted) announceHint();
  } catch (error) {
    if (!current()) return;
    showError(error, () => showHeat(state.hintWanted));
  } finally {
    if (state.heatPending === board) state.heatPending = "";
    $("hint").removeAttribute("aria-busy");
  }
}

/** The cell a hint singles out: the first of the best moves (null: no hint shown). */
function hintCell() {
  if (!state.hintShown || !state.heat) return null;
  const [first] = state.heat.best;
  return first ?? null;
}

function announceHint() {
  const cell = hintCell();
  if (cell === null) return;
  const value = state.heat.map.get(cell);
  const others = state.heat.best.size - 1;
  const more = others ? `; ${others} other move${others === 1 ? " is" : "s are"} as good (dashed)` : "";
  const words = state.numbers && value.number !== value.text ? `${value.label}, ${value.number}` : value.label;
  say(`Hint: ${cellName(state.geo, cell)} — ${words}${more}.`, false);
}

function undo() {
  if (!state.game.canUndo()) return;
  abortPending();
  hideMessage();
  if (state.tallied) addToTally(state.geo.name, state.tallied, -1); // the game goes on after all
  state.tallied = null;
  state.game.undo();
  state.heat = null;
  state.hintShown = false;
  renderStats();
  render();
  afterHumanTurnBegins();
}

// ---------------------------------------------------------------- tally

function recordResult() {
  const { winner } = state.game.result;
  state.tallied = winner === state.human ? "you" : winner === state.ai ? "ai" : "draws";
  addToTally(state.geo.name, state.tallied);
}

function renderTally() {
  const entry = tallyFor(state.geo.name);
  $("tally-you").textContent = entry.you;
  $("tally-ai").textContent = entry.ai;
  $("tally-draws").textContent = entry.draws;
  $("tally-variant").textContent = `· ${shortName(state.geo.name)}`;
}

// ---------------------------------------------------------------- messages

function say(text, isProblem) {
  const box = $("message");
  $("message-text").textContent = text;
  $("retry").hidden = true;
  box.dataset.kind = isProblem ? "problem" : "info";
  box.hidden = false;
}

function showError(error, retry) {
  const text = error instanceof ApiError ? error.message : "Something went wrong talking to the engine.";
  say(text, true);
  $("message").dataset.kind = "error";
  state.retry = retry;
  $("retry").hidden = false;
}

function hideMessage() {
  $("message").hidden = true;
  state.retry = null;
}

// ---------------------------------------------------------------- rendering

function statusText() {
  const misere = state.geo.misere ? " Misère: completing a line loses." : "";
  const you = `you play ${state.human}.${misere}`;
  if (state.game.over && !state.game.history.length) {
    const { winner } = state.game.result;
    const loser = other(winner);
    const how = !winner
      ? "the board is full, a draw"
      : state.geo.misere
        ? `${loser} completed ${state.geo.k} in a row, so ${winner} wins (misère)`
        : `${winner} already has ${state.geo.k} in a row`;
    return `This position is already over: ${how}. Start a new game to play.`;
  }
  if (state.game.over) {
    // one sentence: the result, and how (the verdict line under it stays empty)
    const { winner } = state.game.result;
    const how = state.geo.misere
      ? (winner === state.human ? "the AI completed a line" : "you completed a line")
      : `${state.geo.k} in a row`;
    if (winner === state.human) return `You win with ${winner}: ${how}, well played!`;
    if (winner === state.ai) return `The AI wins with ${winner}: ${how}.`;
    return "It's a draw: the board is full.";
  }
  if (state.busy) return `The AI (${state.ai}) is thinking…`;
  if (toMove() === state.human) {
    const last = state.game.history[state.game.history.length - 1];
    const played = last && last.by === "ai" ? `The AI played ${cellName(state.geo, last.cell)}. ` : "";
    return `${played}Your turn: ${you}`;
  }
  return `The AI (${state.ai}) is to move.`;
}

/** The values to draw: all of them with the heat map on, the hinted move's after a
 * hint (the moves as good as it are outlined, without their values). */
function shownHeat() {
  const heat = state.heat;
  if (!heat || !(state.engineView || state.hintShown)) return null;
  if (state.engineView) return heat.map;
  const cell = hintCell();
  return new Map(cell === null ? [] : [[cell, heat.map.get(cell)]]);
}

function render() {
  const { game } = state;
  const heat = shownHeat();
  view.update({
    board: game.board,
    lastMove: game.lastMove,
    winLine: game.over ? game.result.line : null,
    heat,
    best: heat ? state.heat.best : null,
    hint: hintCell(),
    playable: humansTurn(),
    numbers: state.numbers,
  });
  const status = $("status");
  const text = statusText();
  if (status.textContent !== text) status.textContent = text;
  status.dataset.state = game.over
    ? !game.history.length
      ? "over"
      : game.result.winner === state.human
      ? "won"
      : game.result.winner
        ? "lost"
        : "draw"
    : state.busy
      ? "thinking"
      : "playing";
  $("board").classList.toggle("thinking", state.busy);
  $("undo").disabled = !game.canUndo();
  $("hint").disabled = !humansTurn();
  $("legend").hidden = !(heat && state.engineView);
  $("legend").classList.toggle("with-guesses", Boolean(heat && [...heat.values()].some((v) => v.text !== v.number)));
  document.body.classList.toggle("is-3d", state.geo.dims === 3);
  document.body.classList.toggle("is-cube", state.geo.dims === 3 && state.boardView === "cube");
  renderTally();
  keepGame();
}

/** Save the game (a reload finds it) and put the position in the address (to share).
 * The settings the address may have carried are saved with the player's choices, so
 * they leave the address: a reload keeps what the player set since. */
function keepGame() {
  saveGame({ ...state.game.toJSON(), tallied: state.tallied, human: state.human });
  const url = new URL(window.location.href);
  for (const key of ["level", "first", "you", "think", "view"]) url.searchParams.delete(key);
  url.searchParams.set("variant", state.geo.name);
  if (state.game.board.some(Boolean)) {
    url.searchParams.set("board", boardString(state.geo, state.game.board));
    url.searchParams.set("to", toMove());
  } else {
    url.searchParams.delete("board");
    url.searchParams.delete("to");
  }
  if (url.href !== window.location.href) window.history.replaceState(null, "", url);
}

/** The engine's view of its latest move still on the board: words first, then numbers. */
function renderStats() {
  const a = state.game.lastNote("ai");
  const set = (id, text) => {
    $(id).textContent = text;
  };
  renderVerdict(a);
  if (!a) {
    for (const id of ["stat-move", "stat-score", "stat-depth", "stat-nodes", "stat-time", "stat-method"]) {
      set(id, "—");
    }
    return;
  }
  set("stat-move", cellName(state.geo, a.move));
  // one unit in the numbers, the ply, named wherever a count stands (values.js)
  const proven = a.proven ? `${valueInPlies(a)} (proven)` : null;
  set("stat-score", proven ?? (typeof a.score === "number" ? `${formatScore(a.score)} (a guess)` : "—"));
  set("stat-depth", lookAhead(a));
  set("stat-nodes", a.method === "exact" && !a.nodes ? "none (solved)" : Number(a.nodes || 0).toLocaleString("en"));
  set("stat-time", `${Number(a.elapsed_ms || 0).toFixed(a.elapsed_ms < 10 ? 1 : 0)} ms`);
  const level = a.level ?? state.level;
  const method = { exact: "exact solver", anytime: "anytime search", level: `level ${level} play` }[a.method];
  set("stat-method", `${method || a.method || "?"}${a.cached ? " (cached)" : ""}`);
}

/** The AI's verdict on its last move, in the engine's view and under the status line
 * (in sight with the board); the result once the game is over. The heat map of the
 * position after its move (the player's replies) can prove a win its answer did not. */
function renderVerdict(note) {
  const { game } = state;
  let text = "—";
  if (game.over && game.history.length) text = endInWords(game.result.winner, state.ai);
  else if (note) {
    const last = game.history[game.history.length - 1];
    const current = last && last.by === "ai" && state.heat && state.heatBoard === boardString(state.geo, game.board);
    text = verdictInWords(note, current ? state.heat.moves : null);
  }
  $("stat-verdict").textContent = text;
  // under the status line only while the game goes on: at the end the status says it
  const line = game.over ? "" : text === "—" ? "" : text;
  $("verdict-text").textContent = line;
  $("verdict-line").hidden = !line;
}

/** The words of the heat map for the cell a pointer or the focus rests on (the cube
 * shows the heat map's colours only), or the cell's name and contents. */
function showCellInfo(cell) {
  const box = $("cell-info");
  if (cell === null || !state.game) {
    box.textContent = "";
    return;
  }
  const mark = state.game.board[cell];
  const heat = shownHeat();
  const info = !mark && heat ? heat.get(cell) : null;
  const what = mark || (info ? `${info.label} for you${state.numbers && info.number !== info.text ? ` (${info.number})` : ""}` : "empty");
  box.textContent = `${cellName(state.geo, cell)}: ${what}`;
}

/** The Learn view (learn.js): the search deciding on the position on the board. */
function openLearnView() {
  openLearn({ api, geo: state.geo, board: boardString(state.geo, state.game.board), toMove: toMove() });
}

// ---------------------------------------------------------------- controls

function buildVariantOptions() {
  const box = $("variant-options");
  for (const info of state.catalog.variants.filter((v) => v.featured)) {
    const v = VARIANTS.find((known) => known.name === info.name) || { label: info.name, detail: `${info.k} in a row` };
    const label = document.createElement("label");
    label.innerHTML = `<input type="radio" name="variant"><span><b></b><small></small></span>`;
    const input = label.querySelector("input");
    input.value = info.name;
    label.querySelector("b").textContent = v.label;
    label.querySelector("small").textContent = v.detail;
    box.append(label);
  }
}

function buildLevelStops() {
  const box = $("level-named");
  const stops = Object.entries(state.catalog.level_presets).sort((a, b) => a[1] - b[1]);
  for (const [name, value] of stops) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "stop";
    button.textContent = name;
    button.dataset.level = String(value);
    button.addEventListener("click", () => setLevel(value));
    box.append(button);
  }
}

function setLevel(level) {
  state.level = Math.max(0, Math.min(state.catalog.max_level, Math.round(level)));
  $("level").value = String(state.level);
  $("level").setAttribute("aria-valuetext", `${state.level}, ${levelName(state.level)}`);
  $("level-value").textContent = `${state.level} · ${levelName(state.level)}`;
  for (const stop of document.querySelectorAll("#level-named .stop")) {
    stop.classList.toggle("active", Number(stop.dataset.level) === state.level);
  }
  rememberChoices();
}

/** Qubic as a 3-D cube ("cube") or as its flat layers side by side ("flat"). */
function setBoardView(name) {
  state.boardView = name === "flat" ? "flat" : "cube";
  view.setView(state.boardView);
  checkRadio("view", state.boardView);
  if (state.geo) document.body.classList.toggle("is-cube", state.geo.dims === 3 && state.boardView === "cube");
}

/** The board `name` (a misère name plays that board's misère game). */
function setVariant(name) {
  state.geo = geometryFrom(findVariant(state.catalog, name), splitVariant(name).misere);
  view.setGeometry(state.geo);
  for (const input of document.querySelectorAll('input[name="variant"]')) input.checked = input.value === state.geo.base;
  $("misere").checked = state.geo.misere;
  document.body.classList.toggle("is-misere", state.geo.misere);
}

/** Another board: the game on this one is kept (saved on its board, see storage.js)
 * and the other board's unfinished game comes back, or a new game starts there. */
function switchBoard(name) {
  const left = state.game && state.game.history.length && !state.game.over ? shortName(state.geo.name) : null;
  setVariant(name);
  rememberChoices();
  const kept = keptGame(state.geo.name);
  if (kept) {
    abortPending();
    hideMessage();
    humanOf(kept);
    state.game = kept.game;
    begin(kept.tallied);
    say(`Your ${shortName(state.geo.name)} game is back where you left it.`, false);
  } else {
    newGame();
    if (left) say(`Your ${left} game is kept: pick ${left} again to go on with it.`, false);
  }
}

/** "3×3", "Qubic misère": a board's short name, the rule after it. */
function shortName(name) {
  const { base, misere } = splitVariant(name);
  const v = VARIANTS.find((known) => known.name === base);
  return `${v ? v.short : base}${misere ? " misère" : ""}`;
}

/** The unfinished game last played on board `name`, or null. */
function keptGame(name) {
  const saved = loadGameOn(name);
  try {
    const game = saved.variant === state.geo.name ? Game.restore(state.geo, saved) : null;
    return game && !game.over && game.history.length ? { game, tallied: saved.tallied ?? null, human: saved.human } : null;
  } catch {
    return null;
  }
}

function checkRadio(name, value) {
  for (const input of document.querySelectorAll(`input[name="${name}"]`)) input.checked = input.value === value;
}

function wireControls() {
  for (const input of document.querySelectorAll('input[name="variant"]')) {
    input.addEventListener("change", () => switchBoard(variantName(input.value, state.geo.misere)));
  }
  $("misere").addEventListener("change", () => switchBoard(variantName(state.geo.base, $("misere").checked)));
  for (const input of document.querySelectorAll('input[name="side"]')) {
    input.addEventListener("change", () => {
      state.side = input.value;
      rememberChoices();
      newGame();
    });
  }
  $("level").addEventListener("input", () => setLevel(Number($("level").value)));
  $("think").addEventListener("change", () => {
    setThink(Number($("think").value));
    rememberChoices();
  });
  $("new-game").addEventListener("click", () => newGame());
  $("undo").addEventListener("click", () => undo());
  $("hint").addEventListener("click", () => showHeat(true));
  $("learn-open").addEventListener("click", () => openLearnView());
  $("reset-view").addEventListener("click", () => view.resetView());
  $("retry").addEventListener("click", () => {
    const retry = state.retry;
    hideMessage();
    if (retry) retry();
  });
  $("engine-view").addEventListener("change", () => {
    state.engineView = $("engine-view").checked;
    if (!state.engineView) state.hintShown = false; // off: no values, until the next hint
    rememberChoices();
    if (state.engineView) afterHumanTurnBegins();
    render();
  });
  $("numbers").addEventListener("toggle", () => {
    state.numbers = $("numbers").open;
    render();
  });
  $("board").addEventListener("pointerleave", () => showCellInfo(null));
  for (const input of document.querySelectorAll('input[name="view"]')) {
    input.addEventListener("change", () => {
      setBoardView(input.value);
      rememberChoices();
    });
  }
  $("tally-reset").addEventListener("click", () => {
    resetTally(state.geo.name);
    renderTally();
  });
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target.tagName;
    if (tag === "INPUT" && event.target.type !== "radio" && event.target.type !== "checkbox") return;
    const key = event.key.toLowerCase();
    if (key === "u") undo();
    else if (key === "h" && humansTurn()) showHeat(true);
    else if (key === "n") newGame();
    else return;
    event.preventDefault();
  });
}

// ---------------------------------------------------------------- start

/** The saved game if the address asks for it (its board, or nothing new), else null. */
function savedGame(wanted) {
  const saved = loadGame();
  let game = null;
  try {
    if (saved.variant === state.geo.name) game = Game.restore(state.geo, saved);
  } catch {
    return null; // a save from an older page or another board: start afresh
  }
  if (!game) return null;
  const kept = { game, tallied: saved.tallied ?? null, human: saved.human };
  if (wanted) return String(wanted) === String(game.board) ? kept : null;
  const fresh = ["variant", "first", "you"].some((key) => params.has(key));
  return !fresh && !game.over ? kept : null;
}

/** Start from the address's ?board=, the game saved before a reload, or a new game. */
function openGame() {
  let board = null;
  let problem = null;
  if (params.get("board")) {
    try {
      board = parseBoard(state.geo, params.get("board"));
      problem = positionProblem(board);
    } catch (error) {
      problem = error.message;
    }
  }
  const saved = savedGame(problem ? null : board);
  if (saved) {
    abortPending();
    humanOf(saved);
    state.game = saved.game;
    begin(saved.tallied);
  } else if (board && !problem) {
    const xs = board.filter((m) => m === "X").length;
    const os = board.filter((m) => m === "O").length;
    const to = (params.get("to") || "X").toUpperCase() === "O" ? "O" : "X";
    // who moved first follows from the counts; with equal counts `to` moves next
    const firstMark = xs === os ? to : xs > os ? "X" : "O";
    abortPending();
    state.game = new Game(state.geo, { first: firstMark, board });
    begin();
  } else {
    newGame();
  }
  if (problem) say(`Could not open the position in the address (?board=): ${problem}. Here is a new game instead.`, true);
}

async function start() {
  try {
    state.catalog = await getJson(api, "/api/v1/variants");
  } catch (error) {
    showError(error, () => window.location.reload());
    document.documentElement.dataset.ready = "true";
    return;
  }
  buildVariantOptions();
  buildLevelStops();
  $("level").max = String(state.catalog.max_level);
  const prefs = loadPrefs();
  let wanted = params.get("variant") || prefs.variant || "3x3";
  if (!findVariant(state.catalog, wanted)) wanted = "3x3";
  // the address, else the saved choice (or the two choices an older page saved)
  state.side = sideFrom({ you: params.get("you"), first: params.get("first") })
    ?? sideFrom({ you: prefs.side ?? prefs.mark, first: prefs.first }) ?? "X";
  setHuman(markFor(state.side));
  const level = Number(params.get("level") ?? prefs.level ?? state.catalog.max_level);
  state.engineView = Boolean(prefs.engineView);
  setBoardView(params.get("view") || prefs.view);
  setThink(Number(params.get("think") ?? prefs.think ?? DEFAULT_THINK_MS));
  setVariant(wanted);
  checkRadio("side", state.side);
  $("engine-view").checked = state.engineView;
  setLevel(Number.isFinite(level) ? level : state.catalog.max_level);
  wireControls();

  openGame();
  document.documentElement.dataset.ready = "true";
}

start();
