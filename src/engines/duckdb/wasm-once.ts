/**
 * The DuckDB wasm (34 MB) is fetched once per browser, not once by DuckDB and
 * once more by the service worker's precache. Whoever asks first takes the Web
 * Lock WASM_LOCK, downloads it and stores it in the WASM_CACHE cache; the other
 * waits for the lock and reads the cache (src/ui/sw-template.js does the same on
 * the service worker side). A worker the service worker does not control yet
 * (the first visit) still reads the cache here, so the wasm never crosses the
 * network twice. Browser only: runs in DuckDB's own worker, before DuckDB.
 */
import { WASM_CACHE, WASM_LOCK } from '../../core/wasm-progress.ts';

/** The wasm response: the cached copy, else the network's (while a copy of its body goes into the cache). */
export function fetchWasmOnce(url: string, fetchNetwork: (url: string) => Promise<Response>): Promise<Response> {
  if (typeof caches === 'undefined' || typeof navigator.locks === 'undefined') return fetchNetwork(url);
  return new Promise<Response>((resolve, reject) => {
    // The lock is held until the copy is stored, so the other side then finds it; the caller reads its own branch meanwhile.
    navigator.locks
      .request(WASM_LOCK, async () => {
        const cache = await caches.open(WASM_CACHE);
        const cached = await cache.match(url, { ignoreSearch: true, ignoreVary: true });
        if (cached) {
          resolve(cached);
          return;
        }
        const response = await fetchNetwork(url);
        if (!response.ok) {
          resolve(response);
          return;
        }
        resolve(response.clone());
        // No cache (quota, private mode): DuckDB still starts from the network's copy.
        await cache.put(url, response).catch(() => undefined);
      })
      .catch(reject);
  });
}

/** Routes this worker's fetch of `wasmUrl` through fetchWasmOnce; every other fetch is unchanged. */
export function fetchWasmOnceIn(scope: typeof globalThis, wasmUrl: string): void {
  const network = scope.fetch.bind(scope);
  const wasmHref = new URL(wasmUrl, scope.location.href).href;
  scope.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const href = new URL(input instanceof Request ? input.url : String(input), scope.location.href).href;
    return href === wasmHref && (init?.method ?? (input instanceof Request ? input.method : 'GET')) === 'GET'
      ? fetchWasmOnce(href, (u) => network(u, { credentials: 'same-origin' }))
      : network(input, init);
  };
}
