/**
 * The DuckDB wasm (34 MB) is fetched once per browser, not once by DuckDB and
 * once more by the service worker's precache. Whoever asks first takes the Web
 * Lock WASM_LOCK, downloads it and stores it in the WASM_CACHE cache; the other
 * waits for the lock and reads the cache (src/ui/sw-template.js does the same on
 * the service worker side). A worker the service worker does not control yet
 * (the first visit) still reads the cache here, so the wasm never crosses the
 * network twice. Browser only: runs in the thread that compiles the wasm
 * (wasm-module.ts) and, as a fallback, in DuckDB's own worker before DuckDB.
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

/** The message that hands DuckDB's worker the module compiled by its starter (wasm-module.ts), sent before DuckDB's own. */
export const WASM_MODULE_MESSAGE = 'sql-verdict:duckdb-wasm-module';

/**
 * In DuckDB's worker, before DuckDB's code: when the starter sends the compiled
 * module, DuckDB's fetch of the wasm gets an empty body and its instantiate
 * uses the module (WebAssembly.instantiate of a Module compiles nothing).
 * Without that message, nothing changes.
 */
export function instantiateSharedModuleIn(scope: typeof globalThis, wasmUrl: string): void {
  let shared: WebAssembly.Module | null = null;
  const wasmHref = new URL(wasmUrl, scope.location.href).href;
  scope.addEventListener('message', (event: MessageEvent) => {
    const data = event.data as { kind?: unknown; module?: unknown } | null;
    if (data?.kind !== WASM_MODULE_MESSAGE) return;
    if (data.module instanceof WebAssembly.Module) shared = data.module;
    // Registered before DuckDB's handler: DuckDB never sees this message.
    event.stopImmediatePropagation();
  });
  const fetchBefore = scope.fetch;
  scope.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const href = new URL(input instanceof Request ? input.url : String(input), scope.location.href).href;
    if (shared && href === wasmHref)
      return Promise.resolve(new Response(new Uint8Array(0), { headers: { 'content-type': 'application/wasm' } }));
    return fetchBefore(input, init);
  };
  const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    if (!shared) return instantiateStreaming(source, imports);
    void Promise.resolve(source)
      .then((r) => r.body?.cancel())
      .catch(() => undefined);
    return { module: shared, instance: await WebAssembly.instantiate(shared, imports) };
  };
}
