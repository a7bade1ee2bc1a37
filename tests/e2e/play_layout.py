"""The table's layout as a person sees it, read from bounding boxes in one script: whether the
whole hand (and the calls to choose from) lies inside the viewport without scrolling, and which
text boxes and cards overlap. A text box is one line of a text node (Range.getClientRects), so
a label is measured by its letters, not by its element's padding; a card by its element.

Overlaps a table has on purpose are not counted: the cards of the fanned hand (each must
show at least a quarter of its width, its corner, instead), the fanned backs of one seat's cards,
a taken trick gathered into a pile before its winner, and anything inside a card (its SVG face). What is hidden (``hidden``, a folded details, the
words clipped away for screen readers) is not seen, so it is not measured.
"""
from __future__ import annotations

import random
import secrets

from .play_page import api

LAYOUT = """
const root = document.getElementById('table-area');
const seen = (e) => {
  if (e.closest('[hidden], .visually-hidden')) return false;
  for (let a = e; a && a !== root; a = a.parentElement) {  // clipped away, as words for screen readers are
    const clip = getComputedStyle(a).clip;
    if (clip && clip !== 'auto') return false;
  }
  if (e.closest('details:not([open])') && !e.closest('summary')) return false;
  const st = getComputedStyle(e);
  return st.visibility !== 'hidden' && st.display !== 'none' && Number(st.opacity) > 0;
};
const boxes = [];
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  const el = node.parentElement;
  if (!node.textContent.trim() || el.closest('svg') || !seen(el)) continue;
  const range = document.createRange();
  range.selectNodeContents(node);
  for (const b of range.getClientRects()) {
    if (b.width > 1 && b.height > 1) boxes.push({kind: 'text', what: node.textContent.trim().slice(0, 40), el, b});
  }
}
for (const e of root.querySelectorAll('.card, .back')) {
  if (!seen(e)) continue;
  const b = e.getBoundingClientRect();
  if (b.width <= 1) continue;
  const kind = e.matches('#hand .fan .card') ? 'hand' : e.matches('.back') ? 'back' : 'card';
  boxes.push({kind, what: e.dataset.card || 'a back', el: e, b});
}
const overlaps = [];
const inside = (a, b) => a.el.contains(b.el) || b.el.contains(a.el);
for (let i = 0; i < boxes.length; i += 1) {
  for (let j = i + 1; j < boxes.length; j += 1) {
    const a = boxes[i], b = boxes[j];
    if (inside(a, b)) continue;
    if (a.kind === 'hand' && b.kind === 'hand') continue;
    if (a.kind === 'back' && b.kind === 'back' && a.el.parentElement === b.el.parentElement) continue;
    const pile = (x) => x.el.closest('.trick-cards.gathering, .trick-cards.gathered');
    if (a.kind === 'card' && b.kind === 'card' && pile(a) && pile(a) === pile(b)) continue;
    const w = Math.min(a.b.right, b.b.right) - Math.max(a.b.left, b.b.left);
    const h = Math.min(a.b.bottom, b.b.bottom) - Math.max(a.b.top, b.b.top);
    if (w > 2 && h > 2) overlaps.push([a.what, b.what, Math.round(w), Math.round(h)]);
  }
}
const hand = Array.from(root.querySelectorAll('#hand .fan .card'), (e) => e.getBoundingClientRect());
const strips = hand.slice(1).map((b, i) => (b.left - hand[i].left) / b.width);
const within = (b) => b.left >= -1 && b.top >= -1 && b.right <= innerWidth + 1 && b.bottom <= innerHeight + 1;
const moves = Array.from(root.querySelectorAll('#moves button'), (e) => e.getBoundingClientRect());
return {
  width: innerWidth, height: innerHeight, scrolled: scrollY, sideways: document.documentElement.scrollWidth - innerWidth,
  hand: hand.length, handInside: hand.every(within), movesInside: moves.every(within),
  outside: hand.filter((b) => !within(b)).map((b) => [Math.round(b.left), Math.round(b.top), Math.round(b.right), Math.round(b.bottom)]),
  narrowestStrip: strips.length ? Math.min(...strips) : 1, cardWidth: hand.length ? Math.round(hand[0].width) : 0,
  boxes: boxes.length, overlaps: overlaps.slice(0, 12),
  // How far the felt's rows reach past the felt (their least heights add up to more than the
  // screen): whether or not a card happens to cross the screen's edge in this deal.
  feltOverflow: (() => { const f = document.getElementById('seats'); return f ? f.scrollHeight - f.clientHeight : 0; })(),
  parts: Array.from(document.querySelectorAll('.stage > *, #seats.felt > *'), (e) => [e.id || e.className, Math.round(e.getBoundingClientRect().height)]),
};
"""


SIZES = [(1280, 800), (1440, 900), (390, 844), (360, 640)]

SETTLE = "const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"


class HumanTable:
    """A game whose seats are all people, moved through the API by the test; the browser sits at seat 0."""

    def __init__(self, server, game: str, players: int, rules: dict, presets: list | None = None, script=None):
        self.server, self.script = server, script
        body = {"game": game, "players": players, "rules": rules, "seats": [{"kind": "human"}] * players}
        if presets:
            body["preset_deals"] = presets
        self.id = api(server, "/v1/games", body=body)["id"]
        self.tokens = [api(server, f"/v1/games/{self.id}/seats/{seat}", body={})["token"] for seat in range(players)]

    def view(self, seat: int) -> dict:
        return api(self.server, f"/v1/games/{self.id}/view", self.tokens[seat])

    def move(self, rng: random.Random) -> int:
        """One move of the first seat to act: what the table's ``script`` says for it, if anything;
        else a card where it plays one; in Schafkopf's announcement seat 0 plays and the others
        pass (so seat 0 names a game); else any legal call."""
        seat = api(self.server, f"/v1/games/{self.id}/view")["to_act"][0]
        view = self.view(seat)
        cards = [c for c in view["legal"] if c["type"] == "play"]
        announce = {"type": "announce", "intent": "play" if seat == 0 else "pass"}
        command = self.script(seat, view) if self.script else None
        if command is None:
            command = cards[0] if cards else announce if announce in view["legal"] else rng.choice(view["legal"])
        return api(self.server, f"/v1/games/{self.id}/commands", self.tokens[seat], body=command,
                   headers={"If-Match": f'"{view["seq"]}"', "Idempotency-Key": secrets.token_hex(16)})["seq"]

    def until(self, rng: random.Random, reached) -> dict:
        for _ in range(400):
            view = self.view(0)
            if reached(view):
                return view
            self.move(rng)
        raise AssertionError(f"{self.id} never reached the phase: {view['game_state']}")


def fits(browser, what: str) -> dict:
    """At each of the four screens: the whole hand and every call inside the viewport without
    scrolling, each fanned card showing its corner, no two text boxes or cards overlapping."""
    seen = {}
    try:
        for width, height in SIZES:
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
            browser.execute_async_script(SETTLE)
            shown = browser.execute_script(LAYOUT)
            where = f"{what} at {width}×{height}"
            assert shown["width"] == width and shown["height"] == height, (where, shown)
            assert shown["scrolled"] == 0 and shown["sideways"] <= 0, (where, shown)
            assert shown["handInside"] and shown["movesInside"], f"{where}: {shown}"
            # The felt's rows fit the felt in every deal, not only in this one's (a chip that wraps
            # or a longer status line must not push the hand past the screen's edge).
            assert shown["feltOverflow"] <= 1, f"{where}: {shown}"
            assert shown["narrowestStrip"] >= 0.25, (where, shown)
            assert shown["overlaps"] == [], (where, shown)
            seen[(width, height)] = shown
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return seen
