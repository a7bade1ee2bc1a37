// A game's replay (#replay/<id>): the table at any event, moved by a slider, the back and
// forward buttons or the list of moves beside them; a finished game's analysis marks the moves.
// It opens at the first deal's beginning, where a person starts to follow a game.

import { analysisPanel } from "./analysis.js";
import { request } from "./api.js";
import { GAME_NAMES, describeEvent } from "./cards.js";
import { clear, h } from "./dom.js";
import { renderTable } from "./table.js";

// The event a replay opens at: the first deal, else the game's first event.
function dealStart(events) {
  for (const [seq, event] of events) if (event.type === "HandsDealt") return seq;
  return 1;
}

export async function replayScreen({ main, problemText, show, showing }, gameId) {
  const screen = { stop() { if (screen.analysis) screen.analysis.stop(); } };
  show(screen);
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
  if (showing() !== screen) return; // the page left the replay while it loaded
  const game = latest.game;
  const name = GAME_NAMES[game] || game;
  const last = latest.latest_seq;
  const first = dealStart(events);
  const slider = h("input", {
    type: "range", id: "replay-slider", min: 1, max: last, value: first, step: 1,
    "aria-label": "Move through the game, event by event",
  });
  const caption = h("p", { id: "replay-event", "aria-live": "polite" });
  const area = h("div", { id: "table-area" });
  const moveTo = (seq) => {
    slider.value = String(Math.min(last, Math.max(1, seq)));
    slider.dispatchEvent(new Event("input"));
  };
  const step = (delta) => () => moveTo(Number(slider.value) + delta);
  // Every event in words, each a button to jump there; the one shown is marked (aria-current).
  const moves = h("ol", { id: "replay-moves", "aria-label": "Moves" }, [...events.values()].map((event) =>
    h("li", { value: event.seq, dataset: { seq: event.seq } },
      h("button", { type: "button", class: "jump", onclick: () => moveTo(event.seq) }, describeEvent(game, event)))));
  // The analysis's marks lie under the slider, each where its decision's event is, and on the list.
  const track = h("ol", { id: "replay-marks", class: "marks", "aria-label": "Marked moves", hidden: true });
  screen.analysis = analysisPanel({
    gameId, game, last, finished: (events.get(last) || {}).type === "SeedRevealed", track, jump: moveTo,
    onMarks: (marked) => {
      for (const d of marked) {
        const item = moves.querySelector(`li[data-seq="${d.seq}"]`);
        if (item) item.classList.add("mark", `mark-${d.mark}`);
      }
    },
  });
  clear(main).append(h("section", { id: "replay", "aria-label": "Replay" },
    h("h1", {}, `Replay: ${name}`),
    h("div", { class: "row replay-controls" }, h("button", { type: "button", id: "replay-back", onclick: step(-1) }, "◀ Back"),
      h("div", { class: "replay-track" }, slider, track),
      h("button", { type: "button", id: "replay-forward", onclick: step(1) }, "Forward ▶")),
    caption,
    h("div", { class: "replay-body" },
      h("div", { class: "replay-moves scroll", tabindex: "0", role: "region", "aria-label": "Moves (scrolls)" }, moves),
      screen.analysis.element)),
  area, h("p", { class: "links" }, h("a", { href: "#" }, "Lobby"), " · ", h("a", { href: `#game/${gameId}` }, "Table")));

  let wanted = 0;
  async function at(seq) {
    wanted = seq;
    screen.analysis.at(seq);
    for (const item of moves.children) {
      const here = Number(item.dataset.seq) === seq;
      item.classList.toggle("current", here);
      if (here) {
        item.firstChild.setAttribute("aria-current", "step");
        // Keep the shown move in sight inside the list (not the page: the slider keeps the focus).
        const box = item.parentElement.parentElement;
        box.scrollTop = Math.max(0, item.offsetTop - box.offsetTop - box.clientHeight / 2);
      } else item.firstChild.removeAttribute("aria-current");
    }
    const event = events.get(seq);
    const told = `Event ${seq} of ${last}${event ? `: ${describeEvent(game, event)}` : ""}`;
    try {
      const past = await request("GET", `/v1/games/${gameId}/view?at=${seq}`);
      if (wanted !== seq) return; // the slider moved on meanwhile
      caption.textContent = told;
      document.title = `Replay: ${name} · stich`;
      clear(area).append(renderTable(past, {}));
    } catch (error) {
      if (wanted === seq) caption.textContent = `${told} (the table at this moment cannot be shown: ${problemText(error)})`;
    }
  }
  slider.addEventListener("input", () => at(Number(slider.value)));
  await at(first);
  slider.focus();
}
