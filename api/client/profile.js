// The signed-in player's profile at a glance (GET /v1/players/{handle}): its rating in each game
// it played rated, and its recent games, each named by its game, place and company and linked to
// its replay.

import { request } from "./api.js";
import { GAME_NAMES } from "./cards.js";
import { clear, h } from "./dom.js";

const PLACES = ["", "1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];

// The leaderboards' figure (ordinal: mu - 3 sigma, a rating the player is very probably above),
// with mu and sigma beside it for whoever wants the spread.
function ratingRows(ratings) {
  return Object.entries(ratings).map(([game, r]) => h("tr", { dataset: { game } },
    h("th", { scope: "row" }, GAME_NAMES[game] || game),
    h("td", { class: "rating" }, r.ordinal.toFixed(1), r.provisional ? h("span", { class: "provisional" }, " provisional") : null,
      h("span", { class: "spread" }, `μ ${r.mu.toFixed(1)} ± ${r.sigma.toFixed(1)}`)),
    h("td", {}, r.matches)));
}

function company(entry) {
  const others = (entry.seats || []).filter((s) => s.seat !== entry.seat)
    .map((s) => s.player || (s.kind === "bot" ? `${s.bot || "random"} bot` : "anonymous"));
  return others.length ? `with ${others.join(", ")}` : "";
}

function when(iso) {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? "" : at.toLocaleString([], { dateStyle: "short", timeStyle: "short" });
}

function recentItem(entry) {
  const place = entry.place ? `${PLACES[entry.place] || entry.place} of ${entry.players}` : "unplaced";
  const outcome = entry.outcome ? `, ${entry.outcome}` : "";
  return h("li", { dataset: { game: entry.game_id } },
    h("a", { href: `#replay/${entry.game_id}` }, `${GAME_NAMES[entry.game] || entry.game}: ${place}${outcome}`),
    ` ${company(entry)}${entry.rated ? " · rated" : ""}`,
    h("span", { class: "note" }, ` · ${when(entry.finished_at)}`));
}

export function profileGlance(ctx, me) {
  const ratings = h("div", { id: "my-ratings" }, h("p", { class: "note" }, "Loading…"));
  const recent = h("div", { id: "my-recent" });
  async function fill() {
    let profile;
    try {
      profile = await request("GET", `/v1/players/${encodeURIComponent(me.handle)}`);
    } catch (error) {
      clear(ratings).append(h("p", { class: "note" }, ctx.problemText(error)));
      return;
    }
    const rated = profile.ratings || {};
    clear(ratings).append(...(Object.keys(rated).length ? [
      h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Your ratings (scrolls sideways)" },
        h("table", { id: "ratings-table" }, h("caption", {}, "Your ratings"),
          h("thead", {}, h("tr", {}, ["Game", "Rating", "Matches"].map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, ratingRows(rated)))),
      h("p", { class: "note" }, "Rating: μ − 3σ, a figure you are very probably above (the leaderboards' order); "
        + "provisional until 20 matches."),
    ] : [h("p", { class: "note" }, "No rating yet: a rated game (quick play) gives you one when it ends.")]));
    const games = profile.recent || [];
    clear(recent).append(games.length ? h("ul", { id: "recent-games" }, games.map(recentItem))
      : h("p", { class: "note" }, "No finished game yet."));
  }
  fill();
  return h("section", { id: "profile", class: "profile", "aria-labelledby": "profile-title" },
    h("h2", { id: "profile-title" }, `Your profile: ${me.handle}`),
    ratings,
    h("h3", {}, "Recent games"),
    recent,
    h("p", {}, h("button", { type: "button", id: "profile-refresh", onclick: fill }, "Refresh"),
      " ", h("span", { class: "note" }, "(a game counts here once it has finished and been recorded)")));
}
