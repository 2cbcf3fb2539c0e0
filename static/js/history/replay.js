// The step-by-step replay of a game that is over: each step is what this player saw
// after one move (the server replays the hand record through the rules engine and sends
// only that seat's view), drawn with the shared SVG cards. Keys: ← → step, space
// play/pause, Home/End.

import { cardName, cardsElement } from "../cards.js";
import { cardText, isRed, load } from "./data.js";
import { h } from "../table/dom.js";

const t = (text) => (window.gettext ? window.gettext(text) : text);
// Callers pass the translated text, t("…"), so that makemessages finds the msgid.
const fmt = (text, values) => (window.interpolate ? window.interpolate(text, values, true) : text);
const PLAY_MS = 1400;

const section = document.getElementById("replay");
const stage = document.getElementById("replay-stage");
const position = document.getElementById("replay-position");
const announce = document.getElementById("replay-announce");
const buttons = Object.fromEntries(
  Array.from(section.querySelectorAll("[data-go]"), (button) => [button.dataset.go, button]),
);

let steps = [];
let unit = "";
let current = 0;
let timer = null;

function cardSpan(code) {
  const span = h("span", { class: `card-text ${isRed(code) ? "red" : "black"}` }, cardText(code));
  span.setAttribute("aria-hidden", "true");
  return span;
}

function handElement(hand) {
  const box = h("div", { class: "hand" });
  if (hand.you) box.classList.add("you");
  if (hand.role) box.classList.add(hand.role);
  if (hand.seat) box.dataset.seat = hand.seat;
  const head = h("p", { class: "hand-head" });
  head.append(h("span", { class: "hand-name" }, hand.name));
  if (hand.total !== null && hand.total !== undefined) {
    const total = h("span", { class: "hand-total" });
    total.append(h("span", { class: "visually-hidden" }, t("сумма")), " ", String(hand.total));
    head.append(total);
  }
  if (hand.note) head.append(h("span", { class: "hand-note" }, hand.note));
  box.append(head);
  if (hand.cards.length || hand.hidden) {
    box.append(cardsElement(hand.cards, hand.hidden));
  } else {
    box.append(h("p", { class: "no-cards" }, t("нет карт")));
  }
  return box;
}

function handsElement(hands, className = "hands") {
  const list = h("div", { class: className });
  for (const hand of hands) list.append(handElement(hand));
  return list;
}

function factsElement(facts) {
  const list = h("dl", { class: "step-facts" });
  for (const fact of facts) {
    const item = h("div", { class: "fact" });
    item.append(h("dt", {}, fact.label), h("dd", {}, fact.value));
    list.append(item);
  }
  return list;
}

function standingsElement(scene) {
  const box = h("div", { class: "standings" });
  box.append(h("h4", {}, scene.standings_title || t("Итог")));
  const list = h("ul", { class: "standings-list" });
  for (const entry of scene.standings) {
    const item = h("li", { class: entry.you ? "you" : "" });
    const value = h("span", { class: "value" }, entry.value);
    item.append(h("span", { class: "name" }, entry.name), value);
    list.append(item);
  }
  box.append(list);
  return box;
}

function logElement(lines) {
  const list = h("ul", { class: "step-log" });
  for (const line of lines) {
    const item = h("li", {}, line.text);
    if (line.cards.length) {
      item.append(" — ");
      for (const code of line.cards) item.append(cardSpan(code), " ");
      item.append(h("span", { class: "visually-hidden" }, line.cards.map(cardName).join(", ")));
    }
    list.append(item);
  }
  return list;
}

// A decision's values: −0.57 in units or coins, −57.1 in points (a real minus sign).
function value(number) {
  const digits = Math.abs(number) >= 10 ? 1 : 2;
  const text = Math.abs(number).toFixed(digits);
  return Number(text) === 0 ? text : `${number < 0 ? "−" : "+"}${text}`;
}

// «Ещё карту: −0.12 · Хватит: −0.31 ✓»: what each option was worth, the best ticked and
// the player's choice marked, then what the choice cost against the best.
function decisionElement(decision) {
  const box = h("section", { class: `decision${decision.mistake ? " mistake" : ""}` });
  box.append(h("h4", {}, fmt(t("Разбор решения: %(situation)s"), { situation: decision.label })));
  const list = h("p", { class: "decision-options" });
  decision.options.forEach((option, index) => {
    if (index) list.append(" · ");
    const item = h(option.chosen ? "strong" : "span", { class: option.best ? "best" : "" });
    item.textContent = `${option.label}: ${value(option.value)}${option.best ? " ✓" : ""}`;
    if (option.chosen) item.title = t("ваш выбор");
    list.append(item);
  });
  box.append(list);
  const verdict = decision.mistake
    ? fmt(t("Ошибка: лучше было «%(best)s»; потеряно %(loss)s %(unit)s."), {
        best: decision.best,
        loss: value(decision.loss).replace("+", ""),
        unit,
      })
    : t("Лучший выбор.");
  box.append(h("p", { class: "decision-verdict" }, verdict));
  return box;
}

function reviewElement(review) {
  const box = h("section", { class: "decision-summary" });
  box.append(h("h4", {}, t("Ваши решения")));
  box.append(
    h(
      "p", {},
      fmt(t("Решений: %(n)s, лучших: %(best)s (%(accuracy)s). Потеряно на 100 решений: %(lost)s %(unit)s."), {
        n: review.decisions,
        best: review.best,
        accuracy: `${Math.round(100 * review.accuracy)} %`,
        lost: value(review.lost_per_100).replace("+", ""),
        unit,
      })),
  );
  return box;
}

function lineWords(line) {
  return line.cards.length ? `${line.text}: ${line.cards.map(cardName).join(", ")}` : line.text;
}

function render() {
  const step = steps[current];
  const scene = step.scene;
  stage.replaceChildren();
  stage.dataset.step = String(current);
  stage.dataset.final = step.final ? "1" : "0";
  const counter = fmt(t("Шаг %(n)s из %(total)s"), { n: current + 1, total: steps.length });
  position.textContent = `${counter}: ${step.title}`;

  if (step.log.length) stage.append(logElement(step.log));
  if (step.decision) stage.append(decisionElement(step.decision));
  if (scene.facts.length) stage.append(factsElement(scene.facts));
  if (scene.turn) stage.append(h("p", { class: "turn" }, fmt(t("Ход: %(name)s"), { name: scene.turn })));
  if (scene.hands.length) stage.append(handsElement(scene.hands));
  if (scene.last) {
    const last = h("section", { class: "last-round" });
    last.append(h("h4", {}, t("Последняя сыгранная раздача")), handsElement(scene.last));
    stage.append(last);
  }
  if (scene.rounds) {
    // Every settled round, shown; a long game's rounds fold, the last one open.
    const rounds = h("div", { class: "final-rounds" });
    scene.rounds.forEach((hands, index) => {
      const round = h("details", { class: "final-round" });
      round.open = scene.rounds.length <= 3 || index === scene.rounds.length - 1;
      const summary = h("summary", {}, fmt(t("Раздача %(n)s"), { n: index + 1 }));
      const mine = hands.find((hand) => hand.you && hand.note);
      if (mine) summary.append(h("span", { class: "round-note" }, mine.note));
      round.append(summary, handsElement(hands));
      rounds.append(round);
    });
    if (!scene.rounds.length) rounds.append(h("p", {}, t("Ни одна раздача не была сыграна до конца.")));
    stage.append(rounds);
  }
  if (scene.standings.length) stage.append(standingsElement(scene));
  if (step.review) stage.append(reviewElement(step.review));

  buttons.start.disabled = current === 0;
  buttons.prev.disabled = current === 0;
  buttons.next.disabled = current === steps.length - 1;
  buttons.play.disabled = steps.length < 2;
  if (current === steps.length - 1) pause();
  const review = step.decision
    ? [`${step.decision.label}: ${step.decision.options.map((o) => `${o.label} ${value(o.value)}`).join(", ")}.`]
    : [];
  announce.textContent = [`${counter}. ${step.title}.`, ...step.log.map(lineWords), ...review].join(" ");
}

function go(index) {
  const next = Math.max(0, Math.min(steps.length - 1, index));
  if (next === current && stage.dataset.step === String(current)) return;
  current = next;
  render();
}

function setPlaying(playing) {
  buttons.play.setAttribute("aria-pressed", playing ? "true" : "false");
  buttons.play.querySelector("[data-play-icon]").textContent = playing ? "❚❚" : "▶";
  buttons.play.querySelector("[data-play-label]").textContent = playing ? t("Пауза") : t("Пуск");
}

function pause() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  setPlaying(false);
}

function play() {
  if (current === steps.length - 1) go(0);
  setPlaying(true);
  timer = setInterval(() => {
    if (current >= steps.length - 1) pause();
    else go(current + 1);
  }, PLAY_MS);
}

function toggle() {
  if (timer === null) play();
  else pause();
}

const ACTIONS = {
  start: () => { pause(); go(0); },
  prev: () => { pause(); go(current - 1); },
  next: () => { pause(); go(current + 1); },
  end: () => { pause(); go(steps.length - 1); },
  play: toggle,
};

for (const [name, button] of Object.entries(buttons)) {
  button.addEventListener("click", () => ACTIONS[name]());
}

document.addEventListener("keydown", (event) => {
  if (!steps.length || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
  const onControl = target.closest && target.closest("button, a, summary");
  const key = event.key;
  if (key === "ArrowRight") ACTIONS.next();
  else if (key === "ArrowLeft") ACTIONS.prev();
  else if (key === "Home" && !onControl) ACTIONS.start();
  else if (key === "End" && !onControl) ACTIONS.end();
  else if ((key === " " || key === "Spacebar") && !onControl) toggle();
  else return;
  event.preventDefault();
});

load()
  .then((data) => {
    if (!data.steps || !data.steps.length) {
      position.textContent = t("Эта игра ещё идёт: повтора пока нет.");
      return;
    }
    steps = data.steps;
    unit = data.unit || "";
    current = 0;
    render();
    section.dataset.ready = "1";
  })
  .catch(() => {
    position.textContent = t("Не удалось загрузить повтор. Обновите страницу.");
  });
