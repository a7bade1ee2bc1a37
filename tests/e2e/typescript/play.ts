// One whole game through a client generated from openapi.yaml: types by openapi-typescript (stich.d.ts,
// written beside this file by tests/e2e/test_typescript_client.py), requests by openapi-fetch. No other
// HTTP code, no cast of a body: what the server sends is read through the generated types, and the
// commands taken from a view's `legal` are posted back as they are. tsc --strict checks this file
// against the generated types before node runs it.
//
//   node play.js <base url> <game>   prints one line of JSON: the game, its moves and its events
import createClient from "openapi-fetch";
import type { components, paths } from "./stich.js";

// The two things of Node's this file uses (no @types/node to install for them).
declare const process: { argv: string[]; exit(code: number): never };

type Schemas = components["schemas"];
type GameName = Schemas["GameName"];

const [baseUrl, game] = process.argv.slice(2) as [string, GameName];

function fail(what: string, detail: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(detail)}`);
}

function createBody(name: GameName): Schemas["CreateGame"] {
  const bot: Schemas["SeatSpec"] = { kind: "bot", bot: "random" };
  const human: Schemas["SeatSpec"] = { kind: "human" };
  switch (name) {
    case "scharfe-schoten":
      return { game: name, players: 3, rules: { rounds: 1 }, seats: [human, bot, bot] };
    case "schafkopf":
      return { game: name, players: 4, rules: { deals: 2 }, seats: [human, bot, bot, bot] };
    case "scharwenzel":
      return { game: name, players: 4, rules: { deals: 2 }, seats: [human, bot, bot, bot] };
  }
}

// A small seeded generator, so that a failing game can be played again move for move.
function random(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

async function main(): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl });
  const created = await anonymous.POST("/v1/games", { body: createBody(game) });
  if (!created.data) fail("create", created.error);
  const id = created.data.id;
  if (created.data.game !== game || created.data.status !== "waiting") fail("created", created.data);

  const granted = await anonymous.POST("/v1/games/{id}/seats/{seat}", { params: { path: { id, seat: 0 } } });
  if (!granted.data) fail("take seat", granted.error);
  const seat = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${granted.data.token}` } });

  // The credential is optional where the contract says so: a spectator reads the same view without one.
  const spectator = await anonymous.GET("/v1/games/{id}/view", { params: { path: { id } } });
  if (!spectator.data || spectator.data.viewer !== null) fail("spectator's view", spectator.data ?? spectator.error);

  const pick = random(0x5eed);
  let moves = 0;
  for (let round = 0; ; round++) {
    if (round > 3000) fail("the game did not finish", { moves });
    const view = await seat.GET("/v1/games/{id}/view", { params: { path: { id } } });
    if (!view.data) fail("view", view.error);
    if (view.data.game !== game) fail("view of another game", view.data.game);
    if (view.data.status === "finished") break;
    const legal = view.data.legal;
    if (legal.length === 0) {  // the bots' turn: long-poll for news
      const page = await seat.GET("/v1/games/{id}/events", {
        params: { path: { id }, query: { after: view.data.seq, wait: 10 } },
      });
      if (!page.data) fail("events", page.error);
      continue;
    }
    const command = legal[pick(legal.length)];
    const answer = await seat.POST("/v1/games/{id}/commands", {
      params: { path: { id }, header: { "If-Match": `"${view.data.seq}"`, "Idempotency-Key": `move-${view.data.seq}` } },
      body: command,
    });
    if (answer.error) {
      if (answer.error.code === "stale_seq") continue;  // the bots moved first (a simultaneous phase)
      fail("command refused", answer.error);
    }
    if (answer.data.duplicate !== false || answer.data.events.length === 0) fail("accepted", answer.data);
    moves++;
  }

  const final = await anonymous.GET("/v1/games/{id}", { params: { path: { id } } });
  if (!final.data || final.data.status !== "finished" || !final.data.seed) fail("final", final.data ?? final.error);
  const history = await anonymous.GET("/v1/games/{id}/events", { params: { path: { id }, query: { after: 0, limit: 500 } } });
  if (!history.data) fail("history", history.error);
  const events = history.data.events;
  events.forEach((event, index) => {
    if (event.seq !== index + 1) fail("a gap in the feed", { index, seq: event.seq });
    if (event.redacted) fail("a finished game's event redacted", event);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/.test(event.at)) fail("a timestamp's form", event.at);
  });
  const types = events.map((event) => event.type);
  if (types[0] !== "GameCreated" || types[types.length - 1] !== "SeedRevealed") fail("first and last", types);
  console.log(JSON.stringify({ game, id, moves, events: events.length, totals: final.data.scores?.totals }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
