// The one client of the game socket (docs/protocol.md, "The pages' socket client"), for the
// game page, the TV, the table page and the seat page. It says hello (as a spectator, or
// with a seat's credential), takes the catch-up and then every event; after a drop it
// connects again and says hello with the last seq it holds, so that nothing is missed and
// nothing comes twice. A heartbeat notices a network that died without closing the socket.
// A seat's commands go through send(): each one is answered once (ok or an error frame); a
// command made while offline is kept and sent on reconnect; a `stale` answer in a
// simultaneous phase is sent again with the new seq while the command is still legal and
// the seat has not played from another device meanwhile.

import { reportError } from "./common.js";

const FIRST_DELAY = 250;
const MAX_DELAY = 4000;
/** A ping goes out after this long without a frame (ms). */
export const PING_IDLE = 2000;
/** Nothing heard this long after a ping (or a socket not open this long): the network is
 * dead; the socket is dropped and a new one made (ms). */
export const DEAD_AFTER = 5000;
const TICK = 500;
const MAX_TRIES = 50;   // sends of one command (each stale answer means the game moved on)
const KEEP_SEATS = 4000; // recent records' seats kept (to know an unanswered command landed)

/** JSON with sorted keys: two commands are the same when their texts are. */
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

const STALE_REASON = "The game moved on before your move arrived: choose again.";
const GONE_REASON = "While the network was away the game moved on: that move is no longer possible.";

export class GameSocket {
  /** path: "/ws/games/<id>/"; lastSeq: the last event already held (0: the whole log);
   * handlers: onEvents(records, frame), onWelcome(frame), onPresence(frame), onBot(frame),
   * onFinished(frame), onError(frame) (errors that answer no command), onOther(frame)
   * (rematch, seat_released...), onState(text) ("connecting", "live", "reconnecting",
   * "finished", "closed"), onQueue() (a command was made, sent or answered).
   * options: hello (fields of the hello: seat, secret or token), keepAfterEnd (stay
   * connected after the game's end: the rematch is told on the socket). */
  constructor(path, lastSeq, handlers, options = {}) {
    this.path = path;
    this.seq = lastSeq || 0;
    this.h = handlers || {};
    this.hello = options.hello || {};
    this.keepAfterEnd = !!options.keepAfterEnd;
    this.ws = null;
    this.delay = FIRST_DELAY;
    this.closed = false;
    this.finished = false;
    this.timer = null;
    this.beat = null;
    this.state = "";
    this.welcomed = false;
    this.ready = false;       // welcomed and caught up (a view came): commands go out
    this.opened = 0;          // when the socket was made
    this.heard = 0;           // when a frame last came
    this.pinged = 0;          // when the unanswered ping went out (0: none)
    this.legal = [];          // this seat's legal commands, to_act and outcome after `seq`
    this.toAct = [];
    this.outcome = null;
    this.viewAt = -1;         // the seq the last view (and legal) is of
    this.seats = new Map();   // seq -> seat of the records held (the recent ones)
    this.queue = [];          // commands not yet answered, in the order made
    this.mine = [];           // [from, to]: seqs appended by this page's own commands (recent)
    this.refs = 0;
    // figures (the tests and benchmarks read them)
    this.frames = 0;
    this.gaps = 0;
    this.reconnects = 0;
    this.hellos = [];         // the last_seq of every hello said
    this.pings = 0;
    this.dead = 0;            // sockets dropped by the heartbeat or the browser's "offline"
    this.resent = 0;          // commands sent again (stale, unanswered, made offline)
    this.listen = {
      online: () => this.wake(),
      offline: () => this.drop(),
      visibilitychange: () => { if (document.visibilityState === "visible") this.tick(); },
    };
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}${this.path}`;
  }

  setState(s) {
    if (this.state === s) return;
    this.state = s;
    this.h.onState?.(s);
  }

  /** Connected, welcomed: the page may say "live" / "connected". */
  get live() {
    return !!this.ws && this.welcomed;
  }

  start() {
    if (this.closed || (this.finished && !this.keepAfterEnd)) return;
    if (!this.beat) {
      this.beat = setInterval(() => this.tick(), TICK);
      addEventListener("online", this.listen.online);
      addEventListener("offline", this.listen.offline);
      document.addEventListener("visibilitychange", this.listen.visibilitychange);
    }
    this.setState(this.reconnects ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      reportError(err);
      this.retry();
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    this.ready = false;
    this.opened = this.heard = Date.now();
    this.pinged = 0;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.heard = Date.now();
      this.hellos.push(this.seq);
      ws.send(JSON.stringify({ type: "hello", ...this.hello, last_seq: this.seq }));
    };
    ws.onmessage = (msg) => {
      if (this.ws !== ws) return;  // (a dropped socket's late frames count for nothing)
      this.heard = Date.now();
      this.pinged = 0;
      try {
        this.frame(JSON.parse(msg.data));
      } catch (err) {
        reportError(err);
      }
    };
    ws.onclose = (ev) => {
      if (this.ws === ws) this.lost(ev.code);
    };
    ws.onerror = () => {};  // (a close follows; the browser logs the failed connection)
  }

  /** The socket is gone (closed, or dropped as dead): commands sent on it and not answered
   * are found out about on the next one; then connect again. */
  lost(code) {
    this.ws = null;
    this.welcomed = false;
    this.ready = false;
    for (const c of this.queue) {
      if (c.ref) { c.ref = null; c.unanswered = true; c.retry = true; }
    }
    if (code === 4001) {  // the seat was handed over: its credential holds nothing now
      this.stop("The seat was handed over.");
      return;
    }
    if (!this.closed && !(this.finished && !this.keepAfterEnd)) this.retry();
    this.h.onQueue?.();
  }

  retry() {
    if (this.closed || this.timer) return;
    this.reconnects += 1;
    this.setState("reconnecting");
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY);
    this.timer = setTimeout(() => { this.timer = null; this.start(); }, wait);
  }

  /** The network is back (the browser says so): connect now. */
  wake() {
    if (this.closed || this.ws || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.delay = FIRST_DELAY;
    this.start();
  }

  /** Give up on the current socket (dead network): close it, and count it gone now. */
  drop() {
    const ws = this.ws;
    if (!ws) return;
    this.dead += 1;
    this.ws = null;
    try { ws.close(); } catch (err) { /* (closing a dead socket may throw) */ }
    this.lost(1006);
  }

  /** The heartbeat: a ping after PING_IDLE without a frame; nothing heard DEAD_AFTER after
   * it (or a socket still not open after PING_IDLE + DEAD_AFTER): dropped. */
  tick() {
    const ws = this.ws;
    if (!ws) return;
    const now = Date.now();
    if (ws.readyState !== WebSocket.OPEN) {
      if (now - this.opened >= PING_IDLE + DEAD_AFTER) this.drop();
      return;
    }
    if (this.pinged) {
      if (now - this.pinged >= DEAD_AFTER) this.drop();
      return;
    }
    if (now - this.heard >= PING_IDLE) {
      this.pings += 1;
      this.pinged = now;
      try {
        ws.send(JSON.stringify({ type: "ping", ref: this.pings }));
      } catch (err) {
        this.drop();
      }
    }
  }

  /** Stop for good; commands not answered get an error with ``reason``. */
  stop(reason) {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.beat) {
      clearInterval(this.beat);
      this.beat = null;
      removeEventListener("online", this.listen.online);
      removeEventListener("offline", this.listen.offline);
      document.removeEventListener("visibilitychange", this.listen.visibilitychange);
    }
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.settleAll({ type: "error", code: "closed", reason: reason || "The page stopped listening to the game." });
    this.setState("closed");
  }

  frame(f) {
    this.frames += 1;
    switch (f.type) {
      case "welcome":
        this.delay = FIRST_DELAY;
        this.welcomed = true;
        this.h.onWelcome?.(f);
        this.setState(this.finished ? "finished" : "live");
        break;
      case "events": {
        let records = f.events || [];
        if (records.length) {
          if (records[0].seq > this.seq + 1) this.gaps += 1;  // (never: the server sends in order)
          records = records.filter((r) => r.seq > this.seq);
          for (const r of records) this.seats.set(r.seq, r.seat);
          if (records.length) this.seq = records[records.length - 1].seq;
          if (this.seats.size > KEEP_SEATS) {
            for (const k of this.seats.keys()) { if (this.seats.size <= KEEP_SEATS / 2) break; this.seats.delete(k); }
          }
        }
        const viewed = "view" in f;
        if (viewed) {
          this.legal = f.legal || [];
          this.toAct = f.to_act || [];
          this.outcome = f.outcome || null;
          this.viewAt = this.seq;
          this.ready = true;
        }
        this.h.onEvents?.(records, f);
        if (viewed) this.pump();
        break;
      }
      case "presence":
        this.h.onPresence?.(f);
        break;
      case "bot":
        this.h.onBot?.(f);
        break;
      case "finished":
        this.finished = true;
        // (a command in flight is answered still: its ok may come after this frame)
        this.settleAll({ type: "error", code: "game_over", reason: "The game is over." }, true);
        this.setState("finished");
        this.h.onFinished?.(f);
        if (!this.keepAfterEnd && this.ws) {
          const ws = this.ws;
          this.ws = null;
          ws.close();
        }
        break;
      case "ok":
        this.answered(f);
        break;
      case "error":
        // (a spectator sends nothing but hello: "malformed" for a last_seq beyond the end)
        if (!this.answered(f)) this.h.onError?.(f);
        break;
      case "pong":
        break;
      default:
        this.h.onOther?.(f);
        break;
    }
  }

  // ------------------------------------------------------------------ a seat's commands

  /** Send a command for the hello's seat; the promise is the answer: {type: "ok", seq} or an
   * error frame {type: "error", code, reason}. Kept while offline; sent when connected. */
  send(command) {
    return new Promise((resolve) => {
      if (this.closed || this.finished) {
        resolve({ type: "error", code: this.finished ? "game_over" : "closed",
          reason: this.finished ? "The game is over." : "Not connected." });
        return;
      }
      const c = {
        command, resolve, key: canonical(command), expected: this.seq, made: this.seq, ref: null, tries: 0,
        after: 0, unanswered: false, offline: !this.ready,
        // a simultaneous phase (several seats to act): another seat's command moves the seq
        // without changing what this one may do; a command made offline or behind another
        // is checked again when its turn to go comes
        retry: this.toAct.length > 1 || !this.ready || this.queue.length > 0,
      };
      this.queue.push(c);
      this.pump();
      this.h.onQueue?.();
    });
  }

  /** Whether ``key`` (a canonical command) is among this seat's legal commands now. */
  isLegal(key) {
    return this.legal.some((l) => canonical(l) === key);
  }

  /** Whether a record after ``from`` is this seat's and came from elsewhere (another
   * device with the same seat, or the seat's bot), not from a command of this page: what the
   * player chose then was chosen for a position that has gone. */
  actedElsewhereSince(from) {
    for (let s = from + 1; s <= this.seq; s++) {
      if (this.seats.get(s) === this.hello.seat && !this.mine.some(([a, b]) => s >= a && s <= b)) return true;
    }
    return false;
  }

  /** Whether a record after ``from`` (up to the seq held) is this seat's. */
  actedSince(from) {
    for (let s = from + 1; s <= this.seq; s++) if (this.seats.get(s) === this.hello.seat) return true;
    return false;
  }

  /** Send the first command waiting, one at a time, when caught up (each decided against the
   * state the socket holds now). */
  pump() {
    const c = this.queue[0];
    if (!c || c.ref || !this.ready || !this.ws) return;
    if (this.seq < c.after || this.viewAt !== this.seq) return;  // (the events the stale answer spoke of are coming)
    if (c.unanswered && this.seq > c.expected && this.actedSince(c.expected)) {
      // sent on a socket that died before its answer, and the log has this seat's move
      this.settle(c, { type: "ok", seq: this.seq, landed: true });
      return;
    }
    if (this.seq === c.expected) { this.transmit(c, c.expected); return; }
    if (c.retry && this.isLegal(c.key) && !this.actedElsewhereSince(c.made)) {
      this.resent += 1;
      this.transmit(c, this.seq);
      return;
    }
    this.settle(c, { type: "error", code: "stale", seq: this.seq,
      reason: c.unanswered || c.offline ? GONE_REASON : STALE_REASON });
  }

  transmit(c, expected) {
    if (c.tries >= MAX_TRIES) {
      this.settle(c, { type: "error", code: "stale", seq: this.seq, reason: STALE_REASON });
      return;
    }
    c.tries += 1;
    c.expected = expected;
    c.ref = `c${++this.refs}`;
    try {
      this.ws.send(JSON.stringify({ type: "command", command: c.command, expected_seq: expected, ref: c.ref }));
    } catch (err) {
      c.ref = null;  // (kept: sent on the next socket)
      c.tries -= 1;
    }
  }

  /** The answer to a command of ours (true), or not ours (false). */
  answered(f) {
    if (f.ref === undefined || f.ref === null) return false;
    const c = this.queue.find((x) => x.ref === f.ref);
    if (!c) return false;
    c.ref = null;
    if (f.type === "error" && f.code === "stale" && c.retry) {
      c.after = typeof f.seq === "number" ? f.seq : this.seq + 1;
      this.pump();
    } else if (f.type === "error" && f.code === "stale") {
      this.settle(c, { ...f, reason: STALE_REASON });
    } else if (f.type === "error" && f.code === "unavailable" && c.tries < 5) {
      // nothing was appended: the same command again, after a moment
      setTimeout(() => this.pump(), 1000);
    } else {
      this.settle(c, f);
    }
    return true;
  }

  settle(c, answer) {
    if (answer.type === "ok" && typeof answer.seq === "number") {
      this.mine.push([c.expected + 1, answer.seq]);
      if (this.mine.length > 64) this.mine.shift();
    }
    const i = this.queue.indexOf(c);
    if (i >= 0) this.queue.splice(i, 1);
    c.resolve(answer);
    this.h.onQueue?.();
    this.pump();
  }

  /** Answer every command waiting (``unsentOnly``: those not in flight) with ``answer``. */
  settleAll(answer, unsentOnly = false) {
    const all = this.queue.filter((c) => !unsentOnly || !c.ref);
    this.queue = this.queue.filter((c) => !all.includes(c));
    for (const c of all) c.resolve({ ...answer });
    if (all.length) this.h.onQueue?.();
  }
}

/** The spectators' name for it (the game page and the TV). */
export { GameSocket as Watcher };
