// The games' words (docs/glossary.md) for the table page: action labels, seat
// names and the generic text of every event (docs/protocol.md §11, §12). A variant
// module may describe an event itself (its `describe` export); these are the defaults.

import { cardName } from "../cards.js";
import { fmt, formatNumber, formatSigned, plural, signed, t } from "./dom.js";

/** The action bar's labels (Russian msgids). */
export function actionLabel(action) {
  const labels = {
    hit: t("Ещё карту"),
    stand: t("Хватит"),
    double: t("Удвоить"),
    split: t("Разделить"),
    bet: t("Сделать ставку"),
    cut: t("Снять колоду"),
    stuk: t("Стук"),
    surrender: t("Сдаться"),
    next_round: t("Следующая раздача"),
    new_game: t("Новая игра"),
    restart: t("Начать заново"),
  };
  return labels[action] || action;
}

/** Default keyboard shortcuts (a variant module may add or change them). */
export const DEFAULT_SHORTCUTS = {
  hit: "H",
  stand: "S",
  double: "D",
  split: "P",
  bet: "B",
  cut: "C",
  next_round: "N",
  restart: "R",
  new_game: "G",
};

export function aiLevelName(level) {
  return { easy: t("лёгкий"), medium: t("средний"), hard: t("сильный") }[level] || level;
}

/** An AI seat's label, built from its number and level (not the server's `name`, whose
 * language is not the page's: docs/protocol.md §2.5). */
export function aiLabel(seat) {
  return fmt(t("ИИ %(number)s"), { number: seat.number });
}

/** The display name of a seat id: a player's name, an AI's label, the engine's roles. */
export function seatName(id, table) {
  if (id === "dealer") return t("Дилер");
  if (id === "banker" || id === "bank") return t("Банкир");
  const seat = (table && table.seats ? table.seats : []).find((s) => s.id === id);
  if (seat) return seat.ai ? aiLabel(seat) : seat.name;
  const ai = /^ai:(\d+)$/.exec(id || "");
  if (ai) return fmt(t("ИИ %(number)s"), { number: ai[1] });
  return String(id);
}

export function outcomeWord(outcome) {
  return (
    { win: t("выигрыш"), loss: t("проигрыш"), push: t("ничья"), lose: t("проигрыш") }[outcome] ||
    outcome
  );
}

/** Why a hand won or lost (settle reasons of solo and banker36). */
export function reasonText(reason) {
  return (
    {
      bust: t("перебор"),
      golden_point: t("золотое очко"),
      twenty_one: t("двадцать одно"),
      banker_bust: t("перебор у банкира"),
      dealer_bust: t("перебор у дилера"),
      higher: t("больше очков"),
      tie_to_banker: t("равные очки — в пользу банкира"),
      lower: t("меньше очков"),
      timeout: t("время вышло"),
    }[reason] || reason
  );
}

/** A hand's total as the player reads it: «Золотое очко!» for two aces (36-card games),
 * «23, перебор» over 21, else the number (issue 20: one word for each, everywhere). */
export function totalText(total, cards = null) {
  const codes = cards || [];
  if (codes.length === 2 && codes.every((code) => String(code)[0] === "A")) return t("Золотое очко!");
  if (total > 21) return fmt(t("%(total)s, перебор"), { total });
  return String(total);
}

/** The reason of a result said on its own (capitalised): «Перебор», «Золотое очко!». */
export function reasonHeadline(reason) {
  if (reason === "bust") return t("Перебор");
  if (reason === "golden_point") return t("Золотое очко!");
  return reasonText(reason);
}

function cardList(codes) {
  return (codes || []).map(cardName).join(", ");
}

function withTotal(text, total) {
  if (typeof total !== "number") return text;
  const sum = fmt(t("%(text)s — %(total)s"), { text, total });
  return total > 21 ? fmt(t("%(text)s, перебор"), { text: sum }) : sum;
}

/**
 * The generic text of one event for the log and the live region, or null for events
 * not worth a line. `table` names the seats.
 */
export function describeEvent(event, table, me = null) {
  const name = (id) => seatName(id, table);
  if (me) {
    const mine = describeMine(event, me);
    if (mine) return mine;
  }
  // «Вы» rather than the viewer's own user name in the lines that name a seat before a colon.
  const who = me && event.seat === me ? t("Вы") : name(event.seat);
  switch (event.type) {
    case "sat_down":
      return fmt(t("%(name)s садится за стол"), { name: who });
    case "stood_up":
      return event.reason === "away"
        ? fmt(t("%(name)s нет на связи: место освобождено"), { name: who })
        : fmt(t("%(name)s встаёт из-за стола"), { name: who });
    case "leaving":
      return fmt(t("%(name)s уходит после этой игры"), { name: who });
    case "ready":
      return event.ready
        ? fmt(t("%(name)s: «Готов»"), { name: who })
        : fmt(t("%(name)s: «Не готов»"), { name: who });
    case "shuffle_commit":
      return fmt(t("Игра %(game)s объявлена: колода перетасована, её отпечаток опубликован"), {
        game: event.game,
      });
    case "client_seed":
      return fmt(t("Ключ игрока %(name)s принят"), { name: who });
    case "game_start":
      return fmt(t("Игра %(game)s: карты сдаются"), { game: event.game });
    case "paused":
      return t("Пауза");
    case "resumed":
      return t("Игра продолжается");
    case "away":
      return fmt(t("Ждём игрока %(name)s"), { name: who });
    case "waiting_for_players":
      return t("Ждём игроков");
    case "session_end":
      return t("Сессия окончена");
    case "table_closed":
      return t("Стол закрыт");
    case "table_closing":
      return t("Стол закроется, когда ставки в игре будут разыграны");
    case "game_voided":
      return t("Игра отменена, ставки возвращены");
    case "round_start":
      if (event.round) return fmt(t("Раздача %(n)s"), { n: event.round });
      if (event.deal) return fmt(t("Раздача %(n)s"), { n: event.deal });
      return t("Новая раздача");
    case "deal":
      if (event.hole) return t("Дилер кладёт карту рубашкой вверх");
      if (event.face_down) return t("Банкир берёт карту рубашкой вверх");
      if (event.card) {
        return withTotal(
          fmt(t("%(name)s получает карту: %(card)s"), { name: who, card: cardName(event.card) }),
          event.total,
        );
      }
      if (event.cards) {
        return fmt(t("%(name)s получает карты: %(cards)s"), { name: who, cards: cardList(event.cards) });
      }
      return fmt(t("%(name)s получает карту"), { name: who });
    case "turn":
      return fmt(t("Ход: %(name)s"), { name: who });
    case "hit":
      if (event.card) {
        return withTotal(
          fmt(t("%(name)s: ещё карту — %(card)s"), { name: who, card: cardName(event.card) }),
          event.total,
        );
      }
      return fmt(t("%(name)s: ещё карту"), { name: who });
    case "double":
      return event.card
        ? fmt(t("%(name)s: удвоить — %(card)s"), { name: who, card: cardName(event.card) })
        : fmt(t("%(name)s: удвоить"), { name: who });
    case "split":
      return fmt(t("%(name)s: разделить"), { name: who });
    case "stand":
      if (event.timeout) return fmt(t("%(name)s: время вышло — хватит"), { name: who });
      if (event.auto) return fmt(t("%(name)s: двадцать одно, рука закрыта"), { name: who });
      return withTotal(fmt(t("%(name)s: хватит"), { name: who }), event.total);
    case "hand_over":
    case "hand_end":
      return fmt(t("%(name)s: рука закрыта"), { name: who });
    case "reveal":
      if (event.card) {
        return withTotal(
          fmt(t("%(name)s открывает карту: %(card)s"), { name: who, card: cardName(event.card) }),
          event.total,
        );
      }
      if (event.cards) {
        return withTotal(
          fmt(t("%(name)s открывает карты: %(cards)s"), { name: who, cards: cardList(event.cards) }),
          event.total,
        );
      }
      return null;
    case "dealer_draw":
      return withTotal(fmt(t("Дилер берёт карту: %(card)s"), { card: cardName(event.card) }), event.total);
    case "banker_draw":
      return withTotal(fmt(t("Банкир берёт карту: %(card)s"), { card: cardName(event.card) }), event.total);
    case "bet":
      return event.all_in
        ? fmt(t("%(name)s: ва-банк, %(amount)s"), { name: who, amount: formatNumber(event.amount) })
        : fmt(t("%(name)s: ставка %(amount)s"), { name: who, amount: formatNumber(event.amount) });
    case "sit_out":
      return event.reason === "timeout"
        ? fmt(t("%(name)s пропускает: время вышло"), { name: who })
        : fmt(t("%(name)s пропускает раздачу"), { name: who });
    case "settle":
      return describeSettle(event, name, me);
    case "finished":
      return t("Игра окончена");
    case "stuk":
      return t("Стук!");
    case "bank_open":
      return fmt(t("%(name)s держит банк: %(bank)s"), { name: name(event.banker), bank: formatNumber(event.bank) });
    case "circle_start":
      return fmt(t("Круг %(n)s, банк %(bank)s"), { n: event.circle, bank: formatNumber(event.bank) });
    case "collect":
      return fmt(t("%(name)s забирает банк: %(amount)s"), { name: name(event.banker), amount: formatNumber(event.amount) });
    case "bank_broken":
      return t("Банк сорван!");
    case "reshuffle":
      return t("Сброс перетасован в колоду");
    case "lot":
      return fmt(t("Банк по жребию: %(name)s"), { name: who });
    case "bank":
      return event.seat
        ? fmt(t("Банк переходит: %(name)s"), { name: who })
        : t("Банк держать некому");
    case "shuffle":
      return t("Талия перетасована");
    case "cut":
      return event.by === "server"
        ? t("Время вышло: колоду снимает сервер")
        : fmt(t("%(name)s снимает колоду"), { name: who });
    case "shoe_end":
      return t("Талия кончилась");
    case "remove":
      return fmt(t("%(name)s выбывает из партии"), { name: name(event.target) });
    case "new_game":
      return fmt(t("Новая игра: %(coins)s, банк %(bank)s"), { coins: countText(event.coins, "coins"), bank: formatNumber(event.bank) });
    case "restart":
      return t("Раздача заново, те же карты");
    default:
      return null;
  }
}

/** The viewer's own events in the second person (issue 20: never their user name for
 * «you»), or null to use the generic line. `me` is the viewer's seat id. */
function describeMine(event, me) {
  const own = event.seat === me;
  switch (event.type) {
    case "sat_down":
      return own ? t("Вы садитесь за стол") : null;
    case "stood_up":
      if (!own) return null;
      return event.reason === "away" ? t("Вас нет на связи: место освобождено") : t("Вы встаёте из-за стола");
    case "leaving":
      return own ? t("Вы уходите после этой игры") : null;
    case "client_seed":
      return own ? t("Ваш ключ принят") : null;
    case "turn":
      return own ? t("Ваш ход") : null;
    case "deal":
      if (!own || event.hole || event.face_down) return null;
      if (event.card) {
        return withTotal(fmt(t("Вы получаете карту: %(card)s"), { card: cardName(event.card) }), event.total);
      }
      if (event.cards) return fmt(t("Вы получаете карты: %(cards)s"), { cards: cardList(event.cards) });
      return t("Вы получаете карту");
    case "reveal":
      if (!own) return null;
      if (event.card) {
        return withTotal(fmt(t("Вы открываете карту: %(card)s"), { card: cardName(event.card) }), event.total);
      }
      if (event.cards) {
        return withTotal(fmt(t("Вы открываете карты: %(cards)s"), { cards: cardList(event.cards) }), event.total);
      }
      return null;
    case "hand_over":
    case "hand_end":
      return own ? t("Ваша рука закрыта") : null;
    case "sit_out":
      if (!own) return null;
      return event.reason === "timeout" ? t("Вы пропускаете: время вышло") : t("Вы пропускаете раздачу");
    case "cut":
      return own && event.by !== "server" ? t("Вы снимаете колоду") : null;
    case "bank_open":
      return event.banker === me ? fmt(t("Вы держите банк: %(bank)s"), { bank: formatNumber(event.bank) }) : null;
    case "collect":
      return event.banker === me ? fmt(t("Вы забираете банк: %(amount)s"), { amount: formatNumber(event.amount) }) : null;
    case "lot":
      return own ? t("Банк по жребию достаётся вам") : null;
    case "bank":
      return own ? t("Банк переходит к вам") : null;
    case "remove":
      return event.target === me ? t("Вы выбываете из партии") : null;
    default:
      return null;
  }
}

function describeSettle(event, name, me) {
  if (event.seat && event.outcome) {
    // The viewer's own result in the second person (issue 20): «Вы выиграли +25 — …».
    if (me && event.seat === me) return yourResult(event.outcome, event.delta, null, event.reason);
    const parts = [
      fmt(t("%(name)s: %(outcome)s %(delta)s"), {
        name: name(event.seat),
        outcome: outcomeWord(event.outcome),
        delta: signed(event.delta),
      }),
    ];
    if (event.reason) parts.push(reasonText(event.reason));
    return parts.join(" — ");
  }
  const hands = (event.hands || []).filter((hand) => hand.outcome);
  if (!hands.length) return t("Итог раздачи");
  const list = hands.map((hand) =>
    fmt(t("%(name)s %(delta)s"), { name: handOwner(hand.seat, name, me), delta: signed(hand.delta) }),
  );
  return fmt(t("Итог раздачи: %(list)s"), { list: list.join(", ") });
}

// ---- Results in the second person, with the amount and its unit (issue 20) ----

/** The unit words by the glossary: solo's coins, the account's chips, classic's points.
 * `other` is the English plural (Intl's Russian rules use it only for fractions). */
const UNIT_FORMS = {
  coins: () => ({ one: t("монета"), few: t("монеты"), many: t("монет"), other: t("монеты") }),
  chips: () => ({ one: t("фишка"), few: t("фишки"), many: t("фишек"), other: t("фишки") }),
  points: () => ({ one: t("очко"), few: t("очка"), many: t("очков"), other: t("очка") }),
  cards: () => ({ one: t("карта"), few: t("карты"), many: t("карт"), other: t("карты") }),
  // «снять на 1 карту / 2 карты / 5 карт»: the accusative
  cards_acc: () => ({ one: t("карту"), few: t("карты"), many: t("карт"), other: t("карты") }),
};

/** A signed amount with its unit in the right plural form: «+25 монет», «−1 фишка»,
 * «+3 очка»; just «+25» without a unit. */
export function amountText(delta, unit) {
  const forms = UNIT_FORMS[unit];
  if (!forms) return formatSigned(delta);
  return fmt(t("%(amount)s %(unit)s"), { amount: formatSigned(delta), unit: plural(Math.abs(delta), forms()) });
}

/** The viewer's own result: «Вы выиграли +25 монет — перебор у банкира», «Вы проиграли
 * −50», «Ничья». `reason` (a settle reason) is added after a dash when known. */
export function yourResult(outcome, delta, unit, reason) {
  let text;
  if (outcome === "win") text = fmt(t("Вы выиграли %(amount)s"), { amount: amountText(delta, unit) });
  else if (outcome === "loss" || outcome === "lose") {
    text = fmt(t("Вы проиграли %(amount)s"), { amount: amountText(delta, unit) });
  } else if (outcome === "push") text = t("Ничья");
  else text = amountText(delta, unit);
  return reason ? `${text} — ${reasonText(reason)}` : text;
}

/** An unsigned count with its unit: «950 монет», «21 монета», «1 фишка». */
export function countText(count, unit) {
  const forms = UNIT_FORMS[unit];
  const number = formatNumber(count);
  return forms ? fmt(t("%(amount)s %(unit)s"), { amount: number, unit: plural(Math.abs(count), forms()) }) : number;
}

/**
 * The viewer's own line from a settle event's `hands` (salon, classic: every hand with its
 * outcome and delta; the banker's or dealer's hand without an outcome), or null when the
 * viewer had no hand. The reason is a bust, theirs or the house's, when there was one.
 */
export function yourHandResult(hands, me, unit) {
  const list = hands || [];
  const mine = me ? list.find((hand) => hand.seat === me && hand.outcome) : null;
  if (!mine) return null;
  const house = list.find((hand) => !hand.outcome && hand.seat !== me);
  let reason = null;
  if (mine.outcome === "loss" && mine.total > 21) reason = "bust";
  else if (mine.outcome === "win" && house && house.total > 21) reason = house.seat === "dealer" ? "dealer_bust" : "banker_bust";
  return yourResult(mine.outcome, mine.delta, unit, reason);
}

/** A seat in a list of results: «вы» for the viewer's own, the seat's name otherwise. */
export function handOwner(seat, name, me) {
  return me && seat === me ? t("вы") : name(seat);
}

/** Events whose line is also said in the live region (cards, totals, turns, results). */
export const ANNOUNCED = new Set([
  "deal", "hit", "double", "split", "stand", "reveal", "dealer_draw", "banker_draw", "settle",
  "finished", "stuk", "bank_broken", "collect", "bet", "cut", "paused", "resumed", "away",
  "session_end", "table_closing", "table_closed", "game_voided", "hand_over", "hand_end", "sit_out",
]);

// ---- The table's header line, from the table info of each frame (issue 20) ----

const MATCH_FORMS = () => ({
  one: t("на очки, партия из %(n)s раздачи"),
  few: t("на очки, партия из %(n)s раздач"),
  many: t("на очки, партия из %(n)s раздач"),
  other: t("на очки, партия из %(n)s раздач"),
});

/** How the table is played for, as the server's Table.stakes_label() says it, from the
 * frame's `table.options` (docs/protocol.md §6.1): «ставка 10», «ставки 10–100»,
 * «на очки, партия из 7 раздач». */
export function stakesText(table) {
  const options = table.options || {};
  if (typeof options.stake === "number") return fmt(t("ставка %(stake)s"), { stake: formatNumber(options.stake) });
  if (typeof options.min_bet === "number") {
    return fmt(t("ставки %(min)s–%(max)s"), { min: formatNumber(options.min_bet), max: formatNumber(options.max_bet) });
  }
  if (typeof options.rounds === "number") return fmt(plural(options.rounds, MATCH_FORMS()), { n: formatNumber(options.rounds) });
  if (table.variant === "solo") return t("на монеты игры, не фишки");
  return t("учебные единицы, не фишки");
}

/** The whole header line: «Классика · на очки, партия из 7 раздач · лимит входа 100». */
export function tableMetaText(table, variantName) {
  const parts = [variantName, stakesText(table)];
  if (table.entry_limit) parts.push(fmt(t("лимит входа %(limit)s"), { limit: formatNumber(table.entry_limit) }));
  if (table.private) parts.push(t("частный стол"));
  return parts.filter(Boolean).join(" · ");
}
