// Every page of a signed-in player: the chip balance in the header kept correct.
//
// Another page's script may announce a new balance, or ask for it to be fetched:
//   document.dispatchEvent(new CustomEvent("chips:balance", { detail: { balance: 9850 } }));
//   document.dispatchEvent(new CustomEvent("chips:balance"));   // fetch it
// or import { refreshChips, showChips } from "/static/js/site.js".
// A page shown again from the back/forward cache, or after being hidden, refetches it.

import { formatNumber } from "./table/dom.js";

const badge = () => document.querySelector(".chips-badge");

/** The page's one number format (static/js/table/dom.js): «10 000», "10,000". */
function formatChips(value) {
  return formatNumber(value);
}

// The times of every page, signed in or not, are localised by ./times.js (base.html loads
// it on every page); re-exported for the scripts that imported it from here.
export { localiseTimes } from "./times.js";

// --- the daily bonus (accounts/bonus.py): its day is the player's, in the browser's zone ---

/** The browser's IANA time zone ("Europe/Moscow"), or "" when it does not say. */
function browserZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return "";
  }
}

for (const input of document.querySelectorAll("[data-bonus-form] [data-time-zone]")) {
  input.value = browserZone();
}

/** Show or hide the header's «Бонус» as the server says it can be claimed. */
function showBonus(claimable) {
  for (const form of document.querySelectorAll("[data-bonus-form]")) form.hidden = !claimable;
}

/** Show a balance in the header (a whole number of chips). */
export function showChips(balance) {
  const link = badge();
  const amount = link && link.querySelector("[data-chip-balance]");
  if (!amount || typeof balance !== "number" || !Number.isFinite(balance)) return;
  const text = formatChips(balance);
  if (amount.textContent !== text) amount.textContent = text;
  amount.dataset.chipBalance = String(balance);
}

let inFlight = null;

/** Fetch the balance from the server and show it; resolves to it (or null). */
export function refreshChips() {
  const link = badge();
  const url = link && link.dataset.balanceUrl;
  if (!url) return Promise.resolve(null);
  if (inFlight) return inFlight;
  const query = browserZone() ? `?tz=${encodeURIComponent(browserZone())}` : "";
  inFlight = fetch(url + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then((data) => {
      const balance = data && typeof data.balance === "number" ? data.balance : null;
      if (balance !== null) showChips(balance);
      if (data && typeof data.bonus === "boolean") showBonus(data.bonus);
      return balance;
    })
    .catch(() => null) // offline: the badge keeps what it showed
    .finally(() => {
      inFlight = null;
    });
  return inFlight;
}

document.addEventListener("chips:balance", (event) => {
  const balance = event.detail && event.detail.balance;
  if (typeof balance === "number") showChips(balance);
  else refreshChips();
});

window.addEventListener("pageshow", (event) => {
  if (event.persisted) refreshChips();
});

let hiddenAt = 0;
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") hiddenAt = Date.now();
  else if (hiddenAt && Date.now() - hiddenAt > 5000) refreshChips();
});
