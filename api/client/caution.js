// Which calls are risky (they ask for a second confirmation and never get the focus by
// default), which are the safe default, and why a call a player may look for is missing.

import { suitName } from "./cards.js";

const LONE_GAMES = new Set(["solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "sie"]);

// A Tout or a Solo: one player against the rest, for a high price.
export function risky(command) {
  switch (command.type) {
    case "name_game": return LONE_GAMES.has(command.game) || command.game.endsWith("_tout");
    case "announce_tout": return true;
    case "schieber": return !!command.play;
    default: return false;
  }
}

// Passing: the call that commits a player to least.
export function safe(command) {
  switch (command.type) {
    case "pass": case "withdraw": case "no_tout": return true;
    case "announce": return command.intent === "pass";
    case "doppeln": return !command.double;
    case "schieber": return !command.play;
    default: return false;
  }
}

// The safe calls first, so the first button is the default and Tab goes on to bolder ones.
export function inSafeOrder(commands) {
  const rank = (c) => (safe(c) ? 0 : risky(c) ? 2 : 1);
  return commands.map((c, i) => [rank(c), i, c]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, , c]) => c);
}

// Scharwenzel (SW-3): a bid names a printed suit of exactly that many cards, not counting QC,
// QS and the Jacks.
function suitLengths(hand) {
  const lengths = { C: 0, S: 0, H: 0, D: 0 };
  for (const code of hand) {
    if (code === "QC" || code === "QS" || code.startsWith("J")) continue;
    lengths[code.slice(-1)] += 1;
  }
  return lengths;
}

// Schafkopf (SK-5): a Rufspiel calls the Sau of E, G or S in which the caller holds a plain
// card (no Ober, no Unter) but not the Sau.
function canCall(hand) {
  return ["E", "G", "S"].some((suit) => !hand.includes(`${suit}A`)
    && hand.some((c) => c[0] === suit && !c.endsWith("O") && !c.endsWith("U")));
}

// Lines saying why an option a player may expect is not offered now.
export function missingReasons(game, view) {
  const s = view.game_state || {};
  const legal = view.legal || [];
  const hand = s.hand || [];
  if (!legal.length) return [];
  const out = [];
  if (game === "scharwenzel" && s.phase === "bidding" && legal.every((c) => c.type === "pass")) {
    const lengths = suitLengths(hand);
    const longest = Math.max(...Object.values(lengths));
    out.push(longest < 3
      ? "You can only pass: no suit of three or more cards (QC, QS and the Jacks do not count)."
      : `You can only pass: your longest suit (${longest} cards) does not beat the standing bid.`);
  }
  if (game === "schafkopf" && s.phase === "naming" && legal.some((c) => c.type === "name_game")
      && !legal.some((c) => c.game === "rufspiel") && !canCall(hand)) {
    out.push("No Rufspiel: you hold no Eichel, Gras or Schellen card (other than Obers and Unters) without its Sau to call.");
  }
  if (game === "scharfe-schoten" && s.phase === "taking" && s.cupboard_colours) {
    const gone = ["R", "G", "Y", "B"].filter((c) => !s.cupboard_colours[c]);
    if (gone.length) out.push(`The cupboard has no ${gone.map((c) => suitName(game, c)).join(" or ")} left.`);
  }
  return out;
}

// Commands equal as JSON whatever their keys' order (a hint's command beside the view's legal ones).
export function sameCommand(a, b) {
  const sorted = (value) => (value && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]))
    : Array.isArray(value) ? value.map(sorted) : value);
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
