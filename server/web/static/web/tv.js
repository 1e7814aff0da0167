// TV mode (/tv/): every live table in a grid, each over its own spectator socket; pages of
// tables rotate when there are more than fit. The server lists the tables with an event in
// the last GAMENIGHT_TV_IDLE seconds (an abandoned table leaves); a finished one stays with
// its result for GAMENIGHT_TV_LINGER seconds. docs/web.md.

import { esc, fetchWords, kindTitle, learnKinds, playerNames, reportError } from "./common.js";
import { drawsBot, statusOf, update } from "./boards.js";
import { Watcher } from "./watch.js";

window.addEventListener("error", (e) => reportError(e.error || e.message));
window.addEventListener("unhandledrejection", (e) => reportError(e.reason));

const config = JSON.parse(document.getElementById("gn-config").textContent);
learnKinds(config.kinds);
const params = new URLSearchParams(location.search);
const ROTATE_MS = 1000 * (parseFloat(params.get("rotate")) || 15);
const POLL_MS = 1000 * (parseFloat(params.get("poll")) || 10);
const LINGER_MS = 1000 * (parseFloat(params.get("linger")) || config.linger || 30);
const grid = document.getElementById("tv-grid");
const tiles = new Map();   // game id -> tile
const stats = (window.gnTV = { seqs: {}, page: 0, pages: 1, perPage: 0, errors: [], renders: 0,
  dropped: [], arrivals: {}, ended: {} });
window.gnStats ||= { errors: stats.errors };
let page = 0;

// Tables a page: two side by side on a landscape screen (boards large enough for their text
// to be read across a room: MIN_TEXT_PX), one above the other on a screen held upright.
function perPage() {
  const w = window.innerWidth, h = window.innerHeight;
  const cols = w >= 900 && w >= h ? 2 : 1;
  const rows = cols === 1 && h >= 800 ? 2 : 1;
  return { cols, rows, n: cols * rows };
}

/** Smallest text on a board, in pixels: across a room on a big screen, else as on a page. */
function minTextPx() {
  return window.innerWidth >= 1500 ? 24 : 12;
}

function addTile(g) {
  const el = document.createElement("article");
  el.className = `tile kind-${g.kind}`;
  el.dataset.game = String(g.id);
  el.innerHTML = `<header><a href="/games/${g.id}/">${esc(kindTitle(g.kind))} #${g.id}</a>`
    + `<span class="tile-players">${esc(playerNames(g).join(" · "))}</span></header>`
    + `<div class="tile-board"></div><p class="tile-caption"></p><p class="tile-status"></p>`;
  const t = { game: g, el, view: null, last: null, seq: g.seq, dirty: true, outcome: null, bot: null,
    texts: new Map(), result: "", wording: false };
  // (from the event before the latest: the tile shows what the last move was)
  t.watcher = new Watcher(`/ws/games/${g.id}/`, Math.max(0, g.seq - 1), {
    onEvents(records, f) {
      if (records.length) t.last = records[records.length - 1];
      (stats.arrivals[g.id] ||= []).push([t.watcher.seq, Date.now()]);
      if (f.view) { t.view = f.view; t.bot = null; }
      t.seq = t.watcher.seq;
      stats.seqs[g.id] = t.seq;
      t.dirty = true;
      if (t.visible) draw(t);
    },
    onBot(f) { t.bot = f; if (t.visible && drawsBot(g.kind)) { t.dirty = true; draw(t); } },
    onFinished(f) {
      t.view = f.view; t.outcome = f.outcome; t.seq = f.seq; stats.seqs[g.id] = f.seq;
      t.finishedAt ||= Date.now();
      t.texts.clear();  // (now worded whole, as a finished game is public)
      t.dirty = true;
      if (t.visible) draw(t);
    },
    onState(s) { el.dataset.conn = s; },
  });
  tiles.set(g.id, t);
  stats.seqs[g.id] = g.seq;
  t.watcher.start();
}

function dropTile(id) {
  const t = tiles.get(id);
  if (!t) return;
  t.watcher.stop();
  t.el.remove();
  tiles.delete(id);
  delete stats.seqs[id];
  stats.dropped.push(id);
}

// The last move's sentence and the result line, as the server words them (/words/): asked
// for a visible table when its last move has none yet, one request a table at a time.
function word(t) {
  const seq = t.last ? t.last.seq : 0;
  const want = (seq && !t.texts.has(seq)) || (t.outcome && !t.result);
  if (!want || t.wording) return;
  const at = seq || t.seq;
  if (!at) return;
  t.wording = true;
  fetchWords(`/api/games/${t.game.id}/words/`, at, at).then((body) => {
    t.texts.set(at, body.texts[0]);
    if (body.result) t.result = body.result;
    t.dirty = true;
    if (t.visible) draw(t);
  }).catch(() => {}).finally(() => {  // (the server away: the next move asks again)
    t.wording = false;
    const now = t.last ? t.last.seq : 0;
    if (t.visible && ((now && !t.texts.has(now)) || (t.outcome && !t.result))) setTimeout(() => word(t), 100);
  });
}

function draw(t) {
  if (!t.dirty) return;
  t.dirty = false;
  const names = playerNames(t.game);
  const box = t.el.querySelector(".tile-board");
  const opts = { bot: t.bot && t.bot.seq === t.seq ? t.bot : null,
    box: { w: box.clientWidth, h: box.clientHeight }, minPx: minTextPx() };
  if (t.view) update(box, t.game.kind, t.view, names, opts);
  const text = t.last ? t.texts.get(t.last.seq) : undefined;
  t.el.querySelector(".tile-caption").textContent = t.last ? `${t.last.seq}. ${text ?? ""}` : "";
  word(t);
  const status = t.outcome ? t.result
    : (t.view ? statusOf(t.game.kind, t.view, names) : "");
  t.el.querySelector(".tile-status").textContent = status;
  t.el.classList.toggle("over", Boolean(t.outcome));
  if (t.outcome && t.result && !t.shownAt) {  // (the result on screen: it stays LINGER_MS)
    t.shownAt = Date.now();
    stats.ended[t.game.id] = t.result;
  }
  stats.renders += 1;
}

function layout() {
  const { cols, rows, n } = perPage();
  const all = [...tiles.values()];
  const pages = Math.max(1, Math.ceil(all.length / n));
  if (page >= pages) page = 0;
  grid.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
  grid.style.gridTemplateRows = `repeat(${Math.min(rows, Math.max(1, Math.ceil(Math.min(all.length, n) / cols)))}, minmax(0, 1fr))`;
  const shown = new Set(all.slice(page * n, page * n + n));
  const empty = grid.querySelector(".empty");
  if (all.length && empty) empty.remove();
  if (!all.length && !empty) grid.innerHTML = '<p class="empty">No game in progress.</p>';
  for (const t of all) {
    t.visible = shown.has(t);
    t.el.hidden = !t.visible;
    if (t.visible) {
      if (!t.el.parentNode) grid.appendChild(t.el);
      draw(t);
    }
  }
  // keep the visible ones in order
  for (const t of shown) grid.appendChild(t.el);
  Object.assign(stats, { page, pages, perPage: n, tables: all.length });
  document.getElementById("tv-page").textContent = pages > 1 ? `page ${page + 1} of ${pages} · ${all.length} tables` : `${all.length} table${all.length === 1 ? "" : "s"}`;
}

function sync(games) {
  const live = new Set(games.map((g) => g.id));
  for (const g of games) if (!tiles.has(g.id)) addTile(g);
  // (not listed any more: abandoned, or finished and shown with its result for a while)
  const now = Date.now();
  for (const [id, t] of tiles) {
    if (live.has(id)) continue;
    // (a finished table once its result has been on screen, or long after if never shown)
    const over = t.outcome && (t.shownAt ? now - t.shownAt >= LINGER_MS : now - t.finishedAt >= 10 * LINGER_MS);
    if (t.outcome ? over : t.game.status !== "open") dropTile(id);
  }
  layout();
}

async function poll() {
  try {
    const r = await fetch(config.poll || "/api/tv/");
    if (r.ok) sync((await r.json()).games.sort((a, b) => a.id - b.id));
  } catch (err) {
    // (the server is away: the sockets reconnect by themselves; try again at the next poll)
  }
}

function clock() {
  document.getElementById("tv-clock").textContent = new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

sync(config.games);
clock();
setInterval(clock, 10000);
setInterval(poll, POLL_MS);
setInterval(() => { page += 1; layout(); }, ROTATE_MS);
window.addEventListener("resize", () => { for (const t of tiles.values()) t.dirty = true; layout(); });
