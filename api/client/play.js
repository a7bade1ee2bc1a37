// The page: a lobby (#), a table (#game/<id>) and a replay (#replay/<id>), all from the public API.

import { ApiError, request } from "./api.js";
import { GameFeed } from "./connection.js";
import { GAME_NAMES, describeCommand, describeEvent, seatName } from "./cards.js";
import { clear, h } from "./dom.js";
import { HintTimeout, PATIENCE_MS, askForHint } from "./hint.js";
import { playerPanel, takeSeat, tokenAt } from "./players.js";
import { profileGlance } from "./profile.js";
import { quickPlaySection } from "./quickplay.js";
import { replayScreen } from "./replay.js";
import { sameCommand } from "./caution.js";
import { renderTable } from "./table.js";
import { player, seats } from "./store.js";
import { tournamentLobby, tournamentScreen } from "./tournament.js";
import { yourGamesSection } from "./seated.js";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");

const PLAYERS = { "scharfe-schoten": [3, 4], schafkopf: [4], scharwenzel: [4, 6, 8] };
// Rules presets per game (see docs/games/*.md); the first is the default choice. A preset
// sets the controls below it; the controls' values are what is sent.
const PRESETS = {
  "scharfe-schoten": [["Short: 1 round", { rounds: 1 }], ["Standard: a round per player", {}]],
  schafkopf: [["Short: 1 deal", { deals: 1 }], ["Standard: 8 deals", {}], ["Tournament: 8 deals", { preset: "tournament" }],
    ["Short tournament: 1 deal", { preset: "tournament", deals: 1 }]],
  scharwenzel: [["Short: 1 deal", { deals: 1 }], ["Standard: 3 threads", {}], ["One thread", { threads: 1 }]],
};
// The options a person most often changes, as controls: [key, label, kind, default, choices].
// An empty number means the game's own default (for example a round per player).
const CONTROLS = {
  "scharfe-schoten": [["rounds", "Rounds (empty: one per player)", "number", "", [1, 12]]],
  schafkopf: [["deals", "Deals", "number", 8, [1, 400]],
    ["deck", "Deck", "select", "long", [["long", "long (32 cards)"], ["short", "short (24 cards)"]]],
    ["hochzeit", "Hochzeit", "checkbox", false], ["auction", "Auction bidding", "checkbox", false],
    ["doppeln", "Doppeln", "select", "off", [["off", "off"], ["all", "everyone"], ["not_dealer", "not the dealer"]]]],
  scharwenzel: [["deals", "Deals (empty: play for threads)", "number", "", [1, 1000]],
    ["threads", "Threads (empty: 3, or the deals above)", "number", "", [1, 100]],
    ["announced_tout", "Tout may be announced", "checkbox", true]],
};
// Bot seats default to the strongest bot at its default budget.
const BOTS = [["search", "search bot (strongest)"], ["heuristic", "heuristic bot"], ["random", "random bot"]];

function say(text) {
  statusLine.textContent = text;
}

function problemText(error) {
  if (error instanceof ApiError) return `${error.problem.code || error.status}: ${error.message}`;
  return `The server could not be reached (${error.message})`;
}

let current = null; // the screen shown now; its stop() ends its stream

function show(screen) {
  if (current && current.stop) current.stop();
  current = screen;
}

// --------------------------------------------------------------------------- lobby

// A game in the lobby's lists: its kind and when it was created, in the browser's time (the
// list names no players, and a hex id tells a person nothing).
function gameRow(entry, actions) {
  const created = entry.created_at ? new Date(entry.created_at) : null;
  const when = created && !Number.isNaN(created.getTime())
    ? `, created ${created.toLocaleString([], { dateStyle: "short", timeStyle: "short" })}` : "";
  return h("li", { dataset: { game: entry.id } },
    h("span", {}, `${GAME_NAMES[entry.game] || entry.game}, ${entry.players} players${entry.rated ? ", rated" : ""}${when}`), " ", actions);
}

function control(game, [key, label, kind, fallback, choices], preset) {
  const value = key in preset ? preset[key] : fallback;
  const id = `rule-${key}`;
  let input;
  if (kind === "checkbox") input = h("input", { type: "checkbox", id, name: key, checked: !!value, dataset: { rule: key, kind } });
  else if (kind === "select") {
    input = h("select", { id, name: key, dataset: { rule: key, kind } },
      choices.map(([v, words]) => h("option", { value: v, selected: v === value }, words)));
  } else {
    input = h("input", { type: "number", id, name: key, min: choices[0], max: choices[1], value: value === "" ? null : value,
      inputmode: "numeric", dataset: { rule: key, kind }, class: "number" });
  }
  return h("label", { for: id }, kind === "checkbox" ? [input, ` ${label}`] : [`${label} `, input]);
}

function controlValue(input) {
  if (input.dataset.kind === "checkbox") return input.checked;
  if (input.dataset.kind === "number") return input.value.trim() ? Number(input.value) : "";
  return input.value;
}

// Only the controls a person changed: the rest stay as the preset (or the game) has them.
function ruleValues(box) {
  const rules = {};
  for (const input of box.querySelectorAll("[data-rule]")) {
    const value = controlValue(input);
    if (JSON.stringify(value) !== input.dataset.initial && value !== "") rules[input.dataset.rule] = value;
  }
  return rules;
}

function lobby() {
  const me = player.get();
  const quick = quickPlaySection(context);
  show({ stop: quick.stop });
  const gameSelect = h("select", { id: "new-game", name: "game" },
    Object.entries(GAME_NAMES).map(([value, name]) => h("option", { value }, name)));
  const playersSelect = h("select", { id: "new-players", name: "players" });
  const presetSelect = h("select", { id: "new-rules", name: "rules" });
  const controls = h("fieldset", { id: "new-controls" });
  const seatList = h("fieldset", { id: "new-seats" });
  const custom = h("input", { id: "new-custom", name: "custom", placeholder: '{"stoss": 1}', size: 24 });
  // Hints are the table's agreement, recorded in the game for every seat to see (GameCreated.hints).
  const hints = h("input", { type: "checkbox", id: "new-hints", name: "hints", "aria-describedby": "new-hints-help" });

  function fillSeats() {
    const count = Number(playersSelect.value);
    clear(seatList).append(h("legend", {}, "Seats"), ...Array.from({ length: count }, (_, seat) => h("label", {},
      `${seatName(seat)} `, h("select", { name: `seat-${seat}`, dataset: { seat } },
        h("option", { value: "human", selected: seat === 0 }, "person"),
        BOTS.map(([value, words]) => h("option", { value, selected: seat !== 0 && value === "search" }, words))))));
  }

  function fillControls() {
    const game = gameSelect.value;
    const preset = PRESETS[game][Number(presetSelect.value)][1];
    clear(controls).append(h("legend", {}, "Rules"), ...CONTROLS[game].map((c) => control(game, c, preset)));
    for (const input of controls.querySelectorAll("[data-rule]")) input.dataset.initial = JSON.stringify(controlValue(input));
  }

  function fillGame() {
    const game = gameSelect.value;
    clear(playersSelect).append(...PLAYERS[game].map((n) => h("option", { value: n }, n)));
    clear(presetSelect).append(...PRESETS[game].map(([name], i) => h("option", { value: i }, name)));
    fillSeats();
    fillControls();
  }

  gameSelect.addEventListener("change", fillGame);
  playersSelect.addEventListener("change", fillSeats);
  presetSelect.addEventListener("change", fillControls);
  fillGame();

  async function create(event) {
    event.preventDefault();
    const game = gameSelect.value;
    const preset = PRESETS[game][Number(presetSelect.value)][1];
    let rules = { ...preset, ...ruleValues(controls) };
    if (custom.value.trim()) {
      try {
        rules = { ...rules, ...JSON.parse(custom.value) };
      } catch (_) {
        say("The advanced rules are not valid JSON");
        return;
      }
    }
    const seatKinds = Array.from(seatList.querySelectorAll("select"), (s) =>
      (s.value === "human" ? { kind: "human" } : { kind: "bot", bot: s.value }));
    try {
      const created = await request("POST", "/v1/games", {
        body: { game, players: Number(playersSelect.value), rules, seats: seatKinds, ...(hints.checked ? { hints: true } : {}) },
      });
      const mine = seatKinds.findIndex((s) => s.kind === "human");
      if (mine >= 0) await takeSeat(created.id, mine);
      location.hash = `#game/${created.id}`;
    } catch (error) {
      say(problemText(error));
    }
  }

  const open = h("ul", { id: "open-games" });
  const active = h("ul", { id: "active-games" });
  const finished = h("ul", { id: "finished-games" });
  clear(main).append(h("div", { class: "lobby" },
    h("h1", {}, "stich: play a game"),
    playerPanel(context),
    quick.element,
    me ? profileGlance(context, me) : null,
    yourGamesSection(context),
    h("form", { id: "create", onsubmit: create, "aria-label": "New game" },
      h("h2", {}, "New game"),
      h("label", {}, "Game ", gameSelect), " ",
      h("label", {}, "Players ", playersSelect), " ",
      h("label", {}, "Rules ", presetSelect),
      controls,
      seatList,
      h("p", {}, h("label", { for: "new-hints" }, hints, " Hints"), " ",
        h("span", { id: "new-hints-help", class: "note" }, "every seat may ask the search bot for a suggestion on its turn")),
      h("details", { id: "advanced" }, h("summary", {}, "Advanced: more rules as JSON"),
        h("label", {}, "Rules (JSON, merged over the choices above; see the game's page in the docs) ", custom)), " ",
      h("button", { type: "submit", id: "create-game" }, "Create and sit down")),
    h("section", {}, h("h2", {}, "Open games: take a free seat"), open),
    h("section", {}, h("h2", {}, "Games in play: watch"), active),
    h("section", {}, h("h2", {}, "Finished games: replay"), finished),
    tournamentLobby(context)));

  const fill = async (status, target, actions, shown = () => true) => {
    try {
      const page = await request("GET", `/v1/games?status=${status}&limit=20`);
      const games = page.games.filter(shown);
      clear(target).append(...(games.length ? games.map((entry) => gameRow(entry, actions(entry)))
        : [h("li", { class: "note" }, "none")]));
    } catch (error) {
      clear(target).append(h("li", {}, problemText(error)));
    }
  };
  fill("waiting", open, (entry) => entry.open_seats.map((seat) => h("button", {
    type: "button", onclick: async () => {
      try {
        await takeSeat(entry.id, seat);
        location.hash = `#game/${entry.id}`;
      } catch (error) { say(problemText(error)); }
    },
  }, `Take ${seatName(seat)}`)), (entry) => entry.open_seats.length > 0); // only games with a seat to take
  fill("active", active, (entry) => h("a", { href: `#game/${entry.id}` }, "Watch"));
  fill("finished", finished, (entry) => h("a", { href: `#replay/${entry.id}` }, "Replay"));
}

// --------------------------------------------------------------------------- table

function table(gameId) {
  const mine = seats.get(gameId);
  // The seat's token, or the signed-in player's where it sits (decided again on the first view,
  // whose seats name their players); null to watch. A token refused here is not tried again.
  let token = tokenAt(gameId);
  let refused = false;
  let view = null;
  let connection = "connecting";
  let latest = 0; // the latest event's seq
  let waitingForView = null; // the timer of a fetch put off for a view the socket may push
  let note = "";
  let busy = false;
  let fetching = null;
  let again = false;
  const log = [];
  // The hint asked for at one seq: {seq, pending, command, text, error, controller}; null for none.
  let hint = null;
  const screen = {
    stop() {
      if (screen.follower) screen.follower.stop();
      clearTimeout(waitingForView);
      if (hint && hint.controller) hint.controller.abort();
    },
  };
  show(screen);
  // What the hint says, in a live region that outlives the table's redraws (a region drawn anew
  // with its words in it is not reliably read out).
  const hintSaid = h("p", { id: "hint-status", class: "visually-hidden", role: "status", "aria-live": "polite" });

  const logList = h("ol", { id: "log", "aria-label": "What happened", tabindex: "0" }); // it scrolls: reachable by keyboard
  const area = h("div", { id: "table-area" });
  const links = h("p", { class: "links" });
  // The events in words, folded away: the table itself tells the game; this is for looking back.
  clear(main).append(area, hintSaid, links, h("details", { id: "events", "aria-label": "Events" },
    h("summary", {}, "What happened (the events, in words)"), logList, h("p", { class: "note" }, "Game ", h("code", {}, gameId))));

  function sayHint(text) {
    hintSaid.textContent = "";
    hintSaid.textContent = text;
  }

  // A hint is for its seq only: once the view has moved on its mark goes, and a search still
  // being waited for is no longer waited for.
  function forgetStaleHint() {
    if (!hint || !view || hint.seq === view.seq) return;
    const waiting = hint.pending;
    if (hint.controller) hint.controller.abort();
    hint = null;
    sayHint(waiting ? "The game moved on before the hint came." : "");
  }

  async function askHint() {
    if (!view || !token || (hint && hint.pending && hint.seq === view.seq)) return;
    const seq = view.seq;
    const controller = new AbortController();
    hint = { seq, pending: true, text: "Asking the search bot for a hint…", controller };
    draw();
    sayHint(hint.text);
    const mine = hint;
    try {
      const answer = await askForHint(gameId, view.viewer, token, {
        signal: controller.signal,
        onWait: (waited) => {
          if (hint !== mine) return;
          mine.text = `The search bot is thinking… (${Math.round(waited / 1000)} of ${PATIENCE_MS / 1000} s)`;
          draw();
        },
      });
      if (hint !== mine) return;
      if (answer.seq !== view.seq) {
        hint = { seq: view.seq, text: "The game moved on before the hint came.", error: true };
      } else {
        const legal = (view.legal || []).find((c) => sameCommand(c, answer.command));
        hint = { seq, command: legal || null, text: legal ? `Hint: ${describeCommand(view.game, view, legal)}`
          : `The hint (${describeCommand(view.game, view, answer.command)}) is not one of your moves now: ask again.`, error: !legal };
      }
    } catch (error) {
      if (hint !== mine || controller.signal.aborted) return; // the view moved on: forgetStaleHint said so
      const text = error instanceof HintTimeout ? `No hint: ${error.message}. Press Hint to ask again.`
        : `No hint: ${problemText(error)}`;
      hint = { seq, text, error: true };
    }
    draw(); // which forgets the hint if the view has moved on meanwhile
    if (hint) sayHint(hint.text);
  }

  function draw() {
    if (!view) return;
    document.title = `${GAME_NAMES[view.game] || view.game}: ${view.status === "finished" ? "finished" : "at the table"} · stich`;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const mayAct = token && !busy && view.legal && view.legal.length ? act : null;
    forgetStaleHint();
    const hinting = view.hints && token && view.status !== "finished"
      ? { ...(hint || {}), onAsk: askHint } : null;
    const transport = screen.follower ? screen.follower.transport : "connecting";
    clear(area).append(renderTable(view, { onCommand: mayAct, connection, transport, note, hint: hinting }));
    const free = (view.seats || []).filter((s) => s.kind === "human" && !s.taken);
    clear(links).append(h("a", { href: "#" }, "Lobby"), " · ", h("a", { href: `#replay/${gameId}` }, "Replay"),
      ...(mine && mine.tournament ? [" · ", h("a", { href: `#tournament/${mine.tournament}`, id: "back-to-tournament" }, "Back to the tournament")] : []),
      ...(token ? [] : free.map((s) => [" · ", h("button", {
        type: "button", class: "take-seat", onclick: async () => {
          try {
            await takeSeat(gameId, s.seat);
            table(gameId);
          } catch (error) { say(problemText(error)); }
        },
      }, `Take ${seatName(s.seat)}`)])));
    // Keep the keyboard where it was; when a move is due and focus is nowhere, offer the safest:
    // a pass, else a legal card, else a call that is not risky. A Tout or a Solo never gets the
    // focus by itself, so an Enter pressed by habit cannot call one.
    const kept = focused && area.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (kept && !kept.disabled) kept.focus();
    else if (mayAct && (!document.activeElement || document.activeElement === document.body || focused)) {
      const first = area.querySelector("#moves button.safe") || area.querySelector("#hand button.legal")
        || area.querySelector("#moves button:not(.risky)") || area.querySelector("#moves");
      if (first) first.focus();
    }
  }

  async function refresh() {
    if (fetching) { again = true; return fetching; }
    fetching = (async () => {
      do {
        again = false;
        try {
          const fresh = await request("GET", `/v1/games/${gameId}/view`, { token });
          const own = token || refused ? null : tokenAt(gameId, fresh);
          if (own) {
            token = own; // the signed-in player sits here: its own view, with its hand and moves
            again = true;
          } else if (!view || fresh.seq >= view.seq) view = fresh;
        } catch (error) {
          if (error instanceof ApiError && error.status === 403 && token) {
            const whose = player.get() && player.get().token === token ? "Your player token" : "That seat's token";
            seats.forget(gameId); // the token is not this game's any more: watch instead
            token = null;
            refused = true;
            again = true;
            say(`${whose} was refused here; watching instead.`);
          } else {
            say(problemText(error));
          }
        }
      } while (again);
      fetching = null;
      draw();
    })();
    return fetching;
  }

  async function act(command) {
    if (!command || busy) return;
    busy = true;
    note = "";
    draw();
    try {
      let answer;
      try {
        answer = await screen.follower.send(view.seq, command);
      } catch (error) {
        // Someone else moved meanwhile (predictions are simultaneous): if the move is still
        // allowed on the fresh view, send it again against that one.
        if (!(error instanceof ApiError) || error.status !== 412) throw error;
        await refresh();
        if (!view.legal.some((c) => JSON.stringify(c) === JSON.stringify(command))) throw error;
        answer = await screen.follower.send(view.seq, command);
      }
      if (answer.seq >= view.seq) view = { ...answer.view, id: gameId, seq: answer.seq };
    } catch (error) {
      note = problemText(error);
      await refresh();
    } finally {
      busy = false;
      draw();
    }
  }

  // Oldest first, numbered by seq (the list's own numbers), the latest 30 kept and in sight.
  function onEvent(event) {
    log.push(h("li", { value: event.seq, dataset: { seq: event.seq } }, describeEvent(view ? view.game : "", event)));
    if (log.length > 30) log.shift();
    clear(logList).append(...log);
    logList.scrollTop = logList.scrollHeight;
    latest = Math.max(latest, event.seq);
    if (view && event.seq <= view.seq) return;
    if (!screen.follower || !screen.follower.pushesViews) {
      refresh();
      return;
    }
    // On the socket the seat's view follows the events that make it its turn: fetch the view
    // only if none came with them (the others' moves, the seat still waiting).
    clearTimeout(waitingForView);
    waitingForView = setTimeout(() => { if (!view || view.seq < latest) refresh(); }, 50);
  }

  function onView(pushed) {
    if (view && pushed.seq < view.seq) return;
    view = pushed;
    draw();
  }

  function onState(state) {
    connection = { live: "live", reconnecting: "reconnecting…", finished: "", failed: "not following" }[state] ?? state;
    draw();
  }

  refresh().then(() => {
    if (!view) return;
    // Events since the start, so the log tells the story so far; then what comes next.
    // On the page's socket where it opens, else the SSE stream (connection.js).
    screen.follower = new GameFeed(gameId, token, Math.max(0, view.seq - 30), { onEvent, onView, onState }).start();
    window.stichFollower = screen.follower; // for the browser tests: drop the connection and see it resume
  });
}

// --------------------------------------------------------------------------- routes

// What the tournament screens need from the page.
const context = { main, say, problemText, show, lobby, showing: () => current };

function route() {
  const [, kind, id] = /^#(game|replay|tournament)\/([A-Za-z0-9_-]+)$/.exec(location.hash) || [];
  // The table fills the screen (play.css); the title names what is shown, never a game's id.
  document.body.dataset.screen = kind || "lobby";
  document.title = kind === "tournament" ? "Tournament · stich" : kind ? "stich" : "stich: play";
  if (kind === "game") table(id);
  else if (kind === "replay") replayScreen(context, id);
  else if (kind === "tournament") tournamentScreen(context, id);
  else lobby();
}

window.addEventListener("hashchange", route);
route();
