// The table page (/games/<id>/table/): the shared screen of a table (a TV, a tablet, a
// laptop): the live view a spectator gets, large, and for each open seat its QR code and
// short code (docs/web.md). The organiser (a logged-in creator or staff user) may hand a
// seat to another phone or to a bot.
import { update } from "./boards.js";
import { learnKinds, playerNames, seatLabel, resultLine, reportError } from "./common.js";

const config = JSON.parse(document.getElementById("gn-config").textContent);
let game = config.game;
learnKinds({ [game.kind]: config.info });
const $ = (id) => document.getElementById(id);
let token = localStorage.getItem("gamenight-token");
let ws = null;

function seatsList(seats) {
  // Names come from players: written as text (textContent), never as markup.
  const names = playerNames(game);
  const ul = $("seats");
  ul.replaceChildren();
  for (const s of seats) {
    const li = document.createElement("li");
    li.dataset.seat = s.seat;
    const code = `${game.code}${s.seat + 1}`;
    li.appendChild(textDiv("name", `${seatLabel(game.kind, s.seat)}: ${names[s.seat] || ""}`));
    if (!s.taken && game.status !== "finished") {
      const img = document.createElement("img");
      img.className = "qr";
      img.alt = `QR code of ${config.join}${code}/`;
      img.src = `/api/games/${game.id}/seats/${s.seat}/qr.svg`;
      li.append(img, textDiv("code", code), textDiv("", `${config.join}${code}/`));
    } else if (s.kind !== "bot") li.appendChild(textDiv("", s.connected === false ? "phone away" : "playing"));
    if (token && game.status !== "finished") {
      if (s.taken && s.kind !== "bot") li.appendChild(button("To another phone", () => act(s.seat, "release")));
      if (s.kind !== "bot") li.appendChild(button("To a bot", () => act(s.seat, "bot")));
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

async function act(seat, what) {
  const r = await fetch(`/api/games/${game.id}/seats/${seat}/${what}/`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Token ${token}` }, body: "{}" });
  const out = await r.json();
  $("org-error").textContent = r.ok ? "" : (out.error ? out.error.reason : "refused");
}

$("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const r = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ username: $("user").value, password: $("password").value }) });
  const out = await r.json();
  if (!r.ok) { $("org-error").textContent = out.error ? out.error.reason : "refused"; return; }
  token = out.token;
  localStorage.setItem("gamenight-token", token);
  seatsList(game.seats);
});

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/games/${game.id}/`);
  $("conn").textContent = "connecting…";
  ws.onopen = () => ws.send(JSON.stringify({ type: "hello", last_seq: 0 }));
  ws.onmessage = (m) => { try { frame(JSON.parse(m.data)); } catch (e) { reportError(e); } };
  ws.onclose = () => { $("conn").textContent = "offline"; setTimeout(connect, 1000); };
}

function frame(f) {
  if (f.type === "welcome") { $("conn").textContent = "live"; game.status = f.status; game.seats = f.seats; seatsList(f.seats); }
  else if (f.type === "presence") { game.seats = f.seats; seatsList(f.seats); }
  else if (f.type === "events" && "view" in f) {
    update($("board"), game.kind, f.view, playerNames(game), {});
    const names = playerNames(game);
    $("status").textContent = f.outcome ? "" : (f.to_act || []).length ? `To play: ${(f.to_act || []).map((s) => names[s]).join(", ")}` : "";
  } else if (f.type === "finished") { game.status = "finished"; resultLine(game.id).then((t) => { $("outcome").textContent = t; }).catch(reportError); }
  else if (f.type === "rematch") { ws.onclose = null; ws.close(); location.href = `/games/${f.game}/table/`; }
}

seatsList(game.seats);
connect();
