// «Проверить»: the browser re-derives the game from the revealed keys with Web Crypto,
// exactly as docs/fairness.md states — the commitment, the record's seed, the lot, every
// shuffle (and salon's cut) — and compares the cards the game dealt with that order,
// card by card. The keys are editable: a changed key must fail.

import { cardName } from "../cards.js";
import {
  available, commit, cut, derive, drawLot, serverCut, shuffled, variantStock,
} from "./fairness.js";
import { cardText, isRed, load } from "./data.js";
import { h, pluralText } from "../table/dom.js";
import { countText } from "../table/text.js";

const t = (text) => (window.gettext ? window.gettext(text) : text);
// Callers pass the translated text, t("…"), so that makemessages finds the msgid.
const fmt = (text, values) => (window.interpolate ? window.interpolate(text, values, true) : text);

const form = document.getElementById("verify-form");
const runButton = document.getElementById("verify-run");
const verdict = document.getElementById("verify-verdict");
const checksList = document.getElementById("verify-checks");
const cardsBox = document.getElementById("verify-cards");

function mark(ok) {
  const span = h("span", { class: ok ? "mark ok" : "mark fail" }, ok ? "✓" : "✗");
  span.setAttribute("aria-hidden", "true");
  return span;
}

function addCheck(ok, text, detail) {
  const item = h("li", { class: ok ? "ok" : "fail" });
  item.dataset.ok = ok ? "1" : "0";
  const body = h("div", { class: "check-text" });
  body.append(h("span", { class: "visually-hidden" }, ok ? t("верно:") : t("неверно:")), " ", text);
  if (detail) body.append(h("code", { class: "hex detail" }, detail));
  item.append(mark(ok), body);
  checksList.append(item);
  return ok;
}

function cardChip(code) {
  const span = h("span", { class: `card-text ${isRed(code) ? "red" : "black"}` }, cardText(code));
  span.setAttribute("aria-hidden", "true");
  return span;
}

function stockLabel(shuffle) {
  if (!shuffle.fresh) return fmt(t("сброс: %(n)s"), { n: countText(shuffle.pile.length, "cards") });
  return {
    classic: t("колода 52 карты"),
    salon: t("две колоды по 52 карты"),
    solo: t("колода 36 карт"),
    banker36: t("колода 36 карт"),
    blackjack: t("шесть колод по 52 карты"),
  }[form.dataset.variant] || "";
}

/** The multiset check: every card of a reshuffled pile was dealt before in this game. */
function pileWasDealt(pile, dealt) {
  const left = new Map();
  for (const card of dealt) left.set(card, (left.get(card) || 0) + 1);
  return pile.every((card) => {
    const n = left.get(card) || 0;
    left.set(card, n - 1);
    return n > 0;
  });
}

function setVerdict(ok, text) {
  verdict.dataset.verdict = ok ? "ok" : "fail";
  verdict.className = `verdict ${ok ? "ok" : "fail"}`;
  verdict.textContent = `${ok ? "✓" : "✗"} ${text}`;
}

async function run() {
  checksList.replaceChildren();
  cardsBox.replaceChildren();
  checksList.hidden = true;
  verdict.className = "verdict";
  delete verdict.dataset.verdict;
  if (!available()) {
    setVerdict(false, t("Этот браузер не даёт Web Crypto на этой странице: она должна быть открыта по https (или с localhost). Проверьте запись командой python -m games verify."));
    return;
  }
  verdict.textContent = t("Проверяем…");
  const data = await load();
  const check = data.verify;
  const fairness = check.fairness;
  form.dataset.variant = check.variant;
  const serverSeed = form.elements.server_seed.value.trim();
  const clientSeeds = Array.from(form.querySelectorAll("input[data-seat]"), (input) => ({
    seat: input.dataset.seat, seed: input.value.trim(),
  }));
  checksList.hidden = false;

  const results = [];
  results.push(addCheck(/^[0-9a-f]{64}$/.test(serverSeed), t("Ключ сервера — 64 шестнадцатеричные цифры")));
  const commitment = await commit(serverSeed, fairness.context);
  results.push(addCheck(
    commitment === fairness.commitment,
    t("SHA-256 от «алгоритм | стол | игра | вариант | ключ сервера» совпадает с отпечатком, опубликованным до раздачи"),
    commitment,
  ));
  const seed = await derive(serverSeed, fairness.context, clientSeeds, fairness.nonce);
  results.push(addCheck(
    seed === check.seed,
    fmt(t("HMAC-SHA256 по ключу сервера над столом, игрой, вариантом и ключами игроков (%(n)s) даёт итоговый ключ игры"), { n: clientSeeds.length }),
    seed,
  ));
  if (check.lot) {
    const chosen = await drawLot(seed, check.lot.seats);
    results.push(addCheck(
      chosen === check.lot.chosen,
      fmt(t("Жребий по этому ключу выбирает первого банкира: %(seat)s"), { seat: check.lot.chosen }),
    ));
  }

  // Every shuffle re-derived here from the key just computed, and the dealt cards compared.
  let total = 0;
  let matched = 0;
  let cutsOk = true;
  let pilesOk = true;
  const dealtSoFar = [];
  for (const shuffle of check.shuffles) {
    const box = h("section", { class: "shuffle" });
    box.dataset.shuffle = String(shuffle.number);
    const stock = shuffle.fresh ? variantStock(check.variant) : shuffle.pile;
    if (!shuffle.fresh && !pileWasDealt(shuffle.pile, dealtSoFar)) pilesOk = false;
    let order = await shuffled(stock, seed, shuffle.number);
    let title = fmt(t("Перетасовка №%(n)s (%(stock)s)"), { n: shuffle.number, stock: stockLabel(shuffle) });
    if (shuffle.cut) {
      if (shuffle.cut.by === "server") {
        const position = await serverCut(seed, shuffle.number, order.length);
        if (position !== shuffle.cut.position) cutsOk = false;
      }
      order = cut(order, shuffle.cut.position);
      title += ", " + fmt(t("снята на %(n)s"), { n: countText(shuffle.cut.position, "cards_acc") });
    }
    box.append(h("h4", {}, title));
    shuffle.passes.forEach((pass, passIndex) => {
      if (passIndex > 0) box.append(h("p", { class: "redeal" }, t("«Начать заново»: те же карты сданы снова с начала")));
      const list = h("ol", { class: "dealt" });
      pass.forEach((card, i) => {
        const derived = order[i];
        const ok = card === derived;
        total += 1;
        if (ok) matched += 1;
        dealtSoFar.push(card);
        const item = h("li", { class: ok ? "ok" : "fail" });
        item.dataset.dealt = card;
        item.dataset.derived = derived || "";
        item.dataset.match = ok ? "1" : "0";
        item.append(h("span", { class: "pos" }, String(i + 1)), cardChip(card));
        if (!ok && derived) item.append(h("span", { class: "neq" }, "≠"), cardChip(derived));
        item.append(mark(ok));
        item.append(h("span", { class: "visually-hidden" }, ok
          ? fmt(t("карта %(n)s: %(card)s, совпадает"), { n: i + 1, card: cardName(card) })
          : fmt(t("карта %(n)s: сдана %(card)s, по перетасовке %(derived)s — не совпадает"), {
            n: i + 1, card: cardName(card), derived: derived ? cardName(derived) : "—",
          })));
        list.append(item);
      });
      if (!pass.length) box.append(h("p", {}, t("Из этой перетасовки карт не сдавали.")));
      else box.append(list);
    });
    cardsBox.append(box);
  }
  if (check.shuffles.some((s) => s.cut)) {
    results.push(addCheck(cutsOk, t("Колода снята там, где её сняли: игроком или, когда время вышло, по ключу игры")));
  }
  if (!pilesOk) results.push(addCheck(false, t("Перетасованный сброс состоит из уже сданных карт")));
  results.push(addCheck(
    total > 0 && matched === total,
    fmt(t("Сданные карты совпадают с перетасовкой, пересчитанной в браузере: %(matched)s из %(total)s"), { matched, total }),
  ));
  cardsBox.dataset.total = String(total);
  cardsBox.dataset.matched = String(matched);

  if (results.every(Boolean)) {
    setVerdict(true, pluralText(total,
      t("Проверено: отпечаток, итоговый ключ и %(total)s сданная карта совпали."),
      t("Проверено: отпечаток, итоговый ключ и все %(total)s сданных карт совпали."), { total }));
  } else {
    setVerdict(false, fmt(t("Не сходится: %(failed)s из %(checks)s проверок не пройдены, совпало карт %(matched)s из %(total)s."), {
      failed: results.filter((ok) => !ok).length, checks: results.length, matched, total,
    }));
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  runButton.disabled = true;
  run()
    .catch(() => setVerdict(false, t("Проверка не удалась: данные игры не загрузились. Обновите страницу.")))
    .finally(() => { runButton.disabled = false; });
});

form.addEventListener("reset", () => {
  checksList.replaceChildren();
  checksList.hidden = true;
  cardsBox.replaceChildren();
  verdict.className = "verdict";
  verdict.textContent = "";
  delete verdict.dataset.verdict;
});
