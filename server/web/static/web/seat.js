// The seat page (/join/<code>/): one seat of a table on a phone, no install (docs/web.md).
// It holds the seat's credential (localStorage, keyed by game id), says hello with it on the
// game socket, draws the seat's own view (boards.js) and offers the seat's legal commands as
// buttons. It never asks for anything but this seat's view: the server redacts the rest.
import { update } from "./boards.js";
import {
  esc, playerNames, seatLabel, cardText, callText, learnKinds, resultLine, reportError,
} from "./common.js";

const config = JSON.parse(document.getElementById("gn-config").textContent);
let game = config.game;
learnKinds({ [game.kind]: config.info });
const $ = (id) => document.getElementById(id);
const KEY = (id) => `gamenight-seat-${id}`;
let cred = null;
let ws = null;
let seq = 0;
let legal = [];
let finished = false;
let released = false;
let refs = 0;
window.gnSeat = { commands: 0, frames: 0 };

function stored(id) {
  try { return JSON.parse(localStorage.getItem(KEY(id)) || "null"); } catch (e) { return null; }
}

function label(c) {
  const parts = [];
  for (const [k, v] of Object.entries(c)) {
    if (k === "type") continue;
    if (k === "card") parts.push(cardText(v));
    else if (k === "call") parts.push(callText(v));
    else if (Array.isArray(v)) parts.push(v.map((x) => (typeof x === "string" && x.length === 2 ? cardText(x) : String(x))).join(" "));
    else parts.push(`${k} ${v}`);
  }
  const word = { place: "Place", move: "Move", play: "Play", bid: "Bid", skip: "Skip", keep: "Keep", pass: "Pass" }[c.type] || c.type;
  return parts.length ? `${word} ${parts.join(" ")}` : word;
}

function showJoin() {
  $("join").hidden = false;
  $("play").hidden = true;
  const box = $("open-seats");
  box.innerHTML = "";
  const seats = game.seats.filter((s) => !s.taken && (config.seat === null || s.seat === config.seat));
  if (!seats.length) {
    $("join-title").textContent = config.seat === null ? "No open seat" : `${seatLabel(game.kind, config.seat)} is taken`;
    return;
  }
  const named = seats.length === 1 && seats[0].name;
  if (named) $("name").value = seats[0].name;
  for (const s of seats) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `Join as ${seatLabel(game.kind, s.seat)}${s.name ? ` (${s.name})` : ""}`;
    b.addEventListener("click", () => join(s.code));
    box.appendChild(b);
  }
}

async function join(code) {
  $("join-error").textContent = "";
  const body = { code };
  if ($("name").value.trim()) body.name = $("name").value.trim();
  const r = await fetch("/api/join/", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const out = await r.json();
  if (!r.ok) { $("join-error").textContent = out.error ? out.error.reason : "could not join"; return; }
  game = out.game;
  cred = { seat: out.seat, secret: out.secret };
  localStorage.setItem(KEY(game.id), JSON.stringify(cred));
  start();
}

function start() {
  $("join").hidden = true;
  $("play").hidden = false;
  $("who").textContent = `${seatLabel(game.kind, cred.seat)} · ${playerNames(game)[cred.seat] || ""}`;
  connect();
}

function connect() {
  if (released) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/games/${game.id}/`);
  seq = 0;
  $("conn").textContent = "connecting…";
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", seat: cred.seat, secret: cred.secret, last_seq: 0 }));
  ws.onmessage = (m) => { try { frame(JSON.parse(m.data)); } catch (e) { reportError(e); } };
  ws.onclose = (ev) => {
    $("conn").textContent = "offline";
    if (ev.code !== 4001 && !released) setTimeout(connect, 1000);
  };
}

function frame(f) {
  window.gnSeat.frames += 1;
  if (f.type === "welcome") { $("conn").textContent = "connected"; game.seats = f.seats || game.seats; }
  else if (f.type === "presence") {
    game.seats = f.seats || game.seats;
    $("who").textContent = `${seatLabel(game.kind, cred.seat)} · ${playerNames(game)[cred.seat] || ""}`;
  } else if (f.type === "events") {
    if (f.events && f.events.length) seq = f.to;
    if ("view" in f) draw(f);
  } else if (f.type === "finished") { finished = true; resultLine(game.id).then((t) => { $("outcome").textContent = t; }).catch(reportError); showRematch(); }
  else if (f.type === "rematch") { config.rematch = f.game; showRematch(); }
  else if (f.type === "seat_released") {
    released = true;
    localStorage.removeItem(KEY(game.id));
    $("turn").textContent = "This seat was handed over by the organiser.";
    $("commands").innerHTML = "";
  } else if (f.type === "error") {
    if (f.code === "forbidden" && !f.ref) { released = true; localStorage.removeItem(KEY(game.id)); ws.close(); showJoin(); return; }
    if (f.code !== "stale") $("error").textContent = f.reason || f.code;
  } else if (f.type === "ok") $("error").textContent = "";
}

function draw(f) {
  update($("board"), game.kind, f.view, playerNames(game), { seat: cred.seat });
  // (a hand of cards: a list of card names; Tedoku's "hand" is no list)
  const hand = Array.isArray(f.view.hand) ? f.view.hand : [];
  $("hand").innerHTML = hand.map((c) => `<span class="card suit-${esc(c[1])}" data-card="${esc(c)}">${esc(cardText(c))}</span>`).join("");
  legal = f.legal || [];
  const mine = (f.to_act || []).includes(cred.seat) && legal.length && !f.outcome;
  $("turn").textContent = f.outcome ? "Game over" : mine ? "Your turn" : "Waiting for the others";
  const box = $("commands");
  box.innerHTML = "";
  if (!mine) return;
  legal.forEach((c) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label(c);
    b.dataset.command = JSON.stringify(c);
    b.addEventListener("click", () => send(c));
    box.appendChild(b);
  });
}

function send(c) {
  window.gnSeat.commands += 1;
  $("commands").innerHTML = "";
  ws.send(JSON.stringify({ type: "command", command: c, expected_seq: seq, ref: `c${++refs}` }));
}

function showRematch() {
  const b = $("rematch");
  b.hidden = !finished && !config.rematch;
  b.textContent = config.rematch ? "Join the rematch" : "Rematch";
}

$("rematch").addEventListener("click", async () => {
  const r = await fetch(`/api/games/${game.id}/rematch/`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ seat: cred.seat, secret: cred.secret }) });
  const out = await r.json();
  if (!r.ok) { $("error").textContent = out.error ? out.error.reason : "no rematch"; return; }
  localStorage.setItem(KEY(out.game), JSON.stringify({ seat: out.seat, secret: out.secret }));
  location.href = `/join/${out.table.seats[out.seat].code}/`; // (the new seat's own code)
});

cred = stored(game.id);
if (cred && (config.seat === null || cred.seat === config.seat)) start();
else showJoin();
