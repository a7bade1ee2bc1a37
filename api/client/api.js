// The public API as the page uses it over HTTP: JSON requests, commands that are safe to retry,
// and a Server-Sent Events reader that resumes with Last-Event-ID. (A table plays on the
// page's WebSocket where it can, socket.js and connection.js, and falls back to these.)

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.code)) || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function request(method, path, options = {}) {
  return (await exchange(method, path, options)).data;
}

// A request's answer with its status and headers, for a caller that needs them (a 202's
// Retry-After, say). ``signal`` aborts it.
export async function exchange(method, path, { token, body, headers, signal } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), signal,
  });
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (_) {
    data = { detail: text };
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return { status: response.status, headers: response.headers, data };
}

// crypto.randomUUID needs a secure context; a server reached over plain http on a LAN is not one.
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// One command, sent against the view it was chosen from (If-Match). A lost answer or a busy
// server is retried with the same Idempotency-Key, so the move lands at most once. ``key`` is
// given when the move was tried already another way (on the socket, connection.js).
export async function sendCommand(gameId, token, seq, command, key = newIdempotencyKey()) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await request("POST", `/v1/games/${gameId}/commands`, {
        token, body: command, headers: { "If-Match": `"${seq}"`, "Idempotency-Key": key },
      });
    } catch (error) {
      const transient = !(error instanceof ApiError) || error.status === 503 || error.status === 429;
      if (!transient || attempt >= 4) throw error;
      await sleep(300 * 2 ** attempt);
    }
  }
}

// Server-Sent Events over fetch(): EventSource cannot send the Authorization header a seat
// needs. After a dropped connection it reconnects with Last-Event-ID, so no event is missed.
export class EventFollower {
  constructor(gameId, token, lastId, { onEvent, onState, path = null, lastType = "SeedRevealed" }) {
    this.gameId = gameId;
    // A game's stream by default; a tournament's (same format, same resuming) when ``path`` names it.
    this.path = path || `/v1/games/${gameId}/events/stream`;
    this.lastType = lastType;
    this.token = token;
    this.lastId = lastId;
    this.onEvent = onEvent;
    this.onState = onState || (() => {});
    this.retryMs = 2000;
    this.stopped = false;
    this.finished = false;
    this.connections = 0;
    this.controller = null;
  }

  start() {
    this.run();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  // Closes the current connection as a network failure would; the follower resumes by itself.
  drop() {
    if (this.controller) this.controller.abort();
  }

  async run() {
    while (!this.stopped && !this.finished) {
      try {
        await this.connect();
      } catch (error) {
        if (error instanceof ApiError && error.status < 500 && error.status !== 429) {
          this.onState("failed", error.message);
          return;
        }
      }
      if (this.stopped || this.finished) break;
      this.onState("reconnecting");
      await sleep(this.retryMs);
    }
    if (this.finished) this.onState("finished");
  }

  async connect() {
    this.controller = new AbortController();
    const headers = { Accept: "text/event-stream" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (this.lastId != null) headers["Last-Event-ID"] = String(this.lastId);
    const response = await fetch(this.path, {
      headers, signal: this.controller.signal, cache: "no-store",
    });
    if (!response.ok) {
      let problem = null;
      try { problem = await response.json(); } catch (_) { /* not JSON */ }
      throw new ApiError(response.status, problem);
    }
    this.connections += 1;
    this.onState("live");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        this.dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  dispatch(block) {
    let id = null;
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue; // a comment, e.g. the keep-alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    }
    if (!data.length) return;
    const event = JSON.parse(data.join("\n"));
    if (id !== null) this.lastId = Number(id);
    if (event.type === this.lastType) this.finished = true; // every game's and tournament's last event
    this.onEvent(event);
  }
}
