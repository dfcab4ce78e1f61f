// The Learn view: watch minimax and alpha-beta decide on the position on the board.
//
// One request (POST /api/v1/explain) brings the search's trace: the first DRAW_BOUND
// positions it entered, each with the move that led there, the alpha-beta window on
// entry, the value returned and any cut-off, plus every algorithm's node count on the
// position. The view draws the kept positions as an ARIA tree (arrow keys walk it,
// Right/Left expand and collapse), plays the walk back step by step (enter a position,
// leave it with its value), shows the current position's board and its window on a
// number line, and tables the counts. Nothing is truncated silently: the summary
// states the bound, and a node whose positions below were not all kept says how many
// more there were.
//
// Values are from the view of the side to move at the root (the maximizer): a win d
// plies away scores win - d, a loss d - win, a draw 0; the window's edges start at
// -infinity and +infinity.

import { postJson } from "./api.js";
import { cellName, other, parseBoard } from "./geometry.js";

/** Most positions the page asks for and draws; every position is counted all the same. */
export const DRAW_BOUND = 2000;

/** Largest board the explain API traces. */
const MAX_CELLS = 16;

const ALGORITHMS = [
  ["alphabeta", "Alpha-beta"],
  ["minimax", "Minimax"],
  ["ordered", "Alpha-beta, best moves first"],
  ["transposition", "Alpha-beta + transposition table"],
  ["symmetry", "Alpha-beta + symmetric table"],
  ["depth-limited", "Depth-limited + heuristic"],
];
const NAMES = Object.fromEntries(ALGORITHMS);

const TEMPLATE = `
  <div class="learn-head">
    <h2 id="learn-title" tabindex="-1">Learn: watch the search decide</h2>
    <button type="button" class="btn small" id="learn-close">Close</button>
  </div>
  <p class="learn-position" id="learn-position"></p>
  <form class="learn-controls" id="learn-form">
    <label>Algorithm <select id="learn-algorithm"></select></label>
    <label>Depth <input type="number" id="learn-depth" min="1" max="16" value="2" disabled></label>
    <label class="learn-check"><input type="checkbox" id="learn-tutorial"> Count the tutorial's way</label>
    <label class="learn-check"><input type="checkbox" id="learn-plain-words" checked> Plain words</label>
    <button type="submit" class="btn small primary" id="learn-run">Explain</button>
  </form>
  <p id="learn-summary" class="learn-summary" role="status" aria-live="polite"></p>
  <div class="learn-body" id="learn-body" hidden>
    <div class="learn-tree-wrap">
      <h3 id="learn-tree-title">Search tree</h3>
      <p class="learn-note" id="learn-bound"></p>
      <ul role="tree" id="learn-tree" class="learn-tree" aria-labelledby="learn-tree-title"></ul>
    </div>
    <div class="learn-side">
      <div class="learn-playback" role="group" aria-label="Playback">
        <button type="button" class="btn small" id="learn-start">Start</button>
        <button type="button" class="btn small" id="learn-back">Back</button>
        <button type="button" class="btn small" id="learn-play" aria-pressed="false">Play</button>
        <button type="button" class="btn small" id="learn-step">Step</button>
        <label class="learn-speed">Speed <input type="range" id="learn-speed" min="1" max="20" value="4"></label>
      </div>
      <p class="learn-step-text" id="learn-step-text"></p>
      <div class="learn-node">
        <div class="mini-board" id="learn-mini" role="img"></div>
        <div class="learn-node-text">
          <p id="learn-plain" class="learn-plain"></p>
          <p id="learn-event" class="learn-event"></p>
          <svg id="learn-window" class="learn-window" viewBox="0 0 320 56" role="img"></svg>
          <p id="learn-cut" class="learn-cut" hidden></p>
        </div>
      </div>
    </div>
  </div>
  <div class="learn-table-wrap" id="learn-table-wrap" role="region" aria-labelledby="learn-table-caption" tabindex="0" hidden>
  <table class="learn-table" id="learn-table">
    <caption id="learn-table-caption">Every algorithm on this position</caption>
    <thead><tr><th scope="col">Algorithm</th><th scope="col">Value</th><th scope="col">Best move</th>
      <th scope="col">Positions</th><th scope="col">Cut-offs</th><th scope="col">Table hits</th>
      <th scope="col">Time</th></tr></thead>
    <tbody></tbody>
  </table>
  </div>`;

const fmt = (n) => Number(n).toLocaleString("en");

let view = null;

/** Open the Learn view for a position: {api, geo (geometry.js), board, toMove}. */
export function openLearn(position) {
  if (!view) view = new LearnView();
  view.styled.then(() => view.open(position));
}

class LearnView {
  constructor() {
    const section = document.createElement("section");
    section.id = "learn-view";
    section.className = "learn";
    section.setAttribute("aria-labelledby", "learn-title");
    section.innerHTML = TEMPLATE;
    section.hidden = true; // shown by open(), once its stylesheet is in: unstyled, the
    // view would be laid out wider than a phone's screen for a moment
    section.setAttribute("aria-busy", "true"); // until the first load() answers
    const stylesheet = document.createElement("link");
    stylesheet.rel = "stylesheet";
    stylesheet.href = new URL("learn.css", import.meta.url).href;
    this.styled = new Promise((resolve) => {
      stylesheet.addEventListener("load", resolve, { once: true });
      stylesheet.addEventListener("error", resolve, { once: true }); // plain, but usable
    });
    document.head.append(stylesheet);
    // in the game's layout, beside the board on a wide screen (learn.css), under it on
    // a narrow one: opening it scrolls nothing, and the board stays in sight
    const play = document.querySelector("main .play");
    if (play) play.after(section);
    else document.body.append(section);
    this.section = section;
    this.$ = (id) => section.querySelector(`#${id}`);
    const select = this.$("learn-algorithm");
    for (const [value, label] of ALGORITHMS) select.append(new Option(label, value));
    this.trace = null;
    this.step = 0;
    this.timer = null;
    this.request = 0;
    this.wire();
  }

  wire() {
    this.$("learn-close").addEventListener("click", () => this.close());
    this.$("learn-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.load();
    });
    this.$("learn-algorithm").addEventListener("change", () => {
      this.$("learn-depth").disabled = this.$("learn-algorithm").value !== "depth-limited";
    });
    this.$("learn-start").addEventListener("click", () => this.go(0));
    this.$("learn-back").addEventListener("click", () => this.go(this.step - 1));
    this.$("learn-step").addEventListener("click", () => this.go(this.step + 1));
    this.$("learn-play").addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    this.$("learn-speed").addEventListener("input", () => this.speedChanged());
    this.$("learn-plain-words").addEventListener("change", () => this.go(this.step, false));
    const tree = this.$("learn-tree");
    tree.addEventListener("keydown", (event) => this.treeKey(event));
    tree.addEventListener("click", (event) => {
      const item = event.target.closest("[role=treeitem]");
      if (!item) return;
      this.focusItem(item);
      if (event.target.closest(".twisty")) this.toggle(item);
    });
    // the game's single-letter shortcuts (u, h, n) stay out of the Learn view
    this.section.addEventListener("keydown", (event) => {
      if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) event.stopPropagation();
    });
    this.speedChanged();
  }

  open({ api, geo, board, toMove }) {
    this.api = api;
    this.positionGeo = geo;
    this.positionCells = geo.cells;
    this.position = { variant: geo.name, board, to_move: toMove };
    this.section.hidden = false;
    this.section.parentElement.classList.add("learning");
    this.$("learn-position").textContent = `Position ${board} (${geo.name}), ${toMove} to move.`;
    // its title in sight (a phone: at the foot of the screen, the board still above it)
    const title = this.$("learn-title");
    if (title.getBoundingClientRect().bottom > window.innerHeight) title.scrollIntoView({ block: "end" });
    title.focus({ preventScroll: true });
    this.load();
  }

  close() {
    this.pause();
    this.section.hidden = true;
    this.section.parentElement.classList.remove("learning");
    const opener = document.getElementById("learn-open");
    if (opener) opener.focus();
  }

  // ------------------------------------------------------------ loading

  async load() {
    this.pause();
    const geo = this.positionGeo;
    const summary = this.$("learn-summary");
    if (geo.cells > MAX_CELLS) {
      summary.textContent = `Learn traces boards of at most ${MAX_CELLS} cells (3×3, 4×4); this board has ${geo.cells}.`;
      this.$("learn-body").hidden = this.$("learn-table-wrap").hidden = true;
      this.section.removeAttribute("aria-busy");
      return;
    }
    const algorithm = this.$("learn-algorithm").value;
    const body = {
      ...this.position,
      algorithm,
      tutorial: this.$("learn-tutorial").checked,
      max_nodes: DRAW_BOUND,
    };
    if (algorithm === "depth-limited") body.depth = Number(this.$("learn-depth").value) || 2;
    const request = ++this.request;
    summary.textContent = "Searching every algorithm on this position…";
    this.section.setAttribute("aria-busy", "true");
    try {
      const answer = await postJson(this.api, "/api/v1/explain", body, { timeoutMs: 70000 });
      if (request !== this.request) return;
      this.show(answer, geo);
    } catch (error) {
      if (request !== this.request) return;
      summary.textContent = error.status === 413
        ? `This search would enter more positions than the server traces at once. Try ${NAMES.symmetry.toLowerCase()}, a depth limit, or a position with fewer empty cells.`
        : error.message;
      this.$("learn-body").hidden = this.$("learn-table-wrap").hidden = true;
    } finally {
      if (request === this.request) this.section.removeAttribute("aria-busy");
    }
  }

  show(trace, geo) {
    this.trace = trace;
    this.geo = geo;
    this.nodes = trace.stored;
    this.children = new Map();
    for (const node of this.nodes) {
      if (node.parent === null) continue;
      if (!this.children.has(node.parent)) this.children.set(node.parent, []);
      this.children.get(node.parent).push(node);
    }
    this.events = [];
    for (const node of this.nodes) {
      this.events[node.enter] = { node, kind: "enter" };
      this.events[node.exit] = { node, kind: "exit" };
    }
    this.pv = new Set();
    let at = this.nodes[0];
    for (const move of trace.pv) {
      this.pv.add(at.id);
      at = (this.children.get(at.id) || []).find((kid) => kid.move === move);
      if (!at) break;
    }
    if (at) this.pv.add(at.id);
    this.$("learn-summary").textContent = this.summaryText(trace);
    this.$("learn-bound").textContent = trace.truncated
      ? `The tree draws the first ${fmt(trace.stored.length)} of ${fmt(trace.nodes)} positions entered: this page draws at most ${fmt(DRAW_BOUND)}; the counts cover them all.`
      : `All ${fmt(trace.nodes)} positions entered are drawn (this page draws at most ${fmt(DRAW_BOUND)}).`;
    this.renderTable(trace);
    this.buildTree();
    this.$("learn-body").hidden = false;
    this.go(0);
  }

  summaryText(t) {
    const move = cellName(this.geo, t.best_move);
    const cuts = t.algorithm === "minimax" ? "" : `, ${fmt(t.cutoffs)} cut-offs`;
    const hits = t.table_hits ? `, ${fmt(t.table_hits)} table hits` : "";
    return `${NAMES[t.algorithm]}: ${t.value_text} for ${t.to_move}; best move ${move}. ` +
      `It counted ${fmt(t.counted)} positions (${t.counting})${cuts}${hits}.`;
  }

  renderTable(t) {
    const tbody = this.$("learn-table").querySelector("tbody");
    tbody.replaceChildren();
    for (const row of t.compare) {
      const tr = document.createElement("tr");
      if (row.algorithm === t.algorithm) tr.className = "current";
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = NAMES[row.algorithm] || row.algorithm;
      tr.append(head);
      const cells = [
        row.value_text,
        row.best_move === null ? "—" : cellName(this.geo, row.best_move),
        row.finished ? fmt(row.counted) : `over ${fmt(row.counted)}`,
        fmt(row.cutoffs),
        fmt(row.table_hits),
        `${row.elapsed_ms < 10 ? row.elapsed_ms.toFixed(1) : Math.round(row.elapsed_ms)} ms`,
      ];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      tr.dataset.algorithm = row.algorithm;
      tbody.append(tr);
    }
    this.$("learn-table-wrap").hidden = !t.compare.length;
  }

  // ------------------------------------------------------------ words

  mover(node) {
    return node.maximizing ? other(this.trace.to_move) : this.trace.to_move;
  }

  number(v) {
    if (v >= this.trace.infinity) return "+∞";
    if (v <= -this.trace.infinity) return "−∞";
    return String(v).replace("-", "−");
  }

  windowText(node) {
    return `(${this.number(node.alpha)}, ${this.number(node.beta)})`;
  }

  valueText(node) {
    const prefix = { exact: "", lower: "at least ", upper: "at most " }[node.bound];
    return `${prefix}${this.number(node.value)}`;
  }

  moveText(node) {
    if (node.move === null) return "the position on the board";
    return `the position after ${this.mover(node)} plays ${cellName(this.geo, node.move)}`;
  }

  whyText(node) {
    if (node.why === "horizon") return "the horizon: the heuristic estimates it";
    if (node.why === "table") return "found in the table: searched before";
    if (node.why === "draw") return "the board is full: a draw";
    if (node.why.endsWith("wins")) return `${node.why}: the game is over`;
    return "";
  }

  // ------------------------------------------------------------ plain words

  /** A value in words, for the side to move at the root: "a win for X, 3 moves from
   * the position on the board", "a draw", "a score of +4" (the depth limit's guess). */
  plainValue(v) {
    const me = this.trace.to_move;
    if (v >= this.trace.infinity) return "anything, however good for " + me;
    if (v <= -this.trace.infinity) return "anything, however bad for " + me;
    const plies = this.trace.win - Math.abs(v);
    const proven = v !== 0 && plies >= 1 && plies <= this.positionCells;
    if (this.trace.depth !== null && !proven) return `a score of ${this.number(v)} (the depth limit's guess)`;
    if (v === 0) return "a draw";
    const away = `${plies} move${plies === 1 ? "" : "s"} from the position on the board`;
    return v > 0 ? `a win for ${me}, ${away}` : `a loss for ${me} (${other(me)} wins), ${away}`;
  }

  /** What the window means, in words. */
  plainWindow(node) {
    const me = this.trace.to_move;
    const them = other(me);
    const low = node.alpha <= -this.trace.infinity
      ? `${me} has nothing sure yet (α = −∞)`
      : `${me} can already get ${this.plainValue(node.alpha)} with a move tried before (α = ${this.number(node.alpha)})`;
    const high = node.beta >= this.trace.infinity
      ? `${them} has nothing sure yet (β = +∞)`
      : `${them} can already hold ${me} to ${this.plainValue(node.beta)} with a move tried before (β = ${this.number(node.beta)})`;
    return `The window says what can still matter here: ${low}, and ${high}. ` +
      "A value outside the window cannot change what is played above, so the search may stop as soon as it sees one.";
  }

  /** The step in plain words: what the search looks at, what the window means, what a
   * value means and why a branch was cut. */
  plainText(node, kind) {
    const me = this.trace.to_move;
    if (kind === "enter") {
      const where = node.move === null
        ? `The search starts from the position on the board, ${me} to move, and tries every move in turn.`
        : `It looks at what happens if ${this.mover(node)} plays ${cellName(this.geo, node.move)}; ` +
          `then it is ${node.maximizing ? me : other(me)}'s turn.`;
      return `${where} ${this.plainWindow(node)}`;
    }
    const value = this.plainValue(node.value);
    if (node.why === "horizon") return `The search stops here, at its depth limit, and guesses from the lines on the board: ${value}.`;
    if (node.why === "draw") return "The board is full: the game is over, a draw (value 0). That is exact.";
    if (node.why.endsWith("wins")) return `The game is over here: ${node.why}. That is exact: ${value}.`;
    const table = node.why === "table" ? "This position was searched before, reached by other moves; its value comes from the table. " : "";
    if (node.cutoff) {
      const skipped = node.cutoff.skipped.map((m) => cellName(this.geo, m)).join(", ");
      const after = cellName(this.geo, node.cutoff.after);
      const why = node.maximizing
        ? `${me} found ${after}, worth at least ${this.plainValue(node.value)} here; but ${other(me)}, a move higher up, ` +
          `can already hold ${me} to less, so ${other(me)} will never let the game come here.`
        : `${other(me)} found ${after}, holding ${me} to at most ${this.plainValue(node.value)} here; but ${me}, a move higher up, ` +
          `already has something better, so ${me} will never let the game come here.`;
      return `${table}A cut: ${why} The other moves here (${skipped}) cannot change that, so they are never searched.`;
    }
    if (node.bound === "lower") return `${table}This position is worth at least ${value} to ${me}: more than ${other(me)} will allow, so only this bound is needed.`;
    if (node.bound === "upper") return `${table}This position is worth at most ${value} to ${me}: no better than what ${me} has elsewhere, so only this bound is needed.`;
    return `${table}This position is worth ${value} to ${me}, exactly: the best ${node.maximizing ? me : other(me)} can do here.`;
  }

  label(node) {
    const parts = [
      node.move === null ? "Root" : `${this.mover(node)} ${cellName(this.geo, node.move)}`,
      `value ${this.valueText(node)}`,
      `window ${this.windowText(node)}`,
    ];
    const why = this.whyText(node);
    if (why) parts.push(why);
    if (node.cutoff) parts.push(`cut-off after ${cellName(this.geo, node.cutoff.after)}`);
    if (this.pv.has(node.id)) parts.push("principal variation");
    return parts.join(", ");
  }

  // ------------------------------------------------------------ tree

  buildTree() {
    const tree = this.$("learn-tree");
    tree.replaceChildren();
    const root = this.item(this.nodes[0], 1, 1, 1);
    tree.append(root);
    root.tabIndex = 0;
    // the principal variation starts open
    let item = root;
    while (item && item.getAttribute("aria-expanded") === "false" && this.pv.has(Number(item.dataset.id))) {
      this.expand(item);
      item = [...item.querySelector(":scope > [role=group]").children].find(
        (li) => li.dataset.id && this.pv.has(Number(li.dataset.id)),
      );
    }
  }

  item(node, level, posinset, setsize) {
    const li = document.createElement("li");
    li.setAttribute("role", "treeitem");
    li.setAttribute("aria-level", String(level));
    li.setAttribute("aria-posinset", String(posinset));
    li.setAttribute("aria-setsize", String(setsize));
    li.setAttribute("aria-label", this.label(node));
    li.tabIndex = -1;
    li.dataset.id = String(node.id);
    const row = document.createElement("span");
    row.className = "row";
    if (this.pv.has(node.id)) li.classList.add("pv");
    const hasKids = this.children.has(node.id) || node.cutoff || this.hidden(node) > 0;
    const twisty = document.createElement("span");
    twisty.className = "twisty";
    twisty.setAttribute("aria-hidden", "true");
    twisty.textContent = hasKids ? "▸" : "·";
    const head = node.move === null ? "root" : `${this.mover(node)} ${cellName(this.geo, node.move)}`;
    row.append(twisty, this.span("mv", head), this.span("val", this.valueText(node)),
      this.span("win", this.windowText(node)));
    if (node.why !== "searched") row.append(this.span("why", node.why));
    if (node.cutoff) {
      row.append(this.span("cut", "cut"));
      row.title = `Cut-off after ${cellName(this.geo, node.cutoff.after)}: ${node.cutoff.reason}`;
    }
    li.append(row);
    if (hasKids) li.setAttribute("aria-expanded", "false");
    return li;
  }

  span(className, text) {
    const span = document.createElement("span");
    span.className = className;
    span.textContent = text;
    return span;
  }

  hidden(node) {
    const kids = this.children.get(node.id) || [];
    return node.subtree - 1 - kids.reduce((sum, kid) => sum + kid.subtree, 0);
  }

  expand(li) {
    if (li.getAttribute("aria-expanded") !== "false") return;
    li.setAttribute("aria-expanded", "true");
    li.querySelector(":scope > .row > .twisty").textContent = "▾";
    let group = li.querySelector(":scope > [role=group]");
    if (group) {
      group.hidden = false;
      return;
    }
    group = document.createElement("ul");
    group.setAttribute("role", "group");
    const node = this.nodes[Number(li.dataset.id)];
    const kids = this.children.get(node.id) || [];
    const level = Number(li.getAttribute("aria-level")) + 1;
    const extras = [];
    const hidden = this.hidden(node);
    if (hidden > 0) extras.push(this.moreItem(hidden));
    if (node.cutoff) for (const move of node.cutoff.skipped) extras.push(this.prunedItem(node, move));
    const size = kids.length + extras.length;
    kids.forEach((kid, i) => group.append(this.item(kid, level, i + 1, size)));
    extras.forEach((extra, i) => {
      extra.setAttribute("aria-level", String(level));
      extra.setAttribute("aria-posinset", String(kids.length + i + 1));
      extra.setAttribute("aria-setsize", String(size));
      group.append(extra);
    });
    li.append(group);
    this.markCurrent();
  }

  collapse(li) {
    if (li.getAttribute("aria-expanded") !== "true") return;
    li.setAttribute("aria-expanded", "false");
    li.querySelector(":scope > .row > .twisty").textContent = "▸";
    li.querySelector(":scope > [role=group]").hidden = true;
  }

  toggle(li) {
    if (li.getAttribute("aria-expanded") === "true") this.collapse(li);
    else this.expand(li);
  }

  prunedItem(node, move) {
    const li = document.createElement("li");
    li.setAttribute("role", "treeitem");
    li.tabIndex = -1;
    li.className = "pruned";
    const mover = node.maximizing ? this.trace.to_move : other(this.trace.to_move);
    const reason = node.cutoff.reason;
    li.title = `Never searched: ${reason}`;
    li.setAttribute("aria-label", `${mover} ${cellName(this.geo, move)}, pruned: ${reason}`);
    li.dataset.pruned = `${mover} ${cellName(this.geo, move)}: never searched, ${reason}`;
    const row = document.createElement("span");
    row.className = "row";
    row.append(this.span("twisty", "✂"), this.span("mv", `${mover} ${cellName(this.geo, move)}`), this.span("why", "pruned"));
    row.firstChild.setAttribute("aria-hidden", "true");
    li.append(row);
    return li;
  }

  moreItem(count) {
    const li = document.createElement("li");
    li.setAttribute("role", "treeitem");
    li.tabIndex = -1;
    li.className = "more";
    const text = `${fmt(count)} more positions searched below, counted but not drawn`;
    li.setAttribute("aria-label", text);
    li.dataset.more = text;
    li.append(this.span("row", `+ ${text}`));
    return li;
  }

  /** Scroll the tree's own box to show `row`: the page itself stays where it is. */
  keepInTree(row) {
    const tree = this.$("learn-tree");
    const [r, t] = [row.getBoundingClientRect(), tree.getBoundingClientRect()];
    if (r.top < t.top) tree.scrollTop -= t.top - r.top;
    else if (r.bottom > t.bottom) tree.scrollTop += r.bottom - t.bottom;
    if (r.left < t.left) tree.scrollLeft -= t.left - r.left;
  }

  visibleItems() {
    return [...this.$("learn-tree").querySelectorAll("[role=treeitem]")].filter(
      (li) => !li.closest("[role=group][hidden]"),
    );
  }

  focusItem(li) {
    for (const other of this.$("learn-tree").querySelectorAll("[role=treeitem][tabindex='0']")) other.tabIndex = -1;
    li.tabIndex = 0;
    li.focus({ preventScroll: true });
    this.keepInTree(li.querySelector(".row") ?? li);
    if (li.dataset.id !== undefined) {
      this.pause();
      this.go(this.nodes[Number(li.dataset.id)].enter, false);
    } else {
      this.$("learn-cut").hidden = false;
      this.$("learn-cut").textContent = li.dataset.pruned || li.dataset.more || "";
    }
  }

  treeKey(event) {
    const li = event.target.closest("[role=treeitem]");
    if (!li) return;
    const items = this.visibleItems();
    const index = items.indexOf(li);
    const expandable = li.hasAttribute("aria-expanded");
    const open = li.getAttribute("aria-expanded") === "true";
    let target = null;
    switch (event.key) {
      case "ArrowDown":
        target = items[index + 1];
        break;
      case "ArrowUp":
        target = items[index - 1];
        break;
      case "Home":
        target = items[0];
        break;
      case "End":
        target = items[items.length - 1];
        break;
      case "ArrowRight":
        if (expandable && !open) this.expand(li);
        else if (open) target = li.querySelector(":scope > [role=group] > [role=treeitem]");
        break;
      case "ArrowLeft":
        if (open) this.collapse(li);
        else target = li.parentElement.closest("[role=treeitem]");
        break;
      case "Enter":
      case " ":
        if (expandable) this.toggle(li);
        break;
      default:
        return;
    }
    event.preventDefault();
    if (target) this.focusItem(target);
  }

  itemFor(id) {
    return this.$("learn-tree").querySelector(`[role=treeitem][data-id="${id}"]`);
  }

  /** Open the tree down to node `id` and return its item. */
  reveal(id) {
    const path = [];
    for (let node = this.nodes[id]; node; node = node.parent === null ? null : this.nodes[node.parent]) {
      path.unshift(node.id);
    }
    let item = null;
    for (const step of path) {
      item = this.itemFor(step);
      if (!item) return null;
      if (step !== id) this.expand(item);
    }
    return item;
  }

  markCurrent() {
    if (!this.trace) return;
    const event = this.events[this.step];
    for (const old of this.$("learn-tree").querySelectorAll(".current")) {
      old.classList.remove("current");
      old.removeAttribute("aria-current");
    }
    const item = event && this.itemFor(event.node.id);
    if (item) {
      item.classList.add("current");
      item.setAttribute("aria-current", "step");
    }
  }

  // ------------------------------------------------------------ playback

  go(step, reveal = true) {
    if (!this.trace) return;
    const last = this.events.length - 1;
    this.step = Math.max(0, Math.min(last, step));
    const { node, kind } = this.events[this.step];
    if (reveal) {
      const item = this.reveal(node.id);
      if (item) this.keepInTree(item.querySelector(".row"));
    }
    this.markCurrent();
    this.$("learn-step-text").textContent = `Step ${this.step + 1} of ${last + 1}`;
    this.$("learn-back").disabled = this.$("learn-start").disabled = this.step === 0;
    this.$("learn-step").disabled = this.step === last;
    if (this.step === last) this.pause();
    this.drawBoard(node);
    this.drawWindow(node, kind === "exit");
    const side = node.maximizing ? `${this.trace.to_move} to move, maximizing` : `${other(this.trace.to_move)} to move, minimizing`;
    const text = kind === "enter"
      ? `Enters ${this.moveText(node)} (depth ${node.depth}; ${side}) with the window ${this.windowText(node)}.`
      : `Leaves ${this.moveText(node)} with the value ${this.valueText(node)}` +
        (this.whyText(node) ? `: ${this.whyText(node)}.` : ".");
    this.$("learn-event").textContent = text;
    const plain = this.$("learn-plain");
    plain.hidden = !this.$("learn-plain-words").checked;
    plain.textContent = plain.hidden ? "" : this.plainText(node, kind);
    const cut = this.$("learn-cut");
    if (kind === "exit" && node.cutoff) {
      const skipped = node.cutoff.skipped.map((m) => cellName(this.geo, m)).join("; ");
      cut.textContent = `Cut-off after ${cellName(this.geo, node.cutoff.after)}: ${node.cutoff.reason}. Never searched: ${skipped}.`;
      cut.hidden = false;
    } else {
      cut.hidden = true;
    }
  }

  play() {
    if (!this.trace) return;
    if (this.step >= this.events.length - 1) this.go(0);
    const button = this.$("learn-play");
    button.textContent = "Pause";
    button.setAttribute("aria-pressed", "true");
    this.timer = setInterval(() => this.go(this.step + 1), 1000 / this.speed);
  }

  pause() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const button = this.$("learn-play");
    button.textContent = "Play";
    button.setAttribute("aria-pressed", "false");
  }

  speedChanged() {
    const input = this.$("learn-speed");
    this.speed = Number(input.value) || 4;
    input.setAttribute("aria-valuetext", `${this.speed} steps a second`);
    if (this.timer) {
      this.pause();
      this.play();
    }
  }

  // ------------------------------------------------------------ pictures

  drawBoard(node) {
    const box = this.$("learn-mini");
    const cells = parseBoard(this.geo, node.board);
    const cols = this.geo.shape[this.geo.dims - 1];
    box.style.setProperty("--cols", String(cols));
    box.replaceChildren();
    cells.forEach((mark, cell) => {
      const span = document.createElement("span");
      span.className = `mini-cell${mark ? ` mark-${mark.toLowerCase()}` : ""}${cell === node.move ? " last" : ""}`;
      span.textContent = mark || "";
      box.append(span);
    });
    const list = (mark) => cells.flatMap((m, c) => (m === mark ? [cellName(this.geo, c)] : [])).join("; ") || "none";
    box.setAttribute("aria-label", `Board: X at ${list("X")}. O at ${list("O")}.`);
  }

  /** The α and β labels side by side, never over each other, inside the picture: each
   * centred on its edge where there is room, else pushed apart round their middle. */
  keepLabelsApart(svg) {
    const [a, b] = svg.querySelectorAll(".edge");
    const [wa, wb] = [a.getComputedTextLength(), b.getComputedTextLength()];
    if (!wa || !wb) return; // not drawn yet (the view is hidden)
    const [width, room] = [320, 6];
    const [ca, cb] = [Number(a.getAttribute("x")), Number(b.getAttribute("x"))];
    let left = Math.min(Math.max(0, ca - wa / 2), width - wa);
    let right = Math.min(Math.max(0, cb - wb / 2), width - wb);
    if (left + wa + room > right) {
      left = (ca + cb) / 2 - (wa + room + wb) / 2;
      left = Math.min(Math.max(0, left), width - (wa + room + wb));
      right = left + wa + room;
    }
    for (const [label, x] of [[a, left], [b, right]]) {
      label.setAttribute("x", String(Math.round(x * 10) / 10));
      label.setAttribute("text-anchor", "start");
    }
  }

  drawWindow(node, returned) {
    const svg = this.$("learn-window");
    const inf = this.trace.infinity;
    // a signed log scale: draws the near-zero heuristic values and the wins alike
    const squash = (v) => Math.sign(v) * Math.log1p(Math.min(Math.abs(v), inf)) / Math.log1p(inf);
    const x = (v) => 160 + 140 * squash(v);
    const parts = [
      `<line x1="20" y1="28" x2="300" y2="28" class="axis"/>`,
      `<rect x="${x(node.alpha)}" y="20" width="${Math.max(1, x(node.beta) - x(node.alpha))}" height="16" class="window"/>`,
      `<text x="20" y="52" class="tick">loss</text><text x="160" y="52" class="tick" text-anchor="middle">draw 0</text>`,
      `<text x="300" y="52" class="tick" text-anchor="end">win</text>`,
      `<text x="${x(node.alpha)}" y="14" class="edge" text-anchor="middle">α ${this.number(node.alpha)}</text>`,
      `<text x="${x(node.beta)}" y="14" class="edge" text-anchor="middle">β ${this.number(node.beta)}</text>`,
    ];
    if (returned) parts.push(`<circle cx="${x(node.value)}" cy="28" r="6" class="value"/>`);
    svg.innerHTML = parts.join("");
    this.keepLabelsApart(svg);
    const value = returned ? `; returned ${this.valueText(node)}` : "";
    svg.setAttribute("aria-label", `Window from ${this.number(node.alpha)} to ${this.number(node.beta)}${value}`);
  }
}
