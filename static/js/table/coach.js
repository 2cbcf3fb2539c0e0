// The coach at a `blackjack` or `solo` table (docs/protocol.md, "The coach (HTTP)"): a
// toggle «Подсказки», off by default and remembered per variant. When on, before each of
// the player's decisions it shows what every option is worth (from the player's own view,
// computed by the server: the page never sees a card it may not) with the best ticked and
// its button marked; after each round, the round's mistakes and what they cost; and the
// session's decisions, accuracy and value lost per 100 decisions. While off it fetches
// nothing.

import { fill, fmt, h, t } from "./dom.js";

// The frame events after which the last round's review may have changed.
const ROUND_ENDS = new Set(["settle", "finished", "game_voided", "session_end"]);

function storageKey(variant) {
  return `twentyone:coach:${variant}`;
}

function remembered(variant) {
  try {
    return window.localStorage.getItem(storageKey(variant)) === "on";
  } catch (error) {
    return false; // storage refused (private mode): off, the default
  }
}

function remember(variant, on) {
  try {
    window.localStorage.setItem(storageKey(variant), on ? "on" : "off");
  } catch (error) {
    /* not remembered, but still applied */
  }
}

/** A value as the replay prints it: a real minus sign, 2 decimals (3 below 0.01, where a
 * blackjack mistake often lies; 1 from 10 on). */
export function valueText(number) {
  const size = Math.abs(number);
  const digits = size >= 10 ? 1 : size > 0 && size < 0.01 ? 3 : 2;
  const text = size.toFixed(digits);
  if (Number(text) === 0) return text;
  return `${number < 0 ? "\u2212" : "+"}${text}`;
}

/** A value lost, as a mistake's cost: «−0.05» (nothing lost: «0»). */
function lossText(loss) {
  const text = valueText(-Math.abs(loss));
  return Number(text.replace("\u2212", "-")) === 0 ? "0" : text;
}

/** A value lost after «Потеряно»: the word says it is a loss, so no sign («0.05»). */
function lostText(loss) {
  return lossText(loss).replace("\u2212", "");
}

function unitWord(unit) {
  return unit === "coins" ? t("мон.") : t("ед.");
}

/** A hand situation («16 против десятки») reads after «на»; a total or a bet does not. */
function mistakeText(decision, unit) {
  const values = {
    chosen: decision.chosen,
    situation: decision.label,
    loss: `${lossText(decision.loss)}\u00a0${unitWord(unit)}`,
    best: decision.best,
  };
  const hand = /^(hard|soft|pair)/.test(decision.situation);
  return hand
    ? fmt(t("Ошибка: %(chosen)s на %(situation)s, %(loss)s (лучше «%(best)s»)"), values)
    : fmt(t("Ошибка: %(chosen)s — %(situation)s, %(loss)s (лучше «%(best)s»)"), values);
}

export function createCoach({ config, say }) {
  const box = document.getElementById("coach");
  if (!box || !config.coach_url) return null;
  const toggle = document.getElementById("coach-toggle");
  const body = document.getElementById("coach-body");
  const hintBody = document.getElementById("coach-hint-body");
  const round = document.getElementById("coach-round");
  const roundTitle = document.getElementById("coach-round-title");
  const roundBody = document.getElementById("coach-round-body");
  const session = document.getElementById("coach-session-body");
  const actions = document.getElementById("actions");

  let on = remembered(config.variant);
  let seated = false;
  let myTurn = false;
  let latest = -1; // the latest frame's table version
  let wanted = -1; // the latest frame that asked for figures
  let loading = false;
  let answered = -1; // the version of the last answer, shown or dropped
  let retries = 0;
  let data = null; // the coach's last answer shown
  // The last round reviewed on screen ("game:round"; null: none yet; undefined: no answer
  // yet — a review already there when the page opens is not announced).
  let roundKey;
  let hintKey = null; // the hint announced last

  function showSwitch() {
    box.hidden = !seated;
    box.dataset.on = on ? "true" : "false";
    toggle.setAttribute("aria-pressed", on ? "true" : "false");
    body.hidden = !on;
    if (!on) markBest(null);
  }

  toggle.addEventListener("click", () => {
    on = !on;
    remember(config.variant, on);
    data = null;
    roundKey = undefined;
    hintKey = null;
    showSwitch();
    if (on) {
      fill(hintBody, h("p", { class: "coach-wait" }, t("Считаем…")));
      ask(latest);
    }
  });

  // The amount being typed into the solo bet is valued as it changes.
  document.addEventListener("input", (event) => {
    if (on && event.target && event.target.id === "solo-bet" && data && data.hint && data.hint.bet) renderHint();
  });

  /** After every frame the page applies. */
  function frame(current, events, snapshot) {
    const seat = current.you ? current.you.seat : null;
    const game = current.game;
    const wasMine = myTurn;
    seated = Boolean(seat);
    myTurn = Boolean(seat && game && game.status === "playing" && game.view && game.view.turn === seat);
    latest = current.version;
    showSwitch();
    if (!on || !seated) return;
    if (!myTurn) {
      renderHint();
      markBest(null);
    } else if (data && data.version < latest) {
      hintBody.classList.add("stale");
      markBest(null);
    }
    const roundOver = (events || []).some((event) => ROUND_ENDS.has(event.type));
    if (snapshot || myTurn || wasMine || roundOver) ask(latest);
  }

  function ask(version) {
    if (!on || !seated) return;
    wanted = Math.max(wanted, version);
    if (loading) return; // asked again when the answer in flight is in
    loading = true;
    hintBody.setAttribute("aria-busy", "true");
    fetch(config.coach_url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => response.json())
      .then((answer) => {
        if (answer.type === "coach") {
          retries = answer.version > answered ? 0 : retries + 1;
          answered = answer.version;
          // Older than the picture on screen: its hint may be for a decision gone by.
          if (answer.version >= latest) show(answer);
        } else if (answer.type === "error") {
          failed(answer.message);
        }
      })
      .catch(() => failed(t("Подсказки сейчас недоступны.")))
      .finally(() => {
        loading = false;
        hintBody.setAttribute("aria-busy", "false");
        // A frame that came while this answer was on its way asks for newer figures.
        if (on && seated && wanted > answered && retries < 3) ask(wanted);
      });
  }

  function failed(message) {
    wanted = answered; // not asked again until the next frame asks
    fill(hintBody, h("p", { class: "coach-wait" }, message));
    markBest(null);
  }

  function show(answer) {
    if (!on) return;
    data = answer;
    hintBody.classList.remove("stale");
    renderHint();
    renderRound();
    renderSession();
  }

  // --- the hint ---------------------------------------------------------------------------

  function renderHint() {
    const hint = on && myTurn && data && data.version >= latest ? data.hint : null;
    if (!hint) {
      fill(hintBody, h("p", { class: "coach-wait" }, t("Подсказка появится перед вашим решением.")));
      hintBody.dataset.situation = "";
      markBest(null);
      return;
    }
    hintBody.dataset.situation = hint.situation;
    const rows = hint.bet ? betRows(hint) : hint.options.map(optionRow);
    fill(
      hintBody,
      h("p", { class: "coach-situation" }, hint.label),
      h("ul", { class: "coach-options" }, rows),
      hint.bet ? h("p", { class: "coach-best-size" }, fmt(t("Лучший размер ставки: %(amount)s"), { amount: bestOf(hint).amount })) : null,
      h(
        "p",
        { class: "coach-note" },
        data.unit === "coins" ? t("Ожидаемый выигрыш в монетах.") : t("Ожидаемый выигрыш в единицах ставки."),
      ),
    );
    markBest(hint.bet ? null : bestOf(hint).action);
    const key = `${data.version}:${hint.situation}`;
    if (key !== hintKey) {
      hintKey = key;
      say(fmt(t("Подсказка: лучше «%(best)s»"), { best: hint.best }));
    }
  }

  function bestOf(hint) {
    return hint.options.find((option) => option.best) || hint.options[0];
  }

  function optionRow(option) {
    return h(
      "li",
      {
        class: `coach-option${option.best ? " best" : ""}`,
        dataset: {
          action: option.action,
          best: option.best ? "true" : "false",
          value: String(option.value),
          ...(option.amount === undefined ? {} : { amount: String(option.amount) }),
        },
      },
      h("span", { class: "coach-name" }, option.label),
      " ",
      h("span", { class: "coach-value" }, valueText(option.value)),
      option.best ? [" ", h("span", { class: "coach-tick", "aria-hidden": "true" }, "✓"), h("span", { class: "visually-hidden" }, t("(лучший ход)"))] : null,
    );
  }

  /** A solo bet: the value at the least bet, at the amount typed and at the most; the
   * value is linear in the amount, so the best size is one of the two ends. */
  function betRows(hint) {
    const { min, max, per_coin: perCoin } = hint.bet;
    const input = document.getElementById("solo-bet");
    const typed = input ? Number(input.value) : NaN;
    const amounts = [min];
    if (Number.isInteger(typed) && typed > min && typed < max) amounts.push(typed);
    if (max > min) amounts.push(max);
    const best = bestOf(hint).amount;
    return amounts.map((amount) => {
      const given = hint.options.find((option) => option.amount === amount);
      const row = optionRow({
        action: "bet",
        amount,
        label: given ? given.label : fmt(t("Ставка %(amount)s"), { amount }),
        value: given ? given.value : perCoin * amount,
        best: amount === best,
      });
      if (amount === typed) row.dataset.typed = "true";
      return row;
    });
  }

  /** The best action's button in the action bar is marked (the bar is redrawn by
   * main.js; it calls `decorate` after each drawing). */
  function markBest(action) {
    for (const button of actions.querySelectorAll("[data-coach-best]")) {
      delete button.dataset.coachBest;
      button.classList.remove("coach-best");
    }
    if (!action) return;
    const button = actions.querySelector(`button[data-action="${action}"]`);
    if (button) {
      button.dataset.coachBest = "true";
      button.classList.add("coach-best");
    }
  }

  function decorate() {
    const hint = on && myTurn && data && data.version >= latest ? data.hint : null;
    markBest(hint && !hint.bet ? bestOf(hint).action : null);
  }

  // --- the last round and the session -------------------------------------------------------

  function renderRound() {
    const last = data.last_round;
    round.hidden = !last;
    if (!last) {
      fill(roundBody);
      roundKey = null;
      return;
    }
    roundTitle.textContent = fmt(t("Разбор раздачи %(n)s"), { n: last.round });
    const mistakes = last.review.filter((decision) => decision.mistake);
    const lines = mistakes.length
      ? h(
          "ul",
          { class: "coach-mistakes" },
          mistakes.map((decision) => h("li", { class: "coach-mistake", dataset: { situation: decision.situation, loss: String(decision.loss) } }, mistakeText(decision, data.unit))),
        )
      : h("p", { class: "coach-clean" }, t("Без ошибок"));
    const lost = mistakes.length
      ? h("p", { class: "coach-lost" }, fmt(t("Потеряно за раздачу: %(lost)s"), { lost: `${lostText(last.lost)}\u00a0${unitWord(data.unit)}` }))
      : null;
    fill(roundBody, lines, lost);
    const key = `${last.game}:${last.round}`;
    if (roundKey !== undefined && key !== roundKey) {
      say(mistakes.length ? mistakes.map((decision) => mistakeText(decision, data.unit)).join(". ") : t("Разбор раздачи: без ошибок"));
    }
    roundKey = key;
  }

  function renderSession() {
    const summary = data.session;
    const fact = (name, term, value) => h("div", { class: "coach-fact", dataset: { fact: name } }, h("dt", {}, term), h("dd", {}, value));
    fill(
      session,
      fact("decisions", t("Решений"), String(summary.decisions)),
      fact("accuracy", t("Точность"), summary.decisions ? `${Math.round(100 * summary.accuracy)} %` : "—"),
      fact(
        "lost",
        t("Потеряно на 100 решений"),
        summary.decisions ? `${lostText(summary.lost_per_100)}\u00a0${unitWord(data.unit)}` : "—",
      ),
    );
  }

  showSwitch();
  return { frame, decorate };
}
