// The seat page (/join/<code>/): one seat of a table on a phone, no install (docs/web.md).
// It holds the seat's credential (localStorage, keyed by game id), says hello with it on the
// game socket, draws the seat's own view (boards.js) and lets the player act on the game
// itself through the controls of the game's drawing. It never asks for anything but this
// seat's view: the server redacts the rest.
//
// Controls modules (seat_<name>.js, chosen by the game's board().drawing, CONTROLS below)
// export ``controls(ctx)`` returning ``{ draw(state), destroy() }``:
//   ctx.kind, ctx.info (the game's info), ctx.seat (this seat's number), ctx.drawing,
//   ctx.board (the element the board SVG is drawn in; redrawn before each draw(state)),
//   ctx.hand (an element for a hand or a piece tray), ctx.box (the element for the
//   controls: buttons, rows), ctx.names() (players' names by seat),
//   ctx.send(command) -> Promise of the server's answer ({type: "ok"} or an error frame
//     {type: "error", code, reason}); while it is pending the page shows "Sending…" and
//     the controls must not offer a second command (state.pending is true); send the
//     command as `legal` lists it: a command made offline, or answered `stale` in a
//     simultaneous phase, is sent again only while it is in `legal` (watch.js),
//   ctx.confirm(text, yesLabel) -> Promise<boolean> (a modal dialog: resign, raise, ...),
//   ctx.say(text) (a short line under the board: what a tap would do, why it cannot).
//   state: { view, legal (this seat's legal commands), mine (this seat is to act now),
//            toAct, outcome, seq, pending }.
// The fallback (seat_buttons.js) offers each legal command as a button.
import { update } from "./boards.js";
import {
  playerNames, seatLabel, learnKinds, resultLine, reportError, confirmAction, infoOf,
} from "./common.js";
import { controls as buttonControls } from "./seat_buttons.js";
import { GameSocket } from "./watch.js";
import { controls as tekaControls } from "./seat_teka.js";
import { controls as tedokuControls } from "./seat_tedoku.js";
import { controls as boardControls } from "./seat_board.js";

// The controls of each drawing (a game whose drawing has none gets buttons).
const CONTROLS = {
  teka: tekaControls,
  tedoku: tedokuControls,
  teeko: boardControls, tiku: boardControls,
};

const config = JSON.parse(document.getElementById("gn-config").textContent);
let game = config.game;
learnKinds({ [game.kind]: config.info });
const $ = (id) => document.getElementById(id);
const KEY = (id) => `gamenight-seat-${id}`;
let cred = null;
let sock = null;  // the game socket (watch.js): resumes, heartbeat, commands kept offline
let finished = false;
let released = false;
let ctrl = null;
let last = null;  // the last events frame with a view
// (the tests read these: send fires a command as a tap would, legal is the last frame's)
window.gnSeat = {
  commands: 0, frames: 0, pending: 0, send,
  get legal() { return last ? last.legal || [] : []; },
  get view() { return last ? last.view : null; },
  get socket() { return sock; },
};

function stored(id) {
  try { return JSON.parse(localStorage.getItem(KEY(id)) || "null"); } catch (e) { return null; }
}

function showJoin() {
  $("join").hidden = false;
  $("play").hidden = true;
  const box = $("open-seats");
  box.replaceChildren();
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

function context() {
  const drawing = (infoOf(game.kind).board || {}).drawing || "generic";
  return {
    kind: game.kind,
    info: infoOf(game.kind),
    drawing,
    seat: cred.seat,
    board: $("board"),
    hand: $("hand"),
    box: $("commands"),
    names: () => playerNames(game),
    send,
    confirm: (text, yes) => confirmAction(text, yes),
    say: (text) => { $("note").textContent = text || ""; },
  };
}

function start() {
  $("join").hidden = true;
  $("play").hidden = false;
  $("who").textContent = `${seatLabel(game.kind, cred.seat)} · ${playerNames(game)[cred.seat] || ""}`;
  const ctx = context();
  ctrl = (CONTROLS[ctx.drawing] || buttonControls)(ctx);
  connect();
}

const CONN = { connecting: "connecting…", live: "connected", finished: "connected",
  reconnecting: "offline · reconnecting…", closed: "offline" };

function connect() {
  if (released) return;
  // (the first hello from the seq the page was made at: the seat page draws the view, it
  // needs no earlier record; after a drop, from the last seq held)
  sock = new GameSocket(`/ws/games/${game.id}/`, game.seq || 0, {
    onState(s) {
      $("conn").textContent = CONN[s] || s;
      $("conn").dataset.state = s;
      draw();
    },
    onWelcome(f) { window.gnSeat.frames += 1; game.seats = f.seats || game.seats; },
    onPresence(f) {
      window.gnSeat.frames += 1;
      game.seats = f.seats || game.seats;
      $("who").textContent = `${seatLabel(game.kind, cred.seat)} · ${playerNames(game)[cred.seat] || ""}`;
      draw();  // (the controls show the players' names)
    },
    onEvents(records, f) {
      window.gnSeat.frames += 1;
      if ("view" in f) { last = f; draw(); }
    },
    onFinished() {
      window.gnSeat.frames += 1;
      finished = true;
      resultLine(game.id).then((t) => { $("outcome").textContent = t; }).catch(reportError);
      showRematch();
    },
    onOther(f) {
      window.gnSeat.frames += 1;
      if (f.type === "rematch") { config.rematch = f.game; showRematch(); }
      else if (f.type === "seat_released") {
        released = true;
        localStorage.removeItem(KEY(game.id));
        sock.stop("This seat was handed over by the organiser.");
        $("turn").textContent = "This seat was handed over by the organiser.";
        if (ctrl) ctrl.destroy();
        ctrl = null;
        $("commands").replaceChildren();
      }
    },
    onError(f) {
      window.gnSeat.frames += 1;
      if (f.code === "forbidden") {  // (the credential holds the seat no more)
        released = true;
        localStorage.removeItem(KEY(game.id));
        sock.stop("This seat is not yours any more.");
        showJoin();
        return;
      }
      $("error").textContent = f.reason || f.code;
    },
    onQueue() {
      window.gnSeat.pending = sock ? sock.queue.length : 0;
      draw();
    },
  }, { hello: { seat: cred.seat, secret: cred.secret }, keepAfterEnd: true });
  sock.start();
}

function draw() {
  if (!last || !ctrl || !sock) return;
  const f = last;
  update($("board"), game.kind, f.view, playerNames(game), { seat: cred.seat });
  const legal = f.legal || [];
  const pending = sock.queue.length > 0;
  const online = sock.live;
  const mine = (f.to_act || []).includes(cred.seat) && legal.length > 0 && !f.outcome;
  // (never "Your turn" while a move waits for the network: it is not sent yet)
  $("turn").textContent = f.outcome ? "Game over"
    : pending && !online ? "Waiting for the network to send your move…"
      : pending ? "Sending…"
        : mine && !online ? "Your turn · offline"
          : mine ? "Your turn" : "Waiting for the others";
  ctrl.draw({ view: f.view, legal, mine: mine && !pending, toAct: f.to_act || [], outcome: f.outcome || null, seq: sock.seq, pending });
}

/** Send a command; the promise is the server's answer (ok or an error frame). A command
 * made offline is kept and sent on reconnect while still legal; a refusal is shown. */
function send(c) {
  window.gnSeat.commands += 1;
  if (!sock) return Promise.resolve({ type: "error", code: "closed", reason: "Not connected." });
  $("error").textContent = "";
  return sock.send(c).then((f) => {
    if (f.type === "error") $("error").textContent = f.reason || f.code;
    window.gnSeat.pending = sock.queue.length;
    draw();
    return f;
  });
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
