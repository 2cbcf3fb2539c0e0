// The service worker of Twenty-One (served by push.views.service_worker at /sw.js, scope /).
// - push: shows the notification the server sent (docs/protocol.md, «Web Push (HTTP)»);
// - notificationclick: focuses a tab of the site on the notification's page, or opens it;
// - fetch: pages from the network first; when it fails, the offline page kept on install.
// Nothing else is cached: the game needs the network, and a stale table would mislead.
"use strict";

const CACHE = "twentyone-offline-{{ version }}";
const PRECACHED = {{ precached|safe }};
const OFFLINE = {{ offline|safe }};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHED))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith("twentyone-offline-") && name !== CACHE)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

// A page says the site's language (static/js/offline.js): the offline page is kept in it.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "language" || typeof data.lang !== "string") return;
  event.waitUntil(
    caches.open(CACHE).then(async (cache) => {
      const kept = await cache.match(OFFLINE);
      if (kept && kept.headers.get("Content-Language") === data.lang) return;
      const fresh = await fetch(OFFLINE, { credentials: "same-origin" });
      if (fresh.ok) await cache.put(OFFLINE, fresh);
    }),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.mode !== "navigate" || request.method !== "GET") return;
  event.respondWith(
    fetch(request).catch(async () => {
      const cache = await caches.open(CACHE);
      return (await cache.match(OFFLINE)) || Response.error();
    }),
  );
});

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = {};
  }
  const title = message.title || "Twenty-One";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: message.body || "",
      tag: message.tag || undefined,
      // A newer notice of the same table replaces the older one, and says so.
      renotify: Boolean(message.tag),
      icon: PRECACHED[2],
      data: { url: message.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data || {}).url || "/", self.location.origin);
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const same = windows.find((client) => new URL(client.url).pathname === url.pathname);
      if (same) return same.focus();
      return self.clients.openWindow(url.href);
    }),
  );
});
