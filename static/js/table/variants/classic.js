// `classic` on the table page: a match of 5, 7 or 10 rounds against the dealer, for points
// (docs/rules/classic.md, docs/protocol.md §12.1). The core draws the seats, the clock, the
// action bar (hit / stand), the log and the fairness panel; this module draws the host's
// controls, the round in play, the round summary (every hand, once settled), the
// scoreboard and the final standings. The shared screen (static/js/screen.js) reuses the
// public parts: scoreboard(), roundSummary(), standings(), roundTable().

import { fmt, h, pluralText, signed } from "../dom.js";
import { aiLevelName, handOwner, seatName as seatLabel, yourHandResult } from "../text.js";

const MATCH_LENGTHS = [5, 7, 10];
const AI_LEVELS = ["easy", "medium", "hard"];

// --- small helpers ---------------------------------------------------------------------

/** A seat id as people read it (the core's words: the user name, «ИИ 2», «Дилер»). */
export function seatName(state, id) {
  return seatLabel(id, state && state.table);
}

function outcomeName(hand) {
  if (hand.outcome === "win") return hand.delta >= 150 ? gettext("Выигрыш с очком") : gettext("Выигрыш");
  if (hand.outcome === "loss") return hand.total > 21 ? gettext("Перебор") : gettext("Проигрыш");
  if (hand.outcome === "push") return gettext("Ничья");
  return "";
}

function totalText(total, soft) {
  if (total === null || total === undefined) return "";
  if (total > 21) return fmt(gettext("%(total)s, перебор"), { total });
  return soft ? fmt(gettext("%(total)s (мягкая)"), { total }) : String(total);
}

/** A hand's total as the core's pill (.total), marked when bust or 21. */
function totalPill(total, soft = false) {
  const classes = ["total"];
  if (total > 21) classes.push("bust");
  if (total === 21) classes.push("twenty-one");
  return h("span", { class: classes.join(" ") }, totalText(total, soft));
}

function cardsRow(cards, codes, hidden = 0) {
  return cards.cardsElement(codes || [], hidden);
}

/** Is the viewer the table's host (or staff)? The page's config names who is signed in. */
function isHost(state, ctx) {
  const config = ctx.config || {};
  if (config.staff) return true;
  return Boolean(state.table.host && config.user && config.user === state.table.host);
}

// --- the public parts (also on the shared screen) ----------------------------------------

/** The scoreboard: every seat of the match in table order, with its points. */
export function scoreboard(state, view) {
  const winners = new Set(view.winners || []);
  const removed = new Set(view.removed || []);
  const table = h("table", { class: "classic-scores" });
  table.append(h("caption", {}, gettext("Счёт")));
  table.append(
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, gettext("Игрок")),
      h("th", { scope: "col", class: "num" }, gettext("Очки")))),
  );
  const body = h("tbody");
  // The leader: one player alone at the top, once a round has been played.
  const tops = (view.players || []).map((s) => view.scores[s] ?? 0);
  const best = Math.max(...tops);
  const lone = Boolean(view.round) && view.rounds_played > 0 && tops.filter((score) => score === best).length === 1;
  for (const seat of view.table || []) {
    const score = view.scores[seat] ?? 0;
    const row = h("tr", { "data-seat": seat });
    if (removed.has(seat)) row.classList.add("removed");
    if (winners.has(seat)) row.classList.add("winner");
    else if (lone && !removed.has(seat) && score === best && !view.winners) row.classList.add("leader");
    const name = h("th", { scope: "row" }, seatName(state, seat));
    if (removed.has(seat)) name.append(h("span", { class: "tag" }, gettext("удалён")));
    if (winners.has(seat)) name.append(h("span", { class: "tag win" }, gettext("победитель")));
    row.append(name, h("td", { class: "num score" }, signed(score)));
    body.append(row);
  }
  table.append(body);
  return table;
}

/** The last settled round, every hand shown (rules: "revealed in the round summary"). */
export function roundSummary(state, view, cards, number = view.rounds_played) {
  const round = view.last_round;
  if (!round) return null;
  const box = h("section", { class: "classic-summary", "aria-labelledby": "classic-summary-title" });
  box.append(h("h3", { id: "classic-summary-title" }, fmt(gettext("Итоги раздачи %(n)s"), { n: number })));
  const list = h("ul", { class: "hands summary" });
  for (const hand of round.hands) {
    const dealer = hand.seat === "dealer";
    const item = h("li", { class: `hand${dealer ? " dealer" : ""}`, "data-seat": hand.seat });
    if (!dealer) item.dataset.outcome = hand.outcome;
    const head = h("div", { class: "hand-head" }, h("span", { class: "hand-name" }, seatName(state, hand.seat)));
    head.append(totalPill(hand.total));
    item.append(head, cardsRow(cards, hand.cards));
    if (!dealer) {
      item.append(h("div", { class: `hand-result ${hand.outcome}` },
        h("span", {}, outcomeName(hand)), " ", h("strong", {}, signed(hand.delta))));
    }
    list.append(item);
  }
  box.append(list);
  return box;
}

/** The final standings of a match that is over. */
export function standings(state, game) {
  const view = game.view;
  const box = h("section", { class: "classic-final", "aria-labelledby": "classic-final-title" });
  box.append(h("h3", { id: "classic-final-title" }, gettext("Итоги партии")));
  if (game.status === "voided") {
    box.append(h("p", {}, gettext("Партия отменена: очки не засчитаны.")));
    return box;
  }
  const winners = view.winners || [];
  if (!winners.length) {
    box.append(h("p", { class: "no-winner" }, gettext("Партия окончена без победителя.")));
  } else {
    const names = winners.map((s) => seatName(state, s)).join(", ");
    box.append(h("p", { class: "winners" },
      winners.length > 1 ? gettext("Победители: ") : gettext("Победитель: "), h("strong", {}, names)));
  }
  const ranked = [...(view.table || [])].sort((a, b) => (view.scores[b] ?? 0) - (view.scores[a] ?? 0));
  const list = h("ol", { class: "standings" });
  for (const seat of ranked) {
    const item = h("li", { "data-seat": seat }, h("span", {}, seatName(state, seat)), " ",
      h("strong", {}, signed(view.scores[seat] ?? 0)));
    if ((view.removed || []).includes(seat)) item.append(" ", h("span", { class: "tag" }, gettext("удалён")));
    if (winners.includes(seat)) item.classList.add("winner");
    list.append(item);
  }
  box.append(list);
  return box;
}

/**
 * The round in play: the dealer (up-card and the hole card's back) and every hand — your
 * own cards and total, the others' as backs (their count is public). `marks` maps a seat
 * to a note («Хватит по времени»).
 */
export function roundTable(state, view, cards, { me = null, marks = {} } = {}) {
  const round = view.round;
  if (!round) return null;
  const box = h("section", { class: "classic-round", "aria-labelledby": "classic-round-title" });
  box.append(h("h3", { id: "classic-round-title" }, fmt(gettext("Раздача %(n)s из %(total)s"), { n: round.number, total: view.rounds_total })));
  const dealer = h("div", { class: "hand dealer", "data-seat": "dealer" },
    h("div", { class: "hand-head" }, h("span", { class: "hand-name" }, gettext("Дилер"))),
    cardsRow(cards, round.dealer.cards, round.dealer.hidden || 0));
  box.append(dealer);
  const list = h("ul", { class: "hands" });
  for (const hand of round.hands) {
    const item = h("li", { class: "hand", "data-seat": hand.seat });
    if (hand.seat === view.turn) item.classList.add("on-turn");
    if (hand.seat === me) item.classList.add("mine");
    const head = h("div", { class: "hand-head" }, h("span", { class: "hand-name" }, seatName(state, hand.seat)));
    if (hand.seat === me) head.append(h("span", { class: "tag" }, gettext("вы")));
    if (hand.cards) {
      head.append(totalPill(hand.total, hand.soft));
      if (hand.natural) head.append(h("span", { class: "tag win" }, gettext("Очко!")));
    }
    item.append(head);
    item.append(hand.cards ? cardsRow(cards, hand.cards) : cardsRow(cards, [], hand.count || 0));
    if (hand.seat === view.turn) item.append(h("div", { class: "hand-note turn" }, gettext("Ходит")));
    if (marks[hand.seat]) item.append(h("div", { class: "hand-note", "data-mark": "timeout" }, marks[hand.seat]));
    list.append(item);
  }
  box.append(list);
  return box;
}

// --- the host's controls ----------------------------------------------------------------

const hosts = new WeakMap();

function hostPanel(area, ctx) {
  let panel = hosts.get(area);
  if (panel && panel.root.isConnected) return panel;
  // Folded away while a match is played (the cards matter then), open between matches.
  const root = h("details", { class: "classic-host" });
  root.append(h("summary", {}, h("span", { class: "host-title" }, gettext("Ведущий"))));

  // Start: the match length, then «Начать партию».
  const start = h("form", { class: "host-row host-start" });
  const lengths = h("fieldset", { class: "lengths" }, h("legend", {}, gettext("Раздач в партии")));
  for (const n of MATCH_LENGTHS) {
    const id = `classic-rounds-${n}`;
    lengths.append(h("span", { class: "length" },
      h("input", { type: "radio", name: "classic-rounds", id, value: n }),
      h("label", { for: id }, String(n))));
  }
  const startButton = h("button", { type: "submit", class: "primary", "data-command": "start" }, gettext("Начать партию"));
  start.append(lengths, startButton);
  start.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = start.querySelector("input[name=classic-rounds]:checked");
    send(panel, startButton, "start", { rounds: Number(chosen ? chosen.value : 5) });
  });

  // Pause / resume.
  const pause = h("button", { type: "button", class: "control", "data-command": "pause" }, gettext("Пауза"));
  pause.addEventListener("click", () => send(panel, pause, pause.dataset.command));

  // AI seats.
  const ai = h("form", { class: "host-row host-ai" });
  const levelSelect = h("select", { id: "classic-ai-level" });
  for (const level of AI_LEVELS) levelSelect.append(h("option", { value: level }, aiLevelName(level)));
  levelSelect.value = "medium";
  const aiButton = h("button", { type: "submit", class: "control", "data-command": "add_ai" }, gettext("Добавить ИИ"));
  ai.append(h("label", { for: "classic-ai-level" }, gettext("Уровень ИИ")), levelSelect, aiButton);
  ai.addEventListener("submit", (event) => {
    event.preventDefault();
    send(panel, aiButton, "add_ai", { level: levelSelect.value });
  });

  // Remove a player.
  const remove = h("form", { class: "host-row host-remove" });
  const seatSelect = h("select", { id: "classic-remove-seat" });
  const removeButton = h("button", { type: "submit", class: "danger", "data-command": "remove" }, gettext("Удалить игрока"));
  remove.append(h("label", { for: "classic-remove-seat" }, gettext("Игрок")), seatSelect, removeButton);
  remove.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!seatSelect.value) return;
    send(panel, removeButton, "remove", { seat: seatSelect.value });
  });

  root.append(start, h("div", { class: "host-row" }, pause), ai, remove);
  panel = { root, start, startButton, pause, ai, remove, seatSelect, seatKey: "", lengthSet: false, busy: false, phase: null, ctx };
  hosts.set(area, panel);
  return panel;
}

function send(panel, button, type, fields = {}) {
  if (panel.busy) return;
  panel.busy = true;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  Promise.resolve(panel.ctx.command(type, fields))
    .catch(() => null)
    .finally(() => {
      panel.busy = false;
      button.disabled = false;
      button.removeAttribute("aria-busy");
    });
}

function updateHostPanel(panel, state, ctx) {
  panel.ctx = ctx;
  const game = state.game;
  const playing = Boolean(game && game.status === "playing");
  const pending = Boolean(state.table.pending);
  const open = state.table.status === "open";
  if (!panel.lengthSet) {
    const rounds = (state.table.options && state.table.options.rounds) || 5;
    const radio = panel.start.querySelector(`input[value="${rounds}"]`);
    if (radio) radio.checked = true;
    panel.lengthSet = true;
  }
  panel.start.hidden = playing || pending || !open;
  panel.pause.hidden = !playing;
  if (playing) {
    const paused = Boolean(game.paused);
    panel.pause.dataset.command = paused ? "resume" : "pause";
    panel.pause.textContent = paused ? gettext("Продолжить") : gettext("Пауза");
  }
  const seats = state.table.seats || [];
  panel.ai.hidden = !open || playing || seats.length >= state.table.seat_count;
  const phase = playing ? "playing" : pending ? "pending" : "between";
  if (phase !== panel.phase) {
    // Open between matches, folded once one is dealt; the host may open or fold it.
    if (phase === "between") panel.root.open = true;
    if (phase === "playing") panel.root.open = false;
    panel.phase = phase;
  }
  // Who can be removed: the players still in the match while it is played, else every seat;
  // never the host themself (standing up is theirs: «Встать из-за стола»).
  const removable = (playing ? game.view.players || [] : seats.map((s) => s.id)).filter((id) => id !== ctx.me);
  const key = removable.join("|") + seats.map((s) => s.name).join("|");
  if (key !== panel.seatKey) {
    const chosen = panel.seatSelect.value;
    panel.seatSelect.replaceChildren(...removable.map((id) => h("option", { value: id }, seatName(state, id))));
    if (removable.includes(chosen)) panel.seatSelect.value = chosen;
    panel.seatKey = key;
  }
  panel.remove.hidden = removable.length === 0;
}

// --- the module's render ------------------------------------------------------------------

// Seats whose decision the clock made, per game and round (from the events seen here).
const timeouts = { game: null, round: null, seats: {} };

function noteEvents(state, ctx) {
  const game = state.game;
  if (!game) return;
  const round = game.view && game.view.round ? game.view.round.number : null;
  if (timeouts.game !== game.id || timeouts.round !== round) {
    timeouts.game = game.id;
    timeouts.round = round;
    timeouts.seats = {};
  }
  for (const event of ctx.events || []) {
    if (event.type === "round_start") timeouts.seats = {};
    if (event.type === "stand" && event.timeout) timeouts.seats[event.seat] = gettext("Время вышло: «Хватит»");
  }
}

function statusLine(state, ctx) {
  const game = state.game;
  const table = state.table;
  if (table.status !== "open" || table.pending) return ""; // the core's status line says it
  if (!game || game.status !== "playing") {
    // A tournament's heat: its one match is dealt by the event; the core's line says the rest.
    if (ctx.config && ctx.config.one_game) return "";
    const seated = (table.seats || []).length;
    // Only the host adds AI seats: a table without one waits for people.
    if (seated < 2 && isHost(state, ctx)) return gettext("Ждём игроков: нужно хотя бы двое — или добавьте ИИ в панели «Ведущий».");
    if (seated < 2 && table.host) return gettext("Ждём игроков: нужно хотя бы двое (ведущий может добавить ИИ).");
    if (seated < 2) return gettext("Ждём игроков: нужно хотя бы двое.");
    if (isHost(state, ctx)) return gettext("Вы ведущий: выберите длину партии и нажмите «Начать партию».");
    return table.host ? fmt(gettext("Ждём начала партии: её начинает ведущий (%(host)s) или все нажимают «Готов»."), { host: table.host })
      : gettext("Ждём начала партии: все нажимают «Готов».");
  }
  if (game.paused) return ""; // the core says «Пауза»
  const view = game.view;
  if (view.turn && view.turn === ctx.me) return gettext("Ваш ход: «Ещё карту» или «Хватит».");
  if (view.turn) return fmt(gettext("Ходит %(name)s."), { name: seatName(state, view.turn) });
  return gettext("Ход дилера.");
}

// --- the pause between rounds (game.clock_starts, docs/protocol.md §8.1) ------------------

const pauses = new WeakMap(); // area -> the countdown's timer

/** Milliseconds left of the pause after a settled round (0: none, or over). */
function pauseLeft(game, ctx) {
  if (!game || game.status !== "playing" || game.paused || !game.clock_starts || !ctx.now) return 0;
  return Math.max(0, game.clock_starts - ctx.now());
}

function pauseText(left) {
  return fmt(gettext("Следующая раздача через %(n)s с"), { n: Math.ceil(left / 1000) });
}

/** Counts the pause down on `note`; once it is over, draws the area again (round first). */
function countDown(area, note, state, ctx) {
  clearInterval(pauses.get(area));
  const timer = setInterval(() => {
    const left = pauseLeft(state.game, ctx);
    if (!note.isConnected || left <= 0) {
      clearInterval(timer);
      pauses.delete(area);
      if (note.isConnected) render(area, state, { ...ctx, events: [] });
      return;
    }
    note.textContent = pauseText(left);
  }, 250);
  pauses.set(area, timer);
}

// --- the module's render ------------------------------------------------------------------

export function render(area, state, ctx) {
  const game = state.game && state.game.view && state.game.view.variant === "classic" ? state.game : null;
  noteEvents(state, ctx);
  const host = isHost(state, ctx) ? hostPanel(area, ctx) : null;
  if (host) updateHostPanel(host, state, ctx);
  const status = statusLine(state, ctx);
  const statusPart = status ? h("p", { class: "classic-status", "data-role": "status" }, status) : null;
  const parts = [];
  let note = null;
  if (game) {
    const view = game.view;
    const playing = game.status === "playing";
    const progress = h("p", { class: "classic-progress" },
      pluralText(view.rounds_total, gettext("Партия из %(total)s раздачи, сыграно %(played)s."), gettext("Партия из %(total)s раздач, сыграно %(played)s."), { total: view.rounds_total, played: view.rounds_played }));
    const summary = roundSummary(state, view, ctx.cards);
    const left = pauseLeft(game, ctx);
    if (playing && summary && left > 0) {
      // The pause after a settled round: its summary first, with the countdown to the
      // next round's clock (the round already dealt is shown below it).
      note = h("p", { class: "classic-pause", "data-role": "round-pause", role: "status" }, pauseText(left));
      summary.firstChild.after(note);
      parts.push(host, statusPart, progress, summary, roundTable(state, view, ctx.cards, { me: ctx.me, marks: timeouts.seats }));
    } else if (playing) {
      parts.push(host, statusPart, progress, roundTable(state, view, ctx.cards, { me: ctx.me, marks: timeouts.seats }), summary);
    } else {
      // The match is over: its result and scores first, the setup of the next one below.
      parts.push(progress, standings(state, game), scoreboard(state, view), statusPart, host, summary);
    }
    if (playing) parts.push(scoreboard(state, view));
  } else {
    parts.push(host, statusPart);
  }
  // The shared screen for a TV (public information only), for everyone at the table.
  const invite = ctx.config && ctx.config.invite ? `?invite=${encodeURIComponent(ctx.config.invite)}` : "";
  parts.push(h("p", { class: "classic-screen-link" },
    h("a", { href: `/tables/${state.table.id}/screen/${invite}`, target: "_blank", rel: "noopener" },
      gettext("Общий экран для телевизора"))));
  // Keep the host panel node (and the focus inside it) in place; redraw the rest around it.
  const keep = host && host.root.parentNode === area ? host.root : null;
  for (const child of [...area.children]) if (child !== keep) child.remove();
  let before = true;
  for (const part of parts) {
    if (!part) continue;
    const node = part === host ? host.root : part;
    if (node === keep) {
      before = false;
      continue;
    }
    if (keep && before) area.insertBefore(node, keep);
    else area.append(node);
  }
  area.classList.add("classic");
  if (note) countDown(area, note, state, ctx);
  else {
    clearInterval(pauses.get(area));
    pauses.delete(area);
  }
}

/** The log's words for classic's own events; the core's generic text for the rest. */
export function describe(event, state) {
  switch (event.type) {
    case "round_start": {
      const first = (event.order || [])[0];
      // The viewer in the second person, never by their user name (issue 20).
      if (first && state.you && first === state.you.seat) return fmt(gettext("Раздача %(n)s: первыми ходите вы"), { n: event.round });
      return fmt(gettext("Раздача %(n)s: первым ходит %(name)s"), { n: event.round, name: seatName(state, first) });
    }
    case "settle": {
      // The viewer's own result first, in the second person (issue 20), then every hand.
      const me = state.you && state.you.seat;
      const list = (event.hands || []).filter((hand) => hand.seat !== "dealer")
        .map((hand) => `${handOwner(hand.seat, (id) => seatName(state, id), me)} ${signed(hand.delta)}`).join(", ");
      const summary = fmt(gettext("Итоги раздачи %(n)s: %(list)s"), { n: event.round, list });
      const yours = yourHandResult(event.hands, me, "points");
      return yours ? `${yours}. ${summary}` : summary;
    }
    case "remove":
      return fmt(gettext("%(name)s удалён из партии"), { name: seatName(state, event.target) });
    case "finished": {
      const winners = event.winners || [];
      if (!winners.length) return gettext("Партия окончена без победителя");
      return fmt(ngettext("Партия окончена. Победитель: %(names)s", "Партия окончена. Победители: %(names)s", winners.length),
        { names: winners.map((seat) => seatName(state, seat)).join(", ") });
    }
    default:
      return null;
  }
}

/** The seats strip: each player's points in the match shown (or last played). */
export function seatNote(seat, state) {
  const game = state.game;
  if (!game || !game.view || game.view.variant !== "classic") return null;
  const scores = game.view.scores || {};
  if (!(seat.id in scores)) return null;
  return fmt(gettext("%(n)s очк."), { n: signed(scores[seat.id]) });
}

export const shortcuts = { hit: "H", stand: "S" };
