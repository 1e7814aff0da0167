// The analysis of a finished Teka match in the replay (/api/games/<id>/analysis/,
// docs/protocol.md): "computing… hand 3 of 9" until the server has it, then each costly
// card marked in the move list (? one trick, ?? more), the deal and its par when a hand's
// replay starts, and the par beside each hand's score line.

import { esc, SUIT_SYMBOL, TEKA_SEATS } from "./common.js";

const SUITS = ["S", "H", "D", "C"];
const VERDICT = { overbid: "overbid", underbid: "underbid", exact: "bid to par" };
const OUTCOME = {
  made_as_par: "made, as par says",
  failed_as_par: "down, as par says",
  made_against_par: "made against par (the defence let it through)",
  failed_against_par: "down against par (the play lost it)",
};

/** "?" for a card that cost its side one trick, "??" for more, "" otherwise. */
export function costMark(cost) {
  if (!cost) return "";
  return cost > 1 ? "??" : "?";
}

function cardsText(cards) {
  const by = { S: [], H: [], D: [], C: [] };
  for (const c of cards) by[c[1]].push(c[0] === "T" ? "10" : c[0]);
  return SUITS.filter((s) => by[s].length).map((s) => `${SUIT_SYMBOL[s]}${by[s].join(" ")}`).join("  ");
}

/** "; best ♦A ♦K ♦Q …" (the first three of the best cards, if known). */
function bestText(best) {
  if (!Array.isArray(best) || !best.length) return "";
  const shown = best.slice(0, 3).map((c) => `${SUIT_SYMBOL[c[1]]}${c[0] === "T" ? "10" : c[0]}`);
  return `; best ${shown.join(" ")}${best.length > 3 ? " …" : ""}`;
}

function parValue(v) { return v === null || v === undefined ? "?" : String(v); }

/** The par line of a hand: "par 10 in ♠ (bid 10: bid to par) · ♥ 7 · ♦ 0 · ♣ 0". */
export function parLine(h) {
  const others = SUITS.filter((s) => s !== h.trumps).map((s) => `${SUIT_SYMBOL[s]} ${parValue(h.par_suits[s])}`);
  const call = h.contract.double13 ? "double 13" : `bid ${h.contract.bid}`;
  const verdict = h.verdict ? `: ${VERDICT[h.verdict]}` : "";
  return `par ${parValue(h.par)} in ${SUIT_SYMBOL[h.trumps]} (${call}${verdict}) · ${others.join(" · ")}`;
}

/** The codes of a full queue (429/503 with Retry-After): asked again after the wait. */
const QUEUE_FULL = new Set(["too_many_analyses", "queue_full"]);

/** Poll the analysis until it is ready; ``onNote(text)`` says where it is (text, not
 * markup). Each request says ``watch=1`` while the page is visible: the server analyses the
 * replays people have open first (docs/protocol.md). */
export async function fetchTekaAnalysis(url, onNote, stats) {
  for (;;) {
    let r;
    try {
      r = await fetch(`${url}${url.includes("?") ? "&" : "?"}watch=${document.hidden ? 0 : 1}`);
    } catch {
      onNote("Analysis: the server cannot be reached; trying again…");
      await new Promise((ok) => setTimeout(ok, 3000));
      continue;
    }
    const body = await r.json().catch(() => null);
    if (r.status === 200 && body && Array.isArray(body.hands)) return body;
    if (r.status === 202 && body) {
      stats.analysis = "computing";
      stats.analysisProgress = body.progress;
      onNote(`Analysis: computing… ${body.progress || ""}`);
      await new Promise((ok) => setTimeout(ok, 1000 * (body.retry_after || 2)));
      continue;
    }
    if (body && body.error && QUEUE_FULL.has(body.error.code)) {
      const wait = Math.min(300, Math.max(2, Number(r.headers.get("Retry-After")) || 30));
      stats.analysis = "waiting";
      onNote(`Analysis: not started yet (${body.error.reason}); asking again in ${wait} s…`);
      await new Promise((ok) => setTimeout(ok, 1000 * wait));
      continue;
    }
    const reason = body && body.error ? body.error.reason : `status ${r.status}`;
    onNote(`Analysis not available: ${reason}`);
    stats.analysis = "unavailable";
    return null;
  }
}

/** The analysis laid over the replay's events (``events[seq] = {seq, event}``). */
export class TekaMarks {
  constructor(data) {
    this.data = data;
    this.seq = 0;          // events walked so far
    this.hand = -1;        // index in data.hands of the hand being walked
    this.card = 0;
    this.lastDeal = 0;
    this.bySeq = [];       // bySeq[seq] = the card's analysis (play events)
    this.scored = [];      // scored[seq] = the hand scored there
    this.starts = [];      // [{from, firstPlay, hand}]: a hand's deal and first card (seqs)
  }

  /** Mark the move list's items of the events not walked yet; true if any was walked. */
  annotate(events, items) {
    const from = this.seq;
    while (events[this.seq + 1] && items[this.seq + 1]) {
      const rec = events[++this.seq];
      const t = rec.event.type;
      if (t === "deal") this.lastDeal = rec.seq;
      else if (t === "trumps") {
        this.hand += 1;
        this.card = 0;
        const h = this.data.hands[this.hand];
        if (h) this.starts.push({ from: this.lastDeal, hand: h });
      } else if (t === "score") {
        const h = this.data.hands[this.hand];
        if (h) this.scored[rec.seq] = h;
      } else if (t === "play") {
        const h = this.data.hands[this.hand];
        const c = h ? h.cards[this.card++] : null;
        if (!c) continue;
        const start = this.starts[this.starts.length - 1];
        if (start && start.hand === h && start.firstPlay === undefined) start.firstPlay = rec.seq;
        this.bySeq[rec.seq] = c;
        const mark = costMark(c.cost);
        if (mark) {
          const title = `cost ${c.cost} trick${c.cost > 1 ? "s" : ""}: the declarers ${c.before} → ${c.after} (double-dummy)${bestText(c.best)}`;
          items[rec.seq].firstChild.insertAdjacentHTML("afterbegin",
            `<span class="av lost${c.cost > 1 ? " win_to_loss" : ""}" data-cost="${c.cost}" title="${esc(title)}">${mark}</span>`);
        } else if (c.cost === null) {
          items[rec.seq].firstChild.insertAdjacentHTML("afterbegin", `<span class="av" title="not solved in time">…</span>`);
        }
      }
    }
    return this.seq > from;
  }

  /** The caption's note for event ``seq`` (a card played, a hand scored). */
  note(seq) {
    const h = this.scored[seq];
    if (h) return ` \u2014 ${parLine(h)}${h.outcome ? `; ${OUTCOME[h.outcome]}` : ""}`;
    const c = this.bySeq[seq];
    if (!c || c.cost === undefined) return "";
    if (c.cost === null) return " \u2014 not solved in time";
    if (!c.cost) return ` \u2014 declarers ${c.after}`;
    return ` \u2014 ${costMark(c.cost)} cost ${c.cost} trick${c.cost > 1 ? "s" : ""} (declarers ${c.before} \u2192 ${c.after}${bestText(c.best)})`;
  }

  /** The hand whose events from its deal to its opening lead hold ``seq``, if any. */
  startOf(seq) {
    for (const s of this.starts) {
      if (seq >= s.from && (s.firstPlay === undefined || seq < s.firstPlay)) return s.hand;
    }
    return null;
  }

  /** The four hands of the deal and the par, when a hand's replay starts (else ""). */
  dealPanel(seq, names) {
    const h = this.startOf(seq);
    if (!h) return "";
    const rows = h.deal.map((cards, seat) => {
      const who = `${esc(names[seat] || "")} (${TEKA_SEATS[seat]})`;
      const out = seat === h.sitting_out ? " · sits out" : "";
      return `<li data-seat="${seat}"><b>${who}</b>${out} <span class="cards">${esc(cardsText(cards))}</span></li>`;
    }).join("");
    return `<h3>Hand ${esc(h.hand)}: the deal</h3><ul class="deal-hands">${rows}</ul>`
      + `<p class="par" data-par="${parValue(h.par)}">${esc(parLine(h))}</p>`;
  }

  /** Add a "Par" column to the score sheet's table (its rows are the hands scored). */
  decorateSheet(box) {
    const table = box.querySelector("table.sheet-table");
    if (!table || table.dataset.par) return;
    table.dataset.par = "1";
    const rows = table.querySelectorAll("tr");
    rows.forEach((tr, i) => {
      const cell = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) cell.textContent = "Par";
      else {
        const h = this.data.hands.filter((x) => x.result)[i - 1];
        if (h) {
          cell.textContent = parValue(h.par);
          cell.className = `par ${h.outcome || ""}`;
          cell.dataset.par = parValue(h.par);
          cell.title = `${parLine(h)}; ${OUTCOME[h.outcome] || ""}`;
        }
      }
      tr.appendChild(cell);
    });
  }

  /** One line for the page: tricks lost to play per player and the hands that swung it. */
  summary(names) {
    const s = this.data.summary;
    const players = s.players.map((p) => `${esc(names[p.seat] || TEKA_SEATS[p.seat])} <b>${p.tricks_lost}</b>`).join(" · ");
    const cut = this.data.cut_short.length ? ` · ${this.data.cut_short.length} figures not solved in time` : "";
    const swings = s.swings.length ? ` · hands off par: ${s.swings.join(", ")}${s.decisive.length ? ` (decided the match: ${s.decisive.join(", ")})` : ""}` : "";
    return `Double-dummy, tricks lost to play: ${players}${swings}${cut}`;
  }
}
