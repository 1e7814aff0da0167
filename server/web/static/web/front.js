// The front page (/): a night starts here from any browser (docs/web.md, "Starting a night").
// * Start a table: the game (the server's list, /api/kinds/: nothing here knows a game by
//   name), its options (the game's option_fields), how many seats where the game allows
//   several numbers, and for each seat a phone or a bot (and its level). The table is created
//   with this browser's login, or with a throw-away organiser's (POST /api/guest/: a session
//   cookie, CSRF token on every POST), and its table page opens: the seat codes and QR codes.
// * Join a table: a seat's code goes to its seat page (/join/<code>/), or is refused with the
//   reason (no seat has that code, too many tries).
// Everything people typed or the server named is written as text (textContent), never markup.
const config = JSON.parse(document.getElementById("gn-config").textContent);
const $ = (id) => document.getElementById(id);
let csrf = document.querySelector("#start-form input[name=csrfmiddlewaretoken]").value;
let kinds = [];
let touched = false; // (the page reloads itself every 30 s while nobody fills in a form)

function option(value, text, selected) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  o.selected = !!selected;
  return o;
}

function labelled(text, control) {
  const label = document.createElement("label");
  label.className = "field";
  const span = document.createElement("span");
  span.textContent = text;
  label.append(span, control);
  return label;
}

function current() {
  return kinds[Number($("kind").value)] || kinds[0];
}

function seatCount(k) {
  const box = $("seat-count");
  if (k.min_seats === k.max_seats) return k.min_seats;
  const sel = box.querySelector("select");
  return sel ? Number(sel.value) : k.min_seats;
}

function seatWord(k, i) {
  const labels = k.seat_labels || [];
  return i < labels.length ? labels[i] : `Seat ${i + 1}`;
}

// The seats' rows: "phone" or a bot of a level; the choices made so far are kept.
function drawSeats() {
  const k = current();
  const n = seatCount(k);
  const rows = $("seat-rows");
  const before = [...rows.querySelectorAll("select")].map((s) => s.value);
  rows.replaceChildren();
  const levels = k.bot_levels || [];
  const fallback = levels.length > 1 ? 1 : 0; // (the server's default level)
  for (let i = 0; i < n; i += 1) {
    const sel = document.createElement("select");
    sel.dataset.seat = String(i);
    sel.appendChild(option("phone", "A phone", true));
    levels.forEach((lv, j) => sel.appendChild(option(`bot:${j}`, `A bot (${lv})`, false)));
    if (before[i] && [...sel.options].some((o) => o.value === before[i])) sel.value = before[i];
    sel.addEventListener("change", () => { touched = true; });
    rows.appendChild(labelled(seatWord(k, i), sel));
  }
  rows.dataset.fallback = String(fallback);
}

// The game's options (its option_fields) and, where it seats several numbers, how many.
function drawGame() {
  const k = current();
  $("blurb").textContent = k.blurb || "";
  const count = $("seat-count");
  count.replaceChildren();
  if (k.min_seats !== k.max_seats) {
    const sel = document.createElement("select");
    sel.id = "seats-n";
    const dflt = (k.default_options && k.default_options.seats) || k.min_seats;
    for (let n = k.min_seats; n <= k.max_seats; n += 1) sel.appendChild(option(String(n), String(n), n === dflt));
    sel.addEventListener("change", () => { touched = true; drawSeats(); });
    count.appendChild(labelled("Players", sel));
  }
  const box = $("options");
  box.replaceChildren();
  for (const [fi, field] of (k.option_fields || []).entries()) {
    const sel = document.createElement("select");
    sel.dataset.field = String(fi);
    (field.choices || []).forEach((c, ci) => sel.appendChild(option(String(ci), c.label, JSON.stringify(c.value) === JSON.stringify(field.default))));
    sel.addEventListener("change", () => { touched = true; });
    box.appendChild(labelled(field.label, sel));
  }
  $("seat-rows").replaceChildren();
  drawSeats();
}

function chosen() {
  const k = current();
  const options = {};
  for (const sel of $("options").querySelectorAll("select")) {
    const field = k.option_fields[Number(sel.dataset.field)];
    const c = field.choices[Number(sel.value)];
    if (c.options) Object.assign(options, c.options);
    else options[field.name] = c.value;
  }
  if (k.min_seats !== k.max_seats) options.seats = seatCount(k);
  const seats = [...$("seat-rows").querySelectorAll("select")].map((sel) => {
    if (sel.value === "phone") return { kind: "open" };
    return { kind: "bot", level: k.bot_levels[Number(sel.value.slice(4))] };
  });
  return { kind: k.kind, options, seats };
}

async function post(path, data) {
  const r = await fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
    body: JSON.stringify(data || {}),
  });
  let out = {};
  try { out = await r.json(); } catch (e) { out = {}; }
  return { r, out };
}

function reason(r, out, what) {
  return out && out.error && out.error.reason ? `${what}: ${out.error.reason}` : `${what} (the server answered ${r.status})`;
}

async function start(ev) {
  ev.preventDefault();
  const button = $("start");
  $("start-error").textContent = "";
  button.disabled = true;
  button.textContent = "Starting…";
  try {
    if (!config.user) { // a throw-away organiser, logged in on this browser
      const g = await post("/api/guest/");
      if (!g.r.ok) throw new Error(reason(g.r, g.out, "Could not start a table"));
      csrf = g.out.csrf; // (a login gives the page a new CSRF token)
      config.user = g.out.username;
    }
    const { r, out } = await post("/api/games/", chosen());
    if (!r.ok) throw new Error(reason(r, out, "The table was not made"));
    location.href = `/games/${out.id}/table/`;
  } catch (err) {
    $("start-error").textContent = err.message || String(err);
    button.disabled = false;
    button.textContent = "Start the table";
  }
}

// A code as people type it: any case, spaces or hyphens between its symbols.
function normal(code) {
  return code.replace(/[\s-]+/g, "").toUpperCase();
}

async function join(ev) {
  ev.preventDefault();
  const err = $("join-error");
  err.textContent = "";
  const code = normal($("join-code").value);
  if (!/^[A-Z0-9]{1,16}$/.test(code)) {
    err.textContent = "A seat's code is letters and digits, as the table's screen shows it.";
    return;
  }
  const r = await fetch(`/api/codes/${encodeURIComponent(code)}/`, { credentials: "same-origin" });
  if (r.ok) { location.href = `/join/${code}/`; return; }
  let out = {};
  try { out = await r.json(); } catch (e) { out = {}; }
  if (r.status === 404) {
    err.textContent = `No seat has the code ${code}. Check it on the table's screen: a seat handed to another phone has a new code.`;
  } else {
    err.textContent = reason(r, out, "Not joined");
  }
}

async function loadKinds() {
  const r = await fetch("/api/kinds/");
  if (!r.ok) throw new Error(`the games could not be read (${r.status})`);
  kinds = (await r.json()).kinds || [];
  const sel = $("kind");
  sel.replaceChildren();
  // (the first game the server lists is the one chosen at first)
  kinds.forEach((k, i) => sel.appendChild(option(String(i), k.title || k.kind, i === 0)));
  sel.disabled = !kinds.length;
  $("start").disabled = !kinds.length;
  sel.addEventListener("change", () => { touched = true; drawGame(); });
  if (kinds.length) drawGame();
}

$("start-form").addEventListener("submit", (ev) => { start(ev).catch((e) => { $("start-error").textContent = String(e); }); });
$("join-form").addEventListener("submit", (ev) => { join(ev).catch((e) => { $("join-error").textContent = `Not joined: ${e.message || e}`; }); });
for (const id of ["join-code", "start-form"]) {
  $(id).addEventListener("input", () => { touched = true; });
  $(id).addEventListener("focusin", () => { touched = true; });
}
window.gnFront = { ready: false };
loadKinds().then(() => { window.gnFront.ready = true; }).catch((e) => { $("start-error").textContent = String(e.message || e); });
setInterval(() => { if (!touched && document.visibilityState === "visible") location.reload(); }, 30000);
