// The story told on the table page (/games/<id>/table/), the shared screen at a table: the
// board, the last move in words ("Ann played 9♠"), the trick just won and the last hand's
// result, what the seats to act are doing ("Bob is bidding"), the score sheet of a game that
// keeps one, and at the end the result line. Every sentence is the server's
// (/api/games/<id>/words/?now=1, core/words.py); the page only shows them.
import { update, sheetOf } from "./boards.js";
import { fetchWords, infoOf, playerNames, reportError } from "./common.js";

const $ = (id) => document.getElementById(id);

/** ``game``: the page's game (its seats for the names, updated by the page). Returns
 * {events(records, frame), finished()} for the game socket's frames. */
export function tableStory(game) {
  const stats = (window.gnStory = { seq: 0, worded: 0, finished: false });
  let view = null;
  let want = 0;         // the last event the screen shows (its words asked for)
  let asking = false;
  let redo = false;     // (asked again once the answer in flight is in: the game ended)
  let over = false;

  function say(id, text) {
    const el = $(id);
    if (el && el.textContent !== text) el.textContent = text;
    if (el) el.hidden = !text;
  }

  function sheet() {
    const box = $("sheet");
    if (!box || !view || !infoOf(game.kind).board.sheet) return;
    // (boards.js builds the sheet's markup, every value through esc())
    box.innerHTML = sheetOf(game.kind, view);
    box.hidden = false;
    box.scrollTop = box.scrollHeight;  // (the latest hand in sight)
  }

  async function word() {
    if (asking || !want) return;
    asking = true;
    const at = want;
    try {
      const body = await fetchWords(`/api/games/${game.id}/words/`, at, at, true);
      if (at === want) {
        say("last", body.texts[0] ? `Last move: ${body.texts[0]}` : "");
        const now = body.now || {};
        say("trick", now.trick || "");
        say("hand-result", now.hand || "");
        say("status", over ? "" : now.doing || "");
        if (body.result) end(body.result);
        stats.worded = at;
      }
    } catch (err) {
      // (the server away: the next event asks again)
    } finally {
      asking = false;
      if (want !== at || redo) { redo = false; word(); }
    }
  }

  function end(result) {
    over = true;
    stats.finished = true;
    say("status", "");
    if (result) say("outcome", result);
    const conn = $("conn");
    if (conn) { conn.textContent = "game over"; conn.dataset.state = "over"; }
  }

  return {
    events(records, f) {
      if (!("view" in f)) return;
      view = f.view;
      update($("board"), game.kind, view, playerNames(game), {});
      sheet();
      stats.seq = f.to || stats.seq;
      if (f.outcome) over = true;
      if (f.to) { want = f.to; word().catch(reportError); }
    },
    finished() {
      over = true;
      end("");
      if (asking) redo = true;
      else if (stats.seq) { want = stats.seq; word().catch(reportError); }
    },
    /** The players' names changed (a phone joined, a seat handed over): the board and the
     * words say the new ones. */
    names() {
      if (view) update($("board"), game.kind, view, playerNames(game), {});
      if (!want) return;
      if (asking) redo = true;
      else word().catch(reportError);
    },
    /** Whether the game is over (the connection line then says so, never "live"). */
    get over() { return over; },
  };
}
