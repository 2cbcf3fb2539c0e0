// `blackjack`: European blackjack training, for units (docs/rules/blackjack.md;
// docs/protocol.md §12.5). The dealer's hand (the hole card face down), every seat's hands
// — several after splits, each with its total and wager —, AI seats labelled with their
// level, the session balance in units, the last round's settlement, «Завершить сессию»
// (among the table's controls),
// and the training table's AI seats (add / remove between shoes).

import { fill, fmt, h, t } from "../dom.js";
import { aiLevelName, countText, outcomeWord } from "../text.js";

export const shortcuts = { hit: "H", stand: "S", double: "D", split: "P" };

// The pause after a settled round (game.clock_starts, BLACKJACK_ROUND_PAUSE_SECONDS): the
// settled round stays on the felt, each hand with its outcome, and the next decision waits
// for it (static/js/table/main.js).
export const holdsRoundPause = true;

const LEVELS = ["easy", "medium", "hard"];
let chosenLevel = "medium";

function units(value, language) {
  return fmt(t("%(n)s ед."), { n: signedNumber(value, language) });
}

function totalBadge(total, soft) {
  const classes = ["total"];
  if (total > 21) classes.push("bust");
  if (total === 21) classes.push("twenty-one");
  const text = soft && total <= 21 ? fmt(t("%(total)s мягк."), { total }) : String(total);
  return h("span", { class: classes.join(" "), title: soft ? t("мягкая сумма: туз считается за 11") : null }, text);
}

function seatTitle(id, state, ctx) {
  const seat = state.table.seats.find((s) => s.id === id);
  const name = ctx.seatName(id);
  if (seat && seat.ai) return [name, " ", h("span", { class: "pill ai-level" }, aiLevelName(seat.ai))];
  return [name];
}

function handElement(hand, index, ctx, mine) {
  const flags = [];
  const settled = Boolean(hand.outcome);
  if (hand.natural && !settled) flags.push(h("span", { class: "pill gold" }, t("Блэкджек")));
  if (hand.split) flags.push(h("span", { class: "pill" }, t("после разделения")));
  if (hand.wager === 2) flags.push(h("span", { class: "pill" }, t("удвоено")));
  if (hand.done && !hand.natural && !settled) flags.push(h("span", { class: "pill" }, t("закрыта")));
  return h(
    "li",
    {
      class: `bj-hand${hand.active ? " active" : ""}${hand.done ? " done" : ""}${settled ? ` settled ${hand.outcome}` : ""}`,
      dataset: { hand: String(index), wager: String(hand.wager), active: hand.active ? "true" : "false", outcome: hand.outcome || null },
      "aria-current": hand.active && mine ? "true" : null,
    },
    h(
      "div",
      { class: "hand-head" },
      h("span", { class: "hand-index" }, fmt(t("Рука %(n)s"), { n: index + 1 })),
      totalBadge(hand.total, hand.soft),
      settled ? null : h("span", { class: "muted" }, fmt(t("ставка %(n)s"), { n: hand.wager })),
      flags,
      hand.active ? h("span", { class: "pill gold" }, mine ? t("ваш ход") : t("ходит")) : null,
      // The settled hand's outcome, on the hand: «Перебор», «+1», «−1», «Ничья», «Блэкджек +1,5».
      settled ? h("span", { class: `bj-outcome ${hand.outcome}` }, settledText(hand, ctx.config.language)) : null,
    ),
    ctx.cards.cardsElement(hand.cards, 0),
  );
}

function seatBlock(id, hands, balance, state, ctx, mine) {
  const game = state.game;
  const carry = (game.carry || {})[id] || 0;
  const onTurn = game.status === "playing" && game.view.turn === id && !hands.some((hand) => hand.outcome);
  return h(
    "section",
    { class: `bj-seat${mine ? " mine" : ""}${onTurn ? " on-turn" : ""}`, dataset: { seat: id, hands: String(hands.length) } },
    h(
      "div",
      { class: "hand-head" },
      h("h3", {}, mine ? t("Ваши руки") : seatTitle(id, state, ctx)),
      h(
        "span",
        { class: "session-balance", dataset: { balance: String(Number(balance || 0) + carry) } },
        fmt(t("баланс сессии: %(units)s"), { units: units(Number(balance || 0) + carry, ctx.config.language) }),
      ),
    ),
    hands.length
      ? h("ol", { class: "bj-hands" }, hands.map((hand, index) => handElement(hand, index, ctx, mine)))
      : h("p", { class: "muted" }, t("нет карт в этой раздаче")),
  );
}

function dealerBlock(view, ctx) {
  const dealer = view.dealer || { cards: [], hidden: 0 };
  return h(
    "section",
    { class: "bj-dealer hand", dataset: { hidden: String(dealer.hidden || 0) } },
    h(
      "div",
      { class: "hand-head" },
      h("h3", {}, t("Дилер")),
      dealer.cards.length ? totalBadge(dealer.total, dealer.soft) : null,
      dealer.hidden ? h("span", { class: "muted" }, t("одна карта закрыта")) : null,
    ),
    ctx.cards.cardsElement(dealer.cards, dealer.hidden || 0),
  );
}

/** A number with its sign and a true minus («+1,5», «−1»), for the page's language. */
function signedNumber(value, language) {
  return new Intl.NumberFormat(language || undefined, { maximumFractionDigits: 1, signDisplay: "exceptZero" })
    .format(Number(value || 0))
    .replace(/-/g, "\u2212"); // a true minus, as formatSigned (dom.js)
}

/** A settled hand's outcome, shown on the hand: «Перебор», «+1», «−1», «Ничья», «Блэкджек +1,5». */
function settledText(hand, language) {
  if (hand.total > 21) return hand.delta === -1 ? t("Перебор") : `${t("Перебор")} ${signedNumber(hand.delta, language)}`;
  if (hand.outcome === "push") return t("Ничья");
  if (hand.outcome === "win" && hand.delta === 1.5) return `${t("Блэкджек")} ${signedNumber(hand.delta, language)}`;
  return signedNumber(hand.delta, language);
}

/** The settled round on the felt: the dealer's whole hand and every seat's hands, each with
 * its outcome on it (while the pause after it runs, and once the shoe or session is over). */
function settledRound(view, state, ctx, heading) {
  const last = view.last_round;
  if (!last || !last.hands) return [];
  const dealer = last.hands.find((hand) => hand.seat === "dealer");
  const parts = [h("p", { class: "bj-round pill" }, heading)];
  if (dealer) {
    parts.push(
      h(
        "section",
        { class: "bj-dealer hand settled", dataset: { hidden: "0" } },
        h("div", { class: "hand-head" }, h("h3", {}, t("Дилер")), totalBadge(dealer.total, false), dealer.total > 21 ? h("span", { class: "pill" }, t("Перебор")) : null),
        ctx.cards.cardsElement(dealer.cards, 0),
      ),
    );
  }
  const seats = h("div", { class: "bj-seats settled" });
  for (const id of state.game.seats) {
    const own = last.hands.filter((hand) => hand.seat === id);
    if (!own.length) continue;
    const hands = own.map((hand) => ({
      cards: hand.cards,
      total: hand.total,
      soft: false,
      wager: Math.abs(hand.delta) === 2 ? 2 : 1, // a doubled push is not told apart
      split: own.length > 1,
      natural: hand.delta === 1.5,
      done: true,
      active: false,
      outcome: hand.outcome,
      delta: hand.delta,
    }));
    const balance = (view.balances || {})[id];
    seats.append(seatBlock(id, hands, balance, state, ctx, id === view.seat));
  }
  parts.push(seats);
  return parts;
}

function lastRound(view, ctx) {
  const last = view.last_round;
  if (!last || !last.hands) return null;
  const dealer = last.hands.find((hand) => hand.seat === "dealer");
  const hands = last.hands.filter((hand) => hand.seat !== "dealer");
  return h(
    "details",
    { class: "bj-last", open: true },
    h("summary", {}, t("Прошлая раздача")),
    dealer
      ? h(
          "div",
          { class: "hand" },
          h("div", { class: "hand-head" }, h("span", {}, t("Дилер")), totalBadge(dealer.total, false)),
          ctx.cards.cardsElement(dealer.cards, 0),
        )
      : null,
    h(
      "ul",
      { class: "bj-last-list" },
      hands.map((hand) => {
        const own = hands.filter((other) => other.seat === hand.seat);
        const number = own.indexOf(hand) + 1;
        return h(
          "li",
          { dataset: { seat: hand.seat, outcome: hand.outcome, hand: String(number) } },
          // The viewer's own hands in the second person, never with their user name.
          h("strong", {}, hand.seat === view.seat ? t("Вы") : ctx.seatName(hand.seat)),
          own.length > 1 ? [" ", h("span", { class: "hand-index" }, fmt(t("Рука %(n)s"), { n: number }))] : null,
          ` ${countText(hand.cards.length, "cards")}, ${hand.total} — ${outcomeWord(hand.outcome)} `,
          h("span", { class: `bj-outcome ${hand.outcome}` }, settledText(hand, ctx.config.language)),
        );
      }),
    ),
  );
}

function trainingControls(state, ctx) {
  const table = state.table;
  const game = state.game;
  const between = !(game && game.status === "playing") && !table.pending && table.status === "open";
  // A tournament's heat is played alone against the dealer: no AI seats there.
  if (!ctx.me || !between || ctx.config.one_game) return null;
  const ais = table.seats.filter((seat) => seat.ai);
  const free = table.seat_count - table.seats.length;
  const select = h(
    "select",
    {
      id: "bj-ai-level",
      dataset: { key: "ai-level" },
      onchange: (event) => {
        chosenLevel = event.target.value;
      },
    },
    LEVELS.map((level) => h("option", { value: level, selected: level === chosenLevel }, aiLevelName(level))),
  );
  return h(
    "section",
    { class: "bj-training" },
    h("h3", {}, t("ИИ за столом")),
    free > 0
      ? h(
          "div",
          { class: "bj-add-ai" },
          h("label", { for: "bj-ai-level" }, t("Уровень")),
          select,
          h("button", { type: "button", dataset: { key: "add-ai" }, onclick: () => ctx.command("add_ai", { level: select.value }) }, t("Добавить ИИ")),
        )
      : null,
    ais.length
      ? h(
          "ul",
          { class: "bj-ai-list" },
          ais.map((seat) =>
            h(
              "li",
              {},
              h(
                "button",
                { type: "button", dataset: { key: `remove-ai-${seat.number}` }, onclick: () => ctx.command("remove_ai", { number: seat.number }) },
                fmt(t("Убрать ИИ %(n)s"), { n: seat.number }),
              ),
            ),
          ),
        )
      : null,
  );
}

export function render(area, state, ctx) {
  const focusKey = document.activeElement && area.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  const game = state.game;
  const view = game ? game.view : null;
  const pending = state.table.pending;
  const parts = [];
  if (!view || game.status !== "playing") {
    delete area.dataset.round;
    delete area.dataset.settled;
    if (pending) parts.push(h("p", { class: "felt-empty" }, t("Тасуем шуз…")));
    else if (ctx.config.one_game) {
      // A tournament's heat: one game, dealt by the event; the status line says where its result is.
      if (game && game.status === "finished") parts.push(h("p", { class: "felt-empty" }, t("Турнирная игра сыграна.")));
    } else if (game && game.status === "finished" && !state.table.next_game_at) parts.push(h("p", { class: "felt-empty" }, t("Сессия окончена. Нажмите «Начать игру», чтобы начать новую.")));
    else if (!game) parts.push(h("p", { class: "felt-empty" }, t("Сядьте за стол, добавьте ИИ, если хотите, и нажмите «Начать игру».")));
    if (view && game.status !== "playing") {
      const balances = Object.entries(view.balances || {});
      if (balances.length) {
        parts.push(
          h(
            "section",
            { class: "bj-session" },
            h("h3", {}, t("Баланс сессии")),
            h(
              "ul",
              {},
              balances.map(([id, value]) =>
                h("li", { dataset: { seat: id } }, `${ctx.seatName(id)}: `, units(value + ((game.carry || {})[id] || 0), ctx.config.language)),
              ),
            ),
          ),
        );
      }
      // The shoe's last round, settled: its hands on the felt with their outcomes.
      parts.push(settledRound(view, state, ctx, t("Последняя раздача")));
    }
    parts.push(trainingControls(state, ctx));
    fill(area, parts);
    refocus(area, focusKey);
    return;
  }
  if (view.last_round && pauseLeft(game, ctx) > 0) {
    // The pause after a settled round: that round stays on the felt, each hand with its
    // outcome; the next one (already dealt) is drawn when the pause ends.
    area.dataset.round = String(view.round - 1);
    area.dataset.settled = "true";
    fill(area, settledRound(view, state, ctx, fmt(t("Итоги раздачи %(n)s"), { n: view.round - 1 })));
    return;
  }
  delete area.dataset.settled;
  area.dataset.round = String(view.round);
  parts.push(h("p", { class: "bj-round pill" }, fmt(t("Раздача %(n)s"), { n: view.round })));
  parts.push(dealerBlock(view, ctx));
  const seats = h("div", { class: "bj-seats" });
  const order = game.seats;
  for (const id of order) {
    if (id === view.seat) {
      seats.append(seatBlock(id, view.hands || [], view.balance, state, ctx, true));
    } else {
      const other = (view.others || []).find((entry) => entry.seat === id);
      if (other) seats.append(seatBlock(id, other.hands, other.balance, state, ctx, false));
    }
  }
  parts.push(seats);
  parts.push(lastRound(view, ctx));
  fill(area, parts);
  refocus(area, focusKey);
}

/** Milliseconds left of the pause after a settled round (0: none, or over). */
function pauseLeft(game, ctx) {
  if (!game || game.status !== "playing" || game.paused || !game.clock_starts || !ctx.now) return 0;
  return Math.max(0, game.clock_starts - ctx.now());
}

function refocus(area, key) {
  if (!key) return;
  const again = area.querySelector(`[data-key="${key}"]`);
  if (again) again.focus();
}

/** «Завершить сессию» while a shoe is in play: a command about the table, not a move, so
 * it stands with «Встать из-за стола» and «В лобби», away from the moves' bar. */
export function tableControls(state, ctx) {
  const game = state.game;
  if (!ctx.me || !game || game.status !== "playing" || !game.seats.includes(ctx.me)) return [];
  return [
    h(
      "button",
      {
        type: "button",
        class: "control end-session",
        dataset: { control: "end_session" },
        title: t("Закончить тренировку: раздача в игре не засчитывается"),
        onclick: () => ctx.command("end_session"),
      },
      t("Завершить сессию"),
    ),
  ];
}

export function seatNote(seat, state) {
  const game = state.game;
  const view = game && game.view;
  if (!view || !view.balances || !(seat.id in view.balances)) return null;
  const carry = (game.carry || {})[seat.id] || 0;
  return units(view.balances[seat.id] + carry, document.documentElement.lang);
}

export function describe(event, state) {
  if (event.type === "settle" && event.hands) {
    const parts = event.hands
      .filter((hand) => hand.outcome)
      .map((hand) => {
        const seat = state.table.seats.find((s) => s.id === hand.seat);
        // The viewer's own hand in the second person, never with their user name (issue 20).
        const mine = state.you && state.you.seat && hand.seat === state.you.seat;
        const name = mine ? t("Вы") : seat ? (seat.ai ? fmt(t("ИИ %(number)s"), { number: seat.number }) : seat.name) : hand.seat;
        return `${name} ${units(hand.delta, document.documentElement.lang)}`;
      });
    const dealer = event.hands.find((hand) => hand.seat === "dealer");
    const head = dealer ? fmt(t("Дилер: %(total)s"), { total: dealer.total }) : t("Итог раздачи");
    return `${head}. ${parts.join(", ")}`;
  }
  if (event.type === "round_start") {
    return event.new_shoe ? fmt(t("Раздача %(n)s, новый шуз"), { n: event.round }) : fmt(t("Раздача %(n)s"), { n: event.round });
  }
  if (event.type === "finished") {
    // A tournament's heat is its one shoe: no next one follows.
    if (state.config && state.config.one_game) return t("Шуз кончился: турнирная игра окончена");
    return t("Шуз кончился: следующий после перерыва");
  }
  return null;
}
