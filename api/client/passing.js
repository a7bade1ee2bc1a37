// The Schieberrunde's push: the player picks two cards in the hand, then one button passes them
// on (one per hint, where the house rule lets this push hint). One button per pair would be
// forty-five buttons for Vorhand's ten cards, which no phone's screen holds.
import { h } from "./dom.js";
import { cardName, seatName, suitName } from "./cards.js";

const SUITS_DOWN = "EGHS"; // Eichel, Gras, Herz, Schellen: "two above" Herz is Eichel

// The cards picked so far, kept across redraws (an event may arrive while the player picks),
// and dropped once the pushes on offer change (the push was made, or the deal moved on).
let picked = [];
let offer = "";
let drawn = null; // what the panel was last drawn with, to draw it again after a pick

export function pushesOf(view) {
  return (view.legal || []).filter((command) => command.type === "push");
}

// The cards of the hand that some push may pass on.
export function pickable(view) {
  const pushes = pushesOf(view);
  const key = JSON.stringify(pushes);
  if (key !== offer) { offer = key; picked = []; }
  return new Set(pushes.flatMap((command) => command.cards));
}

export function isPicked(code) {
  return picked.includes(code);
}

// A card of the hand pressed: picked, or put back; a third pick replaces the first.
export function togglePick(code, button) {
  picked = picked.includes(code) ? picked.filter((c) => c !== code) : [...picked, code].slice(-2);
  for (const other of document.querySelectorAll("#hand .fan button.card")) {
    other.setAttribute("aria-pressed", String(picked.includes(other.dataset.card)));
  }
  if (button) button.focus();
  if (drawn) {
    const panel = document.getElementById("push-panel");
    if (panel) panel.replaceWith(pushPanel(...drawn));
  }
}

function hintWords(game, hint) {
  const named = SUITS_DOWN[SUITS_DOWN.indexOf(hint.card[0]) - hint.above];
  return `hinting ${suitName(game, named)} (${cardName(game, hint.card)}, ${hint.above} above)`;
}

// The words and the buttons: what to do, what is picked, and the push (or pushes, one per hint)
// of the two cards picked.
export function pushPanel(game, view, onCommand) {
  drawn = [game, view, onCommand];
  const pushes = pushesOf(view);
  const pair = [...picked].sort();
  const chosen = pair.length === 2
    ? pushes.filter((command) => [...command.cards].sort().join() === pair.join()) : [];
  const to = (view.viewer + 1) % (view.seats || []).length; // the next player receives them
  const words = (command) => `Pass on ${command.cards.map((c) => cardName(game, c)).join(" and ")}`
    + (command.hint ? `, ${hintWords(game, command.hint)}` : "");
  return h("div", { id: "push-panel", class: "push-panel" },
    h("p", { class: "note", "aria-live": "polite" }, picked.length === 2
      ? `${picked.map((c) => cardName(game, c)).join(" and ")} picked.`
      : `Pick two cards of your hand to pass on to ${seatName(to)} (${picked.length} of 2 picked).`),
    chosen.length
      ? h("div", { class: "buttons" }, chosen.map((command) => h("button", {
        type: "button", class: "move legal", dataset: { command: JSON.stringify(command), words: words(command) },
        onclick: () => { picked = []; onCommand(command); },
      }, command.hint ? hintWords(game, command.hint) : words(command))))
      : h("button", { type: "button", class: "move", "aria-disabled": "true" }, "Pass on two cards"));
}
