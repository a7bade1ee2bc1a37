// What the browser keeps between visits: a seat's token per game, and the tournaments this
// browser joined with the participant's token. Lists are capped, so nothing grows forever.

function load(key) {
  try { return JSON.parse(localStorage.getItem(key)); } catch (_) { return null; }
}

export const seats = {
  get(gameId) { return load(`stich.seat.${gameId}`); },
  set(gameId, seat, token, extra = {}) { localStorage.setItem(`stich.seat.${gameId}`, JSON.stringify({ seat, token, ...extra })); },
  forget(gameId) { localStorage.removeItem(`stich.seat.${gameId}`); },
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
