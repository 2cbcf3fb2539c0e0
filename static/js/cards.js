// Playing cards drawn as SVG by the page itself: no images, no web fonts, and nothing
// the Content-Security-Policy would refuse (elements made with createElementNS, no
// style attributes). Cards are the protocol's two-character codes: rank 2-9 T J Q K A,
// suit S H D C ("TS" is the ten of spades; docs/protocol.md §1).

const SVG = "http://www.w3.org/2000/svg";
const t = (text) => (window.gettext ? window.gettext(text) : text);

export const SUITS = {
  S: { symbol: "♠", red: false },
  H: { symbol: "♥", red: true },
  D: { symbol: "♦", red: true },
  C: { symbol: "♣", red: false },
};
const RANKS = "23456789TJQKA";

// The corner letter: Russian decks print В Д К Т; the English catalogue gives J Q K A.
function cornerRank(rank) {
  return { T: "10", J: t("В"), Q: t("Д"), K: t("К"), A: t("Т") }[rank] || rank;
}

function rankName(rank) {
  return {
    2: t("двойка"), 3: t("тройка"), 4: t("четвёрка"), 5: t("пятёрка"), 6: t("шестёрка"),
    7: t("семёрка"), 8: t("восьмёрка"), 9: t("девятка"), T: t("десятка"), J: t("валет"),
    Q: t("дама"), K: t("король"), A: t("туз"),
  }[rank];
}

function suitName(suit) {
  return { S: t("пик"), H: t("червей"), D: t("бубен"), C: t("треф") }[suit];
}

/** {rank, suit} of a card code, or null when it is not one. */
export function parseCard(code) {
  if (typeof code !== "string" || code.length !== 2) return null;
  const [rank, suit] = code;
  if (!RANKS.includes(rank) || !(suit in SUITS)) return null;
  return { rank, suit };
}

/** The card's name for people and screen readers: «туз пик», "ace of spades". */
export function cardName(code) {
  const card = parseCard(code);
  if (!card) return String(code);
  return window.interpolate
    ? window.interpolate(t("%(rank)s %(suit)s"), { rank: rankName(card.rank), suit: suitName(card.suit) }, true)
    : `${rankName(card.rank)} ${suitName(card.suit)}`;
}

function node(name, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== null) element.textContent = text;
  return element;
}

function frame(classes, label) {
  const svg = node("svg", {
    viewBox: "0 0 100 140",
    class: classes,
    role: "img",
    "aria-label": label,
    focusable: "false",
  });
  svg.append(node("title", {}, label));
  svg.append(node("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 9, class: "card-edge" }));
  return svg;
}

/** The face of a card as an <svg class="card">, with data-card="<code>". */
export function cardElement(code) {
  const card = parseCard(code);
  if (!card) throw new Error(`not a card: ${code}`);
  const { symbol, red } = SUITS[card.suit];
  const svg = frame(`card ${red ? "red" : "black"}`, cardName(code));
  svg.dataset.card = code;
  const rank = cornerRank(card.rank);
  const corner = (transform) => {
    const group = node("g", transform ? { transform } : {});
    group.append(node("text", { x: 10, y: 27, class: "card-rank" }, rank));
    group.append(node("text", { x: 11, y: 47, class: "card-corner-suit" }, symbol));
    return group;
  };
  svg.append(corner(null), corner("rotate(180 50 70)"));
  svg.append(node("text", { x: 50, y: 88, class: "card-pip", "text-anchor": "middle" }, symbol));
  return svg;
}

/** A card seen from the back (a hidden card: its code never reaches the page). */
export function backElement() {
  const svg = frame("card back", t("Закрытая карта"));
  svg.append(node("rect", { x: 8, y: 8, width: 84, height: 124, rx: 5, class: "card-back-field" }));
  for (let y = 20; y <= 120; y += 12.5) {
    for (let x = 20; x <= 80; x += 12) {
      const d = `M${x} ${y - 4.5}L${x + 4.5} ${y}L${x} ${y + 4.5}L${x - 4.5} ${y}Z`;
      svg.append(node("path", { d, class: "card-back-diamond" }));
    }
  }
  svg.append(node("rect", { x: 8, y: 8, width: 84, height: 124, rx: 5, class: "card-back-frame" }));
  return svg;
}

/** A row of cards: the codes given, then `hidden` backs. */
export function cardsElement(codes, hidden = 0) {
  const row = document.createElement("div");
  row.className = "cards";
  for (const code of codes || []) row.append(cardElement(code));
  for (let i = 0; i < hidden; i += 1) row.append(backElement());
  return row;
}
