// A spectator on the game socket (docs/protocol.md, "Game socket"): hello without a seat,
// catch-up, live events; after a drop it connects again and says hello with the last seq
// it holds, so that nothing is missed and nothing comes twice.

import { reportError } from "./common.js";

const MAX_DELAY = 4000;

export class Watcher {
  /** handlers: onEvents(records, frame), onPresence(frame), onBot(frame), onFinished(frame),
   * onState(text) ("connecting", "live", "reconnecting", "finished"). */
  constructor(path, lastSeq, handlers) {
    this.path = path;
    this.seq = lastSeq || 0;
    this.h = handlers;
    this.ws = null;
    this.delay = 250;
    this.closed = false;
    this.finished = false;
    this.frames = 0;
    this.gaps = 0;
    this.reconnects = 0;
    this.timer = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}${this.path}`;
  }

  start() {
    if (this.closed) return;
    this.h.onState?.(this.reconnects ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      reportError(err);
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", last_seq: this.seq }));
    ws.onmessage = (msg) => {
      try {
        this.frame(JSON.parse(msg.data));
      } catch (err) {
        reportError(err);
      }
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      if (!this.closed && !this.finished) this.retry();
    };
    ws.onerror = () => {};  // (a close follows; the browser logs the failed connection)
  }

  retry() {
    if (this.closed || this.timer) return;
    this.reconnects += 1;
    this.h.onState?.("reconnecting");
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, MAX_DELAY);
    this.timer = setTimeout(() => { this.timer = null; this.start(); }, wait);
  }

  stop() {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) this.ws.close();
    this.ws = null;
  }

  frame(f) {
    this.frames += 1;
    switch (f.type) {
      case "welcome":
        this.delay = 250;
        this.h.onWelcome?.(f);
        this.h.onState?.("live");
        break;
      case "events": {
        let records = f.events || [];
        if (records.length) {
          if (records[0].seq > this.seq + 1) this.gaps += 1;  // (never: the server sends in order)
          records = records.filter((r) => r.seq > this.seq);
          if (records.length) this.seq = records[records.length - 1].seq;
        }
        this.h.onEvents?.(records, f);
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
        this.h.onState?.("finished");
        this.h.onFinished?.(f);
        if (this.ws) this.ws.close();
        break;
      case "error":
        // (a spectator sends nothing but hello: "malformed" for a last_seq beyond the end)
        this.h.onError?.(f);
        break;
      default:
        break;
    }
  }
}
