// The board view: one <button> per cell, 2-D grids or Qubic's four layers.
//
// Qubic is drawn as a cube (the four layers stacked in perspective with CSS 3-D
// transforms, turned by dragging or Shift+arrow keys) or as flat layers side by side:
// the same buttons in the same order either way, only the style differs, so keyboard
// and screen-reader play are the same in both views.
//
// Keyboard: arrow keys move between cells (left/right cross into the neighbouring layer
// on 3-D boards), PageUp/PageDown change layer, Home/End jump along a row, Enter or
// Space plays, Shift+arrows turn the cube. Only one cell is in the tab order at a time
// (a roving tabindex).
//
// No layer of the cube ever hides a cell of another: as the cube turns, the layers
// spread apart along its axis just enough that their pictures on the screen do not
// overlap, and the cube shrinks to keep within its box (#layoutCube). In a wide, low box
// (a desktop's card) the cube lies on its side, layer 1 at the left, so that it fills the
// width. The layer captions are drawn flat beside (or above) each layer's picture. On a
// narrow screen a cell is too small a target for a finger, so a tap on the cube zooms
// into that layer, drawn flat with large cells; a tap there plays, and the cube comes
// back.

import { cellName } from "./geometry.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** The cube's starting angles (degrees): tilt from looking straight down, spin about
 * the vertical axis; and how far one drag pixel or one Shift+arrow press turns it. */
export const CUBE_START = { tilt: 62, spin: -12 };
export const TILT_RANGE = [45, 80];
const DRAG_DEGREES_PER_PX = 0.4;
const KEY_DEGREES = 10;
const MAX_CUBE_PX = 360; // the cube's side, at most
const NARROW_PX = 560; // a board narrower than this zooms into a layer to play it
const CAPTION_ROOM_PX = 84; // room beside a layer's picture for its caption
const CAPTION_HEIGHT_PX = 30; // room above the layers' pictures for their captions (lying)

/**
 * How far apart the layers must stand along the cube's axis (`gap`), in units of the
 * cube's side, at `tilt` and `spin` degrees: a layer's picture is about `proj` high on
 * the screen, so layers `pitch` apart on the screen do not overlap (a margin for the
 * perspective's magnification of the nearer layers included); `height` is the whole
 * picture's, roughly (board.js measures the real one).
 */
export function cubeLayout(tilt, spin, layers = 4) {
  const t = (tilt * Math.PI) / 180;
  const s = (spin * Math.PI) / 180;
  const across = Math.abs(Math.cos(s)) + Math.abs(Math.sin(s)); // a turned square's width
  const proj = across * Math.cos(t);
  const pitch = proj * 1.15 + 0.07;
  return { gap: pitch / Math.sin(t), pitch, height: (layers - 1) * pitch + proj };
}

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

/** Write a heat-map label into its cell as words (`win`, `≤57`): a small cell stands
 * them on two lines (style.css), and the text stays "win ≤57". */
function showLabel(el, text) {
  if (el.textContent === text) return;
  el.replaceChildren();
  text.split(" ").forEach((word, i) => {
    if (i) el.append(" ");
    const span = document.createElement("span");
    span.textContent = word;
    el.append(span);
  });
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
    this.view = "cube";
    this.angles = { ...CUBE_START };
    this.zoom = null; // the layer zoomed into on a narrow screen, or null
    this.onInfo = null; // called with a cell (or null) as a pointer or focus rests on it
    root.addEventListener("keydown", (event) => this.#onKey(event));
    // the board's box changes with the window and with the layout around it (the Learn
    // view opening beside it): the cube is fitted again, the winning stroke redrawn
    new ResizeObserver(() => {
      this.#layoutCube();
      this.#drawStrike(false);
    }).observe(root);
    this.#wireDrag();
  }

  /** Draw Qubic as "cube" (3-D) or "flat" (layers side by side); 2-D boards ignore it. */
  setView(view) {
    this.view = view === "flat" ? "flat" : "cube";
    this.root.classList.toggle("cube", this.geo?.dims === 3 && this.view === "cube");
    if (this.view !== "cube") this.zoomTo(null);
    this.#layoutCube();
    this.#drawStrike(false);
  }

  /** Turn the cube to `tilt` and `spin` degrees (the tilt is kept within its range). */
  turn(tilt, spin) {
    this.angles = { tilt: Math.max(TILT_RANGE[0], Math.min(TILT_RANGE[1], tilt)), spin: ((spin % 360) + 360) % 360 };
    this.root.style.setProperty("--tilt", `${this.angles.tilt}deg`);
    this.root.style.setProperty("--spin", `${this.angles.spin}deg`);
    this.root.dataset.tilt = String(Math.round(this.angles.tilt));
    this.root.dataset.spin = String(Math.round(this.angles.spin));
    this.#layoutCube();
    this.#drawStrike(false);
  }

  /** Back to the starting angles, out of any zoomed layer. */
  resetView() {
    this.zoomTo(null);
    this.turn(CUBE_START.tilt, CUBE_START.spin);
  }

  /** Zoom into `layer` (0-based; a narrow screen plays there) or back to the cube (null). */
  zoomTo(layer) {
    const zoom = layer === null || !this.#isCube() ? null : layer;
    this.zoom = zoom;
    this.root.classList.toggle("zoomed", zoom !== null);
    this.root.querySelectorAll(".layer").forEach((el, i) => el.classList.toggle("zoom", i === zoom));
    const bar = this.root.querySelector(".zoom-bar");
    if (bar) {
      bar.hidden = zoom === null;
      if (zoom !== null) {
        bar.querySelector(".zoom-name").textContent = `Layer ${zoom + 1} of ${this.geo.shape[0]}`;
        bar.querySelector(".zoom-down").disabled = zoom === 0;
        bar.querySelector(".zoom-up").disabled = zoom === this.geo.shape[0] - 1;
      }
    }
    this.#layoutCube();
    this.#drawStrike(false);
  }

  #narrow() {
    return this.root.clientWidth > 0 && this.root.clientWidth < NARROW_PX;
  }

  /** Spread the layers for the angles, fit the cube in its box, place the captions.
   * The layers' picture is a tall column; in a wide, low box (a desktop's card) the cube
   * is drawn lying on its side (rolled 90 degrees on the screen, layer 1 at the left),
   * where it can be nearly twice as large, its captions above the layers. */
  #layoutCube() {
    const scene = this.root.querySelector(".scene");
    if (!scene || !this.#isCube() || this.zoom !== null) return;
    const layers = this.geo.shape[0];
    const { gap } = cubeLayout(this.angles.tilt, this.angles.spin, layers);
    const box = scene.getBoundingClientRect();
    if (!box.width || !box.height) return;
    const grids = [...this.root.querySelectorAll(".layer .grid")];
    const style = this.root.style;
    style.setProperty("--gap-z", String(gap));
    // draw standing at a trial size and measure the picture; a roll about the scene's
    // centre (the perspective's origin) turns that picture without changing it
    const trial = MAX_CUBE_PX;
    const place = (size, roll, dx, dy) => {
      style.setProperty("--size", `${size}px`);
      style.setProperty("--roll", `${roll}deg`);
      style.setProperty("--unroll", `${-roll}deg`); // each layer's rows as in the flat view
      style.setProperty("--shift-x", `${Math.round(dx)}px`);
      style.setProperty("--shift", `${Math.round(dy)}px`);
    };
    place(trial, 0, 0, 0);
    const picture = () => {
      const rects = grids.map((grid) => grid.getBoundingClientRect());
      const [left, right] = [Math.min(...rects.map((r) => r.left)), Math.max(...rects.map((r) => r.right))];
      const [top, bottom] = [Math.min(...rects.map((r) => r.top)), Math.max(...rects.map((r) => r.bottom))];
      return { rects, left, right, top, bottom, widest: Math.max(...rects.map((r) => r.width)) };
    };
    const standing = picture();
    const [wide, high] = [standing.right - standing.left, standing.bottom - standing.top];
    const standFit = Math.min((box.height - 12) / high, (box.width - 2 * CAPTION_ROOM_PX) / standing.widest);
    const lieFit = Math.min((box.height - 12 - CAPTION_HEIGHT_PX) / wide, (box.width - 12) / high);
    const lying = lieFit > standFit * 1.15;
    const size = Math.max(40, Math.floor(trial * Math.min(MAX_CUBE_PX / trial, lying ? lieFit : standFit)));
    // centre the picture (below its captions when lying), then correct what the
    // perspective makes of the shift
    const roll = lying ? 90 : 0;
    const [cx, cy] = [box.left + box.width / 2, box.top + box.height / 2 + (lying ? CAPTION_HEIGHT_PX / 2 : 0)];
    let [dx, dy] = [0, 0];
    for (let pass = 0; pass < 2; pass++) {
      place(size, roll, dx, dy);
      const now = picture();
      dx += cx - (now.left + now.right) / 2;
      dy += cy - (now.top + now.bottom) / 2;
    }
    place(size, roll, dx, dy);
    this.root.classList.toggle("lying", lying);
    // the captions: flat; beside each layer's picture standing, above it lying
    const captions = scene.querySelectorAll(".cube-caption");
    const drawn = picture();
    grids.forEach((grid, i) => {
      const caption = captions[i];
      if (!caption) return;
      const r = drawn.rects[i];
      const w = caption.offsetWidth;
      const h = caption.offsetHeight;
      let left;
      let top;
      if (lying) {
        left = r.left + r.width / 2 - w / 2 - box.left;
        top = drawn.top - box.top - h - 8;
      } else {
        left = r.left - box.left - w - 12;
        if (left < 0) left = r.right - box.left + 12;
        top = r.top - box.top + r.height / 2 - h / 2;
      }
      caption.style.left = `${Math.round(left)}px`;
      caption.style.top = `${Math.round(top)}px`;
    });
  }

  #isCube() {
    return this.geo?.dims === 3 && this.view === "cube";
  }

  /** Dragging the cube (anywhere but on a cell) turns it. */
  #wireDrag() {
    let from = null;
    this.root.addEventListener("pointerdown", (event) => {
      if (!this.#isCube() || event.target.closest(".cell")) return;
      from = { x: event.clientX, y: event.clientY, ...this.angles };
      this.root.setPointerCapture(event.pointerId);
      this.root.classList.add("turning");
      event.preventDefault();
    });
    this.root.addEventListener("pointermove", (event) => {
      if (!from) return;
      let [dx, dy] = [event.clientX - from.x, event.clientY - from.y];
      if (this.root.classList.contains("lying")) [dx, dy] = [-dy, dx]; // the picture's own axes
      this.turn(from.tilt - dy * DRAG_DEGREES_PER_PX, from.spin - dx * DRAG_DEGREES_PER_PX);
    });
    const stop = () => {
      from = null;
      this.root.classList.remove("turning");
    };
    this.root.addEventListener("pointerup", stop);
    this.root.addEventListener("pointercancel", stop);
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
    let parent = this.root;
    if (is3d) {
      // scene (perspective) > cube (turned) > layers (stacked); flat: plain wrappers
      const scene = document.createElement("div");
      scene.className = "scene";
      const cube = document.createElement("div");
      cube.className = "solid";
      scene.append(cube);
      for (let layer = 0; layer < layers; layer++) {
        const caption = document.createElement("div");
        caption.className = "cube-caption";
        caption.textContent = `Layer ${layer + 1}`;
        caption.setAttribute("aria-hidden", "true");
        scene.append(caption);
      }
      this.root.append(this.#zoomBar(), scene);
      parent = cube;
    }
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
      layerEl.style.setProperty("--layer", String(layer));
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
        button.addEventListener("click", (event) => {
          this.#focus(cell, false);
          // a tap (not Enter or Space: detail 0) on the cube on a narrow screen zooms in
          if (is3d && this.#isCube() && this.zoom === null && event.detail !== 0 && this.#narrow()) {
            this.zoomTo(layer);
            return;
          }
          this.onPlay(cell);
          if (this.zoom !== null && this.marks[cell]) this.zoomTo(null); // played: the cube again
        });
        button.addEventListener("focus", () => {
          this.#setRoving(cell);
          if (this.zoom !== null && this.zoom !== layer) this.zoomTo(layer); // keys cross layers
        });
        // the lines through a cell, for a mouse over it or keyboard focus on it (a
        // finger's tap would leave them on: touch screens have no "leave")
        button.addEventListener("pointerenter", (event) => {
          if (event.pointerType === "mouse") this.#showLines(cell);
        });
        button.addEventListener("pointerleave", () => this.#showLines(null));
        button.addEventListener("focus", () => {
          if (button.matches(":focus-visible")) this.#showLines(cell);
        });
        button.addEventListener("blur", () => this.#showLines(null));
        grid.append(button);
        this.buttons.push(button);
      }
      layerEl.append(grid);
      parent.append(layerEl);
    }
    if (is3d) {
      this.zoom = null;
      this.setView(this.view);
      this.turn(this.angles.tilt, this.angles.spin);
    }
    this.update({ board: this.marks });
  }

  /** The bar above a zoomed layer: the layers below and above, and back to the cube. */
  #zoomBar() {
    const bar = document.createElement("div");
    bar.className = "zoom-bar";
    bar.hidden = true;
    bar.innerHTML = `<button type="button" class="btn small zoom-down" aria-label="The layer below">‹</button>` +
      `<span class="zoom-name" aria-live="polite"></span>` +
      `<button type="button" class="btn small zoom-up" aria-label="The layer above">›</button>` +
      `<button type="button" class="btn small zoom-back">Back to the cube</button>`;
    bar.querySelector(".zoom-down").addEventListener("click", () => this.zoomTo(Math.max(0, this.zoom - 1)));
    bar.querySelector(".zoom-up").addEventListener("click", () => this.zoomTo(Math.min(this.geo.shape[0] - 1, this.zoom + 1)));
    bar.querySelector(".zoom-back").addEventListener("click", () => this.zoomTo(null));
    return bar;
  }

  /**
   * Show a state: board (array of "X" | "O" | null), lastMove, winLine (cells),
   * heat (Map cell -> {text, label, tone, strength, number}), best (Set of cells),
   * hint (the cell a hint singles out, or null: the other best cells are as good),
   * playable (whether empty cells can be played now), numbers (show heat as raw numbers).
   */
  update({ board, lastMove = null, winLine = null, heat = null, best = null, hint = null, playable = false, numbers = false }) {
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
      showLabel(heatEl, info ? (numbers ? info.number : info.text) : "");
      button.dataset.tone = info ? info.tone : "";
      button.style.setProperty("--strength", info ? String(info.strength ?? 1) : "0");
      button.classList.toggle("has-heat", Boolean(info));
      const isBest = Boolean(!mark && best && best.has(cell));
      button.classList.toggle("best", isBest);
      button.classList.toggle("hinted", !mark && cell === hint);
      button.classList.toggle("last", cell === lastMove);
      button.classList.toggle("win", winSet.has(cell));
      button.classList.toggle("taken", Boolean(mark));
      button.classList.toggle("playable", playable && !mark);
      button.setAttribute("aria-disabled", playable && !mark ? "false" : "true");
      let name = `${cellName(this.geo, cell)}, ${mark || "empty"}`;
      if (cell === lastMove) name += ", last move";
      if (winSet.has(cell)) name += ", winning line";
      if (info) name += `, ${info.label}${numbers && info.number !== info.text ? `, ${info.number}` : ""}`;
      if (!mark && cell === hint) name += ", the hint";
      else if (isBest && hint !== null) name += ", as good as the hint";
      button.setAttribute("aria-label", name);
    });
    const changed = String(winLine) !== String(this.winLine);
    this.winLine = winLine;
    if (changed) this.#drawStrike(true);
  }

  /** A stroke through the winning line from end cell to end cell: over the grid of a
   * 2-D board, through the cube (as it is turned now) in 3-D. */
  #drawStrike(animate) {
    this.root.querySelector(".strike")?.remove();
    const line = this.winLine;
    if (!line || !this.geo || (this.geo.dims !== 2 && !this.#isCube())) return;
    const layer = this.root.querySelector(this.#isCube() ? ".scene" : ".layer");
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
    if (this.onInfo) this.onInfo(cell);
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
      case "ArrowRight":
      case "ArrowUp":
      case "ArrowDown":
        if (event.shiftKey && this.#isCube()) {
          const [dTilt, dSpin] = { ArrowLeft: [0, KEY_DEGREES], ArrowRight: [0, -KEY_DEGREES], ArrowUp: [KEY_DEGREES, 0], ArrowDown: [-KEY_DEGREES, 0] }[event.key];
          this.turn(this.angles.tilt + dTilt, this.angles.spin + dSpin);
          event.preventDefault();
          return;
        }
        break;
      default:
        break;
    }
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
