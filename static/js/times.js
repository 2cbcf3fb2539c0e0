// One time zone for every time shown (issue 20): the player's browser's. Loaded by every
// page (templates/base.html), signed in or not, so that no page shows the server's zone.
//
// The server writes <time datetime="…ISO…" data-local="short|long">its own rendering</time>;
// a text that holds a time inside a longer sentence (a chart's tooltip) carries
// data-when="…ISO…" and data-when-text="the server's rendering of it" instead. Both are
// rewritten here in the browser's zone and the page's language.

function formats() {
  const lang = document.documentElement.lang || undefined;
  return {
    short: new Intl.DateTimeFormat(lang, { dateStyle: "short", timeStyle: "short" }),
    long: new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "medium" }),
  };
}

/** Rewrite every server-rendered time under `root` in the browser's time zone. */
export function localiseTimes(root = document) {
  const format = formats();
  for (const element of root.querySelectorAll("time[datetime][data-local]")) {
    const moment = new Date(element.getAttribute("datetime"));
    if (Number.isNaN(moment.getTime())) continue;
    element.textContent = (format[element.dataset.local] || format.short).format(moment);
  }
  for (const element of root.querySelectorAll("[data-when][data-when-text]")) {
    const moment = new Date(element.dataset.when);
    const server = element.dataset.whenText;
    if (Number.isNaN(moment.getTime()) || !server || !element.textContent.includes(server)) continue;
    const local = format.short.format(moment);
    element.textContent = element.textContent.replace(server, local);
    element.dataset.whenText = local;
  }
}

localiseTimes();
