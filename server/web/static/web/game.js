// The game page (/games/<id>/): a live game as a spectator sees it, and the replay of any
// position (slider, steps, autoplay, keyboard, move list, ?seq=N links). docs/web.md.

import {
  esc, fetchWords, infoOf, kindTitle, learnKinds, marks, markName, namesOf, playerNames, reportError,
  seatLabel,
} from "./common.js";
import { drawn, drawsBot, patch, sheetOf, statusOf } from "./boards.js";
import { fetchTekaAnalysis, TekaMarks } from "./teka_analysis.js";
import { GameSocket } from "./watch.js";

window.addEventListener("error", (e) => reportError(e.error || e.message));
window.addEventListener("unhandledrejection", (e) => reportError(e.reason));

const config = JSON.parse(document.getElementById("gn-config").textContent);
const game = config.game;
const kind = game.kind;
learnKinds({ [kind]: config.info });
const $ = (id) => document.getElementById(id);
const stats = (window.gnStats ||= {});
Object.assign(stats, { errors: stats.errors || [], frames: 0, gaps: 0, reconnects: 0, steps: 0 });

const BATCH = 1000;      // views a /views/ request asks for (the server's most)
const FIRST = 120;       // ...and the first one, around the position opened

const st = {
  head: game.seq,
  events: [],            // events[seq] = {seq, seat, event}
  texts: [],             // texts[seq] = the event's sentence, as the server words it
  result: config.result || "",  // the result line, as the server words it
  over: game.status === "finished",
  views: [],             // views[seq] = the view after event seq
  index: null,
  following: game.status !== "finished",
  live: game.status !== "finished",
  names: playerNames(game),
  pending: new Map(),    // "from-to" -> promise
  playing: null,
  bot: null,
  presence: null,
  listed: 0,             // events rendered in the move list
  sheetKey: "",
  wanted: null,          // an index waiting for its view
};
stats.head = st.head;    // (from the start: the socket may say "live" before the first frame)

// ----------------------------------------------------------------------------- loading

async function fetchViews(from, to) {
  const key = `${from}-${to}`;
  if (st.pending.has(key)) return st.pending.get(key);
  const p = (async () => {
    const r = await fetch(`${config.views}?from=${from}&to=${to}&delta=1`);  // (as preloaded: same URL, same mode)
    const body = await r.json();
    if (!r.ok) throw new Error(`views ${from}-${to}: ${body.error ? body.error.reason : r.status}`);
    if (body.viewer === -2 && st.live) return body;  // (finished meanwhile: the socket says so)
    if (body.viewer !== -2 && !st.live) return body;  // (a spectator's, asked before the end)
    let prev = null;
    body.views.forEach((v, i) => {
      const view = prev === null || !body.delta ? v : undelta(prev, v);
      st.views[body.from + i] = view;
      prev = view;
    });
    body.events.forEach((rec, k) => {
      if (!st.events[rec.seq]) st.events[rec.seq] = rec;
      if (body.texts) st.texts[rec.seq] = body.texts[k];
    });
    if (body.result) st.result = body.result;
    if (body.head > st.head && !st.live) st.head = body.head;
    renderMoves();
    if (st.wanted !== null && st.views[st.wanted]) { const w = st.wanted; st.wanted = null; show(w); }
    else if (st.index !== null && st.views[st.index] && st.captioned !== captionOf(st.index)) show(st.index);
    return body;
  })();
  st.pending.set(key, p);
  try {
    return await p;
  } finally {
    st.pending.delete(key);
  }
}

/** A view from the one before and its delta (server/web/views.py view_delta). */
function undelta(prev, d) {
  const v = { ...prev };
  if (d.set) Object.assign(v, d.set);
  if (d.add) for (const [k, items] of Object.entries(d.add)) v[k] = prev[k].concat(items);
  if (d.del) for (const k of d.del) delete v[k];
  return v;
}

// The live game's sentences: the socket brings the events, the server words them
// (/words/); one request at a time, for every event not yet worded.
let wording = null;
function wordLive() {
  if (wording || !st.live) return;
  let from = 1;
  while (st.texts[from] !== undefined) from += 1;
  const to = st.head;
  if (from > to) return;
  wording = fetchWords(config.words, from, to).then((body) => {
    if (!st.live) return;  // (finished meanwhile: the whole game's words come with its views)
    body.texts.forEach((t, k) => { st.texts[body.from + k] = t; });
    renderMoves();
    if (st.index !== null && st.views[st.index]) show(st.index);
  }).catch((err) => {
    // (the server away: the socket reconnects, and the words are asked for again)
    if (!(err instanceof TypeError)) reportError(err);
  }).finally(() => {
    wording = null;
    if (st.live && st.texts[st.head] === undefined) setTimeout(wordLive, 500);
  });
}

function ensure(i) {
  if (st.views[i]) return;
  st.wanted = i;
  const from = Math.max(0, i - 40);
  const to = Math.min(st.head, from + FIRST - 1);
  fetchViews(from, to).catch(reportError);
}

async function loadAll() {
  // the rest of the views and the whole move list, in the background
  for (let from = 0; from <= st.head; from += BATCH) {
    const to = Math.min(st.head, from + BATCH - 1);
    let missing = false;
    for (let i = from; i <= to; i++) if (!st.views[i] || (i > 0 && !st.events[i])) { missing = true; break; }
    if (missing) await fetchViews(from, to);
  }
}

// ----------------------------------------------------------------------------- analysis (Teeko)

// A finished Teeko game under perfect play (/api/games/<id>/analysis/, docs/protocol.md):
// each ply's value after it beside the move, a mark where value was lost, accuracy per player.
const LOST = {
  win_to_draw: ["?", "let a win go: now a draw"],
  draw_to_loss: ["?", "let a draw go: now a loss"],
  win_to_loss: ["??", "turned a win into a loss"],
};
const an = { data: null, ply: 0, seq: 0, bySeq: [], teka: null };

/** "W+13" (a win in 13 plies), "=" (a draw), "L-8" (a loss in 8). */
function valueShort(v) {
  if (v.result === "draw") return "=";
  const n = v.plies ?? "";
  return v.result === "win" ? `W+${n}` : `L-${n}`;
}

async function loadAnalysis() {
  const a = config.analysis;
  if (!a) return;
  const note = $("analysis");
  if (a.background) { await loadTekaAnalysis(a, note); return; }  // (a match, hand by hand)
  try {
    if (!a.ready) throw new Error("no table");
    const r = await fetch(a.url);
    const body = r.ok ? await r.json() : null;
    if (!body || !Array.isArray(body.plies) || !Array.isArray(body.summary)) throw new Error(`analysis: ${r.status}`);
    an.data = body;
  } catch {
    // (409 no_table, or any other failure: a note, nothing else)
    note.textContent = "Analysis not available on this server.";
    note.hidden = false;
    stats.analysis = "unavailable";
    return;
  }
  const names = st.names;
  note.innerHTML = "Perfect play: " + an.data.summary.map((s) => {
    const lost = Object.values(s.lost || {}).reduce((x, y) => x + y, 0);
    const pct = s.accuracy === null ? "–" : `${Math.round(s.accuracy * 100)}%`;
    return `${esc(names[s.seat])} <b>${pct}</b> accuracy${lost ? ` (${lost} lost)` : ""}`;
  }).join(" · ");
  note.title = an.data.note || "";
  note.hidden = false;
  annotate();
  stats.analysis = "shown";
}

async function loadTekaAnalysis(a, note) {
  // (Teka: computed in the background; the page polls, saying how far it is)
  const say = (text) => { note.textContent = text; note.hidden = false; };
  const data = await fetchTekaAnalysis(a.url, say, stats);
  if (!data) return;
  an.teka = new TekaMarks(data);
  note.innerHTML = an.teka.summary(st.names);
  note.title = data.note || "";
  annotate();
  st.sheetKey = "";
  if (st.index !== null) show(st.index);
  stats.analysis = "shown";
}

function annotate() {
  if (an.teka) {
    if (an.teka.annotate(st.events, items) && st.index !== null && st.index <= an.teka.seq) show(st.index);
    return;
  }
  // the value after each ply beside its move (placed/moved events are the plies, in order)
  if (!an.data) return;
  const from = an.seq;
  while (st.events[an.seq + 1] && items[an.seq + 1]) {
    const rec = st.events[++an.seq];
    if (rec.event.type !== "placed" && rec.event.type !== "moved") continue;
    const p = an.data.plies[an.ply++];
    if (!p) continue;
    an.bySeq[rec.seq] = p;
    const [mark, why] = LOST[p.lost] || ["", ""];
    const title = `${p.before.text} before, ${p.after.text} after${why ? `: ${why}` : ""}${p.best ? `; best ${p.best.join(", ")}` : ""}`;
    items[rec.seq].firstChild.insertAdjacentHTML("afterbegin",
      `<span class="av${p.lost ? ` lost ${p.lost}` : ""}" title="${esc(title)}">${mark ? `${mark} ` : ""}${valueShort(p.after)}</span>`);
  }
  if (st.index !== null && st.index > from && st.index <= an.seq) show(st.index);  // (its caption)
}

function plyNote(p) {
  if (!p) return "";
  const [mark, why] = LOST[p.lost] || ["", ""];
  if (!mark) return ` \u2014 ${p.after.text}`;
  return ` \u2014 ${mark} ${why} (${p.after.text}${p.best ? `; best ${p.best.join(", ")}` : ""})`;
}

// ----------------------------------------------------------------------------- drawing

function currentNames() {
  if (st.presence) {
    return namesOf(game.kind, st.presence.seats.map((s, i) => ({ ...s, seat: i })));
  }
  return st.names;
}

function show(i) {
  const t0 = performance.now();
  i = Math.max(0, Math.min(st.head, i));
  const view = st.views[i];
  st.index = i;
  if (!view) { ensure(i); setControls(); return; }
  const names = currentNames();
  const bot = st.bot && st.bot.seq === i ? st.bot : null;
  patch($("board"), drawn(kind, view, names, { bot, box: boardBox(), minPx: MIN_TEXT_PX }));
  $("status").textContent = statusOf(kind, view, names);
  const out = view.outcome || (i === st.head && !st.live ? game.outcome : null);
  $("outcome").textContent = out ? st.result : "";
  const caption = captionOf(i);
  $("caption").textContent = caption;
  st.captioned = caption;
  if (infoOf(kind).board.sheet) {
    const key = `${(view.sheet || []).length}:${i === st.head}`;
    if (key !== st.sheetKey) { $("sheet").innerHTML = sheetOf(kind, view); st.sheetKey = key; }
    if (an.teka) {
      an.teka.decorateSheet($("sheet"));
      const deal = an.teka.dealPanel(i, names);
      $("deal").innerHTML = deal;
      $("deal").hidden = !deal;
    }
  }
  markMove(i);
  setControls();
  if (stats.firstDraw === undefined) stats.firstDraw = performance.now();
  stats.index = i;
  stats.steps += 1;
  stats.lastStepMs = performance.now() - t0;
}

/** "12. Ann placed c3" (the server's sentence), with the analysis of the ply if any. */
function captionOf(i) {
  if (i === 0) return "Before the start";
  const text = st.texts[i];
  const note = an.teka ? an.teka.note(i) : plyNote(an.bySeq[i]);
  return text === undefined ? `${i}.` : `${i}. ${text}${note}`;
}

// The room the board has (read once, and again after a resize), so that the board draws
// no text smaller than MIN_TEXT_PX on screen (boards.js minUnits).
const MIN_TEXT_PX = 12;
let box = null;
function boardBox() {
  if (!box) {
    const narrow = window.innerWidth <= 900;  // (web.css: the board's max-height)
    box = { w: $("board").clientWidth, h: narrow ? 0.7 * window.innerHeight : window.innerHeight - 15 * 16 };
  }
  return box;
}
window.addEventListener("resize", () => { box = null; if (st.index !== null) show(st.index); });

let marked = null;
const items = [];        // items[seq]: the move list's <li> of event seq
let rowHeight = 0;
let listHeight = 0;      // (read once, and again after a resize: reading it forces a layout)
let listScroll = 0;      // the list's scrollTop, as its scroll events say (not read per step)
window.addEventListener("resize", () => { rowHeight = 0; listHeight = 0; });
function markMove(i) {
  const li = items[i] || null;
  if (marked && marked !== li) marked.classList.remove("current");
  if (li) {
    li.classList.add("current");
    // rows are all one height: no layout is read to scroll (a 2,000-move list stays fast)
    const box = $("moves");
    rowHeight ||= li.offsetHeight || 24;
    const top = (i - 1) * rowHeight;
    listHeight ||= box.clientHeight;
    const height = listHeight;
    if (top < listScroll || top > listScroll + height - rowHeight) {
      listScroll = Math.max(0, top - height / 2);
      box.scrollTop = listScroll;
    }
  }
  marked = li;
}

function renderMoves() {
  // append the events that came in order since the last call (and have their words)
  let html = "";
  let n = st.listed;
  while (st.events[n + 1] && st.texts[n + 1] !== undefined) {
    const rec = st.events[n + 1];
    const minor = ["start", "shuffle", "table", "cut", "first_player"].includes(rec.event.type);
    html += `<li data-seq="${rec.seq}"${minor ? ' class="minor"' : ""}><button type="button" data-seq="${rec.seq}">`
      + `<span class="n">${rec.seq}</span> ${esc(st.texts[rec.seq])}</button></li>`;
    n += 1;
  }
  if (html) {
    const box = $("moves");
    const had = box.children.length;
    box.insertAdjacentHTML("beforeend", html);
    for (let k = had; k < box.children.length; k++) {
      const li = box.children[k];
      items[parseInt(li.dataset.seq, 10)] = li;
    }
    st.listed = n;
    annotate();
    if (st.index !== null) markMove(st.index);
  }
}

function setControls() {
  const slider = $("slider");
  slider.max = String(st.head);
  slider.value = String(st.index ?? 0);
  $("position").textContent = `${st.index ?? 0} / ${st.head}`;
  $("live-btn").hidden = !st.live || st.following;
  $("play").textContent = st.playing ? "Pause" : "Play";
  stats.head = st.head;
  stats.following = st.following;
}

// ----------------------------------------------------------------------------- replay controls

function go(i, { user = true } = {}) {
  if (user) {
    st.following = st.live && i >= st.head;
    if (!st.live || !st.following) shareLater(Math.max(0, Math.min(st.head, i)));
  }
  show(i);
}

let shareTimer = null;
function shareLater(i) {
  // the address bar says ?seq=N (to share the position), set once stepping pauses: browsers
  // throttle history.replaceState called on every step of a fast replay
  clearTimeout(shareTimer);
  shareTimer = setTimeout(() => {
    const url = new URL(location.href);
    url.searchParams.set("seq", String(i));
    history.replaceState(null, "", url);
  }, 250);
}

function step(d) { go((st.index ?? 0) + d); }

function jumpMark(d) {
  const ms = marks(st.events.filter(Boolean));
  const i = st.index ?? 0;
  if (d > 0) { const later = ms.filter((m) => m > i); go(later.length ? later[0] : st.head); }
  else { const earlier = ms.filter((m) => m < i); go(earlier.length ? earlier[earlier.length - 1] : 0); }
}

function play() {
  if (st.playing) { clearInterval(st.playing); st.playing = null; setControls(); return; }
  if ((st.index ?? 0) >= st.head) go(0);
  const speed = parseFloat($("speed").value) || 1;
  st.playing = setInterval(() => {
    if ((st.index ?? 0) >= st.head) { clearInterval(st.playing); st.playing = null; setControls(); return; }
    step(1);
  }, 700 / speed);
  setControls();
}

function bind() {
  $("first").onclick = () => go(0);
  $("prev").onclick = () => step(-1);
  $("next").onclick = () => step(1);
  $("last").onclick = () => go(st.head);
  $("prev-mark").onclick = () => jumpMark(-1);
  $("next-mark").onclick = () => jumpMark(1);
  $("prev-mark").hidden = $("next-mark").hidden = !markName(kind);
  $("prev-mark").textContent = `\u2190 ${markName(kind)}`;
  $("next-mark").textContent = `${markName(kind)} \u2192`;
  $("play").onclick = play;
  $("speed").onchange = () => { if (st.playing) { play(); play(); } };
  $("live-btn").onclick = () => { st.following = true; history.replaceState(null, "", location.pathname); show(st.head); };
  $("slider").oninput = (e) => go(parseInt(e.target.value, 10));
  $("moves").addEventListener("scroll", (e) => { listScroll = e.target.scrollTop; }, { passive: true });
  $("moves").onclick = (e) => {
    const b = e.target.closest("button[data-seq]");
    if (b) go(parseInt(b.dataset.seq, 10));
  };
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.id === "slider" || e.target.tagName === "SELECT" || e.altKey || e.ctrlKey || e.metaKey)) return;
    const keys = {
      ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => go(0), End: () => go(st.head),
      PageUp: () => jumpMark(-1), PageDown: () => jumpMark(1),
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    else if (e.key === " " && e.target === document.body) { e.preventDefault(); play(); }
  });
}

// ----------------------------------------------------------------------------- live

function setConn(text) {
  const labels = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…", finished: "finished" };
  $("conn").textContent = labels[text] || text;
  $("conn").className = `conn ${text}`;
  stats.conn = text;
}

function renderPlayers() {
  const p = st.presence;
  const names = currentNames();
  let html = "";
  (p ? p.seats : game.seats).forEach((s, i) => {
    // (a finished game has nobody at the table: no dot is lit)
    const on = p && !st.over ? (s.kind === "bot" || s.connected) : false;
    const thinking = st.bot && st.bot.seat === i ? ` <span class="thinking">thinking ${Math.round(st.bot.progress * 100)}%</span>` : "";
    const away = p && s.away && !st.over ? ` <span class="away">away ${s.away} s</span>` : "";
    html += `<li><span class="dot${on ? " on" : ""}"></span>${esc(names[i])} <span class="seat">${esc(seatLabel(kind, i))}</span>${thinking}${away}</li>`;
  });
  $("players").innerHTML = html;
  $("spectators").textContent = p && !st.over ? `${p.spectators} watching` : "";
}

function startLive() {
  setConn("connecting");
  const w = new GameSocket(config.ws, 0, {
    onState: setConn,
    onEvents(records, f) {
      for (const r of records) st.events[r.seq] = r;
      if (records.length || f.to) {
        const to = records.length ? records[records.length - 1].seq : (f.to ?? st.head);
        if (to > st.head) st.head = to;
      }
      if (f.view) {
        st.head = Math.max(st.head, f.to ?? st.head);
        st.views[st.head] = f.view;
        st.bot = null;
      }
      stats.frames = w.frames; stats.gaps = w.gaps; stats.reconnects = w.reconnects; stats.seq = w.seq;
      renderMoves();
      wordLive();
      if (st.following && st.views[st.head]) show(st.head);
      else setControls();
      renderPlayers();
    },
    onPresence(f) { st.presence = f; renderPlayers(); },
    onBot(f) {
      st.bot = f;
      renderPlayers();
      if (drawsBot(kind) && st.following && st.index === f.seq) show(f.seq);
    },
    onFinished(f) {
      // the match is over: from now on it is shown whole, like any finished game
      st.live = false;
      st.over = true;
      st.following = false;
      st.bot = null;
      st.views = [];
      st.texts = [];
      // the records come again whole (a Tedoku drawing, a Teka keep: now public)
      st.events = [];
      st.listed = 0;
      items.length = 0;
      marked = null;
      $("moves").innerHTML = "";
      st.views[f.seq] = f.view;
      st.head = f.seq;
      game.outcome = f.outcome;
      game.status = "finished";
      stats.frames = w.frames;
      $("mode").textContent = "Replay";
      renderPlayers();
      show(f.seq);
      // (the views' answers bring the whole game's words and the result line: the caption
      // and the outcome are shown again as they come)
      loadAll().then(() => show(st.index ?? st.head)).catch(reportError);
    },
  });
  stats.watcher = w;
  window.gnWatcher = w;
  w.start();
}

// ----------------------------------------------------------------------------- start

function main() {
  document.title = `${kindTitle(kind)} #${game.id} · gamenight`;
  bind();
  renderPlayers();
  if (st.live) {
    $("mode").textContent = "Live";
    startLive();
    if (config.seq !== null && config.seq !== undefined) {
      st.following = false;
      go(Math.min(config.seq, st.head), { user: false });
    }
    return;
  }
  $("mode").textContent = "Replay";
  setConn("finished");
  const start = config.seq === null || config.seq === undefined ? st.head : Math.min(config.seq, st.head);
  st.index = start;
  // the first views, as the server named them (the browser is already fetching them)
  const first = config.first || { from: Math.max(0, start - 40), to: Math.min(st.head, Math.max(0, start - 40) + FIRST - 1) };
  fetchViews(first.from, first.to)
    .then(() => { show(start); return loadAll(); })
    .catch(reportError);
  loadAnalysis().catch(reportError);
}

main();
