// The table: one view (GET /v1/games/{id}/view) drawn for a person, for every phase of every game.

import { GAME_NAMES, cardName, describeCommand, parseCard, schafkopfGame, seatName, suitName } from "./cards.js";
import { h } from "./dom.js";
import { cardFace } from "./faces.js";
import { inSafeOrder, missingReasons, risky, safe } from "./caution.js";

const PHASES = {
  dealing: "Dealing", predicting: "Predicting", playing: "Playing", taking: "Taking from the cupboard",
  finished: "Finished", announce: "Announcing", naming: "Naming the game", play: "Playing", doppeln: "Doppeln",
  exchange: "Hochzeit exchange", auction: "Auction", schieber: "Schieberrunde", push: "Passing cards",
  bidding: "Bidding", tout: "Tout round", waiting: "Waiting for players",
};

const PLACES = ["", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];

// Commands equal as JSON whatever their keys' order (a hint's command beside the view's legal ones).
export function sameCommand(a, b) {
  const sorted = (value) => (value && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]))
    : Array.isArray(value) ? value.map(sorted) : value);
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
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

function seatLabel(view, seat) {
  const info = (view.seats || [])[seat] || {};
  const role = seat === view.viewer ? "you" : info.kind === "bot" ? `bot: ${info.bot || "random"}` : info.taken ? "player" : "open";
  return `${seatName(seat)} (${role})`;
}

// Colour counts in words ("Red 2 · Green 0 · …"), so no count is told by colour or letter alone.
function colourCounts(counts) {
  if (!counts) return "";
  return ["R", "G", "Y", "B"].map((c) => `${suitName("scharfe-schoten", c)} ${counts[c] ?? 0}`).join(" · ");
}

function toAct(view) {
  return (view.game_state && view.game_state.to_act) || view.to_act || [];
}

function turnText(view) {
  if (view.status === "finished") return "The game is over";
  if (view.status === "waiting") return "Waiting for players to take their seats";
  const acting = toAct(view);
  if (!acting.length) return "Dealing…";
  if (view.viewer !== null && view.viewer !== undefined && acting.includes(view.viewer)) {
    return acting.length > 1 ? `Your turn (with ${acting.filter((s) => s !== view.viewer).map(seatName).join(", ")})` : "Your turn";
  }
  return `Waiting for ${acting.map(seatName).join(", ")}`;
}

// Where a seat sits, seen from the viewer (or from seat 0 for a spectator): the viewer at the
// bottom, the others clockwise from the left, as at a real table where play passes left.
function place(view, seat) {
  const n = (view.seats || []).length || 1;
  const me = view.viewer === null || view.viewer === undefined ? 0 : view.viewer;
  const r = (seat - me + n) % n;
  const angle = 90 + (r * 360) / n; // degrees, screen coordinates: 90 is straight down
  const a = ((angle % 360) + 360) % 360;
  const side = r === 0 ? "bottom" : a > 120 && a <= 224 ? "left" : a > 224 && a <= 316 ? "top" : "right";
  const rad = (angle * Math.PI) / 180;
  return { side, x: 50 + 34 * Math.cos(rad), y: 50 + 30 * Math.sin(rad) };
}

// The key of the last trick already shown being gathered, so that drawing the table again
// (a new event, a clock tick) does not play the movement twice.
let gathered = null;

function trickSection(game, view) {
  const state = view.game_state || {};
  const current = state.current_trick;
  const last = state.last_trick;
  const supers = new Set(state.super_trumps || []);
  const showing = current && current.plays && current.plays.length ? current : null;
  let trick = showing;
  let winner = null;
  let caption;
  if (showing) {
    caption = `Led by ${seatName(showing.leader)}`;
  } else if (last && last.plays && last.plays.length) {
    winner = last.winner ?? (state.tricks && state.tricks.length ? state.tricks[state.tricks.length - 1].winner : null);
    trick = { ...last, winner };
    caption = winner != null ? `${winner === view.viewer ? "You take" : `${seatName(winner)} takes`} the trick` : "Last trick";
    if (current) caption += ` · ${seatName(current.leader)} leads`;
  } else if (current) {
    caption = `${seatName(current.leader)} leads`;
  } else {
    caption = "No cards on the table";
  }
  const parts = [h("h2", { class: "visually-hidden" }, "Trick"), h("p", { class: "trick-caption", id: "trick-caption" }, caption)];
  if (trick) {
    const key = `${view.id}:${(state.tricks || []).length}:${trick.plays.map((p) => p.card).join(",")}`;
    const gathering = winner != null;
    const already = gathering && gathered === key;
    if (gathering) gathered = key;
    const towards = winner != null ? place(view, winner) : null;
    parts.push(h("ol", { class: ["trick-cards", gathering ? (already ? "gathered" : "gathering") : ""].filter(Boolean).join(" ") },
      trick.plays.map((p) => {
        const at = place(view, p.seat);
        const style = `--x:${at.x.toFixed(1)}%;--y:${at.y.toFixed(1)}%`
          + (towards ? `;--wx:${towards.x.toFixed(1)}%;--wy:${towards.y.toFixed(1)}%` : "");
        return h("li", { class: [trick.winner === p.seat ? "winner" : "", `from-${at.side}`].filter(Boolean).join(" "), style, dataset: { seat: p.seat } },
          card(game, p.card, { superTrump: supers.has(p.card) }), h("span", { class: "who" }, p.seat === view.viewer ? "you" : seatName(p.seat)));
      })));
  }
  return h("section", { id: "trick", "aria-label": "Trick" }, parts);
}

// What each game adds to a seat's box.
function seatExtras(game, view, seat) {
  const s = view.game_state || {};
  const out = [];
  if (game === "scharfe-schoten") {
    if (s.hand_colours) out.push(h("p", {}, `Hand colours: ${colourCounts(s.hand_colours[seat])}`));
    const p = (s.predictions || [])[seat];
    if (p) {
      out.push(h("p", { class: "prediction" }, p.most
        ? `Prediction: most ${suitName(game, p.most)}, fewest ${suitName(game, p.fewest)}`
        : p.made ? "Prediction: made (hidden)" : "Prediction: not yet"));
    }
    if (s.collections) out.push(h("p", { class: "collection" }, `Collection: ${colourCounts(s.collections[seat])}`));
  } else if (game === "schafkopf") {
    if (s.dealer === seat) out.push(h("p", {}, "Dealer"));
    if (s.tricks_taken) out.push(h("p", {}, `Tricks: ${s.tricks_taken[seat]}`));
    if (s.declared && s.declared.declarer === seat) out.push(h("p", { class: "badge" }, "Declarer"));
    if (s.partner === seat) out.push(h("p", { class: "badge" }, "Partner"));
  } else if (game === "scharwenzel") {
    if (s.sides) out.push(h("p", {}, `Side ${s.sides[seat]}`));
    if (s.dealer === seat) out.push(h("p", {}, "Dealer"));
    if (s.forehand === seat) out.push(h("p", {}, "Forehand"));
  }
  return out;
}

// A clocked game: the seat's deadline (server time, shown as the seconds left when drawn) and bank.
function clockLine(view, seat) {
  const clock = view.clock && view.clock.seats[seat];
  if (!clock) return null;
  if (clock.abandoned) return h("p", { class: "clock" }, `Abandoned: the ${view.clock.bot} bot plays this seat`);
  const bank = `bank ${Math.round(clock.bank_ms / 1000)} s`;
  if (!clock.deadline_at) return h("p", { class: "clock" }, `Clock: ${bank}`);
  const left = Math.max(0, Math.round((Date.parse(clock.deadline_at) - Date.now()) / 1000));
  return h("p", { class: "clock" }, `Clock: ${left} s left (${bank})`);
}

function seatBox(game, view, info, seat, acting) {
  const s = view.game_state || {};
  const size = s.hand_sizes ? s.hand_sizes[seat] : null;
  const shown = s.hands; // every hand: a finished game, or a replay of one
  const total = view.scores && view.scores.totals ? view.scores.totals[seat] : null;
  return h("div", {
    class: ["seat", acting.includes(seat) ? "to-act" : "", seat === view.viewer ? "me" : ""].filter(Boolean).join(" "),
    dataset: { seat },
  },
  h("h3", {}, seatLabel(view, seat), acting.includes(seat) ? h("span", { class: "marker" }, " ▶ to act") : null),
  h("p", { class: "seat-facts" }, size !== null && size !== undefined ? `${size} card${size === 1 ? "" : "s"} in hand` : null,
    total !== null && total !== undefined ? h("span", { class: "seat-score" }, `${size !== null && size !== undefined ? " · " : ""}score ${total}`) : null),
  seatExtras(game, view, seat),
  clockLine(view, seat),
  shown && shown[seat] && shown[seat].length ? h("div", { class: "shown-hand", "aria-label": `Hand of ${seatName(seat)}` },
    shown[seat].map((c) => card(game, c, { small: true }))) : null);
}

// The felt: the other seats on the left, across and on the right, the trick in the middle,
// the viewer's own seat at the bottom.
function seatsSection(game, view) {
  const acting = toAct(view);
  const sides = { left: [], top: [], right: [], bottom: [] };
  (view.seats || []).forEach((info, seat) => {
    const { side } = place(view, seat);
    sides[side].push(seatBox(game, view, info, seat, acting));
  });
  // Left seats are listed bottom to top in play order, so the one next to the viewer is lowest.
  sides.left.reverse();
  const n = (view.seats || []).length;
  return h("section", { id: "seats", class: `felt players-${n}`, "aria-label": "Table" },
    h("div", { class: "side side-top" }, sides.top),
    h("div", { class: "side side-left" }, sides.left),
    trickSection(game, view),
    h("div", { class: "side side-right" }, sides.right),
    h("div", { class: "side side-bottom" }, sides.bottom));
}

function list(items, id = null) {
  return items.length ? h("ul", { id }, items.map((i) => h("li", {}, i))) : h("p", { id, class: "note" }, "none yet");
}

const SK_MODES = {
  muss: "Muss-Spiel: all passed, the holder of the Eichel-Ober must play",
  renonce: "Renonce round: all passed, a blocked player may call an Ace he lacks (As-Renonce)",
  schieber: "Schieberrunde (passing round)",
};

// The Schafkopf house rules' state (Hochzeit, auction, Schieberrunde), in words.
function schafkopfRules(game, view) {
  const s = view.game_state;
  const parts = [];
  if (s.mode) parts.push(h("p", { id: "mode", class: "badge" }, SK_MODES[s.mode] || `Mode: ${s.mode}`));
  if (s.hochzeit !== null && s.hochzeit !== undefined) {
    parts.push(h("p", { id: "hochzeit", class: "badge" }, `Hochzeit offered by ${seatName(s.hochzeit)}`));
  }
  if (s.swap) {
    // ``gave``/``received`` are the viewer's side of the swap; told here from the giver's side.
    const { from, to } = s.swap;
    const receiver = view.viewer === to;
    const given = receiver ? s.swap.received : s.swap.gave;
    const got = receiver ? s.swap.gave : s.swap.received;
    parts.push(h("p", { id: "swap" }, given
      ? `Hochzeit swap: ${seatName(from)} gave ${cardName(game, given)} to ${seatName(to)} for ${cardName(game, got)}`
      : `Hochzeit swap: ${seatName(from)} gave ${seatName(to)} a card for the trump`));
  }
  if (s.auction) {
    const a = s.auction;
    // The holder plays the band game he named (the last game he named in this deal).
    const named = (s.naming || []).filter((n) => n.seat === a.holder && n.game).pop();
    const withGame = named ? ` with ${schafkopfGame(named.game, named.suit)}` : "";
    const open = a.bidders && a.bidders.length;
    const bid = a.target > 61 ? `the bid ${a.target - 1}${withGame} (needs ${a.target})` : `61${withGame}`;
    parts.push(h("h3", {}, "Auction"), h("p", { id: "auction" }, open
      ? `${seatName(a.holder)} holds ${bid} · to answer: ${a.bidders.map(seatName).join(", ")}`
      : `${seatName(a.holder)} won the auction with ${bid}`),
    list(a.bids.map((b) => (b.passed ? `${seatName(b.seat)} passes` : `${seatName(b.seat)} bids ${b.target - 1}`)), "auction-bids"));
  }
  if (s.schieberrunde) {
    const r = s.schieberrunde;
    parts.push(h("h3", {}, "Schieberrunde"), h("p", { id: "schieberrunde" }, `Vorhand: ${seatName(r.vorhand)}`),
      list([
        ...r.calls.map((c) => `${seatName(c.seat)}: ${c.play ? "Ich spiele" : "Ich spiele nicht"}`),
        ...r.pushes.map((p) => `${seatName(p.from)} pushed ${p.cards ? p.cards.map((c) => cardName(game, c)).join(" and ") : "two cards"} to ${seatName(p.to)}`),
      ], "schieberrunde-calls"));
  }
  if (s.schieberrunde_next) parts.push(h("p", { id: "schieberrunde-next" }, "The next deal is a Schieberrunde (after a won Herz-Solo)"));
  return parts;
}

function infoSection(game, view) {
  const s = view.game_state;
  if (!s) return h("section", { id: "game-info" }, h("p", {}, "The game starts when every seat is taken."));
  const parts = [h("h2", {}, "Game")];
  if (game === "scharfe-schoten") {
    parts.push(h("p", {}, `Round ${s.round} of ${s.rounds} · starter ${seatName(s.starter)}`));
    if (s.ranking) {
      parts.push(h("p", { id: "ranking" }, "Colour ranking: ",
        s.ranking.map((c) => `${suitName(game, c)} (${s.numbers[c]})`).join(" > ")));
    }
    if (s.super_trumps) {
      parts.push(h("div", { class: "row" }, h("span", {}, "Super trumps: "), s.super_trumps.map((c) => card(game, c, { small: true, superTrump: true }))));
    }
    parts.push(h("p", { id: "cupboard" }, `Cupboard: ${colourCounts(s.cupboard_colours)}`,
      s.taker !== null && s.taker !== undefined ? ` · ${seatName(s.taker)} takes next` : ""));
  } else if (game === "schafkopf") {
    parts.push(h("p", {}, `Deal ${s.deal + 1} of ${s.deals} · dealer ${seatName(s.dealer)}`,
      s.multiplier > 1 ? ` · multiplier ×${s.multiplier}` : "", s.stock ? ` · stock ${s.stock}` : ""));
    parts.push(h("h3", {}, "Announcements"), list((s.announcements || []).map((a) =>
      `${seatName(a.seat)}: ${{ pass: "Weiter", play: "Ich spiele", hochzeit: "Hochzeit" }[a.intent] || a.intent}`), "announcements"));
    if (s.naming && s.naming.length) {
      parts.push(h("h3", {}, "Named"), list(s.naming.map((n) => `${seatName(n.seat)}: ${n.game ? schafkopfGame(n.game, n.suit) : "Weiter"}`), "naming"));
    }
    if (s.declared) {
      const d = s.declared;
      parts.push(h("p", { id: "declared", class: "badge" }, d.declarer == null ? schafkopfGame(d.game, d.suit)
        : `${seatName(d.declarer)} plays ${schafkopfGame(d.game, d.suit)}`,
      d.renonce ? " (As-Renonce)" : "", d.target && d.target !== 61 ? `, needs ${d.target}` : ""));
      if (d.called_ace) parts.push(h("div", { class: "row", id: "called-ace" }, h("span", {}, "Called: "), card(game, d.called_ace, { small: true })));
    }
    if (s.stoss && s.stoss.length) parts.push(h("h3", {}, "Stoß"), list(s.stoss.map((x) => `${seatName(x.seat)}: ${x.call}`), "stoss"));
    if (s.doppeln && s.doppeln.length) {
      parts.push(h("h3", {}, "Doppeln"), list(s.doppeln.map((x) => `${seatName(x.seat)}: ${x.call || (x.double ? "Ich dopple" : "Weiter")}`), "doppeln"));
    }
    parts.push(...schafkopfRules(game, view));
    if (s.card_points) parts.push(h("p", {}, `Card points: declarers ${s.card_points.declarers}, defenders ${s.card_points.defenders}`));
    if (s.last_deal) {
      const d = s.last_deal;
      parts.push(h("p", { class: "last-deal" }, `Last deal: ${d.game ? schafkopfGame(d.game, d.suit) : "thrown in"}`,
        d.won === undefined ? "" : d.won ? " won" : " lost", d.value !== undefined ? `, value ${d.value}` : ""));
    }
  } else if (game === "scharwenzel") {
    parts.push(h("p", {}, `Deal ${s.deal + 1} · dealer ${seatName(s.dealer)} · forehand ${seatName(s.forehand)}`));
    parts.push(h("h3", {}, "Bids"), list((s.bidding || []).map((b) =>
      `${seatName(b.seat)}: ${b.passed ? "pass" : `${b.value}${b.besser ? " besser" : ""}`}`), "bids"));
    if (s.trumps) {
      parts.push(h("p", { id: "trumps", class: "badge" }, `Trumps: ${suitName(game, s.trumps.suit)}`,
        s.trumps.after_all_passed ? " (all passed)" : s.trumps.named_by != null ? `, named by ${seatName(s.trumps.named_by)}` : ""));
      parts.push(h("div", { class: "row", id: "trump-order" }, h("span", {}, "Trump order: "), s.trumps.order.map((c) => card(game, c, { small: true }))));
    }
    if (s.tout) parts.push(h("p", { class: "badge" }, `Tout announced by ${seatName(s.tout.announced_by)} (side ${s.tout.side})`));
    if (s.tricks_taken) parts.push(h("p", {}, `Tricks: side 0 ${s.tricks_taken[0]}, side 1 ${s.tricks_taken[1]}`));
    if (s.last_deal_score) {
      const d = s.last_deal_score;
      parts.push(h("p", { class: "last-deal" }, `Last deal: tricks ${d.tricks.join(" : ")}, points ${d.points.join(" : ")}`,
        d.hooks && (d.hooks[0] || d.hooks[1]) ? `, hooks ${d.hooks.join(" : ")}` : "", d.bock ? " (Bock)" : ""));
    }
  }
  return h("section", { id: "game-info", "aria-label": "Game" }, parts);
}

function scoreSheet(game, view) {
  const scores = view.scores || {};
  const seats = (view.seats || []).map((_, seat) => seat);
  const head = h("tr", {}, h("th", { scope: "col" }, ""), seats.map((seat) => h("th", { scope: "col" }, seatLabel(view, seat))));
  const rows = [];
  const per = scores.rounds || scores.deals || [];
  per.forEach((points, i) => rows.push(h("tr", {}, h("th", { scope: "row" }, `${game === "scharfe-schoten" ? "Round" : "Deal"} ${i + 1}`),
    seats.map((seat) => h("td", {}, points[seat] ?? "")))));
  rows.push(h("tr", { class: "totals" }, h("th", { scope: "row" }, "Total"), seats.map((seat) => h("td", {}, (scores.totals || [])[seat] ?? ""))));
  if (scores.ranking) {
    rows.push(h("tr", { class: "ranking" }, h("th", { scope: "row" }, "Place"), seats.map((seat) => h("td", {}, PLACES[scores.ranking[seat]] || scores.ranking[seat]))));
  }
  const parts = [h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Score sheet (scrolls sideways)" }, h("table", { id: "score-sheet" }, h("caption", {}, "Score sheet"), h("thead", {}, head), h("tbody", {}, rows)))];
  if (game === "scharwenzel" && scores.sides) {
    const sides = scores.sides;
    parts.push(h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Sides (scrolls sideways)" }, h("table", { id: "side-sheet" }, h("caption", {}, "Sides"),
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", { scope: "col" }, "Side 0 (even seats)"), h("th", { scope: "col" }, "Side 1 (odd seats)"))),
      h("tbody", {}, ["points", "threads", "hooks", "total_threads"].map((key) =>
        h("tr", {}, h("th", { scope: "row" }, key.replace("_", " ")), h("td", {}, sides[key][0]), h("td", {}, sides[key][1])))))),
    sides.bock_carried ? h("p", {}, `Bock carried: ${sides.bock_carried}`) : null);
  }
  if (game === "schafkopf" && scores.stock) parts.push(h("p", {}, `Stock: ${scores.stock}`));
  return h("section", { id: "scores", "aria-label": "Scores" }, parts);
}

function handSection(game, view, onCommand, hinted) {
  const s = view.game_state || {};
  if (!s.hand) return null;
  const playable = new Map(view.legal.filter((c) => c.type === "play").map((c) => [c.card, c]));
  return h("section", { id: "hand", "aria-label": "Your hand" }, h("h2", {}, "Your hand"),
    s.hand.length ? h("div", { class: "cards" }, s.hand.map((code) => card(game, code, {
      legal: playable.has(code), superTrump: (s.super_trumps || []).includes(code),
      onclick: onCommand ? () => onCommand(playable.get(code)) : null,
      hinted: !!(onCommand && hinted && playable.has(code) && sameCommand(hinted, playable.get(code))),
    }))) : h("p", { class: "note" }, "No cards"));
}

// The risky call armed by a first press; the second press on it makes the move. Kept across
// redraws so that a new event between the two presses does not lose the first.
let armed = null;

function movesSection(game, view, onCommand, hinted) {
  const other = inSafeOrder((view.legal || []).filter((c) => c.type !== "play"));
  const reasons = onCommand ? missingReasons(game, view) : [];
  if ((!other.length || !onCommand) && !reasons.length) return null;
  const keys = new Set(other.map((c) => JSON.stringify(c)));
  if (armed && !keys.has(armed)) armed = null;
  return h("section", { id: "moves", "aria-label": "Your move", tabindex: "-1" }, h("h2", {}, "Your move"),
    onCommand && other.length ? h("div", { class: "buttons" }, other.map((command, i) => {
      const key = JSON.stringify(command);
      const words = describeCommand(game, view, command);
      const isArmed = armed === key;
      const isHinted = !!hinted && sameCommand(hinted, command);
      const described = [risky(command) ? "risky-help" : "", isHinted ? "hint-text" : ""].filter(Boolean).join(" ");
      return h("button", {
        type: "button",
        class: ["move", "legal", safe(command) ? "safe" : "", risky(command) ? "risky" : "", isArmed ? "armed" : "",
          isHinted ? "hinted" : ""].filter(Boolean).join(" "),
        dataset: { command: key, key: `move-${key}`, index: i, words },
        "aria-describedby": described || null,
        onclick: (event) => {
          if (risky(command) && armed !== key) {
            armed = key;
            const button = event.currentTarget;
            button.classList.add("armed");
            button.textContent = `Confirm: ${words}?`;
            document.getElementById("risky-help").textContent = `${words} is a risky call: press it again to confirm, Escape to think again.`;
            return;
          }
          armed = null;
          onCommand(command);
        },
        onkeydown: (event) => {
          if (event.key === "Escape" && armed === key) {
            armed = null;
            event.currentTarget.classList.remove("armed");
            event.currentTarget.textContent = words;
            document.getElementById("risky-help").textContent = "";
          }
        },
      }, isArmed ? `Confirm: ${words}?` : words);
    })) : null,
    h("p", { id: "risky-help", class: "note", "aria-live": "polite" },
      armed ? `${describeCommand(game, view, JSON.parse(armed))} is a risky call: press it again to confirm, Escape to think again.` : ""),
    reasons.map((line) => h("p", { class: "why note" }, line)));
}

// What anyone at the table wants to see at a glance: the game being played, its price, and
// who is ahead.
function glance(game, view) {
  const s = view.game_state;
  if (!s) return null;
  const parts = [];
  if (game === "schafkopf") {
    const d = s.declared;
    parts.push(d ? (d.declarer == null ? schafkopfGame(d.game, d.suit) : `${seatName(d.declarer)}: ${schafkopfGame(d.game, d.suit)}`)
      : "No game named yet");
    parts.push(`multiplier ×${s.multiplier || 1}`);
    if (s.stoss && s.stoss.length) parts.push(s.stoss.map((x) => x.call).join(", "));
    parts.push(`deal ${s.deal + 1} of ${s.deals}`);
  } else if (game === "scharwenzel") {
    parts.push(s.trumps ? `Trumps ${suitName(game, s.trumps.suit)}` : "Trumps not named yet");
    if (s.tricks_taken) parts.push(`tricks ${s.tricks_taken[0]} : ${s.tricks_taken[1]}`);
    if (s.tout) parts.push("Tout!");
    parts.push(`deal ${s.deal + 1}`);
  } else if (game === "scharfe-schoten") {
    if (s.ranking) parts.push(`Colours: ${s.ranking.map((c) => suitName(game, c)).join(" > ")}`);
    parts.push(`round ${s.round} of ${s.rounds}`);
  }
  const totals = view.scores && view.scores.totals;
  if (totals && totals.length) parts.push(`scores ${totals.join(" · ")}`);
  return h("p", { id: "glance", class: "glance" }, parts.join(" · "));
}

function finalBanner(view) {
  if (view.status !== "finished" || !view.scores) return null;
  const { totals = [], ranking = [] } = view.scores;
  const me = view.viewer;
  const text = me !== null && me !== undefined && ranking.length
    ? `Game over: you finished ${PLACES[ranking[me]] || ranking[me]} with ${totals[me]}`
    : "Game over";
  return h("p", { id: "final", class: "banner", role: "status" }, text, view.cut_short ? ` (cut short: ${view.cut_short})` : "");
}

// A game with hints, at the seat's own table: while it is the seat's turn a button asks for the
// search's suggestion; ``hint`` is what the page knows of it ({text, pending, onAsk}). The words
// are shown here; the page says them in its own live region, which outlives these redraws.
function hintSection(view, onCommand, hint) {
  if (!hint) return null;
  const myTurn = !!onCommand && (view.legal || []).length > 0;
  if (!myTurn && !hint.text) return null;
  return h("section", { id: "hint", "aria-label": "Hint" },
    myTurn ? h("button", {
      type: "button", id: "hint-ask", class: "hint-ask", dataset: { key: "hint-ask" },
      // Not disabled while it asks: a disabled button would lose the keyboard's focus to a move.
      "aria-disabled": hint.pending ? "true" : null, onclick: () => { if (!hint.pending) hint.onAsk(); },
    }, hint.pending ? "Hint (asking…)" : "Hint") : null,
    h("p", { id: "hint-text", class: ["note", hint.error ? "error" : ""].filter(Boolean).join(" ") }, hint.text || ""));
}

// The whole table. ``onCommand`` is null when the view is read-only (spectating, replay);
// ``hint`` is given at a seat's own table in a game with hints (see hintSection).
export function renderTable(view, { onCommand = null, connection = "", note = "", hint = null } = {}) {
  const hinted = hint && onCommand ? hint.command : null;
  const game = view.game;
  const state = view.game_state || {};
  const phase = view.status === "waiting" ? "waiting" : state.phase;
  return h("div", { class: `table game-${game}` },
    h("section", { id: "table-status", "aria-label": "Status" },
      h("h1", {}, GAME_NAMES[game] || game, " ", h("span", { class: "game-id" }, view.id)),
      h("p", {}, h("span", { id: "phase", dataset: { phase } }, `Phase: ${PHASES[phase] || phase}`), " · ",
        h("span", { id: "turn", class: toAct(view).includes(view.viewer) ? "my-turn" : "" }, turnText(view)), " · ",
        h("span", { id: "seq" }, `event ${view.seq}`), connection ? h("span", { id: "connection" }, ` · ${connection}`) : null),
      glance(game, view),
      note ? h("p", { id: "note", class: "note" }, note) : null),
    finalBanner(view),
    seatsSection(game, view),
    movesSection(game, view, onCommand, hinted),
    handSection(game, view, onCommand, hinted),
    hintSection(view, onCommand, hint),
    infoSection(game, view),
    scoreSheet(game, view));
}

