// A finished game's analysis in the replay (GET/POST /v1/games/{id}/analysis): each seat's
// marked decisions on the slider's track, and at a marked moment the move played beside the
// better one. Without an analysis a button asks for one and its progress is shown while it runs.

import { ApiError, exchange } from "./api.js";
import { cardName, describeCommand, seatName } from "./cards.js";
import { clear, h } from "./dom.js";
import { card } from "./faces.js";

const SEVERITY = ["inaccuracy", "mistake", "blunder"];
const PLURAL = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
// Polling is bounded: a job the workers never get to must not keep a page asking for ever.
const MAX_POLLS = 40;
const FIRST_WAIT_MS = 400;
const LONGEST_WAIT_MS = 5000;

function problemText(error) {
  if (error instanceof ApiError) return `${error.problem.code || error.status}: ${error.message}`;
  return `the server could not be reached (${error.message})`;
}

// The analysis's values are in the game's score units (openapi.yaml, Analysis, whose `unit` names
// them at length): a short name and what one of them is, so that no value stands without its unit.
const UNITS = {
  schafkopf: { unit: "payment units", of: "in payment units of the deal" },
  scharwenzel: { unit: "points", of: "in points of the deal's value for the seat's side (a hook is 24)" },
  "scharfe-schoten": { unit: "points", of: "in the seat's points of the round" },
};

function unitOf(game) {
  return UNITS[game] || { unit: "points", of: "in the game's score units" };
}

// A move in words and, where it is a card, with the card's face (which names it in text).
// An amount with its unit and spread (the standard error over the sampled deals), "exact" where the
// seat's knowledge fixed every hidden card; an analysis made before spreads were given has none.
function amount(value, spread, exact, unit) {
  const shown = Number(value).toFixed(1);
  if (exact) return `${shown} ${unit} (exact)`;
  return spread === null || spread === undefined ? `${shown} ${unit}` : `${shown} \u00b1 ${Number(spread).toFixed(1)} ${unit}`;
}

function moveShown(game, move, exact) {
  const command = move.command || {};
  const words = command.type === "play" ? `Play ${cardName(game, command.card)}` : describeCommand(game, null, command);
  const value = move.value === null || move.value === undefined ? "not judged" : `expected ${amount(move.value, move.spread, exact, unitOf(game).unit)}`;
  return [command.type === "play" && command.card ? card(game, command.card, { small: true }) : null,
    h("span", { class: "move-words" }, words, h("span", { class: "note" }, ` (${value})`))];
}

function seatTable(game, analysis) {
  const rows = analysis.seats.map(({ seat, summary }) => h("tr", { dataset: { seat } },
    h("th", { scope: "row" }, seatName(seat)),
    SEVERITY.map((kind) => h("td", {}, summary[PLURAL[kind]])),
    h("td", {}, Number(summary.average_loss).toFixed(1))));
  const { unit, of } = unitOf(game);
  return h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Marks per seat (scrolls sideways)" },
    h("table", { id: "analysis-seats" }, h("caption", {}, "Marks per seat"),
      // Soft hyphens: on a phone the long headers break instead of pushing the table off screen.
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Inac\u00adcu\u00adra\u00adcies"),
        h("th", { scope: "col" }, "Mis\u00adtakes"), h("th", { scope: "col" }, "Blun\u00adders"),
        h("th", { scope: "col" }, `Average loss (${unit})`))),
      h("tbody", {}, rows)),
    h("p", { class: "note explain" }, `A loss is how much more the better move was expected to earn the seat, ${of}, `
      + "as the search judged it from what the seat knew; the average is over the seat's judged decisions."));
}

// The analysis panel of one replay. ``track`` is the list under the slider where the marks go;
// ``jump(seq)`` moves the slider there; ``finished`` says whether the game is over (else no analysis);
// ``onMarks(marked)`` is told the marked decisions once they are known. stop() ends any polling
// (the page left the replay).
export function analysisPanel({ gameId, game, last, finished, track, jump, onMarks = () => {} }) {
  const panel = h("section", { id: "analysis", "aria-label": "Analysis" }, h("h2", {}, "Analysis"));
  const body = h("div", { id: "analysis-body" });
  const live = h("p", { id: "analysis-status", class: "note", role: "status" });
  const moment = h("div", { id: "analysis-moment", "aria-live": "polite" });
  panel.append(live, body, moment);
  let stopped = false;
  let controller = null;
  let timer = null;
  let wake = null;
  let marked = []; // the marked decisions, by seq
  let seq = last;

  const sleep = (ms) => new Promise((resolve) => {
    wake = resolve;
    timer = setTimeout(resolve, ms);
  });

  async function call(method) {
    controller = new AbortController();
    try {
      return await exchange(method, `/v1/games/${gameId}/analysis`, { body: method === "POST" ? {} : undefined, signal: controller.signal });
    } finally {
      controller = null;
    }
  }

  function askButton(words) {
    return h("button", { type: "button", id: "analysis-ask", onclick: ask }, words);
  }

  function showProgress(analysis) {
    const { done, total } = analysis.progress || {};
    const words = analysis.status === "queued" ? "Waiting for a bot worker…"
      : total ? `Analysing: ${done} of ${total} decisions judged` : "Analysing: counting the decisions…";
    live.textContent = words;
    clear(body).append(h("progress", {
      id: "analysis-progress", max: total || 1, value: total ? done : null, "aria-label": "Analysis progress",
    }));
  }

  function showMarks(analysis) {
    marked = analysis.decisions.filter((d) => d.mark).sort((a, b) => a.seq - b.seq);
    const seats = analysis.seats.length;
    live.textContent = marked.length
      ? `Analysis done: ${marked.length} marked move${marked.length === 1 ? "" : "s"} of ${seats} seats, on the slider's track.`
      : "Analysis done: no move was marked.";
    clear(track).append(...marked.map((d) => {
      const fraction = last > 1 ? (d.seq - 1) / (last - 1) : 0;
      return h("li", {
        class: `mark mark-${d.mark}`, style: `--at:${fraction.toFixed(4)}`, title: `Event ${d.seq}: ${seatName(d.seat)}, ${d.mark}`,
        dataset: { seq: d.seq, seat: d.seat, mark: d.mark },
      }, h("span", { class: "visually-hidden" }, `Event ${d.seq}: ${seatName(d.seat)}, ${d.mark}`));
    }));
    track.hidden = !marked.length;
    const previous = () => marked.filter((d) => d.seq < seq).pop();
    const next = () => marked.find((d) => d.seq > seq);
    // At either end a press says so, where the buttons are, instead of doing nothing.
    const feedback = h("p", { id: "mark-feedback", class: "note", role: "status" });
    const go = (d, none) => {
      feedback.textContent = d ? "" : none;
      if (d) jump(d.seq);
    };
    clear(body).append(seatTable(game, analysis), marked.length ? h("div", { class: "row" },
      h("button", { type: "button", id: "mark-previous", onclick: () => go(previous(), "No earlier mark: this is the first.") }, "◀ Previous mark"),
      h("button", { type: "button", id: "mark-next", onclick: () => go(next(), "No later mark: this is the last.") }, "Next mark ▶"),
      feedback) : null);
    onMarks(marked);
    at(seq);
  }

  function show(analysis) {
    if (analysis.status === "done") showMarks(analysis);
    else if (analysis.status === "none") {
      live.textContent = "Nobody has asked for this game's analysis yet.";
      clear(body).append(askButton("Analyse this game"));
    } else if (analysis.status === "failed") {
      live.textContent = `The analysis failed${analysis.error ? `: ${analysis.error}` : ""}.`;
      clear(body).append(askButton("Ask again"));
    } else showProgress(analysis);
  }

  // Until done: ask again after the server's Retry-After, or a growing wait, a bounded number of times.
  async function follow(answer) {
    for (let poll = 0; !stopped; poll += 1) {
      show(answer.data);
      if (!["queued", "running"].includes(answer.data.status)) return;
      if (poll >= MAX_POLLS) {
        live.textContent = "The analysis is taking long; the page stopped asking.";
        clear(body).append(askButton("Check again"));
        return;
      }
      const hinted = Number(answer.headers.get("Retry-After")) * 1000;
      await sleep(Math.min(LONGEST_WAIT_MS, hinted > 0 ? hinted : FIRST_WAIT_MS * 1.5 ** poll));
      if (stopped) return;
      answer = await call("GET");
    }
  }

  async function ask() {
    live.textContent = "Asking for the analysis…";
    try {
      await follow(await call("POST"));
    } catch (error) {
      if (stopped) return;
      live.textContent = `The analysis cannot be had: ${problemText(error)}`;
      clear(body).append(askButton("Ask again"));
    }
  }

  async function start(finished) {
    if (!finished) {
      live.textContent = "A game is analysed once it has finished.";
      return;
    }
    // GET answers status "none" until somebody asks (POST would start one): `show` offers the button.
    try {
      await follow(await call("GET"));
    } catch (error) {
      if (stopped) return;
      const code = error instanceof ApiError ? error.problem.code : null;
      if (code === "game_not_finished") {
        live.textContent = "A game is analysed once it has finished.";
      } else {
        live.textContent = `The analysis cannot be shown: ${problemText(error)}`;
      }
    }
  }

  // The slider moved: at a marked moment, the move played and the better one.
  function at(now) {
    const said = body.querySelector("#mark-feedback");
    if (said && now !== seq) said.textContent = ""; // the slider moved: the end's words are old
    seq = now;
    const here = marked.filter((d) => d.seq === now);
    for (const li of track.children) li.classList.toggle("current", Number(li.dataset.seq) === now);
    clear(moment).append(...here.map((d) => h("div", { class: `moment mark-${d.mark}`, dataset: { seat: d.seat } },
      h("h3", {}, `${seatName(d.seat)}: ${d.mark}, a loss of ${amount(d.loss, d.loss_spread, d.exact, unitOf(game).unit)}`),
      h("p", { class: "note explain" }, `The better move was expected to earn ${seatName(d.seat)} ${Number(d.loss).toFixed(1)} `
        + `${unitOf(game).unit} more (${unitOf(game).of.replace(/^in /, "")}), judged from what the seat knew`
        + (d.exact ? ", which fixed every hidden card: the values are exact." : (d.worlds ? ` over ${d.worlds} sampled deals (\u00b1 is the standard error).` : "."))),
      h("p", { class: "played" }, h("span", { class: "label" }, "Played: "), moveShown(game, d.played, d.exact)),
      h("p", { class: "better" }, h("span", { class: "label" }, "Better: "), moveShown(game, d.best, d.exact)))));
  }

  start(finished);
  return {
    element: panel,
    at,
    stop() {
      stopped = true;
      if (controller) controller.abort();
      clearTimeout(timer);
      if (wake) wake();
    },
  };
}
