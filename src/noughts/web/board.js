// The board view: one <button> per cell, 2-D grids or Qubic's four layers side by side.
//
// Keyboard: arrow keys move between cells (left/right cross into the neighbouring layer
// on 3-D boards), PageUp/PageDown change layer, Home/End jump along a row, Enter or
// Space plays. Only one cell is in the tab order at a time (a roving tabindex).

import { cellName } from "./geometry.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function markSvg(mark) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.classList.add("mark", mark === "X" ? "mark-x" : "mark-o");
  if (mark === "X") {
    for (const [x1, y1, x2, y2] of [[24, 24, 76, 76], [76, 24, 24, 76]]) {
      const line = document.createElementNS(SVG_NS, "line");
      line.setAttribute("x1", x1);
      line.setAttribute("y1", y1);
      line.setAttribute("x2", x2);
      line.setAttribute("y2", y2);
      line.setAttribute("pathLength", "1");
      svg.append(line);
    }
  } else {
    const circle = document.createElementNS(SVG_NS, "circle");
    circle.setAttribute("cx", "50");
    circle.setAttribute("cy", "50");
    circle.setAttribute("r", "27");
    circle.setAttribute("pathLength", "1");
    svg.append(circle);
  }
  return svg;
}

export class BoardView {
  /**
   * @param {HTMLElement} root the element to draw into
   * @param {(cell: number) => void} onPlay called when a player activates a cell
   */
  constructor(root, onPlay) {
    this.root = root;
    this.onPlay = onPlay;
    this.geo = null;
    this.buttons = [];
    this.marks = [];
    this.focused = 0;
    this.winLine = null;
    root.addEventListener("keydown", (event) => this.#onKey(event));
    window.addEventListener("resize", () => this.#drawStrike(false));
  }

  /** Build the cells for a geometry (clears everything). */
  setGeometry(geo) {
    this.geo = geo;
    this.root.replaceChildren();
    this.winLine = null;
    this.buttons = [];
    this.marks = new Array(geo.cells).fill(null);
    this.focused = 0;
    const is3d = geo.dims === 3;
    const [layers, rows, cols] = is3d ? geo.shape : [1, ...geo.shape];
    this.root.className = `board ${is3d ? "board-3d" : "board-2d"}`;
    this.root.style.setProperty("--cols", cols);
    this.root.style.setProperty("--rows", rows);
    this.root.dataset.variant = geo.name;
    this.root.setAttribute(
      "aria-label",
      is3d ? `Board: ${layers} layers of ${rows} by ${cols}` : `Board: ${rows} by ${cols}`,
    );
    for (let layer = 0; layer < layers; layer++) {
      const layerEl = document.createElement("div");
      layerEl.className = "layer";
      if (is3d) {
        const caption = document.createElement("div");
        caption.className = "layer-caption";
        caption.textContent = `Layer ${layer + 1}`;
        caption.setAttribute("aria-hidden", "true");
        layerEl.append(caption);
      }
      const grid = document.createElement("div");
      grid.className = "grid";
      grid.setAttribute("role", "group");
      grid.setAttribute("aria-label", is3d ? `Layer ${layer + 1}` : "Cells");
      for (let i = 0; i < rows * cols; i++) {
        const cell = layer * rows * cols + i;
        const button = document.createElement("button");
        button.type = "button";
        button.className = "cell";
        button.dataset.cell = String(cell);
        button.tabIndex = cell === 0 ? 0 : -1;
        const heat = document.createElement("span");
        heat.className = "heat";
        heat.setAttribute("aria-hidden", "true");
        button.append(heat);
        button.addEventListener("click", () => {
          this.#focus(cell, false);
          this.onPlay(cell);
        });
        button.addEventListener("focus", () => this.#setRoving(cell));
        if (is3d) {
          button.addEventListener("pointerenter", () => this.#showLines(cell));
          button.addEventListener("pointerleave", () => this.#showLines(null));
          button.addEventListener("focus", () => this.#showLines(cell));
          button.addEventListener("blur", () => this.#showLines(null));
        }
        grid.append(button);
        this.buttons.push(button);
      }
      layerEl.append(grid);
      this.root.append(layerEl);
    }
    this.update({ board: this.marks });
  }

  /**
   * Show a state: board (array of "X" | "O" | null), lastMove, winLine (cells),
   * heat (Map cell -> {text, label, tone, strength}), best (Set of cells),
   * playable (whether empty cells can be played now).
   */
  update({ board, lastMove = null, winLine = null, heat = null, best = null, playable = false }) {
    const winSet = new Set(winLine || []);
    this.root.classList.toggle("finished", Boolean(winLine));
    this.root.dataset.winner = winLine ? board[winLine[0]] : "";
    this.buttons.forEach((button, cell) => {
      const mark = board[cell] || null;
      if (this.marks[cell] !== mark) {
        button.querySelector("svg")?.remove();
        if (mark) button.prepend(markSvg(mark));
        this.marks[cell] = mark;
      }
      const info = !mark && heat ? heat.get(cell) : null;
      const heatEl = button.querySelector(".heat");
      heatEl.textContent = info ? info.text : "";
      button.dataset.tone = info ? info.tone : "";
      button.style.setProperty("--strength", info ? String(info.strength ?? 1) : "0");
      button.classList.toggle("has-heat", Boolean(info));
      button.classList.toggle("best", Boolean(info && best && best.has(cell)));
      button.classList.toggle("last", cell === lastMove);
      button.classList.toggle("win", winSet.has(cell));
      button.classList.toggle("taken", Boolean(mark));
      button.classList.toggle("playable", playable && !mark);
      button.setAttribute("aria-disabled", playable && !mark ? "false" : "true");
      let name = `${cellName(this.geo, cell)}, ${mark || "empty"}`;
      if (cell === lastMove) name += ", last move";
      if (winSet.has(cell)) name += ", winning line";
      if (info) name += `, ${info.label}`;
      button.setAttribute("aria-label", name);
    });
    const changed = String(winLine) !== String(this.winLine);
    this.winLine = winLine;
    if (changed) this.#drawStrike(true);
  }

  /** A stroke through the winning line of a 2-D board, from end cell to end cell. */
  #drawStrike(animate) {
    this.root.querySelector(".strike")?.remove();
    const line = this.winLine;
    if (!line || this.geo.dims !== 2) return;
    const layer = this.root.querySelector(".layer");
    const box = layer.getBoundingClientRect();
    const centre = (cell) => {
      const r = this.buttons[cell].getBoundingClientRect();
      return [r.left + r.width / 2 - box.left, r.top + r.height / 2 - box.top];
    };
    const [x1, y1] = centre(line[0]);
    const [x2, y2] = centre(line[line.length - 1]);
    // reach a little past the centres of the end cells
    const reach = this.buttons[line[0]].getBoundingClientRect().width * 0.32;
    const length = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [dx, dy] = [((x2 - x1) / length) * reach, ((y2 - y1) / length) * reach];
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.classList.add("strike");
    if (!animate) svg.classList.add("still");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
    const stroke = document.createElementNS(SVG_NS, "line");
    stroke.setAttribute("x1", String(x1 - dx));
    stroke.setAttribute("y1", String(y1 - dy));
    stroke.setAttribute("x2", String(x2 + dx));
    stroke.setAttribute("y2", String(y2 + dy));
    stroke.setAttribute("pathLength", "1");
    svg.append(stroke);
    layer.append(svg);
  }

  /** Move keyboard focus to a cell. */
  focusCell(cell) {
    this.#focus(cell, true);
  }

  #setRoving(cell) {
    if (this.buttons[this.focused]) this.buttons[this.focused].tabIndex = -1;
    this.focused = cell;
    this.buttons[cell].tabIndex = 0;
  }

  #focus(cell, move) {
    this.#setRoving(cell);
    if (move) this.buttons[cell].focus();
  }

  #showLines(cell) {
    for (const button of this.buttons) button.classList.remove("on-line", "hovered");
    this.root.classList.toggle("tracing", cell !== null);
    if (cell === null) return;
    this.buttons[cell].classList.add("hovered");
    for (const line of this.geo.linesThrough[cell]) {
      for (const c of line) if (c !== cell) this.buttons[c].classList.add("on-line");
    }
  }

  #onKey(event) {
    const target = event.target.closest?.(".cell");
    if (!target || !this.geo) return;
    const geo = this.geo;
    const is3d = geo.dims === 3;
    const [layers, rows, cols] = is3d ? geo.shape : [1, ...geo.shape];
    const cell = Number(target.dataset.cell);
    let [layer, row, col] = is3d ? geo.coords(cell) : [0, ...geo.coords(cell)];
    switch (event.key) {
      case "ArrowLeft":
        if (col > 0) col -= 1;
        else if (layer > 0) [layer, col] = [layer - 1, cols - 1];
        break;
      case "ArrowRight":
        if (col < cols - 1) col += 1;
        else if (layer < layers - 1) [layer, col] = [layer + 1, 0];
        break;
      case "ArrowUp":
        row = Math.max(0, row - 1);
        break;
      case "ArrowDown":
        row = Math.min(rows - 1, row + 1);
        break;
      case "PageUp":
        layer = Math.max(0, layer - 1);
        break;
      case "PageDown":
        layer = Math.min(layers - 1, layer + 1);
        break;
      case "Home":
        col = 0;
        break;
      case "End":
        col = cols - 1;
        break;
      default:
        return;
    }
    event.preventDefault();
    this.#focus(layer * rows * cols + row * cols + col, true);
  }
}
