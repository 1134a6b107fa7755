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
/* global __ASSETS__, __VERSION__, __ONCE__, __WASM_CACHE__, __WASM_LOCK__, __WASM_CHANNEL__ */
const VERSION = __VERSION__;
const CACHE = `sql-verdict-${VERSION}`;
const ASSETS = __ASSETS__;
/*
 * The DuckDB wasm (34 MB) is not in CACHE: the app worker may be downloading
 * it at this very moment (a first visit that starts DuckDB at once, which this
 * worker, still installing, cannot intercept). Both sides take the lock
 * WASM_LOCK and look in WASM_CACHE first (src/engines/duckdb/wasm-once.ts), so
 * it crosses the network once; when this side downloads it, the page hears its
 * progress on the same channel as the engine's.
 */
const ONCE = __ONCE__;
const WASM_CACHE = __WASM_CACHE__;
const WASM_LOCK = __WASM_LOCK__;
const WASM_CHANNEL = __WASM_CHANNEL__;
const onceUrls = () => ONCE.map((f) => new URL(f, self.location.href).href);

async function cacheOnce(url) {
  const cache = await caches.open(WASM_CACHE);
  if (await cache.match(url, { ignoreSearch: true, ignoreVary: true })) return;
  const started = Date.now();
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`${url}: HTTP ${response.status}`);
  const bytesTotal = Number(response.headers.get('content-length')) || 0;
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(WASM_CHANNEL);
  let bytesLoaded = 0;
  let posted = 0;
  const counted = response.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        bytesLoaded += chunk.byteLength;
        if (Date.now() - posted >= 50) {
          posted = Date.now();
          channel?.postMessage({ kind: 'progress', bytesLoaded, bytesTotal, elapsedMs: Date.now() - started });
        }
        controller.enqueue(chunk);
      },
    }),
  );
  try {
    await cache.put(
      url,
      new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers }),
    );
    channel?.postMessage({ kind: 'cached', bytesTotal: bytesLoaded, elapsedMs: Date.now() - started });
  } finally {
    channel?.close();
  }
}

// Without Web Locks (older browsers) the two sides cannot agree: download it here anyway, so offline still works.
const cacheAllOnce = () =>
  Promise.all(
    onceUrls().map((url) =>
      navigator.locks ? navigator.locks.request(WASM_LOCK, () => cacheOnce(url)) : cacheOnce(url),
    ),
  );

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(['./', ...ASSETS]))
      .then(cacheAllOnce)
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((k) => k.startsWith('sql-verdict-') && k !== CACHE && k !== WASM_CACHE)
            .map((k) => caches.delete(k)),
        ),
      )
      // A previous build's wasm goes; this build's stays.
      .then(() => caches.open(WASM_CACHE))
      .then(async (cache) =>
        Promise.all(
          (await cache.keys()).filter((r) => !onceUrls().includes(new URL(r.url).href)).map((r) => cache.delete(r)),
        ),
      )
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
  // Hashed assets never change: the cache first (any of ours: WASM_CACHE holds the wasm; its own fetcher stores it).
  const once = onceUrls().includes(new URL(request.url).href.replace(/[?#].*$/, ''));
  event.respondWith(
    caches.match(request, { ignoreSearch: true, ignoreVary: true }).then(
      (cached) =>
        cached ??
        fetch(request).then((response) => {
          if (response.ok && !once) {
            const copy = response.clone();
            void caches.open(CACHE).then((cache) => cache.put(request, copy));
          }
          return response;
        }),
    ),
  );
});
