// Shared helpers of the game page and TV mode: escaping, seat names, the move notation.

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

export const TEKA_SEATS = ["North", "East", "South", "West"];

// What the pages know of each game comes from the server (the rules core's Game.info: its
// title, seat labels, sides, what its drawing needs), given in the page's configuration.
const KINDS = {};

/** Learn the games of a page's configuration: {kind: info}. */
export function learnKinds(kinds) {
  Object.assign(KINDS, kinds || {});
}

/** A game's info (docs/games.md); an unknown game gets the generic drawing. */
export function infoOf(kind) {
  return KINDS[kind] || { kind, title: kind, seat_labels: [], sides: [],
    board: { drawing: "generic", step: "round", sheet: false } };
}

/** The game's name for people ("Teeko"). */
export function kindTitle(kind) {
  return infoOf(kind).title || kind;
}
export const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export const SUIT_NAME = { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" };

/** The seat's place at the table in a word: White/Black, Light/Dark, North..., Seat N. */
export function seatLabel(kind, seat) {
  const names = infoOf(kind).seat_labels || [];
  if (seat >= 0 && seat < names.length) return names[seat];
  return `Seat ${seat + 1}`;
}

/** Names of the players, by seat ("Ann", "Bot North", "open"): bots as the app and the live
 * game name them (server/games/wording.py player_names, core.wording.told_apart). */
export function playerNames(game) {
  return namesOf(game.kind, (game.seats || []).map((s, i) => ({ ...s, seat: s.seat ?? i })));
}

/** Seats (as the API and the presence frames give them) to names: a bot by its name less its
 * level ("Bot (easy)" is "Bot"), bots sharing a name told apart by their seat ("Bot East",
 * "Bot 2" where the game names seats by number only). */
export function namesOf(kind, seats) {
  const bot = seats.map((s) => s.kind === "bot" && !s.replaced);
  const names = seats.map((s, i) => {
    if (s.kind === "bot") return s.replaced ? `${s.name || "Guest"} (bot)` : ((s.name || "Bot").split(" (")[0] || "Bot");
    if (!s.taken) return "open";
    return s.name || `Seat ${s.seat + 1}`;
  });
  return names.map((name, i) => {
    if (!bot[i] || names.filter((n) => n === name).length < 2) return name;
    const label = seatLabel(kind, i);
    return `${name} ${label === `Seat ${i + 1}` ? String(i + 1) : label}`;
  });
}

/** A player's name with their place at the table: "Ann (West)", "Dan (bot, West)" (one pair
 * of brackets), "West" for no name. */
export function nameAndSeat(name, label) {
  if (!name) return label;
  if (!label) return name;
  return name.endsWith(")") ? `${name.slice(0, -1)}, ${label})` : `${name} (${label})`;
}

export function cardText(card) {
  if (!card || card.length < 2) return "?";
  return (card[0] === "T" ? "10" : card[0]) + (SUIT_SYMBOL[card[1]] || card[1]);
}

export function callText(call) {
  if (typeof call === "number") return String(call);
  return { pass: "Pass", ter: "Ter", "behi ter": "Behi ter", "double 13": "Double 13" }[call] || String(call);
}

// (the sentences of events and results come from the server: core/words.py, the one text
// of the app and the pages; the pages show them, they do not compose them)

/** Event indices (seq) where a new hand (Teka) or turn (Tedoku) or round starts. */
export function marks(events) {
  const starts = new Set(["deal", "new_hand", "hand", "round", "new_round", "next_round", "flip", "round_end"]);
  const out = [];
  for (const r of events) if (r && starts.has(r.event.type)) out.push(r.seq);
  return out;
}

/** What the replay steps by (the game's board().step): "hand", "turn", "round", or "". */
export function markName(kind) {
  const step = infoOf(kind).board.step;
  return step === undefined ? "round" : step;
}

/** The sentences of events ``from``..``to`` and the result line, from the server
 * (``/api/games/<id>/words/``, core/words.py): {texts: [...], result: "..."}; with ``now``
 * also what the table is at after ``to`` ({now: {doing, trick, hand}}). */
export async function fetchWords(url, from, to, now = false) {
  const r = await fetch(`${url}?from=${from}&to=${to}${now ? "&now=1" : ""}`);
  const body = await r.json();
  if (!r.ok) throw new Error(`words ${from}-${to}: ${body.error ? body.error.reason : r.status}`);
  return body;
}

export async function resultLine(gameId) {
  // The result line of a finished game as the server words it (core/words.py), the same
  // sentence the game page and the app show.
  const r = await fetch(`/api/games/${gameId}/words/?from=1&to=1`);
  return r.ok ? (await r.json()).result || "" : "";
}

export function reportError(err) {
  // (the browser tests read window.gnStats.errors: no page may log a JavaScript error)
  const stats = (window.gnStats ||= {});
  (stats.errors ||= []).push(String(err && err.stack || err));
  console.error(err);
}

/** Ask before what cannot be undone (resign, a raise, handing a seat away): a modal dialog
 * with ``text``, a ``yes`` button and Cancel; the promise is true when confirmed. */
export function confirmAction(text, yes = "Yes") {
  return new Promise((resolve) => {
    const back = document.createElement("div");
    back.className = "gn-confirm";
    back.setAttribute("role", "dialog");
    back.setAttribute("aria-modal", "true");
    const box = document.createElement("div");
    box.className = "gn-confirm-box";
    const p = document.createElement("p");
    p.textContent = text;
    const ok = document.createElement("button");
    ok.type = "button";
    ok.className = "gn-confirm-yes";
    ok.textContent = yes;
    const no = document.createElement("button");
    no.type = "button";
    no.className = "gn-confirm-no";
    no.textContent = "Cancel";
    const done = (answer) => { back.remove(); resolve(answer); };
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    back.addEventListener("click", (ev) => { if (ev.target === back) done(false); });
    box.append(p, ok, no);
    back.appendChild(box);
    document.body.appendChild(back);
    ok.focus();
  });
}
