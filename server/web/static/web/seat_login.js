// The seat page of a member's seat (a league fixture's, or any seat kept for a user): the
// member logs in here (the browser's session: an HttpOnly cookie, the page's CSRF token on
// every POST; docs/protocol.md, "Logging in") and takes the seat; the game socket then
// knows them by that session. A guest's seat (a name and this phone) is seat.js's alone.
import { seatLabel } from "./common.js";

const config = JSON.parse(document.getElementById("gn-config").textContent);
const $ = (id) => document.getElementById(id);
const game = config.game;
const seat = (game.seats || []).find((s) => s.seat === config.seat) || null;
let csrf = document.querySelector("#member-login input[name=csrfmiddlewaretoken]").value;

async function post(path, data) {
  const r = await fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    body: JSON.stringify(data),
  });
  let out = {};
  try { out = await r.json(); } catch (e) { out = {}; }
  return { r, out };
}

function refused(r, out) {
  $("member-error").textContent = out.error ? out.error.reason : `refused (${r.status})`;
}

// Take the seat as the logged-in user; the page then opens it (seat.js finds the seat kept
// for this game: a member's seat has no secret, the session is its credential).
async function take() {
  $("member-error").textContent = "";
  const { r, out } = await post("/api/join/", { code: config.code });
  if (!r.ok) { refused(r, out); return; }
  localStorage.setItem(`gamenight-seat-${game.id}`, JSON.stringify({ seat: out.seat, secret: out.secret || null }));
  location.reload();
}

function show() {
  const where = config.league ? `This is a game of the league ${config.league}: its seats are for its members.` : "This seat is kept for a player with an account.";
  const who = seat && seat.name ? ` The seat is ${seat.name}'s.` : "";
  $("join-title").textContent = seat && seat.name ? `${seatLabel(game.kind, seat.seat)}: ${seat.name}'s seat` : "Take the seat";
  $("member").hidden = false;
  $("name").closest("label").hidden = true; // (a member plays under their own name)
  $("open-seats").hidden = true;
  if (config.user) {
    $("member-note").textContent = `${where}${who} You are logged in as ${config.user}.`;
    $("member-login").hidden = true;
    $("member-take").hidden = false;
    $("member-take").textContent = `Take the seat as ${config.user}`;
  } else {
    $("member-note").textContent = `${where}${who} Log in to take it.`;
    if (seat && seat.name && !$("member-user").value) $("member-user").value = seat.name;
  }
}

if (config.seat !== null && seat && (config.league || seat.kind === "user") && game.status !== "finished") {
  show();
  $("member-take").addEventListener("click", () => { take().catch((e) => { $("member-error").textContent = String(e); }); });
  $("member-login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("member-error").textContent = "";
    try {
      const { r, out } = await post("/api/login", { username: $("member-user").value, password: $("member-password").value, session: true });
      if (!r.ok) { refused(r, out); return; }
      $("member-password").value = "";
      csrf = out.csrf; // (a login gives the page a new CSRF token)
      config.user = out.username;
      await take();
    } catch (e) {
      $("member-error").textContent = String(e);
    }
  });
}
