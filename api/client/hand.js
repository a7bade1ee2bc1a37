// The viewer's hand on the felt's bottom edge: fanned, in the order the game ranks the cards
// (trumps first, best first), so it reads as a player sorts his cards in his hand.

import { sameCommand } from "./caution.js";
import { h } from "./dom.js";
import { card } from "./faces.js";
import { isPicked, pickable, togglePick } from "./passing.js";

const SK_OBERS = ["EO", "GO", "HO", "SO"];
const SK_UNTERS = ["EU", "GU", "HU", "SU"];
const SK_SUITS = ["E", "G", "H", "S"];

// Schafkopf (SK-2, domain/schafkopf/game_types.py): the declared game's trumps, then each suit
// in the game's plain order. Before a game is declared, the Rufspiel's order (the usual one).
function schafkopfKey(state) {
  const declared = state.declared || {};
  const base = (declared.game || "rufspiel").replace(/_tout$/, "");
  const suit = declared.suit || null;
  const run = (s, ranks) => (s ? ranks.map((r) => s + r) : []);
  let trumps;
  let plain = ["A", "10", "K", "9", "8", "7"];
  if (base === "solo") trumps = [...SK_OBERS, ...SK_UNTERS, ...run(suit, plain)];
  else if (base === "wenz" || base === "farbwenz") {
    plain = ["A", "10", "K", "O", "9", "8", "7"];
    trumps = [...SK_UNTERS, ...(base === "farbwenz" ? run(suit, plain) : [])];
  } else if (base === "geier" || base === "farbgeier") {
    plain = ["A", "10", "K", "U", "9", "8", "7"];
    trumps = [...SK_OBERS, ...(base === "farbgeier" ? run(suit, plain) : [])];
  } else if (base === "bettel") {
    trumps = [];
    plain = ["A", "K", "O", "U", "10", "9", "8", "7"];
  } else trumps = [...SK_OBERS, ...SK_UNTERS, ...run("H", plain)];
  return (code) => {
    const t = trumps.indexOf(code);
    if (t >= 0) return [0, t, 0];
    return [1, SK_SUITS.indexOf(code[0]), plain.indexOf(code.slice(1))];
  };
}

const SW_PERMANENT = ["QC", "QS", "JC", "JS", "JH", "JD"];
const SW_SUITS = ["C", "S", "H", "D"];
const SW_RANKS = ["A", "K", "Q", "J", "10", "9", "8", "7", "6"];

// Scharwenzel (SW-2): the named trumps' order; before trumps are named the black Queens and
// the Jacks, which are trumps whatever is named. Then the suits, A down to 7 (or 6).
function scharwenzelKey(state) {
  const trumps = state.trumps ? state.trumps.order : SW_PERMANENT;
  return (code) => {
    const t = trumps.indexOf(code);
    if (t >= 0) return [0, t, 0];
    return [1, SW_SUITS.indexOf(code.slice(-1)), SW_RANKS.indexOf(code.slice(0, -1))];
  };
}

// Scharfe Schoten (SS-2, SS-3): the super trumps by the colours' ranking, then the colours by
// their ranking, each from its highest value down.
function schoten(state) {
  const ranking = state.ranking || ["R", "G", "Y", "B"];
  const supers = state.super_trumps || [];
  return (code) => {
    const s = supers.indexOf(code);
    if (s >= 0) return [0, ranking.indexOf(code[0]), 0];
    return [1, ranking.indexOf(code[0]), -Number(code.slice(1))];
  };
}

const KEYS = { schafkopf: schafkopfKey, scharwenzel: scharwenzelKey, "scharfe-schoten": schoten };

// The cards in the game's own order; a game this client does not know keeps the API's order.
export function handOrder(game, state, cards) {
  const key = KEYS[game] ? KEYS[game](state || {}) : null;
  if (!key) return [...cards];
  const keys = new Map(cards.map((c) => [c, key(c)]));
  return [...cards].sort((a, b) => {
    const x = keys.get(a);
    const y = keys.get(b);
    for (let i = 0; i < x.length; i += 1) if (x[i] !== y[i]) return x[i] - y[i];
    return 0;
  });
}

// The hand. While the viewer is to play a card the cards that may not be played are dimmed
// (disabled buttons); in every other phase (announcing, bidding, waiting for others) each card
// is shown plainly, as it must be read then.
export function handSection(game, view, onCommand, hinted, plate) {
  const s = view.game_state || {};
  if (!s.hand) return null;
  const playable = new Map((view.legal || []).filter((c) => c.type === "play").map((c) => [c.card, c]));
  const choosing = !!onCommand && playable.size > 0;
  const picking = onCommand ? pickable(view) : new Set();
  const cards = handOrder(game, s, s.hand);
  const n = cards.length;
  return h("section", { id: "hand", class: choosing || picking.size ? "choosing" : null, "aria-label": "Your hand" },
    h("h2", { class: "visually-hidden" }, "Your hand"), plate,
    n ? h("div", { class: "cards fan", style: `--n:${n}` }, cards.map((code, i) => {
      const element = picking.size ? pickableCard(game, code, picking) : card(game, code, {
        legal: choosing && playable.has(code), superTrump: (s.super_trumps || []).includes(code),
        onclick: choosing ? () => onCommand(playable.get(code)) : null,
        hinted: !!(choosing && hinted && playable.has(code) && sameCommand(hinted, playable.get(code))),
      });
      // Each card's place in the fan: a small turn away from the middle.
      element.style.setProperty("--i", String(i - (n - 1) / 2));
      return element;
    })) : h("p", { class: "note" }, "No cards"));
}

// In the Schieberrunde's push each card that may be passed on is a toggle: pressed, it is picked.
function pickableCard(game, code, picking) {
  const element = card(game, code, { legal: picking.has(code), onclick: (event) => togglePick(code, event.currentTarget) });
  element.setAttribute("aria-pressed", String(isPicked(code)));
  element.setAttribute("aria-label", `${element.title}: pick to pass on`);
  return element;
}
