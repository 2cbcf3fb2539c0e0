// The table chat (docs/protocol.md §17, templates/chat/panel.html): messages, quick phrases
// and reactions over the table socket; on a phone a drawer that stops above the action bar,
// on a wide screen a panel in the side column. Every text a player wrote is set with
// textContent (dom.js's h): never read as markup.

import { fmt, h, t } from "./dom.js";

const MAX_LINES = 200;
const REPORT_URL = "/report/";

export function createChat({ socket }) {
  const root = document.getElementById("chat");
  if (!root) return { receive() {}, owns() { return false; } };
  const log = document.getElementById("chat-log");
  const toggle = document.getElementById("chat-toggle");
  const unread = document.getElementById("chat-unread");
  const form = document.getElementById("chat-form");
  const input = document.getElementById("chat-input");
  const error = document.getElementById("chat-error");
  const dialog = document.getElementById("chat-report");
  const me = root.dataset.me;
  const seen = new Set();
  let unreadCount = 0;
  let reporting = null;

  const drawerMode = () => toggle && getComputedStyle(toggle).display !== "none";
  const isOpen = () => !drawerMode() || root.dataset.open === "true";

  // --- the drawer ------------------------------------------------------------------------

  /** Between the top of the screen and the action bar (or below the bar, where a short
   * landscape screen has it at the top): never over a decision. */
  function place() {
    const dock = document.querySelector(".action-dock");
    let top = 0;
    let bottom = 0;
    if (dock && dock.offsetHeight > 0) {
      const rect = dock.getBoundingClientRect();
      const visible = rect.bottom > 0 && rect.top < window.innerHeight;
      if (visible && rect.top > window.innerHeight / 2) bottom = window.innerHeight - rect.top;
      else if (visible) top = rect.bottom;
    }
    root.style.setProperty("--chat-top", top ? `${Math.ceil(top)}px` : "auto");
    root.style.setProperty("--chat-bottom", `${Math.ceil(bottom)}px`);
  }

  function setOpen(open) {
    root.dataset.open = open ? "true" : "false";
    if (toggle) toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      place();
      unreadCount = 0;
      showUnread();
      log.scrollTop = log.scrollHeight;
    }
  }

  function showUnread() {
    if (!unread) return;
    unread.hidden = unreadCount === 0;
    unread.textContent = unreadCount > 99 ? "99+" : String(unreadCount);
    if (toggle) {
      toggle.setAttribute(
        "aria-label",
        unreadCount ? fmt(t("Чат: новых сообщений — %(n)s"), { n: unreadCount }) : t("Чат"),
      );
    }
  }

  if (toggle) toggle.addEventListener("click", () => setOpen(root.dataset.open !== "true"));
  document.getElementById("chat-close")?.addEventListener("click", () => setOpen(false));
  for (const event of ["resize", "scroll"]) {
    window.addEventListener(event, () => {
      if (root.dataset.open === "true") place();
    }, { passive: true });
  }
  const dock = document.querySelector(".action-dock");
  if (dock && "ResizeObserver" in window) {
    new ResizeObserver(() => {
      if (root.dataset.open === "true") place();
    }).observe(dock);
  }

  // --- the messages -----------------------------------------------------------------------

  function time(at) {
    if (typeof at !== "number") return "";
    return new Date(at).toLocaleTimeString(document.documentElement.lang || undefined, {
      hour: "2-digit",
      minute: "2-digit",
    });
  }

  function line(message) {
    const own = message.author === me;
    const author = h(
      "a",
      {
        class: "chat-author",
        href: `/players/${encodeURIComponent(message.author)}/`,
        dataset: { role: message.role },
        title: message.role === "spectator" ? t("зритель") : t("игрок"),
      },
      message.author,
    );
    return h(
      "li",
      {
        class: "chat-line",
        dataset: {
          id: String(message.id),
          ...(message.reaction ? { reaction: message.reaction } : {}),
          ...(own ? { own: "true" } : {}),
        },
      },
      author,
      message.bot ? [" ", h("span", { class: "bot-mark" }, t("бот"))] : null,
      ": ",
      h("span", { class: "chat-text" }, message.text),
      h("span", { class: "chat-time" }, time(message.at)),
      message.held
        ? h("span", { class: "chat-held", title: t("Зритель написал это во время раздачи") }, t("после раздачи"))
        : null,
      !own && me
        ? h(
            "button",
            {
              type: "button",
              class: "chat-report-open",
              "aria-label": fmt(t("Пожаловаться на сообщение %(name)s"), { name: message.author }),
              onclick: () => openReport(message),
            },
            t("Пожаловаться"),
          )
        : null,
    );
  }

  function add(message, counts) {
    if (seen.has(message.id)) return;
    seen.add(message.id);
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    log.append(line(message));
    while (log.children.length > MAX_LINES) log.firstElementChild.remove();
    if (atBottom || message.author === me) log.scrollTop = log.scrollHeight;
    if (counts && !isOpen() && message.author !== me) {
      unreadCount += 1;
      showUnread();
    }
  }

  function receive(message) {
    if (message.type === "chat_history") {
      log.replaceChildren();
      seen.clear();
      for (const entry of message.messages || []) add(entry, false);
      log.scrollTop = log.scrollHeight;
    } else if (message.type === "chat" && message.message) {
      add(message.message, true);
    }
  }

  // --- writing ----------------------------------------------------------------------------

  function showError(text) {
    if (!error) return;
    error.textContent = text || "";
    error.hidden = !text;
  }

  function post(fields) {
    showError("");
    return socket.command("chat", fields).then((answer) => {
      if (answer.type === "error") showError(answer.message || t("Сообщение не отправлено."));
      return answer;
    });
  }

  if (form) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      post({ text }).then((answer) => {
        if (answer.type === "ack") input.value = "";
      });
    });
  }
  for (const button of root.querySelectorAll("[data-phrase]")) {
    button.addEventListener("click", () => post({ phrase: button.dataset.phrase }));
  }
  for (const button of root.querySelectorAll("[data-reaction]")) {
    button.addEventListener("click", () => post({ reaction: button.dataset.reaction }));
  }

  // --- «Пожаловаться» ---------------------------------------------------------------------

  const reportStatus = document.getElementById("chat-report-status");
  const reportForm = document.getElementById("chat-report-form");

  function openReport(message) {
    if (!dialog) return;
    reporting = message;
    reportForm.reset();
    reportStatus.textContent = "";
    document.getElementById("chat-report-quote").textContent = `${message.author}: ${message.text}`;
    dialog.showModal();
  }

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  async function sendReport() {
    const data = new FormData(reportForm);
    const body = { message: reporting.id, reason: data.get("reason"), note: String(data.get("note") || "") };
    reportStatus.textContent = t("Отправляем…");
    try {
      const response = await fetch(REPORT_URL, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
        body: JSON.stringify(body),
      });
      let answer = null;
      try {
        answer = await response.json();
      } catch (error) {
        answer = null;
      }
      if (response.ok) {
        reportStatus.textContent = (answer && answer.message) || t("Спасибо, жалоба отправлена.");
        setTimeout(() => dialog.close(), 1500);
      } else {
        reportStatus.textContent =
          (answer && answer.error && answer.error.message) || t("Не удалось отправить жалобу. Попробуйте позже.");
      }
    } catch (error) {
      reportStatus.textContent = t("Не удалось отправить жалобу: нет связи.");
    }
  }

  if (reportForm) {
    reportForm.addEventListener("submit", (event) => {
      if (event.submitter && event.submitter.value === "send") {
        event.preventDefault();
        if (reporting) sendReport();
      }
    });
  }

  showUnread();
  return {
    receive,
    owns: (command) => command && command.type === "chat",
  };
}
