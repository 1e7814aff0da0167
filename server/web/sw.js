// The service worker of the seat pages (served as /sw.js, scope /join/; docs/web.md, "An app
// on the phone"). The server puts VERSION (a hash of the static files) and FILES (their
// addresses) above this text.
//
// What it keeps, for a phone whose network is gone: the static files (the page's modules,
// styles, icons) and each seat page it opened (its HTML: the page's shell, with that seat's
// own code and nothing else; the seat's secret stays in the page's localStorage). Always
// network first, the copy only when the network fails, so a page never runs old modules
// while the server is there. Never kept: an API answer, a socket, anything but a GET.
const STATIC = `gamenight-static-${VERSION}`;
const PAGES = "gamenight-pages";
const MOST_PAGES = 8; // (the seat pages kept: the newest)

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(STATIC).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("gamenight-static-") && name !== STATIC) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function seatPage(url) {
  return /^\/join\/[A-Za-z0-9]{1,16}\/$/.test(url.pathname) && !url.search;
}

async function keepPage(url, resp) {
  const cache = await caches.open(PAGES);
  await cache.put(url, resp);
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - MOST_PAGES))) await cache.delete(old);
}

async function networkFirst(request, cacheName, keep) {
  try {
    const resp = await fetch(request);
    if (resp.ok && resp.type === "basic") {
      const copy = resp.clone();
      keep(copy).catch(() => {});
    }
    return resp;
  } catch (err) {
    const cached = await caches.match(request, { cacheName, ignoreVary: true });
    if (cached) return cached;
    throw err;
  }
}

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.mode === "navigate" && seatPage(url)) {
    ev.respondWith(networkFirst(req, PAGES, (resp) => keepPage(url.href, resp)));
  } else if (FILES.includes(url.pathname)) {
    ev.respondWith(networkFirst(req, STATIC, (resp) => caches.open(STATIC).then((c) => c.put(req, resp))));
  }
  // (anything else, /api/ and /ws/ above all, goes to the network untouched)
});

// A seat page asks to be kept once the worker runs (its first load was not the worker's).
self.addEventListener("message", (ev) => {
  const data = ev.data || {};
  if (data.type !== "keep" || typeof data.path !== "string") return;
  const url = new URL(data.path, self.location.origin);
  if (url.origin !== self.location.origin || !seatPage(url)) return;
  // (the copy the browser already holds when it has one: no second request to the server)
  ev.waitUntil(fetch(url.href, { credentials: "same-origin", cache: "force-cache" }).then((resp) => {
    if (resp.ok) return keepPage(url.href, resp);
    return undefined;
  }).catch(() => {}));
});
