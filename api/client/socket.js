// The page's one WebSocket (GET /v1/socket, docs/socket.md): every game the page follows and
// every command it sends travel on one connection. After a drop it opens again with backoff
// and each subscription resumes after the last seq it received; a command whose answer the
// drop lost is rejected with SocketLost, for its sender to send again with the same
// idempotency key (so it lands once). A socket that cannot be opened (the first time, or three
// times running after a drop: say a proxy refusing the upgrade) is given up, and its
// subscriptions told so, to follow their games another way (connection.js).

const OPEN_TIMEOUT_MS = 5000; // no welcome by then: this open failed
const MAX_BACKOFF_MS = 15000;
const REOPEN_TRIES = 3;

export class SocketLost extends Error {}

// Waits of 0.5, 1, 2, 4 ... s (at most 15), each shortened at random by up to half, so that
// the pages of a restarted server do not all come back in the same instant.
export function backoff(attempt) {
  const ms = Math.min(MAX_BACKOFF_MS, 500 * 2 ** attempt);
  return ms * (0.5 + Math.random() / 2);
}

let counter = 0;
const newId = (kind) => `${kind}${(counter += 1)}`;

// One game followed for one seat (or as a spectator, without a token). ``handler`` gets
// event(event), view(view), state(name, detail) and unavailable(lastSeq).
class Subscription {
  constructor(socket, game, token, after, views, handler) {
    Object.assign(this, { socket, game, token, views, handler });
    this.id = newId("s");
    this.lastSeq = after; // null: from the start
    this.seat = undefined; // known once subscribed (null for a spectator)
    this.subscriptions = 0; // how many times the server said "subscribed": 1, then one per resume
    this.problem = null;
    this.ended = false;
    this.retries = 0;
  }

  send() {
    clearTimeout(this.timer); // a retry waiting is this one
    if (this.ended) return;
    const message = { type: "subscribe", id: this.id, game: this.game, views: this.views };
    if (this.token) message.token = this.token;
    if (this.lastSeq != null) message.after = this.lastSeq;
    this.seat = undefined;
    this.socket.send(message);
  }

  receive(message) {
    if (message.type === "subscribed" && this.ended) { // given up before the server said which seat
      this.seat = message.seat;
      this.leave();
    } else if (this.ended) {
      return;
    } else if (message.type === "subscribed") {
      this.seat = message.seat;
      this.subscriptions += 1;
      this.retries = 0;
      this.handler.state("live");
    } else if (message.type === "event") {
      this.lastSeq = message.seq;
      this.handler.event(message.event);
    } else if (message.type === "view") {
      this.handler.view(message.view);
    } else if (message.type === "error") {
      this.problem = message.problem || {};
      if (message.id === this.id) this.over("error"); // refused: no "unsubscribed" follows
    } else if (message.type === "unsubscribed" && message.reason !== "requested") {
      this.over(message.reason);
    }
  }

  // The server ended this subscription: finished, or an error to give up on (a refused or
  // superseded token), or one to try again after (a busy server, a day's expiry, or 409: this
  // page's previous subscription of the seat not yet ended).
  over(reason) {
    this.seat = undefined;
    if (reason === "finished") {
      this.close();
      this.handler.state("finished");
      return;
    }
    const status = this.problem ? this.problem.status : 0;
    if (reason === "error" && status && status < 500 && status !== 429 && status !== 409) {
      this.close();
      this.handler.state("failed", this.problem.detail || this.problem.code);
      return;
    }
    this.problem = null;
    this.handler.state("reconnecting");
    this.timer = setTimeout(() => { if (this.socket.state === "open") this.send(); }, backoff(this.retries++));
  }

  close() {
    clearTimeout(this.timer);
    this.ended = true;
    this.socket.subscriptions.delete(this.id);
  }

  unsubscribe() {
    if (this.ended) return;
    this.ended = true;
    if (this.seat !== undefined || this.socket.state !== "open") this.leave();
    // else: kept until "subscribed" names the seat to unsubscribe
  }

  leave() {
    this.close();
    if (this.seat !== undefined) this.socket.send({ type: "unsubscribe", game: this.game, seat: this.seat });
  }
}

export class PageSocket {
  constructor(url) {
    this.url = url;
    this.ws = null;
    this.state = "idle"; // idle, opening, open, waiting (to open again) or unavailable
    this.welcomed = false; // ever
    this.failures = 0; // failed opens in a row
    this.opens = 0;
    this.subscriptions = new Map(); // id -> Subscription
    this.pending = new Map(); // command id -> [resolve, reject]
    this.waiters = []; // open()'s [resolve, reject]
  }

  // Resolves when the socket is open (its welcome came); rejects when it cannot be opened.
  open() {
    if (this.state === "open") return Promise.resolve(this);
    if (this.state === "unavailable") return Promise.reject(new SocketLost("the socket cannot be opened"));
    const opened = new Promise((resolve, reject) => this.waiters.push([resolve, reject]));
    if (this.state === "idle") this.connect();
    return opened;
  }

  connect() {
    this.state = "opening";
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (_) {
      setTimeout(() => this.failed(), 0);
      return;
    }
    this.ws = ws;
    let welcomed = false;
    const timer = setTimeout(() => ws.close(), OPEN_TIMEOUT_MS);
    ws.onmessage = (frame) => {
      let message;
      try { message = JSON.parse(frame.data); } catch (_) { return; }
      if (!welcomed && message.type === "welcome") {
        welcomed = true;
        clearTimeout(timer);
        this.opened();
      } else this.dispatch(message);
    };
    ws.onclose = () => { // an error event is always followed by this one
      clearTimeout(timer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (welcomed) this.lost();
      else this.failed();
    };
  }

  opened() {
    Object.assign(this, { state: "open", welcomed: true, failures: 0 });
    this.opens += 1;
    for (const [resolve] of this.waiters.splice(0)) resolve(this);
    for (const subscription of this.subscriptions.values()) subscription.send();
  }

  lost() {
    for (const [, reject] of this.pending.values()) reject(new SocketLost("the connection closed before the answer"));
    this.pending.clear();
    for (const subscription of [...this.subscriptions.values()]) {
      if (subscription.ended) subscription.close(); // the server forgets it with the connection
      else subscription.handler.state("reconnecting");
    }
    if (!this.subscriptions.size && !this.waiters.length) {
      this.state = "idle"; // nothing to resume: open again when asked
      return;
    }
    this.again();
  }

  failed() {
    this.failures += 1;
    if (this.welcomed && this.failures < REOPEN_TRIES) {
      this.again();
      return;
    }
    this.state = "unavailable";
    for (const [, reject] of this.waiters.splice(0)) reject(new SocketLost("the socket cannot be opened"));
    for (const subscription of [...this.subscriptions.values()]) {
      subscription.close();
      subscription.handler.unavailable(subscription.lastSeq);
    }
  }

  again() {
    this.state = "waiting";
    setTimeout(() => this.connect(), backoff(this.failures));
  }

  send(message) {
    if (this.state !== "open") return false; // a subscription is sent again on the next open
    this.ws.send(JSON.stringify(message));
    return true;
  }

  dispatch(message) {
    if (message.id && this.pending.has(message.id)) { // a command's result, or its problem
      const [resolve] = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.type === "result") resolve({ status: message.status, body: message.body, retryAfter: message.retry_after });
      else resolve({ status: (message.problem || {}).status || 400, body: message.problem || {} });
      return;
    }
    const byId = message.id && this.subscriptions.get(message.id);
    if (byId) {
      byId.receive(message);
      return;
    }
    if (message.game === undefined) return; // a problem of the socket's own; it closes if it must
    for (const subscription of this.subscriptions.values()) {
      if (subscription.game === message.game && subscription.seat === message.seat) subscription.receive(message);
    }
  }

  subscribe(game, token, { after = null, views = false, handler }) {
    const subscription = new Subscription(this, game, token, after, views, handler);
    this.subscriptions.set(subscription.id, subscription);
    subscription.send();
    return subscription;
  }

  // A command's answer as the POST's: {status, body, retryAfter}; SocketLost when it cannot be
  // sent or the connection closes before the answer.
  command(game, token, expectedSeq, command, key) {
    const id = newId("c");
    const message = { type: "command", id, game, command, expected_seq: expectedSeq, idempotency_key: key };
    if (token) message.token = token;
    return new Promise((resolve, reject) => {
      if (!this.send(message)) {
        reject(new SocketLost("the socket is not open"));
        return;
      }
      this.pending.set(id, [resolve, reject]);
    });
  }

  // Closes the connection as a network failure would: it opens again and resumes by itself.
  drop() {
    if (this.ws) this.ws.close();
  }
}

let shared = null;

// The page's socket, made on first use, on the page's own host (wss behind https).
export function pageSocket() {
  if (!shared) {
    const url = new URL("/v1/socket", location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    shared = new PageSocket(url.href);
  }
  return shared;
}
