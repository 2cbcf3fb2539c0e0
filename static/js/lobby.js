// The lobby: the server renders the open tables, each row for this viewer (its join
// button says what play.services.seating decided); this keeps them current from the lobby socket
// (docs/protocol.md §14) by swapping in the rows the server rendered, filters them by
// variant, keeps «Ваши столы» as lobby.json gives it and the per-variant counts as the
// socket's lobby_counts (or, under an entry-limit filter, lobby.json) give them, says when
// a part of lobby.json could not be built, and fits the «Открыть стол» form to the chosen
// variant.

import { fmt, h, t } from "./table/dom.js";

const root = document.getElementById("lobby");
const tableEl = document.getElementById("lobby-tables");
const tbody = tableEl.tBodies[0];
const signedIn = root.dataset.signedIn === "1";
const FILTER_KEY = "twentyone.lobby.variant";
const ID_MARK = "987654321"; // the table id in data-table-url
const CLOSED_ROW_MS = 60_000; // a closed table's row stays this long, saying so
const POLL_MS = 30_000; // signed out: the lobby socket is for players only
// lobby.json is not asked after every batch of the socket's changes: with hundreds of
// players in the lobby that was hundreds of requests a second. The counts come with the
// batch (lobby_counts, over all public tables); only under an entry-limit filter, which
// they do not know, is lobby.json asked for them, at most this often, while the page is
// seen.
const FILTERED_REFETCH_MS = 5000;
// «Ваши столы» and the balance (lobby.json's `me`) are asked again, at most this often,
// when a change names one of your tables or seats.
const ME_REFETCH_MS = 1000;
const RETRY_MS = 15_000; // a part lobby.json could not build is asked for again

function readJSON(id) {
  const node = document.getElementById(id);
  if (!node) return null;
  try {
    return JSON.parse(node.textContent);
  } catch {
    return null;
  }
}

let tables = readJSON("lobby-tables-data") || [];
let me = readJSON("lobby-me");
// How many tables of each variant there are under the entry-limit filters (the server's
// count: the list is one page of them), as lobby.json and the socket's `lobby` last gave.
let counts = readJSON("lobby-counts") || {};
const PAGE_SIZE = 50; // lobby.selectors.LOBBY_PAGE_SIZE
// The page shown (the server's answer: a page past the last is the last).
let page = Number(new URLSearchParams(window.location.search).get("page")) || 1;
// Rows the socket said were closed (table_removed): only these, missing from a list
// fetched again, are shown as closed for a while; another missing row just went to
// another page (or out of the filters) and leaves at once.
const removed = new Set();

// --- rows: the server's, swapped in -------------------------------------------------

const tableUrl = (id) => root.dataset.tableUrl.replace(ID_MARK, String(id));
const rowOf = (id) => tbody.querySelector(`tr[data-table-id="${id}"]`);

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function parseRow(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content.querySelector("tr");
}

// The server's row in place of `tr` (or a new one). Only the cells that changed are
// replaced, so a focused button in a cell that did not keeps its focus.
function swap(tr, html) {
  if (!html || (tr && tr.__html === html)) return tr;
  const fresh = parseRow(html);
  if (!fresh) return tr;
  fresh.__html = html;
  if (!tr || tr.cells.length !== fresh.cells.length) {
    if (tr) tr.replaceWith(fresh);
    return fresh;
  }
  const cells = [...fresh.cells];
  [...tr.cells].forEach((cell, i) => {
    if (cell.outerHTML !== cells[i].outerHTML) cell.replaceWith(cells[i]);
  });
  for (const name of tr.getAttributeNames()) {
    if (name !== "hidden" && !fresh.hasAttribute(name)) tr.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) tr.setAttribute(name, fresh.getAttribute(name));
  tr.__html = html;
  return tr;
}

// A closed table leaves the lobby's list: its row, as the server sent it closed
// (table_removed's html), says so for a while.
const closing = new Map();
const closedRows = new Map();

function markClosed(tr) {
  const id = Number(tr.dataset.tableId);
  if (closing.has(id)) return;
  const html = closedRows.get(id);
  closedRows.delete(id);
  if (!html) {
    removed.delete(id);
    tr.remove();
    return;
  }
  swap(tr, html);
  closing.set(
    id,
    window.setTimeout(() => {
      closing.delete(id);
      removed.delete(id);
      tr.remove();
      afterRender();
    }, CLOSED_ROW_MS),
  );
}

function nextOpen(node) {
  let next = node;
  while (next && next.hasAttribute("data-closed")) next = next.nextElementSibling;
  return next;
}

function render() {
  const seen = new Set();
  let previous = null;
  for (const table of tables) {
    seen.add(table.id);
    if (closing.has(table.id)) {
      window.clearTimeout(closing.get(table.id));
      closing.delete(table.id);
    }
    removed.delete(table.id); // listed again: reopened
    const tr = swap(rowOf(table.id), table.html);
    if (!tr) continue; // no row from the server for this viewer yet (lobby.json without `me`)
    tr.__table = table;
    const expected = nextOpen(previous ? previous.nextElementSibling : tbody.firstElementChild);
    if (expected !== tr) tbody.insertBefore(tr, expected);
    previous = tr;
  }
  for (const tr of [...tbody.rows]) {
    if (seen.has(Number(tr.dataset.tableId))) continue;
    // Closed (or now private), as the socket said: said so for a while. Any other row
    // missing from the list (the filters exclude it, the sorting pushed it to another
    // page) just goes: it is not closed.
    const id = Number(tr.dataset.tableId);
    if (removed.has(id) && (!tr.__table || matches(tr.__table))) {
      markClosed(tr);
      continue;
    }
    if (closing.has(id)) {
      window.clearTimeout(closing.get(id));
      closing.delete(id);
    }
    removed.delete(id);
    tr.remove();
  }
  afterRender();
}

// --- filters ------------------------------------------------------------------------

const filters = document.getElementById("lobby-filters");
let selected = "";

function readStored() {
  try {
    return window.localStorage.getItem(FILTER_KEY) || "";
  } catch {
    return "";
  }
}

function store(value) {
  try {
    if (value) window.localStorage.setItem(FILTER_KEY, value);
    else window.localStorage.removeItem(FILTER_KEY);
  } catch {
    // storage refused (private mode): the filter is just not remembered
  }
}

function afterRender() {
  let visible = 0;
  for (const tr of tbody.rows) {
    const show = !selected || tr.dataset.variant === selected;
    tr.hidden = !show;
    if (show) visible += 1;
  }
  const all = Object.values(counts).reduce((sum, n) => sum + n, 0);
  for (const span of filters.querySelectorAll("[data-count]")) {
    const key = span.dataset.count;
    setText(span, String(key ? counts[key] || 0 : all));
  }
  tableEl.hidden = tbody.rows.length === 0;
  // While the list could not be fetched, its note says so, not "no tables".
  const unknown = !noteFor("tables").hidden;
  // None of this variant, though there are tables (the server's list for the variant is
  // empty, or the rows shown are of others): said so, not «no open tables».
  const filteredEmpty = !visible && (tbody.rows.length !== 0 || Boolean(selected && all));
  document.getElementById("lobby-empty").hidden = unknown || tbody.rows.length !== 0 || filteredEmpty;
  document.getElementById("lobby-filtered-empty").hidden = unknown || !filteredEmpty;
}

function choose(value, { remember = true } = {}) {
  const radio = filters.querySelector(`input[name="variant"][value="${CSS.escape(value)}"]`);
  if (!radio) value = "";
  selected = value;
  const input = filters.querySelector(`input[name="variant"][value="${CSS.escape(value)}"]`);
  if (input) input.checked = true;
  if (remember) store(value);
  const url = new URL(window.location.href);
  if (value) url.searchParams.set("variant", value);
  else url.searchParams.delete("variant");
  const changed = url.searchParams.get("variant") !== new URL(window.location.href).searchParams.get("variant");
  if (changed) url.searchParams.delete("page"); // another filter starts at its first page
  window.history.replaceState(window.history.state, "", url);
  afterRender();
  suggestVariant(value);
  // The server filters (and pages) the list: ask it for this variant's tables.
  if (changed) refreshState(0);
}

function setUpFilters() {
  for (const node of filters.querySelectorAll(".js-hidden")) node.hidden = true;
  filters.addEventListener("submit", (event) => event.preventDefault());
  filters.addEventListener("change", (event) => {
    if (event.target.name === "variant") choose(event.target.value);
    if (event.target.name === "max_entry") {
      const url = new URL(window.location.href);
      if (event.target.value && event.target.validity.valid) url.searchParams.set("max_entry", event.target.value);
      else url.searchParams.delete("max_entry");
      url.searchParams.delete("page");
      window.history.replaceState(window.history.state, "", url);
      refreshState(0);
    }
  });
  const params = new URLSearchParams(window.location.search);
  choose(params.has("variant") ? params.get("variant") : readStored(), {
    remember: params.has("variant"),
  });
}

// --- the parts lobby.json could not build (its `unavailable`) -------------------------

// The server renders the same note on first load (templates/lobby/lobby.html); the
// script adds a hidden one where the page has none.
function noteFor(part) {
  let note = root.querySelector(`[data-unavailable="${part}"]`);
  if (note) return note;
  note = h(
    "p",
    { class: "empty part-unavailable", role: "alert", "data-unavailable": part, hidden: true },
    t("Эта часть страницы сейчас недоступна. Попробуйте обновить страницу чуть позже."),
  );
  if (part === "tables") document.getElementById("lobby-empty").before(note);
  else document.getElementById("lobby-pager").after(note);
  return note;
}

function showUnavailable(part, failed) {
  const note = noteFor(part);
  if (note.hidden !== !failed) note.hidden = !failed;
}

// --- «Ваши столы»: your seats and the tables you opened (lobby.json's `me`) ----------

function myItems(viewer) {
  const item = (id, name, what) => h("li", {}, h("a", { href: tableUrl(id) }, name), ` — ${what}`);
  const items = viewer.seats.map((seat) => item(seat.table, seat.name, t("вы за столом")));
  for (const own of viewer.tables || []) {
    if (own.seated) continue; // listed with the seats
    items.push(item(own.table, own.name, own.private ? t("ваш частный стол") : t("вы его открыли")));
  }
  return items;
}

function renderMine() {
  if (!signedIn || !me) return; // signed out, or not known just now: as it was
  const items = myItems(me);
  let box = document.getElementById("my-tables");
  if (!box) {
    if (!items.length) return;
    box = h("div", { class: "my-tables", id: "my-tables" }, h("h3", {}, t("Ваши столы")), h("ul"));
    noteFor("me").after(box);
  }
  box.hidden = items.length === 0;
  const list = box.querySelector("ul");
  // Rebuilt only when it changes, so a focused link keeps its focus.
  const key = JSON.stringify(items.map((li) => [li.firstChild.getAttribute("href"), li.textContent]));
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(...items);
  }
}

// --- the viewer's balance and seats, and the list when signed out --------------------

const stateUrl = root.dataset.stateUrl;
const FILTER_PARAMS = ["variant", "min_entry", "max_entry", "page"];

// The page's filters and page, as lobby.json and the lobby socket take them.
function filterQuery() {
  const here = new URLSearchParams(window.location.search);
  const query = new URLSearchParams();
  for (const name of FILTER_PARAMS) if (here.get(name)) query.set(name, here.get(name));
  if (selected) query.set("variant", selected);
  else query.delete("variant");
  query.set("html", "1"); // each row as the server renders it for this viewer
  return `?${query}`;
}

function matches(table) {
  const here = new URLSearchParams(window.location.search);
  const min = here.get("min_entry");
  const max = here.get("max_entry");
  if (selected && table.variant !== selected) return false;
  if (min && table.entry_limit < Number(min)) return false;
  if (max && table.entry_limit > Number(max)) return false;
  return true;
}

// The lobby socket's table_added / table_changed / table_removed (docs/protocol.md §14).
const variantOrder = Object.keys(readJSON("variant-specs") || {});

function before(a, b) {
  const va = variantOrder.indexOf(a.variant);
  const vb = variantOrder.indexOf(b.variant);
  if (va !== vb) return va < vb;
  if (a.name !== b.name) return a.name < b.name;
  return a.id < b.id;
}

// The rows follow the diffs at once; the counts follow the batch's lobby_counts.
function applyDiff(message) {
  if (message.type === "table_removed") {
    if (rowOf(message.table)) {
      removed.add(message.table);
      if (message.html) closedRows.set(message.table, message.html);
    }
    tables = tables.filter((table) => table.id !== message.table);
    return;
  }
  const row = message.table;
  removed.delete(row.id);
  const index = tables.findIndex((table) => table.id === row.id);
  if (!matches(row)) {
    if (index >= 0) tables.splice(index, 1); // the filters exclude it: not shown
  } else if (index >= 0) {
    tables[index] = row;
  } else if (message.type === "table_added" && tables.length < PAGE_SIZE) {
    // Shown if the page has room (the rest: the next page).
    const at = tables.findIndex((table) => before(row, table));
    tables.splice(at < 0 ? tables.length : at, 0, row);
  }
}

// Whether the page is under an entry-limit filter (the socket's counts are not).
function entryFiltered() {
  const here = new URLSearchParams(window.location.search);
  return Boolean(here.get("min_entry") || here.get("max_entry"));
}

// Whether a diff names one of your seats or tables (lobby.json's `me` then changed), a
// table you just opened (`yours`), or one the server says you sit at: then the verdicts
// of the other rows changed too, and lobby.json brings them.
function namesMine(message) {
  if (!me) return false;
  const id = message.type === "table_removed" ? message.table : message.table.id;
  if (message.yours || message.table?.join?.state === "seated") return true;
  return me.seats.some((seat) => seat.table === id) || (me.tables || []).some((own) => own.table === id);
}

// lobby.json after changes, at most once every `gap` ms since it was last asked: a
// steady stream of changes does not put it off (a debounce would), nor asks at each one.
// A hidden page does not ask: it asks when it is seen again (setUpLive).
let lastFetch = 0;
let refetchTimer = 0;
let refetchAt = 0;

function refetchWithin(gap) {
  const at = Math.max(Date.now(), lastFetch + gap);
  if (refetchTimer && refetchAt <= at) return;
  window.clearTimeout(refetchTimer);
  refetchAt = at;
  refetchTimer = window.setTimeout(() => {
    refetchTimer = 0;
    if (document.visibilityState === "visible") fetchState();
  }, at - Date.now());
}

// The socket's lobby_counts (after each batch of diffs): over all public open tables.
function applyCounts(message) {
  if (entryFiltered()) {
    // Not the counts this page shows: those are lobby.json's, under its filter.
    refetchWithin(FILTERED_REFETCH_MS);
    return;
  }
  counts = message.counts || counts;
  const total = selected ? counts[selected] || 0 : message.counts_total;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  // The page shown no longer exists (its tables closed): the server's last page instead.
  if (page > pages) refetchWithin(ME_REFETCH_MS);
  else showPager({ page, pages });
  afterRender();
}
let stateTimer = 0;
let stateBusy = false;
let stateAgain = false;

async function fetchState() {
  if (stateBusy) {
    stateAgain = true;
    return;
  }
  stateBusy = true;
  lastFetch = Date.now();
  try {
    const query = filterQuery();
    const response = await fetch(stateUrl + query, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    const data = await response.json();
    if (query !== filterQuery()) {
      // The filters changed while it was asked (two variants chosen in a row): not the
      // list shown now, whose rows would leave until the next answer. Asked again.
      stateAgain = true;
      return;
    }
    // A part the server could not build comes empty: what is shown of it stays, with the
    // note in place of "no tables", and it is asked for again a little later.
    const failed = Array.isArray(data.unavailable) ? data.unavailable : [];
    const listed = !failed.includes("tables");
    const known = !failed.includes("me");
    if (listed) {
      tables = data.tables;
      counts = data.counts || counts;
      page = data.page || page;
      showPager(data);
    }
    if (known) me = data.me;
    showUnavailable("tables", !listed);
    if (signedIn) showUnavailable("me", !known);
    render();
    renderMine();
    if (known && me) document.dispatchEvent(new CustomEvent("chips:balance", { detail: { balance: me.balance } }));
    if (!listed || (signedIn && !known)) refreshState(RETRY_MS);
  } catch {
    // offline: keep what is shown; the socket's reconnect will ask again
  } finally {
    stateBusy = false;
    if (stateAgain) {
      stateAgain = false;
      refreshState();
    }
  }
}

// The next/previous links after the list was fetched again (another filter, a change).
function showPager(data) {
  const pager = document.getElementById("lobby-pager");
  if (!pager || !data.pages) return;
  pager.hidden = data.pages < 2;
  const link = (id, page, show) => {
    const node = document.getElementById(id);
    const url = new URL(window.location.href);
    url.searchParams.set("page", String(page));
    node.href = url.search;
    node.hidden = !show;
  };
  link("lobby-prev", data.page - 1, data.page > 1);
  link("lobby-next", data.page + 1, data.page < data.pages);
  setText(document.getElementById("lobby-page-of"), fmt(t("Страница %(page)s из %(pages)s"), data));
}

function refreshState(delay = 200) {
  window.clearTimeout(stateTimer);
  stateTimer = window.setTimeout(fetchState, delay);
}

// --- the lobby socket ----------------------------------------------------------------

const live = document.getElementById("lobby-live");
let socketOpen = false;
let attempt = 0;
let reconnectTimer = 0;
let socket = null;

function setLive(state, text) {
  live.dataset.state = state;
  setText(live.querySelector(".live-text"), text);
}

function connect() {
  window.clearTimeout(reconnectTimer);
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  setLive("connecting", t("Подключение…"));
  socket = new WebSocket(`${scheme}://${window.location.host}/ws/lobby/${filterQuery()}`);
  socket.addEventListener("open", () => {
    attempt = 0;
    socketOpen = true;
    setLive("live", t("Обновляется само"));
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    if (message.type === "lobby" && Array.isArray(message.tables)) {
      tables = message.tables;
      counts = message.counts || counts;
      page = message.page || page;
      showUnavailable("tables", false); // the server built the list
      render();
      showPager(message);
      refreshState(); // seats and balances change with the tables
    } else if (["table_added", "table_changed", "table_removed"].includes(message.type)) {
      const mine = namesMine(message);
      applyDiff(message);
      render();
      // Your seats, balance and tables changed: as the server says.
      if (mine) refetchWithin(ME_REFETCH_MS);
    } else if (message.type === "lobby_counts") {
      applyCounts(message);
    }
  });
  socket.addEventListener("close", (event) => {
    socketOpen = false;
    socket = null;
    if (event.code === 4401 || event.code === 4440) {
      // Not signed in, or the session ended (signed out, password changed elsewhere).
      setLive("offline", t("Вы вышли из аккаунта: обновите страницу."));
      return;
    }
    if (event.code === 4430) {
      // Too many sockets open: one frees when another tab closes.
      setLive("offline", t("Открыто слишком много вкладок с игрой: закройте лишние, переподключимся через минуту."));
      reconnectTimer = window.setTimeout(connect, 60_000);
      return;
    }
    attempt += 1;
    const delay = Math.min(30_000, 1000 * 2 ** Math.min(attempt - 1, 5)) * (0.6 + Math.random() * 0.4);
    setLive("offline", t("Нет связи, переподключаемся…"));
    reconnectTimer = window.setTimeout(connect, delay);
  });
}

function setUpLive() {
  if (signedIn) {
    connect();
    window.addEventListener("online", () => {
      if (!socket) connect();
    });
  } else {
    window.setInterval(() => {
      if (document.visibilityState === "visible") fetchState();
    }, POLL_MS);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refreshState(0);
  });
}

// --- the «Открыть стол» form --------------------------------------------------------

const form = document.getElementById("open-table-form");
const specs = readJSON("variant-specs") || {};
let formTouched = false;

function fitForm() {
  const variant = form.elements.variant.value;
  const spec = specs[variant];
  for (const field of form.querySelectorAll("[data-variants]")) {
    const applies = field.dataset.variants.split(" ").includes(variant);
    field.hidden = !applies;
    for (const input of field.querySelectorAll("input, select")) input.disabled = !applies;
  }
  if (!spec) return;
  for (const [name, value] of Object.entries(spec.defaults)) {
    const input = form.elements[name];
    if (input && input.tagName === "INPUT") input.placeholder = String(value);
  }
  const seats = form.elements.seat_count;
  if (seats) {
    seats.min = String(spec.min_seats);
    seats.max = String(spec.max_seats);
  }
}

function suggestVariant(value) {
  if (!form || formTouched || !value || !specs[value]) return;
  form.elements.variant.value = value;
  fitForm();
}

function setUpForm() {
  if (!form) return;
  form.elements.variant.addEventListener("change", () => {
    formTouched = true;
    fitForm();
  });
  form.addEventListener("input", () => {
    formTouched = true;
  });
  fitForm();
}

// --- «Открыть стол» at the top of the page ------------------------------------------
// Without a script its link reloads the lobby with the form open (?open=1#open-table);
// with one it opens the form in place and brings it into view.

function setUpOpenLink() {
  const link = document.getElementById("open-table-top");
  const details = document.getElementById("open-table");
  if (!link || !details) return;
  link.addEventListener("click", (event) => {
    event.preventDefault();
    details.open = true;
    details.scrollIntoView({ block: "start" });
    details.querySelector("summary")?.focus({ preventScroll: true });
  });
}

setUpForm();
setUpOpenLink();
setUpFilters();
render();
setUpLive();
// A part the server could not render on this load is asked for again (signed in, the
// socket's first message asks at once).
if (!noteFor("tables").hidden || (signedIn && !noteFor("me").hidden)) refreshState(RETRY_MS);
