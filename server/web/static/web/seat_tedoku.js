// Tedoku's controls on the seat page (seat.js, "Controls modules"; docs/web.md "Tedoku on the
// phone"): the seat's own sheet full width with its row (A-I) and column (1-9) labels and the
// card's row, column or sector lit; the rolled shape (the wild face's choice, a bonus shape)
// with Rotate and Flip; a tap on a cell shows a ghost of the shape there (green: it may be
// drawn there; red: why not), a second tap on the same cell (or "Draw it here") draws it.
// Only a command of the seat's legal list is ever sent, and only the seat's own sheet is
// drawn (the others' appear as a name, a score and whether they have drawn).

const ROWS = "ABCDEFGHI";
const TETROMINOES = ["O", "I", "T", "L", "S"];
const BONUS = ["B1", "B2", "B4"];
const WILD = "W";
const BASE = {
  O: [[0, 0], [0, 1], [1, 0], [1, 1]],
  I: [[0, 0], [0, 1], [0, 2], [0, 3]],
  T: [[0, 0], [0, 1], [0, 2], [1, 1]],
  L: [[0, 0], [1, 0], [2, 0], [2, 1]],
  S: [[0, 1], [0, 2], [1, 0], [1, 1]],
  B1: [[0, 0]],
  B2: [[0, 0], [0, 1]],
  B4: [[0, 0], [0, 1], [1, 0], [1, 1]],
};
const SHAPE_NAME = { O: "O", I: "I", T: "T", L: "L", S: "S", B1: "1×1 bonus", B2: "2×1 bonus", B4: "2×2 bonus" };
const SHAPE_SHORT = { B1: "1×1", B2: "2×1", B4: "2×2" };

const cellName = (r, c) => ROWS[r] + (c + 1);

/** Cells moved to the top-left corner, in reading order. */
function normal(cells) {
  const r0 = Math.min(...cells.map((p) => p[0]));
  const c0 = Math.min(...cells.map((p) => p[1]));
  return cells.map(([r, c]) => [r - r0, c - c0]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
const turned = (cells) => normal(cells.map(([r, c]) => [c, -r]));  // a quarter turn clockwise
const mirrored = (cells) => normal(cells.map(([r, c]) => [r, -c]));
const formKey = (cells) => cells.map((p) => p.join(",")).join(" ");

/** Every distinct orientation of a shape. */
function orientations(shape) {
  const out = new Map();
  let o = normal(BASE[shape]);
  for (let k = 0; k < 8; k++) {
    if (k === 4) o = mirrored(o);
    out.set(formKey(o), o);
    o = turned(o);
  }
  return [...out.values()];
}

/** A card in words: "row C", "column 4", "sector 5". */
function cardWords(card) {
  const [k, v] = String(card || "").split(":");
  return { row: `row ${v}`, col: `column ${v}`, sector: `sector ${v}` }[k] || "";
}

function inCard(card, r, c) {
  const [k, v] = String(card || "").split(":");
  if (k === "row") return ROWS[r] === v;
  if (k === "col") return String(c + 1) === v;
  if (k === "sector") return String(Math.floor(r / 3) * 3 + Math.floor(c / 3) + 1) === v;
  return false;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A small drawing of a form (a grid of squares). */
function miniature(cells, size) {
  const h = Math.max(...cells.map((p) => p[0])) + 1;
  const w = Math.max(...cells.map((p) => p[1])) + 1;
  const box = el("span", "tdk-mini");
  box.style.gridTemplateColumns = `repeat(${w}, ${size}px)`;
  box.style.gridTemplateRows = `repeat(${h}, ${size}px)`;
  const on = new Set(cells.map((p) => p.join(",")));
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) box.appendChild(el("span", on.has(`${r},${c}`) ? "on" : "off"));
  }
  box.setAttribute("aria-hidden", "true");
  return box;
}

export function controls(ctx) {
  const root = el("section", "tdk");
  root.setAttribute("aria-label", "your sheet");
  ctx.board.before(root);
  ctx.board.hidden = true;  // (the sheets of all: here the seat's own, full width)
  let last = null;          // the last state drawn
  let turn = null;          // its turn: choices are reset when it changes
  let shape = null;         // the shape chosen
  const forms = {};         // shape -> its orientation now (kept from turn to turn)
  let ghost = null;         // {r, c, cells, ok, cmd}
  let sent = null;          // {cmd, cells, seq (the answer's), at (seq when sent)}
  let retry = null;         // a command answered "stale", sent again once the game moved
  let retries = 0;

  const formOf = (s) => (forms[s] ||= normal(BASE[s]));
  const say = (t) => ctx.say(t);

  function legalMap(state) {
    const m = new Map();
    for (const c of state.legal) if (c.type === "place") m.set(`${c.shape}|${c.cells.join(",")}`, c);
    return m;
  }
  const canSkip = (state) => state.legal.some((c) => c.type === "skip");
  const myPlayer = (view) => (view.players || []).find((p) => p.seat === ctx.seat) || null;

  /** The shapes this seat may draw now: the rolled ones, then its unused bonus shapes. */
  function allowed(view, me) {
    const rolled = view.die === WILD ? [...TETROMINOES] : view.die && BASE[view.die] ? [view.die] : [];
    const out = [...rolled];
    for (const b of BONUS) {
      if ((me?.bonus_left || []).includes(b) && !(b === "B4" && rolled.includes("O"))) out.push(b);
    }
    return out;
  }

  const blocked = (state) => !state || !state.mine || state.pending || !!sent || !!retry;

  /** The ghost of the chosen shape, in its orientation, on the tapped cell: the first way of
   * laying it over that cell that is a legal command, else the nearest miss and why. */
  function ghostAt(state, r, c) {
    const view = state.view;
    const rows = myPlayer(view)?.sheet || [];
    const filled = (rr, cc) => (rows[rr] || "")[cc] === "#" || (rows[rr] || "")[cc] === "*";
    const legal = legalMap(state);
    const find = (form) => {
      let best = null;
      for (const [ar, ac] of form) {
        const cells = form.map(([dr, dc]) => [r + dr - ar, c + dc - ac]);
        const inside = cells.filter(([rr, cc]) => rr >= 0 && rr < 9 && cc >= 0 && cc < 9);
        const names = inside.map(([rr, cc]) => cellName(rr, cc));
        const cmd = legal.get(`${shape}|${names.join(",")}`);
        if (cmd && inside.length === cells.length) return { r, c, cells: inside, ok: true, cmd };
        let why = 3, reason = "it cannot be drawn there";
        if (inside.length < cells.length) { why = 2; reason = "it would go off the sheet"; }
        else if (inside.some(([rr, cc]) => filled(rr, cc))) { why = 1; reason = "it overlaps a filled cell"; }
        else if (!inside.some(([rr, cc]) => inCard(view.card, rr, cc))) { why = 0; reason = `it must touch ${cardWords(view.card)}`; }
        if (!best || why < best.why) best = { r, c, cells: inside, ok: false, why, reason };
      }
      return best;
    };
    const g = find(formOf(shape));
    if (g.ok) return g;
    if (filled(r, c)) g.reason = `${cellName(r, c)} is already filled`;
    else if (orientations(shape).some((o) => formKey(o) !== formKey(formOf(shape)) && find(o).ok)) {
      g.reason += " (turned or flipped, it fits here)";
    }
    return g;
  }

  function place(cmd, cells) {
    if (!last || blocked(last)) return;
    sent = { cmd, cells, seq: null, at: last.seq };
    ghost = null;
    say("");
    ctx.send(cmd).then((answer) => {
      if (!sent || sent.cmd !== cmd) return;
      if (answer.type === "ok") {
        sent.seq = answer.seq ?? sent.at + 1;
      } else if (answer.code === "stale" && retries < 20) {
        // (another seat drew at the same moment: sent again once the game has moved on,
        // while it is still legal)
        retries += 1;
        retry = { cmd, cells, at: sent.at };
        sent = null;
      } else {
        sent = null;
        say(answer.reason || "The server refused it.");
      }
      if (last) render(last);
    });
  }

  function tapCell(r, c) {
    const state = last;
    if (blocked(state) || !shape) return;
    if (ghost && ghost.ok && ghost.r === r && ghost.c === c) { place(ghost.cmd, ghost.cells); return; }
    ghost = ghostAt(state, r, c);
    say(ghost.ok
      ? `Tap ${cellName(r, c)} again to draw the ${SHAPE_NAME[shape]} there.`
      : `Does not fit: ${ghost.reason}.`);
    render(state);
  }

  function turnForm(how) {
    if (blocked(last) || !shape) return;
    forms[shape] = how(formOf(shape));
    if (ghost) ghost = ghostAt(last, ghost.r, ghost.c);
    if (ghost) say(ghost.ok ? `Tap ${cellName(ghost.r, ghost.c)} again to draw it there.` : `Does not fit: ${ghost.reason}.`);
    render(last);
  }

  async function skip() {
    if (blocked(last)) return;
    const name = SHAPE_NAME[last.view.die] || "rolled shape";
    const sure = await ctx.confirm(`The ${last.view.die === WILD ? "wild shape" : name} fits nowhere near ${cardWords(last.view.card)}. Skip this turn?`, "Skip");
    if (sure && last && !blocked(last) && canSkip(last)) place({ type: "skip" }, []);
  }

  function statusLine(view) {
    const line = el("div", "tdk-status");
    const names = ctx.names();
    line.appendChild(el("span", "tdk-turn", view.turn ? `Turn ${view.turn} of ${view.turns}` : "Not started"));
    for (const p of view.players || []) {
      const mine = p.seat === ctx.seat;
      const chip = el("span", `tdk-player${mine ? " me" : ""}${p.placed ? " done" : ""}`);
      chip.dataset.seat = p.seat;
      const total = (p.score || {}).total ?? 0;
      const who = mine ? "You" : names[p.seat] || `Seat ${p.seat + 1}`;
      const doing = view.outcome || !view.turn ? "" : p.placed ? " ✓" : " …";
      chip.textContent = `${who} ${total}${doing}`;
      chip.title = `${who}: ${total} points${p.placed ? ", drawn" : view.outcome ? "" : ", drawing"}`;
      line.appendChild(chip);
    }
    return line;
  }

  /** A tool button: a glyph over a word. */
  function tool(cls, glyph, word, label, off, act) {
    const b = el("button", `tdk-tool ${cls}`);
    b.type = "button";
    b.append(el("span", "tdk-glyph", glyph), el("span", "", word));
    b.setAttribute("aria-label", label);
    b.disabled = off;
    b.addEventListener("click", act);
    return b;
  }

  // The card and the die, then the shape as it will be drawn with Rotate and Flip; where
  // there is a choice (the wild face, bonus shapes) one button a shape, the chosen one
  // showing how it is turned.
  function shapePanel(state, me, shapes) {
    const view = state.view;
    const panel = el("div", "tdk-shape");
    const off = blocked(state);
    const head = el("div", "tdk-head");
    const card = cardWords(view.card);
    const die = view.die === WILD ? "wild" : SHAPE_NAME[view.die] || "—";
    const words = el("div", "tdk-card");
    words.append(el("span", "", card ? `Card: ${card}` : ""), el("span", "", ` · Die: ${die}`));
    head.appendChild(words);
    panel.appendChild(head);
    if (!shape) return panel;
    const form = formOf(shape);
    const preview = miniature(form, shapes.length > 1 ? 7 : 9);
    preview.classList.add("tdk-preview");
    preview.dataset.shape = shape;
    preview.dataset.form = formKey(form);
    if (shapes.length <= 1) {
      const box = el("span", "tdk-single");
      box.setAttribute("aria-label", `${SHAPE_NAME[shape]} as it will be drawn`);
      box.appendChild(preview);
      head.appendChild(box);
    }
    head.appendChild(tool("tdk-rotate", "⟳", "turn", "Rotate the shape",
      off || orientations(shape).length < 2, () => turnForm(turned)));
    head.appendChild(tool("tdk-flip", "⇋", "flip", "Flip the shape",
      off || formKey(mirrored(form)) === formKey(form), () => turnForm(mirrored)));
    if (shapes.length > 1) {
      const pick = el("div", "tdk-pick");
      pick.setAttribute("role", "group");
      pick.setAttribute("aria-label", "the shape to draw");
      const legal = state.legal.filter((c) => c.type === "place");
      for (const s of shapes) {
        const b = el("button", `tdk-choice${s === shape ? " on" : ""}`);
        b.type = "button";
        b.dataset.shape = s;
        b.disabled = off;
        b.setAttribute("aria-pressed", String(s === shape));
        b.append(s === shape ? preview : miniature(normal(BASE[s]), 7), el("span", "", SHAPE_SHORT[s] || s));
        if (!legal.some((c) => c.shape === s)) b.classList.add("nofit");
        b.title = SHAPE_NAME[s];
        b.addEventListener("click", () => {
          if (blocked(last)) return;
          shape = s;
          ghost = null;
          say(`The ${SHAPE_NAME[s]}: tap a cell to try it there.`);
          render(last);
        });
        pick.appendChild(b);
      }
      panel.appendChild(pick);
    }
    return panel;
  }

  function sheet(state, me) {
    const view = state.view;
    const rows = me?.sheet || [];
    const grid = el("div", `tdk-sheet${blocked(state) ? " locked" : ""}`);
    grid.setAttribute("role", "grid");
    const hist = me?.history || [];
    const lastDrawn = new Set(hist.length && hist.length === view.turn - 1 ? (hist[hist.length - 1].cells || []) : []);
    const ghostCells = new Map((ghost?.cells || []).map(([r, c]) => [cellName(r, c), ghost.ok ? "ghost-ok" : "ghost-bad"]));
    const sending = new Set((sent || retry)?.cmd?.cells || []);
    grid.appendChild(el("span", "tdk-lab corner"));
    const [ck, cv] = view.outcome ? [] : String(view.card || "").split(":");
    for (let c = 0; c < 9; c++) {
      grid.appendChild(el("span", `tdk-lab col${ck === "col" && cv === String(c + 1) ? " target" : ""}`, String(c + 1)));
    }
    const off = blocked(state);
    for (let r = 0; r < 9; r++) {
      grid.appendChild(el("span", `tdk-lab row${ck === "row" && cv === ROWS[r] ? " target" : ""}`, ROWS[r]));
      for (let c = 0; c < 9; c++) {
        const name = cellName(r, c);
        const ch = (rows[r] || "")[c];
        const b = el("button", "tdk-cell");
        b.type = "button";
        b.dataset.cell = name;
        let what = "empty";
        if (ch === "#") { b.classList.add("filled"); what = "filled"; }
        if (ch === "*" || sending.has(name)) { b.classList.add("pending"); what = "drawn, not yet shown"; }
        if (!view.outcome && view.card && inCard(view.card, r, c)) b.classList.add("target");
        if (lastDrawn.has(name)) b.classList.add("last");
        if (ghostCells.has(name)) { b.classList.add(ghostCells.get(name)); what += ghost.ok ? ", fits" : ", does not fit"; }
        if (c === 2 || c === 5) b.classList.add("se-r");
        if (r === 2 || r === 5) b.classList.add("se-b");
        b.setAttribute("aria-label", `${name} ${what}`);
        b.disabled = off;
        b.addEventListener("click", () => tapCell(r, c));
        grid.appendChild(b);
      }
    }
    return grid;
  }

  function actions(state) {
    const out = [];
    if (blocked(state)) return out;
    if (ghost && ghost.ok) {
      const b = el("button", "tdk-draw", "Draw it here");
      b.type = "button";
      b.addEventListener("click", () => place(ghost.cmd, ghost.cells));
      out.push(b);
    }
    if (canSkip(state)) {
      const b = el("button", "tdk-skip", "Skip this turn");
      b.type = "button";
      b.addEventListener("click", skip);
      out.push(b);
    }
    return out;
  }

  function render(state) {
    last = state;
    const view = state.view || {};
    const me = myPlayer(view);
    if (view.turn !== turn) {  // a new card: a fresh choice
      turn = view.turn;
      ghost = null;
      retry = null;
      retries = 0;
      if (sent && sent.seq === null) sent = null;
      shape = null;
    }
    if (sent && sent.seq !== null && state.seq >= sent.seq) sent = null;  // (shown by the view now)
    if (retry && !state.pending && state.seq > retry.at) {
      const again = retry;
      retry = null;
      const still = again.cmd.type === "skip" ? canSkip(state)
        : legalMap(state).has(`${again.cmd.shape}|${again.cmd.cells.join(",")}`);
      if (still && state.mine) { place(again.cmd, again.cells); return; }
      if (!me?.placed) say("It could not be drawn: the game moved on. Try again.");
    }
    const shapes = state.mine || sent || retry ? allowed(view, me) : [];
    if (!shapes.includes(shape)) {
      const legal = state.legal.filter((c) => c.type === "place");
      shape = shapes.find((s) => legal.some((c) => c.shape === s)) || shapes[0] || null;
      if (shape && state.mine) {
        say(legal.length ? `Card: ${cardWords(view.card)}. Tap a cell to try the ${SHAPE_NAME[shape]} there.`
          : `Nothing fits near ${cardWords(view.card)} this turn.`);
      }
    }
    if (ghost && !blocked(state)) {  // (the same ghost, against the state now)
      ghost = ghostAt(state, ghost.r, ghost.c);
    } else if (blocked(state)) ghost = null;
    if (me?.placed && !view.outcome && !sent) say("Drawn: waiting for the others.");
    if (view.outcome) say("");
    const parts = [statusLine(view)];
    if (view.outcome && me) {  // how the seat's own total was made
      const sc = me.score || {};
      const n = (k, one) => `${sc[k] ?? 0} ${one}${sc[k] === 1 ? "" : "s"}`;
      parts.push(el("div", "tdk-score", `You: ${n("sectors", "sector")} (3 each), ${n("rows", "row")}, `
        + `${n("cols", "column")}${sc.bonus ? `, bonus +${sc.bonus}` : ""}: ${sc.total ?? 0} points`));
    }
    if (!view.outcome && (state.mine || sent || retry)) parts.push(shapePanel(state, me, shapes));
    else if (!view.outcome && view.card) {
      const head = el("div", "tdk-card");
      head.textContent = `Card: ${cardWords(view.card)}`;
      parts.push(head);
    }
    parts.push(sheet(state, me));
    root.replaceChildren(...parts);
    ctx.box.replaceChildren(...actions(state));
  }

  return {
    draw(state) {
      ctx.hand.replaceChildren();
      render(state);
    },
    destroy() {
      root.remove();
      ctx.board.hidden = false;
      ctx.box.replaceChildren();
    },
  };
}
