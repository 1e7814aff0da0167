// The seat page's fallback controls (seat.js, "Controls modules"): each legal command of a
// game without controls of its own as a button, its label from the command's fields.
import { cardText, callText } from "./common.js";

function drawHand(el, view) {
  // (a hand of cards: a list of card names; Tedoku's "hand" is no list)
  const hand = Array.isArray(view.hand) ? view.hand : [];
  el.replaceChildren(...hand.map((c) => {
    const span = document.createElement("span");
    span.className = `card suit-${c[1]}`;
    span.dataset.card = c;
    span.textContent = cardText(c);
    return span;
  }));
}

function label(c) {
  const parts = [];
  for (const [k, v] of Object.entries(c)) {
    if (k === "type") continue;
    if (k === "card") parts.push(cardText(v));
    else if (k === "call") parts.push(callText(v));
    else if (Array.isArray(v)) parts.push(v.map((x) => (typeof x === "string" && x.length === 2 ? cardText(x) : String(x))).join(" "));
    else parts.push(`${k} ${v}`);
  }
  const word = { place: "Place", move: "Move", play: "Play", bid: "Bid", skip: "Skip", keep: "Keep", pass: "Pass" }[c.type] || c.type;
  return parts.length ? `${word} ${parts.join(" ")}` : word;
}

export function controls(ctx) {
  return {
    draw(state) {
      drawHand(ctx.hand, state.view);
      ctx.box.replaceChildren();
      if (!state.mine) return;
      for (const c of state.legal) {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = label(c);
        b.dataset.command = JSON.stringify(c);
        b.addEventListener("click", () => ctx.send(c));
        ctx.box.appendChild(b);
      }
    },
    destroy() { ctx.box.replaceChildren(); ctx.hand.replaceChildren(); },
  };
}
