// The felt: the other seats around it (names, card backs, dealer, whose turn, the clock's ring,
// their calls as speech bubbles), the trick in the middle with each card in front of its player.

import { schafkopfGame, seatName, suitName } from "./cards.js";
import { h } from "./dom.js";
import { card, cardBacks } from "./faces.js";

export function toAct(view) {
  return (view.game_state && view.game_state.to_act) || view.to_act || [];
}

// Colour counts in words ("Red 2 · Green 0 · …"), so no count is told by colour or letter alone.
export function colourCounts(counts) {
  if (!counts) return "";
  return ["R", "G", "Y", "B"].map((c) => `${suitName("scharfe-schoten", c)} ${counts[c] ?? 0}`).join(" · ");
}

// A seat's number and who sits there: a player by its handle (the summary names it), so the
// table reads as names where there are names.
export function seatLabel(view, seat) {
  const info = (view.seats || [])[seat] || {};
  const who = info.player || (info.kind === "bot" ? `bot: ${info.bot || "random"}` : info.taken ? "player" : "open");
  return `${seatName(seat)} (${seat === view.viewer ? (info.player ? `you, ${info.player}` : "you") : who})`;
}

// Where a seat sits, seen from the viewer (or from seat 0 for a spectator): the viewer at the
// bottom, the others clockwise from the left, as at a real table where play passes left.
// (cx, cy) is the direction to the seat from the middle, each from -1 to 1.
function place(view, seat) {
  const n = (view.seats || []).length || 1;
  const me = view.viewer === null || view.viewer === undefined ? 0 : view.viewer;
  const r = (seat - me + n) % n;
  const angle = 90 + (r * 360) / n; // degrees, screen coordinates: 90 is straight down
  const a = ((angle % 360) + 360) % 360;
  const side = r === 0 ? "bottom" : a > 120 && a <= 224 ? "left" : a > 224 && a <= 316 ? "top" : "right";
  const rad = (angle * Math.PI) / 180;
  return { side, cx: Math.cos(rad), cy: Math.sin(rad) };
}

const INTENTS = { pass: "Weiter", play: "Ich spiele", hochzeit: "Hochzeit" };

// Each seat's latest call, for its speech bubble. While the cards are played only the calls
// that still change the price stay (Stoß, Tout); the contract's badge tells the rest.
function calls(game, view) {
  const s = view.game_state || {};
  const said = {};
  const playing = ["play", "playing"].includes(s.phase);
  const say = (seat, words) => { said[seat] = words; };
  if (game === "schafkopf") {
    if (!playing) {
      (s.announcements || []).forEach((a) => say(a.seat, INTENTS[a.intent] || a.intent));
      (s.naming || []).forEach((n) => say(n.seat, n.game ? schafkopfGame(n.game, n.suit) : "Weiter"));
      (s.doppeln || []).forEach((d) => say(d.seat, d.call || (d.double ? "Ich dopple" : "Weiter")));
      if (s.auction) s.auction.bids.forEach((b) => say(b.seat, b.passed ? "Weiter" : `${b.target - 1}`));
      if (s.schieberrunde) s.schieberrunde.calls.forEach((c) => say(c.seat, c.play ? "Ich spiele" : "Ich spiele nicht"));
    }
    (s.stoss || []).forEach((x) => say(x.seat, x.call));
  } else if (game === "scharwenzel") {
    if (!playing) (s.bidding || []).forEach((b) => say(b.seat, b.passed ? "Pass" : `${b.value}${b.besser ? " besser" : ""}`));
    if (s.tout) say(s.tout.announced_by, "Tout!");
  }
  return said;
}

// A clocked seat: a ring that empties as its time runs out, and the seconds in words.
function clock(view, seat) {
  const c = view.clock && view.clock.seats[seat];
  if (!c) return null;
  if (c.abandoned) return h("p", { class: "clock" }, `Abandoned: the ${view.clock.bot} bot plays this seat`);
  const bank = `bank ${Math.round(c.bank_ms / 1000)} s`;
  if (!c.deadline_at) return h("p", { class: "clock" }, `Clock: ${bank}`);
  const leftMs = Math.max(0, Date.parse(c.deadline_at) - Date.now());
  const whole = view.clock.per_move_s * 1000 + c.bank_ms;
  const share = Math.max(0, Math.min(1, whole ? leftMs / whole : 0));
  const ring = h("span", { class: "ring", style: `--share:${share.toFixed(3)}`, "aria-hidden": "true" });
  return h("p", { class: "clock running" }, ring, `Clock: ${Math.round(leftMs / 1000)} s left (${bank})`);
}

// What each game adds to a seat: its role as small chips, and the game's public facts.
function extras(game, view, seat) {
  const s = view.game_state || {};
  const chips = [];
  const facts = [];
  if (game === "scharfe-schoten") {
    if (s.hand_colours) facts.push(h("p", { class: "visually-hidden" }, `Hand colours: ${colourCounts(s.hand_colours[seat])}`));
    const p = (s.predictions || [])[seat];
    if (p) {
      facts.push(h("p", { class: "prediction" }, p.most
        ? `Prediction: most ${suitName(game, p.most)}, fewest ${suitName(game, p.fewest)}`
        : p.made ? "Prediction: made (hidden)" : "Prediction: not yet"));
    }
    if (s.collections) facts.push(h("p", { class: "collection" }, `Collection: ${colourCounts(s.collections[seat])}`));
    if (s.starter === seat) chips.push("Starter");
  } else if (game === "schafkopf") {
    if (s.dealer === seat) chips.push("Dealer");
    if (s.declared && s.declared.declarer === seat) chips.push("Declarer");
    if (s.partner === seat) chips.push("Partner");
    if (s.tricks_taken && s.tricks_taken[seat]) chips.push(`${s.tricks_taken[seat]} trick${s.tricks_taken[seat] === 1 ? "" : "s"}`);
  } else if (game === "scharwenzel") {
    if (s.sides) chips.push(`Side ${s.sides[seat]}`);
    if (s.dealer === seat) chips.push("Dealer");
    if (s.forehand === seat) chips.push("Forehand");
  }
  return { chips, facts };
}

// One seat's plate. The viewer's own plate sits by the hand, the others around the felt.
export function seatPlate(game, view, seat, said = calls(game, view)) {
  const info = (view.seats || [])[seat] || {};
  const s = view.game_state || {};
  const acting = toAct(view).includes(seat);
  const me = seat === view.viewer;
  const size = s.hand_sizes ? s.hand_sizes[seat] : null;
  const shown = s.hands && s.hands[seat] && s.hands[seat].length ? s.hands[seat] : null; // a finished game, a replay
  const total = view.scores && view.scores.totals ? view.scores.totals[seat] : null;
  const { chips, facts } = extras(game, view, seat);
  const name = me ? seatLabel(view, seat) : info.player || seatName(seat);
  const counted = [size !== null && size !== undefined && !shown ? `${size} card${size === 1 ? "" : "s"}` : null,
    total !== null && total !== undefined ? `score ${total}` : null, info.player && !me ? seatName(seat) : null].filter(Boolean);
  return h("div", {
    class: ["seat", acting ? "to-act" : "", me ? "me" : ""].filter(Boolean).join(" "), dataset: { seat },
  },
  h("h3", {}, name,
    !me && info.kind === "bot" ? h("span", { class: "bot", title: `played by the ${info.bot || "random"} bot` }, " bot") : null,
    acting ? h("span", { class: "marker" }, " ▶ to act") : null),
  said[seat] ? h("q", { class: "bubble" }, said[seat]) : null,
  counted.length || chips.length ? h("p", { class: "seat-facts" }, counted.join(" · "),
    chips.map((chip) => h("span", { class: "chip" }, chip))) : null,
  facts, clock(view, seat),
  !me && !shown && size ? cardBacks(size, game === "scharfe-schoten" && s.hand_colours ? s.hand_colours[seat] : null) : null,
  shown ? h("div", { class: "shown-hand", "aria-label": `Hand of ${seatName(seat)}` },
    shown.map((c) => card(game, c, { small: true }))) : null);
}

// The key of the last trick already shown being gathered, so that drawing the table again
// (a new event, a clock tick) does not play the movement twice; and whether the viewer looks
// at the last trick again (until the next trick is complete).
let gathered = null;
let peeking = null;

function trickCards(game, view, trick, { winner = null, key = null, hidden = false, id = null } = {}) {
  const supers = new Set((view.game_state || {}).super_trumps || []);
  const gathering = winner != null && key !== null;
  const already = gathering && gathered === key;
  if (gathering) gathered = key;
  const towards = winner != null ? place(view, winner) : null;
  return h("ol", { id, hidden, class: ["trick-cards", gathering ? (already ? "gathered" : "gathering") : ""].filter(Boolean).join(" ") },
    trick.plays.map((p) => {
      const at = place(view, p.seat);
      const style = `--cx:${at.cx.toFixed(3)};--cy:${at.cy.toFixed(3)}`
        + (towards ? `;--wx:${towards.cx.toFixed(3)};--wy:${towards.cy.toFixed(3)}` : "");
      return h("li", { class: [winner === p.seat ? "winner" : "", `from-${at.side}`].filter(Boolean).join(" "), style, dataset: { seat: p.seat } },
        card(game, p.card, { superTrump: supers.has(p.card) }),
        h("span", { class: "visually-hidden" }, p.seat === view.viewer ? " played by you" : ` played by ${seatName(p.seat)}`,
          winner === p.seat ? ", wins" : ""));
    }));
}

// The trick: a caption above (never over a card), the cards in front of their players. While a
// trick is being played the last one can be looked at again.
export function trickSection(game, view) {
  const state = view.game_state || {};
  const current = state.current_trick;
  const last = state.last_trick && state.last_trick.plays && state.last_trick.plays.length ? state.last_trick : null;
  // Who took the last trick: the view says so, or (Schafkopf's view does not) it is who leads now.
  const lastWinner = last ? last.winner ?? (state.tricks && state.tricks.length ? state.tricks[state.tricks.length - 1].winner
    : current ? current.leader : null) : null;
  const takes = lastWinner != null ? `${lastWinner === view.viewer ? "You take" : `${seatName(lastWinner)} takes`} the trick` : "Last trick";
  const showing = current && current.plays && current.plays.length ? current : null;
  const count = (state.tricks || []).length + (state.tricks_taken ? state.tricks_taken.reduce((a, b) => a + b, 0) : 0);
  const lastKey = last ? `${view.id}:${count}:${last.plays.map((p) => p.card).join(",")}` : null;
  if (peeking && peeking !== lastKey) peeking = null;
  const parts = [h("h2", { class: "visually-hidden" }, "Trick")];
  let caption;
  if (showing) {
    caption = `Led by ${seatName(showing.leader)}`;
    parts.push(trickCards(game, view, showing, { hidden: !!peeking, id: "trick-now" }));
    if (last) parts.push(trickCards(game, view, last, { winner: lastWinner, hidden: !peeking, id: "trick-last" }));
  } else if (last) {
    caption = takes + (current ? ` · ${current.leader === view.viewer ? "you lead" : `${seatName(current.leader)} leads`}` : "");
    parts.push(trickCards(game, view, last, { winner: lastWinner, key: lastKey }));
  } else {
    caption = current ? `${seatName(current.leader)} leads` : ""; // before the play: the phase says it
  }
  const lastCaption = `Last trick: ${takes.replace(" the trick", " it")}`;
  const toggle = showing && last ? h("button", {
    type: "button", class: "peek", "aria-pressed": peeking ? "true" : "false", "aria-controls": "trick-now trick-last",
    onclick: (event) => {
      peeking = peeking ? null : lastKey;
      const box = event.currentTarget.closest("#trick");
      box.querySelector("#trick-now").hidden = !!peeking;
      box.querySelector("#trick-last").hidden = !peeking;
      box.querySelector("#trick-caption").textContent = peeking ? lastCaption : caption;
      event.currentTarget.setAttribute("aria-pressed", peeking ? "true" : "false");
    },
  }, "Last trick") : null;
  return h("section", { id: "trick", "aria-label": "Trick" },
    caption ? h("div", { class: "trick-head" }, h("p", { class: "trick-caption", id: "trick-caption", "aria-live": "polite" },
      showing && peeking ? lastCaption : caption), toggle) : null,
    // With no card on the table the area gives its room to the calls.
    parts.length > 1 ? h("div", { class: "trick-area" }, parts) : parts);
}

// The seats around the felt and the trick; ``bottom`` is what lies along the felt's bottom
// edge (the moves, the hand with the viewer's plate, the hint), in the order Tab goes.
export function feltSection(game, view, bottom) {
  const said = calls(game, view);
  const sides = { left: [], top: [], right: [], bottom: [] };
  (view.seats || []).forEach((_, seat) => {
    if (seat === view.viewer && ((view.game_state || {}).hand || []).length) return; // by the hand
    sides[place(view, seat).side].push(seatPlate(game, view, seat, said));
  });
  // Left seats are listed bottom to top in play order, so the one next to the viewer is lowest.
  sides.left.reverse();
  const n = (view.seats || []).length;
  return h("section", { id: "seats", class: `felt players-${n}`, "aria-label": "Table" },
    h("div", { class: "side side-top" }, sides.top),
    h("div", { class: "side side-left" }, sides.left),
    trickSection(game, view),
    h("div", { class: "side side-right" }, sides.right),
    sides.bottom.length ? h("div", { class: "side side-bottom" }, sides.bottom) : null,
    bottom);
}
