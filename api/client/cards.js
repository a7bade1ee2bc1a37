// Card faces, and words for commands and events, per game. A face always carries its suit or
// colour as text, so no card is told apart by colour alone.

export const GAME_NAMES = {
  "scharfe-schoten": "Scharfe Schoten",
  schafkopf: "Schafkopf",
  scharwenzel: "Scharwenzel",
};

const SS_COLOURS = { R: "Red", G: "Green", Y: "Yellow", B: "Black" };
const SK_SUITS = { E: "Eichel", G: "Gras", H: "Herz", S: "Schellen" };
const SK_RANKS = { A: "Sau", 10: "Zehn", K: "König", O: "Ober", U: "Unter", 9: "Neun", 8: "Acht", 7: "Sieben" };
const SW_SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const SW_SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };

// {rank, suit, suitText, name} of a card code; null for anything else.
export function parseCard(game, code) {
  let m;
  if (game === "scharfe-schoten" && (m = /^([RGYB])(\d{1,2})$/.exec(code))) {
    return { rank: m[2], suit: m[1], suitText: m[1], name: `${SS_COLOURS[m[1]]} ${m[2]}` };
  }
  if (game === "schafkopf" && (m = /^([EGHS])(A|10|K|O|U|9|8|7)$/.exec(code))) {
    return { rank: m[2], suit: m[1], suitText: m[1], name: `${SK_SUITS[m[1]]} ${SK_RANKS[m[2]]}` };
  }
  if (game === "scharwenzel" && (m = /^(A|K|Q|J|10|9|8|7|6)([CSHD])$/.exec(code))) {
    return { rank: m[1], suit: m[2], suitText: SW_SUITS[m[2]], name: `${m[1]} of ${SW_SUIT_NAMES[m[2]]}` };
  }
  return null;
}

export function cardName(game, code) {
  const card = parseCard(game, code);
  return card ? card.name : code;
}

export function suitName(game, suit) {
  if (game === "scharfe-schoten") return SS_COLOURS[suit] || suit;
  if (game === "schafkopf") return SK_SUITS[suit] || suit;
  if (game === "scharwenzel") return `${SW_SUITS[suit] || ""} ${SW_SUIT_NAMES[suit] || suit}`.trim();
  return suit;
}

const SK_GAMES = {
  rufspiel: "Rufspiel", solo: "Solo", wenz: "Wenz", farbwenz: "Farbwenz", geier: "Geier",
  farbgeier: "Farbgeier", bettel: "Bettel", sie: "Sie", solo_tout: "Solo Tout", wenz_tout: "Wenz Tout",
  farbwenz_tout: "Farbwenz Tout", geier_tout: "Geier Tout", farbgeier_tout: "Farbgeier Tout",
  hochzeit: "Hochzeit", ramsch: "Ramsch",
};

export function schafkopfGame(game, suit) {
  const name = SK_GAMES[game] || game;
  if (!suit) return name;
  return game === "rufspiel" ? `${name} auf die ${SK_SUITS[suit]}-Sau` : `${SK_SUITS[suit]}-${name}`;
}

const STOSS = ["", "Kontra", "Re", "Supra", "Resupra"];

// A legal command in words, for its button.
export function describeCommand(game, view, command) {
  const cards = (list) => list.map((c) => cardName(game, c)).join(" and ");
  switch (command.type) {
    case "play": return `Play ${cardName(game, command.card)}`;
    case "predict": return `Most ${SS_COLOURS[command.most]}, fewest ${SS_COLOURS[command.fewest]}`;
    case "take": return `Take ${SS_COLOURS[command.colour]} from the cupboard`;
    case "announce":
      return { pass: "Weiter (pass)", play: "Ich spiele (play)", hochzeit: "Hochzeit anbieten" }[command.intent]
        || command.intent;
    case "name_game": return `Play ${schafkopfGame(command.game, command.suit)}`;
    case "withdraw": return "Weiter (withdraw)";
    case "stoss": {
      const level = ((view && view.game_state && view.game_state.stoss) || []).length + 1;
      return `Stoß: ${STOSS[level] || "Stoß"}`;
    }
    case "doppeln": return command.double ? "Ich dopple (double)" : "Weiter (no double)";
    case "schieber": return command.play ? "Ich spiele (play the Solo)" : "Ich spiele nicht";
    case "push": return `Pass on ${cards(command.cards)}`;
    case "give_card": return `Give ${cardName(game, command.card)}`;
    case "bid":
      if (game === "schafkopf") return `Bid ${command.target - 1}`;
      return command.besser ? `Bid ${command.value} besser (clubs)` : `Bid ${command.value}`;
    case "pass": return "Pass";
    case "name_trumps": return `Trumps: ${suitName(game, command.suit)}`;
    case "announce_tout": return "Announce tout";
    case "no_tout": return "No tout";
    default: {
      const rest = Object.entries(command).filter(([k]) => k !== "type").map(([k, v]) => `${k} ${JSON.stringify(v)}`);
      return [command.type, ...rest].join(" ");
    }
  }
}

export function seatName(seat) {
  return seat === null || seat === undefined ? "nobody" : `Seat ${seat}`;
}

// One event in words, for the table's log and the replay.
export function describeEvent(game, event) {
  const d = event.data || {};
  const who = seatName(d.seat);
  const cards = (list) => list.map((c) => cardName(game, c)).join(" and ");
  switch (event.type) {
    case "GameCreated": return "Game created";
    case "SeatTaken": return `${who} taken`;
    case "GameStarted": return "Game started";
    case "HandsDealt": return `Cards dealt (deal ${(d.deal ?? 0) + 1})`;
    case "CardPlayed": return `${who} played ${cardName(game, d.card)}`;
    case "TrickTaken": return `${seatName(d.winner ?? d.seat)} took the trick`;
    case "PredictionMade": return `${who} predicted`;
    case "PredictionsRevealed": return "Predictions revealed";
    case "CupboardStocked": return "The cupboard is filled";
    case "CupboardCardTaken":
      return `${who} took a ${SS_COLOURS[d.colour] || ""} card from the cupboard`.replace("  ", " ");
    case "RoundScored": return `Round ${d.round} scored: ${(d.points || []).join(", ")}`;
    case "GameNamed": return `${who} names ${schafkopfGame(d.game, d.suit)}`;
    case "GameDeclared":
      return d.declarer == null ? `${schafkopfGame(d.game, d.suit)} is played`
        : `${seatName(d.declarer)} plays ${schafkopfGame(d.game, d.suit)}`;
    case "PartnerRevealed": return `${who} is the partner`;
    case "DealSettled": return `Deal settled: ${(d.payments || []).join(", ")}`;
    case "DealThrownIn": return "All passed: the deal is thrown in";
    case "PlayWithdrawn": return `${who}: Weiter (withdraws)`;
    case "AuctionOpened":
      return `Auction: ${(d.seats || []).map(seatName).join(", ")} bid; ${seatName(d.holder)} holds ${d.target}`;
    case "BidPassed": return `${who} passes`;
    case "HochzeitCardGiven":
      return d.card ? `${who} gave ${cardName(game, d.card)} to ${seatName(d.to)}` : `${who} gave a card to ${seatName(d.to)}`;
    case "HochzeitCardReceived":
      return d.card ? `${who} received ${cardName(game, d.card)} from ${seatName(d.from)}`
        : `${who} received a card from ${seatName(d.from)}`;
    case "ObersHandedOver": return `${who} hands ${cards(d.cards || [])} to ${seatName(d.to)}`;
    case "CardsPushed":
      return d.cards ? `${who} pushed ${cards(d.cards)} to ${seatName(d.to)}` : `${who} pushed two cards to ${seatName(d.to)}`;
    case "CardsReceived":
      return d.cards ? `${who} received ${cards(d.cards)} from ${seatName(d.from)}` : `${who} received two cards from ${seatName(d.from)}`;
    case "SchieberrundePaid": return `Nobody plays the Schieberrunde: ${(d.payments || []).join(", ")}`;
    case "RenonceRound": return "All passed: a Renonce round";
    case "MussSpiel": return `All passed: ${who} holds the Eichel-Ober and must play`;
    case "SecondHalfDealt": return "The second half is dealt";
    case "BidMade":
      return game === "schafkopf" ? `${who} bids ${d.call || d.target}` : `${who} bids ${d.value}${d.besser ? " besser" : ""}`;
    case "Passed": return `${who} passes`;
    case "TrumpsNamed": return `Trumps: ${suitName(game, d.suit)}${d.after_all_passed ? " (all passed)" : ""}`;
    case "ToutAnnounced": return `${who} announces tout`;
    case "ToutDeclined": return `${who}: no tout`;
    case "DealScored": return `Deal scored: side points ${(d.points || []).join(" : ")}`;
    case "ThreadWon": return `Side ${d.side} draws ${d.threads === 2 ? "two threads (Petersdorfer)" : "a thread"}`;
    case "GameEnded": return "Game over";
    case "GameCutShort": return "Game cut short";
    case "TurnTimedOut":
      return `${seatName(d.seat)} ran out of time${d.abandoned ? " and is now played by a bot" : ": a bot moved"}`;
    case "SeatReclaimed": return `${seatName(d.seat)} was taken again`;
    case "SeedRevealed": return "Seed revealed: the deals can be verified";
    default:
      if (d.call) return `${who}: ${d.call}`;
      return event.type;
  }
}
