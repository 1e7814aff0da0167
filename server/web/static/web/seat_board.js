// Controls of the seat page (seat.js, "Controls modules") for the square boards with pieces:
// the "teeko" and "tiku" drawings. The board itself is tapped:
//   * a placement (a "place" command): one tap on an empty square sends it;
//   * a move: tap one of your pieces (it is ringed, the squares it can reach light up), then
//     tap one of them. Where the game lays discs (the view has "discs"), the move is not sent
//     yet: the discs it would lay and the ones it would send back are drawn on the board and
//     said in words, and "Confirm" (or a second tap on the same square) sends it;
//   * the other commands (resign, draw offers, a forced pass) are buttons with plain words,
//     each behind a confirmation.
// The squares are tapped through a transparent layer of one square per cell, added on top of
// the drawing of boards.js (its board geometry is repeated in GEOMETRY below). What is legal
// comes only from the seat's legal commands; the drawing name only says where the squares are.
import { seatLabel } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
const FILES = "abcdef";
// boards.js teeko() and tiku(): squares a side, a square's size and the margin, in SVG units
const GEOMETRY = {
  teeko: { n: 5, cell: 100, pad: 40 },
  tiku: { n: 6, cell: 84, pad: 40 },
};

// The commands that are not a square of the board, in words (any other: its type, spaced).
const WORDS = {
  resign: { label: "Resign", ask: "Resign this game? Your opponent wins it.", yes: "Resign" },
  offer_draw: { label: "Offer a draw", ask: "Offer your opponent a draw?", yes: "Offer a draw" },
  accept_draw: { label: "Accept the draw", ask: "Accept the draw? The game ends drawn.", yes: "Accept" },
  decline_draw: { label: "Decline the draw", ask: "Decline the draw and play on?", yes: "Decline" },
  pass: { label: "Pass (no move left)", ask: "You have no move: pass the turn?", yes: "Pass" },
};
const BOARD_TYPES = new Set(["place", "move"]);

function words(type) {
  if (WORDS[type]) return WORDS[type];
  const plain = type.replace(/_/g, " ");
  const label = plain.charAt(0).toUpperCase() + plain.slice(1);
  return { label, ask: `${label}?`, yes: label };
}

function el(name, attrs) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The seat owning the piece on ``sq`` (Teeko: a list of squares a seat; Tiku: objects). */
function pieceOwner(view, sq) {
  const pieces = view.pieces || [];
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    if (Array.isArray(p) ? p.includes(sq) : p && p.square === sq) return Array.isArray(p) ? i : p.seat;
  }
  return null;
}

/** What a sliding move would lay (the rules of core/tiku.py ``_apply_move``): a disc on the
 * destination goes back to its owner first; then the square left and every square crossed,
 * in the order travelled, get the mover's disc (an own disc stays, an opponent's goes back
 * to its owner); laying the last disc in hand stops it there. */
export function discsLaid(view, seat, from, to) {
  const discs = view.discs || {};
  const hands = [...(view.hands || [0, 0])];
  const out = { placed: [], kept: [], back: [], hands, last: false };
  if (discs[to] !== undefined) { hands[discs[to]] += 1; out.back.push({ square: to, seat: discs[to] }); }
  const f1 = FILES.indexOf(to[0]), r1 = parseInt(to.slice(1), 10);
  let f = FILES.indexOf(from[0]), r = parseInt(from.slice(1), 10);
  const df = Math.sign(f1 - f), dr = Math.sign(r1 - r);
  for (let guard = 0; (f !== f1 || r !== r1) && guard < 12; guard++) {
    if (hands[seat] === 0) break;
    const sq = FILES[f] + r;
    const d = discs[sq];
    if (d === seat) out.kept.push(sq);
    else {
      if (d !== undefined) { hands[d] += 1; out.back.push({ square: sq, seat: d }); }
      out.placed.push(sq);
      hands[seat] -= 1;
    }
    f += df; r += dr;
  }
  out.last = hands[seat] === 0;
  return out;
}

export function controls(ctx) {
  const geo = GEOMETRY[ctx.drawing] || GEOMETRY.teeko;
  let st = null;      // the last state drawn
  let seq = -1;       // its seq: a new position forgets the selection
  let sel = null;     // the square of the piece picked up
  let pick = null;    // a move shown before it is confirmed (a game that lays discs)
  let layer = null;   // the <g> added to the board's SVG
  ctx.board.classList.add("gn-tap");

  const center = (sq) => {
    const f = FILES.indexOf(sq[0]), r = parseInt(sq.slice(1), 10);
    return [geo.pad + f * geo.cell + geo.cell / 2, geo.pad + (geo.n - r) * geo.cell + geo.cell / 2];
  };
  const squares = () => {
    const out = [];
    for (let r = geo.n; r >= 1; r--) for (let f = 0; f < geo.n; f++) out.push(FILES[f] + r);
    return out;
  };
  const label = (seat) => seatLabel(ctx.kind, seat);
  const layingDiscs = () => Boolean(st && st.view && st.view.discs);
  const legalOf = (type) => (st ? st.legal.filter((c) => c.type === type) : []);
  const movesFrom = (sq) => legalOf("move").filter((c) => c.from === sq);

  function prompt() {
    if (!st || !st.mine) { ctx.say(""); return; }
    const v = st.view;
    if (legalOf("place").length) {
      const left = (v.in_hand || [])[ctx.seat];
      ctx.say(`Tap an empty square to place a piece${left ? ` (${left} in hand)` : ""}.`);
    } else if (pick) ctx.say(pickWords(pick));
    else if (sel) ctx.say(`Tap a lit square to move the piece on ${sel}, or the piece again to put it back.`);
    else if (legalOf("move").length) ctx.say("Tap one of your pieces.");
    else ctx.say("");
  }

  function pickWords(c) {
    const p = discsLaid(st.view, ctx.seat, c.from, c.to);
    const parts = [`${c.from} to ${c.to}`];
    parts.push(p.placed.length ? `lays ${p.placed.length} disc${p.placed.length === 1 ? "" : "s"} (${p.placed.join(", ")})` : "lays no disc");
    for (const seat of [1 - ctx.seat, ctx.seat]) {
      const n = p.back.filter((b) => b.seat === seat).length;
      if (n) parts.push(`${n} of ${seat === ctx.seat ? "yours" : `${label(seat)}'s`} go${n === 1 ? "es" : ""} back`);
    }
    const end = p.last ? "your last disc: this wins the round" : `${p.hands[ctx.seat]} left in hand`;
    return `${parts.join(", ")}; ${end}. Confirm?`;
  }

  function send(c) {
    sel = null;
    pick = null;
    ctx.say("");
    ctx.send(c).then((f) => {
      if (f && f.type === "error" && f.code !== "stale") ctx.say(`Not played: ${f.reason || f.code}`);
    });
  }

  function why(sq) {
    if (st.outcome) return "The game is over.";
    if (!st.mine) {
      const who = (st.toAct || []).map((s) => ctx.names()[s] || label(s)).join(", ");
      return who ? `Not your turn: ${who} is to move.` : "Not your turn.";
    }
    const owner = pieceOwner(st.view, sq);
    if (legalOf("place").length) return owner !== null ? "That square is taken." : "You cannot place there.";
    if (sel && owner === null) return `The piece on ${sel} cannot go to ${sq}.`;
    if (owner === ctx.seat) return "That piece cannot move.";
    if (owner !== null) return `That is ${label(owner)}'s piece.`;
    if (!legalOf("move").length) return "You have no move on the board.";
    return "Tap one of your pieces first.";
  }

  function tap(sq) {
    if (!st || st.pending) return;
    const place = legalOf("place").find((c) => c.to === sq);
    if (st.mine && place) { send(place); return; }
    if (st.mine && pick && pick.to === sq) { send(pick); return; }  // a second tap confirms
    if (st.mine && sel) {
      const c = movesFrom(sel).find((m) => m.to === sq);
      if (c) {
        if (layingDiscs()) { pick = c; refresh(); } else send(c);
        return;
      }
      if (sq === sel) { sel = null; pick = null; refresh(); return; }
    }
    if (st.mine && movesFrom(sq).length) { sel = sq; pick = null; refresh(); return; }
    ctx.say(why(sq));
  }

  function onClick(ev) {
    const hit = ev.target.closest && ev.target.closest(".gn-hit");
    if (hit) tap(hit.dataset.square);
  }
  ctx.board.addEventListener("click", onClick);

  /** The layer on top of the board: selection, lit targets, the move's discs, the hits. */
  function redraw() {
    const svg = ctx.board.querySelector("svg");
    if (!svg || !st) return;
    if (!layer || layer.parentNode !== svg) {
      layer = el("g", { class: "gn-layer" });
      svg.appendChild(layer);
    }
    layer.replaceChildren();
    layer.classList.toggle("gn-busy", Boolean(st.pending));
    const c = geo.cell;
    if (st.mine && !st.pending) {
      for (const p of legalOf("place")) {
        const [x, y] = center(p.to);
        layer.appendChild(el("circle", { class: "gn-spot", cx: x, cy: y, r: c * 0.16 }));
      }
      if (sel) {
        const [x, y] = center(sel);
        layer.appendChild(el("circle", { class: "gn-sel", "data-selected": sel, cx: x, cy: y, r: c * 0.44 }));
        for (const m of movesFrom(sel)) {
          const [tx, ty] = center(m.to);
          const on = pick && pick.to === m.to;
          layer.appendChild(el("circle", { class: `gn-target${on ? " on" : ""}`, "data-target": m.to, cx: tx, cy: ty, r: c * (on ? 0.4 : 0.2) }));
        }
      }
      if (pick) {
        const p = discsLaid(st.view, ctx.seat, pick.from, pick.to);
        for (const b of p.back) {
          const [x, y] = center(b.square);
          layer.appendChild(el("rect", { class: "gn-back", "data-back": b.square, x: x - c / 2 + 5, y: y - c / 2 + 5, width: c - 10, height: c - 10, rx: 8 }));
        }
        for (const sq of p.placed) {
          const [x, y] = center(sq);
          layer.appendChild(el("rect", { class: `gn-lay p${ctx.seat}`, "data-lay": sq, x: x - 16, y: y - 16, width: 32, height: 32, rx: 6, transform: `rotate(45 ${x} ${y})` }));
        }
        const [x1, y1] = center(pick.from), [x2, y2] = center(pick.to);
        layer.appendChild(el("line", { class: "gn-path", x1, y1, x2, y2 }));
        layer.appendChild(el("circle", { class: `gn-ghost p${ctx.seat}`, cx: x2, cy: y2, r: c * 0.37 }));
      }
    }
    for (const sq of squares()) {
      const [x, y] = center(sq);
      layer.appendChild(el("rect", { class: "gn-hit", "data-square": sq, x: x - c / 2, y: y - c / 2, width: c, height: c }));
    }
  }

  function buttons() {
    ctx.box.replaceChildren();
    if (!st || st.outcome) return;
    const v = st.view;
    if (v.draw_offer !== null && v.draw_offer !== undefined) {
      const p = document.createElement("p");
      p.className = "gn-offer";
      p.textContent = v.draw_offer === ctx.seat ? "You offered a draw: waiting for the answer."
        : `${ctx.names()[v.draw_offer] || label(v.draw_offer)} offers a draw.`;
      ctx.box.appendChild(p);
    }
    const add = (text, cls, fn) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = cls;
      b.textContent = text;
      b.disabled = Boolean(st.pending);
      b.addEventListener("click", fn);
      ctx.box.appendChild(b);
      return b;
    };
    if (pick && st.mine) {
      const c = pick;
      add(`Confirm ${c.from} to ${c.to}`, "gn-confirm-move", () => { if (!st.pending) send(c); }).dataset.action = "confirm";
      add("Cancel", "gn-cancel-move", () => { pick = null; refresh(); }).dataset.action = "cancel";
    }
    for (const c of st.legal) {
      if (BOARD_TYPES.has(c.type)) continue;
      const w = words(c.type);
      add(w.label, "gn-meta", async () => {
        if (st.pending) return;
        if (await ctx.confirm(w.ask, w.yes)) send(c);
      }).dataset.action = c.type;
    }
  }

  function refresh() { redraw(); buttons(); prompt(); }

  return {
    draw(state) {
      st = state;
      ctx.board.dataset.seq = String(state.seq);  // (the position drawn: the tests wait on it)
      if (state.seq !== seq) { seq = state.seq; sel = null; pick = null; prompt(); }
      if (!state.mine) { sel = null; pick = null; }
      if (sel && !movesFrom(sel).length) { sel = null; pick = null; }
      redraw();
      buttons();
    },
    destroy() {
      ctx.board.removeEventListener("click", onClick);
      ctx.board.classList.remove("gn-tap");
      if (layer) layer.remove();
      layer = null;
      ctx.box.replaceChildren();
    },
  };
}
