// The seat page's controls for the "teka" drawing (seat.js, "Controls modules"): the table
// drawn from the seat's view and turned so this seat sits at the bottom (names, who is to
// act and what they are doing, the calls, the trick, the contract, tricks and score); the
// hand as large cards sorted by suit: tap a card to select it, tap it again to play it; a
// signal is chosen under the selected card (one row, plain by default); the calls as one
// row of buttons; a raise as its own action, confirmed; the last trick on request.
// Everything is built with createElement/textContent; nothing but this seat's view is read.
import { cardText, callText, seatLabel, SUIT_SYMBOL, SUIT_NAME } from "./common.js";

const SHOWN_SUITS = "SHCD";  // (black, red, black, red: neighbouring suits differ in colour)
const RANKS = "AKQJT98765432";
const RED = new Set(["H", "D"]);
const ROW = 7;  // cards in a row of the hand (the CSS grid has as many columns)
const PLACES = ["bottom", "left", "top", "right"];  // by seat relative to this one, in turn order
const SIGNAL_WORDS = {
  "": ["Plain", "no signal"],
  slam: ["Slam", "partner, lead this suit"],
  snap: ["Snap", "lead the other suit of this colour"],
  drop: ["Drop", "I have no more of this suit"],
};
const DOING = {
  throw_in: "deciding", bidding: "bidding", trumps: "naming trumps", play: "playing", cut: "cutting",
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

function button(cls, text, onTap) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onTap);
  return b;
}

function sortHand(cards) {
  return [...cards].sort((a, b) => (SHOWN_SUITS.indexOf(a[1]) - SHOWN_SUITS.indexOf(b[1]))
    || (RANKS.indexOf(a[0]) - RANKS.indexOf(b[0])));
}

function suitWords(s) {
  return `${SUIT_SYMBOL[s] || s} ${SUIT_NAME[s] || s}`;
}

function words(type) {
  // (a command this page has no words for: its type in words, never the identifier)
  const t = String(type).replace(/_/g, " ");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

/** A card face: rank and suit, red suits red; ``tag`` is the element (button in the hand). */
function face(tag, cls, c) {
  const e = el(tag, `${cls} tk-face${RED.has(c[1]) ? " red" : ""}`);
  e.dataset.card = c;
  e.setAttribute("aria-label", cardText(c));
  e.append(el("span", "tk-rank", c[0] === "T" ? "10" : c[0]), el("span", "tk-suit", SUIT_SYMBOL[c[1]] || c[1]));
  return e;
}

export function controls(ctx) {
  const me = ctx.seat;
  const info = ctx.info || {};
  const sides = info.sides && info.sides.length ? info.sides : [[0, 2], [1, 3]];
  const sideOf = (seat) => Math.max(0, sides.findIndex((s) => s.includes(seat)));
  const label = (seat) => seatLabel(ctx.kind, seat);
  const nameOf = (seat) => `${ctx.names()[seat] || label(seat)}`;
  const who = (seat) => (seat === me ? "You" : `${nameOf(seat)} (${label(seat)})`);
  const sideWords = (side) => (info.side_labels || [])[side] || sides[side].map(label).join("-");

  // the table, drawn above the (hidden) SVG board; the hand and the calls in the page's boxes
  const root = el("section", "tk-seat");
  root.setAttribute("aria-label", "the table");
  ctx.board.before(root);
  ctx.board.hidden = true;
  ctx.hand.classList.add("tk-hand");
  const calls = el("div", "tk-calls");
  calls.setAttribute("role", "group");
  calls.setAttribute("aria-label", "your calls");

  let cur = null;  // the last state drawn
  let selected = null;  // the card tapped once
  let signal = "";  // the signal chosen for it ("" plain)
  let sent = null;  // the card or call sent, until the server answers
  let showLast = false;  // the last trick shown on request
  let lastCount = -1;  // tricks completed when drawn (a new one hides the last trick again)
  let raising = false;  // the raise's numbers shown

  const redraw = () => { if (cur) render(cur); };

  function plays(st) {
    // the legal play commands by card (only while this seat is to act)
    const out = new Map();
    if (!st.mine) return out;
    for (const c of st.legal) {
      if (c.type !== "play") continue;
      if (!out.has(c.card)) out.set(c.card, []);
      out.get(c.card).push(c);
    }
    return out;
  }

  function whyNot(st, c) {
    const v = st.view;
    if (st.pending) return "Sending… wait for the answer.";
    if (v.phase === "over") return "The match is over.";
    if (v.phase === "cut") return "The hand is over: the cards are cut for the next deal.";
    if (v.phase !== "play") {
      return v.phase === "trumps" ? "No card is played until trumps are named."
        : "No card is played during the bidding.";
    }
    if (v.raise && v.raise.pending) return "Play waits for the answer to the raise.";
    const toAct = st.toAct || [];
    if (!toAct.includes(me)) return toAct.length ? `It is ${who(toAct[0])}'s turn to play.` : "It is not your turn.";
    const trumps = v.contract && v.contract.trumps;
    const first = !(v.tricks || []).length;
    const trick = v.trick || [];
    if (first && trumps && (v.hand || []).includes(`A${trumps}`)) {
      return "On the first trick the holder of the ace of trumps must play a trump that no card played or still to come can beat.";
    }
    if (!trick.length && first) return `The first trick is led with a trump (${suitWords(trumps)}).`;
    if (trick.length) return `You must follow suit: ${suitWords(trick[0].card[1])}.`;
    return `${cardText(c)} cannot be played now.`;
  }

  async function send(cmd, what) {
    sent = what;
    const answer = await ctx.send(cmd);
    sent = null;
    if (answer && answer.type === "error" && answer.code !== "stale") ctx.say(answer.reason || "The server refused it.");
    else if (answer && answer.type === "error") ctx.say("The table moved on meanwhile: look again.");
    redraw();
    return answer;
  }

  function tapCard(c) {
    const st = cur;
    if (!st || st.pending || sent) return;
    const options = plays(st).get(c);
    if (!options) {
      selected = null;
      ctx.say(whyNot(st, c));
      redraw();
      return;
    }
    if (selected === c) {
      const cmd = options.find((o) => (o.signal || "") === signal) || options[0];
      selected = null;
      ctx.say("");
      send(cmd, c);
      return;
    }
    selected = c;
    signal = "";
    ctx.say(`Tap ${cardText(c)} again to play it${options.length > 1 ? ", or choose a signal first" : ""}.`);
    redraw();
  }

  function chooseSignal(s) {
    if (!cur || cur.pending || sent || !selected) return;
    signal = s;
    const [word, meaning] = SIGNAL_WORDS[s] || [words(s), ""];
    ctx.say(`${cardText(selected)} with ${s ? `${word}: ${meaning}` : "no signal"}. Tap the card again to play it.`);
    redraw();
  }

  async function raiseTo(cmd) {
    const v = cur.view;
    const bid = v.contract ? v.contract.bid : "";
    raising = false;
    const ok = await ctx.confirm(
      `Raise your contract from ${bid} to ${cmd.to} tricks? The opponents may accept or refuse; it cannot be taken back.`,
      `Raise to ${cmd.to}`);
    if (!ok) { ctx.say("No raise."); redraw(); return; }
    send(cmd, "raise");
  }

  // -- drawing ---------------------------------------------------------------------------

  function seatBox(v, st, seat) {
    const toAct = new Set(st.toAct || []);
    const active = toAct.has(seat) && v.phase !== "over";
    const box = el("div", `tk-player tk-${PLACES[(seat - me + 4) % 4]}${active ? " active" : ""}${seat === me ? " me" : ""}`);
    box.dataset.seat = seat;
    box.append(el("div", "tk-name", seat === me ? `You · ${nameOf(seat)}` : nameOf(seat)));
    const line = [label(seat)];
    if (seat === v.sitting_out) line.push("sits out");
    else line.push(`${(v.counts || [])[seat] ?? 0} cards`);
    box.append(el("div", "tk-line", line.join(" · ")));
    const tags = [];
    if (seat === v.dealer) tags.push("Dealer");
    const calls = (v.bids || []).filter((b) => b.seat === seat);
    if (calls.length) {
      const call = calls[calls.length - 1].call;
      tags.push(typeof call === "number" ? `Bid ${call}` : callText(call));
    }
    if (active) tags.push(`${v.raise && v.raise.pending ? "answering the raise" : DOING[v.phase] || "to act"}…`);
    if (tags.length) box.append(el("div", "tk-line tk-tags", tags.join(" · ")));
    return box;
  }

  function trickBox(v) {
    const mid = el("div", "tk-mid");
    const last = v.last_trick;
    let cards = v.trick || [];
    let caption = "";
    let won = null;
    const inPlay = ["play", "cut", "over"].includes(v.phase);
    if (showLast && last) {
      cards = last.cards || [];
      won = last.winner;
      caption = `Last trick: won by ${who(won)}`;
    } else if (!cards.length && inPlay && last) {
      cards = last.cards || [];  // (the trick just completed, with its winner)
      won = last.winner;
      caption = v.phase === "play" ? `Won by ${who(won)}` : "";  // (after the hand: its result)
      mid.classList.add("done");
    }
    for (const t of cards) {
      const f = face("div", `tk-played tk-at-${PLACES[(t.seat - me + 4) % 4]}${t.seat === won ? " won" : ""}`, t.card);
      if (t.signal) f.append(el("span", "tk-signal-tag", (SIGNAL_WORDS[t.signal] || [words(t.signal)])[0]));
      mid.appendChild(f);
    }
    if (!caption) caption = centreWords(v);
    mid.appendChild(el("div", "tk-caption", caption));
    return mid;
  }

  function centreWords(v) {
    const c = v.contract;
    if (v.phase === "throw_in") return "Throw-in question open";
    if (v.phase === "bidding") {
      const nums = (v.bids || []).map((b) => b.call).filter((x) => typeof x === "number");
      if ((v.bids || []).some((b) => typeof b.call === "string" && b.call.startsWith("double"))) return "Bidding: double 13";
      return nums.length ? `Bidding: high bid ${Math.max(...nums)}` : "Bidding";
    }
    if (v.phase === "trumps" && c) return `${who(c.bidder)} ${c.bidder === me ? "name" : "names"} trumps`;
    if (v.phase === "cut" || v.phase === "over") return handResult(v) || (v.phase === "over" ? "Match over" : "");
    return "";
  }

  function handResult(v) {
    const r = (v.sheet || [])[(v.sheet || []).length - 1];
    if (!r) return "";
    const side = sideWords(sideOf(r.bidder));
    const bid = r.double13 ? "double 13" : String(r.bid);
    const won = r.tricks || [0, 0];
    const own = won[sideOf(r.bidder)] ?? 0, other = won[1 - sideOf(r.bidder)] ?? 0;
    return `Hand ${r.hand}: ${side} bid ${bid} and ${r.made ? "made it" : "went down"}, ${own} tricks to ${other}`;
  }

  function infoLine(v) {
    const box = el("div", "tk-info");
    const mine = sideOf(me);
    const c = v.contract;
    if (c) {
      const bid = c.double13 ? "Double 13" : String(c.bid);
      const t = c.trumps ? ` ${suitWords(c.trumps)}` : "";
      const extra = c.raised ? " (raised)" : c.forced ? " (forced)" : "";
      box.append(el("span", "tk-contract", `Contract: ${bid}${t}${extra} · ${who(c.bidder)}`));
    }
    if (v.raise && v.raise.pending) box.append(el("span", "tk-raise", `Raise to ${v.raise.pending} asked`));
    const won = v.tricks_won || [0, 0];
    if (["play", "cut", "over"].includes(v.phase)) box.append(el("span", "", `Tricks: us ${won[mine] ?? 0} · them ${won[1 - mine] ?? 0}`));
    const sc = v.scores || [0, 0];
    const target = (v.options || {}).target;
    box.append(el("span", "", `Score: us ${sc[mine] ?? 0} · them ${sc[1 - mine] ?? 0}${target ? ` · to ${target}` : ""}`));
    box.append(el("span", "", `Hand ${v.hand_number ?? 0}`));
    return box;
  }

  function drawTable(v, st) {
    const tricks = (v.tricks || []).length;
    if (tricks !== lastCount) { showLast = false; lastCount = tricks; }
    const table = el("div", "tk-table");
    for (let seat = 0; seat < 4; seat++) table.appendChild(seatBox(v, st, seat));
    table.appendChild(trickBox(v));
    const tools = el("div", "tk-tools");
    tools.appendChild(infoLine(v));
    if (v.last_trick) {
      const b = button("tk-last", showLast ? "Back to the table" : "Last trick", () => {
        if (!cur || cur.pending) return;
        showLast = !showLast;
        redraw();
      });
      b.setAttribute("aria-pressed", String(showLast));
      b.disabled = st.pending;
      tools.appendChild(b);
    }
    root.replaceChildren(table, tools);
    root.dataset.tricks = tricks;  // (what the page has drawn: the tests wait for it)
    root.dataset.trick = (v.trick || []).length;
  }

  function signalRow(options) {
    const row = el("div", "tk-signals");
    row.setAttribute("role", "radiogroup");
    row.setAttribute("aria-label", `signal with ${cardText(selected)}`);
    const offered = options.map((o) => o.signal || "");
    for (const s of offered) {
      const [word, meaning] = SIGNAL_WORDS[s] || [words(s), ""];
      const b = button(`tk-seg${s === signal ? " on" : ""}`, word, () => chooseSignal(s));
      b.dataset.signal = s || "plain";
      b.title = meaning;
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", String(s === signal));
      b.disabled = cur.pending;
      row.appendChild(b);
    }
    return row;
  }

  function drawHand(v, st) {
    const hand = sortHand(Array.isArray(v.hand) ? v.hand : []);
    const can = plays(st);
    if (selected && (!can.has(selected) || st.pending)) selected = st.pending ? selected : null;
    const dimAll = v.phase === "play";  // (cards are the action only in play)
    const items = [];
    hand.forEach((c, i) => {
      const ok = can.has(c) && !st.pending;
      const cls = ["tk-card"];
      // (dimmed: on this seat's turn strongly, the cards it may not play; lightly, while
      // another seat is to play)
      if (!ok && dimAll && sent !== c) cls.push("off", st.mine ? "no" : "wait");
      if (selected === c) cls.push("selected");
      if (sent === c) cls.push("pending");
      const b = face("button", cls.join(" "), c);
      b.type = "button";
      b.dataset.playable = can.has(c) ? "yes" : "no";
      if (!can.has(c)) b.setAttribute("aria-disabled", "true");
      if (selected === c) b.setAttribute("aria-pressed", "true");
      b.disabled = st.pending;
      b.addEventListener("click", () => tapCard(c));
      items.push(b);
      // the signal row right under the selected card's row
      const rowEnd = Math.min(hand.length, (Math.floor(hand.indexOf(selected) / ROW) + 1) * ROW) - 1;
      if (selected && i === rowEnd && (can.get(selected) || []).length > 1) items.push(signalRow(can.get(selected)));
    });
    ctx.hand.replaceChildren(...items);
  }

  function callLabel(c, v) {
    switch (c.type) {
      case "keep": return "Keep my hand";
      case "throw_in": return "Throw in";
      case "bid": return callText(c.call);
      case "trumps": return suitWords(c.suit);
      case "accept_raise": return `Accept ${v.raise && v.raise.pending ? v.raise.pending : "the raise"}`;
      case "refuse_raise": return "Refuse";
      case "cut": return "Cut the deck";
      default: return words(c.type);
    }
  }

  function drawCalls(v, st) {
    calls.replaceChildren();
    if (!st.mine && !st.pending) { raising = false; return; }
    // (while a command is sent the row stays, every button disabled)
    const cmds = st.legal.filter((c) => c.type !== "play" && c.type !== "raise");
    const raises = st.legal.filter((c) => c.type === "raise");
    let lead = "";
    if (v.phase === "bidding") lead = "Your call:";
    else if (v.phase === "trumps") lead = "Trumps:";
    else if (v.phase === "throw_in") lead = "Nothing above a 10:";
    else if (v.raise && v.raise.pending && cmds.length) lead = `${who(v.contract.bidder)} raises to ${v.raise.pending}:`;
    if (lead && cmds.length) calls.appendChild(el("span", "tk-lead", lead));
    for (const c of cmds) {
      const b = button("tk-call", callLabel(c, v), () => {
        if (!cur || cur.pending || sent) return;
        send(c, JSON.stringify(c));
      });
      b.dataset.command = JSON.stringify(c);
      if (c.type === "trumps" && RED.has(c.suit)) b.classList.add("red");
      if (typeof c.call === "number") b.classList.add("num");
      if (sent === JSON.stringify(c)) b.classList.add("pending");
      b.disabled = st.pending;
      calls.appendChild(b);
    }
    if (raises.length) {
      if (!raising) {
        const b = button("tk-call tk-raise-open", "Raise…", () => {
          if (!cur || cur.pending || sent) return;
          if (raises.length === 1) { raiseTo(raises[0]); return; }
          raising = true;
          ctx.say("Raise your contract to how many tricks?");
          redraw();
        });
        b.dataset.action = "raise";
        b.disabled = st.pending;
        calls.appendChild(b);
      } else {
        calls.appendChild(el("span", "tk-lead", "Raise to:"));
        for (const c of raises) {
          const b = button("tk-call num", String(c.to), () => { if (cur && !cur.pending && !sent) raiseTo(c); });
          b.dataset.command = JSON.stringify(c);
          b.disabled = st.pending;
          calls.appendChild(b);
        }
        calls.appendChild(button("tk-call", "No raise", () => { raising = false; ctx.say(""); redraw(); }));
      }
    } else raising = false;
  }

  function render(st) {
    const v = st.view || {};
    drawTable(v, st);
    drawHand(v, st);
    drawCalls(v, st);
    if (!calls.isConnected) ctx.box.appendChild(calls);
    root.classList.toggle("pending", !!st.pending);
    ctx.hand.classList.toggle("pending", !!st.pending);
  }

  return {
    draw(state) {
      cur = state;
      render(state);
    },
    destroy() {
      root.remove();
      calls.remove();
      ctx.board.hidden = false;
      ctx.hand.classList.remove("tk-hand", "pending");
      ctx.hand.replaceChildren();
    },
  };
}
