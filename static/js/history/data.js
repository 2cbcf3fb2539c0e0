// The replay's data (history/views.py game_replay_data), fetched once for the page's
// modules: the steps as this player saw them, and the draws for «Проверить».

let loading = null;

export function root() {
  return document.getElementById("history-game");
}

export function load() {
  if (!loading) {
    const url = root().dataset.replayUrl;
    loading = fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((response) => {
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        return response.json();
      });
  }
  return loading;
}

const t = (text) => (window.gettext ? window.gettext(text) : text);

/** A card as short text: «10♥», «Т♠» (the corner of a Russian deck). */
export function cardText(code) {
  const rank = { T: "10", J: t("В"), Q: t("Д"), K: t("К"), A: t("Т") }[code[0]] || code[0];
  const suit = { S: "♠", H: "♥", D: "♦", C: "♣" }[code[1]] || code[1];
  return rank + suit;
}

export function isRed(code) {
  return code[1] === "H" || code[1] === "D";
}
