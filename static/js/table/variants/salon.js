// `salon` on the table page: the salon game with a rotating bank, for chips
// (docs/rules/salon.md, docs/protocol.md §12.2). The core draws the seats, the clock, the
// action bar (hit / stand as plain buttons), the log and the fairness panel; this module
// draws the bank, the shoe (cards left), who banks next, the deal in progress, the last
// deal's settlement, and two controls for the action bar: the bet entry (limited to the
// range the server offers) and the cut (a slider over the shoe).

import { cardName } from "../../cards.js";
import { fmt, formatNumber, h, pluralText, signed } from "../dom.js";
import { countText, handOwner, seatName as seatLabel, yourHandResult } from "../text.js";

const SHOE_CARDS = 104; // two decks

/** A seat id as people read it (the core's words). */
function seatName(state, id) {
  return seatLabel(id, state && state.table);
}

/** A hand's total as the core's pill (.total), marked when bust or 21. */
function totalPill(total) {
  const classes = ["total"];
  if (total > 21) classes.push("bust");
  if (total === 21) classes.push("twenty-one");
  return h("span", { class: classes.join(" ") }, total > 21 ? fmt(gettext("%(total)s, перебор"), { total }) : String(total));
}

/** 10 000 rather than 10000, in the page's language (the page's one number format). */
function number(n) {
  return formatNumber(n);
}

function chipsOf(view, seat) {
  const entry = (view.seats || []).find((s) => s.id === seat);
  return entry ? entry.chips : null;
}

/**
 * Who banks next: the seat on the left of the banker (the next seat in table order) that
 * can hold the bank — 2 × the table minimum (docs/rules/salon.md §1.3). Chips are known for the
 * seats of the game; a seat that joined since is taken as able.
 */
export function nextBanker(state, view) {
  const seats = [...(state.table.seats || [])].sort((a, b) => a.number - b.number).map((s) => s.id);
  const order = seats.length ? seats : (view.seats || []).map((s) => s.id);
  if (!view.banker || !order.length) return null;
  const minBet = (view.options && view.options.min_bet) || (state.table.options && state.table.options.min_bet) || 0;
  const start = order.indexOf(view.banker);
  for (let step = 1; step <= order.length; step += 1) {
    const seat = order[(Math.max(start, 0) + step) % order.length];
    const chips = chipsOf(view, seat);
    if (chips === null || chips >= 2 * minBet) return seat;
  }
  return null;
}

function statusLine(state, ctx) {
  const table = state.table;
  const game = state.game;
  if (table.status !== "open") return gettext("Стол закрыт.");
  if (table.pending) return gettext("Талия объявлена: тасуем…");
  if (!game || game.status !== "playing") {
    if (table.next_game_at) return gettext("Талия сыграна. Следующая начнётся сама.");
    if ((table.seats || []).length < 2) return gettext("Ждём игроков: нужно хотя бы двое.");
    return gettext("Ждём начала: все нажимают «Готов», или ведущий начинает.");
  }
  if (game.paused) return gettext("Пауза.");
  const view = game.view;
  const mine = view.turn && view.turn === ctx.me;
  const name = view.turn ? seatName(state, view.turn) : "";
  switch (view.phase) {
    case "cut":
      return mine ? gettext("Ваша очередь снимать колоду: выберите место на шкале и нажмите «Снять колоду».")
        : fmt(gettext("Колоду снимает %(name)s."), { name: seatName(state, view.cutter || view.turn) });
    case "bet":
      return mine ? gettext("Ваша ставка: введите сумму в пределах стола.") : fmt(gettext("Ставку делает %(name)s."), { name });
    case "ponters":
      return mine ? gettext("Ваш ход: «Ещё карту» или «Хватит».") : fmt(gettext("Прикупает %(name)s."), { name });
    case "banker":
      return mine ? gettext("Вы банкомёт: прикупайте или скажите «Хватит».")
        : fmt(gettext("Банкомёт %(name)s прикупает."), { name });
    default:
      return "";
  }
}

function facts(state, view) {
  const list = h("dl", { class: "salon-facts" });
  const add = (label, value, role) => {
    list.append(h("div", { class: "fact", "data-fact": role }, h("dt", {}, label), h("dd", {}, value)));
  };
  if (view.banker) {
    add(gettext("Банкомёт"), seatName(state, view.banker), "banker");
    const bank = chipsOf(view, view.banker);
    if (bank !== null) add(gettext("Банк"), countText(bank, "chips"), "bank");
  }
  const options = view.options || state.table.options || {};
  add(gettext("Ставки"), fmt(gettext("%(min)s–%(max)s"), { min: formatNumber(options.min_bet), max: formatNumber(options.max_bet) }), "limits");
  if (view.shoe) {
    const remaining = view.shoe.remaining;
    const meter = h("meter", { min: 0, max: SHOE_CARDS, value: remaining, "aria-label": gettext("Карт в шузе") });
    add(gettext("В шузе"), h("span", { class: "shoe-left" },
      h("strong", {}, countText(remaining, "cards")), " ", meter), "shoe");
  }
  const next = nextBanker(state, view);
  if (next) add(gettext("Следующий банкомёт"), seatName(state, next), "next-banker");
  return list;
}

function dealBox(state, view, ctx) {
  const deal = view.deal;
  if (!deal) return null;
  const box = h("section", { class: "salon-deal", "aria-labelledby": "salon-deal-title" });
  box.append(h("h3", { id: "salon-deal-title" }, fmt(gettext("Раздача %(n)s"), { n: deal.number })));
  const list = h("ul", { class: "hands" });
  for (const hand of deal.hands) {
    const banker = hand.role === "banker";
    const item = h("li", { class: `hand${banker ? " banker" : ""}`, "data-seat": hand.seat });
    if (hand.seat === view.turn) item.classList.add("on-turn");
    if (hand.seat === ctx.me) item.classList.add("mine");
    const head = h("div", { class: "hand-head" }, h("span", { class: "hand-name" }, seatName(state, hand.seat)));
    if (banker) head.append(h("span", { class: "tag bank" }, gettext("банкомёт")));
    if (hand.seat === ctx.me) head.append(h("span", { class: "tag" }, gettext("вы")));
    if (hand.total !== undefined) {
      head.append(totalPill(hand.total));
    }
    item.append(head, ctx.cards.cardsElement(hand.cards || [], hand.hidden || 0));
    if (!banker) {
      let note = null;
      if (hand.bet) note = h("div", { class: "hand-note bet" }, fmt(gettext("Ставка: %(n)s"), { n: hand.bet }));
      else if (hand.sat_out) note = h("div", { class: "hand-note" }, gettext("Пропускает раздачу"));
      else note = h("div", { class: "hand-note muted" }, gettext("Ставки ещё нет"));
      item.append(note);
    }
    if (hand.seat === view.turn) item.append(h("div", { class: "hand-note turn" }, gettext("Ходит")));
    list.append(item);
  }
  box.append(list);
  return box;
}

function lastDeal(state, view, ctx) {
  const round = view.last_round;
  if (!round || !round.hands || !round.hands.length) return null;
  const box = h("section", { class: "salon-summary", "aria-labelledby": "salon-summary-title" });
  box.append(h("h3", { id: "salon-summary-title" }, gettext("Прошлая раздача")));
  const list = h("ul", { class: "hands summary" });
  for (const hand of round.hands) {
    const banker = hand.role === "banker";
    const item = h("li", { class: `hand${banker ? " banker" : ""}`, "data-seat": hand.seat });
    const head = h("div", { class: "hand-head" }, h("span", { class: "hand-name" }, seatName(state, hand.seat)));
    if (banker) head.append(h("span", { class: "tag bank" }, gettext("банкомёт")));
    head.append(totalPill(hand.total));
    item.append(head, ctx.cards.cardsElement(hand.cards || []));
    if (!banker) {
      const words = { win: gettext("Выигрыш"), loss: gettext("Проигрыш"), push: gettext("Ничья") };
      item.append(h("div", { class: `hand-result ${hand.outcome}` }, h("span", {}, words[hand.outcome] || ""), " ",
        h("strong", {}, signed(hand.delta))));
    }
    list.append(item);
  }
  box.append(list);
  return box;
}

function chipsTable(state, view) {
  if (!view.seats || !view.seats.length) return null;
  const table = h("table", { class: "salon-chips" });
  table.append(h("caption", {}, gettext("Фишки в этой талии")));
  table.append(h("thead", {}, h("tr", {},
    h("th", { scope: "col" }, gettext("Игрок")),
    h("th", { scope: "col", class: "num" }, gettext("Фишки")),
    h("th", { scope: "col", class: "num" }, gettext("Итог")))));
  const body = h("tbody");
  for (const seat of view.seats) {
    const delta = (view.deltas || {})[seat.id] ?? 0;
    body.append(h("tr", { "data-seat": seat.id },
      h("th", { scope: "row" }, seatName(state, seat.id), seat.id === view.banker ? h("span", { class: "tag bank" }, gettext("банкомёт")) : null),
      h("td", { class: "num" }, number(seat.chips)),
      h("td", { class: `num ${delta > 0 ? "plus" : delta < 0 ? "minus" : ""}` }, signed(delta))));
  }
  table.append(body);
  return table;
}

export function render(area, state, ctx) {
  const game = state.game && state.game.view && state.game.view.variant === "salon" ? state.game : null;
  const parts = [h("p", { class: "salon-status", "data-role": "status" }, statusLine(state, ctx))];
  if (game) {
    const view = game.view;
    parts.push(facts(state, view));
    if (game.status === "playing") parts.push(dealBox(state, view, ctx));
    else if (game.status === "finished" && game.result && game.result.final) {
      parts.push(h("p", { class: "salon-over" }, gettext("Талия окончена.")));
    }
    parts.push(lastDeal(state, view, ctx));
    parts.push(chipsTable(state, view));
  } else {
    const options = state.table.options || {};
    parts.push(h("p", { class: "salon-limits" }, fmt(gettext("Ставки за столом: %(min)s–%(max)s."), { min: formatNumber(options.min_bet), max: countText(options.max_bet, "chips") })));
  }
  area.replaceChildren(...parts.filter(Boolean));
  area.classList.add("salon");
}

// --- the action bar's controls ------------------------------------------------------------

// The control for the decision in play, kept while the decision is the same (a frame that
// changes nothing about it must not wipe what the player typed).
let kept = { key: null, element: null };

function decisionKey(action, state) {
  const game = state.game;
  return `${game && game.id}:${game && game.view.version}:${action.action}:${action.min}:${action.max}`;
}

function sendFrom(form, ctx, name, fields) {
  // The core disables the whole action bar until the answer (and its frame) arrives.
  if (form.dataset.sending === "true") return;
  form.dataset.sending = "true";
  Promise.resolve(ctx.act(name, fields)).finally(() => {
    form.dataset.sending = "false";
  });
}

function betControl(action, state, ctx) {
  const { min, max } = action;
  const form = h("form", { class: "salon-bet", "data-control": "bet", novalidate: true });
  const input = h("input", { type: "number", id: "salon-bet-amount", name: "amount", min, max, step: 1, value: min, inputmode: "numeric", required: true, "aria-describedby": "salon-bet-range", "data-key": "bet-amount" });
  const range = h("span", { id: "salon-bet-range", class: "bet-range" }, fmt(gettext("от %(min)s до %(max)s"), { min, max }));
  const problem = h("span", { class: "bet-problem", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", class: "action", "data-action": "bet", "data-shortcut": "B", "aria-keyshortcuts": "B" },
    gettext("Сделать ставку"), " ", h("kbd", { "aria-hidden": "true" }, "B"));
  const quick = (label, value) => h("button", { type: "button", class: "small", "data-amount": value, onclick: () => { input.value = String(value); check(); input.focus(); } }, label);
  const check = () => {
    const raw = input.value.trim();
    const amount = Number(raw);
    const ok = raw !== "" && Number.isInteger(amount) && amount >= min && amount <= max;
    input.setAttribute("aria-invalid", ok ? "false" : "true");
    problem.hidden = ok;
    problem.textContent = ok ? "" : fmt(gettext("Ставка — целое число от %(min)s до %(max)s."), { min, max });
    // The core re-enables the action bar after a command; "off" keeps this one disabled.
    submit.dataset.off = ok ? "false" : "true";
    submit.disabled = !ok;
    return ok ? amount : null;
  };
  input.addEventListener("input", check);
  check();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const amount = check();
    if (amount === null) return;
    sendFrom(form, ctx, "bet", { amount });
  });
  form.append(
    h("label", { for: "salon-bet-amount" }, gettext("Ставка")), input, range,
    h("span", { class: "bet-quick" }, quick(gettext("Мин."), min), quick(gettext("Макс."), max)),
    submit, problem,
  );
  return form;
}

function cutControl(action, state, ctx) {
  const { min, max } = action;
  const total = max + 1; // cards in the shoe: a cut moves 1 … total−1 cards
  const middle = Math.round((min + max) / 2);
  const form = h("form", { class: "salon-cut", "data-control": "cut" });
  const shoe = h("div", { class: "shoe", "aria-hidden": "true" },
    h("div", { class: "shoe-top" }), h("div", { class: "shoe-bottom" }));
  const slider = h("input", { type: "range", id: "salon-cut-position", name: "position", min, max, step: 1, value: middle, "aria-describedby": "salon-cut-text", "data-key": "cut-position" });
  const text = h("output", { id: "salon-cut-text", for: "salon-cut-position", class: "cut-text" });
  const show = () => {
    const position = Number(slider.value);
    shoe.style.setProperty("--cut", `${(position / total) * 100}%`);
    text.textContent = pluralText(total, gettext("Сверху вниз: %(n)s из %(total)s карты"), gettext("Сверху вниз: %(n)s из %(total)s карт"), { n: position, total });
    slider.setAttribute("aria-valuetext", text.textContent);
  };
  slider.addEventListener("input", show);
  const submit = h("button", { type: "submit", class: "action", "data-action": "cut", "data-shortcut": "C", "aria-keyshortcuts": "C" },
    gettext("Снять колоду"), " ", h("kbd", { "aria-hidden": "true" }, "C"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sendFrom(form, ctx, "cut", { position: Number(slider.value) });
  });
  form.append(
    h("label", { for: "salon-cut-position" }, gettext("Где снять колоду")),
    h("div", { class: "shoe-slider" }, shoe, slider), text, submit,
  );
  show();
  return form;
}

export function control(action, state, ctx) {
  if (action.action !== "bet" && action.action !== "cut") return null;
  if (action.min === undefined || action.max === undefined) return null;
  const key = decisionKey(action, state);
  if (kept.key === key && kept.element) return kept.element;
  const element = action.action === "bet" ? betControl(action, state, ctx) : cutControl(action, state, ctx);
  kept = { key, element };
  return element;
}

// --- the log --------------------------------------------------------------------------------

/** The log's words for salon's own events; the core's generic text for the rest. */
export function describe(event, state) {
  const name = (seat) => seatName(state, seat);
  // The viewer in the second person, never by their user name (issue 20).
  const mine = (seat) => Boolean(seat) && seat === (state.you && state.you.seat);
  switch (event.type) {
    case "lot":
      if (mine(event.seat)) return gettext("Жребий: банк держите вы");
      return fmt(gettext("Жребий: банк держит %(name)s"), { name: name(event.seat) });
    case "shuffle":
      if (mine(event.banker)) return gettext("Талия перетасована, банкомёт — вы");
      return fmt(gettext("Талия перетасована, банкомёт — %(name)s"), { name: name(event.banker) });
    case "cut":
      if (event.by === "server") {
        return fmt(gettext("Время вышло: колоду снял сервер, %(n)s вниз"), { n: countText(event.position, "cards_acc") });
      }
      if (mine(event.seat)) return fmt(gettext("Вы снимаете колоду: %(n)s вниз"), { n: countText(event.position, "cards_acc") });
      return fmt(gettext("%(name)s снимает колоду: %(n)s вниз"), { name: name(event.seat), n: countText(event.position, "cards_acc") });
    case "round_start":
      if (mine(event.banker)) return fmt(gettext("Раздача %(n)s, банкомёт — вы"), { n: event.deal });
      return fmt(gettext("Раздача %(n)s, банкомёт %(name)s"), { n: event.deal, name: name(event.banker) });
    case "deal":
      return event.cards
        ? fmt(gettext("Вам сданы карты: %(cards)s"), { cards: event.cards.map(cardName).join(", ") })
        : fmt(gettext("%(name)s получает две карты"), { name: name(event.seat) });
    case "sit_out":
      if (event.reason !== "bank_cannot_cover") return null;
      if (mine(event.seat)) return gettext("Вы пропускаете раздачу: банк не покроет ставку");
      return fmt(gettext("%(name)s пропускает раздачу: банк не покроет ставку"), { name: name(event.seat) });
    case "reveal":
      if (mine(event.seat)) return gettext("У вас, банкомёта, очко: вы забираете все ставки");
      return fmt(gettext("У банкомёта %(name)s очко: он забирает все ставки"), { name: name(event.seat) });
    case "settle": {
      // The viewer's own result first, in the second person (issue 20), then every ponter.
      const me = state.you && state.you.seat;
      const list = (event.hands || []).filter((hand) => hand.role !== "banker")
        .map((hand) => `${handOwner(hand.seat, name, me)} ${signed(hand.delta)}`).join(", ");
      if (!list) return fmt(gettext("Раздача %(n)s: ставок не было"), { n: event.deal });
      const summary = fmt(gettext("Итоги раздачи %(n)s: %(list)s"), { n: event.deal, list });
      const yours = yourHandResult(event.hands, me, "chips");
      return yours ? `${yours}. ${summary}` : summary;
    }
    case "shoe_end":
      return fmt(gettext("Талия кончилась: в шузе осталось %(n)s"), { n: countText(event.remaining, "cards") });
    case "finished": {
      const reasons = {
        shoe_end: gettext("Талия сыграна"),
        banker_short: gettext("У банкомёта не хватает фишек держать банк"),
        nobody_can_hold_the_bank: gettext("Никто не может держать банк"),
        no_ponter_can_bet: gettext("Ни у одного понтёра нет минимальной ставки"),
      };
      return reasons[event.reason] || null;
    }
    default:
      return null;
  }
}

/** The seats strip: each player's chips in this shoe, and who holds the bank. */
export function seatNote(seat, state) {
  const game = state.game;
  if (!game || !game.view || game.view.variant !== "salon") return null;
  const chips = chipsOf(game.view, seat.id);
  if (chips === null) return null;
  const text = countText(chips, "chips");
  return seat.id === game.view.banker ? fmt(gettext("банкомёт, %(chips)s"), { chips: text }) : text;
}

export const shortcuts = { bet: "B", cut: "C", hit: "H", stand: "S" };
