// The live table page's core (the protocol: docs/protocol.md). It keeps the table socket,
// merges snapshot/update frames into one state, and draws what every variant shares: the
// connection indicator, the seats, whose turn it is and the decision clock, the action bar,
// the log and the live region, the table controls, the fairness panel. The variant's own
// module (static/js/table/variants/<variant>.js) draws the game area.

import * as cards from "../cards.js";
import { createAlerts } from "./alerts.js";
import { createChat } from "./chat.js";
import { createCoach } from "./coach.js";
import { randomToken, TableSocket } from "./connection.js";
import { clockText, fill, fmt, formatNumber, h, plural, t } from "./dom.js";
import { dockCoversFelt, mountLandscape } from "./landscape.js";
import { mountZoom } from "./zoom.js";
import {
  ANNOUNCED,
  DEFAULT_SHORTCUTS,
  actionLabel,
  aiLabel,
  aiLevelName,
  describeEvent,
  seatName,
  tableMetaText,
} from "./text.js";

const LOG_LINES = 30;
const OFFSET_SAMPLES = 20;
const SNAPSHOT_RETRY_MS = 4000;
const VERSION_WAIT_MS = 3000;
// Refusals of the page's own automatic client seed that need no word to the player.
const QUIET_SEED_CODES = new Set(["seed_given", "no_shuffle", "not_seated"]);
// A client seed as the server takes it (games/fairness.py CLIENT_SEED, docs/protocol.md §5.5).
const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;

const config = JSON.parse(document.getElementById("table-config").textContent);
const root = document.getElementById("table-page");
const $ = (id) => document.getElementById(id);
const ui = {
  connection: $("connection"),
  status: $("table-status"),
  seats: $("seats"),
  turn: $("turn"),
  clock: $("clock"),
  clockText: $("clock-text"),
  area: $("game-area"),
  error: $("error"),
  actions: $("actions"),
  controls: $("table-controls"),
  closeDialog: $("close-dialog"),
  log: $("log"),
  announce: $("announce"),
  fairness: $("fairness-facts"),
  seedForm: $("own-seed"),
  seedInput: $("own-seed-input"),
  seedForget: $("own-seed-forget"),
  seedStatus: $("own-seed-status"),
};

// --- the state ------------------------------------------------------------------------------

let variant = {}; // the variant module
let frame = null; // the latest picture: {table, game, you, version, server_time}
let fresh = true; // the next snapshot is applied whatever its version (a new connection)
let awaitingSnapshot = false;
let snapshotTimer = null;
const offsets = []; // server_time − local time, measured on recent frames (§8.2)
let offset = 0;
let inflight = 0; // the player's commands not answered yet
let waitVersion = 0; // an ack's version not yet shown by a frame
let waitTimer = null;
let actionsKey = null;
let lastActionFocus = null; // the action bar's control that had focus (clicked controls are rebuilt)
let controlsKey = null;
let sitPending = new URLSearchParams(location.search).get("sit") === "1";
const seedsSent = new Map(); // commitment -> the client seed this page sent for it
const clockTotals = new Map(); // deadline -> the decision's whole length, for the bar
const sayBuffer = [];
// «Ваш ход» in another tab, sounds and vibration (static/js/table/alerts.js).
const alerts = createAlerts({ config });
// The coach (blackjack and solo only): its answers come after the frame, so it says
// what it has to say at once.
const coach = createCoach({
  config,
  say: (text) => {
    say(text);
    flushSay();
  },
});

function now() {
  return Date.now() + offset;
}

function me() {
  return frame && frame.you ? frame.you.seat : null;
}

function playing() {
  return Boolean(frame && frame.game && frame.game.status === "playing");
}

// --- the socket ---------------------------------------------------------------------------

function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = config.invite ? `?invite=${encodeURIComponent(config.invite)}` : "";
  return `${scheme}//${location.host}${config.ws_path}${query}`;
}

const socket = new TableSocket(socketUrl(), {
  message: onMessage,
  answered: onAnswered,
  state: onConnection,
});

// The table chat (static/js/table/chat.js): its frames and its errors are its own.
const chat = createChat({ socket });

function onConnection(state, detail) {
  root.dataset.state = state;
  ui.connection.dataset.state = state;
  const text =
    state === "reconnecting" && detail === "too_many_connections"
      ? t("Открыто слишком много вкладок с игрой: закройте лишние, переподключимся через минуту.")
      : {
          connecting: t("Подключение…"),
          open: t("На связи"),
          reconnecting: t("Связь потеряна, переподключаемся…"),
          closed: t("Нет связи"),
        }[state];
  fill(ui.connection, h("span", { class: "connection-dot", "aria-hidden": "true" }), h("span", { class: "connection-text" }, text));
  if (state === "open") fresh = true;
  if (state === "closed") {
    showError(
      {
        forbidden: t("Это частный стол: откройте его по ссылке-приглашению."),
        session_ended: t("Вы вышли из аккаунта: войдите снова и обновите страницу."),
      }[detail] ?? t("Такого стола нет."),
    );
  }
  refreshBusy();
}

function onMessage(message) {
  switch (message.type) {
    case "snapshot":
      if (!fresh && frame && message.version < frame.version) return;
      fresh = false;
      awaitingSnapshot = false;
      clearTimeout(snapshotTimer);
      apply(message, []);
      break;
    case "update":
      if (!frame || awaitingSnapshot) return;
      if (message.version <= frame.version) return; // already in the picture
      if (message.version > frame.version + 1) {
        askSnapshot(); // a gap: something was missed (§7)
        return;
      }
      apply(message, message.events || []);
      break;
    case "presence":
      if (frame) {
        const seat = frame.table.seats.find((s) => s.id === message.seat);
        if (seat) {
          seat.connected = message.connected;
          if (message.connected) seat.away_since = null;
          else if (!seat.away_since) seat.away_since = now();
          renderSeats();
        }
      }
      break;
    case "error":
      if (message.message) showError(message.message);
      break;
    case "chat":
    case "chat_history":
      chat.receive(message);
      break;
    default:
      break; // pong, record
  }
}

function askSnapshot() {
  awaitingSnapshot = true;
  socket.request({ type: "snapshot" });
  clearTimeout(snapshotTimer);
  snapshotTimer = setTimeout(() => {
    if (awaitingSnapshot) askSnapshot();
  }, SNAPSHOT_RETRY_MS);
}

function measureOffset(serverTime) {
  if (typeof serverTime !== "number") return;
  offsets.push(serverTime - Date.now());
  if (offsets.length > OFFSET_SAMPLES) offsets.shift();
  // A frame is received after it was built, so each sample is the true offset minus its
  // transit time: the largest recent sample is the closest.
  offset = Math.max(...offsets);
}

// --- commands -------------------------------------------------------------------------------

/** A command from the player: the action bar is disabled until it is answered and the
 * change it made is on screen. Resolves with the ack or error. */
function send(type, fields = {}) {
  hideError();
  inflight += 1;
  refreshBusy();
  return socket.command(type, fields).then((answer) => {
    inflight -= 1;
    if (answer.type === "ack" && typeof answer.version === "number" && frame && answer.version > frame.version) {
      waitVersion = Math.max(waitVersion, answer.version);
      clearTimeout(waitTimer);
      waitTimer = setTimeout(() => {
        if (frame && waitVersion > frame.version) askSnapshot();
        waitVersion = 0;
        refreshBusy();
      }, VERSION_WAIT_MS);
    }
    refreshBusy();
    return answer;
  });
}

function onAnswered(answer, command) {
  if (answer.type !== "error" || chat.owns(command)) return;
  if (command.type === "client_seed" && QUIET_SEED_CODES.has(answer.code)) return;
  if (answer.message) showError(answer.message);
}

function act(action, fields = {}) {
  const version = frame ? frame.version : undefined;
  return send("action", { action, ...fields, version });
}

function busy() {
  return inflight > 0 || (frame !== null && waitVersion > frame.version) || root.dataset.state !== "open";
}

function refreshBusy() {
  const isBusy = busy();
  root.dataset.busy = inflight > 0 || (frame !== null && waitVersion > frame.version) ? "true" : "false";
  ui.actions.setAttribute("aria-busy", isBusy ? "true" : "false");
  for (const element of ui.actions.querySelectorAll("button, input, select, textarea")) {
    element.disabled = isBusy || element.dataset.off === "true";
  }
  for (const element of ui.controls.querySelectorAll("button")) {
    element.disabled = isBusy;
  }
}

function showError(text) {
  ui.error.textContent = text;
  ui.error.hidden = false;
}

function hideError() {
  ui.error.hidden = true;
  ui.error.textContent = "";
}

// --- the live region and the log -------------------------------------------------------------

function say(text) {
  if (text) sayBuffer.push(text);
}

function flushSay() {
  if (!sayBuffer.length) return;
  const text = sayBuffer.splice(0).join(". ");
  // Emptied first, so that the same words said twice are announced twice.
  ui.announce.textContent = "";
  setTimeout(() => {
    ui.announce.textContent = text;
  }, 50);
}

/** One line of «Ход игры», newest first: `at` is when it happened (now, by default), and
 * `version` the game's engine version after the transition it tells of, when it tells of one
 * (a line rebuilt from a snapshot's history carries the same). */
function log(text, { at = now(), version = null } = {}) {
  if (!text) return;
  const stamp = new Date(at).toLocaleTimeString(config.language || undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  const dataset = version === null ? {} : { version: String(version) };
  ui.log.prepend(h("li", { dataset }, h("span", { class: "log-time" }, stamp), " ", text));
  while (ui.log.children.length > LOG_LINES) ui.log.lastElementChild.remove();
}

/** A page's first picture (a load, a reload) rebuilds the log from the shown game's history
 * (docs/protocol.md §6.1), so that a reload loses none of the game's lines. */
function rebuildLog(history) {
  ui.log.replaceChildren();
  for (const entry of history) {
    for (const event of entry.events) log(describe(event), { at: entry.at, version: entry.version });
  }
}

function describe(event) {
  let text = null;
  if (variant.describe) {
    try {
      text = variant.describe(event, moduleState());
    } catch (error) {
      console.error(error);
    }
  }
  return text || describeEvent(event, frame.table, me());
}

// --- applying a frame --------------------------------------------------------------------

function apply(message, events) {
  const before = frame;
  measureOffset(message.server_time);
  frame = {
    type: message.type,
    version: message.version,
    server_time: message.server_time,
    table: message.table,
    game: message.game,
    you: message.you || { seat: null, in_game: false },
  };
  if (waitVersion && frame.version >= waitVersion) {
    waitVersion = 0;
    clearTimeout(waitTimer);
  }
  mirror();
  renderMeta();
  renderStatus();
  renderSeats();
  renderTurn(before);
  renderArea(events);
  // Before the action bar is drawn: it marks the hint's best action by this frame's version.
  if (coach) coach.frame(frame, events, message.type === "snapshot");
  renderActions();
  renderControls();
  alerts.frame(frame, message, events, decisionArrived);
  if (decisionArrived) {
    decisionArrived = false;
    revealDecision();
  }
  holdUntilThePauseEnds();
  // An update that moved the game on tells of that transition (its lines are the game's).
  const version = gameVersion(frame);
  const transition = version !== null && version !== gameVersion(before) ? version : null;
  // A transition's lines carry its time (message.at), as the history a reload rebuilds them
  // from does; other changes' lines, the time they arrived.
  const stamp = Number.isFinite(message.at) ? { at: message.at } : {};
  for (const event of events) {
    const text = describe(event);
    log(text, { version: transition, ...stamp });
    if (ANNOUNCED.has(event.type)) say(text);
  }
  if (!before && message.type === "snapshot" && Array.isArray(message.history)) {
    rebuildLog(message.history);
  }
  if (chipsMoved(message, events)) balanceSoon();
  renderFairness();
  refreshBusy();
  flushSay();
  sendClientSeed();
  sitOnArrival();
}

/** The header line (variant · stakes · entry limit), drawn by the server when the page
 * loads, follows the table's options in every frame: a classic host's new match length
 * shows at once, not after a reload. */
function renderMeta() {
  const meta = document.querySelector(".table-meta");
  if (!meta || !config.variant_name) return;
  const text = tableMetaText(frame.table, config.variant_name);
  if (meta.textContent !== text) meta.textContent = text;
}

function gameVersion(shown) {
  const game = shown && shown.game;
  return game && game.view && typeof game.view.version === "number" ? game.view.version : null;
}

/** The page's own account of the table, as data attributes (tests read them). */
function mirror() {
  const game = frame.game;
  root.dataset.version = String(frame.version);
  root.dataset.seat = me() || "";
  root.dataset.inGame = frame.you.in_game ? "true" : "false";
  root.dataset.game = game ? String(game.number) : "";
  root.dataset.gameStatus = game ? game.status : "";
  root.dataset.turn = game && game.status === "playing" && game.view ? game.view.turn || "" : "";
  root.dataset.pending = frame.table.pending ? String(frame.table.pending.game) : "";
  root.dataset.tableStatus = frame.table.status;
}

function moduleState() {
  return { table: frame.table, game: frame.game, you: frame.you, version: frame.version, now, config };
}

function moduleContext(events) {
  return {
    me: me(),
    act,
    command: send,
    cards,
    say,
    log,
    events,
    seatName: (id) => seatName(id, frame.table),
    config,
    now, // the server's clock as this page estimates it (docs/protocol.md §8.2)
  };
}

function renderArea(events) {
  if (!variant.render) return;
  try {
    variant.render(ui.area, moduleState(), moduleContext(events));
  } catch (error) {
    console.error(error);
  }
}

// --- the status line, the seats, the turn and the clock ----------------------------------

function renderStatus() {
  const table = frame.table;
  const game = frame.game;
  let text = "";
  if (table.status === "closed") {
    // Closed for good: the way out is said where the player looks.
    fill(ui.status, t("Стол закрыт."), " ", h("a", { href: config.lobby_url, dataset: { link: "lobby" } }, t("Вернуться в лобби")));
    ui.status.dataset.closed = "true";
    ui.status.hidden = false;
    return;
  } else if (table.closing) {
    // The host's close waits for the chips in play (docs/protocol.md §9.8).
    text = t("Ведущий закрыл стол: он закроется, когда ставки в игре будут разыграны.");
  } else if (table.pending) {
    const pending = table.pending;
    const waiting = pending.seats.filter((id) => !pending.given.includes(id) && !id.startsWith("ai:"));
    text = fmt(t("Игра %(game)s объявлена: ждём ключи игроков, раздача через %(left)s"), {
      game: pending.game,
      left: clockText(pending.deal_at - now()),
    });
    if (!waiting.length) text = fmt(t("Игра %(game)s: раздаём карты…"), { game: pending.game });
  } else if (game && game.status === "playing" && game.paused) {
    text = t("Пауза: часы остановлены.");
  } else if (config.one_game) {
    // A tournament's table: its owner deals its one game, so there is nothing to start.
    text = playing() ? "" : oneGameText(game);
  } else if (table.next_game_at) {
    text = fmt(t("Следующая игра через %(left)s"), { left: clockText(table.next_game_at - now()) });
  } else if (!playing() && me() && config.variant !== "solo" && config.variant !== "classic") {
    text = startText();
  } else if (!playing() && !me() && !table.seats.length) {
    text = t("За столом пока никого нет.");
  }
  delete ui.status.dataset.closed;
  ui.status.textContent = text;
  ui.status.hidden = !text;
}

/** A tournament table's one game, once over: where its result is (nothing before it). */
function oneGameText(game) {
  if (!game) return "";
  if (game.status === "voided") return t("Турнирная игра отменена — подробности на странице турнира.");
  return t("Турнирная игра сыграна — итоги на странице турнира.");
}

function awayText(seat) {
  const game = frame.game;
  if (seat.connected) return null;
  if (playing() && game.deadline_seat === seat.id && game.deadline && !game.paused) {
    return fmt(t("ждём игрока, %(left)s"), {
      left: clockText(game.deadline - Math.max(now(), game.clock_starts || 0)),
    });
  }
  return t("нет на связи");
}

function renderSeats() {
  if (!frame) return;
  const table = frame.table;
  const game = frame.game;
  const turn = playing() && game.view ? game.view.turn : null;
  const items = table.seats.map((seat) => {
    const mine = seat.id === me();
    const inGame = Boolean(game && game.status === "playing" && game.seats.includes(seat.id));
    const classes = ["seat"];
    if (mine) classes.push("mine");
    if (seat.id === turn) classes.push("on-turn");
    if (!seat.connected) classes.push("away");
    if (seat.ai) classes.push("ai");
    if (playing() && !inGame) classes.push("watching");
    const badges = [];
    if (seat.ai) badges.push(h("span", { class: "badge ai-level" }, aiLevelName(seat.ai)));
    if (seat.bot) badges.push(h("span", { class: "badge bot-mark" }, t("бот")));
    if (mine) badges.push(h("span", { class: "badge you" }, t("вы")));
    if (seat.ready && !seat.ai && !playing()) badges.push(h("span", { class: "badge ready" }, t("готов")));
    if (seat.leaving) badges.push(h("span", { class: "badge leaving" }, t("уходит")));
    if (playing() && !inGame) badges.push(h("span", { class: "badge" }, t("ждёт следующей игры")));
    const away = awayText(seat);
    if (away) badges.push(h("span", { class: "badge away-note", dataset: { away: seat.id } }, away));
    let note = null;
    if (variant.seatNote) {
      try {
        note = variant.seatNote(seat, moduleState());
      } catch (error) {
        console.error(error);
      }
    }
    return h(
      "li",
      { class: classes.join(" "), dataset: { seat: seat.id, number: seat.number } },
      seat.id === turn ? h("span", { class: "turn-mark", "aria-hidden": "true" }, "▶") : null,
      seat.ai
        ? h("span", { class: "seat-name" }, aiLabel(seat))
        : h("a", { class: "seat-name", href: `/players/${encodeURIComponent(seat.name)}/` }, seat.name),
      seat.id === turn ? h("span", { class: "visually-hidden" }, t("(ходит)")) : null,
      note ? h("span", { class: "seat-note" }, note) : null,
      badges,
    );
  });
  const free = table.seat_count - table.seats.length;
  if (free > 0) {
    items.push(h("li", { class: "seat free" }, fmt(t("свободно мест: %(n)s"), { n: free })));
  }
  fill(ui.seats, items);
}

// --- the header's chip balance, kept true while chips move ------------------------------------

// The events after which a seated player's wallet may have changed, at a table whose game
// stakes their own chips (`config.chips`, from the variant registry): a bank opened or
// collected, a bet taken into the game's escrow, a deal or duel settled, a game over, voided
// or its table closed.
const CHIP_EVENTS = new Set([
  "bank_open", "bank", "bank_broken", "collect", "bet", "settle", "hand_end", "finished",
  "game_voided", "table_closed",
]);
let balanceTimer = 0;

function chipsMoved(message, events) {
  if (!config.chips || !me()) return false;
  // A snapshot (a first picture, a reload, a reconnect) may follow moves the page missed.
  return message.type === "snapshot" || events.some((event) => CHIP_EVENTS.has(event.type));
}

/** The header's balance is fetched again (static/js/site.js), once for a burst of changes. */
function balanceSoon() {
  clearTimeout(balanceTimer);
  balanceTimer = setTimeout(() => document.dispatchEvent(new CustomEvent("chips:balance")), 250);
}

// --- one screen per decision (phones) ---------------------------------------------------------

// The dock (whose turn, the clock, the actions) sticks to the bottom of the screen
// (static/css/table.css); its height is the page's scroll padding, so that what is brought
// into view stops above it.
const dock = document.querySelector(".action-dock");
let decisionArrived = false;
if (dock && "ResizeObserver" in window) {
  new ResizeObserver(() => {
    document.documentElement.style.setProperty("--dock-height", `${dock.offsetHeight}px`);
  }).observe(dock);
}

// What a decision depends on, as the variant modules mark it: the player's own hand, the
// dealer's or banker's cards, and the bank and the stake.
const DECISION_PARTS =
  ".mine, .dealer, .bj-dealer, .banker-hand, .bank-head, .hand.banker, .solo-panel, .solo-banker, .solo-player";

/** When a decision comes, the felt is brought on screen above the dock — all of it where it
 * fits, else the parts the decision depends on, else the player's own hand — so that the
 * cards that matter are in view with the actions, without the player scrolling. */
function revealDecision() {
  const room = window.innerHeight - (dockCoversFelt(dock, ui.area) ? dock.offsetHeight : 0);
  const boxes = [...ui.area.querySelectorAll(DECISION_PARTS)].map((part) => part.getBoundingClientRect());
  const own = ui.area.querySelector(".mine");
  const candidates = [ui.area.getBoundingClientRect()];
  if (boxes.length) candidates.push(span(boxes));
  if (own) candidates.push(own.getBoundingClientRect());
  const focus = candidates.find((box) => box.height <= room) || candidates[candidates.length - 1];
  let delta = 0;
  if (focus.bottom > room) delta = focus.bottom - room;
  if (focus.top - delta < 0) delta = focus.top;
  if (delta) window.scrollBy({ top: delta, behavior: "instant" });
}

function span(boxes) {
  const top = Math.min(...boxes.map((box) => box.top));
  const bottom = Math.max(...boxes.map((box) => box.bottom));
  return { top, bottom, height: bottom - top };
}

// --- the pause after a settled round, held by the variant (blackjack) -----------------------

// A variant that draws the settled round on the felt during the pause after it
// (game.clock_starts, docs/protocol.md §8.1) says so with `holdsRoundPause`: until the pause
// ends its next decision is not offered, so that nobody acts on cards not yet on the felt.
// The clock has not started meanwhile, so the player loses no time by it.
let holdTimer = 0;
let holdShown = null; // the clock_starts of the pause whose settled round was brought on screen

/** Milliseconds left of a held round pause (0: none). */
function roundHoldLeft() {
  const game = frame && frame.game;
  if (!variant.holdsRoundPause || !playing() || !game.clock_starts || game.paused) return 0;
  return Math.max(0, game.clock_starts - now());
}

function holdText(left) {
  return fmt(t("Раздача окончена: следующая через %(n)s с"), { n: Math.ceil(left / 1000) });
}

/** At the end of a held pause: the next round on the felt, its decision offered. */
function holdUntilThePauseEnds() {
  clearTimeout(holdTimer);
  const left = roundHoldLeft();
  if (!left) return;
  if (holdShown !== frame.game.clock_starts) {
    // The settled round replaced the hands on the felt: bring it on screen above the dock,
    // as a decision is, so that every hand's outcome is read where the player looks.
    holdShown = frame.game.clock_starts;
    revealDecision();
  }
  holdTimer = setTimeout(() => {
    if (roundHoldLeft() > 0) return holdUntilThePauseEnds();
    renderTurn(null);
    renderArea([]);
    renderActions();
    alerts.frame(frame, { type: "snapshot" }, [], decisionArrived);
    if (decisionArrived) {
      decisionArrived = false;
      revealDecision();
    }
  }, left + 20);
}

function renderTurn(before) {
  const game = frame.game;
  const turn = playing() && game.view ? game.view.turn : null;
  ui.turn.classList.toggle("mine", Boolean(turn && turn === me()));
  const next = turn && turn === me() ? betweenRoundsText(game.view) : null;
  const held = roundHoldLeft();
  if (held) {
    // The settled round is on the felt: the next decision comes when its pause ends.
    ui.turn.textContent = holdText(held);
  } else if (next) {
    // The round is over: say what comes next rather than «Ваш ход» (issue 20).
    ui.turn.textContent = next;
  } else if (turn && turn === me()) {
    ui.turn.textContent = t("Ваш ход");
    const wasMine =
      before && before.game && before.game.status === "playing" && before.game.view && before.game.view.turn === me();
    if (!wasMine) {
      say(t("Ваш ход"));
      decisionArrived = true;
    }
  } else if (turn) {
    ui.turn.textContent = fmt(t("Ходит %(name)s"), { name: seatName(turn, frame.table) });
  } else if (game && game.status !== "playing") {
    ui.turn.textContent = game.status === "voided" ? t("Игра отменена") : t("Игра окончена");
  } else {
    ui.turn.textContent = "";
  }
  tickClock();
}

// Actions offered only between rounds (solo's «Следующая раздача», «Новая игра»).
const BETWEEN_ROUNDS = new Set(["next_round", "new_game", "restart"]);

/** What comes next when the viewer's only choices are between rounds, or null. */
function betweenRoundsText(view) {
  const actions = (view.actions || []).map((action) => action.action);
  if (!actions.length || !actions.every((action) => BETWEEN_ROUNDS.has(action))) return null;
  if (actions.includes("next_round") && !view.game_over) return t("Раздача окончена: нажмите «Следующая раздача»");
  if (actions.includes("new_game")) return t("Игра окончена: нажмите «Новая игра»");
  return null;
}

function tickClock() {
  if (!frame) return;
  const game = frame.game;
  const clock = ui.clock;
  const shown = playing() && (game.deadline || game.paused);
  clock.hidden = !shown;
  ui.clockText.hidden = !shown;
  if (!shown) {
    clock.dataset.running = "false";
    ui.clockText.textContent = "";
    return;
  }
  let left;
  let total;
  if (game.paused) {
    left = game.paused_remaining_ms || 0;
    total = Math.max(frame.table.decision_seconds * 1000, left);
    clock.dataset.running = "false";
  } else {
    // A clock that starts later (the pause between classic rounds, game.clock_starts)
    // shows its whole time, standing still, until then.
    const waiting = Boolean(game.clock_starts) && game.clock_starts > now();
    left = Math.max(0, game.deadline - Math.max(now(), game.clock_starts || 0));
    if (!clockTotals.has(game.deadline)) {
      const seat = frame.table.seats.find((s) => s.id === game.deadline_seat);
      const human = seat && !seat.ai;
      clockTotals.clear();
      clockTotals.set(game.deadline, Math.max(left, human ? frame.table.decision_seconds * 1000 : 0, 1));
    }
    total = clockTotals.get(game.deadline);
    clock.dataset.running = left > 0 && !waiting ? "true" : "false";
  }
  const fraction = Math.max(0, Math.min(1, left / total));
  clock.style.setProperty("--left", String(fraction));
  clock.classList.toggle("low", fraction < 0.25);
  const seconds = Math.ceil(left / 1000);
  clock.setAttribute("aria-valuemax", String(Math.ceil(total / 1000)));
  clock.setAttribute("aria-valuenow", String(seconds));
  clock.setAttribute("aria-valuetext", game.paused ? t("пауза") : clockText(left));
  ui.clockText.textContent = game.paused ? t("пауза") : clockText(left);
}

function tick() {
  if (!frame) return;
  tickClock();
  const held = roundHoldLeft();
  if (held) ui.turn.textContent = holdText(held);
  // The countdowns in the status line and on an away player's seat.
  if (frame.table.pending || frame.table.next_game_at) renderStatus();
  for (const note of ui.seats.querySelectorAll("[data-away]")) {
    const seat = frame.table.seats.find((s) => s.id === note.dataset.away);
    if (seat) note.textContent = awayText(seat) || "";
  }
}

// --- the action bar --------------------------------------------------------------------------

function shortcutFor(action) {
  const own = variant.shortcuts || {};
  return own[action] || DEFAULT_SHORTCUTS[action] || null;
}

function plainButton(entry) {
  const key = shortcutFor(entry.action);
  return h(
    "button",
    {
      type: "button",
      class: `action action-${entry.action}`,
      dataset: key ? { action: entry.action, shortcut: key } : { action: entry.action },
      "aria-keyshortcuts": key,
      onclick: () => act(entry.action),
    },
    h("span", { class: "action-label" }, actionLabel(entry.action)),
    key ? h("kbd", { "aria-hidden": "true" }, key) : null,
  );
}

function renderActions() {
  const game = frame.game;
  const held = roundHoldLeft() > 0;
  const mine = !held && playing() && game.view && game.view.turn === me() && me() !== null;
  const entries = mine ? game.view.actions || [] : [];
  const key = JSON.stringify({
    entries,
    held,
    seat: me(),
    game: game ? [game.number, game.status, game.view ? game.view.version : null] : null,
    pending: frame.table.pending ? frame.table.pending.game : null,
    status: frame.table.status,
  });
  if (key === actionsKey) return;
  actionsKey = key;
  const active = document.activeElement;
  const lost = active === document.body || active === null;
  const focused =
    active && ui.actions.contains(active)
      ? active.dataset.action || active.dataset.key || "*"
      : lost && lastActionFocus
        ? lastActionFocus
        : null;
  const state = moduleState();
  const ctx = moduleContext([]);
  const elements = [];
  for (const entry of entries) {
    let element = null;
    if (variant.control) {
      try {
        element = variant.control(entry, state, ctx);
      } catch (error) {
        console.error(error);
      }
    }
    elements.push(element || plainButton(entry));
  }
  if (variant.extras) {
    try {
      for (const element of variant.extras(state, ctx) || []) elements.push(element);
    } catch (error) {
      console.error(error);
    }
  }
  fill(ui.actions, elements);
  if (coach) coach.decorate();
  ui.actions.hidden = elements.length === 0;
  root.classList.toggle("has-actions", elements.length > 0);
  if (focused) {
    // The same control again, else the first one: keyboard focus stays in the bar.
    const again =
      ui.actions.querySelector(`[data-action="${focused}"], [data-key="${focused}"]`) ||
      ui.actions.querySelector("button, input, select");
    if (again) again.focus({ preventScroll: true });
  }
}

ui.actions.addEventListener("focusin", (event) => {
  lastActionFocus = event.target.dataset.action || event.target.dataset.key || "*";
});
ui.actions.addEventListener("focusout", (event) => {
  if (event.relatedTarget && !ui.actions.contains(event.relatedTarget)) lastActionFocus = null;
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
  if (!event.key || event.key.length !== 1) return;
  const key = event.key.toUpperCase();
  // Latin letters, also when a Russian layout is on: the key's position decides.
  const code = /^Key([A-Z])$/.exec(event.code || "");
  const candidates = [key, code ? code[1] : null].filter(Boolean);
  for (const name of candidates) {
    const button = root.querySelector(`[data-shortcut="${name}"]`);
    if (button && !button.disabled && button.offsetParent !== null) {
      event.preventDefault();
      button.click();
      return;
    }
  }
});

// --- the table controls ------------------------------------------------------------------------

function controlButton(name, label, onclick, extraClass = "") {
  return h(
    "button",
    { type: "button", class: `control ${extraClass}`.trim(), dataset: { control: name }, onclick },
    label,
  );
}

function mayStart() {
  const table = frame.table;
  if (config.variant === "solo" || config.variant === "classic" || config.one_game) return false;
  if (table.status !== "open" || table.pending || playing() || table.next_game_at) return false;
  const host = config.user && table.host === config.user;
  const trainee = config.variant === "blackjack" && me();
  return Boolean(host || config.staff || trainee);
}

// --- one way to start (issue 20), mirroring play/services/lifecycle.py ----------------------------------
// A game starts by itself once at least `config.min_players` seats (AI seats count) are taken
// and every seated person has said «Готов» (maybe_autostart); the host — or, at blackjack,
// a seated player — may start it at any time with «Начать игру» (moves.game_start). At
// classic the host starts the match from the classic panel, with its length.

/** Whether the viewer starts the game by hand: the host, or a training table's player. */
function startsByHand() {
  if (config.variant === "classic" || config.variant === "solo") return false; // their own ways
  if (config.one_game) return false; // a tournament's table: its owner deals the game
  const host = Boolean(config.user && frame.table.host === config.user);
  return host || (config.variant === "blackjack" && Boolean(me()));
}

/** Seats still missing for a game to start (seats that are leaving do not count). */
function missingPlayers() {
  const seated = frame.table.seats.filter((seat) => !seat.leaving).length;
  return Math.max(0, (config.min_players || 1) - seated);
}

const PLAYERS = () => ({ one: t("игрок"), few: t("игрока"), many: t("игроков"), other: t("игрока") });
// «ждём ещё 1 игрока / 2 игроков»: the accusative.
const PLAYERS_WAITED = () => ({ one: t("игрока"), few: t("игроков"), many: t("игроков"), other: t("игроков") });

function playersText(count, forms) {
  return fmt(t("%(amount)s %(unit)s"), { amount: formatNumber(count), unit: plural(count, forms()) });
}

/** The status line before a game: what happens next and when. */
function startText() {
  const table = frame.table;
  const missing = missingPlayers();
  if (startsByHand()) {
    if (missing) return fmt(t("Для игры нужно ещё %(players)s за столом."), { players: playersText(missing, PLAYERS) });
    return t("Игра начнётся, когда вы нажмёте «Начать игру».");
  }
  if (missing) {
    return fmt(t("Игра начнётся, когда за стол сядет ещё %(players)s и все нажмут «Готов»."), {
      players: playersText(missing, PLAYERS),
    });
  }
  const people = table.seats.filter((seat) => !seat.ai && !seat.leaving);
  const unready = people.filter((seat) => !seat.ready);
  const hostSeat = table.host ? people.find((seat) => seat.name === table.host) : null;
  if (hostSeat && unready.length === 1 && unready[0] === hostSeat) {
    return fmt(t("Все готовы: игру начнёт ведущий (%(host)s) кнопкой «Начать игру»."), { host: table.host });
  }
  const mine = unready.find((seat) => seat.id === me());
  if (mine && unready.length === 1) return t("Игра начнётся, как только вы нажмёте «Готов».");
  const waiting = fmt(t("Игра начнётся, когда все нажмут «Готов» — ждём ещё %(players)s."), {
    players: playersText(unready.length, PLAYERS_WAITED),
  });
  return table.host ? `${waiting} ${t("Ведущий может начать её и раньше.")}` : waiting;
}

/** The host (or staff) may close an open table; once its close is scheduled (chips in
 * play, docs/protocol.md §9.8) there is nothing more to send. */
function mayClose() {
  const table = frame.table;
  const host = config.user && table.host === config.user;
  // Not a tournament's table (it has no host): the event closes it when it is done.
  return Boolean((host || config.staff) && table.status === "open" && !config.one_game);
}

function askClose() {
  const dialog = ui.closeDialog;
  if (!dialog || dialog.open) return;
  dialog.returnValue = "";
  dialog.showModal();
}

if (ui.closeDialog) {
  // The form's buttons close it with their value; Escape closes it with none.
  ui.closeDialog.addEventListener("close", () => {
    if (ui.closeDialog.returnValue === "close" && frame && mayClose() && !frame.table.closing) send("close");
    const back = ui.controls.querySelector('[data-control="close"]');
    if (back) back.focus({ preventScroll: true });
  });
}

function renderControls() {
  const table = frame.table;
  const seat = table.seats.find((s) => s.id === me());
  // The question is moot once the table closes (or its close is scheduled) by other means.
  if (ui.closeDialog && ui.closeDialog.open && (!mayClose() || table.closing)) ui.closeDialog.close("");
  const key = JSON.stringify({
    seat: me(),
    ready: seat ? seat.ready : null,
    leaving: seat ? seat.leaving : null,
    status: table.status,
    pending: Boolean(table.pending),
    playing: playing(),
    inGame: frame.you.in_game,
    start: mayStart(),
    missing: missingPlayers(),
    free: table.seats.length < table.seat_count,
    close: mayClose(),
    closing: table.closing,
  });
  if (key === controlsKey) return;
  controlsKey = key;
  const items = [];
  const free = table.seats.length < table.seat_count;
  if (!config.user && free && table.status === "open") {
    items.push(h("a", { class: "control link-control", href: config.login_url }, t("Войдите, чтобы сесть за стол")));
  } else if (config.user && !me() && free && table.status === "open") {
    items.push(
      controlButton("sit", t("Сесть за стол"), () => send("sit", config.invite ? { invite: config.invite } : {}), "primary"),
    );
  }
  // One way to start (issue 20): the host (or a training table's player) has «Начать игру»,
  // everyone else «Готов»; the status line says what happens next.
  if (me() && config.variant !== "solo" && !config.one_game && !frame.you.in_game && !table.pending && table.status === "open" && !startsByHand()) {
    if (seat && seat.ready) {
      items.push(controlButton("unready", t("Не готов"), () => send("ready", { ready: false })));
    } else {
      items.push(controlButton("ready", t("Готов"), () => send("ready", { ready: true }), "primary"));
    }
  }
  if (mayStart() && missingPlayers() === 0) {
    items.push(controlButton("start", t("Начать игру"), () => send("start"), startsByHand() ? "primary" : ""));
  }
  if (variant.tableControls) {
    try {
      items.push(...(variant.tableControls(moduleState(), moduleContext([])) || []));
    } catch (error) {
      console.error(error);
    }
  }
  if (me()) {
    items.push(controlButton("stand", t("Встать из-за стола"), () => send("stand")));
  }
  if (mayClose() && table.closing) {
    items.push(h("p", { class: "control-note", dataset: { control: "closing" } }, t("Стол закроется, когда ставки в игре будут разыграны")));
  } else if (mayClose()) {
    items.push(controlButton("close", t("Закрыть стол"), askClose, "danger"));
  }
  items.push(
    controlButton("leave", t("В лобби"), async () => {
      // A tournament's seat is kept: standing up there would hand the rest of the game to
      // the clock, and the player may come back to it from the event's page.
      if (me() && !config.one_game) await send("stand");
      location.assign(config.lobby_url);
    }),
  );
  fill(ui.controls, items);
}

// --- fairness -------------------------------------------------------------------------------

function fact(term, ...value) {
  return [h("dt", {}, term), h("dd", {}, ...value)];
}

function renderFairness() {
  const table = frame.table;
  const game = frame.game;
  const items = [];
  const pending = table.pending;
  if (pending) {
    items.push(fact(t("Объявлена игра"), String(pending.game)));
    items.push(fact(t("Отпечаток колоды"), h("code", { class: "hex" }, pending.commitment)));
    const sent = seedsSent.get(pending.commitment);
    if (sent) items.push(fact(t("Ваш ключ"), h("code", {}, sent)));
  }
  if (game) {
    items.push(fact(pending ? t("Прошлая игра") : t("Игра"), String(game.number)));
    items.push(fact(t("Отпечаток колоды"), h("code", { class: "hex" }, game.commitment)));
    if (game.client_seeds && game.client_seeds.length) {
      items.push(
        fact(
          t("Ключи игроков"),
          h(
            "ul",
            { class: "plain" },
            game.client_seeds.map((entry) =>
              h("li", {}, `${seatName(entry.seat, table)}: `, h("code", {}, entry.seed)),
            ),
          ),
        ),
      );
    } else {
      items.push(fact(t("Ключи игроков"), t("нет")));
    }
    if (game.server_seed) {
      items.push(fact(t("Ключ сервера"), h("code", { class: "hex" }, game.server_seed)));
      items.push(fact(t("Ключ игры"), h("code", { class: "hex" }, game.seed)));
      items.push(
        h(
          "p",
          { class: "verify-link" },
          h("a", { href: config.replay_url.replace("{id}", String(game.id)) }, t("Повтор и проверка честности")),
        ),
      );
    } else if (game.status === "playing") {
      items.push(fact(t("Ключ сервера"), t("откроется, когда игра закончится")));
    }
  }
  fill(ui.fairness, items);
}

// --- the player's own client seed («Свой ключ») ---------------------------------------------
// Optional, and for one game: kept for this table in this tab (sessionStorage, so a reload
// keeps it) until the next game announced to the player's seat takes it instead of a
// random one; once sent it is used up and the field is emptied. A seed the server has
// already seen would not bind it (it could pick its next server seed knowing it), so each
// game needs a new one (docs/fairness.md, «Client seeds»).

const OWN_SEED_KEY = `twentyone.table.${config.table}.own-seed`;
let ownSeed = readOwnSeed();

function readOwnSeed() {
  try {
    const stored = window.sessionStorage.getItem(OWN_SEED_KEY) || "";
    return CLIENT_SEED.test(stored) ? stored : "";
  } catch {
    return ""; // storage disabled: the seed lives as long as the page
  }
}

function keepOwnSeed(seed) {
  ownSeed = seed;
  try {
    if (seed) window.sessionStorage.setItem(OWN_SEED_KEY, seed);
    else window.sessionStorage.removeItem(OWN_SEED_KEY);
  } catch {
    // storage disabled or full: kept for this page only
  }
}

/** The field's state and the line under it: `invalid` after a refused entry, `used` once
 * the seed went into a game ({seed, game}). */
function showOwnSeed(state = null, used = null) {
  ui.seedForm.dataset.state = state || (ownSeed ? "own" : "random");
  ui.seedInput.setAttribute("aria-invalid", state === "invalid" ? "true" : "false");
  ui.seedForget.hidden = !ownSeed;
  let text;
  if (state === "invalid") {
    text = t("Ключ — от 1 до 64 знаков: латинские буквы, цифры, «_» и «-».");
  } else if (state === "used") {
    text = fmt(t("Ключ «%(seed)s» ушёл в игру %(game)s. Для следующей игры введите новый — иначе уйдёт случайный."), used);
  } else if (ownSeed) {
    text = fmt(t("Ключ «%(seed)s» запомнен: он уйдёт в следующую игру."), { seed: ownSeed });
  } else {
    text = t("Свой ключ не задан: в игру уйдёт случайный.");
  }
  ui.seedStatus.textContent = text;
}

ui.seedForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const value = ui.seedInput.value.trim();
  if (value && !CLIENT_SEED.test(value)) {
    showOwnSeed("invalid");
    ui.seedInput.focus();
    return;
  }
  ui.seedInput.value = value;
  keepOwnSeed(value);
  showOwnSeed();
});

ui.seedForget.addEventListener("click", () => {
  ui.seedInput.value = "";
  keepOwnSeed("");
  showOwnSeed();
  ui.seedInput.focus();
});

ui.seedInput.value = ownSeed;
showOwnSeed();

/** The typed seed is sent for game `game`: the server has seen it, so it is used up. */
function ownSeedUsed(seed, game) {
  keepOwnSeed("");
  if (ui.seedInput.value.trim() === seed) ui.seedInput.value = ""; // unless a new one is being typed
  showOwnSeed("used", { seed, game });
}

// --- automatic steps: the client seed and ?sit=1 ---------------------------------------------

function sendClientSeed() {
  const pending = frame.table.pending;
  const seat = me();
  if (!pending || !seat || !pending.seats.includes(seat) || pending.given.includes(seat)) return;
  if (seedsSent.has(pending.commitment)) return;
  // The player's own seed when they typed one, else a fresh random one.
  const seed = ownSeed || randomToken(16);
  if (ownSeed) ownSeedUsed(ownSeed, pending.game);
  seedsSent.set(pending.commitment, seed);
  // Not a player's move: the action bar stays usable while it is answered.
  socket.command("client_seed", { seed }).then((answer) => {
    if (answer.type === "error" && !QUIET_SEED_CODES.has(answer.code)) seedsSent.delete(pending.commitment);
    if (frame) renderFairness();
  });
}

function sitOnArrival() {
  if (!sitPending) return;
  sitPending = false;
  const url = new URL(location.href);
  url.searchParams.delete("sit");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
  if (config.user && !me() && frame.table.status === "open") {
    send("sit", config.invite ? { invite: config.invite } : {});
  }
}

// --- start ------------------------------------------------------------------------------------

async function start() {
  mountZoom();
  mountLandscape();
  try {
    variant = await import(config.module);
  } catch (error) {
    console.error(error);
    variant = {};
  }
  socket.connect();
  setInterval(tick, 250);
}

start();
