// Players in the browser: register a handle or sign in with a player token, the seats the
// signed-in player takes and plays with that token (no seat token), and signing out.

import { request } from "./api.js";
import { h } from "./dom.js";
import { player, quickPlay, seats } from "./store.js";

// Handles are unique whatever their case, and kept as registered.
const same = (a, b) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

// Take a seat: as the signed-in player when there is one (the server keeps the seat for the
// player, and the player token plays it), else anonymously with the seat token it answers.
export async function takeSeat(gameId, seat) {
  const me = player.get();
  const answer = await request("POST", `/v1/games/${gameId}/seats/${seat}`, { token: me ? me.token : null });
  if (me) seats.set(gameId, answer.seat, null, { player: answer.player || me.handle });
  else seats.set(gameId, seat, answer.token);
  return answer;
}

// The token to act with at a game: the seat's own, else the signed-in player's where that player
// sits, as this browser recorded it or as the view's seats name it (a seat taken in another
// browser, or before this browser kept a record of it).
export function tokenAt(gameId, view = null) {
  const mine = seats.get(gameId);
  if (mine && mine.token) return mine.token;
  const me = player.get();
  if (!me) return null;
  if (mine && same(mine.player, me.handle)) return me.token;
  if (view && (view.seats || []).some((s) => same(s.player, me.handle))) return me.token;
  return null;
}

// The token shown once, right after registering: kept in memory only, so a reload never shows it.
let justRegistered = null;

function fieldError(input, box, text) {
  box.textContent = text || "";
  if (text) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

// The words of a problem about one field (422's ``errors``), else its detail.
function problemWords(ctx, error, field) {
  const said = error && error.problem && error.problem.errors && error.problem.errors[field];
  return said && said.length ? said.join("; ") : ctx.problemText(error);
}

function registerForm(ctx) {
  const handle = h("input", { id: "register-handle", name: "handle", autocomplete: "username", required: true,
    maxlength: 24, spellcheck: "false", autocapitalize: "none", "aria-describedby": "register-help register-error" });
  const error = h("p", { id: "register-error", class: "error", role: "alert" });
  async function register(event) {
    event.preventDefault();
    fieldError(handle, error, "");
    try {
      const answer = await request("POST", "/v1/players", { body: { handle: handle.value.trim() } });
      player.set(answer.handle, answer.token);
      justRegistered = { handle: answer.handle, token: answer.token };
      ctx.lobby();
    } catch (error_) {
      const text = error_.problem && error_.problem.code === "handle_taken"
        ? `The handle ${handle.value.trim()} is taken: choose another (or sign in, if it is yours).`
        : problemWords(ctx, error_, "handle");
      fieldError(handle, error, text);
      handle.focus();
    }
  }
  return h("form", { id: "register", onsubmit: register, "aria-labelledby": "register-title" },
    h("h3", { id: "register-title" }, "New player"),
    h("label", { for: "register-handle" }, "Handle "), handle, " ",
    h("button", { type: "submit", id: "register-button" }, "Register"),
    h("p", { id: "register-help", class: "note" }, "3 to 24 letters, digits, _ or -, starting with a letter or digit."),
    error);
}

// Signing in proves the token is the handle's: the profile gives the handle as registered (any
// case may be typed), and the player's token list answers only a token of that player's with the
// scope 'account' (the registration's token has every scope). A token of another player's, or a
// revoked one, is refused there, before anything is kept.
function signInForm(ctx) {
  const handle = h("input", { id: "sign-in-handle", name: "username", autocomplete: "username", required: true,
    maxlength: 24, spellcheck: "false", autocapitalize: "none" });
  const token = h("input", { id: "sign-in-token", name: "password", type: "password", autocomplete: "current-password",
    required: true, spellcheck: "false", "aria-describedby": "sign-in-error" });
  const error = h("p", { id: "sign-in-error", class: "error", role: "alert" });
  async function signIn(event) {
    event.preventDefault();
    fieldError(token, error, "");
    const typed = handle.value.trim();
    const secret = token.value.trim();
    if (!secret.startsWith("pt_")) {
      fieldError(token, error, "A player token starts with pt_ (the token registration showed you).");
      token.focus();
      return;
    }
    let profile;
    try {
      profile = await request("GET", `/v1/players/${encodeURIComponent(typed)}`);
    } catch (error_) {
      fieldError(token, error, error_.status === 404 ? `No player ${typed} is registered here.` : ctx.problemText(error_));
      handle.focus();
      return;
    }
    try {
      await request("GET", `/v1/players/${encodeURIComponent(profile.handle)}/tokens`, { token: secret });
    } catch (error_) {
      const code = error_.problem && error_.problem.code;
      fieldError(token, error, code === "insufficient_scope"
        ? "This token lacks the scope 'account', which the page uses to check that it is yours: sign in with the "
          + "token from registration, or one issued with the scopes play and account."
        : code === "invalid_token" ? `This is not a player token of ${profile.handle}'s (or it was revoked).`
          : ctx.problemText(error_));
      token.focus();
      return;
    }
    player.set(profile.handle, secret);
    ctx.lobby();
    ctx.say(`Signed in as ${profile.handle}.`);
  }
  return h("form", { id: "sign-in", onsubmit: signIn, "aria-labelledby": "sign-in-title" },
    h("h3", { id: "sign-in-title" }, "Sign in"),
    h("label", { for: "sign-in-handle" }, "Handle "), handle, " ",
    h("label", { for: "sign-in-token" }, "Player token "), token, " ",
    h("button", { type: "submit", id: "sign-in-button" }, "Sign in"),
    error);
}

// The token, once: to copy into a password manager. Copying falls back to selecting it, for a
// browser that allows no clipboard here (a page served over plain http on a LAN).
function tokenNotice(shown) {
  const field = h("input", { id: "new-token", readonly: true, value: shown.token, spellcheck: "false",
    "aria-describedby": "new-token-help" });
  const copied = h("span", { id: "new-token-copied", role: "status" });
  async function copy() {
    field.select();
    try {
      await navigator.clipboard.writeText(shown.token);
      copied.textContent = "Copied.";
    } catch (_) {
      copied.textContent = "Selected: copy it with Ctrl+C (⌘C).";
    }
  }
  const notice = h("section", { id: "token-notice", class: "notice", "aria-labelledby": "token-notice-title", tabindex: "-1" },
    h("h3", { id: "token-notice-title" }, "Keep this safe: your player token"),
    h("p", { id: "new-token-help" }, `It is your password here, shown this once: with it you sign in as ${shown.handle} `
      + "in another browser or after signing out, and anyone who has it plays as you."),
    h("p", { class: "row" }, h("label", { for: "new-token", class: "visually-hidden" }, "Your player token"), field,
      h("button", { type: "button", id: "copy-token", onclick: copy }, "Copy"), copied),
    h("p", {}, h("button", { type: "button", id: "token-kept", onclick: () => {
      notice.remove();
      const out = document.getElementById("sign-out");
      if (out) out.focus();
    } }, "I have kept it")));
  return notice;
}

async function signOut(ctx) {
  const me = player.get();
  const waiting = quickPlay.get();
  if (me && waiting) {
    // Signed out, nobody would play the table the wait ends in: leave the pool first.
    try {
      await request("DELETE", `/v1/pools/${encodeURIComponent(waiting.pool)}/entry`, { token: me.token });
    } catch (_) { /* not waiting any more, or seated: nothing to leave */ }
  }
  player.forget();
  justRegistered = null;
  ctx.lobby();
  ctx.say("Signed out: this browser forgot the player token.");
  const first = document.getElementById("sign-in-handle");
  if (first) first.focus();
}

// The lobby's part: who plays here (and the token notice once), or the forms to become a player.
export function playerPanel(ctx) {
  const me = player.get();
  const box = h("section", { id: "player", "aria-labelledby": "player-title" });
  if (!me) {
    box.append(h("h2", { id: "player-title" }, "Play as a player"),
      h("p", { class: "note" }, "A player keeps its name, its rating and its games from table to table. "
        + "Without one you play anonymously, each seat with its own token."),
      h("div", { class: "forms" }, registerForm(ctx), signInForm(ctx)));
    return box;
  }
  const shown = justRegistered && same(justRegistered.handle, me.handle) ? justRegistered : null;
  justRegistered = null;
  // append() would write a null as the word "null": leave the parts not shown out.
  box.append(...[
    h("h2", { id: "player-title" }, "Signed in as ", h("span", { id: "signed-in-as" }, me.handle)),
    shown ? tokenNotice(shown) : null,
    h("p", { class: "row" }, h("span", { class: "note" }, "You take seats and play quick play as this player."),
      h("button", { type: "button", id: "sign-out", onclick: () => signOut(ctx) }, "Sign out"))].filter(Boolean));
  if (shown) requestAnimationFrame(() => { const n = document.getElementById("token-notice"); if (n) n.focus(); });
  return box;
}
