// "Your games" in the lobby: the games this browser holds a seat in (store.js keeps their ids,
// newest first), each with where it stands and the way back to it: resume a game waiting or in
// play, replay one finished. A game the server no longer knows is forgotten here too.
import { ApiError, request } from "./api.js";
import { GAME_NAMES, seatName } from "./cards.js";
import { h, clear } from "./dom.js";
import { tokenAt } from "./players.js";
import { seats } from "./store.js";

const SHOWN = 10; // the newest ten: one request each when the lobby opens

function row(id, kept, summary) {
  const name = GAME_NAMES[summary.game] || summary.game;
  const where = kept.player ? `as ${kept.player}` : seatName(kept.seat);
  const state = { waiting: "waiting for players", active: "in play", finished: "finished" }[summary.status] || summary.status;
  const link = summary.status === "finished"
    ? h("a", { href: `#replay/${id}` }, "Replay")
    : h("a", { href: `#game/${id}` }, "Resume");
  return h("li", { dataset: { game: id, status: summary.status } },
    `${name}, ${summary.players} players, ${where}: ${state}${kept.tournament ? " (a tournament's table)" : ""} `, link);
}

export function yourGamesSection(ctx) {
  const list = h("ul", { id: "your-games" });
  const ids = seats.ids().slice(0, SHOWN);
  (async () => {
    const rows = await Promise.all(ids.map(async (id) => {
      const kept = seats.get(id);
      if (!kept) return null;
      try {
        return row(id, kept, await request("GET", `/v1/games/${encodeURIComponent(id)}`, { token: tokenAt(id) }));
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) { seats.forget(id); return null; }
        return h("li", { dataset: { game: id } }, `A game: ${ctx.problemText(error)}`);
      }
    }));
    const shown = rows.filter(Boolean);
    clear(list).append(...(shown.length ? shown : [h("li", { class: "note" }, "none yet: a seat you take shows here")]));
  })();
  return ids.length ? h("section", { id: "your-games-section" }, h("h2", {}, "Your games"), list) : null;
}
