// The table: one view (GET /v1/games/{id}/view) drawn for a person, for every phase of every game.

import { GAME_NAMES, cardName, describeCommand, schafkopfGame, seatName, suitName } from "./cards.js";
import { h } from "./dom.js";
import { card } from "./faces.js";
import { colourCounts, feltSection, seatLabel, seatPlate, toAct } from "./felt.js";
import { handSection } from "./hand.js";
import { pushPanel, pushesOf } from "./passing.js";
import { inSafeOrder, missingReasons, risky, safe, sameCommand } from "./caution.js";

const PHASES = {
  dealing: "Dealing", predicting: "Predicting", playing: "Playing", taking: "Taking from the cupboard",
  finished: "Finished", announce: "Announcing", naming: "Naming the game", play: "Playing", doppeln: "Doppeln",
  exchange: "Hochzeit exchange", auction: "Auction", schieber: "Schieberrunde", push: "Passing cards",
  bidding: "Bidding", tout: "Tout round", waiting: "Waiting for players",
};

const PLACES = ["", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];

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

// Scharwenzel's sheet as its rulebook draws it: "Us" (the viewer's side) and "You", the
// points towards the next thread, each thread a line (|) and each hook a ┐, with their counts
// in words beside the marks (the marks are decoration). A spectator sees side 0 and side 1.
function usAndYou(view, sides) {
  const mine = view.viewer !== null && view.viewer !== undefined ? view.viewer % 2 : null;
  const order = mine === 1 ? [1, 0] : [0, 1];
  const name = (side) => (mine === null ? `Side ${side}` : side === mine ? "Us" : "You");
  const seatsOf = (side) => `${side === 0 ? "even" : "odd"} seats`;
  const marks = (mark, n) => [h("span", { class: "marks-drawn", "aria-hidden": "true" }, mark.repeat(Math.min(n, 24))), ` ${n}`];
  const rows = [["Points (24 draw a thread)", (side) => sides.points[side]], ["Threads |", (side) => marks("|", sides.threads[side])],
    ["Hooks ┐", (side) => marks("┐", sides.hooks[side])], ["Threads in all", (side) => sides.total_threads[side]]];
  return [h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Us and You (scrolls sideways)" },
    h("table", { id: "side-sheet" }, h("caption", {}, mine === null ? "Sides" : "Us and You"),
      h("thead", {}, h("tr", {}, h("th", {}, ""), order.map((side) => h("th", { scope: "col" }, `${name(side)} (side ${side}, ${seatsOf(side)})`)))),
      h("tbody", {}, rows.map(([label, cell]) => h("tr", {}, h("th", { scope: "row" }, label), order.map((side) => h("td", {}, cell(side)))))))),
  sides.bock_carried ? h("p", {}, `Bock carried: ${sides.bock_carried}`) : null];
}

// Scharfe Schoten's sheet: each seat's prediction as a tile (most and fewest, or hidden until
// all are revealed) beside its collection by colour, the colours in this round's ranking.
function collections(view) {
  const s = view.game_state || {};
  if (!s.collections) return [];
  const colours = s.ranking || ["R", "G", "Y", "B"];
  const game = "scharfe-schoten";
  const tile = (p) => (!p || !p.made ? "not yet" : p.most ? `most ${suitName(game, p.most)}, fewest ${suitName(game, p.fewest)}` : "hidden");
  return [h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Collections (scrolls sideways)" },
    h("table", { id: "collection-sheet" }, h("caption", {}, "Predictions and collections"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, ""), h("th", { scope: "col" }, "Prediction"),
        colours.map((c) => h("th", { scope: "col", class: `colour colour-${c}` }, suitName(game, c))))),
      h("tbody", {}, s.collections.map((counts, seat) => h("tr", { dataset: { seat } },
        h("th", { scope: "row" }, seatName(seat)), h("td", { class: "tile" }, tile((s.predictions || [])[seat])),
        colours.map((c) => h("td", {}, counts[c] ?? 0)))))))];
}

function scoreSheet(game, view) {
  const scores = view.scores || {};
  const seats = (view.seats || []).map((_, seat) => seat);
  // Schafkopf's money list: each deal's line says what was played, by whom, and how it ended.
  const lines = game === "schafkopf" ? (view.game_state || {}).deal_results || [] : null;
  const spare = () => (lines ? h("td", {}, "") : null); // a new cell for each row: a node lives in one place
  const head = h("tr", {}, h("th", { scope: "col" }, ""), lines ? h("th", { scope: "col" }, "Game") : null,
    seats.map((seat) => h("th", { scope: "col" }, seatLabel(view, seat))));
  const rows = [];
  const per = scores.rounds || scores.deals || [];
  per.forEach((points, i) => rows.push(h("tr", {}, h("th", { scope: "row" }, `${game === "scharfe-schoten" ? "Round" : "Deal"} ${i + 1}`),
    lines ? h("td", { class: "deal-game" }, dealLine(lines[i])) : null,
    seats.map((seat) => h("td", {}, points[seat] ?? "")))));
  rows.push(h("tr", { class: "totals" }, h("th", { scope: "row" }, "Total"), spare(), seats.map((seat) => h("td", {}, (scores.totals || [])[seat] ?? ""))));
  if (scores.ranking) {
    rows.push(h("tr", { class: "ranking" }, h("th", { scope: "row" }, "Place"), spare(),
      seats.map((seat) => h("td", {}, PLACES[scores.ranking[seat]] || scores.ranking[seat]))));
  }
  const parts = [h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Score sheet (scrolls sideways)" }, h("table", { id: "score-sheet" }, h("caption", {}, "Score sheet"), h("thead", {}, head), h("tbody", {}, rows)))];
  if (game === "scharwenzel" && scores.sides) parts.push(...usAndYou(view, scores.sides));
  if (game === "scharfe-schoten") parts.push(...collections(view));
  if (game === "schafkopf" && scores.stock) parts.push(h("p", {}, `Stock: ${scores.stock}`));
  return h("section", { id: "scores", "aria-label": "Scores" }, parts);
}

function dealLine(line) {
  if (!line) return "";
  if (!line.game) return "thrown in";
  const by = `${line.declarers.map(seatName).join(" + ")} ${line.won ? "won" : "lost"}`; // Ramsch: its loser
  const extra = line.schwarz ? ", schwarz" : line.schneider ? ", schneider" : "";
  return `${schafkopfGame(line.game, line.suit)}: ${by}${extra}`;
}

// Many calls as a grid, so that they do not push the hand off a phone's screen: Scharfe
// Schoten's twelve predictions (a row per colour predicted most, a column per colour predicted
// fewest) and Schafkopf's games to name (a row per game, a column per suit; the games without
// a suit in one row). Each button shows what its row and column leave unsaid; its aria-label
// says the whole call. Other calls (Weiter) stay a row of buttons before the grid.
const COLUMNS = { predict: ["R", "G", "Y", "B"], name_game: ["E", "G", "H", "S"], take: ["R", "G", "Y", "B"] };

function gridOf(game, command) {
  if (command.type === "predict") {
    return { row: command.most, label: `Most ${suitName(game, command.most)}`, column: command.fewest };
  }
  if (command.type === "take") return { row: "take", label: "Take", column: command.colour }; // each button says it whole
  if (command.type === "name_game" && command.suit) {
    return { row: command.game, label: schafkopfGame(command.game, null), column: command.suit };
  }
  if (command.type === "name_game") return { row: "", label: "", column: null };
  return null;
}

function arranged(game, commands, button) {
  const buttons = commands.map(button);
  const kind = commands.find((c) => COLUMNS[c.type]);
  if (!kind) return h("div", { class: "buttons" }, buttons);
  const columns = COLUMNS[kind.type];
  const plain = [];
  const rows = new Map();
  commands.forEach((c, i) => {
    const at = gridOf(game, c);
    if (!at) { plain.push(buttons[i]); return; }
    if (at.column) buttons[i].style.gridColumn = String(columns.indexOf(at.column) + 2);
    if (!rows.has(at.row)) rows.set(at.row, { label: at.label, cells: [] });
    rows.get(at.row).cells.push(buttons[i]);
  });
  const wide = rows.get(""); // the games without a suit, last
  rows.delete("");
  if (wide) rows.set("", wide);
  return [plain.length ? h("div", { class: "buttons" }, plain) : null,
    h("div", { class: "call-grid" },
      kind.type === "predict" ? h("p", { class: "legend", "aria-hidden": "true" }, "Predict: most (row), fewest (button)") : null,
      [...rows.values()].map(({ label, cells }) => (label
        ? h("div", { class: "call-row", role: "group", "aria-label": label }, h("span", { class: "row-label", "aria-hidden": "true" }, label), cells)
        : h("div", { class: "call-row-wide" }, cells))))];
}

// A button's words where the grid already says the rest (its aria-label says it whole).
function shortWords(game, command) {
  if (command.type === "predict") return suitName(game, command.fewest);
  if (command.type === "take") return suitName(game, command.colour);
  if (command.type === "name_game") return command.suit ? suitName(game, command.suit) : schafkopfGame(command.game, null);
  return null;
}

// The risky call armed by a first press; the second press on it makes the move. Kept across
// redraws so that a new event between the two presses does not lose the first.
let armed = null;

function movesSection(game, view, onCommand, hinted) {
  if (onCommand && pushesOf(view).length) {
    return h("section", { id: "moves", "aria-label": "Your move", tabindex: "-1" }, h("h2", { class: "visually-hidden" }, "Your move"),
      pushPanel(game, view, onCommand));
  }
  const other = inSafeOrder((view.legal || []).filter((c) => c.type !== "play"));
  const reasons = onCommand ? missingReasons(game, view) : [];
  if ((!other.length || !onCommand) && !reasons.length) return null;
  const keys = new Set(other.map((c) => JSON.stringify(c)));
  if (armed && !keys.has(armed)) armed = null;
  return h("section", { id: "moves", "aria-label": "Your move", tabindex: "-1" }, h("h2", { class: "visually-hidden" }, "Your move"),
    onCommand && other.length ? arranged(game, other, (command, i) => {
      const key = JSON.stringify(command);
      const words = describeCommand(game, view, command);
      const isArmed = armed === key;
      const isHinted = !!hinted && sameCommand(hinted, command);
      const described = [risky(command) ? "risky-help" : "", isHinted ? "hint-text" : ""].filter(Boolean).join(" ");
      return h("button", {
        type: "button",
        class: ["move", "legal", safe(command) ? "safe" : "", risky(command) ? "risky" : "", isArmed ? "armed" : "",
          isHinted ? "hinted" : ""].filter(Boolean).join(" "),
        dataset: { command: key, key: `move-${key}`, index: i, words }, "aria-label": shortWords(game, command) ? words : null,
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
            event.currentTarget.textContent = shortWords(game, command) || words;
            document.getElementById("risky-help").textContent = "";
          }
        },
      }, isArmed ? `Confirm: ${words}?` : shortWords(game, command) || words);
    }) : null,
    h("p", { id: "risky-help", class: "note", "aria-live": "polite" },
      armed ? `${describeCommand(game, view, JSON.parse(armed))} is a risky call: press it again to confirm, Escape to think again.` : ""),
    reasons.map((line) => h("p", { class: "why note" }, line)));
}

// The contract as a badge on the felt: the game being played (with the called Ace), its
// price, and where in the game the table is.
function glance(game, view) {
  const s = view.game_state;
  if (!s) return null;
  const parts = [];
  let called = null;
  if (game === "schafkopf") {
    const d = s.declared;
    parts.push(d ? (d.declarer == null ? schafkopfGame(d.game, d.suit) : `${seatName(d.declarer)}: ${schafkopfGame(d.game, d.suit)}`)
      : "No game named yet");
    if (d && d.called_ace) called = card(game, d.called_ace, { small: true, extra: "called" });
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
  return h("p", { id: "glance", class: "glance" }, parts.join(" · "), called ? [" · called ", called] : null);
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

// The whole table: the status bar and the felt fill the screen (the hand along its bottom
// edge), the game's details and the score sheet follow below. ``onCommand`` is null when the
// view is read-only (spectating, replay); ``hint`` is given at a seat's own table in a game
// with hints (see hintSection); ``transport`` ("socket" or "sse") says how the table follows the game.
export function renderTable(view, { onCommand = null, connection = "", transport = "", note = "", hint = null } = {}) {
  const hinted = hint && onCommand ? hint.command : null;
  const game = view.game;
  const state = view.game_state || {};
  const phase = view.status === "waiting" ? "waiting" : state.phase;
  const holding = !!(state.hand && state.hand.length);
  const mine = view.viewer !== null && view.viewer !== undefined && holding ? seatPlate(game, view, view.viewer) : null;
  return h("div", { class: `table game-${game}` },
    h("div", { class: "stage" },
      h("section", { id: "table-status", "aria-label": "Status" },
        h("h1", {}, GAME_NAMES[game] || game),
        h("p", {}, h("span", { id: "phase", dataset: { phase } }, `Phase: ${PHASES[phase] || phase}`), " · ",
          h("span", { id: "turn", class: toAct(view).includes(view.viewer) ? "my-turn" : "" }, turnText(view)), " · ",
          h("span", { id: "seq" }, `event ${view.seq}`), connection ? h("span", { id: "connection", dataset: { transport } }, ` · ${connection}`) : null),
        glance(game, view),
        note ? h("p", { id: "note", class: "note" }, note) : null),
      finalBanner(view),
      feltSection(game, view, [
        movesSection(game, view, onCommand, hinted),
        holding ? handSection(game, view, onCommand, hinted, mine) : null,
        hintSection(view, onCommand, hint)])),
    infoSection(game, view),
    scoreSheet(game, view));
}
