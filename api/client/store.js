// What the browser keeps between visits: a seat's token per game, the tournaments this browser
// joined with the participant's token, the signed-in player and its wait in a quick-play pool.
// Lists are capped, so nothing grows forever.

function load(key) {
  try { return JSON.parse(localStorage.getItem(key)); } catch (_) { return null; }
}

// A seat taken anonymously keeps its seat token; one taken as a player keeps only the player's
// handle, since the player token is its credential (and signing out must forget it everywhere).
// The games are listed newest first ("Your games" in the lobby), the oldest forgotten past the cap.
const MAX_SEATS = 30;

export const seats = {
  get(gameId) { return load(`stich.seat.${gameId}`); },
  set(gameId, seat, token, extra = {}) {
    localStorage.setItem(`stich.seat.${gameId}`, JSON.stringify({ seat, token, ...extra }));
    const ids = [gameId, ...this.ids().filter((other) => other !== gameId)];
    for (const old of ids.slice(MAX_SEATS)) localStorage.removeItem(`stich.seat.${old}`);
    localStorage.setItem("stich.seats", JSON.stringify(ids.slice(0, MAX_SEATS)));
  },
  forget(gameId) {
    localStorage.removeItem(`stich.seat.${gameId}`);
    localStorage.setItem("stich.seats", JSON.stringify(this.ids().filter((other) => other !== gameId)));
  },
  ids() {
    const ids = load("stich.seats");
    return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
  },
};

const MAX_TOURNAMENTS = 20;

export const tournaments = {
  get(id) { return load(`stich.tournament.${id}`); },
  set(id, participant, token) {
    localStorage.setItem(`stich.tournament.${id}`, JSON.stringify({ participant, token }));
    const ids = [id, ...this.ids().filter((other) => other !== id)];
    for (const old of ids.slice(MAX_TOURNAMENTS)) localStorage.removeItem(`stich.tournament.${old}`);
    localStorage.setItem("stich.tournaments", JSON.stringify(ids.slice(0, MAX_TOURNAMENTS)));
  },
  ids() { return load("stich.tournaments") || []; },
};

// The signed-in player: {handle, token}. Kept like a seat's token, so a reload stays signed in;
// signing out forgets it here only (the token works elsewhere until it is revoked).
export const player = {
  get() {
    const kept = load("stich.player");
    return kept && typeof kept.handle === "string" && typeof kept.token === "string" ? kept : null;
  },
  set(handle, token) { localStorage.setItem("stich.player", JSON.stringify({ handle, token })); },
  forget() {
    localStorage.removeItem("stich.player");
    localStorage.removeItem("stich.quickplay");
  },
};

// The pool the signed-in player waits in: {pool, handle, since (this browser's clock, ms)}, so a
// reload goes on waiting where it was.
export const quickPlay = {
  get() { return load("stich.quickplay"); },
  set(pool, handle, since) { localStorage.setItem("stich.quickplay", JSON.stringify({ pool, handle, since })); },
  forget() { localStorage.removeItem("stich.quickplay"); },
};
