// «Включить уведомления» (templates/push/optin.html): Web Push for this browser, asked only
// after the player's click. The permission, then a subscription with the site's public
// VAPID key through the service worker's pushManager, posted to /push/subscriptions/
// (docs/protocol.md, «Web Push (HTTP)»); a second click unsubscribes.

import { registerServiceWorker } from "./offline.js";

const gettext = window.gettext || ((text) => text);

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

/** The VAPID public key (base64url) as the bytes pushManager.subscribe wants. */
function keyBytes(base64url) {
  const padded = (base64url + "===".slice((base64url.length + 3) % 4))
    .replace(/-/g, "+")
    .replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

async function send(url, method, body) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-CSRFToken": csrfToken(),
    },
    body: JSON.stringify(body),
  });
  return response.ok;
}

async function setUp(box) {
  const supported =
    "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  if (!supported) return;
  const registration = await registerServiceWorker();
  if (!registration) return;
  await navigator.serviceWorker.ready;
  const button = box.querySelector("[data-push-toggle]");
  const status = box.querySelector("[data-push-status]");
  let subscription = await registration.pushManager.getSubscription();

  const show = (message = "") => {
    button.textContent = subscription
      ? gettext("Выключить уведомления")
      : gettext("Включить уведомления");
    button.disabled = Notification.permission === "denied";
    status.textContent =
      message ||
      (Notification.permission === "denied"
        ? gettext("Уведомления запрещены в настройках браузера.")
        : subscription
          ? gettext("Уведомления включены в этом браузере.")
          : "");
  };

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      if (subscription) {
        await send(box.dataset.url, "DELETE", { endpoint: subscription.endpoint });
        await subscription.unsubscribe();
        subscription = null;
        show();
        return;
      }
      if ((await Notification.requestPermission()) !== "granted") {
        show();
        return;
      }
      subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(box.dataset.publicKey),
      });
      if (!(await send(box.dataset.url, "POST", subscription.toJSON()))) {
        await subscription.unsubscribe();
        subscription = null;
        show(gettext("Не удалось включить уведомления. Попробуйте позже."));
        return;
      }
      show();
    } catch (error) {
      show(gettext("Не удалось включить уведомления. Попробуйте позже."));
    } finally {
      button.disabled = Notification.permission === "denied";
    }
  });
  box.hidden = false;
  show();
}

for (const box of document.querySelectorAll("[data-push-optin]")) setUp(box);
