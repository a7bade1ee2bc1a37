// Quick play in the lobby: the pools (GET /v1/pools), "Play now" joins one as the signed-in
// player, the wait long-polls the entry (GET …/entry?wait=30) and shows how long it has lasted,
// Cancel leaves it, and the table opens once the entry is seated. The wait is kept in the browser,
// so a reload goes on waiting.

import { ApiError, exchange, request } from "./api.js";
import { GAME_NAMES } from "./cards.js";
import { clear, h } from "./dom.js";
import { player, quickPlay, seats } from "./store.js";

const POLL_S = 30;
const RETRY_MS = 2000;

function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function poolName(pool) {
  return `${GAME_NAMES[pool.game] || pool.game}, ${pool.players} players`;
}

// The lobby's part; ``stop()`` ends the long poll and the clock when the page leaves the lobby
// (the wait itself goes on at the server, and the lobby takes it up again).
export function quickPlaySection(ctx) {
  const me = player.get();
  const path = (pool) => `/v1/pools/${encodeURIComponent(pool)}/entry`;
  const box = h("div", { id: "quick-play-body" });
  const bots = h("input", { type: "checkbox", id: "qp-bots", name: "bots", checked: true, "aria-describedby": "qp-bots-help" });
  let pools = [];
  let controller = null;
  let ticker = null;
  let stopped = false;

  function halt() {
    if (controller) controller.abort();
    controller = null;
    if (ticker) clearInterval(ticker);
    ticker = null;
  }

  const nameOf = (name) => {
    const pool = pools.find((p) => p.pool === name);
    return pool ? poolName(pool) : name;
  };

  function seated(entry) {
    halt();
    quickPlay.forget();
    seats.set(entry.game_id, entry.seat, null, { player: entry.handle || me.handle });
    location.hash = `#game/${entry.game_id}`;
  }

  function idle(focusPool = null) {
    halt();
    const list = h("ul", { id: "pools" }, pools.map((pool) => {
      const about = `pool-${pool.pool}-about`;
      return h("li", { dataset: { pool: pool.pool } },
        h("span", { id: about }, `${poolName(pool)} · ${pool.waiting} waiting${pool.rated ? " · rated" : ""}`), " ",
        me ? h("button", { type: "button", class: "play-now", "aria-describedby": about, dataset: { pool: pool.pool },
          onclick: () => join(pool.pool) }, "Play now") : null);
    }));
    clear(box).append(list, me
      ? h("p", {}, h("label", { for: "qp-bots" }, bots, " Bots may fill empty seats"), " ",
        h("span", { id: "qp-bots-help", class: "note" }, `after ${pools.length ? pools[0].wait_s : 20} s without enough players`))
      : h("p", { class: "note", id: "qp-sign-in" }, "Register or sign in above to play now."));
    if (focusPool) {
      const button = box.querySelector(`button.play-now[data-pool="${CSS.escape(focusPool)}"]`);
      if (button) button.focus();
    }
  }

  // Waiting, from ``since`` (this browser's clock): the clock ticks, the entry is long-polled.
  function waiting(pool, since, focus = true) {
    halt();
    const elapsed = h("span", { id: "qp-elapsed" }, clock(Date.now() - since));
    const cancel = h("button", { type: "button", id: "qp-cancel", onclick: () => leave(pool) }, "Cancel");
    clear(box).append(
      h("p", { id: "qp-waiting", role: "status" }, `Waiting for a table: ${nameOf(pool)}.`),
      h("p", {}, "Waited ", elapsed, " ", cancel),
      h("p", { class: "note" }, "The table opens here once you are seated; Cancel leaves the pool."));
    ticker = setInterval(() => { elapsed.textContent = clock(Date.now() - since); }, 1000);
    if (focus) cancel.focus();
    poll(pool);
  }

  async function poll(pool) {
    const mine = new AbortController();
    controller = mine;
    while (!stopped && controller === mine) {
      let entry;
      try {
        entry = await request("GET", `${path(pool)}?wait=${POLL_S}`, { token: me.token, signal: mine.signal });
      } catch (error) {
        if (mine.signal.aborted) return;
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) {
          quickPlay.forget();
          ctx.say(error.status === 404 ? `You no longer wait in ${nameOf(pool)} (the wait ended or expired).`
            : ctx.problemText(error));
          idle();
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS)); // a dropped connection, a busy server
        continue;
      }
      if (mine.signal.aborted) return;
      if (entry.status === "seated") return seated(entry);
      if (entry.status !== "waiting") {
        quickPlay.forget();
        ctx.say(`Your wait in ${nameOf(pool)} ended: ${entry.status}.`);
        return idle();
      }
    }
  }

  async function join(pool) {
    try {
      const entry = await request("POST", path(pool), { token: me.token, body: { bots: bots.checked } });
      if (entry.status === "seated") return seated(entry);
      quickPlay.set(pool, me.handle, Date.now());
      return waiting(pool, Date.now());
    } catch (error) {
      if (error instanceof ApiError && error.problem.code === "already_waiting") return conflict(error.problem.pool);
      ctx.say(ctx.problemText(error));
    }
  }

  // Waiting in a pool this browser did not know of (another tab, another browser): resume or leave.
  function conflict(pool) {
    halt();
    clear(box).append(
      h("p", { id: "qp-conflict", role: "status" }, `You already wait in another pool: ${nameOf(pool)}.`),
      h("p", {}, h("button", { type: "button", id: "qp-resume", onclick: () => resume(pool) }, "Resume waiting"), " ",
        h("button", { type: "button", id: "qp-leave", onclick: () => leave(pool) }, "Leave that pool")));
    box.querySelector("#qp-resume").focus();
  }

  // How long the entry has waited, from its joined_at and the server's Date header (both the
  // server's clock), so that another browser's wait is timed from when it began.
  async function resume(pool) {
    try {
      const { data: entry, headers } = await exchange("GET", path(pool), { token: me.token });
      if (entry.status === "seated") return seated(entry);
      if (entry.status !== "waiting") {
        ctx.say(`Your wait in ${nameOf(pool)} ended: ${entry.status}.`);
        return idle();
      }
      const now = Date.parse(headers.get("Date") || "");
      const since = Date.now() - (Number.isNaN(now) ? 0 : Math.max(0, now - entry.joined_at * 1000));
      quickPlay.set(pool, me.handle, since);
      return waiting(pool, since);
    } catch (error) {
      ctx.say(ctx.problemText(error));
      return idle();
    }
  }

  async function leave(pool) {
    halt();
    try {
      await request("DELETE", path(pool), { token: me.token });
      quickPlay.forget();
      ctx.say(`You left ${nameOf(pool)}.`);
      await refreshPools();
      idle(pool);
    } catch (error) {
      const problem = error instanceof ApiError ? error.problem : {};
      if (problem.code === "already_seated") return seated({ game_id: problem.game_id, seat: problem.seat, handle: me.handle });
      if (error instanceof ApiError && error.status === 404) {
        quickPlay.forget();
        return idle(pool);
      }
      ctx.say(`${ctx.problemText(error)}: still waiting.`); // a busy pool: the wait goes on, Cancel again
      const kept = quickPlay.get();
      waiting(pool, kept ? kept.since : Date.now());
    }
  }

  async function refreshPools() {
    try {
      pools = (await request("GET", "/v1/pools")).pools || [];
    } catch (error) {
      ctx.say(ctx.problemText(error));
    }
  }

  (async () => {
    await refreshPools();
    if (stopped) return;
    const kept = quickPlay.get();
    if (me && kept && kept.handle === me.handle) waiting(kept.pool, kept.since, false);
    else {
      if (kept) quickPlay.forget(); // another player's wait: not this one's to resume
      idle();
    }
  })();

  const element = h("section", { id: "quick-play", "aria-labelledby": "quick-play-title" },
    h("h2", { id: "quick-play-title" }, "Quick play: a rated table as soon as there is one"), box);
  return { element, stop() { stopped = true; halt(); } };
}
