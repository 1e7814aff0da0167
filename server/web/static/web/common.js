// Shared helpers of the game page and TV mode: escaping, seat names, the move notation.

export function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

export const KIND_NAMES = { teeko: "Teeko", tiku: "Tiku", tedoku: "Tedoku", teka: "Teka" };
const SEAT_COLOURS = { teeko: ["White", "Black"], tiku: ["Light", "Dark"] };
export const TEKA_SEATS = ["North", "East", "South", "West"];
export const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export const SUIT_NAME = { S: "Spades", H: "Hearts", D: "Diamonds", C: "Clubs" };

/** The seat's place at the table in a word: White/Black, Light/Dark, North..., Seat N. */
export function seatLabel(kind, seat) {
  if (kind === "teka") return TEKA_SEATS[seat % 4];
  const names = SEAT_COLOURS[kind];
  if (names && seat >= 0 && seat < names.length) return names[seat];
  return `Seat ${seat + 1}`;
}

/** Names of the players, by seat ("Ann", "Bot (easy)", "open"). */
export function playerNames(game) {
  return (game.seats || []).map((s) => {
    if (s.kind === "bot") return s.replaced ? `${s.name || "Guest"} (bot)` : (s.name || `Bot (${s.bot_level})`);
    if (!s.taken) return "open";
    return s.name || `Seat ${s.seat + 1}`;
  });
}

export function cardText(card) {
  if (!card || card.length < 2) return "?";
  return (card[0] === "T" ? "10" : card[0]) + (SUIT_SYMBOL[card[1]] || card[1]);
}

export function callText(call) {
  if (typeof call === "number") return String(call);
  return { pass: "Pass", ter: "Ter", "behi ter": "Behi ter", "double 13": "Double 13" }[call] || String(call);
}

/** A short line for an event in the project's notation (docs/notation.md), word for word as
 * the app's replay caption says it (client_kivy/vm/session.py describe_event; the browser
 * tests compare the two): "Ann placed c3", "Bob moved b2-c3", "Cleo played KH (snap)". */
export function describe(ev, names) {
  const t = ev.type;
  const seat = ev.seat;
  const who = Number.isInteger(seat)
    ? (names && seat >= 0 && seat < names.length ? names[seat] : `Seat ${seat + 1}`)
    : "";
  if (t === "placed" && "to" in ev) return `${who} placed ${ev.to}`;
  if (t === "placed") return `${who} drew ${ev.shape || ""} ${(ev.cells || []).join(" ")}`.trim();
  if (t === "moved") return `${who} moved ${ev.from}-${ev.to}`;
  if (t === "play") return `${who} played ${ev.card}${ev.signal ? ` (${ev.signal})` : ""}`;
  if (t === "bid") return `${who} called ${ev.call}`;
  if (t === "trumps") return `${who} named trumps ${ev.suit}`;
  if (t === "flip") return `Turn ${ev.turn}: card ${ev.card}, die ${ev.die}`;
  if (t === "deal") return `Hand ${ev.hand} dealt`;
  if (t === "reveal") return `Turn ${ev.turn}: drawings revealed`;
  if (t === "game_over") return "Game over";
  const parts = [String(t ?? "?")];
  for (const [k, v] of Object.entries(ev)) {
    if (["type", "options", "deck", "order", "hands"].includes(k)) continue;
    if ((typeof v === "string") || (Number.isInteger(v))) parts.push(`${k} ${v}`);
  }
  return parts.join(" \u00b7 ");
}

/** Event indices (seq) where a new hand (Teka) or turn (Tedoku) or round starts. */
export function marks(events) {
  const starts = new Set(["deal", "new_hand", "hand", "round", "new_round", "next_round", "flip", "round_end"]);
  const out = [];
  for (const r of events) if (r && starts.has(r.event.type)) out.push(r.seq);
  return out;
}

export function markName(kind) {
  return kind === "teka" ? "hand" : kind === "tedoku" ? "turn" : "round";
}

/** "White wins", "North-South win", "Draw" with the reason and scores. */
export function outcomeText(kind, outcome, names) {
  if (!outcome) return "";
  const w = outcome.winners || [];
  let text;
  if (!w.length) text = "Draw";
  else if (kind === "teka") text = `${w.includes(0) ? "North-South" : "East-West"} win`;
  else text = w.map((s) => names?.[s] || seatLabel(kind, s)).join(" & ") + (w.length > 1 ? " win" : " wins");
  const reason = outcome.reason ? ` (${String(outcome.reason).replace(/_/g, " ")})` : "";
  const scores = outcome.scores && outcome.scores.length ? ` \u00b7 ${outcome.scores.join(" : ")}` : "";
  return text + reason + scores;
}

export function reportError(err) {
  // (the browser tests read window.gnStats.errors: no page may log a JavaScript error)
  const stats = (window.gnStats ||= {});
  (stats.errors ||= []).push(String(err && err.stack || err));
  console.error(err);
}
