// Every page: the service worker (/sw.js, push.views.service_worker), so that the installed
// app opens its offline page without a network, and Web Push can show notifications.
// It is told the page's language: the offline page it keeps is in that language.

export async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    const worker = registration.active || registration.waiting || registration.installing;
    const lang = document.documentElement.lang || "ru";
    const tell = (target) => target && target.postMessage({ type: "language", lang });
    if (registration.active) tell(registration.active);
    else if (worker) {
      worker.addEventListener("statechange", () => {
        if (worker.state === "activated") tell(worker);
      });
    }
    return registration;
  } catch (error) {
    return null; // an old browser, or a private window that refuses it: the site works on
  }
}

registerServiceWorker();
