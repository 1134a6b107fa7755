/*
 * The service worker (built by vite.config.ts, which fills in the asset list):
 * after the first visit the app shell, the workers and the engines' wasm are
 * served from the cache, so the app works with the network off. Same-origin
 * GETs only; nothing else is intercepted. Lookups ignore Vary: servers send
 * `Vary: Origin`, and the page's module scripts and stylesheets carry an
 * Origin header that the install-time requests did not, so without
 * ignoreVary the first visit's cache never matched and offline failed until
 * a second online visit had re-cached everything.
 */
/* global __ASSETS__, __VERSION__ */
const CACHE = `sql-verdict-${__VERSION__}`; // __VERSION__ is a JSON string
const ASSETS = __ASSETS__;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(['./', ...ASSETS]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('sql-verdict-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // The page: the network when there is one (new deploys), else the cached shell.
    event.respondWith(
      fetch(request)
        .then((response) => {
          const copy = response.clone();
          void caches.open(CACHE).then((cache) => cache.put('./', copy));
          return response;
        })
        .catch(() => caches.match('./', { ignoreSearch: true, ignoreVary: true }).then((r) => r ?? Response.error())),
    );
    return;
  }
  // Hashed assets never change: the cache first.
  event.respondWith(
    caches.match(request, { ignoreSearch: true, ignoreVary: true }).then(
      (cached) =>
        cached ??
        fetch(request).then((response) => {
          if (response.ok) {
            const copy = response.clone();
            void caches.open(CACHE).then((cache) => cache.put(request, copy));
          }
          return response;
        }),
    ),
  );
});
