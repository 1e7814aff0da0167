// The boards drawn in SVG (the four games' own, a grid and a generic drawing for any other) from the view JSON the app draws from (the core's
// view(state, viewer); client_kivy/widgets/*). Each function returns an SVG string.

import {
  esc, infoOf, seatLabel, callText, nameAndSeat, SUIT_SYMBOL, SUIT_NAME, TEKA_SEATS,
} from "./common.js";

const FILES = "abcdef";

function sqXY(name, n, cell, pad) {
  const f = FILES.indexOf(name[0]);
  const r = parseInt(name.slice(1), 10);
  return [pad + f * cell + cell / 2, pad + (n - r) * cell + cell / 2];
}

/** The smallest font size, in the board's units, that shows as ``opts.minPx`` pixels on
 * screen once a W x H board is fitted into ``opts.box`` ({w, h} in pixels): the pages say
 * how much room the board has, so that no text of a board is drawn too small to read (12 px
 * on the game page, 24 px on the TV). 0: no minimum. */
export function minUnits(opts, W, H) {
  const box = opts && opts.box;
  if (!box || !box.w || !opts.minPx) return 0;
  const scale = Math.min(box.w / W, box.h ? box.h / H : Infinity);
  // (4 % to spare: the box is measured before the board is in it, and sizes are rounded)
  return scale > 0 ? 1.04 * opts.minPx / scale : 0;
}

/** A font size of at least ``min`` units, as an inline style (it wins over the class). */
function fs(base, min) {
  return min > base ? ` style="font-size:${Math.ceil(min)}px"` : "";
}

/** Squeeze a text of about ``chars`` characters of font size ``size`` into ``width``. */
function fitText(chars, size, width) {
  return chars * size * 0.58 > width ? ` textLength="${Math.floor(width)}" lengthAdjust="spacingAndGlyphs"` : "";
}

function labels(n, cell, pad, min = 0) {
  let s = "";
  const f = fs(22, min);
  for (let i = 0; i < n; i++) {
    s += `<text class="lbl"${f} x="${pad + i * cell + cell / 2}" y="${pad + n * cell + pad * 0.7}">${FILES[i]}</text>`;
    s += `<text class="lbl"${f} x="${pad * 0.45}" y="${pad + i * cell + cell / 2 + 6}">${n - i}</text>`;
  }
  return s;
}

/** A drawn board: its size, class and layers ([key, svg markup] in drawing order). The
 * game page updates only the layers whose markup changed (patch): a Teka step redraws one
 * hand and the trick, not 52 cards (text layout is most of the cost of a step). */
function board(w, h, cls, layers) {
  return { w, h, cls, layers };
}

function layerMarkup(key, html) {
  return `<g data-layer="${key}">${html}</g>`;
}

export function svgText(b) {
  return `<svg class="board ${b.cls}" viewBox="0 0 ${b.w} ${b.h}" xmlns="http://www.w3.org/2000/svg" role="img">`
    + b.layers.map(([k, h]) => layerMarkup(k, h)).join("") + "</svg>";
}

/** Draw board ``b`` in ``box``, changing only what changed since the last call. */
export function patch(box, b) {
  const shape = `${b.cls} ${b.w} ${b.h} ${b.layers.map(([k]) => k).join(",")}`;
  const el = box.firstElementChild;
  if (!el || el.gnShape !== shape) {
    box.innerHTML = svgText(b);
    const svgEl = box.firstElementChild;
    svgEl.gnShape = shape;
    svgEl.gnLayers = new Map(b.layers);
    svgEl.gnGroups = new Map([...svgEl.children].map((g) => [g.dataset.layer, g]));
    return;
  }
  for (const [k, h] of b.layers) {
    if (el.gnLayers.get(k) !== h) {
      el.gnGroups.get(k).innerHTML = h;
      el.gnLayers.set(k, h);
    }
  }
}

// --------------------------------------------------------------------------- Teeko

export function teeko(v, names, opts = {}) {
  const n = 5, cell = 100, pad = 40, size = pad * 2 + n * cell;
  const min = minUnits(opts, size, size);
  let s = `<rect class="wood" x="0" y="0" width="${size}" height="${size}" rx="18"/>`;
  const layers = [];
  for (let i = 0; i < n; i++) {
    const c = pad + i * cell + cell / 2;
    s += `<line class="grid" x1="${pad + cell / 2}" y1="${c}" x2="${pad + n * cell - cell / 2}" y2="${c}"/>`;
    s += `<line class="grid" x1="${c}" y1="${pad + cell / 2}" x2="${c}" y2="${pad + n * cell - cell / 2}"/>`;
  }
  for (let f = 0; f < n; f++) for (let r = 1; r <= n; r++) {
    const [x, y] = sqXY(FILES[f] + r, n, cell, pad);
    s += `<circle class="hole" cx="${x}" cy="${y}" r="12"/>`;
  }
  s += labels(n, cell, pad, min);
  layers.push(["grid", s]);
  s = "";
  const win = new Set(v.winning_squares || []);
  const last = v.last || null;
  (v.pieces || []).forEach((squares, seat) => {
    for (const sq of squares) {
      const [x, y] = sqXY(sq, n, cell, pad);
      const cls = `piece p${seat}${win.has(sq) ? " win" : ""}`;
      s += `<circle class="${cls}" data-square="${esc(sq)}" data-seat="${seat}" cx="${x}" cy="${y}" r="36"/>`;
    }
  });
  if (last) {
    if (last.from) {
      const [x, y] = sqXY(last.from, n, cell, pad);
      s += `<circle class="last-from" cx="${x}" cy="${y}" r="40"/>`;
      const [x2, y2] = sqXY(last.to, n, cell, pad);
      s += `<line class="last-path" x1="${x}" y1="${y}" x2="${x2}" y2="${y2}"/>`;
    }
    const [x, y] = sqXY(last.to, n, cell, pad);
    s += `<circle class="last" data-last="${esc(last.to)}" cx="${x}" cy="${y}" r="44"/>`;
  }
  layers.push(["pieces", s]);
  return board(size, size, "teeko", layers);
}

export function teekoStatus(v, names) {
  if (!v.started) return "Waiting for the start";
  const inHand = v.in_hand || [0, 0];
  const who = (v.to_act || []).map((s) => nameAndSeat(names[s], seatLabel("teeko", s))).join(", ");
  const phase = v.phase === "place" ? `placing · in hand ${inHand[0]} : ${inHand[1]}` : v.phase === "move" ? "moving" : "";
  return `Ply ${v.ply}${phase ? ` · ${phase}` : ""}${who ? ` · to move: ${who}` : ""}`;
}

// --------------------------------------------------------------------------- Tiku

export function tiku(v, names, opts = {}) {
  const n = 6, cell = 84, pad = 40, size = pad * 2 + n * cell;
  const min = minUnits(opts, size, size);
  let s = `<rect class="wood" x="0" y="0" width="${size}" height="${size}" rx="18"/>`;
  for (let f = 0; f < n; f++) for (let r = 1; r <= n; r++) {
    const x = pad + f * cell, y = pad + (n - r) * cell;
    s += `<rect class="cell ${(f + r) % 2 ? "c1" : "c0"}" x="${x}" y="${y}" width="${cell}" height="${cell}"/>`;
  }
  s += labels(n, cell, pad, min);
  const layers = [["grid", s]];
  s = "";
  const lm = v.last_move || null;
  if (lm) {
    for (const sq of lm.placed || []) {
      const [x, y] = sqXY(sq, n, cell, pad);
      s += `<rect class="last-placed" x="${x - cell / 2 + 4}" y="${y - cell / 2 + 4}" width="${cell - 8}" height="${cell - 8}" rx="6"/>`;
    }
  }
  for (const [sq, seat] of Object.entries(v.discs || {})) {
    const [x, y] = sqXY(sq, n, cell, pad);
    s += `<rect class="disc p${seat}" data-square="${esc(sq)}" data-seat="${seat}" x="${x - 16}" y="${y - 16}" width="32" height="32" rx="6" transform="rotate(45 ${x} ${y})"/>`;
  }
  for (const p of v.pieces || []) {
    const [x, y] = sqXY(p.square, n, cell, pad);
    s += `<circle class="piece p${p.seat}" data-square="${esc(p.square)}" data-seat="${p.seat}" cx="${x}" cy="${y}" r="31"/>`;
    if (p.flipped) s += `<circle class="flipped" cx="${x}" cy="${y}" r="14"/>`;
  }
  if (lm && lm.from && lm.to) {
    const [x1, y1] = sqXY(lm.from, n, cell, pad);
    const [x2, y2] = sqXY(lm.to, n, cell, pad);
    s += `<line class="last-path" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`;
    s += `<circle class="last-from" cx="${x1}" cy="${y1}" r="36"/>`;
    s += `<circle class="last" data-last="${esc(lm.to)}" cx="${x2}" cy="${y2}" r="38"/>`;
  }
  layers.push(["pieces", s]);
  return board(size, size, "tiku", layers);
}

export function tikuStatus(v, names) {
  if (!v.started) return "Waiting for the start";
  const hands = v.hands || [0, 0];
  const match = v.match ? ` · match ${v.match.join(" : ")}` : "";
  const who = v.turn !== null && v.turn !== undefined ? ` · to move: ${nameAndSeat(names[v.turn], seatLabel("tiku", v.turn))}` : "";
  return `Round ${v.round} · move ${v.moves} · in hand ${hands.join(" : ")}${match}${who}`;
}

// --------------------------------------------------------------------------- Tedoku

const ROWS = "ABCDEFGHI";

function tedokuSheet(p, v, x0, y0, cell, name, active, min) {
  let s = `<g class="sheet${active ? " active" : ""}" data-seat="${p.seat}">`;
  const w = cell * 9;
  const sc = p.score || {};
  const pts = `${sc.total ?? 0} pts`;
  const big = Math.max(20, min);
  // (the name gets the room the points leave)
  s += `<text class="sheet-name"${fs(20, min)} x="${x0}" y="${y0 - 14}"${fitText(name.length, big, w - (pts.length + 1) * big * 0.58)}>${esc(name)}</text>`;
  s += `<text class="sheet-score"${fs(20, min)} x="${x0 + w}" y="${y0 - 14}" text-anchor="end">${esc(pts)}</text>`;
  // the card's target (row/col/sector) this turn
  const [tk, tv] = String(v.card || "").split(":");
  const last = new Set();
  const hist = p.history || [];
  if (hist.length && hist.length === v.turn) {  // this turn's drawing, revealed
    for (const c of hist[hist.length - 1].cells || []) last.add(c);
  }
  for (let r = 0; r < 9; r++) {
    const row = (p.sheet || [])[r] || ".........";
    for (let c = 0; c < 9; c++) {
      const ch = row[c];
      const cellName = ROWS[r] + (c + 1);
      const sector = Math.floor(r / 3) * 3 + Math.floor(c / 3) + 1;
      const target = (tk === "row" && tv === ROWS[r]) || (tk === "col" && tv === String(c + 1))
        || (tk === "sector" && tv === String(sector));
      let cls = ch === "#" ? "filled" : ch === "*" ? "pending" : "empty";
      if (target) cls += " target";
      if (last.has(cellName)) cls += " lastcell";
      s += `<rect class="tcell ${cls}" data-cell="${cellName}" x="${x0 + c * cell}" y="${y0 + r * cell}" width="${cell}" height="${cell}"/>`;
    }
  }
  for (let i = 0; i <= 3; i++) {
    s += `<line class="sector" x1="${x0 + i * 3 * cell}" y1="${y0}" x2="${x0 + i * 3 * cell}" y2="${y0 + w}"/>`;
    s += `<line class="sector" x1="${x0}" y1="${y0 + i * 3 * cell}" x2="${x0 + w}" y2="${y0 + i * 3 * cell}"/>`;
  }
  // (where text must be large, the short form: "2 rows · 1 col · 0 sect · +3")
  const detail = (min > 15
    ? `${sc.rows ?? 0} rows · ${sc.cols ?? 0} cols · ${sc.sectors ?? 0} sect · +${sc.bonus ?? 0}`
    : `rows ${sc.rows ?? 0} · cols ${sc.cols ?? 0} · sectors ${sc.sectors ?? 0} · bonus ${sc.bonus ?? 0}`)
    + (p.placed ? " · drawn" : "");
  const dsz = Math.max(15, min);
  s += `<text class="sheet-detail"${fs(15, min)} x="${x0}" y="${y0 + w + 10 + dsz}"${fitText(detail.length, dsz, w)}>${esc(detail)}</text>`;
  return s + "</g>";
}

export function tedoku(v, names, opts = {}) {
  const players = v.players || [];
  const n = Math.max(players.length, 1);
  // (a narrow box: two sheets a row at most, so that they stay readable)
  const most = opts.box && opts.box.w && opts.box.w < 700 ? 2 : 4;
  const cols = n <= most ? n : Math.ceil(n / Math.ceil(n / most));
  const rows = Math.ceil(n / cols);
  const cell = 34, sheetW = cell * 9, gapX = 40, pad = 30;
  const W = pad * 2 + cols * sheetW + (cols - 1) * gapX;
  // (the text sizes depend on the scale, the scale on the height: twice is near enough)
  let min = 0, gapY = 90, top = 60, H = 0;
  for (let k = 0; k < 2; k++) {
    const t = Math.max(20, min);
    top = 30 + t * 1.5;
    gapY = Math.max(90, 2.6 * Math.max(15, min) + 20);
    H = top + rows * (sheetW + gapY);
    min = minUnits(opts, W, H);
  }
  const toAct = new Set(v.to_act || []);
  const layers = [["paper", `<rect class="paper-bg" x="0" y="0" width="${W}" height="${H}" rx="14"/>`]];
  const card = v.card ? String(v.card).replace(":", " ") : "—";
  const head = `Turn ${v.turn ?? 0} of ${v.turns ?? "?"} · card ${card} · die ${v.die ?? "—"}`;
  const hsz = Math.max(22, min);
  layers.push(["head", `<text class="tedoku-head"${fs(22, min)} x="${pad}" y="${12 + hsz}"${fitText(head.length, hsz, W - 2 * pad)}>${esc(head)}</text>`]);
  players.forEach((p, i) => {
    const x0 = pad + (i % cols) * (sheetW + gapX);
    const y0 = top + 30 + Math.floor(i / cols) * (sheetW + gapY);
    layers.push([`sheet${i}`, tedokuSheet(p, v, x0, y0, cell, names[p.seat] || seatLabel("tedoku", p.seat), toAct.has(p.seat), min)]);
  });
  return board(W, H, "tedoku", layers);
}

export function tedokuStatus(v, names) {
  const waiting = (v.to_act || []).map((s) => names[s] || seatLabel("tedoku", s));
  return `Turn ${v.turn ?? 0} of ${v.turns ?? "?"} · ${v.remaining ?? 0} cards left${waiting.length ? ` · drawing: ${waiting.join(", ")}` : ""}`;
}

// --------------------------------------------------------------------------- Teka

const RED = "HD";
const POS = ["top", "right", "bottom", "left"];  // North at the top, as on a bridge diagram
const SUITS = "SHDC";
const RANKS = "AKQJT98765432";

function sortCards(cards) {
  return [...cards].sort((a, b) => (SUITS.indexOf(a[1]) - SUITS.indexOf(b[1])) || (RANKS.indexOf(a[0]) - RANKS.indexOf(b[0])));
}

function card(x, y, w, c, extra) {
  const h = w * 1.4;
  if (!w) return "";
  if (!c) return `<rect class="card back" x="${x}" y="${y}" width="${w}" height="${h}" rx="${w * 0.1}"/>`;
  const red = RED.includes(c[1]) ? " red" : "";
  const rank = c[0] === "T" ? "10" : c[0];
  return `<g class="card${red}${extra ? ` ${extra}` : ""}" data-card="${esc(c)}">`
    + `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${w * 0.1}"/>`
    + `<text class="rank" x="${x + w * 0.1}" y="${y + w * 0.42}" font-size="${w * 0.36}">${rank}</text>`
    + `<text class="suit" x="${x + w * 0.12}" y="${y + w * 0.8}" font-size="${w * 0.34}">${SUIT_SYMBOL[c[1]]}</text>`
    + `<text class="suit big" x="${x + w * 0.9}" y="${y + h - w * 0.14}" font-size="${w * 0.62}" text-anchor="end">${SUIT_SYMBOL[c[1]]}</text></g>`;
}

function contractText(v) {
  const c = v.contract;
  if (!c) return "";
  const bid = c.double13 ? "Double 13" : String(c.bid);
  const t = c.trumps ? ` in ${SUIT_SYMBOL[c.trumps]} ${SUIT_NAME[c.trumps]}` : "";
  const extra = c.raised ? " (raised)" : c.forced ? " (forced)" : "";
  return `${TEKA_SEATS[c.bidder % 4]}: ${bid}${t}${extra}`;
}

function lastCall(v, seat) {
  const calls = (v.bids || []).filter((b) => b.seat === seat).map((b) => b.call);
  return calls.length ? calls[calls.length - 1] : null;
}

/** A hand as one line of text: "♠ A K 7 ♥ Q 9 ♦ 5 ♣ J 3" (where cards would be too small). */
function handLine(cards) {
  const out = [];
  for (const suit of SUITS) {
    const of = cards.filter((c) => c[1] === suit);
    if (of.length) out.push(SUIT_SYMBOL[suit] + " " + of.map((c) => (c[0] === "T" ? "10" : c[0])).join(" "));
  }
  return out.join("  ");
}

export function teka(v, names, opts = {}) {
  const W = 1000, H = 780, cx = 500, cy = 330;
  const min = minUnits(opts, W, H);
  const bot = opts.bot || null;
  const toAct = new Set(v.to_act || []);
  const layers = [["felt", `<rect class="felt-rim" x="6" y="6" width="${W - 12}" height="660" rx="300"/>`
    + `<rect class="felt" x="16" y="16" width="${W - 32}" height="640" rx="290"/>`]];
  let s;
  const anchors = { bottom: [cx, 600], top: [cx, 62], left: [150, cy], right: [850, cy] };
  const counts = v.counts || [0, 0, 0, 0];
  const hands = Array.isArray(v.hands) ? v.hands : null;  // the whole view (a finished match)
  for (let seat = 0; seat < 4; seat++) {
    const pos = POS[seat % 4];
    let [ax, ay] = anchors[pos];
    const active = toAct.has(seat) && v.phase !== "over";
    const info = [];
    if (seat === v.sitting_out) info.push("sits out");
    else info.push(`${counts[seat] ?? 0} cards`);
    const call = lastCall(v, seat);
    if (call !== null) info.push(callText(call));
    if (seat === v.dealer) info.push("dealer");
    if (bot && bot.seat === seat) info.push(`thinking ${Math.round((bot.progress || 0) * 100)}%`);
    const name = nameAndSeat(names[seat], TEKA_SEATS[seat]);
    const infoText = info.join(" · ");
    const nsz = Math.max(27, min), isz = Math.max(21, min);
    // (wide enough for its text: about 0.58 em a character of the system font)
    const nameW = name.length * nsz * 0.59, infoW = infoText.length * isz * 0.58;
    const bw = Math.min(pos === "left" || pos === "right" ? 300 : 440, Math.max(290, nameW + 30, infoW + 30));
    const bh = Math.max(74, nsz + isz + 26);
    // (a text wider than its box is squeezed to fit)
    const fit = (w) => (w > bw - 24 ? ` textLength="${bw - 24}" lengthAdjust="spacingAndGlyphs"` : "");
    if (pos === "left") ax = Math.max(ax, 20 + bw / 2);
    if (pos === "right") ax = Math.min(ax, W - 20 - bw / 2);
    if (pos === "top") ay = Math.max(ay, 16 + bh / 2);
    if (pos === "bottom") ay = Math.min(ay, 656 - bh / 2);
    const top = ay - bh / 2;
    s = `<g class="seat${active ? " active" : ""}" data-seat="${seat}">`
      + `<rect x="${ax - bw / 2}" y="${top}" width="${bw}" height="${bh}" rx="12"/>`
      + `<text class="seat-name"${fs(27, min)} x="${ax}" y="${top + 8 + nsz * 0.8}"${fit(nameW)}>${esc(name)}</text>`
      + `<text class="seat-info"${fs(21, min)} x="${ax}" y="${top + bh - 10 - isz * 0.2}"${fit(infoW)}>${esc(infoText)}</text></g>`;
    layers.push([`seat${seat}`, s]);
    s = "";
    // (cards big enough for their rank to be read; else the hand as a line of text)
    const cw = Math.max(34, min / 0.36);
    if (hands && hands[seat] && hands[seat].length && cw > 48) {
      const line = handLine(sortCards(hands[seat]));
      const hy = top + bh + 8 + min;
      const width = pos === "left" || pos === "right" ? 300 : 600;
      let hx = ax;
      if (pos === "left") hx = Math.max(ax, 20 + width / 2);
      if (pos === "right") hx = Math.min(ax, W - 20 - width / 2);
      s += `<g class="hand" data-seat="${seat}"><text class="hand-line"${fs(0, min)} x="${hx}" y="${hy}" text-anchor="middle"${fitText(line.length, min, width)}>${esc(line)}</text>`;
      for (const c of hands[seat]) s += `<g data-card="${esc(c)}"></g>`;
      s += "</g>";
    } else if (hands && hands[seat] && hands[seat].length) {
      const cards = sortCards(hands[seat]);
      const step = 26;
      const total = step * (cards.length - 1) + cw;
      let hx = ax - total / 2;
      const hy = top + bh + 8;
      if (pos === "left") hx = Math.max(24, hx);
      if (pos === "right") hx = Math.min(W - 24 - total, hx);
      s += `<g class="hand" data-seat="${seat}">`;
      cards.forEach((c, i) => { s += card(hx + i * step, hy, cw, c, "small"); });
      s += "</g>";
    }
    layers.push([`hand${seat}`, s]);
  }
  s = "";
  // the trick in the middle (or the last one, finished, with its winner)
  let trick = v.trick || [];
  let winner = null;
  if (!trick.length && ["play", "cut", "over"].includes(v.phase) && v.last_trick) {
    trick = v.last_trick.cards || [];
    winner = v.last_trick.winner;
  }
  const tw = Math.max(70, Math.min(100, min / 0.34));
  const ssz = Math.max(21, min);
  const place = { bottom: [cx - tw / 2, cy + 20], top: [cx - tw / 2, cy - 80 - tw], left: [cx - 75 - tw, cy - 65], right: [cx + 75, cy - 65] };
  for (const t of trick) {
    const [x, y] = place[POS[t.seat % 4]];
    s += card(x, y, tw, t.card, `trick${winner === t.seat ? " won" : ""}`);
    if (t.signal) s += `<text class="signal"${fs(21, min)} x="${x + tw / 2}" y="${y + tw * 1.4 + ssz}">${esc(t.signal)}</text>`;
  }
  layers.push(["trick", s]);
  s = "";
  const contract = contractText(v);
  const won = v.tricks_won || [0, 0];
  const csz = Math.max(28, min), tsz = Math.max(22, min);
  const cyText = cy + 145 + csz;
  if (contract) s += `<text class="contract"${fs(28, min)} x="${cx}" y="${cyText}"${fitText(contract.length, csz, 600)}>${esc(contract)}</text>`;
  const tricks = `Tricks N-S ${won[0]} · E-W ${won[1]} · hand ${v.hand_number ?? 0} · ${v.phase || ""}`;
  s += `<text class="tricks"${fs(22, min)} x="${cx}" y="${cyText + tsz + 6}"${fitText(tricks.length, tsz, 640)}>${esc(tricks)}</text>`;
  if (v.throw_in && v.phase === "throw_in") s += `<text class="tricks"${fs(22, min)} x="${cx}" y="${cyText + 2 * tsz + 12}">throw-in question open</text>`;
  // the match score below the table
  const scores = v.scores || [0, 0];
  const target = (v.options || {}).target;
  layers.push(["center", s]);
  layers.push(["match", `<text class="match"${fs(26, min)} x="${cx}" y="${H - 22}">North-South ${scores[0]} · East-West ${scores[1]}${target ? ` · to ${target}` : ""}</text>`]);
  return board(W, H, "teka", layers);
}

/** The score sheet: one row a hand, and a chart of both sides' totals. */
export function tekaSheet(v) {
  const sheet = v.sheet || [];
  if (!sheet.length) return `<p class="empty">No hand scored yet.</p>`;
  let rows = "";
  for (const r of sheet) {
    const c = r.double13 ? "D13" : r.bid;
    const t = r.trumps ? SUIT_SYMBOL[r.trumps] : "";
    rows += `<tr><td class="num">${esc(r.hand)}</td><td title="${esc(TEKA_SEATS[r.bidder % 4])}">${esc(TEKA_SEATS[r.bidder % 4][0])} ${esc(c)}${t}${r.raised ? " ×2" : ""}</td>`
      + `<td>${r.made ? "made" : "down"}</td><td>${esc((r.tricks || []).join("–"))}</td>`
      + `<td>${esc((r.points || []).join("–"))}</td><td>${esc((r.totals || []).join("–"))}</td></tr>`;
  }
  const target = (v.options || {}).target || 0;
  const max = Math.max(target, ...sheet.flatMap((r) => r.totals || [0]), 1);
  const W = 300, H = 120, n = sheet.length;
  const pts = (side) => [[0, 0], ...sheet.map((r, i) => [i + 1, (r.totals || [0, 0])[side]])]
    .map(([i, t]) => `${(i / n) * (W - 10) + 5},${H - 5 - (t / max) * (H - 10)}`).join(" ");
  let chart = `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="score chart">`;
  if (target) chart += `<line class="target" x1="0" x2="${W}" y1="${H - 5 - (target / max) * (H - 10)}" y2="${H - 5 - (target / max) * (H - 10)}"/>`;
  chart += `<polyline class="ns" points="${pts(0)}"/><polyline class="ew" points="${pts(1)}"/></svg>`;
  return `<table class="sheet-table"><tr><th class="num">#</th><th>Bid</th><th></th><th>Tricks</th><th>Points</th><th>Total</th></tr>${rows}</table>`
    + `<div class="legend"><span class="ns">N-S</span> <span class="ew">E-W</span></div>${chart}`;
}

export function tekaStatus(v, names) {
  const who = (v.to_act || []).map((s) => nameAndSeat(names[s], TEKA_SEATS[s])).join(", ");
  return `Hand ${v.hand_number ?? 0} · ${v.phase || ""}${who ? ` · waiting for ${who}` : ""}`;
}

// --------------------------------------------------------------------------- any game

/** A game's grid (board().drawing "grid": ``view[spec.cells]``, ``rows`` x ``cols`` entries
 * in reading order from a1, each a seat number or null, drawn as ``spec.marks[seat]``). */
export function grid(v, names, opts = {}) {
  const spec = opts.spec || {};
  const rows = spec.rows || 3, cols = spec.cols || 3, cell = 100, pad = 40;
  const W = pad * 2 + cols * cell, H = pad * 2 + rows * cell;
  const min = minUnits(opts, W, H);
  const cells = v[spec.cells || "cells"] || [];
  const marks = spec.marks || [];
  let s = `<rect class="wood" x="0" y="0" width="${W}" height="${H}" rx="18"/>`;
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
    s += `<rect class="gcell" x="${pad + c * cell}" y="${pad + r * cell}" width="${cell}" height="${cell}"/>`;
  }
  const layers = [["grid", s]];
  s = "";
  cells.forEach((seat, i) => {
    if (seat === null || seat === undefined) return;
    const c = i % cols, r = rows - 1 - Math.floor(i / cols);
    const mark = marks[seat] ?? String(seat + 1);
    const square = `${FILES[c] || c}${Math.floor(i / cols) + 1}`;
    s += `<text class="gmark p${seat}"${fs(64, min)} data-square="${esc(square)}" data-seat="${seat}" x="${pad + c * cell + cell / 2}" y="${pad + r * cell + cell / 2 + 22}">${esc(mark)}</text>`;
  });
  layers.push(["marks", s]);
  return board(W, H, "grid", layers);
}

/** Any game without a drawing of its own: its seats (whose turn) and the view's fields. */
export function generic(v, names, opts = {}) {
  const kind = opts.kind || "";
  const lines = [];
  const toAct = new Set(v.to_act || []);
  names.forEach((n, seat) => lines.push([`${toAct.has(seat) ? "▶ " : ""}${seatLabel(kind, seat)}: ${n || ""}`, "gseat"]));
  for (const [k, value] of Object.entries(v)) {
    if (["to_act", "game", "options"].includes(k) || value === null || typeof value === "object") continue;
    lines.push([`${k.replace(/_/g, " ")}: ${value}`, "gfield"]);
  }
  const W = 600, step = 36, H = 40 + step * Math.max(1, lines.length);
  const min = minUnits(opts, W, H);
  const text = lines.map(([t, cls], i) => `<text class="${cls}"${fs(24, min)} x="30" y="${50 + i * step}"${fitText(t.length, 24, W - 60)}>${esc(t)}</text>`).join("");
  return board(W, H, "generic", [["panel", `<rect class="wood" x="0" y="0" width="${W}" height="${H}" rx="18"/>`], ["text", text]]);
}

function genericStatus(v, names) {
  const who = (v.to_act || []).map((s) => names[s] || `Seat ${s + 1}`);
  return who.length ? `Waiting for ${who.join(", ")}` : "";
}

/** The drawings by name (a game's board().drawing, docs/games.md). */
export const BOARDS = { teeko, tiku, tedoku, teka, grid, generic };
const STATUS_OF = { teeko: teekoStatus, tiku: tikuStatus, tedoku: tedokuStatus, teka: tekaStatus };
const SHEETS = { teka: tekaSheet };
const DRAWS_BOT = new Set(["teka"]);  // drawings that show a thinking bot

function drawingOf(kind) {
  const d = infoOf(kind).board.drawing;
  return BOARDS[d] ? d : "generic";
}

/** The status line of a game's view (its drawing's, else who is being waited for). */
export function statusOf(kind, view, names) {
  return (STATUS_OF[drawingOf(kind)] || genericStatus)(view, names || []);
}

/** The score sheet of a game whose board() has ``sheet`` (HTML), "" for none. */
export function sheetOf(kind, view) {
  const fn = SHEETS[drawingOf(kind)];
  return fn ? fn(view) : "";
}

/** Whether the game's drawing shows a bot thinking (redrawn when a bot starts). */
export function drawsBot(kind) {
  return DRAWS_BOT.has(drawingOf(kind));
}

/** The board of any game (a board object: svgText, patch), drawn by the drawing its
 * board() names (the generic one for a drawing this page does not have); null without a
 * view. */
export function drawn(kind, view, names, opts) {
  if (!view) return null;
  const spec = infoOf(kind).board;
  return BOARDS[drawingOf(kind)](view, names || [], { ...(opts || {}), spec, kind });
}

/** The board of any kind as SVG markup; an empty view draws a placeholder. */
export function render(kind, view, names, opts) {
  const b = drawn(kind, view, names, opts);
  return b ? svgText(b) : `<p class="empty">Nothing to show yet.</p>`;
}

/** Draw in ``box`` changing only what changed (see patch). */
export function update(box, kind, view, names, opts) {
  const b = drawn(kind, view, names, opts);
  if (b) patch(box, b);
  else box.innerHTML = `<p class="empty">Nothing to show yet.</p>`;
}
