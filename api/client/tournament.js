// Tournaments in the browser: create one with bots, join a human slot, watch the standings
// live from the tournament's event stream, and take this round's seat straight into the table.

import { EventFollower, request } from "./api.js";
import { GAME_NAMES } from "./cards.js";
import { clear, h } from "./dom.js";
import { seats, tournaments } from "./store.js";

const TABLE_SIZE = { "scharfe-schoten": 3, schafkopf: 4, scharwenzel: 4 };

function who(row, mine) {
  if (mine && row.participant === mine.participant) return `Participant ${row.participant} (you)`;
  return `Participant ${row.participant} (${row.kind === "bot" ? `bot: ${row.bot || "heuristic"}` : "person"})`;
}

function standingsTable(t, mine) {
  const rows = t.standings || [];
  if (!rows.length) return h("p", { id: "standings", class: "note" }, "No round finished yet.");
  return h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Standings (scrolls sideways)" },
    h("table", { id: "standings" }, h("caption", {}, t.final ? "Final standings" : "Standings"),
      h("thead", {}, h("tr", {}, ["Place", "Participant", "Points", "Results", "Wins", "Rounds"].map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows.map((r) => h("tr", { class: mine && r.participant === mine.participant ? "me" : "", dataset: { participant: r.participant } },
        h("td", {}, r.place), h("th", { scope: "row" }, who(r, mine)), h("td", {}, r.points), h("td", {}, r.results),
        h("td", {}, r.wins), h("td", {}, r.rounds_played))))));
}

function scheduleList(t) {
  return h("ol", { id: "rounds" }, (t.schedule || []).map((round) => h("li", { value: round.round },
    `Round ${round.round}${round.finished ? " (finished)" : ""}: `,
    round.tables.map((table, i) => [i ? " · " : "", `table ${table.table + 1} `,
      table.game_id ? h("a", { href: `#${table.finished ? "replay" : "game"}/${table.game_id}` }, table.finished ? "replay" : "watch")
        : "not open yet"]))));
}

// The lobby's part: a form that creates a tournament of one person and bots, and the
// tournaments to open (the server's list, and those this browser joined).
export function tournamentLobby(ctx) {
  const game = h("select", { id: "t-game", name: "game" }, Object.entries(GAME_NAMES).map(([v, n]) => h("option", { value: v }, n)));
  const tables = h("select", { id: "t-tables", name: "tables" }, [1, 2].map((n) => h("option", { value: n }, n)));
  const rounds = h("input", { id: "t-rounds", name: "rounds", type: "number", min: 1, max: 16, value: 1, inputmode: "numeric" });
  const deals = h("input", { id: "t-deals", name: "deals", type: "number", min: 1, max: 12, value: 1, inputmode: "numeric" });
  const bot = h("select", { id: "t-bot", name: "bot" }, [["search", "search bots (strongest)"], ["heuristic", "heuristic bots"],
    ["random", "random bots"]].map(([v, n]) => h("option", { value: v }, n)));

  async function create(event) {
    event.preventDefault();
    const size = TABLE_SIZE[game.value] * Number(tables.value);
    const participants = [{ kind: "human" }, ...Array.from({ length: size - 1 }, () => ({ kind: "bot", bot: bot.value }))];
    try {
      const created = await request("POST", "/v1/tournaments", {
        body: { name: `${GAME_NAMES[game.value]} in the browser`, game: game.value, rules: {}, participants,
          rounds: Number(rounds.value), deals_per_table: Number(deals.value), seating: "random" },
      });
      const joined = await request("POST", `/v1/tournaments/${created.id}/participants/0`);
      tournaments.set(created.id, 0, joined.token);
      await request("POST", `/v1/tournaments/${created.id}/start`, { token: created.token });
      location.hash = `#tournament/${created.id}`;
    } catch (error) {
      ctx.say(ctx.problemText(error));
    }
  }

  const listed = h("ul", { id: "tournaments" });
  (async () => {
    let entries = [];
    try {
      entries = (await request("GET", "/v1/tournaments?limit=20")).tournaments || [];
    } catch (_) { /* an older server without the list: this browser's own tournaments only */ }
    const known = new Set(entries.map((e) => e.id));
    const mine = tournaments.ids().filter((id) => !known.has(id)).map((id) => ({ id }));
    const all = [...entries, ...mine];
    clear(listed).append(...(all.length ? all.map((e) => h("li", { dataset: { tournament: e.id } },
      e.name ? `${e.name}: ` : "", e.game ? `${GAME_NAMES[e.game] || e.game}${e.status ? `, ${e.status}` : ""} ` : "",
      e.name ? null : h("code", {}, e.id), " ",
      tournaments.get(e.id) ? "(you play) " : "", h("a", { href: `#tournament/${e.id}` }, e.status === "finished" ? "Standings" : "Open")))
      : [h("li", { class: "note" }, "none")]));
  })();

  return h("section", { class: "tournaments", "aria-label": "Tournaments" }, h("h2", {}, "Tournaments"),
    h("form", { id: "create-tournament", onsubmit: create, "aria-label": "New tournament" },
      h("label", {}, "Game ", game), " ", h("label", {}, "Tables ", tables), " ", h("label", {}, "Rounds ", rounds), " ",
      h("label", {}, "Deals per table ", deals), " ", h("label", {}, "Bots ", bot), " ",
      h("button", { type: "submit", id: "create-tournament-button" }, "Create with bots and join")),
    listed);
}

// A tournament: its rounds and standings, kept live by its event stream; for a participant of
// this browser, "Take my seat" for the round's table.
export function tournamentScreen(ctx, id) {
  const mine = tournaments.get(id);
  const area = h("div", { id: "tournament" });
  const screen = { stop() { if (screen.follower) screen.follower.stop(); } };
  ctx.show(screen);
  clear(ctx.main).append(area);
  let fetching = false;
  let again = false;

  async function takeMySeat() {
    try {
      const seat = await request("POST", `/v1/tournaments/${id}/participants/${mine.participant}/seat`, { token: mine.token });
      seats.set(seat.game_id, seat.seat, seat.token, { tournament: id });
      location.hash = `#game/${seat.game_id}`;
    } catch (error) {
      ctx.say(error.status === 409 ? "No table for you yet: the round's other tables still play, or the next round is being drawn."
        : ctx.problemText(error));
    }
  }

  async function join(participant) {
    try {
      const joined = await request("POST", `/v1/tournaments/${id}/participants/${participant}`);
      tournaments.set(id, participant, joined.token);
      tournamentScreen(ctx, id);
    } catch (error) { ctx.say(ctx.problemText(error)); }
  }

  function draw(t) {
    const open = (t.participants || []).filter((p) => p.kind === "human" && !p.joined);
    const myTable = mine && (t.schedule || []).flatMap((r) => r.finished ? [] : r.tables)
      .find((table) => table.game_id && !table.finished && table.participants.includes(mine.participant));
    // append() would write a null as the word "null": leave the parts not shown out.
    clear(area).append(...[
      h("h1", {}, t.name || "Tournament", " ", h("span", { class: "game-id" }, t.id)),
      h("p", { id: "tournament-status", class: "glance" }, `${GAME_NAMES[t.game] || t.game} · ${t.status}`,
        ` · round ${t.round} of ${t.rounds}`, t.paused ? " · paused" : "", t.final ? " · final" : ""),
      mine && t.status === "active" ? h("p", {}, h("button", {
        type: "button", id: "take-my-seat", class: "move legal", onclick: takeMySeat,
      }, myTable ? `Take my seat: round ${t.round}` : "Take my seat (when my table opens)")) : null,
      !mine && open.length ? h("p", {}, open.map((p) => h("button", { type: "button", class: "join", onclick: () => join(p.participant) },
        `Join as participant ${p.participant}`))) : null,
      standingsTable(t, mine), h("h2", {}, "Rounds"), scheduleList(t),
      h("p", { class: "links" }, h("a", { href: "#" }, "Lobby"))].filter(Boolean));
  }

  async function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    do {
      again = false;
      try { draw(await request("GET", `/v1/tournaments/${id}`)); } catch (error) { ctx.say(ctx.problemText(error)); }
    } while (again);
    fetching = false;
  }

  refresh().then(() => {
    screen.follower = new EventFollower(id, null, null, {
      path: `/v1/tournaments/${id}/events/stream`, onEvent: () => refresh(), onState: () => {},
    }).start();
    window.stichTournamentFollower = screen.follower; // for the browser tests
  });
}
