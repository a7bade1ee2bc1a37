// A seat's hint (GET /v1/games/{id}/seats/{seat}/hint, a game created with hints): the search
// bot's suggestion for the seat's decision at one seq, from the seat's own view. The server waits
// up to 2 s for its bot worker, then answers 202 with Retry-After; the page asks again until the
// hint is there, for a bounded time, so a queue the workers never get to cannot keep it asking.

import { exchange } from "./api.js";

export const PATIENCE_MS = 20000;
const DEFAULT_RETRY_MS = 1000;

// The page stopped asking after ``PATIENCE_MS`` (the hint may still come: asking again is free,
// the server keeps the search it started).
export class HintTimeout extends Error {
  constructor(waitedMs) {
    super(`the search was not done after ${Math.round(waitedMs / 1000)} s (the bot workers are busy)`);
    this.name = "HintTimeout";
  }
}

// A wait that an abort ends early (with the abort's error, as fetch does).
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) { reject(signal.reason); return; }
    const timer = setTimeout(resolve, ms);
    if (signal) signal.addEventListener("abort", () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
}

function retryAfterMs(headers) {
  const seconds = Number(headers.get("Retry-After"));
  return seconds > 0 ? seconds * 1000 : DEFAULT_RETRY_MS;
}

// The hint's body once it is done ({command, seq, ...}). Throws the API's error (an ApiError
// with its problem: hints_off, not_your_turn, hint_quota, hint_failed, ...), a HintTimeout, or
// the abort's error when ``signal`` aborts (the view moved on, or the page left the table).
// ``onWait(waitedMs)`` is told each time the search is still queued.
export async function askForHint(gameId, seat, token, { signal, onWait = () => {}, patienceMs = PATIENCE_MS } = {}) {
  const started = Date.now();
  const path = `/v1/games/${gameId}/seats/${seat}/hint`;
  for (;;) {
    const answer = await exchange("GET", path, { token, signal });
    if (answer.status === 200 && answer.data && answer.data.command) return answer.data;
    const waited = Date.now() - started;
    if (waited >= patienceMs) throw new HintTimeout(waited);
    onWait(waited);
    await pause(Math.min(retryAfterMs(answer.headers), patienceMs - waited), signal); // the last ask at the deadline
  }
}
