// The table socket (docs/protocol.md): one WebSocket to ws/tables/<id>/, reopened after a
// drop with exponential backoff and jitter; commands carry fresh ids and an unanswered
// command is sent again with the same id after a reconnect (§5.4), so it runs at most
// once.

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 10000;
const FLOOD_PAUSE_MS = 15000; // after close code 4429
const CROWDED_PAUSE_MS = 60000; // after 4430: a place frees when another tab closes
const PING_EVERY_MS = 25000;
const SILENCE_LIMIT_MS = 60000; // no message at all for this long: the link is dead
const ANSWER_LIMIT_MS = 20000; // an open socket that leaves a command unanswered this long

const ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `length` characters from A–Z a–z 0–9 _ - (crypto.getRandomValues). */
export function randomToken(length, alphabet = `${ID_CHARS}_-`) {
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  // 64 symbols divide 256 exactly; for the 62-symbol alphabet the bias is negligible here.
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

/** The page's `visibility` note (docs/protocol.md §5.6): whether the player sees the table. */
function visibilityNote() {
  return { type: "visibility", visible: document.visibilityState === "visible" };
}

export class TableSocket {
  /**
   * @param {string} url  ws:// or wss:// URL of the table socket
   * @param {object} handlers  {message(msg), state(name, detail), answered(msg, command)}
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    this.socket = null;
    this.state = "connecting";
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.lastHeard = 0;
    this.prefix = randomToken(8, ID_CHARS);
    this.counter = 0;
    this.pending = new Map(); // id -> {message, resolve, sentAt}
    this.tick = setInterval(() => this.watch(), 5000);
    window.addEventListener("online", () => this.soon());
    document.addEventListener("visibilitychange", () => {
      // The server sends «Ваш ход» by Web Push only while no page of the table is visible.
      this.raw(visibilityNote());
      if (document.visibilityState === "visible") this.soon();
    });
    window.addEventListener("pagehide", () => {
      this.stopped = true;
    });
  }

  setState(name, detail = null) {
    this.state = name;
    this.handlers.state(name, detail);
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped) return;
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      this.raw(visibilityNote());
      this.setState("open");
      // Unanswered commands go again, under their own ids: the server answers a command
      // it already ran with its first answer ("repeat": true) and does not run it twice.
      for (const entry of this.pending.values()) {
        entry.sentAt = Date.now();
        this.raw(entry.message);
      }
    });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket) return;
      this.lastHeard = Date.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (message.type === "snapshot") this.attempt = 0; // a working link: reset the backoff
      if ((message.type === "ack" || message.type === "error") && message.id) {
        const entry = this.pending.get(message.id);
        if (entry) {
          this.pending.delete(message.id);
          this.handlers.answered(message, entry.message);
          entry.resolve(message);
          return;
        }
      }
      this.handlers.message(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (event.code === 4404) {
        this.setState("closed", "not_found");
        this.failPending("not_found");
      } else if (event.code === 4403) {
        this.setState("closed", "forbidden");
        this.failPending("forbidden");
      } else if (event.code === 4440) {
        // The session ended (signed out, password changed): reconnecting cannot help.
        this.setState("closed", "session_ended");
        this.failPending("session_ended");
      } else if (event.code === 4429) {
        this.retry(FLOOD_PAUSE_MS);
      } else if (event.code === 4430) {
        this.retry(CROWDED_PAUSE_MS, "too_many_connections");
      } else {
        this.retry();
      }
    });
  }

  /** Schedule the next attempt: 0.5 s doubling to 10 s, each with jitter (half to all). */
  retry(atLeast = 0, why = null) {
    this.setState("reconnecting", why);
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt);
    this.attempt += 1;
    const delay = Math.max(atLeast, base / 2 + (Math.random() * base) / 2);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** The network is back or the tab is visible again: try now instead of waiting. */
  soon() {
    if (this.stopped || this.state === "closed") return;
    if (!this.socket && this.timer) this.connect();
  }

  /** Drop the link on purpose (to be reopened at once): a dead or stuck connection. */
  restart() {
    if (this.socket) {
      const old = this.socket;
      this.socket = null;
      try {
        old.close();
      } catch (error) {
        /* already closed */
      }
    }
    this.attempt = 0;
    this.retry();
  }

  watch() {
    if (this.stopped || !this.socket || this.socket.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    if (now - this.lastHeard > SILENCE_LIMIT_MS) {
      this.restart();
      return;
    }
    for (const entry of this.pending.values()) {
      if (now - entry.sentAt > ANSWER_LIMIT_MS) {
        this.restart();
        return;
      }
    }
    if (now - this.lastHeard > PING_EVERY_MS) this.raw({ type: "ping" });
  }

  failPending(code) {
    for (const [id, entry] of this.pending) {
      entry.resolve({ type: "error", code, id, message: "" });
    }
    this.pending.clear();
  }

  raw(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** A request without an id (`snapshot`, `ping`, `record`); dropped while offline. */
  request(message) {
    return this.raw(message);
  }

  /**
   * A command: sent with a fresh id (now, or once the socket is open again). Resolves with
   * the `ack` or `error` answering it — never rejects.
   */
  command(type, fields = {}) {
    this.counter += 1;
    const id = `${this.prefix}-${this.counter}`;
    const message = { ...fields, type, id };
    return new Promise((resolve) => {
      this.pending.set(id, { message, resolve, sentAt: Date.now() });
      this.raw(message);
    });
  }

  get busy() {
    return this.pending.size > 0;
  }
}
