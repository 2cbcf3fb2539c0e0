// An event's page kept current (docs/protocol.md §19): the tournament socket sends the
// standings on every change; the page then fetches itself again and swaps in its live
// parts (`[data-live]`), so what it shows is always the server's own rendering, in the
// page's language. Reconnects with a growing pause; stops on 4404.
import { localiseTimes } from "./times.js";

const root = document.querySelector("[data-tournament-socket]");

async function refresh() {
  const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
  if (!response.ok) return;
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  for (const part of document.querySelectorAll("[data-live]")) {
    const fresh = page.querySelector(`[data-live="${part.dataset.live}"]`);
    if (fresh) part.replaceWith(fresh);
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
      first = false; // the page was rendered with these already
      attempt = 0;
      root.dataset.connected = "true"; // following the event from now on
      return;
    }
    refresh();
  });
  socket.addEventListener("close", (event) => {
    delete root.dataset.connected;
    if (event.code === 4404) return;
    const pause = Math.min(30000, 1000 * 2 ** attempt);
    window.setTimeout(() => connect(attempt + 1), pause);
  });
}

if (root) connect(0);
