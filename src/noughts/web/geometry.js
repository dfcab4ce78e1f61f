// Board geometry for the page: cells, coordinates, winning lines and board strings.
//
// The shape, k and winning lines come from the engine (GET /api/v1/variants, see
// geometryFrom). Cells are numbered row-major from 0, as in noughts.geometry; in 3-D
// cell = layer*n*n + row*n + col. A board string lists cells with X, O and "."
// with "/" between rows and "|" between layers, as the API expects.
//
//   3x3:  0 1 2      4x4x4, layer 0:  0  1  2  3   layer 1: 16 17 18 19 ...
//         3 4 5                       4  5  6  7
//         6 7 8                       ...

/** How the page labels the variants it features (which ones: the catalogue's `featured`). */
export const VARIANTS = [
  { name: "3x3", label: "3×3", detail: "classic, 3 in a row", short: "3×3" },
  { name: "4x4k3", label: "4×4", detail: "3 in a row", short: "4×4, 3 in a row" },
  { name: "4x4", label: "4×4", detail: "4 in a row", short: "4×4" },
  { name: "4x4x4", label: "Qubic", detail: "4×4×4, 4 in a row", short: "Qubic" },
];

/**
 * A variant from the engine's catalogue (an entry of GET /api/v1/variants): its shape,
 * k and winning lines come from the server, so the page never works them out itself.
 */
export function geometryFrom(info, misere = false) {
  const shape = info.shape.map(Number);
  const dims = shape.length;
  const cells = shape.reduce((a, b) => a * b, 1);
  const lines = info.winning_lines.map((line) => [...line]);
  const linesThrough = Array.from({ length: cells }, () => []);
  for (const line of lines) for (const cell of line) linesThrough[cell].push(line);
  return {
    name: variantName(info.name, misere), // what the API is asked about
    base: info.name, // the board, whatever the rule
    misere: Boolean(misere), // whoever completes a line loses
    shape,
    k: info.k,
    dims,
    cells,
    lines,
    linesThrough,
    coords: (cell) => coordsOf(cell, shape),
    cell: (coords) => coords.reduce((index, c, i) => index * shape[i] + c, 0),
  };
}

/** The suffix of a misère variant's name: whoever completes a line loses. */
export const MISERE = "-misere";

/** The name the API knows a board by, with or without the misère rule:
 * variantName("4x4x4", true) === "4x4x4-misere". */
export function variantName(base, misere) {
  const plain = splitVariant(base).base;
  return misere ? `${plain}${MISERE}` : plain;
}

/** {base, misere} of a variant name: splitVariant("qubic-misere") gives
 * {base: "qubic", misere: true}. */
export function splitVariant(name) {
  const key = String(name).trim().toLowerCase();
  const misere = key.endsWith(MISERE);
  return { base: misere ? key.slice(0, -MISERE.length) : key, misere };
}

/** The catalogue entry named `name` (a variant name or one of its aliases, a misère
 * name as its board's entry), or null. */
export function findVariant(catalog, name) {
  const key = splitVariant(name).base;
  return catalog.variants.find((v) => v.name === key || v.aliases.includes(key)) || null;
}

function coordsOf(cell, shape) {
  const result = [];
  for (let i = shape.length - 1; i >= 0; i--) {
    result.unshift(cell % shape[i]);
    cell = Math.floor(cell / shape[i]);
  }
  return result;
}

/**
 * A cell's name, the engine's square name (noughts.notation.square_name, the API's
 * `square`): column letter (a = left) and row number (1 = bottom row), the layer first
 * on cubes ("2b3"). On 3x3 the top-left cell is "a3", the centre "b2".
 */
export function cellName(geo, cell) {
  const c = geo.coords(cell);
  const rows = geo.shape[geo.dims - 2];
  const square = `${"abcdefghijklmnopqrstuvwxyz"[c[geo.dims - 1]]}${rows - c[geo.dims - 2]}`;
  return geo.dims === 3 ? `${c[0] + 1}${square}` : square;
}

/** The API's board string for an array of "X" | "O" | null. */
export function boardString(geo, board) {
  const cols = geo.shape[geo.dims - 1];
  const rowsPerLayer = geo.shape[geo.dims - 2];
  const rows = [];
  for (let start = 0; start < geo.cells; start += cols) {
    rows.push(board.slice(start, start + cols).map((m) => m || ".").join(""));
  }
  if (geo.dims === 2) return rows.join("/");
  const layers = [];
  for (let i = 0; i < rows.length; i += rowsPerLayer) layers.push(rows.slice(i, i + rowsPerLayer).join("/"));
  return layers.join("|");
}

/** Parse a board string into an array of "X" | "O" | null; throws on a bad string. */
export function parseBoard(geo, text) {
  const board = [];
  for (const ch of String(text)) {
    if ("/| \t\r\n".includes(ch)) continue;
    const upper = ch.toUpperCase();
    if (upper === "X" || upper === "O") board.push(upper);
    else if (ch === ".") board.push(null);
    else throw new Error(`unexpected character ${JSON.stringify(ch)} in the board`);
  }
  if (board.length !== geo.cells) {
    throw new Error(`the board has ${board.length} cells but ${geo.name} has ${geo.cells}`);
  }
  return board;
}

/** The first completed line on the board (an array of cells), or null. */
export function winningLine(geo, board) {
  for (const line of geo.lines) {
    const mark = board[line[0]];
    if (mark && line.every((cell) => board[cell] === mark)) return line;
  }
  return null;
}

/** The other mark. */
export const other = (mark) => (mark === "X" ? "O" : "X");
