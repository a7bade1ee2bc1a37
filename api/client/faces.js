// Card faces drawn as SVG, so the page needs no image files, fonts or other hosts. Each game
// gets the deck its rulebook plays with: German suits for Schafkopf, French suits for
// Scharwenzel, spice cards in four colours for Scharfe Schoten. A face is decoration only
// (aria-hidden): the element around it carries the card's name for screen readers.

import { parseCard } from "./cards.js";
import { h } from "./dom.js";

// The SVG namespace, as the HTML parser gives it: the client's files then hold no URL at all,
// which the tests check to show the page loads nothing from another host.
const SVG = (() => {
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  return probe.firstChild.namespaceURI;
})();

function s(tag, attrs, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) element.setAttribute(name, String(value));
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

// Suit symbols in a box of about 20 by 20 around (0, 0).
const SYMBOLS = {
  heart: () => s("path", { d: "M0,9 C-13,0 -9,-11 0,-4 C9,-11 13,0 0,9Z", fill: "#c62828" }),
  diamond: () => s("path", { d: "M0,-10 L7.5,0 L0,10 L-7.5,0Z", fill: "#c62828" }),
  spade: () => s("path", {
    d: "M0,-10 C-5,-4 -10,-1 -9,4 C-8,8 -3,8 -1,5 L-3,10 L3,10 L1,5 C3,8 8,8 9,4 C10,-1 5,-4 0,-10Z", fill: "#111",
  }),
  club: () => s("g", { fill: "#111" }, s("circle", { cx: 0, cy: -4.5, r: 4.4 }), s("circle", { cx: -4.8, cy: 2.2, r: 4.4 }),
    s("circle", { cx: 4.8, cy: 2.2, r: 4.4 }), s("path", { d: "M-1,1 L-3,10 L3,10 L1,1Z" })),
  acorn: () => s("g", {},
    s("path", { d: "M0,-10 L0,-6", stroke: "#5d3a12", "stroke-width": 1.6 }),
    s("ellipse", { cx: 0, cy: 3, rx: 5.5, ry: 7, fill: "#c98b3c", stroke: "#5d3a12", "stroke-width": 1 }),
    s("path", { d: "M-7,-1 C-7,-7 7,-7 7,-1 C3,1 -3,1 -7,-1Z", fill: "#6b4218" }),
    s("path", { d: "M-4,-4 L-2,0 M0,-5 L0,0 M4,-4 L2,0", stroke: "#3b2208", "stroke-width": .6 })),
  leaf: () => s("g", {},
    s("path", { d: "M0,-10 C9,-5 8,5 0,9 C-8,5 -9,-5 0,-10Z", fill: "#2e7d32" }),
    s("path", { d: "M0,-8 L0,11 M0,-3 L-4,-6 M0,-3 L4,-6 M0,2 L-5,-1 M0,2 L5,-1", stroke: "#c8e6c9", "stroke-width": .8, fill: "none" })),
  bell: () => s("g", {},
    s("path", { d: "M0,-10 L0,-7", stroke: "#7a4b00", "stroke-width": 1.6 }),
    s("circle", { cx: 0, cy: 1, r: 7.5, fill: "#f0b400", stroke: "#7a4b00", "stroke-width": 1 }),
    s("path", { d: "M-7.3,-1 L7.3,-1", stroke: "#b00020", "stroke-width": 1.8 }),
    s("circle", { cx: 0, cy: 4.5, r: 1.6, fill: "#3b2400" }), s("path", { d: "M0,5 L0,8.4", stroke: "#3b2400", "stroke-width": 1 })),
};

const GERMAN = { E: "acorn", G: "leaf", H: "heart", S: "bell" };
const FRENCH = { C: "club", S: "spade", H: "heart", D: "diamond" };
const SPICE = { R: "#c62828", G: "#2e7d32", Y: "#e0a800", B: "#212121" };
const SPICE_PAPER = { R: "#fdecea", G: "#e8f5e9", Y: "#fff8d6", B: "#ececec" };

function symbol(kind, x, y, scale = 1, flip = false) {
  const transform = `translate(${x} ${y}) scale(${scale})${flip ? " rotate(180)" : ""}`;
  return s("g", { transform }, SYMBOLS[kind]());
}

// Pip positions for 6 to 10 on a 60 by 90 face, as playing cards lay them out.
const PIPS = {
  6: [[20, 22], [40, 22], [20, 45], [40, 45], [20, 68], [40, 68]],
  7: [[20, 22], [40, 22], [30, 33], [20, 45], [40, 45], [20, 68], [40, 68]],
  8: [[20, 22], [40, 22], [30, 33], [20, 45], [40, 45], [30, 57], [20, 68], [40, 68]],
  9: [[20, 20], [40, 20], [20, 37], [40, 37], [30, 45], [20, 53], [40, 53], [20, 70], [40, 70]],
  10: [[20, 20], [40, 20], [30, 28], [20, 37], [40, 37], [20, 53], [40, 53], [30, 62], [20, 70], [40, 70]],
};

function pips(kind, count) {
  return PIPS[count].map(([x, y]) => symbol(kind, x, y, .62, y > 50));
}

// A court card: a figure in the suit's colours. The Ober holds his suit high, the Unter low
// (as on the German cards); crowns tell King and Queen, a cap the Jack.
function figure(kind, rank, colour) {
  const crown = rank === "K" ? s("path", { d: "M22,24 L22,16 L26,20 L30,14 L34,20 L38,16 L38,24Z", fill: "#f2c200", stroke: "#7a5c00", "stroke-width": .8 })
    : rank === "Q" ? s("path", { d: "M24,24 L25,18 L30,21 L35,18 L36,24Z", fill: "#f2c200", stroke: "#7a5c00", "stroke-width": .8 })
      : s("path", { d: "M23,24 C23,17 37,17 37,24Z", fill: rank === "O" ? "#b00020" : "#1e4fa0" });
  const held = rank === "O" ? symbol(kind, 44, 20, .7) : rank === "U" ? symbol(kind, 16, 72, .7) : symbol(kind, 45, 72, .55);
  return [
    s("path", { d: "M18,76 C18,54 22,40 30,40 C38,40 42,54 42,76Z", fill: colour, stroke: "#222", "stroke-width": .8 }),
    s("path", { d: "M26,42 L30,56 L34,42", fill: "none", stroke: "#fff", "stroke-width": 1.2 }),
    s("circle", { cx: 30, cy: 31, r: 7.5, fill: "#f7d7b5", stroke: "#222", "stroke-width": .8 }),
    s("circle", { cx: 27.5, cy: 30, r: .9, fill: "#222" }), s("circle", { cx: 32.5, cy: 30, r: .9, fill: "#222" }),
    crown, held,
  ];
}

function frame(fill = "#fffdf6") {
  return s("rect", { x: 1, y: 1, width: 58, height: 88, rx: 5, fill, stroke: "#333", "stroke-width": 1.2 });
}

function index(text, colour, kind = null) {
  return s("g", { class: "index" },
    s("text", { x: 6.5, y: 14, "font-size": text.length > 1 ? 10 : 12, "font-weight": 700, fill: colour, "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, text),
    kind ? symbol(kind, 6.5, 22, .38) : null);
}

const SUIT_COLOUR = { heart: "#c62828", diamond: "#c62828", spade: "#111", club: "#111", acorn: "#6b4218", leaf: "#2e7d32", bell: "#a86a00" };
const COAT = { heart: "#c62828", diamond: "#d84315", spade: "#37474f", club: "#2e5e3e", acorn: "#8d5524", leaf: "#2e7d32", bell: "#c98a00" };
// The letters printed in the corner: German cards say O, U, K and A (the Sau); French J, Q, K, A.
function suited(kind, rank) {
  const colour = SUIT_COLOUR[kind];
  const body = rank === "A" ? [symbol(kind, 30, 45, 2), s("path", { d: "M14,74 L46,74", stroke: colour, "stroke-width": 1 })]
    : PIPS[rank] ? pips(kind, Number(rank)) : figure(kind, rank, COAT[kind]);
  return [frame(), index(rank, colour, kind), body];
}

// A spice card: a pepper of its colour and its value, large.
function spice(colour, value, superTrump) {
  const ink = SPICE[colour];
  return [
    frame(SPICE_PAPER[colour]),
    s("path", { d: "M31,24 C31,18 35,15 40,14", fill: "none", stroke: "#2e7d32", "stroke-width": 2.4, "stroke-linecap": "round" }),
    s("path", { d: "M24,27 C30,21 40,23 40,32 C40,48 30,66 16,76 C20,64 21,50 21,38 C21,32 21,29 24,27Z", fill: ink, stroke: "#222", "stroke-width": .8 }),
    s("path", { d: "M26,31 C25,42 24,54 21,64", fill: "none", stroke: "#ffffff", "stroke-opacity": .55, "stroke-width": 1.6 }),
    s("text", { x: 46, y: 82, "font-size": 16, "font-weight": 800, fill: colour === "Y" ? "#6b5200" : ink, "text-anchor": "middle", "font-family": "system-ui, sans-serif" }, value),
    index(value, colour === "Y" ? "#6b5200" : ink),
    superTrump ? s("path", { d: "M50,6 L52,11 L57,11 L53,14 L55,19 L50,16 L45,19 L47,14 L43,11 L48,11Z", fill: "#f2c200", stroke: "#7a5c00", "stroke-width": .6 }) : null,
  ];
}

// A back: blue, or for Scharfe Schoten in the card's colour, which its back shows (SS-5).
function back(colour = null) {
  const line = colour === "Y" ? "#6b5200" : "#cfe0f0";
  return [frame(colour ? SPICE[colour] : "#24527a"),
    s("rect", { x: 6, y: 6, width: 48, height: 78, rx: 3, fill: "none", stroke: line, "stroke-width": 1.2 }),
    s("path", { d: "M30,20 L44,45 L30,70 L16,45Z", fill: "none", stroke: line, "stroke-width": 1.2 })];
}

// The SVG face of a parsed card ({rank, suit}); null draws the back.
export function cardFace(game, parsed, { superTrump = false } = {}) {
  let body;
  if (!parsed) body = back();
  else if (game === "scharfe-schoten") body = spice(parsed.suit, parsed.rank, superTrump);
  else if (game === "schafkopf") body = suited(GERMAN[parsed.suit], parsed.rank);
  else body = suited(FRENCH[parsed.suit], parsed.rank);
  return s("svg", { class: "face", viewBox: "0 0 60 90", "aria-hidden": "true", focusable: "false" }, body);
}

// A card: its SVG face (decoration) inside an element that names it in words. A legal card is a
// raised, outlined button; the others are dimmed and disabled. The one a hint suggests is marked,
// and described by the hint's words (#hint-text), so the mark is not told by colour alone.
export function card(game, code, { legal = false, onclick = null, small = false, extra = "", superTrump = false, hinted = false } = {}) {
  const parsed = parseCard(game, code);
  const label = parsed ? parsed.name + (superTrump ? " (super trump)" : "") : code;
  const classes = ["card", `game-${game}`, parsed ? `suit-${parsed.suit}` : "", small ? "small" : "", legal ? "legal" : "",
    superTrump ? "super" : "", hinted ? "hinted" : "", extra].filter(Boolean).join(" ");
  const face = cardFace(game, parsed, { superTrump });
  if (!onclick) return h("span", { class: classes, role: "img", "aria-label": label, title: label, dataset: { card: code } }, face);
  return h("button", {
    type: "button", class: classes, title: label, "aria-label": legal ? `Play ${label}` : `${label} (not playable now)`,
    disabled: !legal, dataset: { card: code, key: `card-${code}` }, onclick, "aria-describedby": hinted ? "hint-text" : null,
  }, face);
}

// The backs of the cards a seat holds, fanned: decoration (the seat's words say how many).
export function cardBacks(count, colours = null) {
  const order = colours ? ["R", "G", "Y", "B"].flatMap((c) => Array(colours[c] || 0).fill(c)) : Array(count).fill(null);
  return h("span", { class: "backs", "aria-hidden": "true", style: `--n:${order.length}` }, order.map((colour) =>
    h("span", { class: "back" }, s("svg", { class: "face", viewBox: "0 0 60 90", focusable: "false" }, back(colour)))));
}
