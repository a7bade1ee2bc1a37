// The page: a lobby (#), a table (#game/<id>) and a replay (#replay/<id>), all from the public API.

import { ApiError, EventFollower, request, sendCommand } from "./api.js";
import { GAME_NAMES, describeEvent, seatName } from "./cards.js";
import { clear, h } from "./dom.js";
import { renderTable } from "./table.js";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");

const PLAYERS = { "scharfe-schoten": [3, 4], schafkopf: [4], scharwenzel: [4, 6, 8] };
// Rules presets per game (see docs/games/*.md); the first is the default choice.
const PRESETS = {
  "scharfe-schoten": [["Short: 1 round", { rounds: 1 }], ["Standard: a round per player", {}]],
  schafkopf: [["Short: 1 deal", { deals: 1 }], ["Standard: 8 deals", {}], ["Tournament: 8 deals", { preset: "tournament" }],
    ["Short tournament: 1 deal", { preset: "tournament", deals: 1 }]],
  scharwenzel: [["Short: 1 deal", { deals: 1 }], ["Standard: 3 threads", {}], ["One thread", { threads: 1 }]],
};

// A seat's token is kept per game, so a reload (or coming back later) keeps the seat.
const seats = {
  get(gameId) {
    try { return JSON.parse(localStorage.getItem(`stich.seat.${gameId}`)); } catch (_) { return null; }
  },
  set(gameId, seat, token) { localStorage.setItem(`stich.seat.${gameId}`, JSON.stringify({ seat, token })); },
  forget(gameId) { localStorage.removeItem(`stich.seat.${gameId}`); },
};

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

function gameRow(entry, actions) {
  return h("li", { dataset: { game: entry.id } },
    h("span", {}, `${GAME_NAMES[entry.game] || entry.game}, ${entry.players} players`), " ",
    h("code", {}, entry.id), " ", actions);
}

async function takeSeat(gameId, seat) {
  const answer = await request("POST", `/v1/games/${gameId}/seats/${seat}`);
  seats.set(gameId, seat, answer.token);
  return answer;
}

function lobby() {
  show({});
  const gameSelect = h("select", { id: "new-game", name: "game" },
    Object.entries(GAME_NAMES).map(([value, name]) => h("option", { value }, name)));
  const playersSelect = h("select", { id: "new-players", name: "players" });
  const presetSelect = h("select", { id: "new-rules", name: "rules" });
  const seatList = h("fieldset", { id: "new-seats" });
  const custom = h("input", { id: "new-custom", name: "custom", placeholder: '{"rounds": 2}', size: 30 });

  function fillSeats() {
    const count = Number(playersSelect.value);
    clear(seatList).append(h("legend", {}, "Seats"), ...Array.from({ length: count }, (_, seat) => h("label", {},
      `${seatName(seat)} `, h("select", { name: `seat-${seat}`, dataset: { seat } },
        h("option", { value: "human", selected: seat === 0 }, "person"),
        h("option", { value: "bot", selected: seat !== 0 }, "random bot"),
        h("option", { value: "heuristic" }, "heuristic bot"),
        h("option", { value: "search" }, "search bot")))));
  }

  function fillGame() {
    const game = gameSelect.value;
    clear(playersSelect).append(...PLAYERS[game].map((n) => h("option", { value: n }, n)));
    clear(presetSelect).append(...PRESETS[game].map(([name], i) => h("option", { value: i }, name)));
    fillSeats();
  }

  gameSelect.addEventListener("change", fillGame);
  playersSelect.addEventListener("change", fillSeats);
  fillGame();

  async function create(event) {
    event.preventDefault();
    const game = gameSelect.value;
    let rules = { ...PRESETS[game][Number(presetSelect.value)][1] };
    if (custom.value.trim()) {
      try {
        rules = { ...rules, ...JSON.parse(custom.value) };
      } catch (_) {
        say("The extra rules are not valid JSON");
        return;
      }
    }
    const seatKinds = Array.from(seatList.querySelectorAll("select"), (s) =>
      (s.value === "human" ? { kind: "human" } : { kind: "bot", bot: s.value === "bot" ? "random" : s.value }));
    try {
      const created = await request("POST", "/v1/games", {
        body: { game, players: Number(playersSelect.value), rules, seats: seatKinds },
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
    h("form", { id: "create", onsubmit: create, "aria-label": "New game" },
      h("h2", {}, "New game"),
      h("label", {}, "Game ", gameSelect), " ",
      h("label", {}, "Players ", playersSelect), " ",
      h("label", {}, "Rules ", presetSelect),
      seatList,
      h("label", {}, "More rules (JSON, optional) ", custom), " ",
      h("button", { type: "submit", id: "create-game" }, "Create and sit down")),
    h("section", {}, h("h2", {}, "Open games: take a free seat"), open),
    h("section", {}, h("h2", {}, "Games in play: watch"), active),
    h("section", {}, h("h2", {}, "Finished games: replay"), finished)));

  const fill = async (status, target, actions) => {
    try {
      const page = await request("GET", `/v1/games?status=${status}&limit=20`);
      clear(target).append(...(page.games.length ? page.games.map((entry) => gameRow(entry, actions(entry)))
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
  }, `Take ${seatName(seat)}`)));
  fill("active", active, (entry) => h("a", { href: `#game/${entry.id}` }, "Watch"));
  fill("finished", finished, (entry) => h("a", { href: `#replay/${entry.id}` }, "Replay"));
}

// --------------------------------------------------------------------------- table

function table(gameId) {
  const mine = seats.get(gameId);
  const token = mine ? mine.token : null;
  let view = null;
  let connection = "connecting";
  let note = "";
  let busy = false;
  let fetching = null;
  let again = false;
  const log = [];
  const screen = { stop() { if (screen.follower) screen.follower.stop(); } };
  show(screen);

  const logList = h("ol", { id: "log", "aria-label": "What happened" });
  const area = h("div", { id: "table-area" });
  const links = h("p", { class: "links" });
  clear(main).append(area, links, h("section", { "aria-label": "Events" }, h("h2", {}, "What happened"), logList));

  function draw() {
    if (!view) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const mayAct = token && !busy && view.legal && view.legal.length ? act : null;
    clear(area).append(renderTable(view, { onCommand: mayAct, connection, note }));
    const free = (view.seats || []).filter((s) => s.kind === "human" && !s.taken);
    clear(links).append(h("a", { href: "#" }, "Lobby"), " · ", h("a", { href: `#replay/${gameId}` }, "Replay"),
      ...(token ? [] : free.map((s) => [" · ", h("button", {
        type: "button", class: "take-seat", onclick: async () => {
          try {
            await takeSeat(gameId, s.seat);
            table(gameId);
          } catch (error) { say(problemText(error)); }
        },
      }, `Take ${seatName(s.seat)}`)])));
    // Keep the keyboard where it was; when a move is due and focus is nowhere, offer the first one.
    const kept = focused && area.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (kept && !kept.disabled) kept.focus();
    else if (mayAct && (!document.activeElement || document.activeElement === document.body || focused)) {
      const first = area.querySelector("#moves button, #hand button.legal");
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
          if (!view || fresh.seq >= view.seq) view = fresh;
        } catch (error) {
          if (error instanceof ApiError && error.status === 403) {
            seats.forget(gameId); // the token is not this game's any more: watch instead
            say("That seat's token was refused; watching instead.");
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
        answer = await sendCommand(gameId, token, view.seq, command);
      } catch (error) {
        // Someone else moved meanwhile (predictions are simultaneous): if the move is still
        // allowed on the fresh view, send it again against that one.
        if (!(error instanceof ApiError) || error.status !== 412) throw error;
        await refresh();
        if (!view.legal.some((c) => JSON.stringify(c) === JSON.stringify(command))) throw error;
        answer = await sendCommand(gameId, token, view.seq, command);
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

  function onEvent(event) {
    log.unshift(h("li", { dataset: { seq: event.seq } }, `${event.seq}. ${describeEvent(view ? view.game : "", event)}`));
    if (log.length > 30) log.pop();
    clear(logList).append(...log);
    if (!view || event.seq > view.seq) refresh();
  }

  function onState(state) {
    connection = { live: "live", reconnecting: "reconnecting…", finished: "", failed: "not following" }[state] ?? state;
    draw();
  }

  refresh().then(() => {
    if (!view) return;
    // Events since the start, so the log tells the story so far; then what comes next.
    screen.follower = new EventFollower(gameId, token, Math.max(0, view.seq - 30), { onEvent, onState }).start();
    window.stichFollower = screen.follower; // for the browser tests: drop the stream and see it resume
  });
}

// --------------------------------------------------------------------------- replay

async function replay(gameId) {
  show({});
  clear(main).append(h("p", {}, "Loading the replay…"));
  let latest;
  const events = new Map();
  try {
    latest = await request("GET", `/v1/games/${gameId}/view?at=1`);
    for (let after = 0; after < latest.latest_seq;) {
      const page = await request("GET", `/v1/games/${gameId}/events?after=${after}`);
      if (!page.events.length) break;
      for (const e of page.events) events.set(e.seq, e);
      after = page.events[page.events.length - 1].seq;
    }
  } catch (error) {
    clear(main).append(h("p", {}, problemText(error)), h("a", { href: "#" }, "Lobby"));
    return;
  }
  const last = latest.latest_seq;
  const slider = h("input", {
    type: "range", id: "replay-slider", min: 1, max: last, value: last, step: 1,
    "aria-label": "Move through the game, event by event",
  });
  const caption = h("p", { id: "replay-event", "aria-live": "polite" });
  const area = h("div", { id: "table-area" });
  const step = (delta) => () => {
    slider.value = String(Math.min(last, Math.max(1, Number(slider.value) + delta)));
    slider.dispatchEvent(new Event("input"));
  };
  clear(main).append(h("section", { id: "replay", "aria-label": "Replay" },
    h("h1", {}, "Replay ", h("code", {}, gameId)),
    h("div", { class: "row" }, h("button", { type: "button", id: "replay-back", onclick: step(-1) }, "◀ Back"), slider,
      h("button", { type: "button", id: "replay-forward", onclick: step(1) }, "Forward ▶")),
    caption), area, h("p", { class: "links" }, h("a", { href: "#" }, "Lobby"), " · ", h("a", { href: `#game/${gameId}` }, "Table")));

  let wanted = 0;
  async function at(seq) {
    wanted = seq;
    const event = events.get(seq);
    const told = `Event ${seq} of ${last}${event ? `: ${describeEvent(latest.game, event)}` : ""}`;
    try {
      const past = await request("GET", `/v1/games/${gameId}/view?at=${seq}`);
      if (wanted !== seq) return; // the slider moved on meanwhile
      caption.textContent = told;
      clear(area).append(renderTable(past, {}));
    } catch (error) {
      if (wanted === seq) caption.textContent = `${told} (the table at this moment cannot be shown: ${problemText(error)})`;
    }
  }
  slider.addEventListener("input", () => at(Number(slider.value)));
  await at(last);
  slider.focus();
}

// --------------------------------------------------------------------------- routes

function route() {
  const [, kind, id] = /^#(game|replay)\/([A-Za-z0-9_-]+)$/.exec(location.hash) || [];
  if (kind === "game") table(id);
  else if (kind === "replay") replay(id);
  else lobby();
}

window.addEventListener("hashchange", route);
route();
