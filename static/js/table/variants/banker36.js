// `banker36`: «Очко» with a player's bank, for chips (docs/rules/banker36.md;
// docs/protocol.md §12.4). Who holds the bank and its size, stuk, the circle's order with
// each player's hand (hidden until that duel settles), the duel in progress with the
// banker's cards, and the offered bets as buttons (1×, 2×, 5×, ва-банк).

import { fill, fmt, formatNumber, h, signed, t } from "../dom.js";
import { countText, outcomeWord, reasonText, seatName, totalText, yourResult } from "../text.js";

export const shortcuts = { hit: "H", stand: "S" };

const STATUS = {
  waiting: () => t("ждёт"),
  playing: () => t("играет"),
  settled: () => t("сыграл"),
  sat_out: () => t("пропускает"),
  unplayed: () => t("не сыграл"),
};

function totalBadge(total, cards = null) {
  const classes = ["total"];
  if (total > 21) classes.push("bust");
  if (total === 21) classes.push("twenty-one");
  return h("span", { class: classes.join(" ") }, totalText(total, cards));
}

function chipsOf(view, id) {
  const seat = (view.seats || []).find((s) => s.id === id);
  return seat ? seat.chips : null;
}

export function render(area, state, ctx) {
  const game = state.game;
  const view = game ? game.view : null;
  const pending = state.table.pending;
  if (!view || (pending && game.status !== "playing")) {
    const text = pending
      ? t("Тасуем колоду для нового банка…")
      : t("Банк ещё не открыт."); // how it starts: the core's status line (issue 20)
    fill(area, h("p", { class: "felt-empty" }, text), view ? lastDuel(view, state, ctx) : null);
    return;
  }
  const name = (id) => ctx.seatName(id);
  const over = game.status !== "playing";
  const head = h(
    "div",
    { class: "bank-head" },
    h(
      "p",
      { class: "bank-holder", dataset: { banker: view.banker || "" } },
      h("span", { class: "muted" }, t("Банкир")),
      " ",
      h("strong", {}, view.banker ? name(view.banker) : "—"),
    ),
    h(
      "p",
      { class: "bank-size", dataset: { bank: String(view.bank) } },
      h("span", { class: "muted" }, t("Банк")),
      " ",
      h("strong", { class: "bank-amount" }, String(view.bank)),
      " ",
      h("span", { class: "muted" }, fmt(t("(ставка стола %(stake)s)"), { stake: view.stake })),
    ),
    view.stuk_called ? h("p", { class: "pill gold stuk-mark" }, t("Стук! Второй круг")) : null,
    view.circle ? h("p", { class: "pill circle-number" }, fmt(t("Круг %(n)s"), { n: view.circle.number })) : null,
  );
  fill(area, head, circle(view, state, ctx), over ? null : duel(view, ctx), lastDuel(view, state, ctx), over ? finalLine(view, ctx) : null);
}

function circle(view, state, ctx) {
  if (!view.circle) return null;
  const duelSeat = view.circle.duel ? view.circle.duel.seat : null;
  const items = view.circle.hands.map((hand, index) => {
    const mine = hand.seat === ctx.me;
    const shown = hand.cards && hand.cards.length > 0;
    const chips = chipsOf(view, hand.seat);
    return h(
      "li",
      {
        class: `circle-hand status-${hand.status}${hand.seat === duelSeat ? " in-duel" : ""}${mine ? " mine" : ""}`,
        dataset: { seat: hand.seat, status: hand.status },
      },
      h(
        "div",
        { class: "hand-head" },
        h("span", { class: "order" }, `${index + 1}.`),
        h("strong", {}, ctx.seatName(hand.seat)),
        mine ? h("span", { class: "pill" }, t("вы")) : null,
        h("span", { class: "pill" }, STATUS[hand.status] ? STATUS[hand.status]() : hand.status),
        shown ? totalBadge(hand.total, hand.cards) : null,
        chips !== null ? h("span", { class: "muted" }, countText(chips, "chips")) : null,
      ),
      ctx.cards.cardsElement(hand.cards || [], hand.hidden || 0),
    );
  });
  return h(
    "section",
    { class: "circle", "aria-label": t("Круг: порядок поединков") },
    h("h3", {}, t("Порядок круга")),
    h("ol", { class: "circle-hands" }, items),
  );
}

function duel(view, ctx) {
  const current = view.circle && view.circle.duel;
  if (!current) return null;
  return h(
    "section",
    { class: "duel", dataset: { seat: current.seat } },
    h(
      "h3",
      {},
      // The viewer in the second person, never by their user name (issue 20).
      current.seat === ctx.me
        ? fmt(t("Ваш поединок с банкиром %(banker)s"), { banker: ctx.seatName(view.banker) })
        : view.banker === ctx.me
          ? fmt(t("Поединок: %(player)s против вас, банкира"), { player: ctx.seatName(current.seat) })
          : fmt(t("Поединок: %(player)s против банкира %(banker)s"), {
              player: ctx.seatName(current.seat),
              banker: ctx.seatName(view.banker),
            }),
    ),
    h(
      "p",
      { class: "duel-bet" },
      current.bet === null || current.bet === undefined
        ? t("Ставка ещё не сделана")
        : fmt(t("Ставка: %(bet)s"), { bet: current.bet }),
    ),
    h(
      "div",
      { class: "hand banker-hand" },
      h(
        "div",
        { class: "hand-head" },
        h("span", {}, t("Карты банкира")),
        current.banker_cards.length ? totalBadge(current.banker_total, current.banker_cards) : h("span", { class: "muted" }, t("ещё нет")),
      ),
      current.banker_cards.length ? ctx.cards.cardsElement(current.banker_cards, 0) : null,
    ),
  );
}

function lastDuel(view, state, ctx) {
  const last = view.last_duel;
  if (!last || !last.hands) return null;
  const player = last.hands.find((hand) => hand.role !== "banker");
  const banker = last.hands.find((hand) => hand.role === "banker");
  if (!player) return null;
  return h(
    "section",
    { class: "last-duel", dataset: { outcome: player.outcome || "" } },
    h("h3", {}, t("Последний поединок")),
    h(
      "p",
      {},
      player.seat === ctx.me
        ? yourResult(player.outcome, player.delta, "chips", player.total > 21 ? "bust" : null)
        : fmt(t("%(name)s: %(outcome)s %(delta)s"), {
            name: ctx.seatName(player.seat),
            outcome: outcomeWord(player.outcome),
            delta: signed(player.delta),
          }),
      typeof last.bank === "number" ? " · " + fmt(t("банк %(bank)s"), { bank: formatNumber(last.bank) }) : "",
    ),
    h(
      "div",
      { class: "last-hands" },
      h(
        "div",
        { class: "hand" },
        h("div", { class: "hand-head" }, h("span", {}, ctx.seatName(player.seat)), totalBadge(player.total, player.cards)),
        ctx.cards.cardsElement(player.cards, 0),
      ),
      banker
        ? h(
            "div",
            { class: "hand" },
            h(
              "div",
              { class: "hand-head" },
              h("span", {}, fmt(t("Банкир %(name)s"), { name: ctx.seatName(banker.seat) })),
              banker.cards.length ? totalBadge(banker.total, banker.cards) : h("span", { class: "muted" }, t("не брал карт")),
            ),
            ctx.cards.cardsElement(banker.cards, 0),
          )
        : null,
    ),
  );
}

function finalLine(view, ctx) {
  const deltas = Object.entries(view.deltas || {});
  if (!deltas.length) return null;
  return h(
    "section",
    { class: "bank-result" },
    h("h3", {}, t("Итог банка")),
    h(
      "ul",
      { class: "deltas" },
      deltas.map(([id, delta]) =>
        h("li", { dataset: { seat: id } }, `${id === ctx.me ? t("Вы") : ctx.seatName(id)}: ${signed(delta)}`),
      ),
    ),
  );
}

// --- the bets: one button per offered amount --------------------------------------------------

/** The name of an offered bet: 1×, 2×, 5× the stake, or ва-банк (the whole bank). */
export function betName(amount, view) {
  if (amount === view.bank) return t("Ва-банк");
  const times = amount / view.stake;
  if (Number.isInteger(times)) return `${times}×`;
  return String(amount);
}

export function control(entry, state, ctx) {
  if (entry.action !== "bet" || !entry.amounts) return null;
  const view = state.game.view;
  const buttons = entry.amounts.map((amount) => {
    const times = amount / view.stake;
    const key = amount === view.bank ? "V" : [1, 2, 5].includes(times) ? String(times) : null;
    return h(
      "button",
      {
        type: "button",
        class: "action bet-offer",
        dataset: { action: "bet", amount: String(amount), key: `bet-${amount}`, shortcut: key },
        "aria-keyshortcuts": key,
        "aria-label": fmt(t("Ставка %(name)s: %(amount)s"), { name: betName(amount, view), amount: countText(amount, "chips") }),
        onclick: () => ctx.act("bet", { amount }),
      },
      h("span", { class: "bet-name" }, betName(amount, view)),
      h("span", { class: "bet-amount" }, String(amount)),
      key ? h("kbd", { "aria-hidden": "true" }, key) : null,
    );
  });
  return h(
    "div",
    { class: "bet-offers", role: "group", "aria-label": t("Сделать ставку") },
    h("p", { class: "bet-offers-title" }, t("Сделать ставку:")),
    buttons,
  );
}

export function seatNote(seat, state) {
  const view = state.game && state.game.view;
  if (!view || !view.seats) return null;
  const chips = chipsOf(view, seat.id);
  const parts = [];
  if (view.banker === seat.id && state.game.status === "playing") parts.push(t("банкир"));
  if (chips !== null) parts.push(countText(chips, "chips"));
  return parts.join(" · ") || null;
}

export function describe(event, state) {
  const name = (id) => seatName(id, state.table);
  // The viewer in the second person, never by their user name (issue 20).
  const mine = (id) => Boolean(id) && Boolean(state.you) && id === state.you.seat;
  switch (event.type) {
    case "bank_open":
      if (mine(event.banker)) return fmt(t("Вы держите банк: %(bank)s"), { bank: formatNumber(event.bank) });
      return fmt(t("%(name)s держит банк: %(bank)s"), { name: name(event.banker), bank: formatNumber(event.bank) });
    case "circle_start":
      return fmt(t("Круг %(n)s: банк %(bank)s, порядок — %(order)s"), {
        n: event.circle,
        bank: formatNumber(event.bank),
        order: (event.order || []).map(name).join(", "),
      });
    case "stuk":
      if (mine(event.banker)) return fmt(t("Стук! Вы играете второй круг, банк %(bank)s"), { bank: formatNumber(event.bank) });
      return fmt(t("Стук! %(name)s играет второй круг, банк %(bank)s"), { name: name(event.banker), bank: formatNumber(event.bank) });
    case "settle":
      // The viewer's own duel in the second person (issue 20): «Вы выиграли +25 фишек — …».
      if (state.you && event.seat === state.you.seat) {
        return fmt(t("%(result)s; банк %(bank)s"), {
          result: yourResult(event.outcome, event.delta, "chips", event.reason),
          bank: formatNumber(event.bank),
        });
      }
      return fmt(t("%(name)s: %(outcome)s %(delta)s — %(reason)s; банк %(bank)s"), {
        name: name(event.seat),
        outcome: outcomeWord(event.outcome),
        delta: signed(event.delta),
        reason: reasonText(event.reason),
        bank: formatNumber(event.bank),
      });
    case "sit_out":
      if (event.reason !== "cannot_afford") return null;
      if (mine(event.seat)) return t("Вы пропускаете: не хватает фишек");
      return fmt(t("%(name)s пропускает: не хватает фишек"), { name: name(event.seat) });
    case "bank_broken":
      if (mine(event.banker)) return t("Ваш банк сорван!");
      return fmt(t("Банк %(name)s сорван!"), { name: name(event.banker) });
    case "finished":
      return event.reason === "no_banker" ? t("Держать банк некому") : t("Банк сыгран");
    default:
      return null;
  }
}
