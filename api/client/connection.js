// How a table follows its game and sends its moves: on the page's WebSocket (socket.js) where it
// opens, else over HTTP (the SSE stream and POST commands, api.js). The choice is made when the
// table connects; a socket that cannot be opened (a proxy refusing the upgrade, say), or is lost
// for good mid-game, hands over to SSE, which resumes after the last seq the socket delivered.

import { ApiError, EventFollower, newIdempotencyKey, sendCommand } from "./api.js";
import { SocketLost, backoff, pageSocket } from "./socket.js";

const ATTEMPTS = 5; // as sendCommand: a lost answer or a busy server, tried again with the same key

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class GameFeed {
  // The handlers: onEvent(event) for each event, oldest first; onView(view) for the seat's view
  // the socket pushes when it becomes its turn; onState(state, detail) with live, reconnecting,
  // finished or failed.
  constructor(gameId, token, lastId, { onEvent, onView = () => {}, onState = () => {} }) {
    Object.assign(this, { gameId, token, lastId, onEvent, onView, onState });
    this.transport = "connecting"; // then "socket" or "sse"
    this.subscription = null;
    this.follower = null;
    this.stopped = false;
    this.chosen = null;
  }

  start() {
    const socket = pageSocket();
    this.chosen = socket.open().then(() => this.onSocket(socket), () => this.overHttp(this.lastId));
    return this;
  }

  onSocket(socket) {
    if (this.stopped) return;
    this.transport = "socket";
    this.subscription = socket.subscribe(this.gameId, this.token, {
      after: this.lastId, views: !!this.token, handler: {
        event: (event) => { this.lastId = event.seq; this.onEvent(event); },
        view: (view) => this.onView(view),
        state: (state, detail) => this.onState(state, detail),
        unavailable: () => this.overHttp(this.lastId),
      },
    });
  }

  overHttp(after) {
    if (this.stopped) return;
    this.transport = "sse";
    this.follower = new EventFollower(this.gameId, this.token, after, {
      onEvent: (event) => { this.lastId = event.seq; this.onEvent(event); }, onState: this.onState,
    }).start();
  }

  // True when the seat's view comes pushed at its turn, so the page need not fetch it.
  get pushesViews() {
    return this.transport === "socket" && !!this.token;
  }

  // How many times the game's stream was opened or its subscription made (1, then one per resume).
  get connections() {
    return (this.subscription ? this.subscription.subscriptions : 0) + (this.follower ? this.follower.connections : 0);
  }

  stop() {
    this.stopped = true;
    if (this.subscription) this.subscription.unsubscribe();
    if (this.follower) this.follower.stop();
  }

  // Closes the connection as a network failure would (the browser tests use it).
  drop() {
    if (this.transport === "socket") pageSocket().drop();
    else if (this.follower) this.follower.drop();
  }

  // ``command`` against the view at ``seq``: the POST's answer (seq, events, view), or its
  // problem thrown as an ApiError, whichever way it went. A busy server (429, 503) or an answer
  // lost with the connection is tried again with the same idempotency key, so it lands once.
  async send(seq, command) {
    await this.chosen;
    const key = newIdempotencyKey();
    for (let attempt = 0; ; attempt += 1) {
      if (this.transport !== "socket") return sendCommand(this.gameId, this.token, seq, command, key);
      let answer;
      try {
        answer = await pageSocket().command(this.gameId, this.token, seq, command, key);
      } catch (error) {
        if (!(error instanceof SocketLost) || attempt >= ATTEMPTS - 1) throw error;
        await sleep(backoff(attempt));
        await pageSocket().open().catch(() => {}); // or unavailable: then over HTTP
        continue;
      }
      if (answer.status < 400) return answer.body;
      const busy = answer.status === 429 || answer.status === 503;
      if (!busy || attempt >= ATTEMPTS - 1) throw new ApiError(answer.status, answer.body);
      await sleep(answer.retryAfter ? answer.retryAfter * 1000 : 300 * 2 ** attempt);
    }
  }
}
