// An event's page kept current (docs/protocol.md §19): the tournament socket sends the
// standings on every change; the page then fetches itself again and swaps in its live
// parts (`[data-live]`), so what it shows is always the server's own rendering, in the
// page's language. Reconnects with a growing pause; stops on 4404.
import { localiseTimes } from "./times.js";

const root = document.querySelector("[data-tournament-socket]");
// Whether the page as shown is the server's latest: so on a fresh load, but not on one the
// browser took from its cache (Back, Forward), nor once a socket has closed — what changed
// meanwhile came to no socket of this page.
const navigation = performance.getEntriesByType("navigation")[0];
let current = !navigation || navigation.type !== "back_forward";

async function refresh() {
  const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
  if (!response.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const part of document.querySelectorAll("[data-live]")) {
    const fresh = page.querySelector(`[data-live="${part.dataset.live}"]`);
    if (fresh) part.replaceWith(fresh);
  }
  // A buy-in, a refund or a prize moves the viewer's chips: the fresh page's header has
  // the balance (site.js shows it), with no request of its own.
  const chips = page.querySelector("[data-chip-balance]");
  if (chips && /\d/.test(chips.textContent)) {
    const balance = Number(chips.textContent.replace(/\D/g, ""));
    document.dispatchEvent(new CustomEvent("chips:balance", { detail: { balance } }));
  }
  localiseTimes(document);
}

function connect(attempt) {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${window.location.host}${root.dataset.tournamentSocket}`);
  let first = true;
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type !== "standings") return;
    if (first) {
      first = false;
      attempt = 0;
      root.dataset.connected = "true"; // following the event from now on
      const shown = current;
      current = true;
      if (shown) return; // the page was rendered with these already
    }
    refresh();
  });
  socket.addEventListener("close", (event) => {
    current = false;
    delete root.dataset.connected;
    if (event.code === 4404) return;
    const pause = Math.min(30000, 1000 * 2 ** attempt);
    window.setTimeout(() => connect(attempt + 1), pause);
  });
}

if (root) connect(0);
