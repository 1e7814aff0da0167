// The table page (/games/<id>/table/): the shared screen of a table (a TV, a tablet, a
// laptop): the live view a spectator gets, large, and for each open seat its QR code and
// short code (docs/web.md). The organiser (a logged-in creator or staff user) may hand a
// seat to another phone or to a bot. The login is the browser's session: an HttpOnly cookie
// no script can read, and every call that changes something carries the page's CSRF token
// (docs/protocol.md, "Logging in"); nothing of it is kept in localStorage.
import { learnKinds, playerNames, seatLabel, reportError, confirmAction } from "./common.js";
import { tableStory } from "./table_story.js";
import { GameSocket } from "./watch.js";

const config = JSON.parse(document.getElementById("gn-config").textContent);
let game = config.game;
learnKinds({ [game.kind]: config.info });
const $ = (id) => document.getElementById(id);
let organiser = null; // the logged-in user's name (the cookie itself is out of reach)
let csrf = document.querySelector("#login input[name=csrfmiddlewaretoken]").value;
let sock = null;  // the game socket (watch.js): resumes from the last seq held, heartbeat
// Each seat's own code (random, new when the seat is released): the server gives them only to
// the table's organiser and its players (docs/protocol.md, "Private tables"), so a page opened
// by anyone else shows none until the organiser logs in here.
let codes = {};

function learnCodes(g) {
  codes = {};
  for (const s of g.seats || []) if (s.code) codes[s.seat] = s.code;
}
learnCodes(game);

async function loadCodes() {
  const r = await fetch(`/api/games/${game.id}/`, { credentials: "same-origin" });
  if (!r.ok) return;
  learnCodes(await r.json());
  seatsList(game.seats);
}

function seatsList(seats) {
  // Names come from players: written as text (textContent), never as markup.
  const names = playerNames(game);
  const ul = $("seats");
  ul.replaceChildren();
  for (const s of seats) {
    const li = document.createElement("li");
    li.dataset.seat = s.seat;
    const code = codes[s.seat];
    li.appendChild(textDiv("name", `${seatLabel(game.kind, s.seat)}: ${names[s.seat] || ""}`));
    if (!s.taken && game.status !== "finished" && !code) {
      li.appendChild(textDiv("", "open: its code shows here when the organiser logs in"));
    } else if (!s.taken && game.status !== "finished") {
      const img = document.createElement("img");
      img.className = "qr";
      img.alt = `QR code of ${config.join}${code}/`;
      img.src = `/api/games/${game.id}/seats/${s.seat}/qr.svg`;
      li.append(img, textDiv("code", code), textDiv("", `${config.join}${code}/`));
    } else if (s.kind !== "bot") li.appendChild(textDiv("", s.connected === false ? "phone away" : "playing"));
    if (organiser && game.status !== "finished") {
      // (a hand-over cannot be undone: asked first, Cancel changes nothing)
      const who = `${seatLabel(game.kind, s.seat)} (${names[s.seat] || "open"})`;
      if (s.taken && s.kind !== "bot") {
        li.appendChild(button("To another phone", () => handOver(s.seat, "release",
          `Hand ${who} to another phone? The phone there now loses the seat; a new code shows here.`,
          "Hand to another phone")));
      }
      if (s.kind !== "bot") {
        li.appendChild(button("To a bot", () => handOver(s.seat, "bot",
          `Hand ${who} to a bot? A bot plays the seat from now on.`, "Hand to a bot")));
      }
    }
    ul.appendChild(li);
  }
}

function textDiv(cls, text) {
  const d = document.createElement("div");
  if (cls) d.className = cls;
  d.textContent = text;
  return d;
}

function button(text, fn) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.addEventListener("click", fn);
  return b;
}

// A POST with the session cookie and the page's CSRF token: {r, out}, the reason said on a refusal.
async function post(path, data) {
  const r = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json", "X-CSRFToken": csrf }, body: JSON.stringify(data || {}) });
  let out = {};
  try { out = await r.json(); } catch (e) { out = {}; }
  $("org-error").textContent = r.ok ? "" : (out.error ? out.error.reason : `refused (${r.status})`);
  if (r.status === 401) loggedIn(null); // (the session was revoked or ran out)
  return { r, out };
}

async function handOver(seat, what, question, yes) {
  if (await confirmAction(question, yes)) await act(seat, what);
}

async function act(seat, what) {
  await post(`/api/games/${game.id}/seats/${seat}/${what}/`);
  if (organiser) loadCodes(); // (a released seat has a new code)
}

function loggedIn(name) {
  organiser = name;
  $("org-out").hidden = !!name;
  $("org-in").hidden = !name;
  $("org-user").textContent = name || "";
  $("login").hidden = !!name;  // (the form is gone once logged in)
  if (!name) $("sessions").replaceChildren();
  if (name) loadCodes().catch(reportError);
  else codes = {};
  seatsList(game.seats);
}

$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const { r, out } = await post("/api/login", { username: $("user").value, password: $("password").value, session: true });
  if (!r.ok) return;
  $("password").value = "";
  csrf = out.csrf; // (a login gives the page a new CSRF token)
  loggedIn(out.username);
});

$("logout").addEventListener("click", async () => {
  const { r } = await post("/api/logout/");
  if (r.ok) loggedIn(null);
});

// Where this user is logged in (the app, scripts, browsers): each can be logged out from here.
async function showSessions() {
  const r = await fetch("/api/sessions/", { credentials: "same-origin" });
  if (!r.ok) return;
  const ul = $("sessions");
  ul.replaceChildren();
  for (const s of (await r.json()).sessions) {
    const li = document.createElement("li");
    li.dataset.session = s.id;
    const used = s.last_used_at ? new Date(s.last_used_at).toLocaleString() : "never";
    const where = s.last_address && s.last_address !== s.address ? `${s.address}, last from ${s.last_address}` : s.address;
    li.appendChild(textDiv("", `${s.client} (${s.kind === "browser" ? "browser" : "app or script"}) from ${where || "?"}; since ${new Date(s.created_at).toLocaleString()}, last used ${used}, until ${new Date(s.expires_at).toLocaleString()}`));
    if (s.current) li.appendChild(textDiv("", "this browser"));
    else li.appendChild(button("Log out there", async () => { if ((await post(`/api/sessions/${s.id}/revoke/`)).r.ok) showSessions(); }));
    ul.appendChild(li);
  }
}

$("org-sessions").addEventListener("toggle", () => { if ($("org-sessions").open) showSessions(); });
$("revoke-others").addEventListener("click", async () => {
  if ((await post("/api/sessions/revoke_others/")).r.ok) showSessions();
});

// Who is logged in on this browser, as the server rendered the page (config.user).
function whoAmI() {
  if (config.user) loggedIn(config.user);
}

// A 30-day token an older version of this page kept in localStorage (readable by any script
// that got into the page): revoked at the server and forgotten.
function forgetOldToken() {
  const old = localStorage.getItem("gamenight-token");
  if (old === null) return;
  localStorage.removeItem("gamenight-token");
  fetch("/api/logout/", { method: "POST", headers: { Authorization: `Token ${old}` } }).catch(() => {});
}

const story = tableStory(game);
const CONN = { connecting: "connecting…", live: "live", finished: "game over",
  reconnecting: "offline · reconnecting…", closed: "offline" };

function connect() {
  sock = new GameSocket(`/ws/games/${game.id}/`, 0, {
    onState(s) { $("conn").textContent = story.over ? "game over" : CONN[s] || s; $("conn").dataset.state = s; },
    onWelcome(f) { game.status = f.status; game.seats = f.seats; seatsList(f.seats); },
    onPresence(f) {
      game.seats = f.seats;
      seatsList(f.seats);
      story.names();  // (the board and the words name who sits now)
      if (organiser) loadCodes().catch(reportError);
    },
    onEvents(records, f) { story.events(records, f); },
    onFinished() { game.status = "finished"; story.finished(); seatsList(game.seats); },
    onOther(f) {
      if (f.type === "rematch") { sock.stop(); location.href = `/games/${f.game}/table/`; }
    },
  }, { keepAfterEnd: true });  // (the rematch is told on the socket)
  window.gnTable = { get socket() { return sock; } };
  sock.start();
}

seatsList(game.seats);
forgetOldToken();
whoAmI();
connect();
