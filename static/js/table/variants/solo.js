// `solo`: one player against the computer banker, for the game's own coins
// (docs/rules/solo.md; docs/protocol.md §12.3). Coins, bank and bet in a panel, the
// banker's and the player's hands with their totals, the last round's result and quick bets
// (the card zoom is the page's own: static/js/table/zoom.js).

import { fill, fmt, formatNumber, h, pluralText, t } from "../dom.js";
import { amountText, countText, reasonHeadline, reasonText, seatName, totalText, yourResult } from "../text.js";

const QUICK_BETS = [25, 50, 100];

export const shortcuts = { hit: "H", stand: "S", bet: "B", next_round: "N", restart: "R", new_game: "G" };

let lastBet = 50;

function coins(n) {
  return fmt(t("%(n)s мон."), { n });
}

function totalBadge(total, cards) {
  const classes = ["total"];
  if (total > 21) classes.push("bust");
  if (total === 21) classes.push("twenty-one");
  return h("span", { class: classes.join(" ") }, totalText(total, cards));
}

function handBlock(title, cardsRow, total, key, extra = null, cards = null) {
  return h(
    "section",
    { class: `hand solo-${key}`, dataset: { hand: key } },
    h(
      "div",
      { class: "hand-head" },
      h("h3", {}, title),
      typeof total === "number"
        ? h("span", { class: "hand-total" }, h("span", { class: "visually-hidden" }, t("Очки:")), " ", totalBadge(total, cards))
        : null,
      extra,
    ),
    cardsRow,
  );
}

function resultLine(view, playerName, mine) {
  const result = view.result;
  if (!result) return null;
  const won = result.outcome === "win";
  // The player reads their own result in the second person (issue 20): «Вы выиграли».
  let who = won ? fmt(t("Выиграл %(name)s"), { name: playerName }) : t("Выиграл банкир");
  if (mine) who = won ? t("Вы выиграли") : t("Вы проиграли");
  return h(
    "div",
    { class: `solo-result ${won ? "won" : "lost"}`, role: "status", dataset: { outcome: result.outcome } },
    h("strong", { class: "result-who" }, who),
    h("span", { class: "result-delta" }, amountText(result.delta, "coins")),
    h("span", { class: "result-reason" }, reasonHeadline(result.reason)),
  );
}

function gameOverLine(view) {
  const text = {
    bank_broken: t("Банк сорван — вы выиграли игру!"),
    player_broke: t("Монеты кончились — игра окончена."),
    bank_closed: t("После стука банк закрыт — игра окончена."),
    rounds_played: t("Все раунды заезда сыграны — игра окончена."),
  }[view.game_over];
  return text ? h("p", { class: "solo-over", role: "status" }, text) : null;
}

export function render(area, state, ctx) {
  const focusKey = document.activeElement && area.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  const game = state.game;
  const pending = state.table.pending;
  const view = game ? game.view : null;
  if (pending && !(game && game.status === "playing")) {
    fill(area, h("p", { class: "felt-empty" }, t("Тасуем колоду для новой игры…")));
  } else if (!view) {
    const text = ctx.me ? t("Ждём раздачу…") : t("Сядьте за стол, чтобы начать игру: 1000 монет против банка 300.");
    fill(area, h("p", { class: "felt-empty" }, text));
  } else {
    fill(area, h("div", { class: "solo-top" }, panel(view)), table(view, ctx));
  }
  refocus(area, focusKey);
}

function refocus(area, key) {
  if (!key) return;
  const again = area.querySelector(`[data-key="${key}"]`);
  if (again) again.focus();
}

function panel(view) {
  const betText = view.bet === null || view.bet === undefined ? "—" : coins(view.bet);
  return h(
    "dl",
    { class: "solo-panel" },
    h("div", { class: "stat", dataset: { stat: "coins" } }, h("dt", {}, t("Монеты")), h("dd", {}, String(view.coins))),
    h("div", { class: "stat", dataset: { stat: "bank" } }, h("dt", {}, t("Банк")), h("dd", {}, String(view.bank))),
    h("div", { class: "stat", dataset: { stat: "bet" } }, h("dt", {}, t("Ставка")), h("dd", {}, betText)),
    view.rounds_total ? roundStat(view) : null,
    view.stuk ? h("div", { class: "stat stuk" }, h("dt", {}, t("Стук")), h("dd", {}, t("последняя раздача"))) : null,
  );
}

/** A tournament heat's game of a fixed number of rounds: which round this is. */
function roundStat(view) {
  const current = Math.min(view.rounds_total, view.rounds_played + (view.phase === "over" ? 0 : 1));
  return h(
    "div",
    { class: "stat", dataset: { stat: "rounds" } },
    h("dt", {}, t("Раунд")),
    h("dd", {}, fmt(t("%(n)s из %(total)s"), { n: current, total: view.rounds_total })),
  );
}

function table(view, ctx) {
  const banker = view.banker || { cards: [], hidden: 0 };
  const bankerRow = ctx.cards.cardsElement(banker.cards, banker.hidden || 0);
  const handRow = ctx.cards.cardsElement(view.hand ? view.hand.cards : [], 0);
  const playerName = ctx.seatName(view.player);
  return h(
    "div",
    { class: "solo-table" },
    handBlock(t("Банкир"), bankerRow, banker.hidden ? null : banker.total, "banker", null, banker.cards),
    handBlock(
      ctx.me === view.player ? t("Ваши карты") : fmt(t("Карты: %(name)s"), { name: playerName }),
      handRow,
      view.hand && view.hand.cards.length ? view.hand.total : null,
      "player",
      null,
      view.hand ? view.hand.cards : null,
    ),
    view.phase === "over" || view.game_over ? resultLine(view, playerName, ctx.me === view.player) : null,
    gameOverLine(view),
  );
}

// --- the action bar: the bet with quick amounts; the secondary commands ---------------------

// «Начать заново» and «Новая игра» sound alike: each says under its name what it does.
function startButton(action, onclick, extraClass = "") {
  const key = shortcuts[action];
  const restart = action === "restart";
  return h(
    "button",
    {
      type: "button",
      class: `action solo-start ${extraClass}`.trim(),
      dataset: { action, shortcut: key },
      "aria-keyshortcuts": key,
      title: restart
        ? t("Сыграть эту раздачу ещё раз с тем же порядком карт. Только до ставки.")
        : t("Начать игру сначала: монеты и банк снова как в начале, и новая раздача."),
      onclick,
    },
    h("span", { class: "action-label" }, restart ? t("Начать заново") : t("Новая игра")),
    h("kbd", { "aria-hidden": "true" }, key),
    h("span", { class: "action-hint" }, restart ? t("те же карты ещё раз") : t("монеты и банк с начала")),
  );
}

export function control(entry, state, ctx) {
  if (entry.action === "bet") return betForm(entry, ctx);
  if (entry.action === "restart" || entry.action === "new_game") {
    return startButton(entry.action, () => ctx.act(entry.action), "secondary");
  }
  return null;
}

function betForm(entry, ctx) {
  const min = entry.min || 1;
  const max = entry.max || min;
  const clamp = (n) => Math.max(min, Math.min(max, n));
  const input = h("input", {
    id: "solo-bet",
    type: "number",
    inputmode: "numeric",
    min,
    max,
    step: 1,
    value: clamp(lastBet),
    dataset: { key: "bet-amount" },
    required: true,
  });
  const quick = QUICK_BETS.map((amount) =>
    h(
      "button",
      {
        type: "button",
        class: "quick",
        dataset: { quick: String(amount), key: `quick-${amount}`, off: amount > max ? "true" : "false" },
        disabled: amount > max,
        onclick: () => {
          input.value = String(amount);
        },
      },
      String(amount),
    ),
  );
  quick.push(
    h(
      "button",
      {
        type: "button",
        class: "quick",
        dataset: { quick: "max", key: "quick-max" },
        "aria-label": fmt(t("Макс. — %(n)s"), { n: max }),
        onclick: () => {
          input.value = String(max);
        },
      },
      t("Макс."),
    ),
  );
  const form = h(
    "form",
    {
      class: "bet-form",
      dataset: { key: "bet" },
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        const amount = Number(input.value);
        if (!Number.isInteger(amount) || amount < min || amount > max) {
          input.setCustomValidity(pluralText(max, t("Ставка — от %(min)s до %(max)s монеты."), t("Ставка — от %(min)s до %(max)s монет."), { min, max }));
          input.reportValidity();
          return;
        }
        input.setCustomValidity("");
        lastBet = amount;
        ctx.act("bet", { amount });
      },
    },
    h("div", { class: "quick-bets", role: "group", "aria-label": t("Быстрая ставка") }, quick),
    h(
      "div",
      { class: "bet-row" },
      h("label", { for: "solo-bet", class: "bet-label" }, fmt(t("Ставка (%(min)s–%(max)s)"), { min, max })),
      input,
      h(
        "button",
        { type: "submit", class: "action", dataset: { action: "bet", shortcut: "B" }, "aria-keyshortcuts": "B" },
        t("Сделать ставку"),
        h("kbd", { "aria-hidden": "true" }, "B"),
      ),
    ),
  );
  input.addEventListener("input", () => input.setCustomValidity(""));
  return form;
}

/** «Новая игра» once a game is over (bank broken, player broke, bank closed): the command,
 * since the game takes no more actions (docs/protocol.md §9.4). */
export function extras(state, ctx) {
  const game = state.game;
  if (!ctx.me || state.table.pending || state.table.status !== "open") return [];
  if (game && game.status === "playing") return [];
  // A tournament's heat (its shoe's context names minus the tournament) is one game.
  if (game && game.context && game.context.table < 0) return [];
  return [startButton("new_game", () => ctx.command("new_game"))];
}

export function seatNote(seat, state) {
  const view = state.game && state.game.view;
  if (!view || view.player !== seat.id) return null;
  return coins(view.coins);
}

export function describe(event, state) {
  if (event.type === "stuk") return fmt(t("Стук! Банк %(bank)s — последняя раздача"), { bank: formatNumber(event.bank) });
  if (event.type === "bet") {
    return fmt(t("Ставка %(amount)s, осталось: %(coins)s"), { amount: formatNumber(event.amount), coins: countText(event.coins, "coins") });
  }
  if (event.type === "settle") {
    const me = state.you && state.you.seat;
    if (me && event.seat === me) return yourResult(event.outcome, event.delta, "coins", event.reason);
    const who =
      event.outcome === "win"
        ? fmt(t("Выиграл %(name)s"), { name: seatName(event.seat, state.table) })
        : t("Выиграл банкир");
    return fmt(t("%(who)s: %(delta)s — %(reason)s"), {
      who,
      delta: amountText(event.delta, "coins"),
      reason: reasonText(event.reason),
    });
  }
  if (event.type === "finished") {
    return {
      bank_broken: t("Банк сорван — игра окончена"),
      player_broke: t("Монеты кончились — игра окончена"),
      bank_closed: t("Банк закрыт — игра окончена"),
      rounds_played: t("Раунды заезда сыграны — игра окончена"),
    }[event.reason] || t("Игра окончена");
  }
  return null;
}
