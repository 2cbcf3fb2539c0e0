// classic's shared screen (/tables/<id>/screen/): the table for a TV at a party, in large
// type. It watches the table as a spectator — `?view=spectator` on the table socket
// (docs/protocol.md §2.1) — so even a TV signed in as a seated player is sent public
// information only: the dealer's up-card, how many cards each player holds, whose turn it
// is and the clock, the scores, and every hand once a round is settled.
//
// It reuses the table page's modules: the socket (reconnect with backoff), the DOM helpers,
// the SVG cards, and classic's drawing of the round, the summary and the scoreboard.

import * as cards from "./cards.js";
import { TableSocket } from "./table/connection.js";
import { clockText, fmt, h, pluralText } from "./table/dom.js";
import { describeEvent } from "./table/text.js";
import { describe, roundSummary, roundTable, scoreboard, seatName, standings } from "./table/variants/classic.js";

const config = JSON.parse(document.getElementById("screen-config").textContent);
const root = document.getElementById("screen");
const statusLine = document.getElementById("screen-status");
const gameBox = document.getElementById("screen-game");
const scoresBox = document.getElementById("screen-scores");
const seatsList = document.getElementById("screen-seats");
const clock = document.getElementById("screen-clock");
const clockFill = clock.querySelector(".screen-clock-fill");
const clockLabel = document.getElementById("screen-clock-text");
const lengthLabel = document.getElementById("screen-length");
const announce = document.getElementById("screen-announce");
const connection = document.getElementById("connection");

let state = null; // the latest picture: {table, game, you, version}
let version = -1;
const offsets = []; // server_time − local time, measured on the last frames
let timeouts = { key: null, seats: {} };
let clockSpan = { deadline: null, total: 1 };
let awaitingSnapshot = false;

// --- the socket ----------------------------------------------------------------------------

function socketUrl() {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ view: "spectator" });
  if (config.invite) query.set("invite", config.invite);
  return `${scheme}//${window.location.host}/ws/tables/${config.table}/?${query}`;
}

const CONNECTION_TEXT = {
  connecting: gettext("Подключение…"),
  open: gettext("На связи"),
  reconnecting: gettext("Связь потеряна, переподключаемся…"),
  closed: gettext("Нет связи со столом"),
};

function onState(name) {
  connection.dataset.state = name;
  root.dataset.state = name;
  connection.querySelector(".connection-text").textContent = CONNECTION_TEXT[name] || name;
}

/** The server's clock now, in epoch ms (protocol §8.2: the least delayed frame's offset). */
function now() {
  return Date.now() + (offsets.length ? Math.max(...offsets) : 0);
}

function onMessage(message) {
  if (message.type === "presence" && state) {
    const seat = (state.table.seats || []).find((s) => s.id === message.seat);
    if (seat) {
      seat.connected = message.connected;
      if (message.connected) seat.away_since = null;
      drawSeats();
    }
    return;
  }
  if (message.type !== "snapshot" && message.type !== "update") return;
  if (message.type === "update") {
    if (awaitingSnapshot || message.version <= version) return; // asked anew, or already shown
    if (version >= 0 && message.version > version + 1) {
      askSnapshot(); // a gap: start again from a snapshot (§7)
      return;
    }
  }
  awaitingSnapshot = false;
  offsets.push(message.server_time - Date.now());
  if (offsets.length > 10) offsets.shift();
  version = message.version;
  state = { table: message.table, game: message.game, you: message.you, version };
  const events = message.type === "update" ? message.events || [] : [];
  noteTimeouts(events);
  draw();
  say(events);
}

function askSnapshot() {
  awaitingSnapshot = true;
  socket.request({ type: "snapshot" });
  setTimeout(() => {
    if (awaitingSnapshot) askSnapshot();
  }, 4000);
}

const socket = new TableSocket(socketUrl(), { message: onMessage, state: onState, answered: () => {} });
socket.connect();

// --- drawing ---------------------------------------------------------------------------------

function classicGame() {
  const game = state && state.game;
  return game && game.view && game.view.variant === "classic" ? game : null;
}

function noteTimeouts(events) {
  const game = classicGame();
  const round = game && game.view.round ? `${game.id}:${game.view.round.number}` : null;
  if (round !== timeouts.key) timeouts = { key: round, seats: {} };
  for (const event of events) {
    if (event.type === "stand" && event.timeout) timeouts.seats[event.seat] = gettext("Время вышло: «Хватит»");
  }
}

function status() {
  const table = state.table;
  const game = classicGame();
  if (table.status !== "open") return gettext("Стол закрыт");
  if (table.pending) return gettext("Партия начинается…");
  if (!game || game.status !== "playing") {
    if (game && game.status === "finished") return gettext("Партия окончена");
    return gettext("Ждём начала партии");
  }
  if (game.paused) return gettext("Пауза");
  const turn = game.view.turn;
  return turn ? fmt(gettext("Ходит %(name)s"), { name: seatName(state, turn) }) : gettext("Ход дилера");
}

function draw() {
  const game = classicGame();
  root.dataset.version = String(version);
  root.dataset.game = game ? String(game.number) : "";
  root.dataset.gameStatus = game ? game.status : "";
  root.dataset.turn = game && game.view.turn ? game.view.turn : "";
  statusLine.textContent = status();
  const rounds = game ? game.view.rounds_total : state.table.options && state.table.options.rounds;
  if (rounds) {
    // The form by Intl's plural rule, the words from the catalogue's two: with Russian msgids
    // and no Russian catalogue in the page, ngettext alone would say «из 21 раздач».
    const one = ngettext("партия из %(n)s раздачи", "партия из %(n)s раздач", 1);
    const other = ngettext("партия из %(n)s раздачи", "партия из %(n)s раздач", 2);
    lengthLabel.textContent = pluralText(rounds, one, other, { n: rounds });
  }

  const parts = [];
  if (game) {
    const view = game.view;
    if (game.status === "playing") parts.push(roundTable(state, view, cards, { marks: timeouts.seats }));
    else parts.push(standings(state, game));
    parts.push(roundSummary(state, view, cards));
    scoresBox.replaceChildren(scoreboard(state, view));
  } else {
    scoresBox.replaceChildren();
  }
  gameBox.replaceChildren(...parts.filter(Boolean));
  drawSeats();
  drawClock();
}

function drawSeats() {
  if (!state) return;
  const game = classicGame();
  const turn = game && game.status === "playing" ? game.view.turn : null;
  const items = (state.table.seats || []).map((seat) => {
    const item = h("li", { class: "screen-seat", dataset: { seat: seat.id } }, h("span", { class: "seat-name" }, seatName(state, seat.id)));
    if (seat.id === turn) item.classList.add("on-turn");
    if (!seat.connected) {
      item.classList.add("away");
      item.append(h("span", { class: "seat-note", dataset: { away: "true" } }, gettext("нет связи")));
    } else if (!game || game.status !== "playing") {
      if (seat.ready) item.append(h("span", { class: "seat-note ready" }, gettext("готов")));
    }
    return item;
  });
  seatsList.replaceChildren(...items);
  if (!items.length) seatsList.append(h("li", { class: "screen-seat empty" }, gettext("Пока никого: сканируйте код.")));
}

function drawClock() {
  const game = classicGame();
  const running = Boolean(game && game.status === "playing" && game.deadline && !game.paused);
  const paused = Boolean(game && game.status === "playing" && game.paused && game.paused_remaining_ms !== null);
  clock.hidden = !running && !paused;
  if (clock.hidden) return;
  const left = running ? Math.max(0, game.deadline - now()) : game.paused_remaining_ms;
  if (running && clockSpan.deadline !== game.deadline) {
    // A fresh decision: a person's clock is the table's decision time; an AI's or a
    // reconnect grace's may differ, so the bar starts full in any case.
    clockSpan = { deadline: game.deadline, total: Math.max(left, 1) };
    const seat = (state.table.seats || []).find((s) => s.id === game.deadline_seat);
    if (seat && !seat.ai) clockSpan.total = Math.max(left, state.table.decision_seconds * 1000);
  }
  const ratio = Math.max(0, Math.min(1, left / clockSpan.total));
  clockFill.style.setProperty("--left", String(ratio));
  clock.dataset.paused = paused ? "true" : "false";
  clock.setAttribute("aria-valuemax", String(Math.ceil(clockSpan.total / 1000)));
  clock.setAttribute("aria-valuenow", String(Math.ceil(left / 1000)));
  const who = game.deadline_seat ? seatName(state, game.deadline_seat) : "";
  const seat = (state.table.seats || []).find((s) => s.id === game.deadline_seat);
  clockLabel.textContent = seat && !seat.connected
    ? fmt(gettext("ждём игрока %(name)s, %(time)s"), { name: who, time: clockText(left) })
    : clockText(left);
}

setInterval(() => {
  if (state) drawClock();
}, 250);

// --- the live region ----------------------------------------------------------------------

function say(events) {
  const lines = events.map((event) => describe(event, state) || describeEvent(event, state.table)).filter(Boolean);
  if (lines.length) announce.textContent = lines.slice(-2).join(" ");
}
