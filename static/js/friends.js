// The lobby's friends panel (people/templatetags/people.py): refreshed every half minute
// from GET /friends/panel/ (an HTML fragment rendered by the same template), while the page
// is visible. Each fetch also marks the viewer online for their friends (people.friends).
const panel = document.getElementById("friends-panel");

async function refresh() {
  if (!panel || document.hidden) return;
  try {
    const response = await fetch(panel.dataset.refreshUrl, {
      credentials: "same-origin",
      headers: { Accept: "text/html" },
    });
    if (response.status !== 200) return;
    const html = await response.text();
    // Keep focus where it was if the user is in the panel (a button being tapped).
    if (panel.contains(document.activeElement) && document.activeElement !== document.body) return;
    const parsed = new DOMParser().parseFromString(html, "text/html");
    panel.replaceChildren(...parsed.body.childNodes);
  } catch (error) {
    // The network is down for a moment: the next poll tries again.
  }
}

if (panel) {
  const seconds = Number(panel.dataset.pollSeconds) || 30;
  setInterval(refresh, seconds * 1000);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
}
